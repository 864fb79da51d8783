"""What every check returns: a :class:`Finding` with a :class:`Level` (the worst is the exit)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any


class Level(IntEnum):
    """Severity; the exit code is the worst level found."""

    OK = 0
    WARN = 1
    FAIL = 2

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True)
class Finding:
    """The result of one check on one subject (a disk, a pool, the node)."""

    check: str
    level: Level
    message: str
    subject: str | None = None
    fix: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "subject": self.subject,
            "level": self.level.label,
            "message": self.message,
            "fix": self.fix,
            "data": dict(self.data),
        }


class DoctorError(Exception):
    """Inputs doctor cannot work with (unreadable spec, bad --since); ``str()`` is the message."""


def worst(findings: Iterable[Finding]) -> Level:
    """The exit code: the worst level found (OK for no findings)."""
    return max((f.level for f in findings), default=Level.OK)
