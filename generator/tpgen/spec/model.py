"""The node spec: what an operator writes. Field rules live here; cross-field rules in rules.py."""

from __future__ import annotations

import ipaddress
import math
import posixpath
import re
import shlex
from collections.abc import Callable
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    WithJsonSchema,
)

from tpgen.spec.paths import log_problem, mount_problem, read_problem
from tpgen.spec.units import format_duration, parse_duration, parse_size, short_size

# Everything below ends up inside nginx.conf: each pattern keeps out ; { } quotes, spaces and $.
HOSTNAME_RE = r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$"
DISK_NAME_RE = r"^[a-z][a-z0-9_]{0,31}$"
DEVICE_RE = r"^/dev/[A-Za-z0-9][A-Za-z0-9/_.:+-]*$"
MOUNT_RE = r"^(/[A-Za-z0-9._-]+)+$"
USER_RE = r"^[a-z_][a-z0-9_-]{0,31}$"
# Variables and a few literal characters: enough for any cache key, never a directive.
CACHE_KEY_RE = r"^(\$[A-Za-z_][A-Za-z0-9_]*|[A-Za-z0-9/:._-])+$"
ALLOWED_BUCKETS = (100, 200, 250, 400, 500, 1000, 2000, 2500, 5000, 10000)
# Words a map block reads as instructions, not keys (ngx_http_map_module.c): disk names are keys.
RESERVED_DISK_NAMES = ("default", "hostnames", "include", "volatile")
# nginx core variables that describe the request before it reaches the cache: every one
# exists in any nginx build, so `nginx -t` accepts a key made of them.
CACHE_KEY_VARIABLES = (
    "scheme",
    "https",
    "host",
    "server_name",
    "server_addr",
    "server_port",
    "server_protocol",
    "request_method",
    "request_uri",
    "uri",
    "args",
    "query_string",
    "is_args",
)
CACHE_KEY_PREFIXES = ("arg_", "http_", "cookie_")  # $arg_NAME, $http_NAME, $cookie_NAME
CACHE_KEY_URI = ("request_uri", "uri")
CACHE_KEY_MAX = 1024
# A variable's name as nginx reads it (ngx_http_script_compile): letters of either case, digits
# and _ up to the first other character; ngx_http_get_variable_index then lowers it.
_VARIABLE_NAME = re.compile(r"\$([A-Za-z0-9_]+)")


SIZE_SCHEMA: dict[str, object] = {
    "anyOf": [
        {"type": "integer", "minimum": 0},
        {
            "type": "string",
            "pattern": r"^[ \t]*[0-9]+(\.[0-9]+)?[ \t]*([kmgtpKMGTP]i?)?[bB]?[ \t]*$",
        },
    ]
}
DURATION_SCHEMA: dict[str, object] = {
    "anyOf": [
        {"type": "integer", "minimum": 0},
        {"type": "string", "pattern": r"^([0-9]+(y|M|w|d|h|m|s|ms))+$|^[0-9]+$"},
    ]
}
Size = Annotated[
    int,
    BeforeValidator(parse_size),
    PlainSerializer(int, return_type=int),
    WithJsonSchema(SIZE_SCHEMA),
]


def _sizes_between(low: int, high: int, *, kib: bool = False) -> Callable[[int], int]:
    """A size field's bounds; ``kib``: nginx writes it in k/m units, so whole KiB only."""

    def check(value: int) -> int:
        if not low <= value <= high:
            raise ValueError(
                f"{value:,} bytes is outside {short_size(low)} … {short_size(high)}: "
                "write a size in that range (k = 1000, KiB = 1024)"
            )
        if kib and value % 1024:
            raise ValueError(
                f"{value:,} bytes is not a whole number of KiB, and nginx takes this size in "
                "k or m: write e.g. 512KiB or 1MiB"
            )
        return value

    return check


def shown(value: object) -> str:
    """A value as the user wrote it in YAML, cut short: 10**400 is not worth 400 digits."""
    text = str(value).lower() if isinstance(value, bool) else repr(value)
    return text if len(text) <= 24 else f"{text[:20]}…"


def _whole(value: object) -> object:
    """Strict integers: YAML's true is not 1 core, '4' and 4.0 are not counts."""
    if isinstance(value, bool):
        raise ValueError(f"{shown(value)} is a boolean, not a whole number: write e.g. 4")
    if not isinstance(value, int):
        raise ValueError(f"{shown(value)} is not a whole number: write e.g. 4")
    return value


def _real(value: float) -> float | None:
    """A finite float from a YAML int or float; None for NaN, ±inf and ints past a float."""
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _workers(value: object) -> object:
    if value != "auto" and (isinstance(value, bool) or not isinstance(value, int)):
        raise ValueError(f"{shown(value)} is neither a whole number nor auto: write e.g. 24")
    return value


def _finite(value: object) -> object:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{shown(value)} is not a number: write e.g. 10 or 2.5")
    number = _real(value)
    if number is None:
        raise ValueError(f"{shown(value)} is not a finite number: write e.g. 10 or 2.5")
    return number


# The smallest weight: 1e-6 of the largest allowed (1e6) still gives a disk a bucket quota the
# map can divide by; a subnormal one (5e-324) made it 0.0 (ZeroDivisionError).
MIN_WEIGHT = 1e-6


def _weight(value: object) -> object:
    number = None if isinstance(value, bool) or not isinstance(value, int | float) else _real(value)
    if number is None or number < MIN_WEIGHT:
        raise ValueError(
            f"{shown(value)}: a weight must be a finite number from 0.000001 to 1000000, e.g. 1.5"
        )
    return number


def _boolean(value: object) -> object:
    if not isinstance(value, bool):
        raise ValueError(f"{shown(value)} is not a boolean: write true or false")
    return value


WHOLE = BeforeValidator(_whole)
FINITE = BeforeValidator(_finite)
BOOLEAN = BeforeValidator(_boolean)


def _durations_between(
    low_ms: int, high_ms: int, *, milliseconds: bool, zero_ok: bool = False
) -> Callable[[object], str]:
    """A duration field as nginx's parser for its directive reads it, kept as written."""

    def check(value: object) -> str:
        ms = parse_duration(value, milliseconds=milliseconds)
        if not (low_ms <= ms <= high_ms or (zero_ok and ms == 0)):
            shown = value if isinstance(value, str) else f"{value}s"
            raise ValueError(
                f"{shown!r} is outside {format_duration(low_ms)} … {format_duration(high_ms)}"
                + (" (or 0 to turn it off)" if zero_ok else "")
            )
        return str(value)

    return check


def _no_dotdot(path: str) -> str:
    if "/../" in f"{path}/" or "/./" in f"{path}/":
        raise ValueError("must be a normalised absolute path (no . or .. parts)")
    return path.rstrip("/") or "/"


def _canonical_device(path: str) -> str:
    # The duplicate-device rule compares text: only one spelling of a path may pass.
    canonical = posixpath.normpath(path)
    if canonical != path:
        fix = (
            f"write {canonical!r}"
            if canonical.startswith("/dev/")
            else "it must name a device under /dev/"
        )
        raise ValueError(
            f"{path!r} is not a canonical device path (no . or .. parts, no // or trailing /): "
            + fix
        )
    return path


def _disk_name(name: str) -> str:
    if name in RESERVED_DISK_NAMES:
        raise ValueError(
            f"{name!r} is a keyword of nginx's map block, where disk names are keys "
            f"({', '.join(RESERVED_DISK_NAMES)} are reserved): pick another name, e.g. {name}1"
        )
    return name


def _cache_key(key: str) -> str:
    """Only request variables nginx knows, and always the URI: else URLs share one object."""
    allowed = ", ".join(
        [f"${name}" for name in CACHE_KEY_VARIABLES]
        + [f"${prefix}NAME" for prefix in CACHE_KEY_PREFIXES]
    )
    written = _VARIABLE_NAME.findall(key)
    for name in written:
        _cache_key_variable(name, allowed)
    names = [name.lower() for name in written]
    if not any(name in CACHE_KEY_URI for name in names):
        raise ValueError(
            f"{key!r} has neither $request_uri nor $uri, so every URL would share one cached "
            "object: write e.g. $scheme$host$request_uri"
        )
    return key


def _cache_key_variable(written: str, allowed: str) -> None:
    name = written.lower()
    if name.startswith("tpgen_"):
        raise ValueError(
            f"${written} is tpgen's own variable, chosen by the cache key itself: "
            f"build the key from request variables ({allowed})"
        )
    prefix = next((p for p in CACHE_KEY_PREFIXES if name.startswith(p)), None)
    if name in CACHE_KEY_VARIABLES or (prefix is not None and name != prefix):
        return
    known = next((v for v in CACHE_KEY_VARIABLES if name.startswith(v)), None)
    # nginx reads $uriX as one unknown variable, not $uri and then X.
    hint = (
        f" (nginx reads ${written} as one name: a letter, digit or _ right after ${known} "
        "continues it; put another character between them)"
        if known
        else ""
    )
    raise ValueError(f"${written} cannot be used in a cache key{hint}: use {allowed}")


def is_ip_host(host: str) -> bool:
    """True for an IP literal, bracketed or not: the host needs no DNS."""
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def _is_ip(text: str) -> str:
    try:
        address = ipaddress.ip_address(text)
    except ValueError as err:
        raise ValueError(
            f"{text!r} is not an IP address (write e.g. 127.0.0.1 or 2001:db8::1)"
        ) from err
    # A scope id (fe80::1%eth0, which ipaddress keeps verbatim, ; and } included) or a
    # non-canonical spelling would reach nginx.conf as written.
    if getattr(address, "scope_id", None) is not None:
        raise ValueError(
            f"{text!r}: nginx takes no %scope in an address: write "
            f"{str(address).split('%')[0]!r} without it"
        )
    # An IPv4 address in IPv6 clothes (::ffff:0:0 is 0.0.0.0) would pass every IPv6 rule while
    # the IPv4 rules (no wildcard, broadcast or group address; Linux binds none) never see it.
    mapped = getattr(address, "ipv4_mapped", None)
    if mapped is not None:
        raise ValueError(f"{text!r}: an IPv4-mapped address: write {str(mapped)!r}")
    if str(address) != text:
        raise ValueError(f"{text!r} is not written the way nginx prints it: write {str(address)!r}")
    return text


_BROADCAST = ipaddress.IPv4Address("255.255.255.255")


def _peer(text: str) -> str:
    """An address nginx sends to (an origin, a DNS server): one host, reachable without an
    interface named (a link-local address needs one, which nginx cannot write)."""
    address = ipaddress.ip_address(text)
    if address.is_unspecified or address.is_multicast or address == _BROADCAST:
        raise ValueError(f"{text!r} names no single host: write the server's own address")
    if address.version == 6 and address.is_link_local:
        raise ValueError(
            f"{text!r}: a link-local address needs an interface, which nginx cannot name: use "
            "a global or unique-local address"
        )
    return text


def _host(host: str) -> str:
    """RFC 1123 host name or dotted IPv4; a name made only of digits and dots is an address."""
    if re.fullmatch(r"[0-9.]+", host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            raise ValueError(
                f"{host!r} is not an IPv4 address: four numbers 0..255 without leading zeros"
            ) from None
        return _peer(host)
    # The resolver's inet_aton reads 0x7f000001 or a.1 as an address: no top-level name is
    # numeric (RFC 3696), so such a name is an address written another way.
    if re.fullmatch(r"0x[0-9a-f]*|[0-9]+", host.rpartition(".")[2], re.IGNORECASE):
        raise ValueError(
            f"{host!r} reads as an IPv4 address (the resolver takes hex and numeric forms): "
            "write the address as four decimal numbers, or a host name"
        )
    if len(host) > 253 or not host.isascii() or not re.fullmatch(HOSTNAME_RE, host.lower()):
        raise ValueError(
            f"{host!r} is not a valid host name: dot-separated labels of letters, digits "
            "and inner hyphens, each at most 63 characters, 253 in all"
        )
    return host


def _upstream(text: str) -> str:
    match = re.fullmatch(r"(\[[^\]]*\]|[^:\[\]]+):([0-9]{1,5})", text)
    if not match:
        raise ValueError(
            f"{text!r} is not host:port (write e.g. origin-a.example.net:8080 or [2001:db8::1]:80)"
        )
    host, port = match.groups()
    if host.startswith("["):
        if ipaddress.ip_address(_is_ip(host[1:-1])).version != 6:
            raise ValueError(f"{host!r}: brackets are for IPv6 only, write an IPv4 address bare")
        _peer(host[1:-1])
    else:
        _host(host)
    if not 1 <= int(port) <= 65535:
        raise ValueError(f"port {port} is out of range 1..65535")
    if port != str(int(port)):
        # origin.servers names an upstream by its text, and duplicates are found by it.
        raise ValueError(f"port {port} has a leading zero: write {host}:{int(port)}")
    return text


# host:port, the host a name of at most 253 characters (RFC 1123) or an address.
Upstream = Annotated[str, Field(max_length=253 + len(":65535")), AfterValidator(_upstream)]


def _loopback(text: str) -> str:
    if not ipaddress.ip_address(_is_ip(text)).is_loopback:
        raise ValueError("stub_status must stay on loopback: use 127.0.0.1 or ::1")
    return text


def _buckets(value: int) -> int:
    if value not in ALLOWED_BUCKETS:
        raise ValueError(
            f"{value} does not divide nginx's 10000 split_clients steps: use one of "
            + ", ".join(map(str, ALLOWED_BUCKETS))
        )
    return value


# The longest text form of an address (IPv6 with an IPv4 tail): no spelling is longer.
IP_TEXT_MAX = 45
IpAddress = Annotated[
    str, Field(max_length=IP_TEXT_MAX), AfterValidator(_is_ip), AfterValidator(_peer)
]
Port = Annotated[int, Field(ge=1, le=65535), WHOLE]
Percent = float  # every percent field: a finite number, bounds per field
KIB, MIB, GIB, TIB, PIB = 1 << 10, 1 << 20, 1 << 30, 1 << 40, 1 << 50
SECOND, MINUTE, HOUR, DAY = 1000, 60_000, 3_600_000, 86_400_000


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=False)


# ------------------------------------------------------------------- issue 13: a cache to run
# The slice module's own limits are 0 (off) and any size; tpgen keeps a slice within one
# filesystem block multiple (4 KiB) and large enough that a slice is not a keys-zone entry for a
# few bytes (64 KiB), at most 1 GiB (one fill nginx holds a lock for).
SLICE_MIN, SLICE_MAX, SLICE_ALIGN = 64 * KIB, GIB, 4 * KIB
SLICE_SCHEMA: dict[str, object] = {"anyOf": [{"enum": ["auto", "off"]}, SIZE_SCHEMA]}
# What proxy_cache_use_stale and proxy_cache_ignore_headers accept (ngx_http_proxy_module.c).
USE_STALE = (
    "error", "timeout", "invalid_header", "updating",
    "http_500", "http_502", "http_503", "http_504", "http_403", "http_404", "http_429",
)  # fmt: skip
IGNORE_HEADERS = (
    "X-Accel-Redirect", "X-Accel-Expires", "X-Accel-Limit-Rate", "X-Accel-Buffering",
    "X-Accel-Charset", "Expires", "Cache-Control", "Set-Cookie", "Vary",
)  # fmt: skip
# The statuses nginx caches at all (ngx_http_file_cache_valid): ones an origin answers with.
CACHEABLE_STATUSES = (200, 203, 204, 206, 300, 301, 302, 303, 307, 308, 404, 405, 410, 414, 501)
HEADER_NAME_RE = r"^[A-Za-z0-9][A-Za-z0-9-]{0,63}$"
COOKIE_NAME_RE = r"^[A-Za-z0-9_]{1,64}$"


def _slice(value: object) -> object:
    if value in ("auto", "off"):
        return value
    size = parse_size(value)
    if not SLICE_MIN <= size <= SLICE_MAX or size % SLICE_ALIGN:
        raise ValueError(
            f"{shown(value)}: a slice is auto, off, or a size of 64KiB … 1GiB in whole 4KiB "
            "steps (filesystem blocks): write e.g. 1MiB"
        )
    return size


_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")
# Always trusted (the node's own checks): the plan puts them first in the geo block.
LOOPBACK_NETWORKS = ("127.0.0.0/8", "::1/128")


def _network(text: str) -> str:
    if "%" in text:  # ipaddress keeps a scope id (fe80::%eth0/64) that nginx cannot read
        raise ValueError(
            f"{text!r}: nginx takes no %scope in a network: write it without, e.g. fe80::/64"
        )
    try:
        network = ipaddress.ip_network(text, strict=True)
    except ValueError as err:
        raise ValueError(
            f"{text!r} is not a network in CIDR form with its host bits zero: write e.g. "
            "10.0.0.0/8 or 2001:db8::/32"
        ) from err
    # nginx's geo looks an IPv4 client seen on an IPv6 socket (::ffff:a.b.c.d) up as IPv4
    # (ngx_http_geo_cidr_variable): a network inside ::ffff:0:0/96 never matches anyone.
    if isinstance(network, ipaddress.IPv6Network) and network.subnet_of(_MAPPED):
        ipv4 = ipaddress.IPv4Network(
            (int(network.network_address) & 0xFFFFFFFF, network.prefixlen - 96)
        )
        raise ValueError(
            f"{text!r}: an IPv4-mapped network, which nginx never matches (it looks such "
            f"clients up by their IPv4 address): write {str(ipv4)!r}"
        )
    if str(network) != text:
        raise ValueError(f"{text!r} is not written the way nginx prints it: write {str(network)!r}")
    return text


def _status(value: object) -> object:
    if value == "any":
        return value
    if isinstance(value, bool) or not isinstance(value, int) or value not in CACHEABLE_STATUSES:
        raise ValueError(
            f"{shown(value)} is not a status nginx caches: use any or one of "
            + " ".join(map(str, CACHEABLE_STATUSES))
        )
    return value


ValidTime = Annotated[
    str,
    BeforeValidator(_durations_between(SECOND, 365 * DAY, milliseconds=False, zero_ok=True)),
    WithJsonSchema(DURATION_SCHEMA),
]
LockTime = Annotated[
    str,
    BeforeValidator(_durations_between(100, HOUR, milliseconds=True)),
    WithJsonSchema(DURATION_SCHEMA),
]


class Valid(Strict):
    """How long answers with these statuses stay fresh: one proxy_cache_valid line."""

    status: Annotated[
        list[Annotated[int | Literal["any"], BeforeValidator(_status)]],
        Field(min_length=1, max_length=len(CACHEABLE_STATUSES)),
    ]
    time: ValidTime


class Bypass(Strict):
    """A request that carries this header or cookie (non-empty, not "0") skips the cache."""

    header: Annotated[str, Field(pattern=HEADER_NAME_RE)] | None = None
    cookie: Annotated[str, Field(pattern=COOKIE_NAME_RE)] | None = None


class CachePolicy(Strict):
    """How a cache node keeps answers; every key left out is tpgen's rule (`tpgen explain`)."""

    valid: Annotated[list[Valid], Field(min_length=1, max_length=16)] | None = Field(
        default=None, description="how long answers stay fresh, by status: [{status, time}]"
    )
    min_uses: Annotated[int, Field(ge=1, le=1000), WHOLE] | None = Field(
        default=None, description="requests for a key before it is written to the disk"
    )
    lock: Annotated[bool, BOOLEAN] | None = None
    lock_timeout: LockTime | None = Field(default=None, description="100ms … 1h")
    lock_age: LockTime | None = Field(default=None, description="100ms … 1h")
    use_stale: (
        Annotated[list[Literal[USE_STALE]], Field(max_length=len(USE_STALE))]  # type: ignore[valid-type]
        | None
    ) = Field(default=None, description="when a stale copy is served; [] for never")
    ignore_headers: (
        Annotated[list[Literal[IGNORE_HEADERS]], Field(max_length=len(IGNORE_HEADERS))]  # type: ignore[valid-type]
        | None
    ) = Field(default=None, description="origin headers that do not change caching")
    bypass: Bypass | None = None
    revalidate: Annotated[bool, BOOLEAN] | None = None
    background_update: Annotated[bool, BOOLEAN] | None = None
    loader_files: Annotated[int, Field(ge=1, le=1_000_000), WHOLE] | None = None
    manager_files: Annotated[int, Field(ge=1, le=1_000_000), WHOLE] | None = None
    loader_threshold: LockTime | None = Field(default=None, description="100ms … 1h")
    debug_headers: Annotated[bool, BOOLEAN] | None = Field(
        default=None,
        description="X-Cache-Status and X-Cache-Disk to every client (default: trusted only)",
    )
    trusted_networks: (
        Annotated[
            list[Annotated[str, Field(max_length=IP_TEXT_MAX + 4), AfterValidator(_network)]],
            Field(max_length=64),
        ]
        | None
    ) = Field(
        default=None, description="networks (CIDR) that get the debug headers; loopback always"
    )


NEXT_UPSTREAM = (
    "error", "timeout", "invalid_header",
    "http_500", "http_502", "http_503", "http_504", "http_403", "http_404", "http_429",
)  # fmt: skip
TimeoutTime = Annotated[
    str,
    BeforeValidator(_durations_between(100, HOUR, milliseconds=True)),
    WithJsonSchema(DURATION_SCHEMA),
]
FailTime = Annotated[
    str,
    BeforeValidator(_durations_between(SECOND, HOUR, milliseconds=False)),
    WithJsonSchema(DURATION_SCHEMA),
]


class OriginServer(Strict):
    """One upstream's parameters in the upstream group (nginx's `server ... weight= ...`)."""

    weight: Annotated[int, Field(ge=1, le=1000), WHOLE] | None = None
    max_fails: Annotated[int, Field(ge=0, le=1000), WHOLE] | None = None
    fail_timeout: FailTime | None = Field(default=None, description="1s … 1h")
    backup: Annotated[bool, BOOLEAN] | None = None


class Origin(Strict):
    """How a cache node reaches its origin: failover, timeouts, TLS (cache workload only)."""

    servers: Annotated[dict[Upstream, OriginServer], Field(max_length=64)] | None = Field(
        default=None, description="per upstream (host:port as in workload.upstreams)"
    )
    max_fails: Annotated[int, Field(ge=0, le=1000), WHOLE] | None = None
    fail_timeout: FailTime | None = Field(default=None, description="1s … 1h")
    connect_timeout: TimeoutTime | None = Field(default=None, description="100ms … 1h")
    send_timeout: TimeoutTime | None = Field(default=None, description="100ms … 1h")
    read_timeout: TimeoutTime | None = Field(default=None, description="100ms … 1h")
    next_upstream: (
        Annotated[list[Literal[NEXT_UPSTREAM]], Field(max_length=len(NEXT_UPSTREAM))]  # type: ignore[valid-type]
        | None
    ) = Field(default=None, description="when a request tries the next origin; [] for never")
    next_upstream_tries: Annotated[int, Field(ge=1, le=64), WHOLE] | None = None
    next_upstream_timeout: TimeoutTime | None = Field(default=None, description="100ms … 1h")
    keepalive: Annotated[int, Field(ge=1, le=10_000), WHOLE] | None = Field(
        default=None, description="idle connections to the origin each worker keeps"
    )
    tls: Annotated[bool, BOOLEAN] | None = Field(
        default=None, description="https to the origin, its certificate verified"
    )
    ca_file: NodePath | None = Field(
        default=None, description="CA bundle the origin's certificate is verified with"
    )
    server_name: Annotated[str, Field(pattern=HOSTNAME_RE, max_length=253)] | None = Field(
        default=None, description="name sent (SNI) and verified; default: the upstreams' host"
    )


class Logging(Strict):
    format: Literal["combined", "tpgen", "json"] | None = Field(
        default=None, description="combined (nginx's), tpgen (cache status, disk, timing), json"
    )
    path: LogPath | None = None
    buffer: Annotated[Size, AfterValidator(_sizes_between(4 * KIB, 16 * MIB, kib=True))] | None = (
        Field(default=None, description="4KiB … 16MiB, whole KiB")
    )


class Node(Strict):
    name: Annotated[str, Field(pattern=HOSTNAME_RE, max_length=253, description="host name")]
    cores: Annotated[int, Field(ge=1, le=1024, description="CPU cores nginx may use"), WHOLE]
    memory: Annotated[
        Size,
        AfterValidator(_sizes_between(256 * MIB, 64 * TIB)),
        Field(description="RAM of the node: 256MiB … 64TiB; 48GiB, or bytes"),
    ]


class Workload(Strict):
    type: Literal["cache", "origin", "vod"] = Field(
        description="cache: caching reverse proxy; origin: serves files on the disks; "
        "vod: large media files on the disks, read with directio"
    )
    upstreams: Annotated[list[Upstream], Field(max_length=64)] = Field(
        default_factory=list, description="origin servers host:port (cache workload only)"
    )
    avg_object_size: Annotated[Size, AfterValidator(_sizes_between(512, TIB))] | None = Field(
        default=None,
        description="average object size (512B … 1TiB); sizes the keys_zone and the "
        "open_file_cache, and corks answers (tcp_nopush) from 4MiB",
    )
    cache_key: (
        Annotated[
            str,
            Field(pattern=CACHE_KEY_RE, max_length=CACHE_KEY_MAX),
            AfterValidator(_cache_key),
        ]
        | None
    ) = Field(
        default=None,
        description="cache key, also the key that picks the disk; must hold $request_uri or $uri",
    )
    inactive: (
        Annotated[
            str,
            BeforeValidator(_durations_between(MINUTE, 365 * DAY, milliseconds=False)),
            WithJsonSchema(DURATION_SCHEMA),
        ]
        | None
    ) = Field(default=None, description="evict cached objects not used for this long: 1m … 365d")
    resolver: Annotated[list[IpAddress], Field(max_length=8)] = Field(
        default_factory=list,
        description="DNS servers (IP addresses) nginx asks while it runs: for a host-name "
        "upstream of a cache node, so it follows the name's records, and for the OCSP "
        "responders of tls.ocsp_stapling",
    )
    slice: (
        Annotated[
            int | Literal["auto", "off"], BeforeValidator(_slice), WithJsonSchema(SLICE_SCHEMA)
        ]
        | None
    ) = Field(
        default=None,
        description="fetch and cache large objects in slices of this size: auto (by "
        "avg_object_size), off, or 64KiB … 1GiB in 4KiB steps (cache workload only)",
    )


DUAL_STACK = "*"
# An absolute file path on the node: letters, digits and . _ + - only, so it is one nginx token.
FILE_RE = r"^(/[A-Za-z0-9._+-]+)+$"
# A server name: a host name, or a wildcard "*." in front of one (nginx's server_name form).
SERVER_NAME_RE = r"^(\*\.)?" + HOSTNAME_RE[1:]
NGINX_VERSION_RE = r"^[1-9][0-9]?\.[0-9]{1,3}(\.[0-9]{1,3})?$"
# nginx -V's configure arguments: printable ASCII on one line. Debian's run near 2 KiB; the
# bound is that of every spec text (nginx's 4 KiB token, tests/test_schema.py).
CONFIGURE_RE = r"^[ -~]*$"
CONFIGURE_MAX = 4094
# What each pattern takes, and an example: the error says this, not the regular expression.
PATTERN_FIXES = {
    HOSTNAME_RE: "a lowercase host name (labels of a-z, 0-9 and '-', joined by '.'): write e.g. "
    "edge-ams-01",
    DISK_NAME_RE: "a disk name (a lowercase letter, then up to 31 of a-z, 0-9 and '_'): write "
    "e.g. d1",
    DEVICE_RE: "a device path (/dev/, then letters, digits and / _ . : + -): write e.g. "
    "/dev/sdb or /dev/disk/by-id/wwn-0x5000c500a1b2c3d4",
    MOUNT_RE: "an absolute path (parts of letters, digits, '.', '_' and '-'): write e.g. "
    "/srv/cache/d1",
    USER_RE: "a Unix name (a lowercase letter or '_', then up to 31 of a-z, 0-9, '_' and '-'): "
    "write e.g. www-data",
    CACHE_KEY_RE: "nginx variables and the characters A-Z a-z 0-9 / : . _ -: write e.g. "
    "$scheme$host$request_uri",
    HEADER_NAME_RE: "a header name (up to 64 letters, digits and '-'): write e.g. X-Bypass",
    COOKIE_NAME_RE: "a cookie name (up to 64 letters, digits and '_'): write e.g. nocache",
    FILE_RE: "an absolute file path (parts of letters, digits, '.', '_', '+' and '-'): write "
    "e.g. /etc/nginx/tls/edge.crt",
    SERVER_NAME_RE: "a lowercase host name, or one after '*.': write e.g. cdn.example.com or "
    "*.example.com",
    NGINX_VERSION_RE: "an nginx version (major.minor or major.minor.patch): write e.g. 1.26.3",
    CONFIGURE_RE: "configure arguments on one line of printable ASCII: copy what `nginx -V` "
    "prints after 'configure arguments: '",
}


def _listen_address(text: str) -> str:
    if text == DUAL_STACK:
        return text
    address = ipaddress.ip_address(_is_ip(text))
    if address.version == 6 and address.is_link_local:
        raise ValueError(
            f"{text!r}: a link-local address needs an interface, which nginx's listen cannot "
            "name: use a global or unique-local address, or ::"
        )
    if address.is_multicast or address == _BROADCAST:
        raise ValueError(f"{text!r} is a group address no TCP listen binds: write the node's own")
    return text


NAME_MAX = 255  # bytes of one path part (a file or directory name) on Linux filesystems


def _file(path: str) -> str:
    # nginx_literal's "path" takes no ".." at all: refused here, with the field's line.
    if ".." in path:
        raise ValueError(f"{path!r}: a path nginx.conf names holds no '..': rename the file")
    if any(len(part.encode()) > NAME_MAX for part in path.split("/")):
        raise ValueError(
            f"a part of this path is longer than {NAME_MAX} bytes, which no Linux filesystem "
            "takes: shorten it"
        )
    return _no_dotdot(path)


def _placed(rule: Callable[[str], str | None]) -> AfterValidator:
    """A path `rule` of spec/paths.py, as a field validator: its reason is the field's error."""

    def check(path: str) -> str:
        reason = rule(path)
        if reason:
            raise ValueError(reason)
        return path

    return AfterValidator(check)


# A file nginx reads (certificate, key, snippet): one nginx token, never a kernel file.
FilePath = Annotated[
    str, Field(pattern=FILE_RE, max_length=1024), AfterValidator(_file), _placed(read_problem)
]
# A directory or file nginx.conf names: the renderer's "path" rule, checked with the field's line.
_NodePath = Annotated[str, Field(pattern=MOUNT_RE, max_length=1024), AfterValidator(_file)]
NodePath = Annotated[_NodePath, _placed(read_problem)]
MountPath = Annotated[_NodePath, _placed(mount_problem)]
LogPath = Annotated[_NodePath, _placed(log_problem)]


class Listen(Strict):
    address: Annotated[str, Field(max_length=IP_TEXT_MAX), AfterValidator(_listen_address)] = Field(
        default="0.0.0.0",
        description="IPv4 or IPv6 address, or * for both (0.0.0.0 and [::] ipv6only=on)",
    )
    port: Port = 80
    tls: Annotated[bool, BOOLEAN] = Field(
        default=False, description="TLS on this port (needs tls.certificates)"
    )
    http2: Annotated[bool, BOOLEAN] = Field(
        default=False, description="HTTP/2 on this TLS listen (negotiated by ALPN)"
    )
    http3: Annotated[bool, BOOLEAN] = Field(
        default=False,
        description="HTTP/3 (QUIC on the same UDP port) on this TLS listen: needs an nginx "
        "built with --with-http_v3_module (nginx.http_v3: true)",
    )


def _one_or_many(value: object) -> object:
    """``listen`` as one mapping (the original form) or a list of them."""
    return [value] if isinstance(value, dict) else value


LISTEN_SCHEMA = Listen.model_json_schema()
Listens = Annotated[
    list[Listen],
    Field(min_length=1, max_length=16),
    BeforeValidator(_one_or_many),
    WithJsonSchema(
        {
            "anyOf": [
                LISTEN_SCHEMA,
                {"type": "array", "items": LISTEN_SCHEMA, "minItems": 1, "maxItems": 16},
            ],
            "description": "where the node serves clients: one listen, or a list of them",
        }
    ),
]


class Certificate(Strict):
    cert: FilePath = Field(description="PEM certificate (chain) file on the node")
    key: FilePath = Field(description="PEM private key file on the node, matching cert")
    server_names: Annotated[
        list[Annotated[str, Field(pattern=SERVER_NAME_RE, max_length=253)]], Field(max_length=64)
    ] = Field(
        default_factory=list,
        description="host names this certificate serves (SNI); empty: any name (the first "
        "certificate is the default)",
    )


class Tls(Strict):
    certificates: Annotated[list[Certificate], Field(min_length=1, max_length=16)]
    redirect_http: Annotated[bool, BOOLEAN] = Field(
        default=False,
        description="a port-80 server that answers every plain request with 301 to https",
    )
    ticket_keys: Annotated[list[FilePath], Field(max_length=8)] = Field(
        default_factory=list,
        description="ssl_session_ticket_key files, newest first, rotated by you: session "
        "tickets stay off without them",
    )
    ocsp_stapling: Literal["auto", "on", "off"] = Field(
        default="auto",
        description="staple the CA's OCSP answer to the handshake: auto (where the "
        "certificate names an OCSP responder and workload.resolver is set), on, off",
    )
    trusted_certificate: FilePath | None = Field(
        default=None,
        description="PEM file of the certificates' issuers and root, on the node: nginx "
        "verifies the OCSP answers with it (ssl_stapling_verify)",
    )


def _configure_options(text: str) -> str:
    """Every word an option: nginx's configure takes nothing else (auto/options: "invalid
    option"), and a word that is not one was dropped, leaving a build of no modules."""
    try:
        words = shlex.split(text)
    except ValueError:  # an unbalanced quote, from a value holding one: the first word is read
        words = text.split()[:1]
    stray = next((word for word in words if not word.startswith("--")), None)
    if stray is not None:
        raise ValueError(
            f"{shown(stray)} is not a configure option (each starts with --): copy what "
            "`nginx -V` prints after 'configure arguments: '"
        )
    return text


Configure = Annotated[
    str,
    Field(pattern=CONFIGURE_RE, max_length=CONFIGURE_MAX),
    AfterValidator(_configure_options),
]


class Nginx(Strict):
    """The nginx the config is for; the nginx_tpconfig role fills it from `nginx -V`."""

    version: Annotated[str, Field(pattern=NGINX_VERSION_RE)] | None = Field(
        default=None, description="target nginx version, e.g. 1.22.1 or 1.26.3"
    )
    http_v3: Annotated[bool, BOOLEAN] = Field(
        default=False, description="built with --with-http_v3_module"
    )
    configure: Configure | None = Field(
        default=None,
        description="the build's configure arguments (`nginx -V`'s \"configure arguments:\" "
        "line): a directive or variable of a module it leaves out, or builds dynamic and no "
        "extra.main snippet loads, is refused; unset: every module of nginx's is taken",
    )


class Status(Strict):
    address: Annotated[str, Field(max_length=IP_TEXT_MAX), AfterValidator(_loopback)] = "127.0.0.1"
    port: Port = 8081


class Disk(Strict):
    name: Annotated[
        str,
        Field(pattern=DISK_NAME_RE, description="short name: d1, hdd07"),
        AfterValidator(_disk_name),
    ]
    device: Annotated[
        str,
        Field(pattern=DEVICE_RE, max_length=1024, description="block device, /dev/..., canonical"),
        AfterValidator(_canonical_device),
    ]
    mount: MountPath
    size: Annotated[
        Size,
        AfterValidator(_sizes_between(64 * MIB, PIB)),
        Field(description="64MiB … 1PiB: 4TB, 3.84TB, or bytes"),
    ]
    media: Literal["hdd", "ssd", "nvme"]
    state: Literal["active", "draining", "failed"] = "active"
    weight: (
        Annotated[
            float,
            Field(ge=MIN_WEIGHT, le=1e6),
            BeforeValidator(_weight),
        ]
        | None
    ) = Field(
        default=None, description="share of keys, 0.000001 … 1000000; default proportional to size"
    )
    filesystem: Literal["xfs", "ext4"] = "xfs"
    thread_pool: Annotated[bool, BOOLEAN] | None = Field(
        default=None, description="force a thread pool on (or off) for this disk"
    )


class Tuning(Strict):
    """Overrides of derived values; each one replaces the rule `tpgen explain` shows.

    A key that has no effect on this node (its workload, its disks) is refused, not ignored.
    """

    user: Annotated[str, Field(pattern=USER_RE)] | None = None
    group: Annotated[str, Field(pattern=USER_RE)] | None = Field(
        default=None, description="nginx workers' group; default: the user's name (nobody: nogroup)"
    )
    worker_processes: (
        Annotated[Annotated[int, Field(ge=1, le=1024)] | Literal["auto"], BeforeValidator(_workers)]
        | None
    ) = None
    worker_connections: Annotated[int, Field(ge=16, le=1_048_576), WHOLE] | None = None
    # The upper limit is the node's (fs.nr_open): plan.check_node_limits says it with the fix.
    # The kernel's own ceiling on fs.nr_open (sysctl_nr_open_max, 64-bit) bounds it here.
    worker_rlimit_nofile: Annotated[int, Field(ge=64, le=2_147_483_584), WHOLE] | None = None
    sendfile_max_chunk: (
        Annotated[Size, AfterValidator(_sizes_between(4 * KIB, 64 * MIB, kib=True))] | None
    ) = Field(default=None, description="4KiB … 64MiB, whole KiB")
    threads_per_disk: Annotated[int, Field(ge=1, le=512), WHOLE] | None = None
    max_queue: Annotated[int, Field(ge=1, le=16_777_216), WHOLE] | None = None
    headroom_percent: Annotated[Percent, Field(ge=0, lt=90), FINITE] | None = None
    min_free_percent: Annotated[Percent, Field(ge=0, lt=50), FINITE] | None = None
    keys_zone_ram_percent: Annotated[Percent, Field(gt=0, le=75), FINITE] | None = None
    buckets: Annotated[int, WHOLE, AfterValidator(_buckets)] | None = None
    directio: Annotated[Size, AfterValidator(_sizes_between(4 * KIB, TIB, kib=True))] | None = (
        Field(default=None, description="4KiB … 1TiB, whole KiB")
    )
    output_buffers: (
        Annotated[Size, AfterValidator(_sizes_between(4 * KIB, 64 * MIB, kib=True))] | None
    ) = Field(default=None, description="4KiB … 64MiB, whole KiB")
    open_file_cache_max: Annotated[int, Field(ge=1, le=10_000_000), WHOLE] | None = None
    keepalive_timeout: (
        Annotated[
            str,
            BeforeValidator(_durations_between(SECOND, HOUR, milliseconds=True, zero_ok=True)),
            WithJsonSchema(DURATION_SCHEMA),
        ]
        | None
    ) = Field(default=None, description="0 (off) or 1s … 1h, e.g. 65s")


class Guard(Strict):
    """Thresholds of `tpgen guard`, the node agent that takes a failing disk out of service.

    Left out, each takes the default `tpgen guard --explain` shows with its reason.
    """

    errors: Annotated[int, Field(ge=1, le=100_000), WHOLE] | None = Field(
        default=None, description="I/O errors of one disk within `window` that fail it"
    )
    window: (
        Annotated[
            str,
            BeforeValidator(_durations_between(SECOND, HOUR, milliseconds=False)),
            WithJsonSchema(DURATION_SCHEMA),
        ]
        | None
    ) = Field(default=None, description="the span `errors` are counted over: 1s … 1h")
    rate_window: (
        Annotated[
            str,
            BeforeValidator(_durations_between(MINUTE, 7 * DAY, milliseconds=False)),
            WithJsonSchema(DURATION_SCHEMA),
        ]
        | None
    ) = Field(default=None, description="at most one disk is failed per this span: 1m … 7d")
    slow: Literal["report", "drain"] | None = Field(
        default=None, description="what a disk much slower than its peers gets: report or drain"
    )
    slow_factor: Annotated[float, Field(ge=2, le=1000), FINITE] | None = Field(
        default=None, description="read latency this many times its peers' median is slow"
    )
    slow_for: (
        Annotated[
            str,
            BeforeValidator(_durations_between(10 * SECOND, DAY, milliseconds=False)),
            WithJsonSchema(DURATION_SCHEMA),
        ]
        | None
    ) = Field(default=None, description="how long a disk must stay slow: 10s … 1d")


EXTRA_CONTEXTS = ("main", "http", "server", "location")
# Per context: more include files than this is a config kept outside tpgen, not an extension.
EXTRA_MAX = 16


def _distinct(paths: list[str]) -> list[str]:
    seen = [path for index, path in enumerate(paths) if path in paths[:index]]
    if seen:
        raise ValueError(f"{seen[0]} is listed twice: nginx would read it twice; list it once")
    return paths


ExtraFiles = Annotated[list[FilePath], Field(max_length=EXTRA_MAX), AfterValidator(_distinct)]


class Extra(Strict):
    """Include files (absolute paths on the node) for what tpgen does not model; each is read
    and checked by tpgen where it is readable, and by nginx -t with the config."""

    main: ExtraFiles = Field(
        default_factory=list,
        description="included in the main context, after tpgen's thread pools, before events",
    )
    http: ExtraFiles = Field(
        default_factory=list,
        description="included in the http block, after tpgen's directives, before its servers",
    )
    server: ExtraFiles = Field(
        default_factory=list,
        description="included in every content server (one per certificate), before its "
        "locations; not in the redirect or status server",
    )
    location: ExtraFiles = Field(
        default_factory=list,
        description="included at the end of every content location (/, the mp4 one, and the "
        "named ones that serve the same content)",
    )


class NodeSpec(Strict):
    """One storage node: its hardware, its workload and its disks."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        title="tpgen node spec",
        json_schema_extra={"$id": "https://tpgen.dev/schemas/node-spec.schema.json"},
    )

    node: Node
    workload: Workload
    disks: Annotated[list[Disk], Field(min_length=1, max_length=256)]
    listen: Listens = Field(default_factory=lambda: [Listen()])
    tls: Tls | None = None
    nginx: Nginx = Field(default_factory=Nginx)
    status: Status = Field(default_factory=Status)
    tuning: Tuning = Field(default_factory=Tuning)
    cache: CachePolicy = Field(default_factory=CachePolicy)
    logging: Logging = Field(default_factory=Logging)
    origin: Origin = Field(default_factory=Origin)
    guard: Guard = Field(default_factory=Guard)
    extra: Extra = Field(default_factory=Extra)
