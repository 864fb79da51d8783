"""What a plan is: Decisions (a value and its reason), grouped as the config lays them out.

Every Decision field is registered with the directive it feeds (``feeds``): `tpgen explain`
walks the fields in order and prints each with its directive, so a new Decision appears there
without a hand-kept list. Fields are in the order of the rendered config.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from tpgen.plan.buckets import SplitTable

T = TypeVar("T")

# How explain shows a value (render/explain.py holds the formats).
Shown = Literal[
    "text", "size", "mb", "words", "types", "valid", "headers", "servers", "formats", "ciphers"
]


@dataclass(frozen=True)
class Decision(Generic[T]):
    """A derived value and the rule that produced it."""

    value: T
    because: str
    overridden: bool = False


def pick(override: T | None, default: T, because: str) -> Decision[T]:
    """The spec's tuning value where it sets one, else the rule's."""
    if override is not None:
        return Decision(override, "set in the spec (tuning)", overridden=True)
    return Decision(default, because)


def feeds(directive: str, shown: Shown = "text") -> dict[str, str]:
    """A Decision field's metadata: the directive it feeds, and how explain shows its value."""
    return {"directive": directive, "shown": shown}


@dataclass(frozen=True)
class ThreadPool:
    name: str
    threads: Decision[int] = field(metadata=feeds("threads"))
    max_queue: Decision[int] = field(metadata=feeds("max_queue"))

    @property
    def label(self) -> str:
        return f"thread_pool {self.name}"


@dataclass(frozen=True)
class CacheZone:
    name: str
    path: str
    levels: Decision[str] = field(metadata=feeds("levels"))
    keys_zone_mb: Decision[int] = field(metadata=feeds("keys_zone", "mb"))
    max_size: Decision[int] = field(metadata=feeds("max_size", "size"))
    min_free: Decision[int] = field(metadata=feeds("min_free", "size"))
    inactive: Decision[str] = field(metadata=feeds("inactive"))
    use_temp_path: Decision[str] = field(metadata=feeds("use_temp_path"))
    loader_files: Decision[int] | None = field(default=None, metadata=feeds("loader_files"))
    loader_threshold: Decision[str] | None = field(default=None, metadata=feeds("loader_threshold"))
    manager_files: Decision[int] | None = field(default=None, metadata=feeds("manager_files"))

    @property
    def label(self) -> str:
        return f"proxy_cache_path {self.name}"


@dataclass(frozen=True)
class DiskPlan:
    name: str
    device: str
    mount: str
    dir: str
    media: str
    state: str
    filesystem: str
    weight: float
    buckets: Decision[int] = field(metadata=feeds("split_clients buckets"))
    thread_pool: ThreadPool | None
    aio: Decision[str] = field(metadata=feeds("aio"))
    cache: CacheZone | None
    # the device's read-ahead (applied by storage_disks, not in nginx.conf)
    read_ahead_kb: Decision[int] | None = field(
        default=None, metadata=feeds("read_ahead_kb (storage role)")
    )

    @property
    def label(self) -> str:
        return f"disk {self.name}"

    @property
    def summary(self) -> tuple[str, str]:
        """Its heading in `tpgen explain`: what the spec says about it."""
        return f"{self.state} {self.media}", f"{self.dir} on {self.device} ({self.filesystem})"

    @property
    def bucket_count(self) -> int:
        return self.buckets.value


@dataclass(frozen=True)
class Upstream:
    host: str
    port: int
    # the server line's parameters (plan/origins.py); None: not written
    weight: int | None = None
    max_fails: int | None = None
    fail_timeout: str | None = None
    backup: bool = False

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def parameters(self) -> tuple[str, ...]:
        """``weight=2 max_fails=1 fail_timeout=10s backup``: what follows the address."""
        named = (("weight", self.weight), ("max_fails", self.max_fails))
        words = [f"{name}={value}" for name, value in named if value is not None]
        if self.fail_timeout is not None:
            words.append(f"fail_timeout={self.fail_timeout}")
        return (*words, "backup") if self.backup else tuple(words)


class _ValueOf(Generic[T]):
    """A read-only attribute: the value of the Decision in another field."""

    def __init__(self, decision: str) -> None:
        self.decision = decision

    def __get__(self, part: object, owner: type | None = None) -> T:
        value: T = getattr(part, self.decision).value
        return value


@dataclass(frozen=True)
class ListenSocket:
    """One ``listen`` line: an address the node binds, from one listen of the spec."""

    address: str  # 0.0.0.0:443, [::]:443
    source: str  # the spec's field, listen.0
    parameters: Decision[tuple[str, ...]] = field(metadata=feeds("parameters", "words"))
    shared: tuple[str, ...] = ()  # the parameters a second server block repeats (no socket options)
    quic: bool = False

    @property
    def label(self) -> str:
        return f"listen {self.address}{' quic' if self.quic else ''}"

    @property
    def summary(self) -> tuple[str, str]:
        return ("udp" if self.quic else "tcp"), f"from {self.source} in the spec"


@dataclass(frozen=True)
class TlsPolicy:
    """The TLS settings every server of the node shares (http context)."""

    protocols: Decision[tuple[str, ...]] = field(metadata=feeds("ssl_protocols", "words"))
    ciphers: Decision[str] = field(metadata=feeds("ssl_ciphers", "ciphers"))
    prefer_server_ciphers: Decision[str] = field(metadata=feeds("ssl_prefer_server_ciphers"))
    session_cache_mb: Decision[int] = field(metadata=feeds("ssl_session_cache", "mb"))
    session_timeout: Decision[str] = field(metadata=feeds("ssl_session_timeout"))
    session_tickets: Decision[str] = field(metadata=feeds("ssl_session_tickets"))
    early_data: Decision[str] = field(metadata=feeds("ssl_early_data"))
    ticket_keys: Decision[tuple[str, ...]] | None = field(
        default=None, metadata=feeds("ssl_session_ticket_key", "words")
    )
    trusted_certificate: Decision[str] | None = field(
        default=None, metadata=feeds("ssl_trusted_certificate")
    )

    @property
    def label(self) -> str:
        return ""


@dataclass(frozen=True)
class ServerPlan:
    """One server block of the node: a certificate and the names it serves."""

    index: int
    names: tuple[str, ...]  # server_name; empty: the default server
    certificate: Decision[str] | None = field(default=None, metadata=feeds("ssl_certificate"))
    certificate_key: Decision[str] | None = field(
        default=None, metadata=feeds("ssl_certificate_key")
    )
    ocsp_stapling: Decision[str] | None = field(default=None, metadata=feeds("ssl_stapling"))
    ocsp_stapling_verify: Decision[str] | None = field(
        default=None, metadata=feeds("ssl_stapling_verify")
    )

    @property
    def staples(self) -> bool:
        return self.ocsp_stapling is not None and self.ocsp_stapling.value == "on"

    @property
    def label(self) -> str:
        return f"server {' '.join(self.names) or '(default)'}"

    @property
    def summary(self) -> tuple[str, str]:
        return "tls", f"tls.certificates.{self.index} in the spec"


PLAIN_SERVER = ServerPlan(index=0, names=())


@dataclass(frozen=True)
class Sysctl:
    name: str
    value: str
    at_least: bool  # a floor: a node already set higher keeps its value


MimeTypes = tuple[tuple[str, tuple[str, ...]], ...]
CacheValid = tuple[tuple[tuple[int, ...], str], ...]
Headers = tuple[tuple[str, str], ...]


@dataclass(frozen=True, kw_only=True)
class Plan:
    source: str
    node_name: str
    workload: str
    # main context
    user: Decision[str] = field(metadata=feeds("user"))
    group: Decision[str] = field(metadata=feeds("user group"))
    worker_processes: Decision[int | str] = field(metadata=feeds("worker_processes"))
    worker_rlimit_nofile: Decision[int] = field(metadata=feeds("worker_rlimit_nofile"))
    pid_file: Decision[str] = field(metadata=feeds("pid"))
    error_log_file: Decision[str] = field(metadata=feeds("error_log"))
    error_log_level: Decision[str] = field(metadata=feeds("error_log level"))
    worker_shutdown_timeout: Decision[str] = field(metadata=feeds("worker_shutdown_timeout"))
    extra_main: Decision[tuple[str, ...]] | None = field(
        default=None, metadata=feeds("include (extra.main)", "words")
    )
    # events
    worker_connections: Decision[int] = field(metadata=feeds("worker_connections"))
    accept_mutex: Decision[str] = field(metadata=feeds("accept_mutex"))
    # http: responses, logs, I/O
    mime_types_file: Decision[str] = field(metadata=feeds("include (media types)"))
    mime_types: Decision[MimeTypes] = field(metadata=feeds("types", "types"))
    default_type: Decision[str] = field(metadata=feeds("default_type"))
    access_log_file: Decision[str] = field(metadata=feeds("access_log"))
    access_log_format: Decision[str] = field(metadata=feeds("access_log format"))
    log_formats: Decision[tuple[tuple[str, str, str], ...]] = field(
        metadata=feeds("log_format", "formats")
    )
    access_log_buffer: Decision[int] = field(metadata=feeds("access_log buffer", "size"))
    access_log_flush: Decision[str] = field(metadata=feeds("access_log flush"))
    server_tokens: Decision[str] = field(metadata=feeds("server_tokens"))
    sendfile: Decision[str] = field(metadata=feeds("sendfile"))
    sendfile_max_chunk: Decision[int] = field(metadata=feeds("sendfile_max_chunk", "size"))
    tcp_nopush: Decision[str] = field(metadata=feeds("tcp_nopush"))
    tcp_nodelay: Decision[str] = field(metadata=feeds("tcp_nodelay"))
    keepalive_timeout: Decision[str] = field(metadata=feeds("keepalive_timeout"))
    open_file_cache_max: Decision[int] | None = field(
        default=None, metadata=feeds("open_file_cache max")
    )
    open_file_cache_inactive: Decision[str] | None = field(
        default=None, metadata=feeds("open_file_cache inactive")
    )
    open_file_cache_valid: Decision[str] | None = field(
        default=None, metadata=feeds("open_file_cache_valid")
    )
    open_file_cache_min_uses: Decision[int] | None = field(
        default=None, metadata=feeds("open_file_cache_min_uses")
    )
    open_file_cache_errors: Decision[str] | None = field(
        default=None, metadata=feeds("open_file_cache_errors")
    )
    directio: Decision[int] | None = field(default=None, metadata=feeds("directio", "size"))
    directio_alignment: Decision[str] | None = field(
        default=None, metadata=feeds("directio_alignment")
    )
    output_buffers: Decision[int] | None = field(
        default=None, metadata=feeds("output_buffers size", "size")
    )
    output_buffer_count: Decision[int] | None = field(
        default=None, metadata=feeds("output_buffers number")
    )
    mp4_buffer_size: Decision[int] | None = field(
        default=None, metadata=feeds("mp4 mp4_buffer_size", "size")
    )
    mp4_max_buffer_size: Decision[int] | None = field(
        default=None, metadata=feeds("mp4_max_buffer_size", "size")
    )
    mp4_start_key_frame: Decision[bool] | None = field(
        default=None, metadata=feeds("mp4_start_key_frame")
    )
    # which disk a key lives on
    buckets: Decision[int] = field(metadata=feeds("split_clients buckets"))
    split_key: Decision[str] = field(metadata=feeds("split_clients key"))
    owners: tuple[str, ...]
    split: SplitTable
    unmapped_root: Decision[str] | None = field(
        default=None, metadata=feeds("map $tpgen_root default")
    )
    # cache: zones' RAM, proxy_cache policy
    keys_zone_budget_mb: Decision[int] | None = field(
        default=None, metadata=feeds("keys_zone RAM budget (all disks)", "mb")
    )
    origin_host_header: Decision[str] | None = field(
        default=None, metadata=feeds("proxy_set_header Host")
    )
    proxy_cache_key: Decision[str] | None = field(default=None, metadata=feeds("proxy_cache_key"))
    proxy_cache_valid: Decision[CacheValid] | None = field(
        default=None, metadata=feeds("proxy_cache_valid", "valid")
    )
    proxy_cache_min_uses: Decision[int] | None = field(
        default=None, metadata=feeds("proxy_cache_min_uses")
    )
    proxy_cache_lock: Decision[str] | None = field(default=None, metadata=feeds("proxy_cache_lock"))
    proxy_cache_lock_timeout: Decision[str] | None = field(
        default=None, metadata=feeds("proxy_cache_lock_timeout")
    )
    proxy_cache_lock_age: Decision[str] | None = field(
        default=None, metadata=feeds("proxy_cache_lock_age")
    )
    proxy_cache_revalidate: Decision[str] | None = field(
        default=None, metadata=feeds("proxy_cache_revalidate")
    )
    proxy_cache_background_update: Decision[str] | None = field(
        default=None, metadata=feeds("proxy_cache_background_update")
    )
    proxy_cache_use_stale: Decision[tuple[str, ...]] | None = field(
        default=None, metadata=feeds("proxy_cache_use_stale", "words")
    )
    proxy_cache_ignore_headers: Decision[tuple[str, ...]] | None = field(
        default=None, metadata=feeds("proxy_ignore_headers", "words")
    )
    proxy_cache_bypass: Decision[tuple[str, ...]] | None = field(
        default=None, metadata=feeds("proxy_cache_bypass proxy_no_cache", "words")
    )
    aio_write: Decision[str] | None = field(default=None, metadata=feeds("aio_write"))
    cache_headers: Decision[Headers] | None = field(
        default=None, metadata=feeds("add_header", "headers")
    )
    debug_header_values: Decision[Headers] | None = field(
        default=None, metadata=feeds("map $tpgen_trusted (debug headers)", "headers")
    )
    trusted_networks: Decision[tuple[str, ...]] | None = field(
        default=None, metadata=feeds("geo $tpgen_trusted", "words")
    )
    # byte ranges (plan/slice.py)
    slice_size: Decision[int] | None = field(default=None, metadata=feeds("slice", "size"))
    slice_range_header: Decision[str] | None = field(
        default=None, metadata=feeds("proxy_set_header Range")
    )
    # the origin of a cache node
    origin_servers: Decision[tuple[Upstream, ...]] | None = field(
        default=None, metadata=feeds("upstream tpgen_origin", "servers")
    )
    upstream_keepalive: Decision[int] | None = field(
        default=None, metadata=feeds("upstream tpgen_origin keepalive")
    )
    origin_name: Decision[str] | None = field(
        default=None, metadata=feeds("set $tpgen_origin (proxy_pass)")
    )
    origin_scheme: Decision[str] | None = field(default=None, metadata=feeds("proxy_pass scheme"))
    proxy_next_upstream: Decision[tuple[str, ...]] | None = field(
        default=None, metadata=feeds("proxy_next_upstream", "words")
    )
    proxy_next_upstream_tries: Decision[int] | None = field(
        default=None, metadata=feeds("proxy_next_upstream_tries")
    )
    proxy_connect_timeout: Decision[str] | None = field(
        default=None, metadata=feeds("proxy_connect_timeout")
    )
    proxy_send_timeout: Decision[str] | None = field(
        default=None, metadata=feeds("proxy_send_timeout")
    )
    proxy_read_timeout: Decision[str] | None = field(
        default=None, metadata=feeds("proxy_read_timeout")
    )
    proxy_next_upstream_timeout: Decision[str] | None = field(
        default=None, metadata=feeds("proxy_next_upstream_timeout")
    )
    proxy_ssl_name: Decision[str] | None = field(
        default=None, metadata=feeds("proxy_ssl_name proxy_ssl_server_name")
    )
    proxy_ssl_trusted_certificate: Decision[str] | None = field(
        default=None, metadata=feeds("proxy_ssl_trusted_certificate proxy_ssl_verify")
    )
    proxy_ssl_verify_depth: Decision[int] | None = field(
        default=None, metadata=feeds("proxy_ssl_verify_depth")
    )
    # DNS while nginx runs: the origin's name, the OCSP responders
    resolver_addresses: Decision[tuple[str, ...]] | None = field(
        default=None, metadata=feeds("resolver", "words")
    )
    extra_http: Decision[tuple[str, ...]] | None = field(
        default=None, metadata=feeds("include (extra.http)", "words")
    )
    # servers
    listens: tuple[ListenSocket, ...]
    reuseport: Decision[bool] = field(metadata=feeds("listen reuseport"))
    backlog: Decision[int] = field(metadata=feeds("listen backlog"))
    http2_directive: Decision[str] | None = field(default=None, metadata=feeds("http2"))
    hsts: Decision[str] | None = field(
        default=None, metadata=feeds("add_header Strict-Transport-Security")
    )
    alt_svc: Decision[str] | None = field(default=None, metadata=feeds("add_header Alt-Svc"))
    quic_retry: Decision[str] | None = field(default=None, metadata=feeds("quic_retry"))
    tls: TlsPolicy | None = None
    servers: tuple[ServerPlan, ...] = ()
    server_names_hash_bucket_size: Decision[int] | None = field(
        default=None, metadata=feeds("server_names_hash_bucket_size")
    )
    extra_server: Decision[tuple[str, ...]] | None = field(
        default=None, metadata=feeds("include (extra.server)", "words")
    )
    extra_location: Decision[tuple[str, ...]] | None = field(
        default=None, metadata=feeds("include (extra.location)", "words")
    )
    redirect_to: Decision[str] | None = field(
        default=None, metadata=feeds("redirect server return 301")
    )
    redirect_listens: tuple[ListenSocket, ...] = ()
    status_address: Decision[str] = field(metadata=feeds("status server listen"))
    status_location: Decision[str] = field(metadata=feeds("status server location"))
    status_allow: Decision[tuple[str, ...]] = field(metadata=feeds("status server allow", "words"))
    status_access_log: Decision[str] = field(metadata=feeds("status server access_log"))
    disks: tuple[DiskPlan, ...]
    # the node's kernel (applied by storage_disks, not in nginx.conf)
    somaxconn: Decision[int] = field(metadata=feeds("sysctl net.core.somaxconn"))
    file_max: Decision[int] = field(metadata=feeds("sysctl fs.file-max"))
    local_port_range: Decision[str] | None = field(
        default=None, metadata=feeds("sysctl net.ipv4.ip_local_port_range")
    )
    vfs_cache_pressure: Decision[int] | None = field(
        default=None, metadata=feeds("sysctl vm.vfs_cache_pressure")
    )
    notes: tuple[str, ...] = ()

    # The attributes the node side and the offline check read, as plain values.
    pid_path = _ValueOf[str]("pid_file")
    error_log = _ValueOf[str]("error_log_file")
    access_log = _ValueOf[str]("access_log_file")
    status_listen = _ValueOf[str]("status_address")

    @property
    def names_group(self) -> bool:
        """`user` names the group: the spec set one, or nginx's (the user's name) is wrong."""
        return self.group.overridden or self.group.value != self.user.value

    @property
    def listen(self) -> str:
        """The first address the node listens on (a health check's first URL)."""
        return self.listens[0].address

    @property
    def edge_headers(self) -> tuple[tuple[str, str], ...]:
        """The response headers of a TLS edge (HSTS, Alt-Svc), in the order they are written."""
        chosen = (("Strict-Transport-Security", self.hsts), ("Alt-Svc", self.alt_svc))
        return tuple((name, d.value) for name, d in chosen if d is not None)

    @property
    def extra_files(self) -> tuple[tuple[str, str], ...]:
        """(context, node path) of every include file of spec extra, in the spec's order."""
        chosen = (
            ("main", self.extra_main),
            ("http", self.extra_http),
            ("server", self.extra_server),
            ("location", self.extra_location),
        )
        return tuple((context, path) for context, d in chosen if d for path in d.value)

    @property
    def shadowed_by_tpgen(self) -> dict[str, dict[str, str]]:
        """Per extra context, the directives a block tpgen writes below it sets itself, so a
        snippet's own would not be inherited there (nginx inherits add_header and
        proxy_set_header only into a block that sets none), each with that block."""
        location = "tpgen's content location"
        in_location = (
            {"add_header": location, "proxy_set_header": location}
            if self.workload == "cache"
            else {}
        )
        in_server = {"add_header": "tpgen's content server"} if self.edge_headers else {}
        return {"http": {**in_location, **in_server}, "server": in_location}

    @property
    def server_blocks(self) -> tuple[ServerPlan, ...]:
        """The client-facing server blocks: one per certificate, or one plain server."""
        return self.servers or (PLAIN_SERVER,)

    @property
    def sysctls(self) -> tuple[Sysctl, ...]:
        """The kernel settings the node needs for this config, as the storage role sets them."""
        chosen = [
            ("net.core.somaxconn", self.somaxconn, True),
            ("fs.file-max", self.file_max, True),
            ("net.ipv4.ip_local_port_range", self.local_port_range, False),
            ("vm.vfs_cache_pressure", self.vfs_cache_pressure, False),
        ]
        return tuple(
            Sysctl(name, str(decision.value), at_least)
            for name, decision, at_least in chosen
            if decision is not None
        )

    @property
    def upstreams(self) -> tuple[Upstream, ...]:
        return self.origin_servers.value if self.origin_servers else ()

    @property
    def resolver(self) -> tuple[str, ...]:
        return self.resolver_addresses.value if self.resolver_addresses else ()

    @property
    def pooled_disks(self) -> tuple[DiskPlan, ...]:
        return tuple(d for d in self.disks if d.thread_pool is not None)

    @property
    def serving_disks(self) -> tuple[DiskPlan, ...]:
        """Disks that appear in the config (failed disks are gone)."""
        return tuple(d for d in self.disks if d.state != "failed")

    @property
    def bucket_disks(self) -> tuple[DiskPlan, ...]:
        return tuple(d for d in self.disks if d.state == "active")

    @property
    def draining_disks(self) -> tuple[DiskPlan, ...]:
        return tuple(d for d in self.disks if d.state == "draining")

    @property
    def fallback_disks(self) -> tuple[DiskPlan, ...]:
        """Draining disks nginx still reads, for files not yet on their new disk: a cache node
        refills from the origin instead."""
        return () if self.workload == "cache" else self.draining_disks

    @property
    def mixed_pools(self) -> bool:
        """Some bucket-owning disks have a pool and some do not: aio must be chosen per request."""
        pooled = {d.thread_pool is not None for d in self.bucket_disks}
        return len(pooled) == 2

    @property
    def all_pooled(self) -> bool:
        return all(d.thread_pool is not None for d in self.bucket_disks)

    @property
    def location_reads_through_pools(self) -> bool:
        """`location /` uses aio threads: every disk has a pool, or those without one are sent
        on to `@tpgen_direct`."""
        return self.all_pooled or self.mixed_pools
