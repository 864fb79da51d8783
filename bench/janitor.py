"""Undo everything the bench set up, in reverse order, even on Ctrl-C, SIGTERM or SIGHUP."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType


class Interrupted(Exception):
    """A signal asked the bench to stop; cleanup runs, then the CLI exits 130."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"interrupted by {signal.Signals(signum).name}")
        self.signum = signum


class Janitor:
    """A stack of undo actions. Each runs once; a failing one is reported and the rest still run."""

    def __init__(self, log: Callable[[str], None] = print) -> None:
        self._actions: list[tuple[str, Callable[[], None]]] = []
        self._log = log

    def push(self, what: str, action: Callable[[], None]) -> None:
        self._actions.append((what, action))

    def cleanup(self) -> list[str]:
        """Run every pending action, newest first; return the failures (also logged)."""
        failures: list[str] = []
        while self._actions:
            what, action = self._actions.pop()
            try:
                action()
            except Exception as exc:  # cleanup must go on
                failures.append(f"{what}: {exc}")
                self._log(f"cleanup: {what} failed: {exc}")
        return failures


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _raise_interrupted(signum: int, _frame: FrameType | None) -> None:
    # Ignore further signals while we clean up: a second Ctrl-C must not skip the cleanup.
    for sig in _STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    raise Interrupted(signum)


@contextmanager
def cleaned_up(log: Callable[[str], None] = print) -> Iterator[Janitor]:
    """Yield a Janitor whose actions run on exit, however the block ends."""
    janitor = Janitor(log)
    previous = {sig: signal.getsignal(sig) for sig in _STOP_SIGNALS}
    for sig in _STOP_SIGNALS:
        signal.signal(sig, _raise_interrupted)
    try:
        yield janitor
    finally:
        for sig in _STOP_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        failures = janitor.cleanup()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if failures:
            print(f"cleanup: {len(failures)} action(s) failed, see above", file=sys.stderr)
