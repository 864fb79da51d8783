"""What nginx refuses of an HTTP ``listen``, ported from its source: the address as
ngx_parse_url reads a listen's (src/core/ngx_inet.c: ngx_parse_inet_url, ngx_parse_inet6_url,
ngx_parse_unix_domain_url — a port alone, *:port, addr:port, [IPv6]:port, a port range,
unix:path), the parameters as ngx_http_core_listen reads them on Linux
(src/http/ngx_http_core_module.c: default_server, bind, backlog=, rcvbuf=, sndbuf=, fastopen=,
deferred, ipv6only=, reuseport, ssl, http2, so_keepalive=, proxy_protocol; spdy up to 1.19.6,
only warned about; quic from 1.25.0, with ssl, http2 and proxy_protocol incompatible, from
1.25.4 fastopen=, backlog=, deferred and so_keepalive= too (71a0a4acd); multipath from 1.29.7
(920dc099c); setfib= is FreeBSD's and accept_filter= only warned about), and what
ngx_http_add_addresses (src/http/ngx_http.c) refuses when it merges the servers' listens of one
address: a second default server, a second listen with socket options,
the same address twice in one server; and, from ngx_http_ssl_init
(src/http/modules/ngx_http_ssl_module.c), an SSL address whose default server has no
certificate. A host name is resolved by nginx when it loads the config, to addresses that differ
per node: what is certain is that the listens of one name and port share each of them (a
second default server, or options, among those is refused on every node), and that localhost
is 127.0.0.1 (host_name_sockets); a name is not compared with other addresses.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from tpgen.spec.directive_values import number, size, time
from tpgen.spec.nginx_addresses import inet6_bytes, inet_addr
from tpgen.spec.nginx_syntax import Directive
from tpgen.spec.nginx_table import Version
from tpgen.spec.nginx_urls import host_name_problem, unix_path_problem

Args = Sequence[str]
_QUIC_SINCE = (1, 25, 0)


@dataclass(frozen=True)
class Socket:
    """One address a listen binds (ngx_http_conf_port_t and addr): quic's datagram ones
    apart (1.25+), the address as nginx compares it, and nginx's text of it."""

    family: str
    address: object
    port: int
    text: str
    datagram: bool = False

    @property
    def said(self) -> str:
        """The address as nginx's message prints it: for a host name's, the one it resolved
        to, which is not known here."""
        return f"<an address of {self.address}:{self.port}>" if self.family == "name" else self.text


def _ports(text: str) -> tuple[int, int] | str:
    """A port or a first-last range (ngx_parse_inet_url with u->listen)."""
    first, dash, last = text.partition("-")
    high = number(last) if dash else None
    if dash and (high is None or not 1 <= high <= 65535):
        return "invalid port"
    low = number(first)
    if low is None or not 1 <= low <= 65535:
        return "invalid port"
    if high is not None and low > high:
        return "invalid port range"
    return low, high or low


def _bare_port(text: str) -> tuple[int, int] | str | None:
    """A listen of a port (or range) alone; None: nginx reads the text as a host instead."""
    first, dash, last = text.partition("-")
    if dash and number(last) is None:
        return None
    if number(first) is None:
        return None
    return _ports(text)


def _inet(host: str) -> int | str | None:
    """The IPv4 address of a host, or nginx's error, or None: a name."""
    if not host:
        return "no host"
    if host == "*":
        return 0
    address = inet_addr(host)
    if address is not None:
        return address
    return "host not found" if host_name_problem(host) else None


def _sockets(
    family: str, address: object, ports: tuple[int, int], shown: str
) -> tuple[Socket, ...]:
    return tuple(
        Socket(family, address, port, f"{shown}:{port}") for port in range(ports[0], ports[1] + 1)
    )


def _inet_url(url: str, default_port: int) -> tuple[Socket, ...] | str | None:
    if "/" in url or "?" in url:
        return "invalid host"
    host, colon, port_text = url.partition(":")
    ports = _ports(port_text) if colon else _bare_port(url)
    if isinstance(ports, str):
        return ports
    if ports is None or not colon:
        host = url if ports is None else "*"
    found = _inet(host)
    if not isinstance(found, int):
        return found
    shown = socket.inet_ntoa(found.to_bytes(4, "big"))
    return _sockets("inet", found, ports or (default_port, default_port), shown)


def _inet6_url(url: str, default_port: int) -> tuple[Socket, ...] | str:
    host, bracket, rest = url[1:].partition("]")
    if not bracket or "/" in rest or (rest and not rest.startswith(":")):
        return "invalid host"
    ports = _ports(rest[1:]) if rest else (default_port, default_port)
    if isinstance(ports, str):
        return ports
    if not host:
        return "no host"
    address = inet6_bytes(host)
    if address is None:
        return "invalid IPv6 address"
    shown = socket.inet_ntop(socket.AF_INET6, address)
    return _sockets("inet6", address, ports, f"[{shown}]")


def listen_address(url: str, default_port: int = 80) -> tuple[Socket, ...] | str | None:
    """The sockets of a listen's address, as ngx_parse_url reads it; or its error (u->err);
    None: a host name, which nginx resolves when it loads the config. ``default_port``: the
    port of an address written without one (u.default_port: http's 80, stream's none, 0)."""
    if url[:5].lower() == "unix:":
        path = url[5:]
        return unix_path_problem(path) or (Socket("unix", path, 0, f"unix:{path}"),)
    if url.startswith("["):
        return _inet6_url(url, default_port)
    return _inet_url(url, default_port)


# localhost is 127.0.0.1 on every node (its /etc/hosts, or nss-myhostname); ::1 may join it.
_LOCALHOST = int.from_bytes(socket.inet_aton("127.0.0.1"), "big")


def host_name_sockets(url: str) -> tuple[Socket, ...]:
    """What is known of the addresses a listen of a host name (one listen_address reads as
    None) is on, for the listen rules and the server names nginx hashes per address: one
    "name" socket standing for every address the name resolves to, which every listen of
    that name and port shares (caseless, as the resolver reads it); localhost's 127.0.0.1
    instead. None for a port range: which of its ports a name gets is not read here."""
    host, colon, port_text = url.partition(":")
    ports = _ports(port_text) if colon else (80, 80)
    if isinstance(ports, str) or ports[0] != ports[1]:
        return ()
    port = ports[0]
    if host.lower() == "localhost":
        return (Socket("inet", _LOCALHOST, port, f"127.0.0.1:{port}"),)
    return (Socket("name", host.lower(), port, f"each address of {host.lower()}:{port}"),)


def _keepalive(value: str) -> bool:
    """so_keepalive=on|off|[idle]:[interval]:[count] (NGX_HAVE_KEEPALIVE_TUNABLE, Linux)."""
    if value in ("on", "off"):
        return True
    idle, _, rest = value.partition(":")
    interval, _, count = rest.partition(":")
    parsed = [
        time(idle, seconds=True) if idle else 0,
        time(interval, seconds=True) if interval else 0,
    ]
    parsed.append(number(count) if count else 0)
    return None not in parsed and any(parsed)


@dataclass
class Options:
    """What a listen's parameters set (ngx_http_listen_opt_t)."""

    default: bool = False
    options: list[str] = field(default_factory=list)  # those that set lsopt.set
    ssl: bool = False
    quic: bool = False
    words: set[str] = field(default_factory=set)

    @property
    def given(self) -> set[str]:
        """Every parameter read, by its name."""
        return {*self.options, *self.words}


def read_parameters(
    args: Args, version: Version, read: Callable[[str, Options, Version], str | None]
) -> Options | str:
    """The parameters after a listen's address, each taken by ``read`` (http's or stream's
    reading of one word), or the first one nginx refuses."""
    found = Options()
    for word in args[1:]:
        refused = read(word, found, version)
        if refused:
            return refused
    return found


# A parameter with a value and what reads it; each sets socket options (lsopt.set). Stream's
# listen reads them alike (ngx_stream_core_listen).
VALUED: dict[str, Callable[[str], bool]] = {
    "backlog": lambda value: bool(number(value)),
    "rcvbuf": lambda value: size(value) is not None,
    "sndbuf": lambda value: size(value) is not None,
    "fastopen": lambda value: number(value) is not None,
    "so_keepalive": _keepalive,
}
_SETS = frozenset({"bind", "deferred", "reuseport"})
_FLAGS = frozenset({"ssl", "http2", "proxy_protocol", "default_server", "default"})


def socket_value(word: str, found: Options) -> str | None:
    """Read a parameter with a value (backlog=, …, ipv6only=) into ``found``: nginx's
    complaint, "" (read), or None (no such parameter)."""
    key, equals, value = word.partition("=")
    if equals and key in VALUED:
        if not VALUED[key](value):
            return f'invalid {key} "{word}"' if key != "so_keepalive" else "invalid so_keepalive"
        found.options.append(key)
        return ""
    if word.startswith("ipv6only=o"):
        if word not in ("ipv6only=on", "ipv6only=off"):
            return f'invalid ipv6only flags "{word[9:]}"'
        found.options.append("ipv6only")
        return ""
    return None


def _parameter(word: str, found: Options, version: Version) -> str | None:
    """Read one parameter into ``found``; nginx's complaint, or None."""
    valued = socket_value(word, found)
    if valued is not None:
        return valued or None
    if word in _SETS or (word == "multipath" and version >= _MULTIPATH_SINCE):
        found.options.append(word)
    elif word.startswith("accept_filter=") or (word == "spdy" and version <= _SPDY_UNTIL):
        pass  # FreeBSD's, and spdy's successor's: only warned about and ignored
    elif word in _FLAGS or (word == "quic" and version >= _QUIC_SINCE):
        found.words.add(word)
    else:
        return f'invalid parameter "{word}"'
    return None


_MULTIPATH_SINCE = (1, 29, 7)
_SPDY_UNTIL = (1, 19, 6)
# What quic refuses beside it, in the order nginx tests them, and the first nginx that does.
_QUIC_INCOMPATIBLE: tuple[tuple[str, Version], ...] = (
    ("fastopen", (1, 25, 4)),
    ("backlog", (1, 25, 4)),
    ("deferred", (1, 25, 4)),
    ("multipath", _MULTIPATH_SINCE),
    ("ssl", _QUIC_SINCE),
    ("http2", _QUIC_SINCE),
    ("so_keepalive", (1, 25, 4)),
    ("proxy_protocol", _QUIC_SINCE),
)


def listen_options(args: Args, version: Version) -> Options | str:
    """The listen's parameters as ngx_http_core_listen reads them, or nginx's complaint."""
    found = read_parameters(args, version, _parameter)
    if isinstance(found, str):
        return found
    found.default = bool(found.words & {"default_server", "default"})
    found.ssl, found.quic = "ssl" in found.words, "quic" in found.words
    if found.quic:
        clash = [w for w, since in _QUIC_INCOMPATIBLE if w in found.given and version >= since]
        if clash:
            return f'"{clash[0]}" parameter is incompatible with "quic"'
    return found


_FIX = {
    "invalid port": "give a port from 1 to 65535 (80, *:80, 127.0.0.1:8080, [::1]:8080)",
    "invalid port range": "give the lower port first (8000-8009)",
    "invalid host": "give an address and port without a path (127.0.0.1:8080)",
    "no host": "give an address before the colon, or the port alone",
    "invalid IPv6 address": "write the IPv6 address as [::1]:8080",
    "host not found": "give an IPv4 address, [IPv6] or a host name the node resolves",
    "no path in the unix domain socket": "give the socket's path after unix:",
}


def address_problem(url: str, default_port: int = 80) -> str | None:
    """What ngx_parse_url refuses of a listen's address, as tpgen says it."""
    address = listen_address(url, default_port)
    if not isinstance(address, str):
        return None
    fix = _FIX.get(address, "shorten the socket's path (at most 107 bytes)")
    return (
        f'takes an address nginx reads, not {url!r} (nginx: {address} in "{url}" '
        f'of the "listen" directive): {fix}'
    )


def listen_problem(args: Args, version: Version) -> str | None:
    """What ngx_http_core_listen refuses of one listen's words."""
    address = address_problem(args[0])
    if address is not None:
        return address
    options = listen_options(args, version)
    if isinstance(options, str) and options.endswith('with "quic"'):
        words = [w + "=" * (w in VALUED) for w, since in _QUIC_INCOMPATIBLE if version >= since]
        return (
            f"takes none of {', '.join(words[:-1])} and {words[-1]} beside quic, a datagram "
            f"socket (nginx: {options}): remove it, or quic"
        )
    if isinstance(options, str):
        newer = ", quic" if version >= _QUIC_SINCE else ""
        newer += ", multipath" if version >= _MULTIPATH_SINCE else ""
        return (
            "takes default_server, ssl, http2, proxy_protocol, bind, backlog=N, rcvbuf= and "
            "sndbuf=SIZE, fastopen=N, deferred, ipv6only=on|off, reuseport, "
            f"so_keepalive=on|off|IDLE:INTVL:CNT{newer} after the address (nginx: {options}): "
            "fix or remove the parameter"
        )
    return None


@dataclass(frozen=True)
class Listen:
    """A listen of one server block: its directive's line and words, its sockets, its
    options, and whether tpgen's config (not a snippet) has it."""

    directive: Directive
    sockets: tuple[Socket, ...]
    options: Options
    tpgen: bool


@dataclass(frozen=True)
class Server:
    """A server block as ngx_http_ssl_init sees it: its listens, a certificate (its own or
    inherited), ssl_reject_handshake on."""

    listens: tuple[Listen, ...]
    certificate: bool
    rejects: bool
    tpgen: bool


# nginx 1.23.3 dropped a listen's addresses equal to an earlier one but for the port
# (22223c75c, fixed in 1.23.4 by 641368249): of a port range it listens on the first port only.
_RANGE_FIRST_PORT_ONLY = (1, 23, 3)


def listened(sockets: tuple[Socket, ...], version: Version) -> tuple[Socket, ...]:
    """The sockets of a listen's address that ``version`` adds (http's and stream's alike)."""
    return sockets[:1] if version == _RANGE_FIRST_PORT_ONLY else sockets


def server_listens(
    listens: Sequence[Directive], version: Version, *, tpgen: bool
) -> tuple[Listen, ...]:
    """The listens of a server whose address and parameters nginx takes (a host name's with
    what host_name_sockets knows of its addresses)."""
    found = []
    for directive in listens:
        if not directive.args:
            continue
        sockets = listen_address(directive.args[0])
        if sockets is None:
            sockets = host_name_sockets(directive.args[0])
        sockets = listened(sockets, version) if isinstance(sockets, tuple) else sockets
        options = listen_options(directive.args, version)
        if isinstance(sockets, tuple) and isinstance(options, Options):
            if options.quic:
                sockets = tuple(
                    Socket(s.family, s.address, s.port, s.text, datagram=True) for s in sockets
                )
            found.append(Listen(directive, sockets, options, tpgen))
    return tuple(found)


def socket_key(item: Socket) -> tuple[object, ...]:
    """What nginx compares of two sockets: the address, its port and type (udp, quic apart)."""
    return item.family, item.address, item.port, item.datagram


@dataclass
class Address:
    """What ngx_http_add_addresses keeps of one address: the servers on it, the listen that
    set the options, the default server's, and whether any is ssl."""

    text: str = ""
    family: str = ""
    servers: list[int] = field(default_factory=list)
    options: Listen | None = None
    default: Listen | None = None
    ssl: Listen | None = None


def _sides(listen: Listen, other: Listen) -> tuple[Listen, Listen]:
    """(the snippet's, the other) of two listens that clash (tpgen's come last)."""
    return (other, listen) if listen.tpgen else (listen, other)


def _whose(listen: Listen) -> str:
    return "tpgen's config has" if listen.tpgen else "the snippet has"


def _merge(item: Socket, listen: Listen, index: int, state: Address) -> tuple[Listen, str] | None:
    """ngx_http_add_server and ngx_http_add_addresses for one socket of a listen."""
    if index in state.servers:
        return listen, (
            f"listens on {item.text} twice in one server (nginx: a duplicate listen "
            f"{item.said}): keep one"
        )
    state.servers.append(index)
    state.text, state.family = item.text, item.family
    if listen.options.options and state.options is not None:
        mine, theirs = _sides(listen, state.options)
        return mine, (
            f"sets socket options ({' '.join(mine.options.options)}) on {item.text}, where "
            f"{_whose(theirs)} a listen with options as well (nginx: duplicate listen options "
            f"for {item.said}): set them on one listen of the address only"
        )
    state.options = state.options or (listen if listen.options.options else None)
    if listen.options.default and state.default is not None:
        mine, theirs = _sides(listen, state.default)
        return mine, (
            f"makes a second default server for {item.text}, where {_whose(theirs)} one as "
            f"well (nginx: a duplicate default server for {item.said}): keep one default_server"
        )
    state.default = state.default or (listen if listen.options.default else None)
    state.ssl = state.ssl or (listen if listen.options.ssl or listen.options.quic else None)
    return None


def listen_conflicts(servers: Sequence[Server]) -> Iterator[tuple[Directive, str]]:
    """(directive, why) of each snippet listen nginx refuses when it merges the servers'
    addresses, in the order nginx reads the servers; then the SSL addresses whose default
    server has no certificate."""
    conflicts: list[tuple[Listen, str]] = []
    addresses = _merged(servers, conflicts)
    yield from ((listen.directive, why) for listen, why in conflicts)
    for address in addresses:
        found_ssl = _uncertified(address, servers)
        if found_ssl is not None:
            yield found_ssl


def listen_addresses(servers: Sequence[Server]) -> list[Address]:
    """The addresses ngx_http_add_addresses makes of the servers' listens, each with the
    servers on it (their indexes, in the order nginx reads them)."""
    return _merged(servers, [])


def _merged(servers: Sequence[Server], conflicts: list[tuple[Listen, str]]) -> list[Address]:
    """ngx_http_add_addresses over every listen; a snippet listen it refuses goes to
    ``conflicts``, and its other sockets no further."""
    addresses: dict[tuple[object, ...], Address] = {}
    for index, server in enumerate(servers):
        for listen in server.listens:
            for item in listen.sockets:
                state = addresses.setdefault(socket_key(item), Address())
                found = _merge(item, listen, index, state)
                if found is not None and not found[0].tpgen:
                    conflicts.append(found)
                    break
    return list(addresses.values())


def _uncertified(address: Address, servers: Sequence[Server]) -> tuple[Directive, str] | None:
    """ngx_http_ssl_init: an SSL address's default server (the first, or default_server)
    needs a certificate; one that rejects handshakes needs one in each of its servers."""
    if address.ssl is None or not address.servers:
        return None
    if address.family == "name" and address.default is None:
        return None  # the first server on each address the name resolves to is not known
    server = _lacking_certificate(address, servers)
    if server is None:
        return None
    blamed = next((item for item in server.listens if not item.tpgen), address.ssl)
    if blamed.tpgen:
        return None
    word = "quic" if address.ssl.options.quic else "ssl"
    return blamed.directive, (
        f"makes {address.text} an {word} address, where nginx needs a certificate in the "
        "default server (the first on it, or default_server) and, if that one only rejects "
        f'handshakes, in every server on it (nginx: no "ssl_certificate" is defined for the '
        f'"listen ... {word}" directive): add ssl_certificate and ssl_certificate_key (or '
        "ssl_reject_handshake on) to the server, or listen on another address"
    )


def _lacking_certificate(address: Address, servers: Sequence[Server]) -> Server | None:
    """The first server on the address nginx wants a certificate in: the default server, or
    where that one only rejects handshakes, each other server that neither has one nor
    rejects."""
    first = servers[address.servers[0]]
    default = first if address.default is None else _server_of(address.default, servers)
    if default.certificate:
        return None
    if not default.rejects:
        return default
    lacking = [servers[i] for i in address.servers if not servers[i].certificate]
    return next((server for server in lacking if not server.rejects), None)


def _server_of(listen: Listen, servers: Sequence[Server]) -> Server:
    return next(server for server in servers if listen in server.listens)
