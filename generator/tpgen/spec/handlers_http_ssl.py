"""The certificate paths ngx_http_ssl_merge_srv_conf compiles (ngx_http_ssl_compile_certificates,
nginx 1.22 to 1.31 alike): in each server whose certificates, its own or its http block's,
are in force, once one of them or the key paired with it has a $. An http block's are merged
into every server that sets none of its own (tpgen's status server sets none); a server that
sets only keys takes its http block's certificates, and a key after those is never compiled,
nor a key where no certificate is in force (handlers_stream_ssl reads stream's the same way).
"""

from __future__ import annotations

from collections.abc import Iterator

from tpgen.spec.handlers_certificates import (
    VariableCheck,
    compiled_paths,
    path_script_refusals,
    path_variable_refusals,
)
from tpgen.spec.nginx_syntax import Directive


def http_certificate_refusals(
    directives: tuple[Directive, ...], inherited: bool, unknown: VariableCheck
) -> Iterator[tuple[Directive, str]]:
    """(path, why) of a block's (an http block's or a server's) certificate paths nginx
    compiles and refuses. ``inherited``: a server that sets no certificate takes its http
    block's, at least one, so its first key is paired (how many more is not known here)."""
    certificates = tuple(d for d in directives if d.name == "ssl_certificate")
    keys = tuple(d for d in directives if d.name == "ssl_certificate_key")
    compiled = compiled_paths(certificates, keys, len(certificates) or int(inherited))
    refused: set[int] = set()
    for directive, reason in (
        *path_script_refusals(compiled),
        *path_variable_refusals(compiled, unknown),
    ):
        if id(directive) not in refused:
            refused.add(id(directive))
            yield directive, reason
