"""The include files of spec extra: where in the config each context's files go, and why."""

from __future__ import annotations

from typing import Any

from tpgen.plan.types import Decision
from tpgen.spec.model import NodeSpec

# Where each context's includes stand in the rendered config (docs/spec.md#extra).
PLACES = {
    "main": "in the main context after tpgen's thread pools and before events, so a "
    "load_module there comes early enough",
    "http": "in the http block after tpgen's directives and before its servers",
    "server": "in every content server (one per certificate), before its locations; the "
    "redirect and status servers stay tpgen's alone",
    "location": "at the end of every location that serves content (/, the mp4 one and the "
    "named ones that serve the same objects), after tpgen's directives",
}


def extra_fields(spec: NodeSpec) -> dict[str, Any]:
    """One Decision per context that lists files; None where the spec lists none."""
    fields: dict[str, Any] = {}
    for context, place in PLACES.items():
        paths = tuple(getattr(spec.extra, context))
        fields[f"extra_{context}"] = (
            Decision(
                paths,
                f"set in the spec (extra.{context}): included {place}; render and validate "
                "refuse in it what would break the per-disk layout, nginx -t checks the rest",
                overridden=True,
            )
            if paths
            else None
        )
    return fields
