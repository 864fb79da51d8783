"""One module per subcommand: a plain function that takes typed arguments and returns the exit
code. ``tpgen.cli`` only wires click to them; tests call them directly.

A command raises a TpgenError for what went wrong and returns a code for what it found;
:func:`run` is the one place an error becomes a message and an exit code. This package's
``__init__`` stays light (no pydantic, no Jinja2): ``tpgen --version`` imports it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
from collections.abc import Callable, Iterator
from typing import TextIO

from tpgen.errors import EXIT_BROKEN_PIPE, FileRefused, InternalError, as_tpgen_error


class Console:
    """Where a command writes: results to ``out``, messages to ``err``.

    Streams left out are looked up when written to, so a test's captured stdout is used.
    """

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self._out = out
        self._err = err

    @property
    def out(self) -> TextIO:
        return _open_stream(self._out if self._out is not None else sys.stdout, "stdout")

    @property
    def err(self) -> TextIO:
        return _open_stream(self._err if self._err is not None else sys.stderr, "stderr")

    def say(self, text: str, end: str = "\n") -> None:
        with writing("stdout"):
            _write(self.out, text + end)

    def warn(self, text: str) -> None:
        _write(self.err, text + "\n")


def _open_stream(stream: TextIO | None, name: str) -> TextIO:
    # Python sets sys.stdout to None when it starts with descriptor 1 closed (`tpgen ... >&-`).
    if stream is None:
        raise FileRefused(f"<{name}>", "is closed: run with it open, or write to a file")
    return stream


def unwritable(name: str, err: OSError | UnicodeEncodeError) -> FileRefused:
    """A failed write to stdout or stderr (a full disk, an encoding) as a refusal naming it."""
    if isinstance(err, UnicodeEncodeError):
        return FileRefused(
            f"<{name}>",
            f"cannot write {err.object[err.start : err.end]!r} in {err.encoding}: set a UTF-8 "
            "locale (LANG=C.UTF-8) or PYTHONIOENCODING=utf-8",
        )
    return FileRefused(f"<{name}>", f"cannot write: {err.strerror or err}")


@contextlib.contextmanager
def writing(name: str) -> Iterator[None]:
    """Writes to stdout or stderr whose failure is :func:`unwritable`'s refusal; a reader that
    went away stays a BrokenPipeError (exit 141)."""
    try:
        yield
    except BrokenPipeError:
        raise
    except (OSError, UnicodeEncodeError) as err:
        raise unwritable(name, err) from None


def _write(stream: TextIO, text: str) -> None:
    stream.write(text)
    stream.flush()


STANDARD = Console()


def run(command: Callable[[], int], console: Console = STANDARD, *, debug: bool = False) -> int:
    """The exit code of ``command``; an error it raises is reported on ``console.err`` and
    ends with that error's exit code (the table in tpgen.errors)."""
    try:
        return command()
    except BrokenPipeError:
        return stdout_gone()
    except Exception as raised:
        error = as_tpgen_error(raised)
        # The exit code says what happened even where stderr cannot (closed, a full disk).
        with contextlib.suppress(OSError, UnicodeError, FileRefused):
            if debug and isinstance(error, InternalError):
                traceback.print_exception(raised, file=console.err)
            console.warn(error.report())
        return error.exit_code


def stdout_gone() -> int:
    """The exit code for a stdout whose reader went away (`tpgen render | head`): silent, as a
    command SIGPIPE ends; stdout is pointed at /dev/null so Python's own flush at exit cannot
    print a second error."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass  # stdout is not a file descriptor (a test's buffer): nothing flushes it at exit
    finally:
        os.close(devnull)
    return EXIT_BROKEN_PIPE
