"""Each disk of the spec as the config uses it: its buckets, pool, aio and cache zone."""

from __future__ import annotations

from tpgen.plan.cache import cache_zone
from tpgen.plan.defaults import DISK_DIR
from tpgen.plan.pools import aio, thread_pool
from tpgen.plan.readahead import gets_read_ahead, read_ahead_floor
from tpgen.plan.split import disk_buckets, disk_weight
from tpgen.plan.types import Decision, DiskPlan
from tpgen.spec.model import NodeSpec


def disk_plans(
    spec: NodeSpec, threads: Decision[int], owners: tuple[str, ...]
) -> tuple[DiskPlan, ...]:
    data = DISK_DIR[spec.workload.type]
    floor = read_ahead_floor(spec, threads.value)  # one figure for the node's HDDs
    return tuple(
        DiskPlan(
            name=disk.name,
            device=disk.device,
            mount=disk.mount,
            dir=f"{disk.mount}/{data}",
            media=disk.media,
            state=disk.state,
            filesystem=disk.filesystem,
            weight=disk_weight(disk),
            buckets=disk_buckets(spec, disk, owners),
            thread_pool=thread_pool(spec, disk, threads),
            aio=aio(spec, disk),
            cache=cache_zone(spec, disk),
            read_ahead_kb=floor if gets_read_ahead(spec, disk) else None,
        )
        for disk in spec.disks
    )
