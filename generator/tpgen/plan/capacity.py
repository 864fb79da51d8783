"""What a cache node's disks and RAM hold: usable bytes a disk, keys a zone, the keys-zone RAM
budget. The numbers cache.py writes as Decisions, and slice.py sizes an automatic slice by."""

from __future__ import annotations

import math

from tpgen.plan.defaults import HEADROOM_PERCENT, KEYS_PER_MB, KEYS_ZONE_RAM_PERCENT
from tpgen.spec.model import Disk, NodeSpec


def headroom_percent(spec: NodeSpec) -> float:
    headroom = spec.tuning.headroom_percent
    return headroom if headroom is not None else HEADROOM_PERCENT


def usable_bytes(spec: NodeSpec, disk: Disk) -> int:
    """A zone's max_size: the disk minus the headroom."""
    return int(disk.size * (100 - headroom_percent(spec)) / 100)


def zone_keys_mb(usable: int, stored: int) -> int:
    """The keys zone (MB) for ``usable`` bytes of files of ``stored`` bytes each."""
    return max(1, math.ceil(usable // stored / KEYS_PER_MB))


def keys_ram_percent(spec: NodeSpec) -> float:
    percent = spec.tuning.keys_zone_ram_percent
    return percent if percent is not None else KEYS_ZONE_RAM_PERCENT


def keys_budget_mb(spec: NodeSpec) -> int:
    return int(spec.node.memory * keys_ram_percent(spec) / 100) >> 20


def keys_needed_mb(spec: NodeSpec, stored: int) -> int:
    """All zones' keys together, for files of ``stored`` bytes."""
    return sum(
        zone_keys_mb(usable_bytes(spec, d), stored) for d in spec.disks if d.state != "failed"
    )
