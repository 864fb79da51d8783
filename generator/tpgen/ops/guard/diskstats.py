"""Per-disk read latency from /proc/diskstats, and the slow-disk rule.

A dying HDD often reads ten times slower than its peers for minutes before it fails. The
latency of a disk over a span is (ms spent reading) / (reads completed), both counters of
/proc/diskstats (Documentation/admin-guide/iostats.rst: fields 4 and 7).
"""

from __future__ import annotations

import statistics
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .detect import GuardDisk
from .policy import Policy


@dataclass(frozen=True)
class ReadCounters:
    reads: int  # reads completed
    ms: int  # milliseconds spent reading


def _count(field: str) -> bool:
    # ASCII digits, as the kernel prints them: int() takes "²" for none and refuses 5000 digits.
    return field.isascii() and field.isdigit() and len(field) <= 20


def parse_diskstats(text: str) -> dict[str, ReadCounters]:
    """Kernel device name -> its read counters; malformed lines are skipped."""
    found = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 7 or not (_count(parts[3]) and _count(parts[6])):
            continue
        found[parts[2]] = ReadCounters(int(parts[3]), int(parts[6]))
    return found


@dataclass(frozen=True)
class Latency:
    disk: str
    reads: int
    ms_per_read: float


@dataclass
class SlowWatch:
    """Samples of each disk's counters, and since when each disk has been slow."""

    samples: dict[str, deque[tuple[float, ReadCounters]]] = field(default_factory=dict)
    slow_since: dict[str, float] = field(default_factory=dict)

    def add(
        self, now: float, stats: Mapping[str, ReadCounters], disks: Sequence[GuardDisk]
    ) -> None:
        for disk in disks:
            counters = _counters_of(disk, stats)
            if counters is not None:
                self.samples.setdefault(disk.name, deque()).append((now, counters))

    def latencies(self, now: float, span: float) -> dict[str, Latency]:
        """Each disk's latency over about the last ``span`` seconds (older samples dropped)."""
        out = {}
        for name, samples in self.samples.items():
            while len(samples) > 2 and samples[1][0] <= now - span:
                samples.popleft()
            (_, first), (_, last) = samples[0], samples[-1]
            reads = last.reads - first.reads
            if reads > 0:
                out[name] = Latency(name, reads, (last.ms - first.ms) / reads)
        return out

    def slow_disks(
        self, now: float, disks: Sequence[GuardDisk], policy: Policy
    ) -> dict[str, tuple[Latency, float]]:
        """Disks slow for at least ``policy.slow_for``: name -> (latency, peers' median)."""
        latencies = self.latencies(now, policy.window)
        found = {}
        for disk in disks:
            verdict = slow_verdict(disk, disks, latencies, policy)
            if verdict is None:
                self.slow_since.pop(disk.name, None)
                continue
            since = self.slow_since.setdefault(disk.name, now)
            if now - since >= policy.slow_for:
                found[disk.name] = verdict
        return found


def _counters_of(disk: GuardDisk, stats: Mapping[str, ReadCounters]) -> ReadCounters | None:
    # The whole device's line counts its partitions' reads too: prefer it.
    for name in sorted(disk.kernel_names, key=len):
        if name in stats:
            return stats[name]
    return None


def slow_verdict(
    disk: GuardDisk,
    disks: Sequence[GuardDisk],
    latencies: Mapping[str, Latency],
    policy: Policy,
) -> tuple[Latency, float] | None:
    """(its latency, the peers' median) when ``disk`` reads ``slow_factor`` times slower than
    the median of its peers (the other disks of its media with enough reads), else None."""
    own = latencies.get(disk.name)
    if own is None or own.reads < policy.slow_min_reads or own.ms_per_read < policy.slow_min_ms:
        return None
    peers = _peer_latencies(disk, disks, latencies, policy)
    if not peers:
        return None
    median = statistics.median(peers)
    if own.ms_per_read < policy.slow_factor * max(median, 0.001):
        return None
    return own, median


def _peer_latencies(
    disk: GuardDisk,
    disks: Sequence[GuardDisk],
    latencies: Mapping[str, Latency],
    policy: Policy,
) -> list[float]:
    """ms per read of the other disks of ``disk``'s media that read enough to compare."""
    return [
        latencies[other.name].ms_per_read
        for other in disks
        if other.name != disk.name
        and other.media == disk.media
        and other.name in latencies
        and latencies[other.name].reads >= policy.slow_min_reads
    ]
