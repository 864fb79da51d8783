"""`python -m bench balance`: how even tpgen's bucket map is, and what a disk change moves.

No nginx, no root: the map is pure Python. For N = 2..96 disks, equal weights and a 4/8/16 TB
mix, it prints the busiest disk's share ÷ its weighted fair share, the split_clients parts, and
for removing (fail/drain) or appending one disk the keys moved ÷ that disk's fair share and the
keys moved between two disks that both stay; then what editing the list costs, and the
rendezvous map tpgen used before, at 1000 and 10,000 buckets, for comparison.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from collections.abc import Callable, Sequence

from tpgen.api import (
    SPLIT_STEPS,
    BucketMap,
    build_map,
    iter_maps,
    split_parts,
    split_table,
)

SIZES = (2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 48, 64, 96)
TB_MIX = (4.0, 8.0, 16.0)
Disks = list[tuple[str, float]]


def node(count: int, mixed: bool) -> Disks:
    return [(f"d{i}", TB_MIX[i % 3] if mixed else 1.0) for i in range(1, count + 1)]


def busiest_over_fair(owners: Sequence[str], disks: Disks) -> float:
    counts = Counter(owners)
    total = sum(w for _, w in disks)
    buckets = len(owners)
    return max(counts[name] / (buckets * w / total) for name, w in disks)


def parts(owners: Sequence[str]) -> int:
    return len(split_parts(owners)) if SPLIT_STEPS % len(owners) == 0 else 0


def table_shape(owners: Sequence[str]) -> str:
    """Parts in the rendered table (regions) and how many nginx scans per request on average."""
    table = split_table(owners)
    regions = f"{len(table.regions)}r" if table.regions else "1"
    return f"{table.part_count:5} {regions:>4} {table.mean_scanned:6.1f}"


def _survivor_moves(before: Sequence[str], after: Sequence[str], stay: set[str]) -> int:
    return sum(1 for a, b in zip(before, after, strict=True) if a != b and a in stay and b in stay)


def _removals(bucket_map: BucketMap, disks: Disks) -> tuple[float, int, float]:
    """Worst moved ÷ fair share, keys moved between survivors, worst balance after it."""
    names = {name for name, _ in disks}
    total = sum(w for _, w in disks)
    before = bucket_map.owners()
    buckets = len(before)
    worst_moved = worst_after = 0.0
    cross = 0
    for name, weight in disks:
        after = bucket_map.owners(names - {name})
        moved = sum(1 for a, b in zip(before, after, strict=True) if a != b)
        worst_moved = max(worst_moved, moved / (buckets * weight / total))
        cross += _survivor_moves(before, after, names - {name})
        rest = [(n, w) for n, w in disks if n != name]
        worst_after = max(worst_after, busiest_over_fair(after, rest))
    return worst_moved, cross, worst_after


def balance_rows(log: Callable[[str], None], buckets: int = SPLIT_STEPS) -> bool:
    """The main table; True when every goal holds."""
    ok = True
    log(
        f"tpgen bucket map, {buckets} buckets (goals: share ≤ 1.02 × fair; a change moves "
        "≤ 1.05 × the disk's fair share, 0 between survivors)"
    )
    log(
        "  weights    N  busiest÷fair  parts blocks scanned  remove:moved÷fair  survivors"
        "  balance-after  add:moved÷fair  survivors"
    )
    for mixed in (False, True):
        maps = list(iter_maps(node(max(SIZES), mixed), buckets))
        for count in SIZES:
            disks = node(count, mixed)
            bucket_map = maps[count - 1]
            owners = bucket_map.owners()
            share = busiest_over_fair(owners, disks)
            moved, cross, after = _removals(bucket_map, disks)
            previous = maps[count - 2].owners()
            added = sum(1 for a, b in zip(previous, owners, strict=True) if a != b)
            total = sum(w for _, w in disks)
            add_ratio = added / (buckets * disks[-1][1] / total)
            add_cross = _survivor_moves(previous, owners, {n for n, _ in disks[:-1]})
            ok &= share <= 1.02 and moved <= 1.05 and add_ratio <= 1.05
            ok &= cross == 0 and add_cross == 0
            log(
                f"  {'4/8/16TB' if mixed else 'equal':8} {count:4} {share:13.4f}"
                f" {table_shape(owners)}"
                f" {moved:18.4f} {cross:10} {after:14.4f} {add_ratio:15.4f} {add_cross:10}"
            )
    return ok


def worst_over_all_sizes(log: Callable[[str], None], buckets: int = SPLIT_STEPS) -> None:
    for mixed in (False, True):
        worst = max(
            (busiest_over_fair(m.owners(), node(i + 1, mixed)), i + 1)
            for i, m in enumerate(iter_maps(node(96, mixed), buckets))
            if i > 0
        )
        log(
            f"  every N = 2..96, {'4/8/16TB' if mixed else 'equal'}: busiest÷fair ≤ "
            f"{worst[0]:.4f} (at N = {worst[1]})"
        )


def edits(log: Callable[[str], None]) -> None:
    """What editing the list, rather than appending or changing a state, costs."""
    log("\nediting the list instead of appending / changing a state (4/8/16TB mix)")
    log(
        "     N  change                                   moved  between survivors"
        "  parts blocks scanned"
    )
    for count in (12, 48, 96):
        disks = node(count, True)
        before = build_map(tuple(disks), SPLIT_STEPS).owners()
        middle = count // 2
        cases: dict[str, Disks] = {
            f"delete d{middle}'s line (middle)": disks[: middle - 1] + disks[middle:],
            f"delete d{count}'s line (last)": disks[:-1],
            f"swap d{middle} and d{middle + 1}": [
                *disks[: middle - 1],
                disks[middle],
                disks[middle - 1],
                *disks[middle + 1 :],
            ],
            f"d{middle} replaced by a 16 TB disk": [
                *disks[: middle - 1],
                (disks[middle - 1][0], 16.0 if disks[middle - 1][1] != 16.0 else 8.0),
                *disks[middle:],
            ],
        }
        for label, changed in cases.items():
            after = build_map(tuple(changed), SPLIT_STEPS).owners()
            stay = {n for n, _ in changed}
            moved = sum(1 for a, b in zip(before, after, strict=True) if a != b)
            cross = _survivor_moves(before, after, stay)
            log(
                f"  {count:4}  {label:38} {moved / SPLIT_STEPS:6.1%} {cross / SPLIT_STEPS:18.1%}"
                f"  {table_shape(after)}"
            )
        bucket_map = build_map(tuple(disks), SPLIT_STEPS)
        names = {n for n, _ in disks}
        for out in ([f"d{middle}"], [f"d{middle}", "d1"]):
            owners = bucket_map.owners(names - set(out))
            label = " + ".join(out) + " failed"
            log(f"  {count:4}  {label:38} {'':6} {'':18}  {table_shape(owners)}")


def _rendezvous(disks: Disks, buckets: int) -> tuple[str, ...]:
    """The map tpgen used before: weighted rendezvous with stratified scores."""
    neg_log = [-math.log((rank + 0.5) / buckets) for rank in range(buckets)]
    best = [-1.0] * buckets
    owner = [""] * buckets
    for name, weight in sorted(disks):
        seed = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")
        rng = random.Random(seed)
        draws = [rng.random() for _ in range(buckets)]
        order = sorted(range(buckets), key=draws.__getitem__)
        for rank, bucket in enumerate(order):
            score = weight / neg_log[rank]
            if score > best[bucket]:
                best[bucket], owner[bucket] = score, name
    return tuple(owner)


def rendezvous_rows(log: Callable[[str], None]) -> None:
    log("\nbefore: weighted rendezvous, stratified (moves only the changed disk's keys, too)")
    log("  weights    N  busiest÷fair@1000  parts@1000  busiest÷fair@10000  parts@10000 (1 block)")
    for mixed in (False, True):
        for count in (3, 6, 12, 24, 48, 96):
            disks = node(count, mixed)
            small = _rendezvous(disks, 1000)
            full = _rendezvous(disks, SPLIT_STEPS)
            log(
                f"  {'4/8/16TB' if mixed else 'equal':8} {count:4}"
                f" {busiest_over_fair(small, disks):18.4f} {parts(small):11}"
                f" {busiest_over_fair(full, disks):19.4f} {parts(full):12}"
            )


def run_balance(log: Callable[[str], None], *, compare: bool = True) -> int:
    ok = balance_rows(log)
    worst_over_all_sizes(log)
    edits(log)
    if compare:
        rendezvous_rows(log)
    log("\nall goals met" if ok else "\nGOAL MISSED")
    return 0 if ok else 1
