"""Plan → nginx.conf text. Pure: the templates lay out what the plan decided."""

from __future__ import annotations

from jinja2 import Environment, PackageLoader, StrictUndefined

from tpgen.plan import Plan
from tpgen.units import nginx_size


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("tpgen", "templates"),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["nginx_size"] = nginx_size
    return env


_ENV = _environment()


def render_config(plan: Plan) -> str:
    """The complete nginx.conf for a plan; the same plan always gives the same bytes."""
    return _ENV.get_template("nginx.conf.j2").render(plan=plan)
