"""`python -m bench threads`: what a node's pool threads cost nginx itself (issue 10, §5).

A tiny config (one listener, `workers` × `pools` × `threads` pool threads, no disks) is started
and reloaded with the real nginx; the bench counts the threads of every worker in /proc, sums
VmRSS and VmSize of master and workers, and times the start (exec until every worker runs all its
threads) and a reload (SIGHUP until the new workers run all theirs and the old ones are gone).
Every wait is bounded; nginx runs in its own session and is always stopped.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.system import BenchError, free_ports

_CONF = """\
worker_processes {workers};
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
{pools}
events {{
    worker_connections 64;
}}

http {{
    access_log off;
    server {{
        listen 127.0.0.1:{port};
        location / {{
            aio threads=p0;
            return 204;
        }}
    }}
}}
"""


# workers × pools × threads per pool: the bench node (2 cores, 4 HDDs, 1 GiB: 31 a pool), a
# 32-core 12-HDD node under the per-disk rule (16 a pool), and the node budget filled (8,192
# threads; a reload briefly runs old and new workers: twice that). The old budget, 16,384, is not
# measured: its reload needs 32,768 threads at once, all of a default pid_max.
SHAPES = ((2, 4, 31), (32, 12, 16), (64, 4, 32))
PORT_RANGE = (29000, 29999)


@dataclass(frozen=True)
class ThreadCost:
    workers: int
    pools: int
    threads: int  # per pool and worker
    total_threads: int  # counted in /proc
    rss_mib: float  # master + workers
    vsz_gib: float
    start_s: float
    reload_s: float

    def line(self) -> str:
        return (
            f"{self.workers:>4} workers x {self.pools:>3} pools x {self.threads:>4} threads = "
            f"{self.total_threads:>6} threads: RSS {self.rss_mib:8.1f} MiB, virtual "
            f"{self.vsz_gib:8.1f} GiB, start {self.start_s:6.2f} s, reload {self.reload_s:6.2f} s"
        )


def _status(pid: int) -> dict[str, str]:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    return dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _kib(value: str) -> int:
    return int(value.split()[0]) if value else 0


def _wait(done: Callable[[], bool], timeout: float, what: str) -> float:
    start = time.monotonic()
    while not done():
        if time.monotonic() - start > timeout:
            raise BenchError(f"{what} took more than {timeout:g} s")
        time.sleep(0.02)
    return time.monotonic() - start


def _ready(master: int, workers: int, per_worker: int, old: set[int]) -> bool:
    kids = [k for k in _children(master) if k not in old]
    if len(kids) != workers or any(k in old for k in _children(master)):
        return False
    return all(int(_status(k).get("Threads", "0")) >= per_worker for k in kids)


def measure(workers: int, pools: int, threads: int, timeout: float = 120.0) -> ThreadCost:
    """Start, measure and reload nginx with `workers` × `pools` pools of `threads` threads."""
    (port,) = free_ports(1, PORT_RANGE)
    per_worker = 1 + pools * threads
    with tempfile.TemporaryDirectory(prefix="tpgen-threads-") as tmp:
        prefix = Path(tmp)
        conf = prefix / "nginx.conf"
        conf.write_text(
            _CONF.format(
                workers=workers,
                prefix=prefix,
                port=port,
                pools="".join(f"thread_pool p{i} threads={threads};\n" for i in range(pools)),
            )
        )
        cmd = ["nginx", "-p", f"{prefix}/", "-c", str(conf), "-e", "stderr", "-g", "daemon off;"]
        started = time.monotonic()
        proc = subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
        )
        try:
            _wait(
                lambda: proc.poll() is not None or _ready(proc.pid, workers, per_worker, set()),
                timeout,
                "nginx start",
            )
            if proc.poll() is not None:
                raise BenchError(f"nginx exited: {proc.stderr.read().decode()[-500:]}")  # type: ignore[union-attr]
            start_s = time.monotonic() - started
            pids = [proc.pid, *_children(proc.pid)]
            status = [_status(p) for p in pids]
            total = sum(int(s.get("Threads", "0")) for s in status) - 1  # minus the master
            rss = sum(_kib(s.get("VmRSS", "")) for s in status) / 1024
            vsz = sum(_kib(s.get("VmSize", "")) for s in status) / 2**20
            old = set(pids[1:])
            os.kill(proc.pid, signal.SIGHUP)
            reload_s = _wait(
                lambda: (
                    _ready(proc.pid, workers, per_worker, old)
                    and not any(Path(f"/proc/{p}").exists() for p in old)
                ),
                timeout,
                "nginx reload",
            )
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    return ThreadCost(workers, pools, threads, total, rss, vsz, start_s, reload_s)
