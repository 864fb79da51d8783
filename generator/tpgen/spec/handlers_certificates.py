"""What nginx refuses of a server's certificate paths "", ported from
ngx_http_ssl_merge_srv_conf and ngx_ssl_certificates (nginx 1.22 to 1.31 alike): a server loads
its certificates and keys when it reads the config, unless one of them has a variable (then
all are loaded per handshake), and "" is the prefix directory, which no certificate or key is.
An http block's are loaded in each server that sets none of its own: tpgen's status server.
"""

from __future__ import annotations

from collections.abc import Iterator

from tpgen.spec.nginx_syntax import Directive

_PATHS = ("ssl_certificate", "ssl_certificate_key")


def empty_certificate_paths(directives: tuple[Directive, ...]) -> Iterator[tuple[Directive, str]]:
    """(directive, why) for each ssl_certificate "" of a block, and each ssl_certificate_key ""
    beside a certificate, that nginx loads (no path of the block has a variable)."""
    paths = [d for d in directives if d.name in _PATHS]
    if any("$" in " ".join(d.args) for d in paths):
        return
    certificates = any(d.name == "ssl_certificate" for d in paths)
    for directive in paths:
        if directive.args == ("",) and certificates:
            yield directive, _loaded_empty(directive.name)


def _loaded_empty(name: str) -> str:
    what = "certificate key" if name.endswith("_key") else "certificate"
    return (
        f'is "", which nginx loads as the prefix directory, no {what} (nginx: cannot load '
        f'{what} "…/"): name the file, or remove it (a server without ssl_certificate of its '
        "own takes the http block's)"
    )
