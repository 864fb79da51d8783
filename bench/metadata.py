"""`python -m bench metadata`: how long an emulated disk takes to give up cold inodes, idle and
behind a saturating load of data reads, on ext4 (inode-table read-ahead on and off) and xfs.

nginx opens every file on its event loop, so the cold-inode regimes stall a loop for as long as
the disk takes to return one inode. On this emulation that time is decided by what the throttle
holds, and the throttle does not treat all reads alike: the kernel issues metadata bios
(REQ_META) "as root" - charged to the cgroup, never held in its queue (`bio_issue_as_root_blkg()`
in blk-throttle) - while ext4's inode-table read-ahead bios (REQ_RAHEAD, without REQ_META) wait
in the cgroup's FIFO behind every data read queued before them, and the inode read waits for the
read-ahead that carries its block. This probe prints the difference, so a run's cold-inode
figures can be read for what they measure.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench import runlock
from bench.cgroups import Cgroup, new_cgroup
from bench.janitor import Janitor, cleaned_up
from bench.leftovers import CGROUP_PREFIX, new_run_id, work_dir
from bench.loopdisk import LoopDisk, make_disk, unmount
from bench.settings import DiskModel, MiB
from bench.system import DISK_TOOLS, BenchError, drop_caches, missing_host, run

FILE_BYTES = 4096
LOAD_READ = 256 << 10  # the small-files regime's answers: IOPS-bound at the model's shape


@dataclass(frozen=True)
class Layout:
    """A filesystem as the probe formats and tunes it."""

    name: str
    filesystem: str  # ext4 | xfs
    inode_readahead_blks: int | None = None  # ext4's sysfs knob; None: the filesystem's default


LAYOUTS = (
    Layout("ext4", "ext4"),
    Layout("ext4 inode_readahead_blks=0", "ext4", 0),
    Layout("xfs", "xfs"),
)


@dataclass(frozen=True)
class MetadataRun:
    files: int = 1536  # the small-files regime's files per disk
    load_threads: int = 50  # its cold connections per disk
    rounds: int = 2
    settle_seconds: float = 2.0  # the load fills the throttle's queue before the stat starts
    data_bytes: int = 256 * MiB
    model: DiskModel = field(default_factory=DiskModel)


@dataclass(frozen=True)
class Probe:
    """One cold stat of every file: idle, or behind the load."""

    seconds: float
    device_reads: int  # requests the device completed while the stat ran (merged; with the load's)
    charged_bios: int | None  # bios the throttle charged to the cgroup (before merging)
    load_reads_per_second: float | None = None  # the load alone, before the stat: the throttle


@dataclass(frozen=True)
class Row:
    layout: Layout
    idle: list[Probe]
    loaded: list[Probe]

    def line(self) -> str:
        idle_s = statistics.median(p.seconds for p in self.idle)
        reads = statistics.median(p.device_reads for p in self.idle)
        bios = [p.charged_bios for p in self.idle if p.charged_bios is not None]
        loaded_s = statistics.median(p.seconds for p in self.loaded)
        rates = [p.load_reads_per_second for p in self.loaded if p.load_reads_per_second]
        rate = statistics.median(rates) if rates else float("nan")
        charged = f"{statistics.median(bios):.0f}" if bios else "n/a"
        return (
            f"{self.layout.name:<30}{idle_s:9.2f}{reads:14.0f}{charged:>15}"
            f"{loaded_s:11.2f}{rate:15.1f}"
        )


def table(rows: Sequence[Row], settings: MetadataRun) -> str:
    model = settings.model
    head = (
        f"cold inodes: stat() of {settings.files:,} files in one directory of an emulated disk "
        f"({model.read_iops} IOPS, {model.read_bps / MiB:.0f} MiB/s), after a remount and "
        f"dropped caches; idle, and behind {settings.load_threads} threads of "
        f"{LOAD_READ >> 10} KiB O_DIRECT reads in the same throttled cgroup; "
        f"median of {settings.rounds} rounds"
    )
    columns = (
        f"{'filesystem':<30}{'idle s':>9}{'device reads':>14}{'charged bios':>15}"
        f"{'loaded s':>11}{'load reads/s':>15}"
    )
    return "\n".join([head, "", columns, *(row.line() for row in rows)])


def charged_reads(stat_text: str, device: str) -> int | None:
    """Read bios charged to a cgroup for `device` ("MAJ:MIN"), from cgroup v1's
    blkio.throttle.io_serviced ("7:0 Read 12") or v2's io.stat ("7:0 rbytes=.. rios=12 ..")."""
    for line in stat_text.splitlines():
        fields = line.split()
        if not fields or fields[0] != device:
            continue
        if len(fields) == 3 and fields[1] == "Read":
            return int(fields[2])
        for pair in fields[1:]:
            key, _, value = pair.partition("=")
            if key == "rios":
                return int(value)
    return None


def _charged(cgroup: Cgroup, device: str) -> int | None:
    for directory in cgroup.dirs:
        for name in ("blkio.throttle.io_serviced", "io.stat"):
            if (path := directory / name).exists():
                # A device the group has not read yet has no line: nothing charged.
                return charged_reads(path.read_text(), device) or 0
    return None


_STAT = """\
import os, sys, time
directory, count = sys.argv[1], int(sys.argv[2])
start = time.monotonic()
for i in range(count):
    os.stat(os.path.join(directory, f"{i:06d}"))
print(time.monotonic() - start)
"""

# Reads until killed; its rate is counted at the device. The time bound only ends an orphan.
_LOAD = """\
import mmap, os, random, sys, threading, time
path, threads, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
blocks = os.path.getsize(path) // size
end = time.monotonic() + 600
def read(n):
    rng, fd, buf = random.Random(n), os.open(path, os.O_RDONLY | os.O_DIRECT), mmap.mmap(-1, size)
    while time.monotonic() < end:
        os.preadv(fd, [buf], rng.randrange(blocks) * size)
for n in range(threads):
    threading.Thread(target=read, args=(n,)).start()
"""


def _populate(disk: LoopDisk, settings: MetadataRun) -> None:
    directory = disk.mount / "files"
    directory.mkdir()
    block = b"\0" * FILE_BYTES
    for i in range(settings.files):
        (directory / f"{i:06d}").write_bytes(block)
    with (disk.mount / "data.bin").open("wb") as fh:
        chunk = b"\1" * MiB
        for _ in range(settings.data_bytes // MiB):
            fh.write(chunk)


def _cold(disk: LoopDisk, layout: Layout) -> None:
    """Empty every cache of the filesystem: a remount drops its inodes and buffers (a freshly
    written ext4 keeps its inode-table blocks through drop_caches until the journal lets go)."""
    os.sync()
    unmount(disk.mount)
    run(["mount", "-o", "noatime", disk.device, str(disk.mount)])
    if layout.inode_readahead_blks is not None:
        disk.set_inode_readahead(layout.inode_readahead_blks)
    drop_caches()


def _probe(disk: LoopDisk, cgroup: Cgroup, settings: MetadataRun, loaded: bool) -> Probe:
    load, rate = None, None
    if loaded:
        load = subprocess.Popen(
            cgroup.command(
                [
                    sys.executable,
                    "-c",
                    _LOAD,
                    str(disk.mount / "data.bin"),
                    str(settings.load_threads),
                    str(LOAD_READ),
                ]
            ),
            stdout=subprocess.DEVNULL,
        )
        time.sleep(settings.settle_seconds / 2)
        before = disk.counters().read_ios
        time.sleep(settings.settle_seconds / 2)
        rate = (disk.counters().read_ios - before) / (settings.settle_seconds / 2)
    try:
        reads0, bios0 = disk.counters().read_ios, _charged(cgroup, disk.majmin)
        stat = subprocess.run(
            cgroup.command(
                [sys.executable, "-c", _STAT, str(disk.mount / "files"), str(settings.files)]
            ),
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        reads1, bios1 = disk.counters().read_ios, _charged(cgroup, disk.majmin)
    finally:
        if load is not None:
            load.kill()
            load.wait(timeout=60)
    if stat.returncode != 0:
        raise BenchError(f"metadata probe: stat failed: {stat.stderr.strip()}")
    return Probe(
        seconds=float(stat.stdout),
        device_reads=reads1 - reads0,
        charged_bios=bios1 - bios0 if bios0 is not None and bios1 is not None else None,
        load_reads_per_second=rate,
    )


def _layout_disk(
    layout: Layout, settings: MetadataRun, workdir: Path, janitor: Janitor, index: int
) -> LoopDisk:
    size = settings.data_bytes + settings.files * 16 * FILE_BYTES + 512 * MiB
    disk = make_disk(workdir, f"m{index}", size, janitor, filesystem=layout.filesystem)
    _populate(disk, settings)
    return disk


def missing_prerequisites() -> list[str]:
    """What keeps the probe from running here: disks only, no nginx and no wrk."""
    return missing_host({**DISK_TOOLS, "mkfs.xfs": "xfsprogs"})


@runlock.holds_the_lock("metadata")
def measure(log: Callable[[str], None], settings: MetadataRun) -> list[Row]:
    if problems := missing_prerequisites():
        raise BenchError("; ".join(problems))
    run_id = new_run_id("metadata")
    rows: list[Row] = []
    with cleaned_up(log) as janitor:
        workdir = work_dir(run_id, janitor)
        for index, layout in enumerate(LAYOUTS):
            disk = _layout_disk(layout, settings, workdir, janitor, index)
            idle: list[Probe] = []
            loaded: list[Probe] = []
            for round_no in range(settings.rounds):
                for probes, busy in ((loaded, True), (idle, False)):
                    _cold(disk, layout)
                    # A fresh group each time: the throttle charges the metadata reads it lets
                    # pass, and that debt would hold back whatever the group reads next.
                    cgroup = new_cgroup(f"{CGROUP_PREFIX}{run_id}-{index}-{len(probes)}-{busy}")
                    cgroup.create()
                    try:
                        cgroup.limit_reads(
                            disk.majmin, settings.model.read_bps, settings.model.read_iops
                        )
                        probes.append(_probe(disk, cgroup, settings, loaded=busy))
                    finally:
                        cgroup.destroy()
                log(
                    f"{layout.name}, round {round_no + 1}: idle {idle[-1].seconds:.2f} s "
                    f"({idle[-1].device_reads} device reads), behind the load "
                    f"{loaded[-1].seconds:.2f} s"
                )
            rows.append(Row(layout, idle, loaded))
    return rows


def run_metadata(log: Callable[[str], None], settings: MetadataRun) -> int:
    print(table(measure(log, settings), settings), flush=True)
    return 0
