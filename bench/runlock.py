"""One measuring run at a time, and no cleanup during one. Two runs share the two CPUs, the
host's disk and its page cache, so each measures the other's load too (session 19: a run started
beside another one saw its backing disk read at 0.0 MB/s and its hot file at a fifteenth of its
rate alone); a cleanup during a run would take its disks as leftovers. A run is a process: what
one entry point calls while holding the lock (each pair of `run --regimes`) is part of its run."""

from __future__ import annotations

import fcntl
import functools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ParamSpec, TypeVar

from bench.leftovers import BENCH_ROOT
from bench.system import BenchError, private_dir

LOCK = BENCH_ROOT / "run.lock"

# Lock files this process holds: flock() locks an open file, so a second open() of one in the
# same process would be refused like another run's.
_held: set[Path] = set()


@contextmanager
def exclusive(command: str, lock: Path | None = None) -> Iterator[None]:
    """Hold the bench's run lock while the block runs, or refuse: another run holds it. The
    kernel drops the lock with its holder, so a killed run never leaves it taken; within the
    holder the block runs as part of the same run."""
    path = lock or LOCK
    if path in _held:
        yield
        return
    private_dir(path.parent)
    with path.open("a+", encoding="utf-8") as held:
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            held.seek(0)
            holder = held.read().strip() or "its pid unknown"
            raise BenchError(
                f"another bench run is going ({holder}), and bench {command} does not run beside "
                "one (two runs measure each other's load; cleanup would take its disks): wait "
                "for it to end, or stop it (Ctrl-C)"
            ) from None
        held.seek(0)
        held.truncate()
        held.write(f"pid {os.getpid()}, bench {command}\n")
        held.flush()
        _held.add(path)
        try:
            yield
        finally:
            _held.discard(path)
            held.truncate(0)


P = ParamSpec("P")
R = TypeVar("R")


def holds_the_lock(command: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """For each entry point that sets up disks and cgroups under BENCH_ROOT and measures: it runs
    holding the lock, whoever calls it (the CLI, a test)."""

    def wrap(function: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(function)
        def locked(*args: P.args, **kwargs: P.kwargs) -> R:
            with exclusive(command):
                return function(*args, **kwargs)

        return locked

    return wrap
