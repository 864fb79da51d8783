"""Key → bucket → disk: balance, and how little moves when a disk comes or goes."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from functools import cache

import pytest
from tpgen.plan.buckets import (
    SPLIT_STEPS,
    BucketMap,
    SplitTable,
    assign_buckets,
    bucket_for_hash,
    build_map,
    disk_for_hash,
    iter_maps,
    moved_buckets,
    murmur_hash2,
    split_parts,
    split_table,
)

B = SPLIT_STEPS
MAX_DISKS = 96
TB_MIX = (4.0, 8.0, 16.0)  # weights of a node that grew with 4, 8 and 16 TB disks
SAMPLE_SIZES = (2, 3, 4, 5, 7, 12, 24, 47, 96)


def disks(count: int, mixed: bool = False) -> list[tuple[str, float]]:
    return [(f"d{i}", TB_MIX[i % 3] if mixed else 1.0) for i in range(1, count + 1)]


@cache
def stages(mixed: bool) -> tuple[BucketMap, ...]:
    """The map of the first N disks for every N, from one construction of all 96."""
    return tuple(iter_maps(disks(MAX_DISKS, mixed), B))


def stage(count: int, mixed: bool) -> BucketMap:
    return stages(mixed)[count - 1]


def fair_shares(weights: dict[str, float]) -> dict[str, float]:
    total = sum(weights.values())
    return {name: B * weight / total for name, weight in weights.items()}


def busiest_over_fair(owners: Sequence[str], weights: dict[str, float]) -> float:
    counts = Counter(owners)
    return max(counts[name] / fair for name, fair in fair_shares(weights).items())


def positions(count: int) -> list[int]:
    """First, middle and last disk, and all of them on small nodes."""
    return list(range(count)) if count <= 12 else [0, 1, count // 2, count - 2, count - 1]


def test_murmur_hash2_matches_reference_values() -> None:
    # Values of the MurmurHash2 reference (seed 0, little-endian), as nginx computes them.
    assert murmur_hash2(b"") == 0
    assert murmur_hash2(b"a") == 0x92685F5E
    assert murmur_hash2(b"abc") == 0x13577C9B
    assert murmur_hash2(b"hello world") == 0x44A81419


@pytest.mark.parametrize("mixed", [False, True], ids=["equal", "mixed"])
def test_every_node_size_is_within_1_02_of_the_weighted_fair_share(mixed: bool) -> None:
    worst = {}
    for count in range(2, MAX_DISKS + 1):
        owners = stage(count, mixed).owners()
        worst[count] = busiest_over_fair(owners, dict(disks(count, mixed)))
    assert max(worst.values()) <= 1.02, {n: r for n, r in worst.items() if r > 1.02}


def test_a_lopsided_mix_is_balanced_too() -> None:
    # One small disk among big ones: rounding its share up would cost it ~4 %.
    lopsided = [("small", 4.0)] + [(f"big{i}", 16.0) for i in range(95)]
    owners = build_map(tuple(lopsided), B).owners()
    assert busiest_over_fair(owners, dict(lopsided)) <= 1.02


def test_the_map_of_a_prefix_does_not_depend_on_what_follows() -> None:
    for count in (2, 7, 30):
        assert build_map(tuple(disks(count, True)), B) == stage(count, True)


@pytest.mark.parametrize("mixed", [False, True], ids=["equal", "mixed"])
@pytest.mark.parametrize("count", SAMPLE_SIZES)
def test_removing_a_disk_moves_only_its_buckets_and_at_most_1_05_of_its_share(
    count: int, mixed: bool
) -> None:
    # failed and draining disks stay listed; either way they stop owning buckets
    bucket_map = stage(count, mixed)
    weights = dict(disks(count, mixed))
    before = bucket_map.owners()
    for position in positions(count):
        gone = f"d{position + 1}"
        after = bucket_map.owners(set(weights) - {gone})
        moved = moved_buckets(before, after)
        assert moved == [i for i, owner in enumerate(before) if owner == gone]
        assert len(moved) <= 1.05 * fair_shares(weights)[gone], (gone, len(moved))


@pytest.mark.parametrize("mixed", [False, True], ids=["equal", "mixed"])
def test_adding_a_disk_moves_only_onto_it_and_at_most_1_05_of_its_share(mixed: bool) -> None:
    for count in range(1, MAX_DISKS):
        before = stage(count, mixed).owners()
        after = stage(count + 1, mixed).owners()
        new = f"d{count + 1}"
        moved = moved_buckets(before, after)
        assert moved and all(after[i] == new for i in moved), count
        fair = fair_shares(dict(disks(count + 1, mixed)))[new]
        assert len(moved) <= 1.05 * fair, (count, len(moved), fair)


@pytest.mark.parametrize("count", [3, 12, 47])
def test_adding_a_disk_while_one_is_failed_moves_only_onto_the_new_disk(count: int) -> None:
    names = {f"d{i}" for i in range(1, count + 2)}
    failed = f"d{count // 2 + 1}"
    before = stage(count, True).owners(names - {failed, f"d{count + 1}"})
    after = stage(count + 1, True).owners(names - {failed})
    assert all(after[i] == f"d{count + 1}" for i in moved_buckets(before, after))


@pytest.mark.parametrize("count", [4, 12, 96])
def test_two_removals_land_the_same_way_in_either_order(count: int) -> None:
    bucket_map = stage(count, True)
    names = {f"d{i}" for i in range(1, count + 1)}
    a, b = "d1", f"d{count // 2}"
    start = bucket_map.owners()
    without_a = bucket_map.owners(names - {a})
    without_b = bucket_map.owners(names - {b})
    both = bucket_map.owners(names - {a, b})
    # each step moves only the buckets the removed disk held at that point
    for before, after, gone in ((start, without_a, a), (without_a, both, b)):
        assert all(before[i] == gone for i in moved_buckets(before, after))
    for before, after, gone in ((start, without_b, b), (without_b, both, a)):
        assert all(before[i] == gone for i in moved_buckets(before, after))
    assert a not in both and b not in both
    assert busiest_over_fair(both, {n: w for n, w in disks(count, True) if n not in (a, b)}) < 1.1


def test_the_map_is_the_same_in_another_process() -> None:
    code = (
        "import hashlib; from tpgen.plan.buckets import assign_buckets;"
        "d=[(f'd{i}', (4.0, 8.0, 16.0)[i % 3]) for i in range(1, 25)];"
        "print(hashlib.sha256(','.join(assign_buckets(d, 10000)).encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={"PYTHONHASHSEED": seed, "PYTHONPATH": ":".join(sys.path)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in ("1", "2")
    }
    here = hashlib.sha256(",".join(stage(24, True).owners()).encode()).hexdigest()
    assert digests == {here}


def test_the_map_follows_the_order_of_the_list() -> None:
    forward = assign_buckets(disks(6), B)
    backward = assign_buckets(list(reversed(disks(6))), B)
    assert forward != backward
    assert Counter(forward) == Counter(backward)


def test_weights_are_respected() -> None:
    owners = Counter(assign_buckets([("big", 3.0), ("small", 1.0)], 1000))
    assert owners == {"big": 750, "small": 250}


@pytest.mark.parametrize("mixed", [False, True], ids=["equal", "mixed"])
def test_split_clients_stays_short(mixed: bool) -> None:
    # nginx scans the parts on every request: new disks carve pieces where runs meet, and a
    # long table is cut into regions so a request scans ~√parts
    for count in (3, 12, 48, 96):
        table = split_table(stage(count, mixed).owners())
        assert table.part_count <= count * count / 2, (count, table.part_count)
        assert table.mean_scanned <= 80, (count, table.mean_scanned)
    assert len(split_table(stage(3, mixed).owners()).top) == 3
    assert not split_table(stage(24, mixed).owners()).regions  # ~140 scanned: one block is cheaper
    assert len(split_table(stage(96, mixed).owners()).regions) == 50


@pytest.mark.parametrize("count", [32, 96])
def test_regions_pick_the_disk_of_the_hashs_bucket(count: int) -> None:
    owners = stage(count, True).owners()
    table = split_table(owners)
    assert table.regions
    step = (1 << 32) / B
    for key_hash in range(0, 1 << 32, 104_729):  # ~41,000 hashes across the whole range
        bucket = bucket_for_hash(key_hash, B)
        # nginx floors each part's bound: a hash within a few units of an edge may fall across
        if min(key_hash - bucket * step, (bucket + 1) * step - key_hash) > 256:
            assert disk_for_hash(table, key_hash) == owners[bucket], key_hash


def test_a_table_without_regions_is_one_block() -> None:
    parts = split_parts(["a", "b"])
    assert disk_for_hash(SplitTable(parts), 3 << 30) == disk_for_hash(parts, 3 << 30) == "b"


def test_split_parts_merge_neighbours_and_cover_100_percent() -> None:
    parts = split_parts(["a", "a", "b", "a"])
    assert [(p.steps, p.disk) for p in parts] == [(5000, "a"), (2500, "b"), (2500, "a")]
    assert [p.percent for p in parts] == ["50%", "25%", "25%"]
    assert sum(p.steps for p in parts) == SPLIT_STEPS


def test_disk_for_hash_follows_nginx_boundaries() -> None:
    parts = split_parts(["a", "b"])
    boundary = 5000 * 0xFFFFFFFF // SPLIT_STEPS
    assert disk_for_hash(parts, 0) == "a"
    assert disk_for_hash(parts, boundary - 1) == "a"
    assert disk_for_hash(parts, boundary) == "b"
    assert disk_for_hash(parts, 0xFFFFFFFF) == "b"
