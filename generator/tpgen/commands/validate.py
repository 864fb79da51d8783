"""``tpgen validate``: the spec and its plan, silent when fine."""

from __future__ import annotations

from tpgen.api import load_plan
from tpgen.errors import EXIT_OK


def validate(spec: str) -> int:
    """0 when ``spec`` and its plan are fine; a refusal raises SpecError (2)."""
    load_plan(spec)
    return EXIT_OK
