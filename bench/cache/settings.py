"""Every number of the cache bench, in one place: the full run and the CI smoke run."""

from __future__ import annotations

from dataclasses import dataclass, field

from bench.settings import DiskModel, MiB


@dataclass(frozen=True)
class CacheSettings:
    """One cache-workload run."""

    disks: int = 3  # the article's cache node: three HDDs, so its layout is used verbatim
    object_size: int = 1 * MiB  # tpgen's default avg_object_size for a cache node
    # Objects cached on the disks before the trials: 4x nginx's memory limit, so re-reads of
    # the warm set come from the disks, not from the page cache.
    warm_objects: int = 2048
    disk_model: DiskModel = field(default_factory=DiskModel)
    nginx_memory: int = 512 * MiB  # memory cgroup of the cache under test, page cache included
    hot_connections: int = 50  # the article's "constant load"
    warm_connections: int = 150  # cache HITs read from the disks: ~25 per disk and worker
    fill_connections: int = 20  # cache MISSes: fetched from the origin, written to a disk
    # Objects a second the origin hands out (nginx limit_req, excess delayed, not refused): like
    # a distant origin, it sets the rate of misses. Every arm gets the same fill to write, so
    # fill MB/s shows whether a config keeps up with it while its disks are busy, and the fill
    # does not take a different share of the CPUs from the hot load in each arm.
    origin_rps: int = 50
    wrk_threads: int = 1
    duration: float = 20.0
    rounds: int = 3
    arms: tuple[str, ...] = ("stock", "article", "tpgen")
    port_range: tuple[int, int] = (29000, 29999)
    populate_concurrency: int = 8
    # nginx indexes a cache on disk a minute after it starts; the full run waits for that walk
    # (it would read directories from the throttled disks mid-trial), the smoke does not.
    wait_for_loaders: bool = True
    spare: int = 1024 * MiB  # per disk, beyond the warm sets: filled objects, ext4

    def disk_size(self, arms: int) -> int:
        """Room on the first disk for stock's whole copy of the warm set, the other arms' shares
        (a third each on three disks, plus 10% for an uneven split), the filled objects, ext4."""
        warm = self.warm_objects * self.object_size
        return int(warm * (1 + (arms - 1) * 1.1 / self.disks)) + self.spare


CACHE_FULL = CacheSettings()

CACHE_SMOKE = CacheSettings(
    disks=2,
    warm_objects=48,
    disk_model=DiskModel(read_bps=4 * MiB, read_iops=40),
    nginx_memory=256 * MiB,  # tpgen rejects node.memory below 256 MiB
    hot_connections=4,
    warm_connections=8,
    fill_connections=4,
    # 1 s let a busy host finish no HIT at all off the 4 MB/s disks (a flaky smoke); 3 s do
    duration=3.0,
    rounds=1,
    spare=256 * MiB,
    wait_for_loaders=False,
)
