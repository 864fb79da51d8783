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


def read_ahead_disks(spec: NodeSpec) -> tuple[Disk, ...]:
    """The HDDs nginx reads: the disks whose read-ahead the plan decides."""
    return tuple(d for d in spec.disks if d.media == "hdd" and readable(spec, d))


def reads_in_flight(spec: NodeSpec, disk: Disk, threads: int) -> int:
    """How many reads nginx can have on `disk` at once: every worker's pool threads, or one
    sendfile() per event loop where the disk has no pool."""
    workers = worker_count(spec)
    return threads * workers if needs_pool(spec, disk) else workers


def read_ahead_kb(spec: NodeSpec, disk: Disk, threads: int) -> Decision[int] | None:
    """At least this many KiB for an HDD nginx reads (None for the others): as much of 1 MiB as
    the windows of every read in flight on every HDD fit in a share of memory."""
    hdds = read_ahead_disks(spec)
    if disk not in hdds:
        return None
    reads = sum(reads_in_flight(spec, d, threads) for d in hdds)
    budget = spec.node.memory * READ_AHEAD_MEMORY_PERCENT // 100
    fitting = budget // (READ_AHEAD_WINDOWS * reads) // KIB
    stepped = fitting // READ_AHEAD_STEP_KIB * READ_AHEAD_STEP_KIB
    value = min(READ_AHEAD_MAX_KIB, max(READ_AHEAD_MIN_KIB, stepped))
    return Decision(
        value,
        f"at least (a disk set higher keeps its value): {reads:,} reads in flight on the "
        f"node's {len(hdds)} HDD{'s' * (len(hdds) != 1)} ({reads_in_flight(spec, disk, threads):,} "
        f"on this one), {READ_AHEAD_WINDOWS} windows each within {READ_AHEAD_MEMORY_PERCENT}% of "
        f"memory ({human_size(budget)}): {fitting:,} KiB each, in steps of "
        f"{READ_AHEAD_STEP_KIB} KiB from the kernel's default {READ_AHEAD_MIN_KIB} to "
        f"{READ_AHEAD_MAX_KIB} KiB: " + READ_AHEAD_BECAUSE,
    )
