"""What nginx refuses of a stream ``listen``, ported from ngx_stream_core_listen
(src/stream/ngx_stream_core_module.c) on Linux with an HTTP listen's pieces (handlers_listen):
the address as ngx_parse_url reads a listen's, with no default port (a port 0); the
parameters udp, bind, backlog=, rcvbuf=, sndbuf=, fastopen= (from 1.21.0), ipv6only=,
reuseport, ssl, so_keepalive=, proxy_protocol, and from 1.25.5 (stream's virtual servers)
default_server, deferred and accept_filter= (only warned about on Linux), from 1.29.7
multipath (setfib= is FreeBSD's); and those udp refuses beside it. Across the stream block's
servers: up to 1.25.4 an address and port of one type (udp apart) once in all its listens,
and a certificate in each server with a listen ... ssl (ngx_stream_ssl_merge_srv_conf); from
1.25.5 ngx_stream_add_addresses merges them as ngx_http_add_addresses does, and
ngx_stream_ssl_init wants the certificates ngx_http_ssl_init does (listen_conflicts).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from tpgen.spec.handlers_listen import (
    Args,
    Listen,
    Options,
    Server,
    Socket,
    address_problem,
    host_name_sockets,
    listen_address,
    listen_conflicts,
    listened,
    read_parameters,
    socket_key,
    socket_value,
)
from tpgen.spec.nginx_syntax import Directive
from tpgen.spec.nginx_table import Version, Where

VIRTUAL_SERVERS_SINCE = (1, 25, 5)
_FASTOPEN_SINCE = (1, 21, 0)
# Parameters without a value: whether each is a flag or sets socket options (lsopt.set),
# and the first nginx that reads it.
_WORDS: dict[str, tuple[str, Version]] = {
    "udp": ("flag", (0, 0, 0)),
    "ssl": ("flag", (0, 0, 0)),
    "proxy_protocol": ("flag", (0, 0, 0)),
    "bind": ("option", (0, 0, 0)),
    "reuseport": ("option", (0, 0, 0)),
    "default_server": ("flag", VIRTUAL_SERVERS_SINCE),
    "deferred": ("option", VIRTUAL_SERVERS_SINCE),
    "multipath": ("option", (1, 29, 7)),
}
# What udp refuses beside it, in the order nginx tests them (1.25.5 moved fastopen first).
_NOT_UDP = ("backlog", "ssl", "so_keepalive", "proxy_protocol", "fastopen")
_NOT_UDP_SINCE_1_25_5 = (
    "fastopen", "backlog", "deferred", "multipath", "ssl", "so_keepalive", "proxy_protocol"
)  # fmt: skip


def _invalid(word: str, version: Version) -> str:
    if version >= VIRTUAL_SERVERS_SINCE:
        return f'invalid parameter "{word}"'
    return f'the invalid "{word}" parameter'


def _parameter(word: str, found: Options, version: Version) -> str | None:
    """Read one parameter into ``found``; nginx's complaint, or None."""
    if word.startswith("fastopen=") and version < _FASTOPEN_SINCE:
        return _invalid(word, version)
    valued = socket_value(word, found)
    if valued is not None:
        return valued or None
    kind, since = _WORDS.get(word, ("", version))
    if word.startswith("accept_filter=") and version >= VIRTUAL_SERVERS_SINCE:
        return None  # FreeBSD's: elsewhere only warned about and ignored
    if not kind or version < since:
        return _invalid(word, version)
    if kind == "flag":
        found.words.add(word)
    else:
        found.options.append(word)
    return None


def stream_listen_options(args: Args, version: Version) -> Options | str:
    """The listen's parameters as ngx_stream_core_listen reads them, or nginx's complaint."""
    found = read_parameters(args, version, _parameter)
    if isinstance(found, str):
        return found
    found.default = "default_server" in found.words
    found.ssl = "ssl" in found.words
    if "udp" in found.words:
        order = _NOT_UDP_SINCE_1_25_5 if version >= VIRTUAL_SERVERS_SINCE else _NOT_UDP
        clash = next((word for word in order if word in found.given), None)
        if clash is not None:
            return f'"{clash}" parameter is incompatible with "udp"'
    return found


def _parameters(version: Version) -> str:
    newer = ", default_server, deferred" if version >= VIRTUAL_SERVERS_SINCE else ""
    fastopen = ", fastopen=N" if version >= _FASTOPEN_SINCE else ""
    return (
        "udp, ssl, proxy_protocol, bind, backlog=N, rcvbuf= and sndbuf=SIZE"
        f"{fastopen}, ipv6only=on|off, reuseport, so_keepalive=on|off|IDLE:INTVL:CNT{newer}"
    )


def stream_listen_problem(args: Args, place: Where) -> str | None:
    """What ngx_stream_core_listen refuses of one listen's words."""
    address = address_problem(args[0], default_port=0)
    if address is not None:
        return address
    options = stream_listen_options(args, place.version)
    if not isinstance(options, str):
        return None
    if options.endswith('with "udp"'):
        return (
            "takes none of backlog=, fastopen=, deferred, ssl, so_keepalive= and proxy_protocol "
            f"beside udp, a datagram socket (nginx: {options}): remove it, or udp"
        )
    return (
        f"takes {_parameters(place.version)} after the address (nginx: {options}): fix or "
        "remove the parameter"
    )


def stream_listens(
    listens: Sequence[Directive], version: Version, *, tpgen: bool = False
) -> tuple[Listen, ...]:
    """The listens of a stream server whose address and parameters nginx takes (a host name's
    with what host_name_sockets knows of its addresses; stream has no default port); udp's
    sockets are datagram ones, apart from the same address's TCP ones."""
    found = []
    for directive in listens:
        if not directive.args:
            continue
        sockets = listen_address(directive.args[0], default_port=0)
        if sockets is None and ":" in directive.args[0]:
            sockets = host_name_sockets(directive.args[0])
        options = stream_listen_options(directive.args, version)
        if isinstance(sockets, tuple) and isinstance(options, Options):
            udp = "udp" in options.words
            sockets = tuple(
                Socket(s.family, s.address, s.port, s.text, datagram=udp)
                for s in listened(sockets, version)
            )
            found.append(Listen(directive, sockets, options, tpgen))
    return tuple(found)


def stream_listen_conflicts(
    servers: Sequence[Server], version: Version
) -> Iterator[tuple[Directive, str]]:
    """(directive, why) of each listen nginx refuses across a stream block's servers."""
    if version >= VIRTUAL_SERVERS_SINCE:
        yield from listen_conflicts(servers)
        return
    yield from _repeated_pairs(servers)
    for server in servers:
        ssl = next((listen for listen in server.listens if listen.options.ssl), None)
        if ssl is not None and not server.certificate:
            yield (
                ssl.directive,
                (
                    "makes the server an ssl one, where nginx needs a certificate in the server or "
                    'the stream block (nginx: no "ssl_certificate" is defined for the "listen ... '
                    'ssl" directive): add ssl_certificate and ssl_certificate_key, or remove ssl'
                ),
            )


def _repeated_pairs(servers: Sequence[Server]) -> Iterator[tuple[Directive, str]]:
    """ngx_stream_core_listen before 1.25.5: each address and port once in the block."""
    seen: set[tuple[object, ...]] = set()
    for listen in (listen for server in servers for listen in server.listens):
        for item in listen.sockets:
            if socket_key(item) in seen:
                yield (
                    listen.directive,
                    (
                        f"listens on {item.text} again, where a listen of this stream block has it "
                        f'already (nginx: duplicate "{item.said}" address and port pair): keep one'
                    ),
                )
                break
            seen.add(socket_key(item))
