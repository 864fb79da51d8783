"""Cross-field rules of a spec that one field alone cannot check."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass

from tpgen.errors import Path, Problem, format_path, problem
from tpgen.spec.edge import OLDEST_NGINX, edge_problems, version_text, version_tuple
from tpgen.spec.model import LOOPBACK_NETWORKS, CachePolicy, Extra, NodeSpec, Origin, is_ip_host
from tpgen.spec.paths import NGINX_ERROR_LOG, NGINX_LOGS, is_within
from tpgen.spec.units import human_size

WORKLOADS = ("cache", "origin", "vod")


@dataclass(frozen=True)
class Scope:
    """Where an optional key has an effect; anywhere else it is refused, never ignored."""

    workloads: tuple[str, ...] = WORKLOADS
    needs_pool: bool = False  # only a node where some disk gets a thread pool uses it


# The one table of applicability: every optional workload key and every tuning key.
SCOPES: dict[Path, Scope] = {
    ("workload", "upstreams"): Scope(("cache",)),
    ("workload", "cache_key"): Scope(("cache",)),
    ("workload", "inactive"): Scope(("cache",)),
    ("tuning", "user"): Scope(),
    ("tuning", "group"): Scope(),
    ("tuning", "worker_processes"): Scope(),
    ("tuning", "worker_connections"): Scope(),
    ("tuning", "worker_rlimit_nofile"): Scope(),
    ("tuning", "sendfile_max_chunk"): Scope(),
    ("tuning", "keepalive_timeout"): Scope(),
    ("tuning", "buckets"): Scope(),
    ("tuning", "threads_per_disk"): Scope(needs_pool=True),
    ("tuning", "max_queue"): Scope(needs_pool=True),
    ("tuning", "headroom_percent"): Scope(("cache",)),
    ("tuning", "min_free_percent"): Scope(("cache",)),
    ("tuning", "keys_zone_ram_percent"): Scope(("cache",)),
    ("tuning", "directio"): Scope(("vod",)),
    ("tuning", "output_buffers"): Scope(("vod",)),
    ("tuning", "open_file_cache_max"): Scope(("origin", "vod")),
    # issue 13: byte ranges and the cache policy
    ("workload", "slice"): Scope(("cache",)),
    **{("cache", name): Scope(("cache",)) for name in CachePolicy.model_fields},
    **{("origin", name): Scope(("cache",)) for name in Origin.model_fields},
}


def _is_set(spec: NodeSpec, path: Path) -> bool:
    section, key = path
    value = getattr(getattr(spec, str(section)), str(key))
    return value is not None and value != []


def _workload_scope_problems(spec: NodeSpec) -> Iterator[Problem]:
    workload = spec.workload.type
    for path, scope in SCOPES.items():
        if workload not in scope.workloads and _is_set(spec, path):
            users = " and ".join(scope.workloads)
            verb = "uses" if len(scope.workloads) == 1 else "use"
            yield problem(
                path,
                f"has no effect on {'an' if workload == 'origin' else 'a'} {workload} node "
                f"(only {users} {verb} it): remove it",
            )


def pool_scope_problems(spec: NodeSpec, pools: int) -> list[Problem]:
    """Keys of thread pools on a node where the plan gave no disk a pool (called by the plan)."""
    if pools:
        return []
    return [
        problem(
            path,
            "has no effect: no disk gets a thread pool (active HDDs do; an ssd or nvme disk "
            "needs thread_pool: true): remove it",
        )
        for path, scope in SCOPES.items()
        if scope.needs_pool and _is_set(spec, path)
    ]


def _repeats(keys: Iterable[Hashable]) -> Iterator[tuple[int, int]]:
    """(index, index of its first) of each key that an earlier one has already."""
    first: dict[Hashable, int] = {}
    for index, key in enumerate(keys):
        if key in first:
            yield index, first[key]
        else:
            first[key] = index


def _duplicates(spec: NodeSpec, field: str) -> Iterator[Problem]:
    values = [getattr(disk, field) for disk in spec.disks]
    for index, earlier in _repeats(values):
        yield problem(
            ("disks", index, field),
            f"{values[index]!r} is already used by disks.{earlier}: "
            f"each disk needs its own {field}",
        )


def _duplicate_upstreams(spec: NodeSpec) -> Iterator[Problem]:
    """One origin listed twice gets two shares of the requests, and a failed request may be
    retried on it (each upstream is tried once: proxy_next_upstream_tries counts them)."""
    upstreams = spec.workload.upstreams
    # Host names are case-insensitive; an IPv6 address is canonical already.
    keys = [(host.lower(), port) for host, _, port in (u.rpartition(":") for u in upstreams)]
    for index, earlier in _repeats(keys):
        yield problem(
            ("workload", "upstreams", index),
            f"{upstreams[index]!r} is already listed as workload.upstreams.{earlier}: nginx would "
            "send it two shares of the requests and may retry a failed one on it; list each "
            "origin once (origin.servers sets a weight)",
        )


def _nested_mounts(spec: NodeSpec) -> Iterator[Problem]:
    for index, disk in enumerate(spec.disks):
        for other_index, other in enumerate(spec.disks):
            if index != other_index and disk.mount.startswith(other.mount.rstrip("/") + "/"):
                yield problem(
                    ("disks", index, "mount"),
                    f"{disk.mount} is inside disks.{other_index}.mount {other.mount}: "
                    "mount each disk at its own top-level directory",
                )
        if disk.mount == "/":
            yield problem(("disks", index, "mount"), "a cache disk cannot be mounted at /")


def named_files(spec: NodeSpec) -> tuple[str, ...]:
    """Every file the spec names for nginx (logs, certificates, keys, snippets), once each."""
    return tuple(dict.fromkeys(path for _, path in _node_files(spec)))


def _node_files(spec: NodeSpec) -> Iterator[tuple[Path, str]]:
    """Every file the spec names that nginx opens itself, with its field."""
    if spec.logging.path:
        yield ("logging", "path"), spec.logging.path
    for field, path, _, _ in _read_file_kinds(spec):
        yield field, path


def _read_file_kinds(spec: NodeSpec) -> Iterator[tuple[Path, str, str, int | None]]:
    """(field, path, what nginx reads from it, the certificate pair it belongs to)."""
    if spec.tls is not None:
        for index, pair in enumerate(spec.tls.certificates):
            yield ("tls", "certificates", index, "cert"), pair.cert, "certificate", index
            yield ("tls", "certificates", index, "key"), pair.key, "private key", index
        for index, ticket_key in enumerate(spec.tls.ticket_keys):
            yield ("tls", "ticket_keys", index), ticket_key, "ticket key", None
        if spec.tls.trusted_certificate:
            yield ("tls", "trusted_certificate"), spec.tls.trusted_certificate, "certificate", None
    if spec.origin.ca_file:
        yield ("origin", "ca_file"), spec.origin.ca_file, "certificate", None
    for context in Extra.model_fields:
        for index, snippet in enumerate(getattr(spec.extra, context)):
            yield ("extra", context, index), snippet, "config snippet", None


def _combined(uses: list[tuple[Path, str, str, int | None]]) -> bool:
    """A certificate and its key in one PEM file: each pair naming it names it for both."""
    pairs = {pair for _, _, _, pair in uses}
    return None not in pairs and all(
        {kind for _, _, kind, p in uses if p == pair} == {"certificate", "private key"}
        for pair in pairs
    )


def _file_kinds(spec: NodeSpec) -> Iterator[Problem]:
    """nginx reads one kind of thing from each file: a path named for two kinds fails nginx -t
    on the node (a key where a certificate chain is read, a snippet that is a PEM)."""
    uses: dict[str, list[tuple[Path, str, str, int | None]]] = {}
    for use in _read_file_kinds(spec):
        uses.setdefault(use[1], []).append(use)
    for path, named in uses.items():
        if len({kind for _, _, kind, _ in named}) == 1 or _combined(named):
            continue
        field, _, kind, _ = named[-1]
        other_field, _, other_kind, _ = next(use for use in named if use[2] != kind)
        yield problem(
            field,
            f"{path} is also {format_path(other_field)}, from which nginx reads a {other_kind}, "
            f"not a {kind}: name another file (a certificate and its own key may share one)",
        )


def _nginx_floor(spec: NodeSpec) -> Iterator[Problem]:
    if spec.nginx.version and version_tuple(spec.nginx.version) < OLDEST_NGINX:
        oldest = version_text(OLDEST_NGINX)
        yield problem(
            ("nginx", "version"),
            f"nginx {spec.nginx.version} predates directives every config of tpgen's may use "
            f"(proxy_cache_path min_free, {oldest}): upgrade nginx to {oldest} or later "
            "(Debian 12 has 1.22.1; role nginx_install)",
        )


def _one_key_per_certificate(spec: NodeSpec) -> Iterator[Problem]:
    """A certificate has one key: two pairs naming it with two keys fail nginx -t in one of
    them ("key values mismatch"), on the node whatever its files."""
    if spec.tls is None:
        return
    first: dict[str, tuple[int, str]] = {}
    for index, pair in enumerate(spec.tls.certificates):
        seen = first.setdefault(pair.cert, (index, pair.key))
        if seen[1] != pair.key:
            yield problem(
                ("tls", "certificates", index, "key"),
                f"{pair.cert} is paired with {seen[1]} in tls.certificates.{seen[0]}: a "
                "certificate has one key; name that key here, or another certificate",
            )


def _files_on_disks(spec: NodeSpec) -> Iterator[Problem]:
    """nginx opens these at every start and reload: a data disk that fails or is not mounted
    yet would keep it from starting, and an origin serves its disks' trees to anyone."""
    for field, path in _node_files(spec):
        index, disk = next(
            ((i, d) for i, d in enumerate(spec.disks) if is_within(path, d.mount)), (None, None)
        )
        example = f"{NGINX_LOGS}/access.log" if field == ("logging", "path") else "under /etc"
        inner = next((i for i, d in enumerate(spec.disks) if is_within(d.mount, path)), None)
        if disk is None and inner is not None:
            # The directory a disk is mounted in: nginx would open a directory as the file.
            yield problem(
                field,
                f"{path} is a directory on the node (disks.{inner}.mount "
                f"{spec.disks[inner].mount} is inside it): name a file, e.g. {example}",
            )
        if disk is not None:
            yield problem(
                field,
                f"{path} is on disks.{index} ({disk.name}, mounted at {disk.mount}): a failed "
                "or unmounted data disk would keep nginx from starting; keep it on the system "
                f"disk, e.g. {example}",
            )


def _log_file(spec: NodeSpec) -> Iterator[Problem]:
    """nginx appends the access log to whatever file it names, as root."""
    log = spec.logging.path
    if log is None:
        return
    read = {path: field for field, path, _, _ in _read_file_kinds(spec)}
    if log in read:
        yield problem(
            ("logging", "path"),
            f"{log} is also {format_path(read[log])}, a file nginx reads: nginx would append its "
            f"log to it; name another file, e.g. {NGINX_LOGS}/access.log",
        )
    if log == NGINX_ERROR_LOG:
        yield problem(
            ("logging", "path"),
            f"{log} is nginx's error log: name another file, e.g. {NGINX_LOGS}/access.log",
        )


def origin_follows_dns(spec: NodeSpec) -> bool:
    """A cache node whose one upstream is a host name, with a resolver: nginx resolves the
    name while it runs (a variable in proxy_pass), not once at start."""
    upstreams = spec.workload.upstreams
    return (
        spec.workload.type == "cache"
        and bool(spec.workload.resolver)
        and len(upstreams) == 1
        and not is_ip_host(upstreams[0].rpartition(":")[0])
    )


def may_staple(spec: NodeSpec) -> bool:
    """OCSP stapling is not turned off: nginx may ask the resolver for the responders' names."""
    return spec.tls is not None and spec.tls.ocsp_stapling != "off"


def _resolver_use(spec: NodeSpec) -> Iterator[Problem]:
    """The resolver serves a cache node's host-name origin and OCSP stapling, nothing else."""
    workload = spec.workload.type
    if spec.workload.resolver and workload != "cache" and not may_staple(spec):
        article = "an" if workload == "origin" else "a"
        yield problem(
            ("workload", "resolver"),
            f"has no effect on {article} {workload} node without OCSP stapling (nginx asks it "
            "for a cache node's host-name upstream and for the OCSP responders of "
            "tls.ocsp_stapling): remove it",
        )
    if spec.tls is not None and spec.tls.ocsp_stapling == "on" and not spec.workload.resolver:
        yield problem(
            ("tls", "ocsp_stapling"),
            "on needs workload.resolver: nginx looks up the OCSP responder's name while it "
            'runs; add resolver: ["192.0.2.53"] (your DNS servers), or set auto or off',
        )


def _duplicate_resolvers(spec: NodeSpec) -> Iterator[Problem]:
    """nginx takes its turns over the resolver's list (ngx_resolver_send_query): a server
    listed twice gets twice the queries, and a timed-out query may go to it again."""
    resolvers = spec.workload.resolver
    # Each address is written the one way nginx prints it (the model refuses other spellings).
    for index, earlier in _repeats(resolvers):
        yield problem(
            ("workload", "resolver", index),
            f"{resolvers[index]!r} is already listed as workload.resolver.{earlier}: nginx "
            "would send it twice the queries; list each DNS server once",
        )


# The networks of nginx's geo default (ngx_http_geo_module: default is 0.0.0.0/0 and ::/0).
EVERY_CLIENT = ("0.0.0.0/0", "::/0")


def _duplicate_networks(spec: NodeSpec) -> Iterator[Problem]:
    """A network the geo block has already (listed twice, a loopback one tpgen always trusts,
    or every client: its default) makes nginx warn "duplicate network" at every start."""
    networks = spec.cache.trusted_networks or []
    for index, network in enumerate(networks):
        if network in EVERY_CLIENT:
            yield problem(
                ("cache", "trusted_networks", index),
                f"{network} is every client, the geo block's default: set cache.debug_headers: "
                "true to send the headers to everyone",
            )
        if network in LOOPBACK_NETWORKS:
            yield problem(
                ("cache", "trusted_networks", index),
                f"{network} is loopback, which is always trusted: remove it",
            )
    for index, earlier in _repeats(networks):
        yield problem(
            ("cache", "trusted_networks", index),
            f"{networks[index]} is already listed as cache.trusted_networks.{earlier}: list "
            "each network once",
        )


def _repeated_words(spec: NodeSpec) -> Iterator[Problem]:
    """proxy_cache_use_stale, proxy_ignore_headers and proxy_next_upstream are bitmasks
    (ngx_conf_set_bitmask_slot): nginx warns 'duplicate value' at every start and reload."""
    lists: list[tuple[Path, list[str]]] = [
        (("cache", "use_stale"), spec.cache.use_stale or []),
        (("cache", "ignore_headers"), spec.cache.ignore_headers or []),
        (("origin", "next_upstream"), spec.origin.next_upstream or []),
    ]
    for path, words in lists:
        for index, earlier in _repeats(words):
            yield problem(
                (*path, index),
                f"{words[index]} is already listed as {format_path((*path, earlier))}: list it "
                "once (nginx warns of a duplicate value)",
            )


def _repeated_statuses(spec: NodeSpec) -> Iterator[Problem]:
    """nginx gives an answer the time of the first proxy_cache_valid entry that names its
    status, or is any (ngx_http_file_cache_valid): a later one is never read."""
    first: dict[int | str, int] = {}
    for index, valid in enumerate(spec.cache.valid or []):
        for position, status in enumerate(valid.status):
            earlier = first.get("any", first.get(status))
            if earlier is not None:
                covered = "covers every status" if "any" in first else "already has its time"
                yield problem(
                    ("cache", "valid", index, "status", position),
                    f"{status}: cache.valid.{earlier} {covered} (nginx uses the first entry "
                    "that matches): list each status once, and any last",
                )
            else:
                first[status] = index


def _origin_names(spec: NodeSpec) -> Iterator[Problem]:
    """A resolver makes nginx follow a host name's DNS, which nginx 1.22 does for one proxied
    name only (not for the names inside an upstream group)."""
    upstreams = spec.workload.upstreams
    if not spec.workload.resolver or not upstreams:
        return
    names = [i for i, u in enumerate(upstreams) if not is_ip_host(u.rpartition(":")[0])]
    if not names:
        if not may_staple(spec):
            yield problem(
                ("workload", "resolver"),
                "no upstream is a host name and OCSP stapling is off: remove resolver "
                "(IP upstreams need no DNS)",
            )
    elif len(upstreams) > 1:
        yield problem(
            ("workload", "upstreams", names[0]),
            "with a resolver, a host name must be the only upstream: nginx re-resolves one "
            "proxied name, not the names of an upstream group; put the origins behind one "
            "name with several addresses, or list them as IP addresses without resolver",
        )


def _sliced(spec: NodeSpec) -> bool:
    """The spec asks for slices; `auto` is the plan's to decide, and the plan says so."""
    return isinstance(spec.workload.slice, int)


def _cache_policy(spec: NodeSpec) -> Iterator[Problem]:
    policy = spec.cache
    yield from _sliced_cache(spec)
    if policy.bypass is not None and policy.bypass.header is None and policy.bypass.cookie is None:
        yield problem(
            ("cache", "bypass"), "names neither a header nor a cookie: add one or remove it"
        )
    if policy.debug_headers and policy.trusted_networks:
        yield problem(
            ("cache", "trusted_networks"),
            "has no effect: debug_headers: true sends the headers to every client; remove one",
        )


def _sliced_cache(spec: NodeSpec) -> Iterator[Problem]:
    """What slices refuse of the cache policy."""
    policy = spec.cache
    if _sliced(spec) and policy.background_update:
        yield problem(
            ("cache", "background_update"),
            "with workload.slice a background update refetches the whole object for one "
            "slice (nginx/nginx#911): remove it (tpgen turns it off with slices)",
        )
    if _sliced(spec) and policy.valid is not None:
        statuses = {s for v in policy.valid for s in v.status}
        if not statuses & {206, "any"}:
            yield problem(
                ("cache", "valid"),
                "with workload.slice every slice is a 206 answer: add 206 to a status list, "
                "or nothing is cached",
            )


def _origin_settings(spec: NodeSpec) -> Iterator[Problem]:
    yield from _origin_servers(spec)
    yield from _origin_backups(spec)
    yield from _origin_tls(spec)


def _origin_servers(spec: NodeSpec) -> Iterator[Problem]:
    upstreams = spec.workload.upstreams
    for server, options in (spec.origin.servers or {}).items():
        if server not in upstreams:
            yield problem(
                ("origin", "servers", server),
                "is not one of workload.upstreams: write it as it is written there",
            )
        elif origin_follows_dns(spec) and options != options.__class__():
            yield problem(
                ("origin", "servers", server),
                "a name followed through the resolver is proxied directly, not through an "
                "upstream group: its parameters have no place; remove them",
            )


def _origin_backups(spec: NodeSpec) -> Iterator[Problem]:
    upstreams = spec.workload.upstreams
    servers = spec.origin.servers or {}
    backups = [s for s, o in servers.items() if o.backup and s in upstreams]
    if backups and len(backups) >= len(upstreams):
        yield problem(
            ("origin", "servers", backups[0]),
            "every upstream is a backup: leave at least one primary",
        )


def _origin_tls(spec: NodeSpec) -> Iterator[Problem]:
    origin = spec.origin
    if not origin.tls and (origin.ca_file or origin.server_name):
        key = "ca_file" if origin.ca_file else "server_name"
        yield problem(("origin", key), "has no effect without origin.tls: true: remove it")
    if origin.tls and origin.server_name is None and not _one_origin_name(spec):
        yield problem(
            ("origin", "tls"),
            "the origins' certificate is checked for one name and these upstreams have "
            "none or several: add origin.server_name: the name in the certificate",
        )


def _one_origin_name(spec: NodeSpec) -> bool:
    """Whether the upstreams name at most one host, and by a name (the one checked in the
    origins' certificate)."""
    hosts = {u.rpartition(":")[0] for u in spec.workload.upstreams}
    return len(hosts) <= 1 and not any(is_ip_host(h) for h in hosts)


def semantic_problems(spec: NodeSpec) -> list[Problem]:
    """Every cross-field problem of a spec that passed field validation."""
    problems: list[Problem] = []
    for field in ("name", "device", "mount"):
        problems.extend(_duplicates(spec, field))
    problems.extend(_nested_mounts(spec))
    problems.extend(_files_on_disks(spec))
    problems.extend(_log_file(spec))
    problems.extend(_file_kinds(spec))
    problems.extend(_one_key_per_certificate(spec))
    problems.extend(_nginx_floor(spec))
    if not any(disk.state == "active" for disk in spec.disks):
        problems.append(
            problem(("disks",), "no disk is active: at least one disk must have state: active")
        )
    workload = spec.workload
    if workload.type == "cache" and not workload.upstreams:
        problems.append(
            problem(
                ("workload", "upstreams"),
                'a cache node needs at least one upstream: add upstreams: ["origin:8080"]',
            )
        )
    problems.extend(_workload_scope_problems(spec))
    problems.extend(_resolver_use(spec))
    problems.extend(_duplicate_resolvers(spec))
    if workload.type == "cache":
        problems.extend(_duplicate_upstreams(spec))
        problems.extend(_origin_names(spec))
        problems.extend(_cache_policy(spec))
        problems.extend(_duplicate_networks(spec))
        problems.extend(_repeated_words(spec))
        problems.extend(_repeated_statuses(spec))
        problems.extend(_origin_settings(spec))
    problems.extend(edge_problems(spec))
    problems.extend(_object_fits(spec))
    return problems


def _object_fits(spec: NodeSpec) -> Iterator[Problem]:
    """One line for all the disks an average object outgrows, naming the smallest."""
    size = spec.workload.avg_object_size
    outgrown = [d for d in spec.disks if size is not None and size > d.size]
    if size is None or not outgrown:
        return
    smallest = min(outgrown, key=lambda d: d.size)
    more = f" and {len(outgrown) - 1} more" if len(outgrown) > 1 else ""
    yield problem(
        ("workload", "avg_object_size"),
        f"{human_size(size)} is larger than disk {smallest.name} ({human_size(smallest.size)})"
        f"{more}: lower avg_object_size below the smallest disk",
    )
