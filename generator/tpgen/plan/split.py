"""Which disk a key lives on: the bucket count, the key, and the bucket owners."""

from __future__ import annotations

from typing import Any

from tpgen.plan.buckets import assign_buckets, split_table
from tpgen.plan.defaults import DEFAULT_BUCKETS, DEFAULT_CACHE_KEY, ORIGIN_KEY, UNMAPPED_ROOT
from tpgen.plan.types import Decision, pick
from tpgen.spec.model import Disk, NodeSpec


def disk_weight(disk: Disk) -> float:
    """The spec's weight, else the disk's size in GiB."""
    return disk.weight if disk.weight is not None else disk.size / (1 << 30)


def cache_key(spec: NodeSpec) -> Decision[str]:
    """A cache node's proxy_cache_key."""
    if spec.workload.cache_key is not None:
        return Decision(
            spec.workload.cache_key, "set in the spec (workload.cache_key)", overridden=True
        )
    return Decision(
        DEFAULT_CACHE_KEY,
        "scheme, Host and URI: one object per URL the clients ask for (nginx's own default "
        "names the upstream, $proxy_host, instead of the Host)",
    )


def _split_key(spec: NodeSpec) -> Decision[str]:
    if spec.workload.type != "cache":
        return Decision(ORIGIN_KEY, "the file's path: a file lives on the disk its URI picks")
    key = cache_key(spec)
    return Decision(
        key.value,
        "the cache key itself: an object always lives on the disk its key picks",
        overridden=key.overridden,
    )


def split_fields(spec: NodeSpec) -> dict[str, Any]:
    buckets = pick(
        spec.tuning.buckets,
        DEFAULT_BUCKETS,
        "split_clients' full resolution (0.01 %): at 96 disks one bucket is ~1 % of a disk's "
        "share, so every disk stays within 1.01 × its weighted fair share (at 1000 buckets one "
        "bucket is ~10 % of it)",
    )
    owners = assign_buckets(
        [(d.name, disk_weight(d)) for d in spec.disks],
        buckets.value,
        active={d.name for d in spec.disks if d.state == "active"},
    )
    fields: dict[str, Any] = {
        "buckets": buckets,
        "owners": owners,
        "split": split_table(owners),
        "split_key": _split_key(spec),
    }
    if spec.workload.type != "cache":  # files are served from the disk's root
        fields["unmapped_root"] = Decision(
            UNMAPPED_ROOT,
            "split_clients always names a disk, so only a bug reaches the default: a root that "
            "does not exist answers 404 and logs the path",
        )
    return fields


def disk_buckets(spec: NodeSpec, disk: Disk, owners: tuple[str, ...]) -> Decision[int]:
    weight = disk_weight(disk)
    count = owners.count(disk.name)  # only active disks own buckets
    if disk.state == "active":
        source = "its weight in the spec" if disk.weight is not None else "its size in GiB"
        return Decision(
            count,
            f"its share of the {len(owners):,} buckets by weight {weight:g} ({source})",
        )
    if disk.state == "draining" and spec.workload.type != "cache":
        return Decision(
            count,
            "draining: no key maps to it; a file not yet on its new disk is still read from it",
        )
    return Decision(count, f"{disk.state}: no key maps to it")
