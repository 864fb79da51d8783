"""Each HDD's read-ahead floor: applied by the storage_disks role (blockdev and a udev rule),
never written into nginx.conf."""

from __future__ import annotations

from tpgen.plan.defaults import (
    READ_AHEAD_BECAUSE,
    READ_AHEAD_MAX_KIB,
    READ_AHEAD_MEMORY_PERCENT,
    READ_AHEAD_MIN_KIB,
    READ_AHEAD_STEP_KIB,
    READ_AHEAD_WINDOWS,
)
from tpgen.plan.reads import needs_pool, readable
from tpgen.plan.types import Decision
from tpgen.plan.workers import worker_count
from tpgen.spec.model import KIB, Disk, NodeSpec
from tpgen.spec.units import human_size


def gets_read_ahead(spec: NodeSpec, disk: Disk) -> bool:
    """An HDD nginx reads: a disk whose read-ahead the plan decides."""
    return disk.media == "hdd" and readable(spec, disk)


def reads_in_flight(spec: NodeSpec, disk: Disk, threads: int) -> int:
    """How many reads nginx can have on `disk` at once: every worker's pool threads, or one
    sendfile() per event loop where the disk has no pool."""
    workers = worker_count(spec)
    return threads * workers if needs_pool(spec, disk) else workers


def read_ahead_floor(spec: NodeSpec, threads: int) -> Decision[int] | None:
    """At least this many KiB for every HDD nginx reads (None without one): as much of 1 MiB as
    the windows of every read in flight on those HDDs fit in a share of memory."""
    hdds = [d for d in spec.disks if gets_read_ahead(spec, d)]
    if not hdds:
        return None
    reads = sum(reads_in_flight(spec, d, threads) for d in hdds)
    budget = spec.node.memory * READ_AHEAD_MEMORY_PERCENT // 100
    fitting = budget // (READ_AHEAD_WINDOWS * reads) // KIB
    stepped = fitting // READ_AHEAD_STEP_KIB * READ_AHEAD_STEP_KIB
    value = min(READ_AHEAD_MAX_KIB, max(READ_AHEAD_MIN_KIB, stepped))
    return Decision(
        value,
        f"at least (a disk set higher keeps its value): {reads:,} reads in flight on the "
        f"node's {len(hdds)} HDD{'s' * (len(hdds) != 1)}, {READ_AHEAD_WINDOWS} windows each "
        f"within {READ_AHEAD_MEMORY_PERCENT}% of memory ({human_size(budget)}): {fitting:,} KiB "
        f"each, in steps of {READ_AHEAD_STEP_KIB} KiB from the kernel's default "
        f"{READ_AHEAD_MIN_KIB} to {READ_AHEAD_MAX_KIB} KiB: " + READ_AHEAD_BECAUSE,
    )
