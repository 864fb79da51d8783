"""What nginx refuses only of the whole config, tpgen's with each snippet where it includes
it, so that neither a directive nor its block alone shows it. When nginx merges a block's
settings with those it inherits: the buffers of the upstream modules
(ngx_http_proxy_merge_loc_conf, and fastcgi's, uwsgi's and scgi's, alike in nginx 1.22 to
1.31) against each other in every server and location, and large_client_header_buffers
against connection_pool_size in every server (ngx_http_core_merge_srv_conf); a refusal names
the snippet's directive that set one of the values (the one set nearest the block that
fails); ssl_verify_client without the CAs, and the OCSP settings (spec/handlers_ocsp.py), in
a server with a certificate (ngx_http_ssl_merge_srv_conf). In the order nginx reads the
files: an access_log that names a log format defined only further down (ngx_http_log_set_log
looks it up as it reads), access logs that buffer one file differently (the file is opened
once, its buffer set by the first), and the shared memory zones every module declares in one
list (ngx_shared_memory_add). The server names of each listen address nginx hashes:
spec/merged_names.py; the other hashes it builds of the config's keys: spec/merged_hashes.py.

nginx's defaults here are those of a 64-bit machine with 4 KiB pages (ngx_pagesize; 64 ×
sizeof(void *)): x86-64 and the usual arm64 kernels.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from tpgen.spec.directive_values import PAGE_SIZE, flag_on, number, size, time
from tpgen.spec.directives import declared_zone
from tpgen.spec.edge import version_text
from tpgen.spec.handlers_certificates import unchecked_clients
from tpgen.spec.handlers_ocsp import ocsp_refusals
from tpgen.spec.merged_hashes import hash_refusals
from tpgen.spec.merged_names import names_hash_refusals
from tpgen.spec.nginx_syntax import Directive, with_snippets
from tpgen.spec.nginx_table import Version

CONNECTION_POOL_SIZE = 64 * 8
# Unset busy and write sizes are twice the largest buffer; an unset temp file cap is 1 GiB.
_TEMP_FILE_MAX = 1 << 30
# nginx counts sizes in size_t: all buffers but one, (count - 1) × size, wrap past 2^64.
_SIZE_T = 1 << 64
UPSTREAMS = ("proxy", "fastcgi", "uwsgi", "scgi")
# Blocks whose settings nginx merges into the ones inside them.
_INNER = {
    ("main", "http"): "http",
    ("http", "server"): "server",
    ("server", "location"): "location",
    ("location", "location"): "location",
    # A location's if and limit_except blocks are locations of their own, merged with it
    # (ngx_http_rewrite_if, ngx_http_core_limit_except add them to its locations).
    ("location", "if"): "location_if",
    ("location", "limit_except"): "limit_except",
    ("main", "stream"): "stream",
    ("stream", "server"): "stream_server",
}

# Every directive a block sets: name -> (the directive, whether a snippet wrote it, its depth).
Settings = Mapping[str, "Setting"]


@dataclass(frozen=True)
class Setting:
    directive: Directive
    from_snippet: bool
    depth: int


def whole_config_refusals(
    config: tuple[Directive, ...],
    snippets: Mapping[str, tuple[Directive, ...]],
    version: Version,
    prefix: str | None = None,
    *,
    pcre: bool = True,
) -> tuple[tuple[Directive, str], ...]:
    """Everything this module refuses of tpgen's ``config`` with the ``snippets`` in place
    (``prefix``: nginx's, configure's --prefix; None: not known; ``pcre``: whether nginx has
    the PCRE library)."""
    return (
        *merge_refusals(config, snippets, version),
        *late_log_formats(config, snippets),
        *log_buffer_refusals(config, snippets, prefix),
        *zone_refusals(config, snippets),
        *names_hash_refusals(config, snippets, version, pcre=pcre),
        *hash_refusals(config, snippets),
    )


def merge_refusals(
    config: tuple[Directive, ...],
    snippets: Mapping[str, tuple[Directive, ...]],
    version: Version,
) -> list[tuple[Directive, str]]:
    """(snippet directive, why nginx ``version`` -t refuses the merge it takes part in) of
    tpgen's config ``config`` with each ``snippets`` file (by the path its include names) in
    place; each directive once."""
    found: dict[int, tuple[Directive, str]] = {}
    walked = _walk(config, "main", {}, _Reading(snippets, version), 0)
    for directive, reason in walked:
        found.setdefault(id(directive), (directive, reason))
    return list(found.values())


def late_log_formats(
    config: tuple[Directive, ...], snippets: Mapping[str, tuple[Directive, ...]]
) -> list[tuple[Directive, str]]:
    """(snippet access_log, why) for each that names a log format the config defines only
    after it (nginx compares the names caseless); one defined nowhere is
    directives._unknown_name's."""
    every = list(_read_in_order(config, "main", snippets))
    later = {d.args[0].lower() for d, _, context in every if _defines_format(d, context)}
    defined = {"combined"}
    found: list[tuple[Directive, str]] = []
    for directive, mine, context in every:
        if _defines_format(directive, context):
            defined.add(directive.args[0].lower())
        name = _format(directive)
        late = name is not None and name.lower() not in defined and name.lower() in later
        if mine and name is not None and late:
            found.append((directive, _late(name)))
    return found


# gzip alone buffers 64k at level 1 (Z_BEST_SPEED).
_GZIP_BUFFER, _GZIP_LEVEL = 64 * 1024, 1


def _buffering(args: tuple[str, ...]) -> tuple[int, int, int] | None:
    """(size, flush in ms, gzip level) of an access_log that buffers a file, read as
    ngx_http_log_set_log reads them in order; None: unbuffered, to syslog or by a variable."""
    buffer = flush = gzip = 0
    for word in args[2:]:
        key, equals, value = word.partition("=")
        if key == "buffer" and equals:
            buffer = size(value) or 0
        elif key == "flush" and equals:
            flush = time(value, seconds=False) or 0
        elif key == "gzip":
            buffer = buffer or _GZIP_BUFFER
            gzip = (number(value) or 0) if equals else _GZIP_LEVEL
    path = args[0]
    if not buffer or path.startswith("syslog:") or "$" in path:
        return None
    return buffer, flush, gzip


def _shown_buffering(found: tuple[int, int, int]) -> str:
    buffer, flush, gzip = found
    shown_flush = f"{flush // 1000}s" if flush % 1000 == 0 else f"{flush}ms"
    words = [f"buffer={shown_size(buffer)}", f"flush={shown_flush}" if flush else "no flush"]
    return ", ".join([*words, f"gzip={gzip}" if gzip else "no gzip"])


def _file_name(path: str, prefix: str | None) -> str:
    """The name nginx opens a log file by (ngx_conf_full_name without the conf prefix): a
    relative path after the prefix and the / configure puts after it (NGX_PREFIX); kept as
    written where the prefix is not known, so it matches only itself."""
    if path.startswith("/") or prefix is None:
        return path
    return f"{prefix}/{path}"


def log_buffer_refusals(
    config: tuple[Directive, ...],
    snippets: Mapping[str, tuple[Directive, ...]],
    prefix: str | None = None,
) -> list[tuple[Directive, str]]:
    """(snippet access_log, why): nginx opens a file once for the whole config
    (ngx_conf_open_file, by its full name: ``prefix`` before a relative path) and the first
    access_log that buffers it sets the buffer; every other that buffers it needs the same
    size, flush= and gzip level (ngx_http_log_set_log, stream's alike). Unbuffered ones may
    share the file. http's and stream's logs are one list of files (cycle->open_files), and
    each module compares the buffer a file has, whichever set it (one layout in both, nginx
    1.19 to 1.31): a stream access_log and an http one are matched as two http ones."""
    first: dict[str, tuple[Directive, bool, tuple[int, int, int]]] = {}
    found: dict[int, tuple[Directive, str]] = {}
    for directive, mine, _ in _read_in_order(config, "main", snippets):
        buffering = _buffering(directive.args) if directive.name == "access_log" else None
        if buffering is None:
            continue
        before, before_mine, set_to = first.setdefault(
            _file_name(directive.args[0], prefix), (directive, mine, buffering)
        )
        if set_to == buffering or not (mine or before_mine):
            continue
        blamed, its, other = (directive, buffering, set_to) if mine else (before, set_to, buffering)
        by = "another access_log" if mine and before_mine else "tpgen's access_log"
        found.setdefault(id(blamed), (blamed, _conflicting(directive.args[0], its, other, by)))
    return list(found.values())


def _conflicting(path: str, its: tuple[int, int, int], other: tuple[int, int, int], by: str) -> str:
    return (
        f"buffers {path!r} ({_shown_buffering(its)}) where {by} buffers it "
        f'({_shown_buffering(other)}) (nginx: access_log "{path}" already defined with '
        "conflicting parameters): give both the same buffer=, flush= and gzip, or log to "
        "another file"
    )


# What nginx says of a second declaration of a zone by the same module, where it refuses one
# (limit zones are bound to their key, a cache path owns its zone).
_AGAIN = {
    "limit_req_zone": "is already bound to a key",
    "limit_conn_zone": "is already bound to a key",
    "proxy_cache_path": "duplicate zone",
    "fastcgi_cache_path": "duplicate zone",
    "uwsgi_cache_path": "duplicate zone",
    "scgi_cache_path": "duplicate zone",
}


@dataclass
class _Zone:
    use: str  # the module's tag: the declaring directive and the block it is under
    size: int
    directive: Directive
    from_snippet: bool


def _declared(directive: Directive, top: str) -> tuple[str, str, int] | None:
    """(use, name, size; 0 if none) of the shared zone a directive declares."""
    zone = declared_zone(directive)
    zone_size = (size(zone[1]) if zone[1] else 0) if zone is not None else None
    if zone is None or zone_size is None:
        return None
    return f"{top} {directive.name}", zone[0], zone_size


def zone_refusals(
    config: tuple[Directive, ...], snippets: Mapping[str, tuple[Directive, ...]]
) -> list[tuple[Directive, str]]:
    """(snippet directive, why) of the shared zones nginx refuses as it declares them all in
    one list (ngx_shared_memory_add): a name another module (or stream's) declares, a size
    that differs from the one declared, a limit zone or cache path declared twice, and an
    upstream's zone that nothing gives a size."""
    zones: dict[str, _Zone] = {}
    found: list[tuple[Directive, str]] = []
    for directive, mine, top in _declarations(config, snippets):
        declared = _declared(directive, top)
        if declared is None:
            continue
        use, name, zone_size = declared
        before = zones.setdefault(name, _Zone(use, zone_size, directive, mine))
        reason = None if before.directive is directive else _clash(name, before, use, zone_size)
        before.size = before.size or zone_size
        if reason is not None and mine:
            found.append((directive, reason))
    found += [
        (zone.directive, _ZERO.format(name=name))
        for name, zone in zones.items()
        if zone.size == 0 and zone.from_snippet
    ]
    return found


_ZERO = (
    "declares the zone {name!r} with no size, and no other declaration gives it one (nginx: "
    'zero size shared memory zone "{name}"): add its size, e.g. zone {name} 64k;'
)


def _clash(name: str, before: _Zone, use: str, zone_size: int) -> str | None:
    if use != before.use:
        return (
            f"names the shared zone {name!r}, which {before.use.split()[-1]} declares already "
            f'(nginx: the shared memory zone "{name}" is already declared for a different '
            "use): give it a name of its own"
        )
    if zone_size and before.size and zone_size != before.size:
        return (
            f"gives the zone {name!r} {shown_size(zone_size)}, where it is declared with "
            f'{shown_size(before.size)} already (nginx: the size … of shared memory zone "{name}" '
            "conflicts with already declared size …): use the same size, or another name"
        )
    again = _AGAIN.get(use.split()[-1])
    if again is not None:
        return (
            f'declares the zone {name!r} a second time (nginx: {use.split()[-1]} "{name}" '
            f"{again}): give it a name of its own"
        )
    return None


def _declarations(
    config: tuple[Directive, ...], snippets: Mapping[str, tuple[Directive, ...]]
) -> Iterator[tuple[Directive, bool, str]]:
    """Every directive in the order nginx reads it, with the block under main it is in
    (http, stream, mail): their modules declare zones of their own."""
    top = "main"
    for directive, mine, context in _read_in_order(config, "main", snippets):
        if context == "main" and directive.block is not None:
            top = directive.name
        yield directive, mine, top


def _defines_format(directive: Directive, context: str) -> bool:
    return directive.name == "log_format" and bool(directive.args) and context == "http"


def _format(directive: Directive) -> str | None:
    """The log format an access_log names (None: not an access_log, or it names none)."""
    if directive.name != "access_log" or len(directive.args) < 2:
        return None
    return directive.args[1]


def _late(name: str) -> str:
    return (
        f"uses the log format {name!r} before the log_format that defines it: nginx looks "
        "the name up as it reads the config, in the order tpgen includes the snippets (nginx: "
        "unknown log format): move the log_format above it, or into an earlier extra.http "
        "snippet"
    )


def _read_in_order(
    block: tuple[Directive, ...],
    context: str,
    snippets: Mapping[str, tuple[Directive, ...]],
    *,
    from_snippet: bool = False,
) -> Iterator[tuple[Directive, bool, str]]:
    """Every directive of the config as nginx reads it: (directive, a snippet wrote it, the
    context of its block, main or http for the two outer ones and "inner" for any other)."""
    for directive, mine in with_snippets(block, snippets, from_snippet):
        yield directive, mine, context
        if directive.block is not None:
            inner = "http" if (context, directive.name) == ("main", "http") else "inner"
            yield from _read_in_order(directive.block, inner, snippets, from_snippet=mine)


@dataclass(frozen=True)
class _Reading:
    """What the walk reads the config with: the snippets by path, and the nginx version."""

    snippets: Mapping[str, tuple[Directive, ...]]
    version: Version


def _walk(
    block: tuple[Directive, ...],
    context: str,
    inherited: Settings,
    reading: _Reading,
    depth: int,
    *,
    from_snippet: bool = False,
) -> Iterator[tuple[Directive, str]]:
    own = list(with_snippets(block, reading.snippets, from_snippet))
    settings = dict(inherited)
    for directive, mine in own:
        if directive.block is None:
            settings[directive.name] = Setting(directive, mine, depth)
    if context == "server":
        yield from _header_buffers(settings)
        yield from _client_verification(settings, reading.version)
        yield from _ocsp_settings(settings, reading.version)
        if reading.version < _NO_SSL_DIRECTIVE:
            yield from _ssl_without_certificate(settings)
    if context in ("server", "location"):
        for prefix in UPSTREAMS:
            yield from _upstream_buffers(prefix, settings)
    if reading.version < _EMPTY_CERTIFICATE_IS_NONE:
        yield from _empty_certificates(context, settings, depth, reading.version)
    for directive, mine in own:
        inner = _INNER.get((context, directive.name))
        if inner is not None and directive.block is not None:
            yield from _walk(
                directive.block, inner, settings, reading, depth + 1, from_snippet=mine
            )


# The upstream modules that talk TLS, and the scheme of their pass that does.
_TLS_SCHEMES = {"proxy": "https://", "grpc": "grpcs://", "uwsgi": "suwsgi://"}
# The blocks a *_pass may be in (NGX_HTTP_LOC_CONF|NGX_HTTP_LIF_CONF|NGX_HTTP_LMT_CONF).
_PASSING = ("location", "location_if", "limit_except")
# nginx 1.23.0 reads an upstream certificate "" as none (before, the prefix directory).
_EMPTY_CERTIFICATE_IS_NONE = (1, 23, 0)


def _empty_certificates(
    context: str, settings: Settings, depth: int, version: Version
) -> Iterator[tuple[Directive, str]]:
    """ngx_http_proxy_set_ssl (grpc's, uwsgi's alike) and ngx_stream_proxy_set_ssl before
    1.23.0: where the upstream talks TLS, the certificate in force is loaded, "" too."""
    if context == "stream_server":
        if _flag_on(settings, "proxy_ssl"):
            yield from _empty_certificate("proxy", "proxy_ssl is on", settings, version)
        return
    for prefix, scheme in _TLS_SCHEMES.items() if context in _PASSING else ():
        passed = settings.get(f"{prefix}_pass")
        if passed is None or passed.depth != depth:
            continue  # the location's own pass sets up TLS, an inherited one does not
        url = " ".join(passed.directive.args)
        if url.lower().startswith(scheme) or "$" in url:  # any variable: TLS maybe
            yield from _empty_certificate(prefix, f"{prefix}_pass talks TLS", settings, version)


def _empty_certificate(
    prefix: str, where: str, settings: Settings, version: Version
) -> Iterator[tuple[Directive, str]]:
    certificate = settings.get(f"{prefix}_ssl_certificate")
    if certificate is None or certificate.directive.args != ("",) or not certificate.from_snippet:
        return
    key = settings.get(f"{prefix}_ssl_certificate_key")
    if key is not None and "$" in " ".join(key.directive.args):
        return  # loaded per request, where "" is none
    said = (
        f'no "{prefix}_ssl_certificate_key" is defined for certificate ""'
        if key is None
        else 'cannot load certificate "…/"'
    )
    yield (
        certificate.directive,
        (
            f'is "", which nginx {version_text(version)} loads as the prefix directory where '
            f"{where}; nginx 1.23.0 and later read it as no certificate (nginx: {said}): "
            "remove it, or target nginx 1.23 or later"
        ),
    )


def _blamed(settings: Settings, names: tuple[str, ...]) -> Directive | None:
    """The snippet directive among ``names`` set nearest the block; None: tpgen set them all."""
    mine = [settings[name] for name in names if name in settings and settings[name].from_snippet]
    return max(mine, key=lambda setting: setting.depth).directive if mine else None


def shown_size(value: int) -> str:
    """A size as nginx reads it back: 16k, 1m, 1000."""
    for unit, scale in (("m", 1 << 20), ("k", 1 << 10)):
        if value and value % scale == 0:
            return f"{value // scale}{unit}"
    return str(value)


def _size_of(settings: Settings, name: str, default: int | None) -> int | None:
    setting = settings.get(name)
    if setting is None or len(setting.directive.args) != 1:
        return default
    return size(setting.directive.args[0])


def _buffers_of(settings: Settings, name: str, default: tuple[int, int]) -> tuple[int, int] | None:
    setting = settings.get(name)
    if setting is None:
        return default
    args = setting.directive.args
    count, each = (number(args[0]), size(args[1])) if len(args) == 2 else (None, None)
    return (count, each) if count and each else None


def _header_buffers(settings: Settings) -> Iterator[tuple[Directive, str]]:
    buffers = _buffers_of(settings, "large_client_header_buffers", (4, 8192))
    pool = _size_of(settings, "connection_pool_size", CONNECTION_POOL_SIZE)
    if buffers is None or pool is None or buffers[1] >= pool:
        return
    blamed = _blamed(settings, ("large_client_header_buffers", "connection_pool_size"))
    if blamed is not None:
        yield (
            blamed,
            (
                f"leaves a server with large_client_header_buffers of {shown_size(buffers[1])} "
                f"below its connection_pool_size of {shown_size(pool)} (nginx: the "
                '"large_client_header_buffers" size must be equal to or greater than '
                f'"connection_pool_size"): make each buffer at least {shown_size(pool)}'
            ),
        )


def _client_verification(settings: Settings, version: Version) -> Iterator[tuple[Directive, str]]:
    """ngx_http_ssl_merge_srv_conf: a server that has a certificate (or rejects handshakes)
    and asks for client certificates needs the CAs to check them against."""
    verify = settings.get("ssl_verify_client")
    if verify is None or not verify.from_snippet:
        return
    serves = "ssl_certificate" in settings or _flag_on(settings, "ssl_reject_handshake")
    authorities = {name: setting.directive.args for name, setting in settings.items()}
    reason = unchecked_clients(verify.directive, authorities, version) if serves else None
    if reason is not None:
        yield verify.directive, reason


def _ocsp_settings(settings: Settings, version: Version) -> Iterator[tuple[Directive, str]]:
    """ngx_http_ssl_merge_srv_conf: the OCSP settings of a server that has a certificate (or
    rejects handshakes), blamed on the snippet's directive set nearest it."""
    if "ssl_certificate" not in settings and not _flag_on(settings, "ssl_reject_handshake"):
        return
    in_force = {name: setting.directive.args for name, setting in settings.items()}
    for names, reason in ocsp_refusals(in_force, version):
        blamed = _blamed(settings, names)
        if blamed is not None:
            yield blamed, reason


# The ssl directive's last release (1.25.1 removed it, and the table refuses it there).
_NO_SSL_DIRECTIVE = (1, 25, 1)


def _ssl_without_certificate(settings: Settings) -> Iterator[tuple[Directive, str]]:
    """ngx_http_ssl_merge_srv_conf: a server that ssl on reaches (its own or its http
    block's) needs a certificate, unless it rejects handshakes."""
    enable = settings.get("ssl")
    if enable is None or not enable.from_snippet or "ssl_certificate" in settings:
        return
    if _flag_on(settings, "ssl") and not _flag_on(settings, "ssl_reject_handshake"):
        yield (
            enable.directive,
            (
                'turns TLS on in a server without an ssl_certificate (nginx: no "ssl_certificate" '
                'is defined for the "ssl" directive): remove it; TLS is a listen of the spec\'s '
                "(listen: [{port: 443, tls: true}]) with tls.certificates"
            ),
        )


def _flag_on(settings: Settings, name: str) -> bool:
    found = settings.get(name)
    return found is not None and flag_on(found.directive.args)


@dataclass(frozen=True)
class _Buffers:
    """An upstream module's buffer settings in force in one block (nginx's defaults where
    unset; None: a size nginx's own parser refuses, said elsewhere)."""

    prefix: str
    buffer_size: int
    count: int
    each: int
    busy: int | None  # unset: twice the largest buffer
    write: int | None
    temp_max: int

    @property
    def largest(self) -> int:
        return max(self.buffer_size, self.each)

    @property
    def all_but_one(self) -> int:
        return (self.count - 1) * self.each

    @property
    def room(self) -> int:
        """All buffers but one as nginx counts them, wrapped."""
        return self.all_but_one % _SIZE_T


def _upstream_buffers(prefix: str, settings: Settings) -> Iterator[tuple[Directive, str]]:
    names = tuple(
        f"{prefix}_{name}"
        for name in (
            "buffers",
            "buffer_size",
            "busy_buffers_size",
            "temp_file_write_size",
            "max_temp_file_size",
        )
    )
    if not any(name in settings for name in names):
        return
    found = _buffers_in_force(prefix, settings, names)
    if found is None:
        return
    reason = _buffers_problem(found)
    blamed = _blamed(settings, names)
    if reason is not None and blamed is not None:
        yield blamed, reason


def _buffers_in_force(prefix: str, settings: Settings, names: tuple[str, ...]) -> _Buffers | None:
    """The buffer settings after nginx's defaults; None where nginx's parser refuses one."""
    buffers = _buffers_of(settings, names[0], (8, PAGE_SIZE))
    buffer_size = _size_of(settings, names[1], PAGE_SIZE)
    busy, write = (_size_of(settings, name, None) for name in names[2:4])
    temp_max = _size_of(settings, names[4], _TEMP_FILE_MAX)
    unparsed = any(
        name in settings and value is None
        for name, value in zip(names[2:4], (busy, write), strict=True)
    )
    if buffers is None or buffer_size is None or temp_max is None or unparsed:
        return None
    return _Buffers(prefix, buffer_size, *buffers, busy, write, temp_max)


def _buffers_problem(found: _Buffers) -> str | None:
    """ngx_http_proxy_merge_loc_conf's checks, in its order, with the fix."""
    name = found.prefix
    largest = shown_size(found.largest)
    said = f'the maximum of the value of "{name}_buffer_size" and one of the "{name}_buffers"'
    settled = (
        f"with {name}_buffers {found.count} {shown_size(found.each)} and {name}_buffer_size "
        f"{shown_size(found.buffer_size)} in force"
    )
    if found.count < 2:
        return (
            f"{settled}: nginx needs at least two {name}_buffers (nginx: there must be at least "
            f'2 "{name}_buffers"): e.g. {name}_buffers 2 {shown_size(found.each)}'
        )
    busy = 2 * found.largest if found.busy is None else found.busy
    if busy < found.largest:
        return (
            f"{settled}, {name}_busy_buffers_size {shown_size(busy)} is below {largest} (nginx: "
            f'"{name}_busy_buffers_size" must be equal to or greater than {said}): raise it '
            f"to at least {largest}"
        )
    if busy > found.room:
        return _too_little_room(found, busy, settled)
    write = 2 * found.largest if found.write is None else found.write
    if write < found.largest:
        return (
            f"{settled}, {name}_temp_file_write_size {shown_size(write)} is below {largest} "
            f'(nginx: "{name}_temp_file_write_size" must be equal to or greater than '
            f"{said}): raise it to at least {largest}"
        )
    if found.temp_max and found.temp_max < found.largest:
        return (
            f"{settled}, {name}_max_temp_file_size {shown_size(found.temp_max)} is below "
            f'{largest} (nginx: "{name}_max_temp_file_size" must be equal to zero to disable '
            f"temporary files usage or must be equal to or greater than {said}): set it to 0 "
            f"(no temporary files) or at least {largest}"
        )
    return None


def _too_little_room(found: _Buffers, busy: int, settled: str) -> str:
    name = found.prefix
    unset = f" (unset: twice {shown_size(found.largest)})" if found.busy is None else ""
    room = f"all {name}_buffers but one, {shown_size(found.room)}"
    if found.all_but_one >= _SIZE_T:
        room = (
            f"all {name}_buffers but one as nginx counts them: {found.count - 1} × "
            f"{shown_size(found.each)} passes 2^64 bytes and wraps around to "
            f"{shown_size(found.room)}"
        )
    return (
        f"{settled}, {name}_busy_buffers_size {shown_size(busy)}{unset} exceeds {room} (nginx: "
        f'"{name}_busy_buffers_size" must be less than the size of all "{name}_buffers" minus '
        "one buffer): " + _more_room(name, found, busy)
    )


def _more_room(name: str, found: _Buffers, busy: int) -> str:
    """The fix: a busy size the buffers hold, or a count of them that holds it without
    wrapping past 2^64 (none past ``most``)."""
    needed = -(-busy // found.each) + 1
    most = (_SIZE_T - 1) // found.each + 1
    if found.room >= found.largest:
        between = (
            f"set {name}_busy_buffers_size between {shown_size(found.largest)} and "
            f"{shown_size(found.room)}"
        )
        return f"{between}, or give {name}_buffers {needed} buffers" if needed <= most else between
    if needed > most:
        return (
            f"lower {name}_buffer_size: no count of {shown_size(found.each)} buffers holds twice "
            "it below 2^64 bytes"
        )
    if found.count > most:
        counts = str(most) if needed == most else f"{needed} to {most}"
        return f"give {name}_buffers {counts} buffers of {shown_size(found.each)}"
    return f"give {name}_buffers at least {needed} buffers of {shown_size(found.each)}"
