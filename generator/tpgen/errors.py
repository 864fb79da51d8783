"""The one user-facing error type and the exit codes, mapped in one place."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

EXIT_OK = 0
EXIT_DIFFERS = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3

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


def _format_part(part: str | int) -> str:
    if isinstance(part, int):
        return str(part)
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


class SpecError(Exception):
    """Bad input. ``str()`` is the message a user sees: one line per problem."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: Sequence[Problem] = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class FileRefused(Exception):
    """A file argument tpgen will not read or write; ``str()`` names the file and the fix."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{printable(path) or repr(path)}: {printable(message)}")


class NginxUnavailable(Exception):
    """No usable nginx binary: the message says how to get one."""


def problem(path: Path, message: str) -> Problem:
    return Problem(path=path, message=message)
