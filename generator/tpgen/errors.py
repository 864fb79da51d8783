"""The one user-facing error type and the exit codes, mapped in one place."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

EXIT_OK = 0
EXIT_DIFFERS = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3

Path = tuple[str | int, ...]


def format_path(path: Path) -> str:
    return ".".join(str(part) for part in path) if path else "(top)"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a spec: where it is and what to do about it."""

    path: Path
    message: str
    file: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = self.file or "<spec>"
        if self.line is not None:
            where = f"{where}:{self.line}"
        return f"{where}: {format_path(self.path)}: {self.message}"


class SpecError(Exception):
    """Bad input. ``str()`` is the message a user sees: one line per problem."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: Sequence[Problem] = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class NginxUnavailable(Exception):
    """No usable nginx binary: the message says how to get one."""


def problem(path: Path, message: str) -> Problem:
    return Problem(path=path, message=message)
