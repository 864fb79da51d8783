"""Which disk a key lives on: nginx's split_clients hash, fixed buckets, weighted rendezvous.

A key's hash (nginx's MurmurHash2, as split_clients computes it) falls into one of B equal
buckets; each bucket belongs to the disk with the highest rendezvous score for it. Removing a
disk therefore moves only that disk's buckets, and adding one moves only the buckets it wins.

Scores are stratified: each disk ranks all B buckets by a keyed pseudo-random order (Python's
MT19937 seeded from the SHA-256 of the disk name, a sequence CPython guarantees for int seeds) and
turns rank r into u = (r + ½)/B, score = weight / −ln u. Every disk then holds every quantile
exactly once, which keeps shares closer to the weights than independent draws would.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

SPLIT_STEPS = 10_000  # split_clients parses percentages to 0.01 %
_MASK = 0xFFFFFFFF
_M = 0x5BD1E995


def murmur_hash2(data: bytes) -> int:
    """nginx's ngx_murmur_hash2 (seed 0), the hash split_clients uses."""
    length = len(data)
    h = length & _MASK
    index = 0
    while length >= 4:
        k = data[index] | data[index + 1] << 8 | data[index + 2] << 16 | data[index + 3] << 24
        k = (k * _M) & _MASK
        k ^= k >> 24
        k = (k * _M) & _MASK
        h = (h * _M) & _MASK
        h ^= k
        index += 4
        length -= 4
    if length == 3:
        h ^= data[index + 2] << 16
    if length >= 2:
        h ^= data[index + 1] << 8
    if length >= 1:
        h ^= data[index]
        h = (h * _M) & _MASK
    h ^= h >> 13
    h = (h * _M) & _MASK
    h ^= h >> 15
    return h


def _disk_seed(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")


def _ranks(name: str, buckets: int) -> list[int]:
    rng = random.Random(_disk_seed(name))
    draws = [rng.random() for _ in range(buckets)]
    order = sorted(range(buckets), key=draws.__getitem__)
    ranks = [0] * buckets
    for rank, bucket in enumerate(order):
        ranks[bucket] = rank
    return ranks


def assign_buckets(weights: Sequence[tuple[str, float]], buckets: int) -> tuple[str, ...]:
    """Owner of each bucket, by weighted rendezvous over (disk name, weight) pairs."""
    if not weights:
        raise ValueError("rendezvous needs at least one disk")
    neg_log = [-math.log((rank + 0.5) / buckets) for rank in range(buckets)]
    best_score = [-1.0] * buckets
    owner = [""] * buckets
    for name, weight in sorted(weights):
        ranks = _ranks(name, buckets)
        for bucket in range(buckets):
            score = weight / neg_log[ranks[bucket]]
            if score > best_score[bucket]:
                best_score[bucket] = score
                owner[bucket] = name
    return tuple(owner)


@dataclass(frozen=True)
class SplitPart:
    """One split_clients line: ``steps`` hundredths of a percent go to ``disk``."""

    steps: int
    disk: str

    @property
    def percent(self) -> str:
        whole, frac = divmod(self.steps, 100)
        return f"{whole}.{frac:02d}%" if frac else f"{whole}%"


def split_parts(owners: Sequence[str]) -> tuple[SplitPart, ...]:
    """Adjacent buckets of one disk merged into one split_clients line."""
    steps_per_bucket = SPLIT_STEPS // len(owners)
    parts: list[SplitPart] = []
    for disk in owners:
        if parts and parts[-1].disk == disk:
            parts[-1] = SplitPart(parts[-1].steps + steps_per_bucket, disk)
        else:
            parts.append(SplitPart(steps_per_bucket, disk))
    return tuple(parts)


def disk_for_hash(parts: Sequence[SplitPart], key_hash: int) -> str:
    """The disk split_clients picks, with nginx's own integer arithmetic (last part is ``*``)."""
    bound = 0
    for part in parts[:-1]:
        bound += part.steps * _MASK // SPLIT_STEPS
        if key_hash < bound:
            return part.disk
    return parts[-1].disk


def bucket_for_hash(key_hash: int, buckets: int) -> int:
    return key_hash * buckets >> 32


def moved_buckets(old: Sequence[str], new: Sequence[str]) -> list[int]:
    if len(old) != len(new):
        raise ValueError("bucket maps of different sizes cannot be compared")
    return [
        index for index, (before, after) in enumerate(zip(old, new, strict=True)) if before != after
    ]
