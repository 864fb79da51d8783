"""``tpgen explain``: every derived value of a spec and the rule behind it."""

from __future__ import annotations

from tpgen.api import load_plan
from tpgen.commands import STANDARD, Console
from tpgen.errors import EXIT_OK
from tpgen.render.explain import explain_rows, format_table


def explain(spec: str, *, console: Console = STANDARD) -> int:
    console.say(format_table(explain_rows(load_plan(spec))))
    return EXIT_OK
