"""The guard's thresholds as the node agent reads them: plain numbers, durations in seconds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields


class GuardError(Exception):
    """Input the guard cannot work with (a bad policy, state or spec): one line for the user."""


@dataclass(frozen=True)
class Policy:
    errors: int = 5
    window: float = 30.0
    rate_window: float = 600.0
    slow: str = "report"
    slow_factor: float = 10.0
    slow_for: float = 300.0
    slow_min_reads: int = 50
    slow_min_ms: float = 20.0


def policy_from(values: Mapping[str, object]) -> Policy:
    """A Policy from the plan's ``GuardPlan.values()``; an unknown or mistyped key is refused."""
    known = {item.name: item.type for item in fields(Policy)}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise GuardError(f"unknown guard threshold(s): {', '.join(unknown)}")
    kwargs: dict[str, object] = {}
    for name, value in values.items():
        if name == "slow":
            if value not in ("report", "drain"):
                raise GuardError(f"guard.slow must be report or drain, not {value!r}")
        elif isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise GuardError(f"guard.{name} must be a number >= 0, not {value!r}")
        kwargs[name] = value
    return Policy(**kwargs)  # type: ignore[arg-type]
