"""What a busy pool thread holds: the threads of each HDD's pool and the sendfile chunk each
sends, fitted to the node's memory together."""

from __future__ import annotations

import math
from dataclasses import dataclass

from tpgen.plan.cache import object_size
from tpgen.plan.defaults import (
    CHUNK_MEMORY_BECAUSE,
    HDD_INFLIGHT,
    HDD_THREADS_BECAUSE,
    HDD_WORKER_THREADS,
    INFLIGHT_MEMORY_PERCENT,
    POOL_MEMORY_BECAUSE,
    SENDFILE_LOOP_BECAUSE,
    SENDFILE_MAX_CHUNK,
    SENDFILE_MAX_CHUNK_POOLED,
    SENDFILE_POOLED_BECAUSE,
    TRANSFER_MEMORY_PERCENT,
)
from tpgen.plan.reads import needs_pool, pool_count, readable
from tpgen.plan.types import Decision, pick
from tpgen.plan.workers import worker_count
from tpgen.spec.model import NodeSpec
from tpgen.spec.units import human_size


@dataclass(frozen=True)
class Transfers:
    threads: Decision[int]  # a worker's threads in each HDD's pool
    chunk: Decision[int]  # sendfile_max_chunk


def pool_threads(spec: NodeSpec) -> Decision[int]:
    return transfers(spec).threads


def sendfile_max_chunk(spec: NodeSpec) -> Decision[int]:
    return transfers(spec).chunk


def transfers(spec: NodeSpec) -> Transfers:
    """Per worker: its share of each HDD's budget of reads in flight, across all workers, within
    what the node's memory holds while every pool thread is busy; where the cores' floor keeps
    the threads above that, each sends a smaller chunk instead."""
    workers = worker_count(spec)
    pools = max(1, pool_count(spec))
    chunk = first_chunk(spec)
    by_memory = spec.node.memory * INFLIGHT_MEMORY_PERCENT // 100 // (pools * chunk.value)
    inflight = max(1, min(HDD_INFLIGHT, by_memory))
    share = max(HDD_WORKER_THREADS, math.ceil(inflight / workers))
    because = (
        f"{inflight} reads in flight per HDD across all workers (≤ {HDD_INFLIGHT}, and "
        f"{pools} disks × {inflight} × {human_size(chunk.value)} ≤ {INFLIGHT_MEMORY_PERCENT}% of "
        f"memory), ÷ {workers} workers, at least {HDD_WORKER_THREADS}: " + HDD_THREADS_BECAUSE
    )
    size = object_size(spec)
    pinned = min(chunk.value, size)  # what a busy thread holds: a chunk, or a smaller answer
    budget = spec.node.memory * TRANSFER_MEMORY_PERCENT // 100
    fitting = budget // (workers * pools * pinned)
    floor = cores_floor(spec, workers)
    if not (fitting < share and floor < share):
        return Transfers(pick(spec.tuning.threads_per_disk, share, because), chunk)
    share = max(floor, fitting)
    threads = pick(
        spec.tuning.threads_per_disk,
        share,
        f"{fitting} a worker fit {TRANSFER_MEMORY_PERCENT}% of memory "
        f"({human_size(spec.node.memory)}) with {workers} workers × {pools} pools × "
        f"{human_size(pinned)} a busy thread (a sendfile chunk, or an answer if "
        f"smaller); at least {floor}: {HDD_WORKER_THREADS} a core shared by the {workers} loops "
        f"of {spec.node.cores} cores: " + POOL_MEMORY_BECAUSE,
    )
    if chunk.overridden:
        return Transfers(threads, chunk)
    held = "the threads set in tuning keep" if threads.overridden else "the cores' floor keeps"
    busy = threads.value * workers * pools
    return Transfers(threads, _fitted_chunk(chunk, busy, size, budget, held))


def first_chunk(spec: NodeSpec) -> Decision[int]:
    """2m where every sendfile() runs in a pool, the article's 512k where one runs on the loop."""
    read = [disk for disk in spec.disks if readable(spec, disk)]
    chosen = spec.tuning.sendfile_max_chunk
    if read and all(needs_pool(spec, disk) for disk in read):
        return pick(chosen, SENDFILE_MAX_CHUNK_POOLED, SENDFILE_POOLED_BECAUSE)
    return pick(chosen, SENDFILE_MAX_CHUNK, SENDFILE_LOOP_BECAUSE)


def _fitted_chunk(
    chunk: Decision[int], busy: int, size: int, budget: int, held: str
) -> Decision[int]:
    """The largest halving of `chunk`, down to the article's 512k, whose `busy` transfers fit
    `budget`; where none does, the largest that holds the least."""
    candidates = []
    value = chunk.value
    while value >= SENDFILE_MAX_CHUNK:
        candidates.append(value)
        value //= 2
    pinned = {value: min(value, size) for value in candidates}  # what a busy thread holds
    fitting = [value for value in candidates if busy * pinned[value] <= budget]
    if fitting:
        chosen = fitting[0]
        why = f"≤ {TRANSFER_MEMORY_PERCENT}% of memory"
    else:
        chosen = next(value for value in candidates if pinned[value] == pinned[candidates[-1]])
        why = f"the least a chunk of at least {human_size(SENDFILE_MAX_CHUNK)} holds"
    if chosen == chunk.value:
        return chunk
    return Decision(
        chosen,
        f"{busy} busy pool threads × {human_size(pinned[chosen])} = "
        f"{human_size(busy * pinned[chosen])}, {why}: {held} the pools from "
        "fitting the memory with fewer threads, so each sends less at a time: "
        + CHUNK_MEMORY_BECAUSE,
    )


def cores_floor(spec: NodeSpec, workers: int) -> int:
    """The fewest threads a worker's pool gets: HDD_WORKER_THREADS, shared by the event loops
    the plan added beyond one a core (they exist to keep a loop free of open(), not to read
    more); loops the operator set each keep the whole floor."""
    if spec.tuning.worker_processes is not None or workers <= spec.node.cores:
        return HDD_WORKER_THREADS
    return math.ceil(HDD_WORKER_THREADS * spec.node.cores / workers)
