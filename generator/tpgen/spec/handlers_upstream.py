"""What nginx refuses of an ``upstream`` block (HTTP's and stream's, alike), ported from its
source: each ``server``'s address (ngx_parse_url; a stream server needs a port) and
parameters as ngx_http_upstream_server reads them (src/http/ngx_http_upstream.c) against what
the block's balancing method supports when the server is read (hash, ip_hash and random take
no backup servers; least_conn does), a block without servers ("no servers are inside
upstream") or with backup servers only (ngx_http_upstream_init_round_robin: "no servers in
upstream"); hash's consistent, random's two [least_conn], keepalive's count and zone's name
and size (the upstream modules). From 1.27.3 a server may be resolved at run time (resolve,
service=), which needs the block's zone. Whether a host name resolves on the node is left to
nginx -t there: nginx resolves it when it loads the config.
"""

from __future__ import annotations

from collections.abc import Sequence

from tpgen.spec.directive_values import number, time
from tpgen.spec.nginx_syntax import Directive
from tpgen.spec.nginx_table import Version, Where
from tpgen.spec.nginx_urls import url_problem

_RESOLVE_SINCE = (1, 27, 3)
# What a server may say with each balancing method (ngx_http_upstream_*'s uscf->flags).
_ALL = frozenset({"weight", "max_conns", "max_fails", "fail_timeout", "down", "backup"})
_NO_BACKUP = _ALL - {"backup"}
_METHODS = {"hash": _NO_BACKUP, "ip_hash": _NO_BACKUP, "random": _NO_BACKUP, "least_conn": _ALL}


def _number_at_least(text: str, low: int) -> bool:
    value = number(text)
    return value is not None and value >= low


# A server parameter with a value: its check (ngx_atoi, ngx_parse_time in seconds).
_VALUED = {
    "weight": lambda text: _number_at_least(text, 1),
    "max_conns": lambda text: _number_at_least(text, 0),
    "max_fails": lambda text: _number_at_least(text, 0),
    "fail_timeout": lambda text: time(text, seconds=True) is not None,
}


def _parameter(word: str, allowed: frozenset[str], version: Version) -> str | None:
    """ngx_http_upstream_server's reading of one parameter after the address."""
    name, equals, value = word.partition("=")
    if equals and name in _VALUED:
        if name not in allowed:
            return _unsupported(word)
        return None if _VALUED[name](value) else _invalid(word)
    if not equals and name in ("backup", "down"):
        return None if name in allowed else _unsupported(word)
    if version >= _RESOLVE_SINCE and (word == "resolve" or (name == "service" and equals)):
        return None if value or not equals else "service= takes a name (nginx: service is empty)"
    return _invalid(word)


def _invalid(word: str) -> str:
    return (
        f"the server parameter {word!r} is not one nginx takes (nginx: invalid parameter): "
        "use weight=N (1 or more), max_conns=N, max_fails=N, fail_timeout=TIME, backup or down"
    )


def _unsupported(word: str) -> str:
    return (
        f"the block's balancing method (hash, ip_hash or random above this server) takes no "
        f"{word.partition('=')[0]} (nginx: balancing method does not support parameter): "
        "remove it, or use least_conn or round robin"
    )


def _address(url: str, stream: bool) -> str | None:
    """ngx_http_upstream_server's and ngx_stream_upstream_server's reading of the address
    (ngx_parse_url; http's default port is 80, stream's servers need one)."""
    found = url_problem(url)
    if found is None and stream and url[:5].lower() != "unix:":
        after = url.rpartition("]")[2] if url.startswith("[") else url
        found = None if ":" in after else "no port"
    if found is None:
        return None
    return (
        f"the server address {url!r} is not one nginx reads (nginx: {found} in upstream "
        f'"{url}"): write ADDRESS:PORT, [IPv6]:PORT or unix:PATH'
    )


def _server(entry: Directive, allowed: frozenset[str], place: Where) -> str | None:
    version = place.version
    address = _address(entry.args[0], place.context.startswith("stream")) if entry.args else None
    if address:
        return address
    words = entry.args[1:]
    for word in words:
        found = _parameter(word, allowed, version)
        if found:
            return found
    service = any(word.startswith("service=") for word in words)
    if service and "resolve" not in words:
        return (
            "service= looks names up at run time, so it needs resolve beside it (nginx: service "
            'upstream requires "resolve" parameter)'
        )
    return None


def _method(entry: Directive) -> str | None:
    """What hash's and random's handlers refuse of their words."""
    if entry.name == "hash" and len(entry.args) == 2 and entry.args[1] != "consistent":
        return f"hash takes a key and consistent, not {entry.args[1]!r} (nginx: invalid parameter)"
    expected = ("two", "least_conn")
    if entry.name == "random" and tuple(entry.args) != expected[: len(entry.args)]:
        return (
            f"random takes nothing, two, or two least_conn, not {' '.join(entry.args)!r} "
            "(nginx: invalid parameter)"
        )
    return None


def _setting(entry: Directive) -> str | None:
    """keepalive's count (zone's name and size: its own handler, directive_handlers)."""
    if entry.name == "keepalive" and entry.args and not _number_at_least(entry.args[0], 1):
        return (
            f"keepalive takes the number of idle connections to keep, 1 or more, not "
            f'{entry.args[0]!r} (nginx: invalid value "{entry.args[0]}" in "keepalive" directive)'
        )
    return None


def _entry_problem(entry: Directive, allowed: frozenset[str], place: Where) -> str | None:
    if entry.name == "server":
        return _server(entry, allowed, place)
    if entry.name in _METHODS:
        return _method(entry)
    return _setting(entry)


def upstream_check(directive: Directive, place: Where) -> str | None:
    """The handler of the table's kind "upstream" (ngx_http_upstream and its body)."""
    allowed = _ALL
    servers: list[Directive] = []
    for entry in directive.block or ():
        found = _entry_problem(entry, allowed, place)
        if found:
            return f"line {entry.line}: {found}"
        allowed = _METHODS.get(entry.name, allowed)
        if entry.name == "server":
            servers.append(entry)
    return _servers_problem(servers, directive.block or ())


def _servers_problem(servers: Sequence[Directive], body: Sequence[Directive]) -> str | None:
    if not servers:
        return (
            "has no server inside (nginx: no servers are inside upstream): add a server "
            "ADDRESS; line"
        )
    if all("backup" in server.args[1:] for server in servers):
        return (
            "has backup servers only (nginx: no servers in upstream): make at least one of them "
            "a primary server (remove its backup)"
        )
    resolving = any("resolve" in server.args[1:] for server in servers)
    if resolving and not any(entry.name == "zone" for entry in body):
        return (
            "resolves a server at run time but keeps its servers in no shared zone (nginx: "
            "resolving names at run time requires upstream … to be in shared memory): add "
            "zone NAME 64k;"
        )
    return None
