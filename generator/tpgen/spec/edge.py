"""Cross-field rules of an edge: listens, TLS, HTTP/2 and HTTP/3, and the nginx they need."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

from tpgen.errors import Problem, problem
from tpgen.spec.model import DUAL_STACK, Listen, NodeSpec, Tls

# nginx 1.25.0 brought HTTP/3 (ngx_http_v3_module); 1.25.1 the `http2 on;` directive.
HTTP3_SINCE = (1, 25, 0)
HTTP2_DIRECTIVE_SINCE = (1, 25, 1)
# What a spec without nginx.version is rendered for: Debian 12's nginx.
DEFAULT_NGINX_VERSION = "1.22.1"
# The oldest nginx tpgen renders for: proxy_cache_path's min_free came in 1.19.1 (every cache
# disk's zone has one); what is newer than that is gated by version where it is written.
OLDEST_NGINX = (1, 19, 1)


def version_tuple(version: str | None) -> tuple[int, ...]:
    """``1.26`` → (1, 26, 0); no version: the default nginx's."""
    parts = tuple(int(p) for p in (version or DEFAULT_NGINX_VERSION).split("."))
    return parts + (0,) * (3 - len(parts))


def version_text(version: tuple[int, ...]) -> str:
    """(1, 22, 1) → ``1.22.1``."""
    return ".".join(map(str, version))


def sockets(listen: Listen) -> tuple[str, ...]:
    """The addresses one listen binds: ``*`` is both families' wildcard."""
    return ("0.0.0.0", "::") if listen.address == DUAL_STACK else (listen.address,)


def _overlap(a: str, b: str) -> bool:
    """Two addresses on one port collide: equal, or one is its family's wildcard."""
    first, second = ipaddress.ip_address(a), ipaddress.ip_address(b)
    if first.version != second.version:
        return False
    return first == second or first.is_unspecified or second.is_unspecified


def _socket_problems(spec: NodeSpec) -> Iterator[Problem]:
    seen: list[tuple[int, str, int]] = []
    for index, listen in enumerate(spec.listen):
        for address in sockets(listen):
            clash = _taken_by(seen, address, listen.port)
            if clash is not None and clash != index:
                yield problem(
                    ("listen", index, "port"),
                    f"port {listen.port} on {address} is already taken by listen.{clash}: "
                    "each listen needs its own port (use address '*' for IPv4 and IPv6)",
                )
                break
            seen.append((index, address, listen.port))
    if any(
        port == spec.status.port and _overlap(address, spec.status.address)
        for _, address, port in seen
    ):
        yield problem(
            ("status", "port"), f"port {spec.status.port} is the listen port: pick another"
        )


def _taken_by(seen: list[tuple[int, str, int]], address: str, port: int) -> int | None:
    """The first listen (index) of ``seen`` whose socket overlaps ``address``:``port``."""
    return next((i for i, a, p in seen if p == port and _overlap(a, address)), None)


def _protocol_problems(spec: NodeSpec, index: int, listen: Listen) -> Iterator[Problem]:
    where = ("listen", index)
    if listen.tls and spec.tls is None:
        yield problem(
            (*where, "tls"),
            "a TLS listen needs a certificate: add tls.certificates "
            "[{cert: /etc/nginx/tls/site.crt, key: /etc/nginx/tls/site.key}]",
        )
    if listen.http2 and not listen.tls:
        yield problem(
            (*where, "http2"),
            "HTTP/2 is offered on TLS listens only (clients negotiate it by ALPN; plain h2c "
            "would refuse HTTP/1.1 clients on nginx 1.22): set tls: true or remove http2",
        )
    if not listen.http3:
        return
    if not listen.tls:
        yield problem((*where, "http3"), "QUIC is always encrypted: set tls: true on this listen")
    if not spec.nginx.http_v3:
        yield problem(
            (*where, "http3"),
            "needs an nginx built with --with-http_v3_module (nginx ≥ 1.25; Debian 13's has "
            "it, Debian 12's has not): set nginx.http_v3: true if `nginx -V` shows it, "
            "or remove http3",
        )


def _nginx_problems(spec: NodeSpec) -> Iterator[Problem]:
    version = version_tuple(spec.nginx.version)
    if spec.nginx.http_v3 and version < HTTP3_SINCE:
        yield problem(
            ("nginx", "http_v3"),
            f"nginx {spec.nginx.version or DEFAULT_NGINX_VERSION} has no HTTP/3 (it came in "
            "1.25.0): set nginx.version to the node's version, or http_v3: false",
        )
    if version >= HTTP2_DIRECTIVE_SINCE:
        yield from _http2_per_server(spec)


def _http2_per_server(spec: NodeSpec) -> Iterator[Problem]:
    """`http2 on;` is a server's (nginx ≥ 1.25.1): every TLS listen says the same."""
    tls = [(i, listen) for i, listen in enumerate(spec.listen) if listen.tls]
    if len({listen.http2 for _, listen in tls}) > 1:
        index = next(i for i, listen in tls if listen.http2 != tls[0][1].http2)
        yield problem(
            ("listen", index, "http2"),
            "nginx ≥ 1.25.1 turns HTTP/2 on per server (`http2 on;`), not per listen: "
            "set http2 the same on every TLS listen",
        )


def _tls_problems(spec: NodeSpec) -> Iterator[Problem]:
    tls = spec.tls
    if tls is None:
        return
    if not any(listen.tls for listen in spec.listen):
        yield problem(("tls",), "has no effect: no listen has tls: true; add one or remove tls")
    if tls.redirect_http:
        yield from _redirect_port(spec)
    if tls.trusted_certificate is not None and tls.ocsp_stapling == "off":
        yield problem(
            ("tls", "trusted_certificate"),
            "has no effect: tls.ocsp_stapling is off (nginx verifies only OCSP answers with "
            "it): remove it, or set ocsp_stapling to auto",
        )
    yield from _certificate_names(tls)


def _redirect_port(spec: NodeSpec) -> Iterator[Problem]:
    """Port 80 is the redirect server's (tls.redirect_http): no listen or status server on it."""
    if any(listen.port == 80 for listen in spec.listen):
        yield problem(
            ("tls", "redirect_http"),
            "the redirect server takes port 80, which a listen already uses: remove that "
            "listen or redirect_http",
        )
    elif spec.status.port == 80:
        yield problem(
            ("status", "port"),
            "port 80 is the redirect server's (tls.redirect_http): pick another status port",
        )


def _certificate_names(tls: Tls) -> Iterator[Problem]:
    """Each certificate but the first names its server names, and each name has one."""
    named: dict[str, int] = {}
    for index, certificate in enumerate(tls.certificates):
        if index and not certificate.server_names:
            yield problem(
                ("tls", "certificates", index, "server_names"),
                "only the first certificate may leave server_names out (it serves every "
                "other name): list the names this one is for",
            )
        for name in certificate.server_names:
            if name in named:
                yield problem(
                    ("tls", "certificates", index, "server_names"),
                    f"{name} is already served by tls.certificates.{named[name]}: name it once",
                )
            named.setdefault(name, index)


def edge_problems(spec: NodeSpec) -> list[Problem]:
    """Every problem of the spec's listens, TLS section and target nginx."""
    problems = [*_socket_problems(spec), *_nginx_problems(spec), *_tls_problems(spec)]
    for index, listen in enumerate(spec.listen):
        problems.extend(_protocol_problems(spec, index, listen))
    return problems
