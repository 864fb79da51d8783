"""tpgen's own config against the build the spec names (nginx.configure): every module a
directive of it (or a listen parameter: ssl, http2, quic) needs must be in that nginx, or the
node's nginx -t refuses the config that the offline check, run with another nginx, took.

The snippets' directives are checked the same way, with their own messages (spec/snippets.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from tpgen.errors import Problem
from tpgen.spec.build import Build
from tpgen.spec.directives import INNER_CONTEXTS, present
from tpgen.spec.edge import version_tuple
from tpgen.spec.model import NodeSpec
from tpgen.spec.nginx_syntax import Directive, parse
from tpgen.spec.nginx_table import Version

# A listen parameter is no directive of the table: a directive of the same module stands for
# it (nginx: the "http2" parameter requires ngx_http_v2_module).
LISTEN_PARAMETERS = {"ssl": "ssl_certificate", "http2": "http2_chunk_size", "quic": "quic_retry"}
FIX = "build nginx with it, or correct nginx.configure (the configure arguments of `nginx -V`)"


def _used(directives: tuple[Directive, ...], context: str) -> Iterator[tuple[str, str, str]]:
    """(name a module must bring, the context it stands in, what of tpgen's config needs
    it) in the order written."""
    for directive in directives:
        yield directive.name, context, directive.name
        if directive.name == "listen":
            for parameter in directive.args[1:]:
                if parameter in LISTEN_PARAMETERS:
                    yield LISTEN_PARAMETERS[parameter], context, f"listen … {parameter}"
        inner = INNER_CONTEXTS.get((context, directive.name))
        if inner is not None and directive.block is not None:
            yield from _used(directive.block, inner)


def _sources(name: str, context: str, version: Version) -> tuple[str, ...]:
    """The modules whose ``name`` nginx takes in ``context`` (http's return is the rewrite
    module's, not stream's)."""
    found = present(name, version)
    fitting = [command for command in found if context in command.contexts] or found
    return tuple(command.source for command in fitting)


def unbuilt_problems(spec: NodeSpec, config: str) -> list[Problem]:
    """One problem (on nginx.configure) per module tpgen's ``config`` needs and the build
    the spec names lacks; none without nginx.configure."""
    if spec.nginx.configure is None:
        return []
    version = version_tuple(spec.nginx.version)
    build = Build(version, spec.nginx.configure)
    lacked: dict[str, str] = {}
    for name, context, needing in _used(parse(config), "main"):
        sources = _sources(name, context, version)
        if sources and not any(build.has(source) for source in sources):
            lacked.setdefault(sources[0], needing)
    return [
        Problem(
            ("nginx", "configure"),
            f"tpgen's config uses {needing}, and {build.lacks(source, fix=FIX)}",
        )
        for source, needing in lacked.items()
    ]
