"""What a spec change does to the cache: which buckets, and so which keys, change disk."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tpgen.errors import Problem, SpecError
from tpgen.plan.buckets import moved_buckets
from tpgen.plan.defaults import DISK_DIR
from tpgen.plan.types import DiskPlan, Plan


@dataclass(frozen=True)
class Rehomed:
    """A disk that owns buckets before and after under one name, on another device or mount:
    its cached files stay on the device they were written to."""

    disk: str
    device: tuple[str, str]  # before, after (the same when only the mount changed)
    mount: tuple[str, str]
    buckets: int  # buckets it owns before and after

    @property
    def device_changed(self) -> bool:
        return self.device[0] != self.device[1]

    def as_dict(self) -> dict[str, object]:
        return {
            "disk": self.disk,
            "device": {"before": self.device[0], "after": self.device[1]},
            "mount": {"before": self.mount[0], "after": self.mount[1]},
            "buckets": self.buckets,
        }


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
    # disks whose name stays but whose device or mount changes: the map is by name, the files
    # are on the device, so a key that keeps its disk's name can still lose its files
    rehomed: tuple[Rehomed, ...] = ()
    # the share of keys whose files are not on the device nginx reads them from after the change
    files_elsewhere: float = 0.0

    @property
    def moved_fraction(self) -> float:
        if self.rehashed:
            return 1 - self.kept_by_chance
        return len(self.moved) / self.buckets

    @property
    def relocated(self) -> tuple[Rehomed, ...]:
        """The rehomed disks whose device changed: their keys miss their files."""
        return tuple(r for r in self.rehomed if r.device_changed)

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
            "rehomed": [r.as_dict() for r in self.rehomed],
            "relocated_buckets": sum(r.buckets for r in self.relocated),
            "files_elsewhere_fraction": round(self.files_elsewhere, 6),
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
        kept = _same_by_chance(old.owners, new.owners)
    return Remap(
        old.buckets.value,
        tuple(moved),
        tuple(sorted((a, b, n) for (a, b), n in flows.items())),
        sum(n for (a, b), n in flows.items() if a in survivors and b in survivors),
        rehashed,
        kept,
        _rehomed(old, new),
        _files_elsewhere(old, new, rehashed is not None),
    )


def _rehomed(old: Plan, new: Plan) -> tuple[Rehomed, ...]:
    before = {d.name: d for d in old.disks}
    kept = Counter(a for a, b in zip(old.owners, new.owners, strict=True) if a == b)
    found = []
    for disk in new.disks:
        was = before.get(disk.name)
        if was is None or not kept[disk.name]:
            continue
        if (was.device, was.mount) != (disk.device, disk.mount):
            where = (was.device, disk.device), (was.mount, disk.mount)
            found.append(Rehomed(disk.name, *where, kept[disk.name]))
    return tuple(found)


def _devices(plan: Plan) -> list[str]:
    by_name: dict[str, DiskPlan] = {d.name: d for d in plan.disks}
    return [by_name[name].device for name in plan.owners]


def _files_elsewhere(old: Plan, new: Plan, rehashed: bool) -> float:
    """The share of keys whose new disk's device is not the one their files are on."""
    before, after = _devices(old), _devices(new)
    if rehashed:
        # every key draws a new bucket: it finds its files by chance alone
        return 1 - _same_by_chance(before, after)
    return sum(a != b for a, b in zip(before, after, strict=True)) / len(before)


def _same_by_chance(before: Sequence[str], after: Sequence[str]) -> float:
    """The share of keys that two independent draws over these bucket maps send to the same
    place (a disk, a device): what a new split key keeps."""
    held, wanted = Counter(before), Counter(after)
    return sum(held[place] * wanted[place] for place in held) / len(before) ** 2


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
    return "\n".join([_moves(remap), *_rehomed_lines(remap)])


def _moves(remap: Remap) -> str:
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


def _names(disks: tuple[Rehomed, ...]) -> str:
    names = [r.disk for r in disks]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _rehomed_lines(remap: Remap) -> list[str]:
    """A warning for disks whose name stays on another device, a note for a mount that moves."""
    lines = []
    relocated = remap.relocated
    if relocated:
        buckets = sum(r.buckets for r in relocated)
        changes = "; ".join(f"{r.disk}: {r.device[0]} -> {r.device[1]}" for r in relocated)
        lines.append(
            f"warning: device changed under {_names(relocated)} ({changes}): each keeps its name "
            f"and its buckets but not its files, which stay on the old device: {buckets} buckets "
            f"({buckets / remap.buckets:.1%} of keys) are a miss on a cache node until fetched "
            "again, and missing on an origin or vod node until copied; "
            f"{remap.files_elsewhere:.1%} of keys in all are not on the device they are read "
            "from (unless both paths name one device, e.g. /dev/sdb and its /dev/disk/by-id/ "
            "link). Keep each device under its disk's name (a new device takes a failed disk's "
            "entry: see docs/operations.md)"
        )
    moved = tuple(r for r in remap.rehomed if not r.device_changed)
    if moved:
        changes = "; ".join(f"{r.disk}: {r.mount[0]} -> {r.mount[1]}" for r in moved)
        lines.append(
            f"note: mount changed under {_names(moved)} ({changes}): each keeps its device, and "
            "its files go with it: no key misses once the device is mounted at the new path "
            "(storage_disks mounts it there by UUID; unmount the old path and drop its fstab line)"
        )
    return lines
