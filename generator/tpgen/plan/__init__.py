"""The rules: every number of the config, derived from the spec, each with the reason it has.

Pure functions only: no I/O, no templates. `tpgen explain` prints the reasons.
"""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar

from tpgen.errors import Problem, SpecError, problem
from tpgen.plan.buckets import SPLIT_STEPS, SplitTable, assign_buckets, split_table
from tpgen.spec.model import Disk, NodeSpec, is_ip_host
from tpgen.spec.units import human_size, nginx_size
from tpgen.spec.validate import pool_scope_problems

T = TypeVar("T")

# Limits of a real Linux node with a stock kernel; check_node_limits holds every derived and
# every overridden value within them.
# Every worker starts every pool, and a reload runs the old and the new workers at once: the
# node's pool threads stay within a quarter of a default pid_max of 32768, so a reload needs half.
THREAD_BUDGET = 8192
# fs.nr_open: setrlimit(RLIMIT_NOFILE) above it fails, so worker_rlimit_nofile cannot pass it.
NR_OPEN = 1_048_576
# Each worker allocates a connection and two events per worker_connections slot at start
# (measured: 442 bytes a slot, nginx 1.22 x86_64); all workers' slots must fit this share of RAM.
CONNECTION_SLOT_BYTES = 512
CONNECTION_RAM_PERCENT = 25
# The derived worker_connections keeps all workers' slots within this smaller share (the reason
# and its figures: plan._connections), in steps of 1024, never below MIN_WORKER_CONNECTIONS.
CONNECTION_DEFAULT_RAM_PERCENT = 2
MIN_WORKER_CONNECTIONS = 1024

KEYS_PER_MB = 8000  # nginx docs: one megabyte of keys_zone stores about 8 thousand keys
# nginx's full split_clients resolution: at 96 disks a fair share is ~104 buckets (4 TB among
# 16 TB disks ~45), so ±1 bucket is ≤ 1-2 %; at 1000 buckets it is ~10 %.
DEFAULT_BUCKETS = SPLIT_STEPS
# Reads one HDD may have in flight across ALL workers: each pool thread holds at most one, and
# every worker starts every pool, so the per-worker count is this budget's share, not a constant
# that multiplies with the cores. A cold transfer in flight pins about one sendfile chunk of page
# cache (read-ahead, socket buffer): all of them together stay within a share of memory, or they
# evict the hot files, inodes and dentries that keep open() off the disk (bench, fast-disk: 64
# threads a worker 35-72 hot req/s, 16: 91-273).
HDD_INFLIGHT = 128
INFLIGHT_MEMORY_PERCENT = 12
HDD_THREADS_BECAUSE = (
    "with aio threads every send, even of a cached file, queues in the pool FIFO, so a pool "
    "must hold its worker's cold reads on the disk (bench, warm inodes: hot p99 4.5 s at 16, "
    "146 ms at 64 a worker); beyond the budget reads only queue in the kernel, where open() on "
    "the event loop waits behind them for the inode (bench, 3 disks, 256 MiB, cold inodes: 64 a "
    "worker 0.34x the article's hot req/s, 16 1.14x; 1 GiB, warm inodes: 31 a worker 3.0x); "
    "at least 16 because nginx spreads connections unevenly over workers (12 workers at 8 a "
    "worker: hot p99 12x the article's, at 16: 0.88x)"
)
# nginx does not spread connections evenly over workers (accept_mutex off: whoever wakes first
# accepts), so one worker may hold many times its 1/workers share of a disk's cold transfers: its
# pool never gets fewer than the article's 16 (bench, 12 workers: 8 a worker, hot p99 2.4-2.9 s;
# 16, 0.18-0.20 s).
HDD_WORKER_THREADS = 16
HDD_MAX_QUEUE = 65536
SENDFILE_MAX_CHUNK = 512 << 10
HEADROOM_PERCENT = 10.0
MIN_FREE_PERCENT = 1.0
KEYS_ZONE_RAM_PERCENT = 20.0
DIRECTIO_VOD = 4 << 20
OUTPUT_BUFFER_VOD = 1 << 20
OPEN_FILE_CACHE_MAX = 65536
DEFAULT_OBJECT_SIZE = {"cache": 1 << 20, "origin": 1 << 20, "vod": 64 << 20}
DEFAULT_CONNECTIONS = {"cache": 16384, "origin": 8192, "vod": 4096}
DEFAULT_CACHE_KEY = "$scheme$host$request_uri"
ORIGIN_KEY = "$uri"
DEFAULT_INACTIVE = "7d"
NGINX_USER = "www-data"
RUN_DIR = "/run"
LOG_DIR = "/var/log/nginx"
# The root map's default: split_clients always names a disk, so only a bug reaches it; a root
# that does not exist answers 404 and logs the path, where a real disk would serve silently.
UNMAPPED_ROOT = "/nonexistent/tpgen-unmapped-disk"
# The offline check reserves no RAM for the keys zones: nginx -t maps every zone at its size.
CHECK_KEYS_ZONE_MB = 1


@dataclass(frozen=True)
class Decision(Generic[T]):
    """A derived value and the rule that produced it."""

    value: T
    because: str
    overridden: bool = False


@dataclass(frozen=True)
class ThreadPool:
    name: str
    threads: Decision[int]
    max_queue: Decision[int]


@dataclass(frozen=True)
class CacheZone:
    name: str
    path: str
    keys_zone_mb: Decision[int]
    max_size: Decision[int]
    min_free: Decision[int]
    inactive: Decision[str]
    levels: str = "1:2"

    @property
    def max_size_nginx(self) -> str:
        return nginx_size(self.max_size.value)

    @property
    def min_free_nginx(self) -> str:
        return nginx_size(self.min_free.value)


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
    thread_pool: ThreadPool | None
    pool_because: str
    cache: CacheZone | None
    bucket_count: int


@dataclass(frozen=True)
class Upstream:
    host: str
    port: int


@dataclass(frozen=True)
class Plan:
    source: str
    node_name: str
    workload: str
    user: Decision[str]
    pid_path: str
    error_log: str
    access_log: str
    worker_processes: Decision[int | str]
    worker_connections: Decision[int]
    worker_rlimit_nofile: Decision[int]
    sendfile_max_chunk: Decision[int]
    keepalive_timeout: Decision[str]
    listen: str
    status_listen: str
    disks: tuple[DiskPlan, ...]
    buckets: Decision[int]
    owners: tuple[str, ...]
    split: SplitTable
    split_key: Decision[str]
    upstreams: tuple[Upstream, ...]
    directio: Decision[int] | None
    directio_alignment: Decision[str] | None
    output_buffers: Decision[int] | None
    open_file_cache_max: Decision[int] | None
    keys_zone_budget_mb: Decision[int] | None
    notes: tuple[str, ...] = field(default=())
    origin_name: Decision[str] | None = None
    resolver: tuple[str, ...] = ()
    unmapped_root: str = UNMAPPED_ROOT

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
    def mixed_pools(self) -> bool:
        """Some bucket-owning disks have a pool and some do not: aio must be chosen per request."""
        pooled = {d.thread_pool is not None for d in self.bucket_disks}
        return len(pooled) == 2

    @property
    def all_pooled(self) -> bool:
        return all(d.thread_pool is not None for d in self.bucket_disks)


def _pick(override: T | None, default: T, because: str) -> Decision[T]:
    if override is not None:
        return Decision(override, "set in the spec (tuning)", overridden=True)
    return Decision(default, because)


def _readable(spec: NodeSpec, disk: Disk) -> bool:
    """Active disks, and draining ones where nginx still reads them as a fallback."""
    return disk.state == "active" or (disk.state == "draining" and spec.workload.type != "cache")


def _needs_pool(spec: NodeSpec, disk: Disk) -> bool:
    wanted = disk.thread_pool if disk.thread_pool is not None else disk.media == "hdd"
    return _readable(spec, disk) and wanted


def _pool_threads(spec: NodeSpec) -> Decision[int]:
    """Per worker: its share of each HDD's budget of reads in flight, across all workers."""
    if spec.tuning.threads_per_disk is not None:
        return Decision(spec.tuning.threads_per_disk, "set in the spec (tuning)", overridden=True)
    workers = _workers(spec)
    pools = max(1, sum(_needs_pool(spec, disk) for disk in spec.disks))
    chunk = spec.tuning.sendfile_max_chunk or SENDFILE_MAX_CHUNK
    by_memory = spec.node.memory * INFLIGHT_MEMORY_PERCENT // 100 // (pools * chunk)
    inflight = max(1, min(HDD_INFLIGHT, by_memory))
    share = max(HDD_WORKER_THREADS, math.ceil(inflight / workers))
    return Decision(
        share,
        f"{inflight} reads in flight per HDD across all workers (≤ {HDD_INFLIGHT}, and "
        f"{pools} disks × {inflight} × {human_size(chunk)} ≤ {INFLIGHT_MEMORY_PERCENT}% of "
        f"memory), ÷ {workers} workers, at least {HDD_WORKER_THREADS}: " + HDD_THREADS_BECAUSE,
    )


def _connections(spec: NodeSpec) -> Decision[int]:
    """The workload's default worker_connections, lowered where all workers' slots would take
    more than CONNECTION_DEFAULT_RAM_PERCENT of memory (many workers, little RAM)."""
    workload = spec.workload.type
    because = {
        "cache": "many short client and upstream connections",
        "origin": "a client connection each, files opened from the disks",
        "vod": "long-lived large transfers, fewer at a time",
    }[workload]
    default = DEFAULT_CONNECTIONS[workload]
    workers = _workers(spec)
    budget = spec.node.memory * CONNECTION_DEFAULT_RAM_PERCENT // 100
    fitting = budget // (workers * CONNECTION_SLOT_BYTES) // 1024 * 1024
    if fitting < default:
        slots = human_size(workers * max(fitting, MIN_WORKER_CONNECTIONS) * CONNECTION_SLOT_BYTES)
        because += (
            f"; lowered from {default:,}: {workers} workers' slots ({slots}, "
            f"{CONNECTION_SLOT_BYTES} bytes each, resident from start) stay within "
            f"{CONNECTION_DEFAULT_RAM_PERCENT}% of memory, at least {MIN_WORKER_CONNECTIONS:,} a "
            "worker, so the page cache keeps hot files and inodes (bench, 12 workers, 512 MiB, "
            "cold inodes: 8,192 a worker hot p99 2.0x the article's per-disk layout, 1,024 0.53x)"
        )
        default = max(fitting, MIN_WORKER_CONNECTIONS)
    return _pick(spec.tuning.worker_connections, default, f"{workload}: {because}")


def _workers(spec: NodeSpec) -> int:
    """Worker processes nginx will start; ``auto`` starts one per CPU, which node.cores is."""
    workers = spec.tuning.worker_processes
    return workers if isinstance(workers, int) else spec.node.cores


def _thread_limit(
    spec: NodeSpec, threads: Decision[int], pools: int
) -> tuple[Decision[int], list[Problem]]:
    workers = _workers(spec)
    if not pools or threads.value * pools * workers <= THREAD_BUDGET:
        return threads, []
    fitting = THREAD_BUDGET // (workers * pools)
    if fitting < 1:
        where = (
            ("tuning", "worker_processes") if spec.tuning.worker_processes else ("node", "cores")
        )
        return threads, [
            problem(
                where,
                f"{workers} workers × {pools} thread pools need {workers * pools:,} threads even "
                f"at 1 thread a pool, above the node's budget of {THREAD_BUDGET:,}: set "
                f"tuning.worker_processes to at most {THREAD_BUDGET // pools}, or thread_pool: "
                "false on some disks",
            )
        ]
    if threads.overridden:
        return threads, [
            problem(
                ("tuning", "threads_per_disk"),
                f"{threads.value} threads × {pools} pools × {workers} workers = "
                f"{threads.value * pools * workers:,} threads, above the node's budget of "
                f"{THREAD_BUDGET:,}: lower threads_per_disk to at most {fitting}",
            )
        ]
    return Decision(
        fitting,
        f"{workers} workers × {pools} pools share the node's {THREAD_BUDGET:,} threads "
        f"(each worker starts every pool): {fitting} a pool",
    ), []


def _nofile_limit(
    spec: NodeSpec, connections: Decision[int], nofile: Decision[int]
) -> list[Problem]:
    problems = []
    if nofile.overridden and nofile.value < 2 * connections.value:
        problems.append(
            problem(
                ("tuning", "worker_rlimit_nofile"),
                f"{nofile.value} is below 2 × worker_connections = {2 * connections.value}: "
                "a proxied connection needs two descriptors; raise it or remove it",
            )
        )
    if nofile.value <= NR_OPEN:
        return problems
    if nofile.overridden:
        return [
            *problems,
            problem(
                ("tuning", "worker_rlimit_nofile"),
                f"{nofile.value:,} is above the kernel's fs.nr_open ({NR_OPEN:,}): nginx "
                f"cannot raise its open-file limit that far; lower it to at most {NR_OPEN:,}",
            ),
        ]
    others = nofile.value - 2 * connections.value  # open_file_cache + 64, as derived
    if connections.overridden:
        where = ("tuning", "worker_connections")
        fix = f"lower worker_connections to at most {max(0, NR_OPEN - others) // 2:,}"
        if spec.tuning.open_file_cache_max:
            fix += " or lower open_file_cache_max"
    else:
        where = ("tuning", "open_file_cache_max")
        fix = f"lower open_file_cache_max to at most {NR_OPEN - 2 * connections.value - 64:,}"
    return [
        problem(
            where,
            f"needs worker_rlimit_nofile = 2 × {connections.value:,} connections + "
            f"{others:,} (open_file_cache, logs, listeners) = {nofile.value:,}, above the "
            f"kernel's fs.nr_open ({NR_OPEN:,}): {fix}",
        )
    ]


def _slot_limit(spec: NodeSpec, connections: Decision[int]) -> list[Problem]:
    workers = _workers(spec)
    slots = workers * connections.value * CONNECTION_SLOT_BYTES
    budget = spec.node.memory * CONNECTION_RAM_PERCENT // 100
    if slots <= budget:
        return []
    # ≥ 128 for any valid spec (256MiB, 1024 workers): lowering connections always fits.
    most = budget // (workers * CONNECTION_SLOT_BYTES)
    fix = f"set tuning.worker_connections to at most {most:,}"
    return [
        problem(
            ("tuning", "worker_connections") if connections.overridden else ("node", "memory"),
            f"{workers} workers × {connections.value:,} worker_connections allocate "
            f"{human_size(slots)} of connection slots at start ({CONNECTION_SLOT_BYTES} bytes "
            f"each), above {CONNECTION_RAM_PERCENT}% of node.memory ({human_size(budget)}): "
            f"{fix}, or add memory",
        )
    ]


def check_node_limits(
    spec: NodeSpec,
    threads: Decision[int],
    pools: int,
    connections: Decision[int],
    nofile: Decision[int],
    source: str,
) -> Decision[int]:
    """Hold the plan within a real node's limits, whatever computed or overrode the values.

    Returns the threads per pool (a derived count shrinks to the budget); anything else past a
    limit is a SpecError with the numbers and the fix.
    """
    threads, problems = _thread_limit(spec, threads, pools)
    problems += _nofile_limit(spec, connections, nofile)
    problems += _slot_limit(spec, connections)
    if problems:
        raise SpecError(replace(p, file=source) for p in problems)
    return threads


def _thread_pool(
    spec: NodeSpec, disk: Disk, threads: Decision[int]
) -> tuple[ThreadPool | None, str]:
    tuning = spec.tuning
    if not _readable(spec, disk):
        return None, (
            "failed: gone from the config"
            if disk.state == "failed"
            else "draining on a cache node: no key maps to it, nothing reads it"
        )
    if disk.thread_pool is False:
        return None, "thread_pool: false in the spec"
    if disk.media != "hdd" and disk.thread_pool is None:
        return None, (
            f"{disk.media}: reads rarely block long enough to pay for a thread hand-off; "
            "sendfile serves them (set thread_pool: true to force a pool)"
        )
    queue = _pick(
        tuning.max_queue,
        HDD_MAX_QUEUE,
        "a deep queue absorbs bursts; overflowing it fails requests (error log: queue overflow)",
    )
    return ThreadPool(f"pool_{disk.name}", threads, queue), (
        "forced by thread_pool: true"
        if disk.thread_pool
        else "HDD: a cold read blocks for a seek; its own pool keeps one slow disk from "
        "queueing work for the others"
    )


def _cache_zone(spec: NodeSpec, disk: Disk, object_size: int) -> CacheZone:
    tuning = spec.tuning
    headroom = tuning.headroom_percent if tuning.headroom_percent is not None else HEADROOM_PERCENT
    max_size_bytes = int(disk.size * (100 - headroom) / 100)
    max_size = Decision(
        max_size_bytes,
        f"{human_size(disk.size)} minus {headroom:g}% headroom for the filesystem and temp files",
        overridden=tuning.headroom_percent is not None,
    )
    min_free_pct = (
        tuning.min_free_percent if tuning.min_free_percent is not None else MIN_FREE_PERCENT
    )
    min_free = Decision(
        max(1 << 20, int(disk.size * min_free_pct / 100) >> 20 << 20),
        f"{min_free_pct:g}% of the disk: the cache manager evicts before the filesystem fills",
        overridden=tuning.min_free_percent is not None,
    )
    keys = max_size_bytes // object_size
    keys_zone = Decision(
        max(1, math.ceil(keys / KEYS_PER_MB)),
        f"{keys:,} objects of {human_size(object_size)} fit; "
        f"one MB of keys_zone holds about {KEYS_PER_MB:,} keys",
    )
    inactive = Decision(
        spec.workload.inactive or DEFAULT_INACTIVE,
        "set in the spec (workload.inactive)"
        if spec.workload.inactive
        else "keep objects a week unless space runs out: max_size evicts first anyway",
        overridden=spec.workload.inactive is not None,
    )
    return CacheZone(
        f"cache_{disk.name}", f"{disk.mount}/cache", keys_zone, max_size, min_free, inactive
    )


def _disk_weight(disk: Disk) -> float:
    return disk.weight if disk.weight is not None else disk.size / (1 << 30)


def _format_listen(address: str, port: int) -> str:
    ip = ipaddress.ip_address(address)
    return f"[{address}]:{port}" if ip.version == 6 else f"{address}:{port}"


def _upstream(text: str) -> Upstream:
    host, _, port = text.rpartition(":")
    return Upstream(host, int(port))


def _resolver(address: str) -> str:
    return f"[{address}]" if ipaddress.ip_address(address).version == 6 else address


def _origin_name(upstreams: list[str], resolver: list[str]) -> Decision[str] | None:
    """With a resolver, a host-name origin goes through a variable: nginx resolves it while it
    runs. Without one, names stay in the upstream group, resolved at start (docs/spec.md)."""
    if not resolver or len(upstreams) != 1 or is_ip_host(upstreams[0].rpartition(":")[0]):
        return None
    return Decision(
        upstreams[0],
        "a host name in an upstream block is resolved once, at start; through a variable "
        "and workload.resolver nginx follows the name's DNS records (their TTL) while it runs",
    )


def make_plan(spec: NodeSpec, source: str = "<spec>") -> Plan:
    """Apply every rule of DESIGN §4 to a validated spec."""
    tuning = spec.tuning
    workload = spec.workload.type
    object_size = spec.workload.avg_object_size or DEFAULT_OBJECT_SIZE[workload]

    buckets = _pick(
        tuning.buckets,
        DEFAULT_BUCKETS,
        "split_clients' full resolution (0.01 %): at 96 disks one bucket is ~1 % of a disk's "
        "share, so every disk stays within 1.01 × its weighted fair share (at 1000 buckets one "
        "bucket is ~10 % of it)",
    )
    owners = assign_buckets(
        [(d.name, _disk_weight(d)) for d in spec.disks],
        buckets.value,
        active={d.name for d in spec.disks if d.state == "active"},
    )

    connections = _connections(spec)
    open_files = None
    if workload in ("origin", "vod"):
        open_files = _pick(
            tuning.open_file_cache_max,
            OPEN_FILE_CACHE_MAX,
            "descriptors of hot files stay open: no open()/stat() on the event loop",
        )
    extra_fds = (open_files.value if open_files else 0) + 64
    nofile = _pick(
        tuning.worker_rlimit_nofile,
        2 * connections.value + extra_fds,
        "2 × worker_connections (client + upstream or file) + open_file_cache + 64 for logs "
        "and listeners",
    )
    pools = sum(_needs_pool(spec, disk) for disk in spec.disks)
    problems = pool_scope_problems(spec, pools)
    if problems:
        raise SpecError(replace(p, file=source) for p in problems)
    threads = check_node_limits(spec, _pool_threads(spec), pools, connections, nofile, source)
    disks = []
    for disk in spec.disks:
        pool, pool_because = _thread_pool(spec, disk, threads)
        cache = (
            _cache_zone(spec, disk, object_size)
            if workload == "cache" and disk.state != "failed"
            else None
        )
        disks.append(
            DiskPlan(
                name=disk.name,
                device=disk.device,
                mount=disk.mount,
                dir=f"{disk.mount}/{'cache' if workload == 'cache' else 'data'}",
                media=disk.media,
                state=disk.state,
                filesystem=disk.filesystem,
                weight=_disk_weight(disk),
                thread_pool=pool,
                pool_because=pool_because,
                cache=cache,
                bucket_count=owners.count(disk.name),
            )
        )

    keys_zone_budget = None
    if workload == "cache":
        ram_pct = (
            tuning.keys_zone_ram_percent
            if tuning.keys_zone_ram_percent is not None
            else KEYS_ZONE_RAM_PERCENT
        )
        keys_zone_budget = Decision(
            int(spec.node.memory * ram_pct / 100) >> 20,
            f"{ram_pct:g}% of {human_size(spec.node.memory)} RAM; the rest is page cache "
            "and connection buffers",
            overridden=tuning.keys_zone_ram_percent is not None,
        )
        total = sum(d.cache.keys_zone_mb.value for d in disks if d.cache is not None)
        if total > keys_zone_budget.value:
            raise SpecError(
                [
                    Problem(
                        ("workload", "avg_object_size"),
                        f"keys_zones need {total} MB but the RAM budget is "
                        f"{keys_zone_budget.value} MB "
                        f"({ram_pct:g}% of node.memory): raise avg_object_size, add memory, raise "
                        "tuning.headroom_percent, or raise tuning.keys_zone_ram_percent",
                        source,
                    )
                ]
            )

    processes: Decision[int | str] = Decision(
        spec.node.cores,
        "one event loop per core; the thread pools take the blocking reads",
    )
    if tuning.worker_processes is not None:
        processes = Decision(tuning.worker_processes, "set in the spec (tuning)", overridden=True)

    directio = alignment = output_buffers = None
    if workload == "vod":
        directio = _pick(
            tuning.directio,
            DIRECTIO_VOD,
            "media files above 4 MiB bypass the page cache and are read through the pools",
        )
        fs = {d.filesystem for d in spec.disks if d.state != "failed"}
        alignment = Decision(
            "4k" if "xfs" in fs else "512",
            "xfs needs 4k-aligned direct I/O" if "xfs" in fs else "ext4 accepts 512-byte alignment",
        )
        output_buffers = _pick(
            tuning.output_buffers,
            OUTPUT_BUFFER_VOD,
            "directio reads go through output_buffers: 1 MiB reads keep an HDD streaming "
            "instead of seeking for every 32 KiB",
        )

    if workload == "cache":
        split_key = Decision(
            spec.workload.cache_key or DEFAULT_CACHE_KEY,
            "the cache key itself: an object always lives on the disk its key picks",
            overridden=spec.workload.cache_key is not None,
        )
    else:
        split_key = Decision(ORIGIN_KEY, "the file's path: a file lives on the disk its URI picks")

    return Plan(
        source=source,
        node_name=spec.node.name,
        workload=workload,
        user=_pick(tuning.user, NGINX_USER, "Debian's nginx user"),
        pid_path=f"{RUN_DIR}/nginx.pid",
        error_log=f"{LOG_DIR}/error.log",
        access_log=f"{LOG_DIR}/access.log",
        worker_processes=processes,
        worker_connections=connections,
        worker_rlimit_nofile=nofile,
        sendfile_max_chunk=_pick(
            tuning.sendfile_max_chunk,
            SENDFILE_MAX_CHUNK,
            "one sendfile() call moves at most 512k, so a fast client cannot hog a worker",
        ),
        keepalive_timeout=_pick(tuning.keepalive_timeout, "65s", "nginx's default, explicit"),
        listen=_format_listen(spec.listen.address, spec.listen.port),
        status_listen=_format_listen(spec.status.address, spec.status.port),
        disks=tuple(disks),
        buckets=buckets,
        owners=owners,
        split=split_table(owners),
        split_key=split_key,
        upstreams=tuple(_upstream(u) for u in spec.workload.upstreams),
        origin_name=_origin_name(spec.workload.upstreams, spec.workload.resolver),
        resolver=tuple(_resolver(a) for a in spec.workload.resolver),
        directio=directio,
        directio_alignment=alignment,
        output_buffers=output_buffers,
        open_file_cache_max=open_files,
        keys_zone_budget_mb=keys_zone_budget,
    )


def rebased(plan: Plan, prefix: str) -> Plan:
    """The same plan with every filesystem path under ``prefix`` and every keys zone at 1 MB,
    so that any machine with nginx can run ``nginx -t`` on it: the node's disks and RAM are
    not needed. The rendered text keeps the same lines and directives."""

    def move(path: str) -> str:
        return prefix.rstrip("/") + path

    def zone(cache: CacheZone) -> CacheZone:
        return replace(
            cache,
            path=move(cache.path),
            keys_zone_mb=replace(cache.keys_zone_mb, value=CHECK_KEYS_ZONE_MB),
        )

    disks = tuple(
        replace(
            d,
            mount=move(d.mount),
            dir=move(d.dir),
            cache=zone(d.cache) if d.cache else None,
        )
        for d in plan.disks
    )
    notes = [*plan.notes, f"paths moved under {prefix} for the offline check"]
    # nginx -t resolves the names of an upstream group; the controller may not resolve the
    # node's names. Their syntax is checked by the model, so the swap hides no bad address.
    upstreams = tuple(
        u if is_ip_host(u.host) else Upstream("127.0.0.1", u.port) for u in plan.upstreams
    )
    if upstreams != plan.upstreams and plan.origin_name is None:
        notes.append("upstream host names replaced by 127.0.0.1 for the offline check")
    if any(d.cache for d in disks):
        notes.append(
            f"keys zones shrunk to {CHECK_KEYS_ZONE_MB} MB each for the offline check: "
            "nginx -t maps every zone, and the node's RAM is not the checking machine's"
        )
    return replace(
        plan,
        pid_path=move(plan.pid_path),
        error_log=move(plan.error_log),
        access_log=move(plan.access_log),
        disks=disks,
        upstreams=upstreams,
        notes=tuple(notes),
    )
