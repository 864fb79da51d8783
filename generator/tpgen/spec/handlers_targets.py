"""What nginx's handlers refuse of where a log goes and which name servers a resolver asks,
ported from them: a syslog target (ngx_syslog_process_conf, src/core/ngx_syslog.c) of
error_log (ngx_log_set_log, src/core/ngx_log.c; its levels, ngx_log_set_levels) and of
access_log, whose own parameters
(off, buffer=, gzip[=level], flush=, if=) are ngx_http_log_set_log's and
ngx_stream_log_set_log's; and the resolver's name servers and parameters (valid=, ipv4=,
ipv6=) of ngx_resolver_create (src/core/ngx_resolver.c), called by the http, stream, mail
and upstream resolver handlers. Each server address is read as ngx_parse_url reads one
without a URI part (src/core/ngx_inet.c): unix:PATH, [IPv6][:port], IPv4 or a host name
[:port]. nginx resolves a host name when it loads the config; offline tpgen cannot know
whether the node resolves it, so a name that is one (RFC 1123 labels, not an IPv4 address
written wrong) is taken, and nginx -t on the node has the last word.
"""

from __future__ import annotations

from collections.abc import Sequence

from tpgen.spec.directive_values import number, size, time
from tpgen.spec.nginx_table import Version, Where
from tpgen.spec.nginx_urls import SUN_PATH, url_problem

Args = Sequence[str]

# ngx_resolver_create reads ipv4= from nginx 1.23.1 on (before, it is a host name).
RESOLVER_IPV4_SINCE: Version = (1, 23, 1)
_SYSLOG_PORT = 514
_FACILITIES = (
    "kern",
    "user",
    "mail",
    "daemon",
    "auth",
    "intern",
    "lpr",
    "news",
    "uucp",
    "clock",
    "authpriv",
    "ftp",
    "ntp",
    "audit",
    "alert",
    "cron",
    *(f"local{digit}" for digit in range(8)),
)
# nginx.conf's level names (error_log's and syslog's severity=), not syslog's err/warning.
_LOG_LEVELS = ("emerg", "alert", "crit", "error", "warn", "notice", "info", "debug")
_DEBUG_LEVELS = tuple(
    f"debug_{part}" for part in ("core", "alloc", "mutex", "event", "http", "mail", "stream")
)
_TAG_MAX = 32  # RFC 3164
_TAG_CHARS = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")


_URL_FIX = {
    "invalid host": "write HOST[:PORT], [IPv6][:PORT] or unix:PATH",
    "invalid port": "write a port from 1 to 65535 after the colon",
    "no host": "write the host before the colon",
    "invalid IPv6 address": "fix the IPv6 address inside the brackets",
    "no path in the unix domain socket": "write the socket's path after unix:",
    "too long path in the unix domain socket": f"use a path under {SUN_PATH} bytes",
    "host not found": (
        "write an IP address (an IPv6 one in brackets) or a host name the node resolves"
    ),
}


def _address_problem(what: str, url: str, port: int) -> str | None:
    said = url_problem(url)
    if said is None:
        return None
    return (
        f"{what} {url!r} is not an address nginx reads (nginx: {said} in {what}): "
        f"{_URL_FIX[said]} (port {port} when none is written)"
    )


def _syslog_value(key: str, value: str) -> str | None:
    if key == "server":
        return _address_problem("syslog server", value, _SYSLOG_PORT)
    if key in ("facility", "severity"):
        names = _FACILITIES if key == "facility" else _LOG_LEVELS
        if value in names:
            return None
        return (
            f"takes syslog {key}= of {', '.join(names)} (lowercase), not {value!r} (nginx: "
            f"unknown syslog {key})"
        )
    if len(value.encode()) > _TAG_MAX:
        return (
            f"takes a syslog tag= of at most {_TAG_MAX} characters, not {len(value)} (nginx: "
            "syslog tag length exceeds 32)"
        )
    if not set(value) <= _TAG_CHARS:
        return (
            f"takes a syslog tag= of letters, digits and underscores, not {value!r} (nginx: "
            'syslog "tag" only allows alphanumeric characters and underscore)'
        )
    return None


def syslog_problem(target: str) -> str | None:
    """ngx_syslog_process_conf: the comma-separated parameters after syslog:, server= once
    and required, facility=, severity= and tag= at most once each, nohostname."""
    seen: set[str] = set()
    for part in target.removeprefix("syslog:").split(","):
        key, equals, value = part.partition("=")
        if not equals or key not in ("server", "facility", "severity", "tag"):
            if part == "nohostname":
                continue
            return (
                f"takes syslog:server=ADDRESS[,facility=…][,severity=…][,tag=…][,nohostname] "
                f"with no other part, not {part!r} (nginx: unknown syslog parameter)"
            )
        if key in seen:
            return f'has syslog {key}= twice (nginx: duplicate syslog "{key}"): keep one'
        seen.add(key)
        found = _syslog_value(key, value)
        if found:
            return found
    if "server" not in seen:
        return (
            "takes syslog:server=ADDRESS (nginx: no syslog server specified): name the syslog "
            "server, e.g. syslog:server=unix:/dev/log"
        )
    return None


def log_target_problem(target: str) -> str | None:
    """What error_log's and access_log's handlers refuse of where the log goes: only a syslog
    target is read before nginx opens it."""
    return syslog_problem(target) if target.startswith("syslog:") else None


_BUFFERING = ("buffer", "gzip")


def _log_parameter(word: str) -> str | None:
    """Why ngx_http_log_set_log (stream's is the same) refuses one parameter after the
    format."""
    key, equals, value = word.partition("=")
    if equals and key == "buffer" and not size(value):
        return f"takes buffer= a size above 0 (64k), not {word!r} (nginx: invalid buffer size)"
    if equals and key == "flush" and not time(value, seconds=False):
        return f"takes flush= a time above 0 (5s), not {word!r} (nginx: invalid flush time)"
    if key == "gzip" and not 1 <= ((number(value) or 0) if equals else 1) <= 9:
        return f"takes gzip or gzip=1 to 9, not {word!r} (nginx: invalid compression level)"
    if (equals and key in ("buffer", "flush", "if")) or key == "gzip":
        return None
    return (
        f"takes buffer=, gzip[=level], flush= and if= after the format, not {word!r} (nginx: "
        "invalid parameter)"
    )


def _buffering_problem(args: Args) -> str | None:
    """What ngx_http_log_set_log refuses of a buffered log (gzip buffers one of 64k)."""
    keys = {word.partition("=")[0] for word in args[2:]}
    buffered = bool(keys & set(_BUFFERING))
    if "flush" in keys and not buffered:
        return (
            f"has flush= but no buffer (nginx: no buffer is defined for access_log "
            f"{args[0]!r}): add buffer=SIZE"
        )
    if buffered and args[0].startswith("syslog:"):
        return (
            "buffers a log to syslog (nginx: logs to syslog cannot be buffered): remove "
            "buffer=, gzip and flush="
        )
    if buffered and "$" in args[0]:
        return (
            "buffers a log whose path has a variable (nginx: buffered logs cannot have "
            "variables in name): write the path, or remove buffer=, gzip and flush="
        )
    return None


def access_log(args: Args, place: Where) -> str | None:
    """ngx_http_log_set_log and ngx_stream_log_set_log: off alone, or the path or syslog
    target, the format (the config must define it: spec/directives.py; stream names one
    always), then buffer=, gzip, flush=, if=."""
    if args[0] == "off":
        if len(args) == 1:
            return None
        return f"takes nothing after off, not {args[1]!r} (nginx: invalid parameter)"
    found = log_target_problem(args[0])
    if found:
        return found
    if len(args) == 1 and place.context.startswith("stream"):
        return (
            "takes a log format after the path in a stream block (nginx: log format is not "
            "specified): name one log_format of the stream block"
        )
    for word in args[2:]:
        found = _log_parameter(word)
        if found:
            return found
    return _buffering_problem(args)


def _resolver_switch(word: str, version: Version) -> str | None:
    """The parameter ngx_resolver_create reads ``word`` as (valid=, ipv4=, ipv6=), or None:
    a name server."""
    key = word[:6] if word.startswith("valid=") else word[:5]
    if key == "ipv4=" and version < RESOLVER_IPV4_SINCE:
        return None
    return key if key in ("valid=", "ipv4=", "ipv6=") else None


def _resolver_parameter(word: str, key: str) -> str | None:
    value = word[len(key) :]
    if key == "valid=":
        if time(value, seconds=True) is None:
            return (
                f"takes valid= a time in whole seconds (30s, 5m), not {word!r} (nginx: invalid "
                "parameter)"
            )
    elif value not in ("on", "off"):
        return f"takes {key}on or {key}off, not {word!r} (nginx: invalid parameter)"
    return None


def resolver(args: Args, place: Where) -> str | None:
    """ngx_resolver_create through the resolver handlers of http, stream, mail (which also
    takes off) and upstream: name servers (port 53 when none is written), valid=, ipv6=,
    and ipv4= from 1.23.1."""
    if args[0] == "off" and place.context.startswith("mail"):
        return None
    servers = 0
    switches: dict[str, str] = {}
    for word in args:
        key = _resolver_switch(word, place.version)
        if key is None and word.startswith("ipv4="):
            return (
                f"has {word!r}, which nginx reads as a host name before 1.23.1 (nginx: host "
                "not found in resolver): remove it, or set nginx.version to the node's nginx"
            )
        found = _resolver_parameter(word, key) if key else _address_problem("resolver", word, 53)
        if found:
            return found
        if key is None:
            servers += 1
        else:
            switches[key] = word[len(key) :]
    if switches.get("ipv4=") == switches.get("ipv6=") == "off":
        return 'turns ipv4= and ipv6= both off (nginx: "ipv4" and "ipv6" cannot both be "off")'
    if not servers:
        return "takes at least one name server (nginx: no name servers defined)"
    return None


# ngx_log_set_log's smallest memory buffer: "MEMLOG  :" with its line feed and NUL, a size_t
# and an ngx_int_t printed (NGX_SIZE_T_LEN, NGX_INT_T_LEN), NGX_MAX_ERROR_STR, and the path of
# the file the directive is in (not known: a snippet's longest, 1024 characters).
_MEMORY_BASE = 11 + 20 + 20 + 2048
_LONGEST_PATH = 1024


def _memory_problem(target: str, place: Where) -> str | None:
    """ngx_log_set_log's memory:SIZE (a cyclic buffer only an nginx built --with-debug has)."""
    if not place.debug:
        return (
            "logs to memory, which needs an nginx built --with-debug, and this build "
            "(nginx.configure) is not (nginx: nginx was built without debug support): log to "
            "a file"
        )
    buffer = size(target.removeprefix("memory:"))
    path = len(place.path) if place.path is not None else _LONGEST_PATH
    if buffer is not None and buffer >= _MEMORY_BASE + path:
        return None
    return (
        f"takes memory:SIZE of at least {_MEMORY_BASE + path} bytes ({_MEMORY_BASE} and the "
        f"length of the file's path), a size of digits then k or m, not {target!r} (nginx: "
        "invalid buffer size): e.g. memory:32m"
    )


def error_log(args: Args, place: Where) -> str | None:
    """ngx_log_set_log: its syslog target or memory buffer; ngx_log_set_levels: after the
    file, one level, or debug_* levels alone."""
    target = log_target_problem(args[0])
    if target is None and args[0].startswith("memory:"):
        target = _memory_problem(args[0], place)
    if target:
        return target
    level = debug = False
    for word in args[1:]:
        if word in _LOG_LEVELS and not (level or debug):
            level = True
        elif word in _DEBUG_LEVELS and not level:
            debug = True
        else:
            known = word in _LOG_LEVELS
            return (
                f"takes one level of {', '.join(_LOG_LEVELS)} (or debug_* alone) after the file, "
                f"not {word!r} (nginx: {'duplicate' if known else 'invalid'} log level)"
            )
    return None
