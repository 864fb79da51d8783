"""Every number the bench uses, in one place: the full run and the CI smoke run."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

MiB = 1024 * 1024
MAX_ROUNDS = 100  # a run's rounds; also what keeps every (cold_seed, round) seed distinct

SettingsT = TypeVar("SettingsT", bound="DataclassInstance")  # Settings or cache's CacheSettings


@dataclass(frozen=True)
class DiskModel:
    """What one emulated HDD can do: a read bandwidth and a read IOPS budget.

    A 7200 rpm disk streams ~150 MB/s but manages ~150 random reads a second, so only reads of about
    1 MiB reach its bandwidth. The model keeps that shape at a scale two cores can drive: at the
    defaults, reads smaller than bps / iops (400 KiB) run out of IOPS before bandwidth.
    """

    read_bps: int = 20 * MiB
    read_iops: int = 50
    # read_ahead_kb of every disk for the whole run (None: the host's loop devices' own, which a
    # loop device takes from its backing file system -- 2,560 KiB on this machine, where a SATA
    # disk has the kernel's 128). tpgen's arms raise it to their plan's floors where larger.
    read_ahead_kb: int | None = None
    # ext4's inode_readahead_blks on every disk for the whole run (None: ext4's 32). At 0 a cold
    # inode is one metadata read, which the throttle lets pass (`bench metadata`): disks whose
    # inodes cost what xfs's do here.
    inode_readahead_blks: int | None = None


@dataclass(frozen=True)
class Settings:
    """One benchmark run."""

    disks: int = 4
    files_per_disk: int = 384  # about; tpgen's bucket map decides the real split
    file_size: int = 4 * MiB  # the article's files
    disk_model: DiskModel = DiskModel()
    # nginx's memory cgroup limit, page cache included. The data set is 6x larger (the article:
    # 256 GB on 48 GB, 5.3x), and the limit stays well above what 200 cold transfers keep locked
    # in readahead and socket buffers (~0.5 GiB): a tighter limit makes the kernel evict the hot
    # file itself, which no nginx setting can prevent (docs/benchmark.md).
    nginx_memory: int = 1024 * MiB
    cold_connections: int = 200  # the article's "random load"
    hot_connections: int = 50  # the article's "constant load"
    # 0: each hot connection asks again as soon as it is answered, so hot req/s is the node's
    # capacity and hot p99 is taken at each arm's own rate. N: it waits N ms first (a paced load):
    # every arm that keeps up serves the same rate, so the hot p99s compare at equal load.
    hot_think_ms: int = 0
    # 0: wrk keeps every connection for the whole trial, so where the kernel placed it at the start
    # decides its trial. N: every cold request and every N-th hot request of a wrk thread carry
    # `Connection: close`; wrk opens a new connection, placed on a worker waiting at that moment,
    # as when a CDN's clients come and go.
    reconnect_every: int = 0
    # 0: round N's cold load is the random sequence seeded N, the same in every run and for every
    # arm, so a run's rounds are always the same few loads. S: round N's sequence is seeded
    # S * MAX_ROUNDS + N: other fixed loads, still the same for every arm of a round.
    cold_seed: int = 0
    wrk_threads: int = 1  # per wrk process; two wrk processes run at once
    duration: float = 25.0  # seconds per load
    rounds: int = 4
    arms: tuple[str, ...] = ("stock", "tpgen", "perdisk", "handwritten", "floor")
    cold_metadata: bool = False  # True: inodes cold too (open() then blocks the event loop)
    workers: int | None = None  # nginx worker_processes of every arm; None: one per CPU
    port_range: tuple[int, int] = (29000, 29999)
    plot: bool = True

    @property
    def client_notes(self) -> tuple[str, ...]:
        """How the loads' clients differ from wrk's default (kept, unpaced connections)."""
        notes = []
        if self.hot_think_ms:
            notes.append(
                f"hot load paced: each connection waits {self.hot_think_ms} ms after an answer "
                "(hot req/s is the pace; the hot p99s compare at equal load)"
            )
        if self.reconnect_every:
            notes.append(
                f"clients reconnect: every cold request and every {self.reconnect_every}th hot "
                "request of a wrk thread on a new connection"
            )
        if self.cold_seed:
            notes.append(
                f"cold loads seeded {self.cold_seed}: round N's sequence is seeded "
                f"{self.cold_seed * MAX_ROUNDS} + N"
            )
        return tuple(notes)

    def cold_sequence_seed(self, round_no: int) -> int:
        """The seed of round `round_no`'s cold sequence: distinct for every (cold_seed, round)."""
        return self.cold_seed * MAX_ROUNDS + round_no

    @property
    def data_bytes(self) -> int:
        return self.disks * self.files_per_disk * self.file_size

    @property
    def disk_size(self) -> int:
        """Loop device size: the disk's share of the data plus room for ext4 and imbalance."""
        share = self.files_per_disk * self.file_size
        return int(share * 1.5) + 64 * MiB


FULL = Settings()

SMOKE = Settings(
    disks=1,
    files_per_disk=32,  # enough for a throttle probe of 1 s per case
    file_size=1 * MiB,
    disk_model=DiskModel(read_bps=4 * MiB, read_iops=40),
    nginx_memory=256 * MiB,  # tpgen rejects node.memory below 256 MiB
    cold_connections=8,
    hot_connections=4,
    duration=1.0,
    rounds=1,
    plot=False,
)


@dataclass(frozen=True)
class Regime:
    """A named disk model and load: what one column of `bench run --regimes` measures."""

    name: str
    what: str
    changes: dict[str, object]

    def apply(self, base: Settings, workers: int) -> Settings:
        return replace(base, workers=workers, **self.changes)  # type: ignore[arg-type]


REGIMES: dict[str, Regime] = {
    regime.name: regime
    for regime in (
        Regime("baseline", "slow HDDs, 1 GiB, 200 cold conns, inodes warmed before each trial", {}),
        Regime(
            "fast-disk",
            "3 disks of 100 MiB/s and 250 IOPS, nginx memory 256 MiB, 40 cold conns per disk, "
            "no inode warming (the independent benchmark's shape)",
            {
                "disks": 3,
                "files_per_disk": 256,
                "disk_model": DiskModel(read_bps=100 * MiB, read_iops=250),
                "nginx_memory": 256 * MiB,
                "cold_connections": 120,
                "cold_metadata": True,
            },
        ),
        Regime(
            "cold-metadata",
            "slow HDDs, no inode warming, nginx memory 512 MiB: inodes and dentries are read "
            "by nginx and charged to its cgroup",
            {"nginx_memory": 512 * MiB, "cold_metadata": True},
        ),
        Regime(
            "small-files",
            "slow HDDs, 256 KiB files (below the disk's bps / IOPS: IOPS-bound), nginx memory "
            "256 MiB, no inode warming: 16 times the files and inodes per GiB",
            {
                "file_size": MiB // 4,
                "files_per_disk": 1536,
                "nginx_memory": 256 * MiB,
                "cold_metadata": True,
            },
        ),
    )
}

# The full regimes run: every regime at the machine's worker count and at many workers (the
# per-worker multiplication of pool threads), 2 rounds of 10 s per arm: ~27 minutes.
REGIME_WORKERS = (2, 12)
REGIME_BASE = Settings(duration=10.0, rounds=2, arms=("stock", "tpgen", "perdisk", "handwritten"))

# CI: every regime and the many-worker case on tiny disks; regime name -> worker counts.
SMOKE_REGIMES: dict[str, tuple[int, ...]] = {
    "baseline": (2,),
    "fast-disk": (2,),
    "cold-metadata": (6,),
    "small-files": (2,),
}


def smoke_regime(regime: Regime, workers: int) -> Settings:
    """The smoke run's tiny version of `regime`: its warming and worker count, SMOKE's sizes
    (its files where they are smaller, as many more of them)."""
    size = regime.changes.get("file_size", SMOKE.file_size)
    assert isinstance(size, int)
    size = min(size, SMOKE.file_size)
    settings = replace(
        SMOKE,
        workers=workers,
        cold_metadata=bool(regime.changes.get("cold_metadata")),
        file_size=size,
        # as many bytes a disk as SMOKE: the throttle probe reads a second's worth of files
        files_per_disk=SMOKE.files_per_disk * SMOKE.file_size // size,
    )
    if regime.name != "baseline":
        settings = replace(settings, arms=("stock", "tpgen", "perdisk"))
    return settings


def with_overrides(base: SettingsT, **changes: object) -> SettingsT:
    """A copy of `base` (either workload's settings) with the non-None `changes` applied."""
    return replace(base, **{k: v for k, v in changes.items() if v is not None})
