"""Thread pools: which disks get one, how many threads, and the node's thread budget."""

from __future__ import annotations

import math

from tpgen.errors import Problem, problem
from tpgen.plan.cache import object_size
from tpgen.plan.defaults import (
    HDD_INFLIGHT,
    HDD_MAX_QUEUE,
    HDD_THREADS_BECAUSE,
    HDD_WORKER_THREADS,
    INFLIGHT_MEMORY_PERCENT,
    POOL_MEMORY_BECAUSE,
    THREAD_BUDGET,
)
from tpgen.plan.io import sendfile_max_chunk
from tpgen.plan.reads import needs_pool, pool_count, readable
from tpgen.plan.types import Decision, ThreadPool, pick
from tpgen.plan.workers import worker_count
from tpgen.spec.model import Disk, NodeSpec
from tpgen.spec.units import human_size


def pool_threads(spec: NodeSpec) -> Decision[int]:
    """Per worker: its share of each HDD's budget of reads in flight, across all workers, within
    what the node's memory holds while every pool thread is busy."""
    workers = worker_count(spec)
    pools = max(1, pool_count(spec))
    chunk = sendfile_max_chunk(spec).value
    by_memory = spec.node.memory * INFLIGHT_MEMORY_PERCENT // 100 // (pools * chunk)
    inflight = max(1, min(HDD_INFLIGHT, by_memory))
    share = max(HDD_WORKER_THREADS, math.ceil(inflight / workers))
    because = (
        f"{inflight} reads in flight per HDD across all workers (≤ {HDD_INFLIGHT}, and "
        f"{pools} disks × {inflight} × {human_size(chunk)} ≤ {INFLIGHT_MEMORY_PERCENT}% of "
        f"memory), ÷ {workers} workers, at least {HDD_WORKER_THREADS}: " + HDD_THREADS_BECAUSE
    )
    pinned = min(chunk, object_size(spec))
    fitting = spec.node.memory // (workers * pools * pinned)
    floor = cores_floor(spec, workers)
    if fitting < share and floor < share:
        share = max(floor, fitting)
        because = (
            f"{fitting} a worker fit memory ({human_size(spec.node.memory)}) with {workers} "
            f"workers × {pools} pools × {human_size(pinned)} a busy thread (a sendfile chunk, or "
            f"an answer if smaller); at least {floor}: {HDD_WORKER_THREADS} a core shared by the "
            f"{workers} loops of {spec.node.cores} cores: " + POOL_MEMORY_BECAUSE
        )
    return pick(spec.tuning.threads_per_disk, share, because)


def cores_floor(spec: NodeSpec, workers: int) -> int:
    """The fewest threads a worker's pool gets: HDD_WORKER_THREADS, shared by the event loops
    the plan added beyond one a core (they exist to keep a loop free of open(), not to read
    more); loops the operator set each keep the whole floor."""
    if spec.tuning.worker_processes is not None or workers <= spec.node.cores:
        return HDD_WORKER_THREADS
    return math.ceil(HDD_WORKER_THREADS * spec.node.cores / workers)


def thread_limit(
    spec: NodeSpec, threads: Decision[int], pools: int
) -> tuple[Decision[int], list[Problem]]:
    """Every worker starts every pool: the node's threads stay within THREAD_BUDGET."""
    workers = worker_count(spec)
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


def thread_pool(spec: NodeSpec, disk: Disk, threads: Decision[int]) -> ThreadPool | None:
    if not needs_pool(spec, disk):
        return None
    queue = pick(
        spec.tuning.max_queue,
        HDD_MAX_QUEUE,
        "a deep queue absorbs bursts; overflowing it fails requests (error log: queue overflow)",
    )
    return ThreadPool(f"pool_{disk.name}", threads, queue)


def aio(spec: NodeSpec, disk: Disk) -> Decision[str]:
    """How nginx reads the disk: through its pool, or on the event loop (sendfile)."""
    if not readable(spec, disk):
        return Decision(
            "off",
            "failed: gone from the config"
            if disk.state == "failed"
            else "draining on a cache node: no key maps to it, nothing reads it",
        )
    if disk.thread_pool is False:
        return Decision("off", "thread_pool: false in the spec")
    if disk.media != "hdd" and disk.thread_pool is None:
        return Decision(
            "off",
            f"{disk.media}: reads rarely block long enough to pay for a thread hand-off; "
            "sendfile serves them (set thread_pool: true to force a pool)",
        )
    return Decision(
        f"threads=pool_{disk.name}",
        "forced by thread_pool: true"
        if disk.thread_pool
        else "HDD: a cold read blocks for a seek; its own pool keeps one slow disk from "
        "queueing work for the others",
    )
