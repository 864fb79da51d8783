"""bench.sockets: the loads' connections, per nginx worker and in their send queues."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import replace

import pytest

from bench.load import LoadResult
from bench.nginxproc import CACHE_LOADER_TITLE, WORKER_TITLE, titled
from bench.output import progress_line
from bench.report import noise, rounds_table, worker_spreads
from bench.sockets import (
    Sample,
    SocketSampler,
    busiest_share,
    connections_by_pid,
    send_queue_bytes,
)
from bench.trial import TrialResult

SS_LINES = """\
0      0      127.0.0.1:29390  127.0.0.1:49254 users:(("nginx",pid=1023,fd=42))
0      1048576 127.0.0.1:29390  127.0.0.1:49170 users:(("nginx",pid=1023,fd=37))
0      0      127.0.0.1:29390  127.0.0.1:49774 users:(("nginx",pid=1025,fd=27))
0  0  127.0.0.1:29390  127.0.0.1:49780 users:(("nginx",pid=1025,fd=9),("nginx",pid=1026,fd=9))
0      4096   127.0.0.1:29390  127.0.0.1:49790
"""


def test_connections_are_counted_per_owning_process() -> None:
    counts = connections_by_pid(SS_LINES)
    # a socket two processes share counts for both; one without an owner for none
    assert counts == Counter({1023: 2, 1025: 2, 1026: 1})


def test_the_send_queues_are_summed_over_every_connection() -> None:
    assert send_queue_bytes(SS_LINES) == 1048576 + 4096
    assert send_queue_bytes("") == 0
    assert send_queue_bytes("garbage\n\n0 12 a b\n") == 12


def test_without_ss_a_sample_is_missing_not_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    assert SocketSampler(1, list).sample() is None


def test_the_busiest_worker_is_compared_with_every_workers_mean() -> None:
    counts = Counter({1023: 6, 1025: 2})
    # the worker holding nothing counts in the mean: 6 ÷ (8 / 4)
    assert busiest_share(counts, [1023, 1025, 1026, 1027]) == 3.0
    assert busiest_share(counts, [1023, 1025]) == 1.5
    assert busiest_share(Counter(), [1023, 1025]) is None
    assert busiest_share(counts, []) is None


SLEEP = "import time; time.sleep(30)"


def _titled(title: str, script: str = SLEEP) -> subprocess.Popen[str]:
    """A python process whose title is `title`, as nginx sets its workers'."""
    return subprocess.Popen(
        ["bash", "-c", f'exec -a "{title}" {sys.executable} -c "{script}"'],
        stdout=subprocess.PIPE,
        text=True,
    )


def _wait_titled(proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with open(f"/proc/{proc.pid}/cmdline", "rb") as fh:
            if fh.read().startswith(b"nginx"):
                return
        time.sleep(0.01)
    raise AssertionError("the process never took its title")


@pytest.fixture
def stack() -> Iterator[ExitStack]:
    with ExitStack() as cleanup:
        yield cleanup


def _started(stack: ExitStack, title: str, script: str = SLEEP) -> int:
    proc = _titled(title, script)
    stack.callback(proc.wait)
    stack.callback(proc.kill)
    _wait_titled(proc)
    return proc.pid


def test_workers_are_found_by_their_title(stack: ExitStack) -> None:
    worker = _started(stack, "nginx: worker process")
    master = _started(stack, "nginx: master process nginx -c /x.conf")
    cache = _started(stack, "nginx: cache manager process")
    loader = _started(stack, "nginx: cache loader process")
    pids = {worker, master, cache, loader, 999_999_999}
    assert titled(pids, WORKER_TITLE) == {worker}
    assert titled(pids, CACHE_LOADER_TITLE) == {loader}


# accepts three connections on a port of its own, says which, and sends into each what fits
SERVER = (
    "import socket, time; s = socket.create_server(('127.0.0.1', 0)); "
    "print(s.getsockname()[1], flush=True); held = [s.accept()[0] for _ in range(3)]; "
    "[c.setblocking(False) for c in held]; "
    "sent = [c.send(bytes(1 << 20)) for c in held]; print(sum(sent), flush=True); "
    "time.sleep(30)"
)


def _client(port: int) -> socket.socket:
    """A client that reads nothing, with a small receive buffer: the server's bytes queue."""
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.connect(("127.0.0.1", port))
    return client


def test_a_sample_reads_the_ports_connections_from_the_kernel(stack: ExitStack) -> None:
    server = _titled("nginx: worker process", SERVER)
    stack.callback(server.wait)
    stack.callback(server.kill)
    assert server.stdout is not None
    port = int(server.stdout.readline())
    idle = _started(stack, "nginx: worker process")
    not_a_worker = os.getpid()
    sampler = SocketSampler(port, lambda: [server.pid, idle, not_a_worker])
    assert sampler.sample() == Sample(None, 0)  # nothing connected yet
    for _ in range(3):
        stack.enter_context(_client(port))
    assert int(server.stdout.readline()) > 0  # the server has queued its bytes
    sample = sampler.sample()
    # 3 connections on one of two workers: twice the mean; the clients' own ends are not counted
    assert sample is not None and sample.busiest_share == 2.0
    assert sample.send_queue > 0
    with SocketSampler(port, lambda: [server.pid, idle], interval=0.05) as running:
        time.sleep(0.3)
    assert running.samples and {s.busiest_share for s in running.samples} == {2.0}
    assert running.spread() == 2.0
    peak = running.send_queue_peak()
    assert peak is not None and peak == max(s.send_queue for s in running.samples) > 0
    idle_sampler = SocketSampler(port, list)
    assert (idle_sampler.spread(), idle_sampler.send_queue_peak()) == (None, None)


def _trial(arm: str, round_no: int, spread: float | None, queued: int | None = None) -> TrialResult:
    load = LoadResult(10.0, 1000, 4 * 10**9, 0, 10.0, 5.0, 30.0, 30.0)
    trial = TrialResult(arm, round_no, load, load, 10.0, 10**9, 2000, None)
    return replace(trial, worker_spread=spread, send_queue_peak=queued)


def test_the_connections_figures_are_reported_per_trial_and_per_arm() -> None:
    results = [
        _trial("tpgen", 1, 1.2, 292 << 20),
        _trial("tpgen", 2, 1.6, 0),
        _trial("tpgen", 3, 1.3, 5 << 20),
        _trial("perdisk", 1, 2.35, 61 << 20),
        _trial("stock", 1, None),
    ]
    line = progress_line(results[0])
    assert line.endswith("| busiest worker 1.20x the mean | send queues ≤ 292 MiB")
    assert "busiest worker" not in progress_line(results[-1])
    assert "send queues" not in progress_line(results[-1])
    table = rounds_table(results).splitlines()
    assert table[0].split()[-4:] == ["top", "worker", "sendq", "MiB"]
    assert table[1].split()[-2:] == ["1.20x", "292"]
    assert table[-1].split()[-2:] == ["n/a", "n/a"]
    expected = (
        "connections of the busiest worker ÷ the workers' mean (median): tpgen 1.30x, perdisk 2.35x"
    )
    assert worker_spreads(results) == expected
    assert noise(results).endswith(expected)
    assert worker_spreads([_trial("stock", 1, None)]) == ""
