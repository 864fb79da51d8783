"""The exit-code table and the one error hierarchy: every error a user sees is a TpgenError.

Light on purpose: ``tpgen --version`` imports this module and nothing heavier.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

EXIT_OK = 0
EXIT_DIFFERS = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3
# A shell's codes for a command a signal ended, so `set -o pipefail` scripts see what they expect.
EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: whoever read stdout stopped reading (`| head`)

# What each exit code means, for --help and the README's table.
EXIT_CODES = {
    EXIT_OK: "ok",
    EXIT_DIFFERS: "differs (--diff) or nginx -t failed",
    EXIT_BAD_INPUT: "bad input",
    EXIT_INTERNAL: "internal error",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
    EXIT_BROKEN_PIPE: "stdout's reader went away",
}

Path = tuple[str | int, ...]

# A key shown bare must not look like an index or two keys: `"1"` and `"node.cores"` get quotes.
_BARE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_SHORT_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:
        # An undecodable byte of a file name or argument (surrogateescape): show the byte.
        return f"\\x{code - 0xDC00:02x}"
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` with every non-printable character escaped, so an echoed value stays one line."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _escape_char(char) for char in text)


# Every key tpgen knows is shorter; an unknown one is shown cut, not echoed at any length.
_KEY_SHOWN = 64


def _format_part(part: str | int) -> str:
    if isinstance(part, int):
        return str(part)
    if len(part) > _KEY_SHOWN:
        part = f"{part[: _KEY_SHOWN - 4]}…"
    if _BARE_KEY.fullmatch(part):
        return part
    body = printable(part.replace("\\", "\\\\").replace('"', '\\"'))
    return f'"{body}"'


def format_path(path: Path) -> str:
    return ".".join(_format_part(part) for part in path) if path else "(top)"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a spec: where it is and what to do about it."""

    path: Path
    message: str
    file: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = printable(self.file or "<spec>")
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {format_path(self.path)}: {printable(self.message)}"


class TpgenError(Exception):
    """An error tpgen reports to its user: ``report()`` is what stderr shows, ``exit_code`` the
    status the command ends with."""

    exit_code: ClassVar[int] = EXIT_INTERNAL

    def report(self) -> str:
        return f"tpgen: {printable(str(self))}"


class BadInput(TpgenError):
    """Input the user can fix; the message says how."""

    exit_code = EXIT_BAD_INPUT


class SpecError(BadInput):
    """Bad input. ``str()`` is the message a user sees: one line per problem."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: Sequence[Problem] = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    def report(self) -> str:
        # Each line already names its file and line: no "tpgen:" in front.
        return str(self)


class FileRefused(BadInput):
    """A file argument tpgen will not read or write; ``str()`` names the file and the fix."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{printable(path) or repr(path)}: {printable(message)}")


class OptionMisused(BadInput):
    """An option that parses but does not fit the spec: the line click's own option errors
    give, ``tpgen CMD: --option: what to do``."""

    def __init__(self, command: str, option: str, message: str) -> None:
        self.command = command
        self.option = option
        super().__init__(message)

    def report(self) -> str:
        return f"tpgen {self.command}: {self.option}: {printable(str(self))}"


class NginxUnavailable(BadInput):
    """No usable nginx binary: the message says how to get one."""


class ConfigRejected(TpgenError):
    """``nginx -t`` refused the rendered config: the spec is valid, the result is not."""

    exit_code = EXIT_DIFFERS

    def __init__(self, source: str, output: str) -> None:
        self.source = source
        self.output = output
        super().__init__(f"{printable(source)}: nginx -t rejected the rendered config:\n{output}")

    def report(self) -> str:
        # nginx's own lines, already made readable by the check: shown as they are.
        return str(self)


class InternalError(TpgenError):
    """A bug: an exception nobody turned into a message. ``--debug`` shows its traceback."""

    exit_code = EXIT_INTERNAL

    def report(self) -> str:
        return f"tpgen: internal error: {self} (run with --debug and report it)"


def as_tpgen_error(err: Exception) -> TpgenError:
    """Any exception as the TpgenError a user sees: an OSError names its file, anything
    unexpected is an internal error."""
    if isinstance(err, TpgenError):
        return err
    if isinstance(err, OSError):
        name = printable(str(err.filename or "file"))
        return BadInput(f"{name}: {printable(err.strerror or str(err))}")
    return InternalError(f"{type(err).__name__}: {printable(str(err))}")


def problem(path: Path, message: str) -> Problem:
    return Problem(path=path, message=message)
