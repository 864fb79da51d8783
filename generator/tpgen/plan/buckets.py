"""Which disk a key lives on: nginx's split_clients hash, fixed buckets, an ordered bucket map.

A key's hash (nginx's MurmurHash2, as split_clients computes it) falls into one of B equal
buckets. Every bucket has a preference ranking over the spec's disks; its owner is the first
*active* disk of that ranking. The rankings are built from the spec's disk list in order, as if
the disks had been added one at a time (which is how a node grows: disks are appended, failed
and draining disks stay listed, a replacement reuses its entry):

- disk i takes from every earlier disk exactly the buckets that bring each share to its weighted
  fair share (a greedy min-max apportionment: no disk ends more than one bucket above its
  quota), and becomes first in those buckets, the disk it took them from second;
- in the buckets it does not take, it becomes second where that keeps every disk's share after
  a single removal closest to fair (the same min-max rule over "second choices");
- below the second place the ranking is weighted rendezvous (score weight / −ln u, u from
  SHA-256 of disk name and bucket), computed only for the rare bucket whose first two disks are
  both out.

Because the ranking of a bucket never depends on disk states, failing or draining a disk moves
only its own buckets, and two removals land the same way in either order. Appending an active
disk only inserts it into rankings, so keys move only onto it. The map depends on the order of
the list: reordering it, or deleting a line from the middle, re-runs the construction for the
disks after that point (`tpgen remap` shows the moves between disks that both stay).

Buckets a new disk takes are carved next to each other where the old owners' runs meet, so that
split_clients, which scans its parts linearly on every request, stays short.
"""

from __future__ import annotations

import hashlib
import heapq
import math
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

SPLIT_STEPS = 10_000  # split_clients parses percentages to 0.01 %
_MASK = 0xFFFFFFFF
_M = 0x5BD1E995
_NONE = -1


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


class _Bag:
    """Buckets of one (first, second) cell; deterministic pop, O(1) removal."""

    __slots__ = ("items", "where")

    def __init__(self, items: Sequence[int] = ()) -> None:
        self.items: list[int] = list(items)
        self.where: dict[int, int] = {bucket: index for index, bucket in enumerate(items)}

    def add(self, bucket: int) -> None:
        self.where[bucket] = len(self.items)
        self.items.append(bucket)

    def remove(self, bucket: int) -> None:
        index = self.where.pop(bucket)
        last = self.items.pop()
        if last != bucket:
            self.items[index] = last
            self.where[last] = index

    def pop(self) -> int:
        """A bucket from all over the hash space, not the last ones added: later disks carve
        contiguous pieces, and those must not take one disk's second places more than others'."""
        size = len(self.items)
        bucket = self.items[(size * 0x9E3779B1 >> 11) % size]
        self.remove(bucket)
        return bucket


@dataclass(frozen=True)
class BucketMap:
    """First and second choice of every bucket, for disks in spec order (states ignored)."""

    names: tuple[str, ...]
    weights: tuple[float, ...]
    first: tuple[int, ...]
    second: tuple[int, ...]

    @property
    def buckets(self) -> int:
        return len(self.first)

    def owners(self, active: Collection[str] | None = None) -> tuple[str, ...]:
        """Owner of each bucket: the first active disk of its ranking."""
        names = self.names
        if active is None or set(names) <= set(active):
            return tuple(names[i] for i in self.first)
        up = [name in active for name in names]
        if not any(up):
            raise ValueError("the bucket map needs at least one active disk")
        result = []
        for bucket, (first, second) in enumerate(zip(self.first, self.second, strict=True)):
            if up[first]:
                result.append(names[first])
            elif second != _NONE and up[second]:
                result.append(names[second])
            else:
                result.append(names[self._deep_choice(bucket, up, first, second)])
        return tuple(result)

    def _deep_choice(self, bucket: int, up: Sequence[bool], first: int, second: int) -> int:
        best, best_score = -1, -1.0
        for index, name in enumerate(self.names):
            if not up[index] or index in (first, second):
                continue
            score = self.weights[index] / -math.log(_unit(name, bucket))
            if score > best_score:
                best, best_score = index, score
        return best


def _unit(name: str, bucket: int) -> float:
    digest = hashlib.sha256(f"{name}\0{bucket}".encode()).digest()
    return (int.from_bytes(digest[:7], "big") + 0.5) / (1 << 56)


def _ratio_key(count: int, quota: float, index: int) -> tuple[float, int]:
    # heapq is a min-heap: the most loaded disk (largest count/quota) first, lower index on ties
    return (-count / quota, index)


def _take_counts(counts: list[int], quotas: Sequence[float], new: int) -> list[int]:
    """How many buckets the new disk takes from each earlier one: move one at a time from the
    most loaded disk while that lowers the busiest share (min-max, never above quota + 1)."""
    taken = [0] * new
    heap = [(*_ratio_key(counts[j], quotas[j], j),) for j in range(new) if counts[j] > 0]
    heapq.heapify(heap)
    mine = 0
    while heap:
        neg_ratio, j = heap[0]
        if (mine + 1) / quotas[new] >= -neg_ratio:
            break
        counts[j] -= 1
        taken[j] += 1
        mine += 1
        heapq.heapreplace(heap, _ratio_key(counts[j], quotas[j], j))
    counts[new] = mine
    return taken


def _carve(runs: list[list[int]], need: list[int], new: int) -> tuple[list[list[int]], list[int]]:
    """Take ``need[j]`` buckets from disk j's runs, preferring the ends of runs where two
    owners meet, so the new disk's pieces join up. Returns the new runs and the taken buckets."""
    out: list[list[int]] = []
    taken: list[int] = []
    joined = False  # the last piece out is the new disk's and ends where this run starts
    for index, (start, length, owner) in enumerate(runs):
        want = need[owner] if owner < len(need) else 0
        if want == 0:
            out.append([start, length, owner])
            joined = False
            continue
        take = min(want, length)
        need[owner] -= take
        if joined or not _next_wants(runs, index, need):
            out.append([start, take, new])
            if take < length:
                out.append([start + take, length - take, owner])
            joined = take == length
            taken.extend(range(start, start + take))
        else:
            if take < length:
                out.append([start, length - take, owner])
            out.append([start + length - take, take, new])
            joined = True
            taken.extend(range(start + length - take, start + length))
    return _joined_runs(out), taken


def _next_wants(runs: list[list[int]], index: int, need: list[int]) -> bool:
    """Whether the run after ``index`` belongs to a disk that still gives buckets up."""
    nxt = runs[index + 1][2] if index + 1 < len(runs) else _NONE
    return nxt != _NONE and nxt < len(need) and need[nxt] > 0


def _joined_runs(runs: list[list[int]]) -> list[list[int]]:
    """``runs`` with neighbours of one owner made one run."""
    joined: list[list[int]] = []
    for run in runs:
        if joined and joined[-1][2] == run[2]:
            joined[-1][1] += run[1]
        else:
            joined.append(run)
    return joined


def _place_seconds(
    cells: list[dict[int, _Bag]], counts: Sequence[int], weights: Sequence[float], new: int
) -> list[int]:
    """In each earlier disk j's remaining buckets, make the new disk second where that keeps
    every disk's share after j goes (its own buckets plus those it inherits from j) closest to
    fair: move second places from the disk that would inherit most, relative to its weight."""
    inverse = [1.0 / w for w in weights]
    placed: list[int] = []
    for j in range(new):
        row = cells[j]
        if not row:
            continue
        if _NONE in row:  # j was alone until now: the new disk is every bucket's second choice
            row[new] = row.pop(_NONE)
            placed.extend(row[new].items)
            continue
        placed += _seconds_in_row(row, counts, inverse, new)
    return placed


def _seconds_in_row(
    row: dict[int, _Bag], counts: Sequence[int], inverse: Sequence[float], new: int
) -> list[int]:
    """The buckets of one earlier disk's row that the new disk becomes second of, moved from the
    seconds that would inherit most while they inherit more than the new disk would."""
    placed: list[int] = []
    mine = row.setdefault(new, _Bag())
    limit = (counts[new] + len(mine.items) + 1) * inverse[new]
    heap = [
        (-load, s)
        for s, bag in row.items()
        if s != new and (load := (counts[s] + len(bag.items)) * inverse[s]) > limit
    ]
    heapq.heapify(heap)
    while heap and -heap[0][0] > limit:
        neg_load, s = heap[0]
        bag = row[s]
        bucket = bag.pop()
        if not bag.items:
            del row[s]
        mine.add(bucket)
        placed.append(bucket)
        limit += inverse[new]
        if bag.items:
            heapq.heapreplace(heap, (neg_load + inverse[s], s))
        else:
            heapq.heappop(heap)
    if not mine.items:
        del row[new]
    return placed


def iter_maps(disks: Sequence[tuple[str, float]], buckets: int) -> Iterator[BucketMap]:
    """The bucket map of every prefix of the disk list (name, weight), in order: the map of
    the first k disks is the same whatever follows them."""
    if not disks:
        raise ValueError("the bucket map needs at least one disk")
    names = tuple(name for name, _ in disks)
    weights = tuple(float(weight) for _, weight in disks)
    first = [0] * buckets
    second = [_NONE] * buckets
    counts = [0] * len(disks)
    counts[0] = buckets
    runs: list[list[int]] = [[0, buckets, 0]]
    cells: list[dict[int, _Bag]] = [{} for _ in disks]
    cells[0][_NONE] = _Bag(range(buckets))
    total = weights[0]
    yield BucketMap(names[:1], weights[:1], tuple(first), tuple(second))
    for new in range(1, len(disks)):
        total += weights[new]
        quotas = [buckets * w / total for w in weights[: new + 1]]
        need = _take_counts(counts, quotas, new)
        runs, taken = _carve(runs, need, new)
        for bucket in taken:
            _hand_over(bucket, (first, second), cells, new)
        for bucket in _place_seconds(cells, counts, weights, new):
            second[bucket] = new
        yield BucketMap(names[: new + 1], weights[: new + 1], tuple(first), tuple(second))


def _hand_over(
    bucket: int, choices: tuple[list[int], list[int]], cells: list[dict[int, _Bag]], new: int
) -> None:
    """The new disk becomes ``bucket``'s first choice, its first owner its second."""
    first, second = choices
    old_first, old_second = first[bucket], second[bucket]
    row = cells[old_first]
    bag = row[old_second]
    bag.remove(bucket)
    if not bag.items:
        del row[old_second]
    first[bucket], second[bucket] = new, old_first
    mine = cells[new].get(old_first)
    if mine is None:
        mine = cells[new][old_first] = _Bag()
    mine.add(bucket)


@lru_cache(maxsize=64)
def build_map(disks: tuple[tuple[str, float], ...], buckets: int) -> BucketMap:
    """The bucket map of disks (name, weight) listed in this order."""
    *_, last = iter_maps(disks, buckets)
    return last


def assign_buckets(
    disks: Sequence[tuple[str, float]], buckets: int, active: Collection[str] | None = None
) -> tuple[str, ...]:
    """Owner of each bucket for disks (name, weight) in spec order; ``active`` defaults to all."""
    return build_map(tuple((name, float(weight)) for name, weight in disks), buckets).owners(active)


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
    return split_parts_from(owners, SPLIT_STEPS // len(owners))


# A second split_clients level (key evaluated and hashed again, a map lookup) costs nginx about
# as many instructions as scanning 140 more parts (valgrind: ~1,800 instructions per request vs
# ~13 per part scanned, bench splitcost); regions only pay for themselves on longer tables.
SECOND_LEVEL_PARTS = 140
_REGION_COUNTS = (10, 16, 20, 25, 40, 50, 80, 100, 125, 200)


@dataclass(frozen=True)
class SplitTable:
    """The split_clients blocks nginx evaluates per request.

    nginx scans a block's parts linearly on every request. A long table is cut into R equal
    regions: a first block picks the region (same key, same hash), a `map` hands over to that
    region's own block, which lists the region's parts between a part for everything below it
    and a `*` for everything above it. That is ~√parts scanned instead of parts / 2."""

    top: tuple[SplitPart, ...]  # disk names, or region names when there are regions
    regions: tuple[tuple[SplitPart, ...], ...] = ()

    @property
    def mean_scanned(self) -> float:
        """Parts nginx compares on average over uniformly spread hashes."""
        return _mean_position(self.top, 0) + sum(
            _mean_position(region, int(index > 0)) * part.steps / SPLIT_STEPS
            for index, (region, part) in enumerate(zip(self.regions, self.top, strict=False))
        )

    @property
    def part_count(self) -> int:
        return len(self.top) + sum(len(region) for region in self.regions)


def _mean_position(parts: Sequence[SplitPart], skip: int) -> float:
    """Mean 1-based position of the part a hash lands in, over the parts after ``skip``."""
    inside = [(position, part.steps) for position, part in enumerate(parts, 1)][skip:]
    width = sum(steps for _, steps in inside)
    return sum(position * steps for position, steps in inside) / width if width else 1.0


def split_table(owners: Sequence[str]) -> SplitTable:
    """One block, or regions of ~√parts when that scans fewer parts per request."""
    single = SplitTable(split_parts(owners))
    steps = SPLIT_STEPS // len(owners)
    counts = [r for r in _REGION_COUNTS if len(owners) % r == 0]
    if single.mean_scanned <= SECOND_LEVEL_PARTS or not counts:
        return single
    count = min(counts, key=lambda r: (abs(r - math.sqrt(single.part_count)), r))
    width = len(owners) // count
    top = tuple(SplitPart(width * steps, f"r{k}") for k in range(count))
    regions = []
    for k in range(count):
        start, end = k * width, (k + 1) * width
        region = list(split_parts_from(owners[start:end], steps))
        if k:
            region.insert(0, SplitPart(start * steps, owners[start - 1]))
        if end < len(owners):
            region.append(SplitPart(0, owners[end]))  # rendered as `*`: above the region
        regions.append(tuple(region))
    table = SplitTable(top, tuple(regions))
    return table if table.mean_scanned + SECOND_LEVEL_PARTS < single.mean_scanned else single


def split_parts_from(owners: Sequence[str], steps_per_bucket: int) -> tuple[SplitPart, ...]:
    parts: list[SplitPart] = []
    for disk in owners:
        if parts and parts[-1].disk == disk:
            parts[-1] = SplitPart(parts[-1].steps + steps_per_bucket, disk)
        else:
            parts.append(SplitPart(steps_per_bucket, disk))
    return tuple(parts)


def _scan(parts: Sequence[SplitPart], key_hash: int) -> int:
    """Index of the part split_clients picks, with nginx's own integer arithmetic (each part's
    bound is added floored; the last part is ``*``)."""
    bound = 0
    for index, part in enumerate(parts[:-1]):
        bound += part.steps * _MASK // SPLIT_STEPS
        if key_hash < bound:
            return index
    return len(parts) - 1


def disk_for_hash(table: SplitTable | Sequence[SplitPart], key_hash: int) -> str:
    """The disk nginx picks for a key's hash: the region block first, if there are regions."""
    if not isinstance(table, SplitTable):
        table = SplitTable(tuple(table))
    index = _scan(table.top, key_hash)
    if not table.regions:
        return table.top[index].disk
    region = table.regions[index]
    return region[_scan(region, key_hash)].disk


def bucket_for_hash(key_hash: int, buckets: int) -> int:
    return key_hash * buckets >> 32


def moved_buckets(old: Sequence[str], new: Sequence[str]) -> list[int]:
    if len(old) != len(new):
        raise ValueError("bucket maps of different sizes cannot be compared")
    return [
        index for index, (before, after) in enumerate(zip(old, new, strict=True)) if before != after
    ]
