"""`python -m bench cork`: what tcp_nopush does to a cached answer, with no disk in the way.

The regimes found tcp_nopush (TCP_CORK around every answer sent with sendfile) worth 1.25× hot
req/s at 12 workers when wrk keeps its connections, and 0.87× when clients come and go
(issue 10, sessions 6-7). This bench asks whether that is TCP's doing or the disks': one 4 MiB
file in the page cache, two nginx configs that differ in `tcp_nopush` only, otherwise tpgen's
settings for a node whose every disk has a pool (sendfile in the pool, its chunk, its threads,
tcp_nodelay), and four client mixes through the regimes' own wrk scripts:

- kept: hot.lua, every connection kept for the whole run (the regimes' default load);
- built: hot_reconnect.lua with nothing closed, the control: each request built in Lua (wrk's
  extra CPU for the next mix) but every connection kept;
- come and go: hot_reconnect.lua, every N-th request of a wrk thread with `Connection: close`;
- paced: hot_paced.lua, connections kept, each waiting MS ms after an answer, so both arms
  serve the same rate below capacity and their latencies compare at equal load.

The arms alternate for several rounds; per mix the report gives each arm's median req/s, p50 and
p99 and the median of the same-round ratios off ÷ on, with how many rounds the cork won on
req/s. Nothing here decides: the figures feed tcp_nopush's reason (plan/defaults.py).
`--file-size` sets the answer (tpgen corks only from CORK_MIN_OBJECT, so below it the "off" arm
is tpgen's choice), `--on-loop` runs sendfile() on the event loop as on a node without pooled
disks, `--mixes` picks the client mixes.
"""

from __future__ import annotations

import os
import shutil
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tpgen.api import (
    HDD_WORKER_THREADS,
    SENDFILE_MAX_CHUNK,
    SENDFILE_MAX_CHUNK_POOLED,
    short_size,
)

from bench import runlock
from bench.cgroups import new_cgroup
from bench.leftovers import BENCH_ROOT, CGROUP_PREFIX, new_run_id
from bench.load import Load, LoadResult
from bench.nginxproc import Nginx
from bench.system import BenchError, free_ports

PORT_RANGE = (30100, 30999)  # below the ephemeral range (32768+): no client port lands here
FILE_SIZE = 4 << 20  # the regimes' files (bench.settings.FULL); --file-size changes it
HOT_URI = "/hot.bin"
CONNECTIONS = 50  # the regimes' hot connections
WRK_THREADS = 2
ARMS = ("on", "off")  # tcp_nopush


MIX_KEYS = ("kept", "built", "closing", "paced")


@dataclass(frozen=True)
class Mix:
    key: str  # one of MIX_KEYS: what --mixes selects
    name: str
    script: str
    args: tuple[str, ...]


def mixes(reconnect_every: int, think_ms: int, keys: Sequence[str] = MIX_KEYS) -> tuple[Mix, ...]:
    every = (
        Mix("kept", "kept (hot.lua)", "hot.lua", ()),
        Mix("built", "built, kept (control)", "hot_reconnect.lua", ("0",)),
        Mix(
            "closing",
            f"come and go (every {reconnect_every})",
            "hot_reconnect.lua",
            (str(reconnect_every),),
        ),
        Mix("paced", f"paced, kept ({think_ms} ms)", "hot_paced.lua", (str(think_ms), "0")),
    )
    unknown = sorted(set(keys) - set(MIX_KEYS))
    if unknown or not keys:
        raise BenchError(
            f"expected a comma-separated subset of {','.join(MIX_KEYS)}, not: "
            f"{', '.join(unknown) or 'none'}"
        )
    return tuple(mix for mix in every if mix.key in keys)


def config(nopush: str, workers: int, prefix: Path, port: int, *, pooled: bool = True) -> str:
    """tpgen's socket settings for a pooled disk (plan/io.py), or with `pooled` False for a node
    whose sendfile() runs on the event loop (no pool, its chunk); only tcp_nopush varies. The
    pool gets tpgen's floor of threads a worker and its 2m chunk: with no cold transfer in it,
    the memory cap that lowers a small node's threads and chunk (plan/transfers.py) has nothing
    to hold."""
    user = "user root;\n" if os.geteuid() == 0 else ""
    pool = f"thread_pool hot threads={HDD_WORKER_THREADS};\n" if pooled else ""
    chunk = SENDFILE_MAX_CHUNK_POOLED if pooled else SENDFILE_MAX_CHUNK
    aio = "aio threads=hot;" if pooled else "aio off;"
    return (
        f"{user}worker_processes {workers};\n"
        f"pid {prefix}/nginx.pid;\nerror_log {prefix}/error.log warn;\n"
        f"{pool}"
        "events { worker_connections 4096; }\n"
        "http {\n    access_log off;\n    keepalive_requests 1000000;\n"
        f"    sendfile on;\n    sendfile_max_chunk {chunk};\n"
        f"    tcp_nopush {nopush};\n    tcp_nodelay on;\n"
        f"    server {{\n        listen 127.0.0.1:{port};\n        root {prefix}/www;\n"
        f"        location / {{ {aio} }}\n    }}\n}}\n"
    )


@dataclass(frozen=True)
class Row:
    mix: str
    on: Sequence[LoadResult]
    off: Sequence[LoadResult]

    def line(self) -> str:
        ratios = [b.rps / a.rps for a, b in zip(self.on, self.off, strict=True) if a.rps]
        won = sum(a.rps > b.rps for a, b in zip(self.on, self.off, strict=True))
        low, mid, high = min(ratios), statistics.median(ratios), max(ratios)
        latencies = (
            f"{_median(self.on, 'latency_p50_ms'):.0f}/{_median(self.on, 'latency_p99_ms'):.0f}",
            f"{_median(self.off, 'latency_p50_ms'):.0f}/{_median(self.off, 'latency_p99_ms'):.0f}",
        )
        return (
            f"  {self.mix:30} {_median(self.on, 'rps'):8.0f} {_median(self.off, 'rps'):9.0f}"
            f" {mid:8.2f} ({low:.2f}-{high:.2f}) {latencies[0]:>11} {latencies[1]:>12}"
            f" {won:>4}/{len(self.on)}"
        )


def _median(results: Sequence[LoadResult], field: str) -> float:
    return statistics.median(float(getattr(r, field)) for r in results)


@dataclass(frozen=True)
class CorkRun:
    """One `bench cork` run: the node's shape, the answer, the clients, how long."""

    workers: int = 2
    rounds: int = 6
    duration: int = 6
    reconnect_every: int = 10
    think_ms: int = 80
    file_size: int = FILE_SIZE
    mix_keys: tuple[str, ...] = MIX_KEYS
    pooled: bool = True  # False: sendfile() on the event loop, no pool (a node with no HDD pool)

    def head(self) -> str:
        where = "sendfile in a thread pool" if self.pooled else "sendfile on the event loop"
        return (
            f"tcp_nopush with no disk: a {short_size(self.file_size)} file in the page cache, "
            f"{where}, {self.workers} workers, {CONNECTIONS} connections, {self.rounds} rounds x "
            f"{self.duration} s, arms alternating"
        )


def table(rows: Sequence[Row], run: CorkRun) -> str:
    head = (
        f"{run.head()}\n"
        f"  {'clients':30} {'on req/s':>8} {'off req/s':>9} {'off ÷ on (range)':>20}"
        f" {'on p50/p99':>11} {'off p50/p99':>12} {'on won':>6}"
    )
    return "\n".join([head, *(row.line() for row in rows)])


class _Server:
    def __init__(self, nopush: str, run: CorkRun, root: Path, port: int) -> None:
        prefix = root / f"nopush-{nopush}"
        (prefix / "www").mkdir(parents=True)
        (prefix / "www" / HOT_URI.lstrip("/")).write_bytes(os.urandom(run.file_size))
        conf = prefix / "nginx.conf"
        conf.write_text(
            config(nopush, run.workers, prefix, port, pooled=run.pooled), encoding="utf-8"
        )
        self.cgroup = new_cgroup(f"{CGROUP_PREFIX}{root.name}-{nopush}")
        self.nginx = Nginx(conf, prefix, port, self.cgroup)
        self.url = f"http://127.0.0.1:{port}{HOT_URI}"

    def run(self, mix: Mix, duration: int, log: Path) -> LoadResult:
        self.cgroup.create()
        try:
            self.nginx.start()
            load = Load(self.url, CONNECTIONS, WRK_THREADS, duration, mix.script, mix.args)
            result = load.finish(load.start(log), log)
            problems = self.nginx.problems()
        finally:
            self.nginx.stop()
            self.cgroup.destroy()
        if result.stalled:  # no disk here: a client that cannot stop is a broken host
            raise BenchError(f"{self.url}: wrk did not stop: {log}")
        if problems or result.errors:
            raise BenchError(f"{self.url}: {result.errors} errors; {problems[:3]}")
        return result


@runlock.holds_the_lock("cork")
def measure(log: Callable[[str], None], run: CorkRun) -> list[Row]:
    chosen = mixes(run.reconnect_every, run.think_ms, run.mix_keys)
    root = BENCH_ROOT / new_run_id("cork")
    ports = free_ports(len(ARMS), PORT_RANGE)
    rows = []
    try:
        servers = {
            arm: _Server(arm, run, root, port) for arm, port in zip(ARMS, ports, strict=True)
        }
        for index, mix in enumerate(chosen):
            got: dict[str, list[LoadResult]] = {arm: [] for arm in ARMS}
            for round_no in range(run.rounds):
                for arm in ARMS if round_no % 2 == 0 else ARMS[::-1]:
                    wrk_log = root / f"wrk-{arm}-mix{index}-round{round_no}.log"
                    got[arm].append(servers[arm].run(mix, run.duration, wrk_log))
            rows.append(Row(mix.name, got["on"], got["off"]))
            log(rows[-1].line())
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return rows


def run_cork(log: Callable[[str], None], run: CorkRun) -> int:
    if run.rounds < 1 or run.duration < 1:
        raise BenchError("--rounds and --duration: at least 1")
    rows = measure(log, run)
    print(table(rows, run))
    return 0
