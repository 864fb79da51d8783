"""The thresholds of `tpgen guard`: when a disk's errors fail it, how often, what a slow disk gets.

Pure: each threshold is a Decision, the spec's `guard:` value or the default of plan/defaults.py
with its reason; `tpgen guard --explain` prints them and the node agent reads the values.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from tpgen.plan import defaults
from tpgen.plan.types import Decision
from tpgen.spec.model import NodeSpec
from tpgen.spec.units import parse_duration


def _set(value: Any, default: Any, because: str) -> Decision[Any]:
    if value is not None:
        return Decision(value, "set in the spec (guard)", overridden=True)
    return Decision(default, because)


@dataclass(frozen=True)
class GuardPlan:
    errors: Decision[int]
    window: Decision[str]
    rate_window: Decision[str]
    slow: Decision[str]
    slow_factor: Decision[float]
    slow_for: Decision[str]
    slow_min_reads: Decision[int]
    slow_min_ms: Decision[float]

    def values(self) -> dict[str, Any]:
        """The values only, durations in seconds: what the node agent's Policy takes."""
        out: dict[str, Any] = {}
        for item in fields(self):
            decision: Decision[Any] = getattr(self, item.name)
            value = decision.value
            if item.name in ("window", "rate_window", "slow_for"):
                value = parse_duration(value, milliseconds=False) / 1000
            out[item.name] = value
        return out

    def rows(self) -> list[tuple[str, str, str]]:
        """(name, value, because) for each threshold, in order."""
        return [
            (item.name, str(getattr(self, item.name).value), getattr(self, item.name).because)
            for item in fields(self)
        ]


def guard_plan(spec: NodeSpec) -> GuardPlan:
    """Every threshold of the guard for this spec, each with its reason."""
    guard = spec.guard
    return GuardPlan(
        errors=_set(
            guard.errors,
            defaults.GUARD_ERRORS,
            f"{defaults.GUARD_ERRORS} like Traffic Server's max_disk_errors: a few requests "
            "for a dead disk, never one bad sector",
        ),
        window=_set(
            guard.window,
            defaults.GUARD_WINDOW,
            "a burst of requests for a dead disk; errors spread over hours never add up",
        ),
        rate_window=_set(
            guard.rate_window,
            defaults.GUARD_RATE_WINDOW,
            "a second disk failing this soon points at a controller or cable: report, not act",
        ),
        slow=_set(
            guard.slow,
            defaults.GUARD_SLOW,
            "draining moves the disk's keys: an operator's call unless the spec says drain",
        ),
        slow_factor=_set(
            guard.slow_factor,
            defaults.GUARD_SLOW_FACTOR,
            "a dying HDD reads 10x slower than its peers; healthy ones vary 2-3x under load",
        ),
        slow_for=_set(
            guard.slow_for,
            defaults.GUARD_SLOW_FOR,
            "minutes: a burst queued behind a scrub is not a sick disk",
        ),
        slow_min_reads=Decision(
            defaults.GUARD_SLOW_MIN_READS, "fewer reads in the span give no latency figure"
        ),
        slow_min_ms=Decision(
            defaults.GUARD_SLOW_MIN_MS, "below this a read came from the disk's own cache"
        ),
    )
