"""tpgen's rule read off one rendered config: the problems tpgen finds in the spec's snippets,
nginx -t's verdict, and what tpgen's own reading of nginx refuses of tpgen's config. The tests
assert them; here they are only gathered, the one way every test that renders a spec does."""

from __future__ import annotations

from collections.abc import Callable

from tpgen.check import CheckResult, check_plan
from tpgen.errors import Problem
from tpgen.plan import Plan
from tpgen.render import render_config
from tpgen.spec.directives import Target, defined_variables, refusals
from tpgen.spec.edge import version_tuple
from tpgen.spec.model import NodeSpec
from tpgen.spec.nginx_syntax import parse
from tpgen.spec.snippets import snippet_problems


def snippets_and_nginx(
    spec: NodeSpec, plan: Plan, locate: Callable[[str], str], nginx: str
) -> tuple[str, list[Problem], CheckResult]:
    """The rendered config, tpgen's problems with the snippets in it, and nginx -t on it."""
    config = render_config(plan)
    found = snippet_problems(
        spec, plan.shadowed_by_tpgen, locate=locate, required=True, config=config
    )
    return config, found, check_plan(plan, nginx=nginx, locate=locate)


def own_refusals(config: str, version: str) -> list[tuple[int, str, str]]:
    """(line, directive, why) of what tpgen's reading of nginx ``version`` (spec/directives.py)
    refuses in ``config`` read whole."""
    tree = parse(config)
    target = Target(version_tuple(version), defined=defined_variables(tree))
    return [(d.line, d.name, why) for d, why in refusals(tree, "main", target)]
