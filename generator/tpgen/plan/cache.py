"""Cache zones on the disks, their keys zones within the RAM budget, and proxy_cache policy."""

from __future__ import annotations

from collections.abc import Sequence

from tpgen.errors import Problem, SpecError
from tpgen.plan.capacity import (
    headroom_percent,
    keys_budget_mb,
    keys_ram_percent,
    usable_bytes,
    zone_keys_mb,
)
from tpgen.plan.defaults import (
    CACHE_LEVELS,
    DEFAULT_INACTIVE,
    DEFAULT_OBJECT_SIZE,
    DISK_DIR,
    KEYS_PER_MB,
    MIN_FREE_FLOOR,
    MIN_FREE_PERCENT,
    USE_TEMP_PATH,
)
from tpgen.plan.housekeeping import zone_housekeeping
from tpgen.plan.slice import slice_size, stored_object_size
from tpgen.plan.types import CacheZone, Decision, DiskPlan
from tpgen.spec.model import Disk, NodeSpec
from tpgen.spec.units import human_size


def object_size(spec: NodeSpec) -> int:
    return spec.workload.avg_object_size or DEFAULT_OBJECT_SIZE[spec.workload.type]


def _max_size(spec: NodeSpec, disk: Disk) -> Decision[int]:
    return Decision(
        usable_bytes(spec, disk),
        f"{human_size(disk.size)} minus {headroom_percent(spec):g}% headroom for the filesystem "
        "and temp files",
        overridden=spec.tuning.headroom_percent is not None,
    )


def _min_free(spec: NodeSpec, disk: Disk) -> Decision[int]:
    min_free = spec.tuning.min_free_percent
    percent = min_free if min_free is not None else MIN_FREE_PERCENT
    return Decision(
        max(MIN_FREE_FLOOR, int(disk.size * percent / 100) >> 20 << 20),
        f"{percent:g}% of the disk: the cache manager evicts before the filesystem fills",
        overridden=min_free is not None,
    )


def _inactive(spec: NodeSpec) -> Decision[str]:
    if spec.workload.inactive:
        return Decision(
            spec.workload.inactive, "set in the spec (workload.inactive)", overridden=True
        )
    return Decision(
        DEFAULT_INACTIVE, "keep objects a week unless space runs out: max_size evicts first anyway"
    )


def cache_zone(spec: NodeSpec, disk: Disk) -> CacheZone | None:
    """A cache node's zone on a disk that stays in the config (draining ones keep theirs)."""
    if spec.workload.type != "cache" or disk.state == "failed":
        return None
    size = stored_object_size(spec, object_size(spec))
    max_size = _max_size(spec, disk)
    keys = max_size.value // size
    what = "slices" if size < object_size(spec) else "objects"
    keys_zone = Decision(
        zone_keys_mb(max_size.value, size),
        f"{keys:,} {what} of {human_size(size)} fit; "
        f"one MB of keys_zone holds about {KEYS_PER_MB:,} keys",
    )
    return CacheZone(
        name=f"cache_{disk.name}",
        path=f"{disk.mount}/{DISK_DIR['cache']}",
        levels=Decision(
            CACHE_LEVELS,
            "16 × 256 directories: at millions of objects each holds a few thousand files",
        ),
        keys_zone_mb=keys_zone,
        max_size=max_size,
        min_free=_min_free(spec, disk),
        inactive=_inactive(spec),
        use_temp_path=Decision(
            USE_TEMP_PATH,
            "a fill's temp file is written on its own disk, so storing it is a rename, not a "
            "copy across disks",
        ),
        **zone_housekeeping(spec, disk, keys, size),
    )


def keys_zone_budget(
    spec: NodeSpec, disks: Sequence[DiskPlan], source: str
) -> Decision[int] | None:
    """The keys zones' share of RAM; zones that need more are refused with the fixes."""
    if spec.workload.type != "cache":
        return None
    percent = spec.tuning.keys_zone_ram_percent
    ram_pct = keys_ram_percent(spec)
    budget = Decision(
        keys_budget_mb(spec),
        f"{ram_pct:g}% of {human_size(spec.node.memory)} RAM; the rest is page cache "
        "and connection buffers",
        overridden=percent is not None,
    )
    total = sum(d.cache.keys_zone_mb.value for d in disks if d.cache is not None)
    if total > budget.value:
        raise SpecError(
            [
                Problem(
                    ("workload", "avg_object_size"),
                    f"keys_zones need {total} MB but the RAM budget is {budget.value} MB "
                    f"({ram_pct:g}% of node.memory): "
                    + (
                        "raise workload.slice (one key per slice), add memory, raise "
                        if slice_size(spec) is not None
                        else "raise avg_object_size, add memory, raise "
                    )
                    + "tuning.headroom_percent, or raise tuning.keys_zone_ram_percent",
                    source,
                )
            ]
        )
    return budget
