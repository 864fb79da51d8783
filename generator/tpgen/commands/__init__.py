"""One module per subcommand: a plain function that takes typed arguments and returns the exit
code. ``tpgen.cli`` only wires click to them; tests call them directly.

A command raises a TpgenError for what went wrong and returns a code for what it found;
:func:`run` is the one place an error becomes a message and an exit code. This package's
``__init__`` stays light (no pydantic, no Jinja2): ``tpgen --version`` imports it.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable
from typing import TextIO

from tpgen.errors import EXIT_BROKEN_PIPE, InternalError, as_tpgen_error


class Console:
    """Where a command writes: results to ``out``, messages to ``err``.

    Streams left out are looked up when written to, so a test's captured stdout is used.
    """

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self._out = out
        self._err = err

    @property
    def out(self) -> TextIO:
        return self._out if self._out is not None else sys.stdout

    @property
    def err(self) -> TextIO:
        return self._err if self._err is not None else sys.stderr

    def say(self, text: str, end: str = "\n") -> None:
        _write(self.out, text + end)

    def warn(self, text: str) -> None:
        _write(self.err, text + "\n")


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
