"""One trial: one arm, cold caches, both loads at once, disk counters around them."""

from __future__ import annotations

import shutil
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from bench import dataset, sysctls
from bench.arms import Arm
from bench.cgroups import Cgroup, new_cgroup
from bench.cpu import CpuMeter
from bench.dataset import Dataset
from bench.load import Load, LoadResult, reap
from bench.loopdisk import LoopDisk, counters_between
from bench.nginxproc import Nginx
from bench.settings import DiskModel, MiB, Settings
from bench.sockets import SocketSampler
from bench.system import BenchError, drop_caches
from bench.throttle import Probe, probe


@dataclass(frozen=True)
class TrialResult:
    arm: str
    round: int
    hot: LoadResult
    cold: LoadResult | None
    seconds: float
    disk_bytes: int
    disk_ios: int
    memory_peak: int | None
    problems: list[str] = field(default_factory=list)
    other_cpu: float = 0.0  # share of all CPUs used by processes other than nginx and wrk
    # the busiest worker's connections ÷ the workers' mean, median of the trial's samples
    worker_spread: float | None = None
    send_queue_peak: int | None = None  # bytes in the loads' send queues at most, at once
    # bytes read from each disk (by name): which disks a round's cold load favoured
    disk_bytes_each: dict[str, int] = field(default_factory=dict)

    def stalled_loads(self) -> list[str]:
        """The loads whose wrk had to be killed (bench.load.LoadResult.stall)."""
        loads = [("hot", self.hot), ("cold", self.cold)]
        return [name for name, load in loads if load is not None and load.stalled]

    @property
    def disk_mbps(self) -> float:
        return self.disk_bytes / self.seconds / 1e6

    @property
    def disk_iops(self) -> float:
        return self.disk_ios / self.seconds

    @property
    def send_queue_mib(self) -> float | None:
        return None if self.send_queue_peak is None else self.send_queue_peak / MiB

    @property
    def total_mbps(self) -> float:
        return self.hot.mbps + (self.cold.mbps if self.cold else 0.0)


class CgroupLimits(Protocol):
    """What a bench's settings say of the cgroup nginx runs in (origin and cache benches alike)."""

    @property
    def disk_model(self) -> DiskModel: ...

    @property
    def nginx_memory(self) -> int: ...


def limited_cgroup(name: str, disks: Sequence[LoopDisk], settings: CgroupLimits) -> Cgroup:
    """A new cgroup with every disk throttled and memory bounded as `settings` say."""
    cgroup = new_cgroup(name)
    cgroup.create()
    try:
        for disk in disks:
            cgroup.limit_reads(
                disk.majmin, settings.disk_model.read_bps, settings.disk_model.read_iops
            )
        cgroup.limit_memory(settings.nginx_memory)
    except BaseException:
        cgroup.destroy()
        raise
    return cgroup


def probe_first_disk(
    cgroup_name: str, disks: Sequence[LoopDisk], settings: CgroupLimits, files: list[Path]
) -> list[Probe]:
    """The throttle probe of `files` on the first disk, in a fresh cgroup limited as the trials'."""
    cgroup = limited_cgroup(cgroup_name, disks, settings)
    try:
        return probe(disks[0], files, settings.disk_model, cgroup)
    finally:
        cgroup.destroy()


def _warm(url: str, size: int, attempts: int = 10) -> None:
    """Fetch the hot file twice (it is in the page cache afterwards). A fresh nginx may reset the
    very first connection while its workers start: retry those for a few seconds."""
    fetched = 0
    for attempt in range(attempts):
        try:
            with urllib.request.urlopen(url, timeout=30) as resp:
                body = resp.read()
        except (ConnectionError, urllib.error.URLError) as exc:
            if attempt == attempts - 1:
                raise BenchError(f"{url}: {exc}") from exc
            time.sleep(0.5)
            continue
        if len(body) != size:
            raise BenchError(f"{url}: got {len(body)} bytes, expected {size}")
        fetched += 1
        if fetched == 2:
            return


def _loads(settings: Settings, data: Dataset, port: int, round_no: int) -> tuple[Load, Load]:
    base = f"http://127.0.0.1:{port}"
    think, every = settings.hot_think_ms, settings.reconnect_every
    args: tuple[str, ...]
    if think:
        script, args = "hot_paced.lua", (str(think), str(every))
    elif every:
        script, args = "hot_reconnect.lua", (str(every),)
    else:
        script, args = "hot.lua", ()
    hot = Load(
        base + data.hot_uri,
        settings.hot_connections,
        settings.wrk_threads,
        settings.duration,
        script,
        args,
    )
    cold = Load(
        base + "/",
        settings.cold_connections,
        settings.wrk_threads,
        settings.duration,
        "cold.lua",
        (
            str(data.uri_list),
            str(settings.cold_sequence_seed(round_no)),
            *(("close",) if every else ()),
        ),
    )
    return hot, cold


def _both_loads(
    arm: Arm, hot: Load, cold: Load, *, logs: Path, tag: str, procs: list[subprocess.Popen[str]]
) -> tuple[LoadResult, LoadResult | None]:
    """The cold load (if the arm has one) and the hot one at once; each wrk joins `procs`."""
    if arm.cold_load:
        procs.append(cold.start(logs / f"{tag}-cold.txt"))
    procs.append(hot.start(logs / f"{tag}-hot.txt"))
    hot_result = hot.finish(procs[-1], logs / f"{tag}-hot.txt")
    cold_result = cold.finish(procs[0], logs / f"{tag}-cold.txt") if arm.cold_load else None
    return hot_result, cold_result


def run_trial(
    arm: Arm,
    round_no: int,
    *,
    settings: Settings,
    disks: list[LoopDisk],
    data: Dataset,
    port: int,
    workdir: Path,
    cgroup_name: str,
) -> TrialResult:
    """Cold caches (warm inodes), nginx in a fresh cgroup, both loads at once; then stop it all."""
    prefix = arm.prefix
    logs = workdir / "logs"
    logs.mkdir(exist_ok=True)
    tag = f"r{round_no}-{arm.name}"
    for stale in ("error.log", "access.log"):
        (prefix / stale).unlink(missing_ok=True)
    drop_caches()
    if not settings.cold_metadata:
        dataset.warm_metadata(data)
    cpu = CpuMeter()
    cgroup = limited_cgroup(cgroup_name, disks, settings)
    nginx = Nginx(arm.conf, prefix, port, cgroup)
    procs: list[subprocess.Popen[str]] = []
    hot, cold = _loads(settings, data, port, round_no)
    # tpgen's node's kernel settings and an arm's read-ahead, during its trial only (bench.sysctls)
    with (
        sysctls.applied(arm.sysctls),
        sysctls.read_ahead(arm.read_ahead),
    ):
        try:
            nginx.start()
            _warm(hot.url, data.file_size)
            before = [disk.counters() for disk in disks]
            start = time.monotonic()
            with SocketSampler(port, cgroup.pids) as sockets:
                hot_result, cold_result = _both_loads(
                    arm, hot, cold, logs=logs, tag=tag, procs=procs
                )
            seconds = time.monotonic() - start
            after = [disk.counters() for disk in disks]
            peak = cgroup.memory_peak()
            problems = nginx.problems()  # before the shutdown, which logs workers killed mid-read
        finally:
            reap(procs)
            try:
                nginx.stop()
            finally:
                cgroup.destroy()
                (logs / f"{tag}-nginx.txt").write_text(nginx.output())
                if (prefix / "error.log").exists():
                    shutil.copy(prefix / "error.log", logs / f"{tag}-error.log")
    each = counters_between([disk.name for disk in disks], before, after)
    return TrialResult(
        arm=arm.name,
        round=round_no,
        hot=hot_result,
        cold=cold_result,
        seconds=seconds,
        disk_bytes=sum(io.read_bytes for io in each.values()),
        disk_ios=sum(io.read_ios for io in each.values()),
        memory_peak=peak,
        problems=problems,
        other_cpu=cpu.others_share(),
        worker_spread=sockets.spread(),
        send_queue_peak=sockets.send_queue_peak(),
        disk_bytes_each={name: io.read_bytes for name, io in each.items()},
    )
