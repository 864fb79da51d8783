"""Which disks nginx reads, and which of them get a thread pool."""

from __future__ import annotations

from tpgen.spec.model import Disk, NodeSpec


def readable(spec: NodeSpec, disk: Disk) -> bool:
    """Active disks, and draining ones where nginx still reads them as a fallback."""
    return disk.state == "active" or (disk.state == "draining" and spec.workload.type != "cache")


def needs_pool(spec: NodeSpec, disk: Disk) -> bool:
    wanted = disk.thread_pool if disk.thread_pool is not None else disk.media == "hdd"
    return readable(spec, disk) and wanted


def pool_count(spec: NodeSpec) -> int:
    return sum(needs_pool(spec, disk) for disk in spec.disks)
