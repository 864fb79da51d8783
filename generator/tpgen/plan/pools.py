"""Thread pools: which disks get one, their queue and the node's thread budget (the threads a
pool gets: plan/transfers.py)."""

from __future__ import annotations

from tpgen.errors import Problem, problem
from tpgen.plan.defaults import HDD_MAX_QUEUE, THREAD_BUDGET
from tpgen.plan.reads import needs_pool, readable
from tpgen.plan.types import Decision, ThreadPool, pick
from tpgen.plan.workers import worker_count
from tpgen.spec.model import Disk, NodeSpec


def thread_limit(
    spec: NodeSpec, threads: Decision[int], pools: int
) -> tuple[Decision[int], list[Problem]]:
    """Every worker starts every pool: the node's threads stay within THREAD_BUDGET."""
    workers = worker_count(spec)
    if not pools or threads.value * pools * workers <= THREAD_BUDGET:
        return threads, []
    fitting = THREAD_BUDGET // (workers * pools)
    if fitting < 1:  # only where the spec sets the workers: the plan's own count fits
        return threads, [
            problem(
                ("tuning", "worker_processes"),
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
