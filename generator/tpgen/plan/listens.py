"""Where the node listens: one socket per address family, their options, HTTP/2 and HTTP/3."""

from __future__ import annotations

import ipaddress
from typing import Any

from tpgen.plan.defaults import ALT_SVC_MAX_AGE, BACKLOG_CAP, QUIC_RETRY, REUSEPORT_HDD_BECAUSE
from tpgen.plan.reads import readable
from tpgen.plan.types import Decision, ListenSocket
from tpgen.spec.edge import HTTP2_DIRECTIVE_SINCE, sockets, version_tuple
from tpgen.spec.model import DUAL_STACK, Listen, NodeSpec

HTTPS_PORT = 443
REDIRECT_PORT = 80


def bracketed(address: str, port: int) -> str:
    ip = ipaddress.ip_address(address)
    return f"[{address}]:{port}" if ip.version == 6 else f"{address}:{port}"


def blocking_disks(spec: NodeSpec) -> int:
    """Disks nginx reads whose open() can hold an event loop: HDDs (pooled or not), since no
    nginx version offloads open() to a thread pool."""
    return sum(readable(spec, disk) and disk.media == "hdd" for disk in spec.disks)


def reuseport(workers: int, hdds: int) -> Decision[bool]:
    if workers <= 1:
        return Decision(False, "one worker: there is nothing to spread connections over")
    if hdds:
        return Decision(False, f"{hdds} HDD(s): {REUSEPORT_HDD_BECAUSE}")
    return Decision(
        True,
        f"{workers} workers and no HDD to block them: each gets its own socket per listen "
        "(SO_REUSEPORT) and the kernel hashes new connections across them, instead of the "
        "busiest worker taking most (accept_mutex off)",
    )


def backlog(connections: int) -> Decision[int]:
    return Decision(
        min(connections, BACKLOG_CAP),
        f"the accept queue holds one worker's worth of new connections (worker_connections, "
        f"at most {BACKLOG_CAP:,}) through a burst; nginx's default 511 drops SYNs first; "
        "net.core.somaxconn is raised to match, else Linux truncates it silently",
    )


def http2_as_directive(spec: NodeSpec) -> bool:
    return version_tuple(spec.nginx.version) >= HTTP2_DIRECTIVE_SINCE


def _version(spec: NodeSpec) -> str:
    return f"nginx {spec.nginx.version}" if spec.nginx.version else "nginx 1.22 (the default)"


def _tcp_words(
    spec: NodeSpec, listen: Listen, address: str, options: tuple[str, ...]
) -> tuple[tuple[str, ...], list[str]]:
    """A TCP listen's parameters and the reasons for them."""
    words, because = [], []
    if listen.tls:
        words.append("ssl")
        because.append("ssl: tls: true")
    if listen.http2 and not http2_as_directive(spec):
        words.append("http2")
        because.append(f"http2 as a listen parameter: {_version(spec)} predates `http2 on;`")
    if ipaddress.ip_address(address).version == 6 and listen.address == DUAL_STACK:
        words.append("ipv6only=on")
        because.append("ipv6only=on: * binds [::] for IPv6 and 0.0.0.0 for IPv4 separately")
    return (*words, *options), because


def _sockets(
    spec: NodeSpec, index: int, listen: Listen, options: tuple[str, ...], workers: int
) -> list[ListenSocket]:
    found = []
    for address in sockets(listen):
        words, because = _tcp_words(spec, listen, address, options)
        found.append(
            ListenSocket(
                address=bracketed(address, listen.port),
                source=f"listen.{index}",
                parameters=Decision(words, "; ".join([*because, "socket options below"])),
                shared=tuple(w for w in words if w in ("ssl", "http2")),
            )
        )
        if listen.http3:
            quic = (
                "quic",
                *(w for w in words if w == "ipv6only=on"),
                *(("reuseport",) if workers > 1 else ()),
            )
            found.append(
                ListenSocket(
                    address=bracketed(address, listen.port),
                    source=f"listen.{index}",
                    parameters=Decision(
                        quic,
                        "http3: QUIC on the same port over UDP; with more than one worker, "
                        "reuseport keeps a connection's datagrams on one worker (nginx needs "
                        "it there whatever the TCP listens do)",
                    ),
                    shared=("quic",),
                    quic=True,
                )
            )
    return found


def _http3_fields(spec: NodeSpec) -> dict[str, Any]:
    ports = sorted({listen.port for listen in spec.listen if listen.http3})
    if not ports:
        return {}
    shown = ("ports " if len(ports) > 1 else "port ") + " and ".join(map(str, ports))
    return {
        "alt_svc": Decision(
            ", ".join(f'h3=":{port}"; ma={ALT_SVC_MAX_AGE}' for port in ports),
            f"tells HTTP/1.1 and HTTP/2 clients that HTTP/3 answers on UDP {shown}, for a "
            "day (one alternative per QUIC port, RFC 7838)",
        ),
        "quic_retry": Decision(
            QUIC_RETRY,
            "a client proves its address before the server keeps handshake state: spoofed "
            "Initial packets cannot fill memory or amplify",
        ),
    }


def _redirect_addresses(spec: NodeSpec) -> list[tuple[str, bool]]:
    """The TLS listens' addresses, once each, (address, dual stack); a family's wildcard
    covers that family's other addresses, as two sockets on one port would collide."""
    found: dict[str, bool] = {}
    for listen in spec.listen:
        if listen.tls:
            for address in sockets(listen):
                found.setdefault(address, listen.address == DUAL_STACK)
    wild = {
        ipaddress.ip_address(a).version for a in found if ipaddress.ip_address(a).is_unspecified
    }
    return [
        (address, dual)
        for address, dual in found.items()
        if ipaddress.ip_address(address).is_unspecified
        or ipaddress.ip_address(address).version not in wild
    ]


def _redirect_fields(spec: NodeSpec, options: tuple[str, ...]) -> dict[str, Any]:
    if spec.tls is None or not spec.tls.redirect_http:
        return {}
    port = next(listen.port for listen in spec.listen if listen.tls)
    host = "$host" if port == HTTPS_PORT else f"$host:{port}"
    sockets_ = tuple(
        ListenSocket(
            address=bracketed(address, REDIRECT_PORT),
            source="tls.redirect_http",
            parameters=Decision(
                (*(("ipv6only=on",) if dual and ":" in address else ()), *options),
                "port 80 on the addresses of the TLS listens; socket options below",
            ),
        )
        for address, dual in _redirect_addresses(spec)
    )
    return {
        "redirect_to": Decision(
            f"https://{host}$request_uri",
            f"tls.redirect_http: every plain request is sent, permanently, to https on port {port}",
        ),
        "redirect_listens": sockets_,
    }


def listen_fields(spec: NodeSpec, workers: int, connections: int) -> dict[str, Any]:
    """The listens of the client servers, their socket options, HTTP/2, HTTP/3, the redirect."""
    spread, queue = reuseport(workers, blocking_disks(spec)), backlog(connections)
    options = (*(("reuseport",) if spread.value else ()), f"backlog={queue.value}")
    listens = tuple(
        socket
        for index, listen in enumerate(spec.listen)
        for socket in _sockets(spec, index, listen, options, workers)
    )
    fields: dict[str, Any] = {"listens": listens, "reuseport": spread, "backlog": queue}
    if any(listen.http2 for listen in spec.listen) and http2_as_directive(spec):
        fields["http2_directive"] = Decision(
            "on", f"http2 on the TLS listens: {_version(spec)} takes it per server (≥ 1.25.1)"
        )
    return {**fields, **_http3_fields(spec), **_redirect_fields(spec, options)}
