"""``tpgen remap``: how many cache keys change disk between two specs."""

from __future__ import annotations

import json

from tpgen.api import compare_specs
from tpgen.commands import STANDARD, Console
from tpgen.errors import EXIT_OK
from tpgen.plan.remap import format_remap


def remap(
    old_spec: str, new_spec: str, *, as_json: bool = False, console: Console = STANDARD
) -> int:
    """0 with the report; a bucket count that changed is a SpecError (2)."""
    result = compare_specs(old_spec, new_spec)
    console.say(json.dumps(result.as_dict(), indent=2) if as_json else format_remap(result))
    return EXIT_OK
