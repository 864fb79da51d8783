"""Prove the emulated disks are slow: cold reads with and without the cgroup, measured at the
block device. Prints what the kernel really delivered next to the configured limits."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.cgroups import Cgroup
from bench.loopdisk import LoopDisk
from bench.settings import DiskModel
from bench.system import BenchError, drop_caches

_READ_LOOP = 'for f in "$@"; do dd if="$f" of=/dev/null bs="$BS" $FLAG status=none || exit 1; done'


@dataclass(frozen=True)
class Probe:
    label: str
    mbps: float
    iops: float
    avg_io_kib: float
    limit: str  # what should cap it

    def line(self) -> str:
        return (
            f"  {self.label:<38} {self.mbps:8.1f} MB/s {self.iops:8.0f} IOPS "
            f"{self.avg_io_kib:7.0f} KiB/IO   {self.limit}"
        )


def _read(
    disk: LoopDisk, files: list[Path], block: str, direct: bool, cgroup: Cgroup | None
) -> tuple[float, float, float]:
    drop_caches()
    env = dict(os.environ, BS=block, FLAG="iflag=direct" if direct else "")
    counted = disk.counters()
    start = time.monotonic()
    argv = ["sh", "-c", _READ_LOOP, "sh", *map(str, files)]
    proc = subprocess.run(
        cgroup.command(argv) if cgroup else argv,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        raise BenchError(f"throttle probe failed: {proc.stderr.strip()}")
    read = disk.counters() - counted
    ios, nbytes = read.read_ios, read.read_bytes
    return nbytes / seconds / 1e6, ios / seconds, (nbytes / ios / 1024 if ios else 0.0)


def probe(disk: LoopDisk, files: list[Path], model: DiskModel, cgroup: Cgroup) -> list[Probe]:
    """Four cold reads of `disk`: unthrottled, then in `cgroup` buffered, O_DIRECT, small O_DIRECT.

    `files` must hold at least four groups of never-read files (each group is read once cold)."""
    if len(files) < 4:
        raise BenchError("throttle probe needs at least four files")
    groups = [files[i::4] for i in range(4)]
    bps_limit = f"limit {model.read_bps / 1e6:.1f} MB/s"
    small = "64k"
    iops_cap = model.read_iops * 64 * 1024 / 1e6
    probes = []
    for label, group, block, direct, cg, limit in [
        ("outside the cgroup, O_DIRECT 1 MiB", groups[0], "1M", True, None, "no limit"),
        ("in the cgroup, buffered 1 MiB", groups[1], "1M", False, cgroup, bps_limit),
        ("in the cgroup, O_DIRECT 1 MiB", groups[2], "1M", True, cgroup, bps_limit),
        (
            "in the cgroup, O_DIRECT 64 KiB",
            groups[3],
            small,
            True,
            cgroup,
            f"limit {model.read_iops} IOPS = {iops_cap:.1f} MB/s",
        ),
    ]:
        mbps, iops, kib = _read(disk, group, block, direct, cg)
        probes.append(Probe(label, mbps, iops, kib, limit))
    return probes


def backing_slow(probes: list[Probe], model: DiskModel) -> str:
    """A warning when the disk outside the cgroup is not clearly faster than the throttle: the
    host (other sessions' I/O) then caps every arm too; disk MB/s ÷ throttle shows how much."""
    free = probes[0]
    if free.mbps < 1.5 * model.read_bps / 1e6:
        return f"unthrottled read only {free.mbps:.1f} MB/s: the backing disk is slow"
    return ""


def bites(probes: list[Probe], model: DiskModel, slack: float = 1.3) -> list[str]:
    """Problems: a throttled probe faster than its limit (x slack), or the unthrottled one not
    clearly faster than the limit."""
    problems = []
    _free, buffered, direct, small = probes
    if slow := backing_slow(probes, model):
        problems.append(slow)
    for p in (buffered, direct):
        if p.mbps > slack * model.read_bps / 1e6:
            problems.append(f"{p.label}: {p.mbps:.1f} MB/s, above the throttle")
    if small.iops > slack * model.read_iops:
        problems.append(f"{small.label}: {small.iops:.0f} IOPS, above the throttle")
    return problems


def log_check(
    title: str,
    probes: list[Probe],
    problems: list[str],
    *,
    strict: bool,
    log: Callable[[str], None],
) -> None:
    """The throttle check's lines in a run's log; with `strict`, a problem ends the run."""
    log(f"throttle check on {title}:")
    for line in probes:
        log(line.line())
    log("  -> the throttle bites" if not problems else "  -> PROBLEM: " + "; ".join(problems))
    if problems and strict:
        raise BenchError("the disks are not throttled: " + "; ".join(problems))
