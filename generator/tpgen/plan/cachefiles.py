"""Where a cache key's entry lives: the disk the plan picks, its zone directory, the zone's
levels and the slice size. The file inside the zone (md5 of the key, levels from its end) is
nginx's rule, computed on the node by tpgen.ops.purge, the one copy Ansible ships to nodes."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from tpgen.plan.buckets import disk_for_hash, murmur_hash2
from tpgen.plan.types import Plan


@dataclass(frozen=True)
class CacheTarget:
    """One cache key on a cache node, as the node side needs it to find the key's files."""

    key: str  # the evaluated proxy_cache_key without $slice_range
    disk: str
    dir: str  # the zone's directory (proxy_cache_path)
    levels: str  # "1:2"
    slice_bytes: int | None  # None where objects are not sliced

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def cache_target(plan: Plan, key: str) -> CacheTarget:
    """The disk the split picks for ``key`` (every slice of an object is on it: the split key
    leaves the range out), and that disk's zone. Raises ValueError off a cache node."""
    raw = key.encode("utf-8", "surrogateescape")  # nginx hashes bytes
    disk_name = disk_for_hash(plan.split, murmur_hash2(raw))
    disk = next(d for d in plan.disks if d.name == disk_name)
    if disk.cache is None:
        raise ValueError("only a cache node keeps cache files")
    return CacheTarget(
        key=key,
        disk=disk_name,
        dir=disk.cache.path,
        levels=disk.cache.levels.value,
        slice_bytes=plan.slice_size.value if plan.slice_size else None,
    )
