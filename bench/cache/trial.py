"""One cache trial: an arm's nginx on cold page caches, the three loads at once, what it stored."""

from __future__ import annotations

import http.client
import os
import subprocess
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from bench.arms import Arm
from bench.cache import store
from bench.cache.settings import CacheSettings
from bench.cgroups import Cgroup, CgroupV1
from bench.cpu import CpuMeter
from bench.load import Load, LoadResult, reap
from bench.loopdisk import LoopDisk, counters_between
from bench.nginxproc import IGNORED, Nginx
from bench.system import BenchError, cpu_count, drop_caches

HOT_URI = "/hot/object.bin"


def warm_uris(count: int) -> list[str]:
    return [f"/warm/{i:05d}.bin" for i in range(count)]


@dataclass(frozen=True)
class DiskIO:
    """One disk's counters over a trial's loads."""

    read_bytes: int
    read_ios: int
    write_bytes: int
    stored_bytes: int  # cache files the trial added on this disk (the fill)


@dataclass(frozen=True)
class CacheTrial:
    arm: str
    round: int
    hot: LoadResult
    warm: LoadResult
    fill: LoadResult
    seconds: float
    disks: dict[str, DiskIO]
    origin_warm: int  # warm-set requests the cache passed to the origin (misses)
    origin_fill: int
    memory_peak: int | None
    problems: list[str] = field(default_factory=list)
    other_cpu: float = 0.0

    @property
    def hit_ratio(self) -> float:
        """Share of the warm set's re-reads answered from the cache."""
        if not self.warm.requests:
            return 0.0
        return max(0.0, 1 - self.origin_warm / self.warm.requests)

    @property
    def fill_mbps(self) -> float:
        """Cache write rate: bytes of new cache files per second of load."""
        return sum(d.stored_bytes for d in self.disks.values()) / self.seconds / 1e6

    @property
    def read_mbps(self) -> float:
        return sum(d.read_bytes for d in self.disks.values()) / self.seconds / 1e6

    def disk_read_mbps(self) -> dict[str, float]:
        return {n: d.read_bytes / self.seconds / 1e6 for n, d in self.disks.items()}

    def disk_fill_mbps(self) -> dict[str, float]:
        return {n: d.stored_bytes / self.seconds / 1e6 for n, d in self.disks.items()}


def fetch(port: int, uris: Sequence[str], size: int, concurrency: int) -> None:
    """GET every URI once over keep-alive connections; each body must be `size` bytes."""

    def worker(share: Sequence[str]) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        try:
            for uri in share:
                for attempt in range(10):  # a fresh nginx may reset the very first connection
                    try:
                        conn.request("GET", uri)
                        resp = conn.getresponse()
                        body = resp.read()
                        break
                    except (ConnectionError, http.client.HTTPException):
                        conn.close()
                        if attempt == 9:
                            raise
                        time.sleep(0.3)
                if resp.status != 200 or len(body) != size:
                    raise BenchError(f"GET {uri}: {resp.status}, {len(body)} bytes, want {size}")
        finally:
            conn.close()

    shares = [list(uris[i::concurrency]) for i in range(concurrency)]
    with ThreadPoolExecutor(concurrency) as pool:
        for future in [pool.submit(worker, s) for s in shares if s]:
            try:
                future.result()
            except (OSError, http.client.HTTPException) as exc:
                raise BenchError(f"127.0.0.1:{port}: {exc!r} (see the arm's error.log)") from exc


def _loads(settings: CacheSettings, port: int, warm_list: Path, tag: str, seed: int) -> list[Load]:
    base = f"http://127.0.0.1:{port}"
    s = settings
    fill = Load(base + "/", s.fill_connections, s.wrk_threads, s.duration, "fill.lua", (tag,))
    warm = Load(
        base + "/", s.warm_connections, s.wrk_threads, s.duration, "cold.lua",
        (str(warm_list), str(seed)),
    )  # fmt: skip
    hot = Load(base + HOT_URI, s.hot_connections, s.wrk_threads, s.duration, "hot.lua")
    return [fill, warm, hot]


def cpu_seconds(cgroups: Sequence[Cgroup]) -> float:
    """CPU time of every process now in `cgroups` (user + system)."""
    total = 0
    for cgroup in cgroups:
        for pid in cgroup.pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


class Origin:
    """The origin's access log: which URIs the cache under test fetched since `mark`."""

    def __init__(self, access_log: Path) -> None:
        self.access_log = access_log
        self._offset = 0

    def mark(self) -> None:
        self._offset = self.access_log.stat().st_size if self.access_log.exists() else 0

    def fetched(self) -> list[str]:
        with self.access_log.open("rb") as fh:
            fh.seek(self._offset)
            return fh.read().decode(errors="replace").splitlines()


@dataclass(frozen=True)
class LiveArm:
    """An arm's nginx, running for the whole run in its own throttled cgroup: its keys zone
    holds the warm set as on a node that has been up for a while (after a restart nginx would
    index the cache only a minute later, and serve misses for objects it has on disk)."""

    arm: Arm
    nginx: Nginx
    cgroup: Cgroup
    port: int
    dirs: tuple[Path, ...]

    @property
    def error_log(self) -> Path:
        return self.arm.prefix / "error.log"


def _log_size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def _problems(error_log: Path, offset: int) -> list[str]:
    """error_log lines at [error] or worse written since `offset`."""
    if not error_log.exists():
        return []
    with error_log.open("rb") as fh:
        fh.seek(offset)
        text = fh.read().decode(errors="replace")
    levels = ("[error]", "[crit]", "[alert]", "[emerg]")
    return [
        line
        for line in text.splitlines()
        if any(x in line for x in levels) and not any(x in line for x in IGNORED)
    ]


def _reset_memory_peak(cgroup: Cgroup) -> None:
    if isinstance(cgroup, CgroupV1):
        (cgroup.memory / "memory.max_usage_in_bytes").write_text("0\n")


def run_cache_trial(
    live: LiveArm,
    round_no: int,
    *,
    settings: CacheSettings,
    disks: Sequence[LoopDisk],
    origin: Origin,
    ours: Sequence[Cgroup],
    warm_list: Path,
    logs: Path,
) -> CacheTrial:
    """Cold page cache (inodes warm), the hot object fetched once from its disk, then fill + HIT
    + hot loads at once; afterwards remove what the trial filled."""
    tag = f"r{round_no}-{live.arm.name}"
    drop_caches()
    before = store.scan(live.dirs)
    for disk in disks:
        store.warm_inode_tables(disk.device)
    _reset_memory_peak(live.cgroup)
    cpu = CpuMeter()
    ours_cpu = cpu_seconds(ours)
    wall = time.monotonic()
    log_offset = _log_size(live.error_log)
    procs: list[subprocess.Popen[str]] = []
    loads = _loads(settings, live.port, warm_list, f"/fill/{tag}", round_no)
    names = ("fill", "warm", "hot")
    try:
        fetch(live.port, [HOT_URI, HOT_URI], settings.object_size, 1)
        origin.mark()
        io_before = [disk.counters() for disk in disks]
        start = time.monotonic()
        for name, load in zip(names, loads, strict=True):
            procs.append(load.start(logs / f"{tag}-{name}.txt"))
        fill, warm, hot = (
            load.finish(proc, logs / f"{tag}-{name}.txt")
            for name, load, proc in zip(names, loads, procs, strict=True)
        )
        seconds = time.monotonic() - start
        io_after = [disk.counters() for disk in disks]
    finally:
        reap(procs)
    fetched = origin.fetched()
    time.sleep(1.0)  # misses still in flight when wrk stopped finish their cache files
    after = store.scan(live.dirs)
    stored = store.stored(before, after, [d.mount for d in disks])
    store.remove_new(before, after)
    # The bench's nginx processes run on unreaped: their CPU is not someone else's.
    ours_share = (cpu_seconds(ours) - ours_cpu) / ((time.monotonic() - wall) * cpu_count())
    each = counters_between([disk.name for disk in disks], io_before, io_after)
    io = {
        disk.name: DiskIO(
            read_bytes=each[disk.name].read_bytes,
            read_ios=each[disk.name].read_ios,
            write_bytes=each[disk.name].write_bytes,
            stored_bytes=s,
        )
        for disk, s in zip(disks, stored, strict=True)
    }
    return CacheTrial(
        arm=live.arm.name,
        round=round_no,
        hot=hot,
        warm=warm,
        fill=fill,
        seconds=seconds,
        disks=io,
        origin_warm=sum(uri.startswith("/warm/") for uri in fetched),
        origin_fill=sum(uri.startswith("/fill/") for uri in fetched),
        memory_peak=live.cgroup.memory_peak(),
        problems=_problems(live.error_log, log_offset),
        other_cpu=max(0.0, cpu.others_share() - ours_share),
    )
