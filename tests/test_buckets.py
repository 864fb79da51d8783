"""Key → bucket → disk: balance, and how little moves when a disk comes or goes."""

from __future__ import annotations

from collections import Counter

import pytest
from tpgen.buckets import (
    SPLIT_STEPS,
    assign_buckets,
    disk_for_hash,
    moved_buckets,
    murmur_hash2,
    split_parts,
)


def names(count: int) -> list[tuple[str, float]]:
    return [(f"d{i}", 1.0) for i in range(1, count + 1)]


def test_murmur_hash2_matches_reference_values() -> None:
    # Values of the MurmurHash2 reference (seed 0, little-endian), as nginx computes them.
    assert murmur_hash2(b"") == 0
    assert murmur_hash2(b"a") == 0x92685F5E
    assert murmur_hash2(b"abc") == 0x13577C9B
    assert murmur_hash2(b"hello world") == 0x44A81419


def test_assignment_is_deterministic_and_order_independent() -> None:
    forward = assign_buckets(names(6), 1000)
    backward = assign_buckets(list(reversed(names(6))), 1000)
    assert forward == backward
    assert len(forward) == 1000


@pytest.mark.parametrize("count", range(2, 25))
def test_removing_a_disk_moves_exactly_its_own_buckets(count: int) -> None:
    before = assign_buckets(names(count), 1000)
    for removed, _ in names(count):
        after = assign_buckets([n for n in names(count) if n[0] != removed], 1000)
        moved = moved_buckets(before, after)
        assert moved == [i for i, owner in enumerate(before) if owner == removed]


@pytest.mark.parametrize("count", range(2, 25))
def test_adding_a_disk_moves_only_buckets_onto_it(count: int) -> None:
    before = assign_buckets(names(count), 1000)
    after = assign_buckets([*names(count), ("new", 1.0)], 1000)
    moved = moved_buckets(before, after)
    assert moved and all(after[i] == "new" for i in moved)


@pytest.mark.parametrize("count", range(2, 25))
def test_at_full_resolution_a_change_moves_at_most_1_1_of_the_fair_share(count: int) -> None:
    buckets = SPLIT_STEPS
    before = assign_buckets(names(count), buckets)
    fair_removed = buckets / count
    worst_removed = max(Counter(before).values())
    assert worst_removed <= 1.1 * fair_removed, (worst_removed, fair_removed)
    after = assign_buckets([*names(count), (f"d{count + 1}", 1.0)], buckets)
    assert len(moved_buckets(before, after)) <= 1.1 * buckets / (count + 1)


def test_weights_are_respected() -> None:
    owners = Counter(assign_buckets([("big", 3.0), ("small", 1.0)], 1000))
    assert 700 <= owners["big"] <= 800


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
