"""Worker processes, their connections and open files, and the node limits those must fit."""

from __future__ import annotations

from typing import Any

from tpgen.errors import Problem, problem
from tpgen.plan.defaults import (
    ACCEPT_MUTEX,
    CONNECTION_DEFAULT_RAM_PERCENT,
    CONNECTION_RAM_PERCENT,
    CONNECTION_SLOT_BYTES,
    CONNECTIONS_BECAUSE,
    DEFAULT_CONNECTIONS,
    EXTRA_FDS,
    EXTRA_WORKERS_BECAUSE,
    HDD_MIN_EVENT_LOOPS,
    HDD_WORKER_THREADS,
    MAX_WORKERS,
    MIN_WORKER_CONNECTIONS,
    NR_OPEN,
    THREAD_BUDGET,
)
from tpgen.plan.reads import pool_count
from tpgen.plan.types import Decision, pick
from tpgen.spec.model import NodeSpec
from tpgen.spec.units import human_size


def worker_count(spec: NodeSpec) -> int:
    """Worker processes nginx will start; ``auto`` starts one per CPU, which node.cores is."""
    workers = spec.tuning.worker_processes
    if isinstance(workers, int):
        return workers
    if workers == "auto":
        return spec.node.cores
    return default_workers(spec)


def default_workers(spec: NodeSpec) -> int:
    """One a core and the HDDs' extra loops, but no more than the node's thread budget holds at
    one thread a pool: every worker starts every pool."""
    workers = min(spec.node.cores + extra_workers(spec), MAX_WORKERS)
    pools = pool_count(spec)
    if pools and workers * pools > THREAD_BUDGET:
        return max(1, THREAD_BUDGET // pools)
    return workers


def extra_workers(spec: NodeSpec) -> int:
    """Event loops beyond one a core, so a node with pooled HDDs runs at least
    HDD_MIN_EVENT_LOOPS: one more per pooled HDD, at most one per core, and no more than the
    node's thread budget allows at the least a worker's pool gets (HDD_WORKER_THREADS)."""
    hdds = pool_count(spec)
    if not hdds:
        return 0
    fitting = THREAD_BUDGET // (hdds * HDD_WORKER_THREADS) - spec.node.cores
    missing = HDD_MIN_EVENT_LOOPS - spec.node.cores
    return max(0, min(hdds, spec.node.cores, fitting, missing))


def worker_processes(spec: NodeSpec) -> Decision[int | str]:
    extra = extra_workers(spec)
    workers = default_workers(spec)
    if workers == MAX_WORKERS < spec.node.cores + extra:
        because = (
            f"fewer than the {spec.node.cores} cores: {_PROCESS_LIMIT}, so a reload can spawn "
            f"them all at {MAX_WORKERS} workers"
        )
    elif workers < spec.node.cores + extra:
        pools = pool_count(spec)
        because = (
            f"fewer than the {spec.node.cores} cores: every worker starts all {pools} thread "
            f"pools, and the node's budget of {THREAD_BUDGET:,} threads holds {workers} workers "
            "at one thread a pool (thread_pool: false on some disks leaves room for more)"
        )
    elif extra:
        because = (
            f"one event loop per core ({spec.node.cores}) and {extra} more for the HDDs: "
            + EXTRA_WORKERS_BECAUSE
        )
    elif pool_count(spec) and spec.node.cores >= HDD_MIN_EVENT_LOOPS:
        because = (
            f"one event loop per core; {spec.node.cores} loops already make it unlikely that "
            f"every one waits in an HDD's open() at once (at least {HDD_MIN_EVENT_LOOPS} "
            "needed; more only share the same CPUs)"
        )
    else:
        because = "one event loop per core; the thread pools take the blocking reads"
    return pick(spec.tuning.worker_processes, workers, because)


def connections(spec: NodeSpec) -> Decision[int]:
    """The workload's default worker_connections, lowered where all workers' slots would take
    more than CONNECTION_DEFAULT_RAM_PERCENT of memory (many workers, little RAM)."""
    workload = spec.workload.type
    because = CONNECTIONS_BECAUSE[workload]
    default = DEFAULT_CONNECTIONS[workload]
    workers = worker_count(spec)
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
    return pick(spec.tuning.worker_connections, default, f"{workload}: {because}")


def rlimit_nofile(
    spec: NodeSpec, slots: Decision[int], open_files: Decision[int] | None
) -> Decision[int]:
    extra = (open_files.value if open_files else 0) + EXTRA_FDS
    return pick(
        spec.tuning.worker_rlimit_nofile,
        2 * slots.value + extra,
        "2 × worker_connections (client + upstream or file) + open_file_cache + "
        f"{EXTRA_FDS} for logs and listeners",
    )


def event_fields(spec: NodeSpec) -> dict[str, Any]:
    """The Plan fields of the main context and events block that limits do not touch."""
    return {
        "worker_processes": worker_processes(spec),
        "accept_mutex": Decision(
            ACCEPT_MUTEX,
            "every worker accepts at once; no lock hand-off latency (nginx's default since 1.11.3)",
        ),
    }


_PROCESS_LIMIT = (
    "nginx keeps at most 1,024 processes, and a reload runs the old workers beside the new ones, "
    "each with a cache manager and loader"
)


def worker_limit(spec: NodeSpec) -> list[Problem]:
    """A worker count set in the spec (or auto on a node of more cores) past what a reload
    can spawn."""
    workers = worker_count(spec)
    if workers <= MAX_WORKERS:
        return []
    return [
        problem(
            ("tuning", "worker_processes"),
            f"{workers} workers: {_PROCESS_LIMIT}; set at most {MAX_WORKERS}",
        )
    ]


def nofile_limit(spec: NodeSpec, slots: Decision[int], nofile: Decision[int]) -> list[Problem]:
    problems = []
    if nofile.overridden and nofile.value < 2 * slots.value:
        problems.append(
            problem(
                ("tuning", "worker_rlimit_nofile"),
                f"{nofile.value} is below 2 × worker_connections = {2 * slots.value}: "
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
    return [_derived_nofile_problem(spec, slots, nofile)]


def _derived_nofile_problem(spec: NodeSpec, slots: Decision[int], nofile: Decision[int]) -> Problem:
    others = nofile.value - 2 * slots.value  # open_file_cache + EXTRA_FDS, as derived
    if slots.overridden:
        where = ("tuning", "worker_connections")
        fix = f"lower worker_connections to at most {max(0, NR_OPEN - others) // 2:,}"
        if spec.tuning.open_file_cache_max:
            fix += " or lower open_file_cache_max"
    else:
        where = ("tuning", "open_file_cache_max")
        fix = f"lower open_file_cache_max to at most {NR_OPEN - 2 * slots.value - EXTRA_FDS:,}"
    return problem(
        where,
        f"needs worker_rlimit_nofile = 2 × {slots.value:,} connections + "
        f"{others:,} (open_file_cache, logs, listeners) = {nofile.value:,}, above the "
        f"kernel's fs.nr_open ({NR_OPEN:,}): {fix}",
    )


def slot_limit(spec: NodeSpec, slots: Decision[int]) -> list[Problem]:
    workers = worker_count(spec)
    resident = workers * slots.value * CONNECTION_SLOT_BYTES
    budget = spec.node.memory * CONNECTION_RAM_PERCENT // 100
    if resident <= budget:
        return []
    # ≥ 257 for any valid spec (256MiB, 510 workers): lowering connections always fits.
    most = budget // (workers * CONNECTION_SLOT_BYTES)
    fix = f"set tuning.worker_connections to at most {most:,}"
    return [
        problem(
            ("tuning", "worker_connections") if slots.overridden else ("node", "memory"),
            f"{workers} workers × {slots.value:,} worker_connections allocate "
            f"{human_size(resident)} of connection slots at start ({CONNECTION_SLOT_BYTES} bytes "
            f"each), above {CONNECTION_RAM_PERCENT}% of node.memory ({human_size(budget)}): "
            f"{fix}, or add memory",
        )
    ]
