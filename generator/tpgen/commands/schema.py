"""``tpgen schema``: the spec's JSON Schema."""

from __future__ import annotations

from tpgen.commands import STANDARD, Console
from tpgen.errors import EXIT_OK
from tpgen.spec.schema import spec_schema_json


def schema(*, console: Console = STANDARD) -> int:
    console.say(spec_schema_json(), end="")
    return EXIT_OK
