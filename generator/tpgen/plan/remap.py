"""What a spec change does to the cache: which buckets, and so which keys, change disk."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from tpgen.errors import Problem, SpecError
from tpgen.plan.buckets import moved_buckets
from tpgen.plan.defaults import DISK_DIR
from tpgen.plan.types import Plan


@dataclass(frozen=True)
class Remap:
    buckets: int
    moved: tuple[int, ...]
    flows: tuple[tuple[str, str, int], ...]  # (from disk, to disk, buckets)
    # moves between two disks that own buckets before and after: the list was reordered, an
    # entry deleted from the middle or a weight changed; a state change or an append never does
    between_survivors: int = 0
    # the split key before and after, where it changed: every key lands in a new bucket, and
    # the share of keys that stays on its disk is what two independent draws share
    rehashed: tuple[str, str] | None = None
    kept_by_chance: float = 0.0

    @property
    def moved_fraction(self) -> float:
        if self.rehashed:
            return 1 - self.kept_by_chance
        return len(self.moved) / self.buckets

    def as_dict(self) -> dict[str, object]:
        return {
            "buckets": self.buckets,
            "moved_buckets": len(self.moved),
            "moved_fraction": round(self.moved_fraction, 6),
            "flows": [{"from": a, "to": b, "buckets": n} for a, b, n in self.flows],
            "between_survivors": self.between_survivors,
            "moved": list(self.moved),
            "split_key": {"before": self.rehashed[0], "after": self.rehashed[1]}
            if self.rehashed
            else None,
        }


def _a(word: str) -> str:
    return f"an {word}" if word[:1] in "aeiou" else f"a {word}"


def compare(old: Plan, new: Plan) -> Remap:
    _comparable(old, new)
    moved = moved_buckets(old.owners, new.owners)
    flows = Counter((old.owners[i], new.owners[i]) for i in moved)
    old_active = {d.name for d in old.bucket_disks}
    new_active = {d.name for d in new.bucket_disks}
    survivors = old_active & new_active
    rehashed = None
    kept = 0.0
    if old.split_key.value != new.split_key.value:
        rehashed = (old.split_key.value, new.split_key.value)
        before, after = Counter(old.owners), Counter(new.owners)
        kept = sum(before[disk] * after[disk] for disk in before) / len(old.owners) ** 2
    return Remap(
        old.buckets.value,
        tuple(moved),
        tuple(sorted((a, b, n) for (a, b), n in flows.items())),
        sum(n for (a, b), n in flows.items() if a in survivors and b in survivors),
        rehashed,
        kept,
    )


def _comparable(old: Plan, new: Plan) -> None:
    """Refuse two plans whose disks or buckets have nothing in common to compare."""
    if DISK_DIR[old.workload] != DISK_DIR[new.workload]:
        raise SpecError(
            [
                Problem(
                    ("workload", "type"),
                    f"{old.workload} before, {new.workload} after: {_a(new.workload)} node "
                    f"keeps nothing of {_a(old.workload)} node's disks; compare two specs of one "
                    "workload",
                    new.source,
                )
            ]
        )
    if old.buckets.value != new.buckets.value:
        raise SpecError(
            [
                Problem(
                    ("tuning", "buckets"),
                    f"{old.buckets.value} buckets before, {new.buckets.value} after: "
                    "changing the bucket "
                    "count re-maps every key; keep it fixed for the life of a node",
                    new.source,
                )
            ]
        )


def format_remap(remap: Remap) -> str:
    if remap.rehashed:
        before, after = remap.rehashed
        return (
            f"warning: the split key changed ({before} -> {after}): every key hashes to a new "
            f"bucket, {remap.moved_fraction:.1%} of keys change disk (those that stay do so by "
            "chance), and on a cache node whose cache_key changed every cached object is a miss "
            "until it is fetched again; keep cache_key fixed for the life of a node"
        )
    lines = [
        f"moved: {len(remap.moved)} of {remap.buckets} buckets "
        f"({remap.moved_fraction:.1%} of keys change disk)"
    ]
    lines += [f"  {a} -> {b}: {n} buckets" for a, b, n in remap.flows]
    if remap.between_survivors:
        lines.append(
            f"warning: {remap.between_survivors} buckets "
            f"({remap.between_survivors / remap.buckets:.1%} of keys) move between disks that "
            "stay: the disk list was reordered, an entry was deleted, or a weight changed. "
            "Append new disks at the end and keep failed or drained disks listed "
            "(state: failed) to move only the changed disk's keys"
        )
    return "\n".join(lines)
