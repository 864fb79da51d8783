"""bench.spread: each nginx worker's share of the loads' connections."""

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
from bench.output import progress_line
from bench.report import noise, rounds_table, worker_spreads
from bench.spread import SpreadSampler, busiest_share, connections_by_pid, worker_pids
from bench.trial import TrialResult

SS_LINES = """\
0      0      127.0.0.1:29390  127.0.0.1:49254 users:(("nginx",pid=1023,fd=42))
0      0      127.0.0.1:29390  127.0.0.1:49170 users:(("nginx",pid=1023,fd=37))
0      0      127.0.0.1:29390  127.0.0.1:49774 users:(("nginx",pid=1025,fd=27))
0  0  127.0.0.1:29390  127.0.0.1:49780 users:(("nginx",pid=1025,fd=9),("nginx",pid=1026,fd=9))
0      0      127.0.0.1:29390  127.0.0.1:49790
"""


def test_connections_are_counted_per_owning_process() -> None:
    counts = connections_by_pid(SS_LINES)
    # a socket two processes share counts for both; one without an owner for none
    assert counts == Counter({1023: 2, 1025: 2, 1026: 1})


def test_the_busiest_worker_is_compared_with_every_workers_mean() -> None:
    counts = Counter({1023: 6, 1025: 2})
    # the worker holding nothing counts in the mean: 6 ÷ (8 / 4)
    assert busiest_share(counts, [1023, 1025, 1026, 1027]) == 3.0
    assert busiest_share(counts, [1023, 1025]) == 1.5
    assert busiest_share(Counter(), [1023, 1025]) is None
    assert busiest_share(counts, []) is None


def _titled(title: str, script: str = "import time; time.sleep(30)") -> subprocess.Popen[str]:
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


def _started(stack: ExitStack, title: str, script: str = "import time; time.sleep(30)") -> int:
    proc = _titled(title, script)
    stack.callback(proc.wait)
    stack.callback(proc.kill)
    _wait_titled(proc)
    return proc.pid


def test_workers_are_found_by_their_title(stack: ExitStack) -> None:
    worker = _started(stack, "nginx: worker process")
    master = _started(stack, "nginx: master process nginx -c /x.conf")
    cache = _started(stack, "nginx: cache manager process")
    assert worker_pids({worker, master, cache, 999_999_999}) == {worker}


# accepts three connections on a port of its own, says which, and keeps them
SERVER = (
    "import socket, time; s = socket.create_server(('127.0.0.1', 0)); "
    "print(s.getsockname()[1], flush=True); held = [s.accept()[0] for _ in range(3)]; "
    "time.sleep(30)"
)


def test_a_sample_reads_the_ports_connections_from_the_kernel(stack: ExitStack) -> None:
    server = _titled("nginx: worker process", SERVER)
    stack.callback(server.wait)
    stack.callback(server.kill)
    assert server.stdout is not None
    port = int(server.stdout.readline())
    idle = _started(stack, "nginx: worker process")
    not_a_worker = os.getpid()
    sampler = SpreadSampler(port, lambda: [server.pid, idle, not_a_worker])
    assert sampler.sample() is None  # nothing connected yet
    for _ in range(3):
        stack.enter_context(socket.create_connection(("127.0.0.1", port)))
    deadline = time.monotonic() + 10
    while (share := sampler.sample()) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    # 3 connections on one of two workers: twice the mean; the clients' own ends are not counted
    assert share == 2.0
    with SpreadSampler(port, lambda: [server.pid, idle], interval=0.05) as running:
        time.sleep(0.3)
    assert running.samples and set(running.samples) == {2.0}
    assert running.median() == 2.0
    assert SpreadSampler(port, list).median() is None


def _trial(arm: str, round_no: int, spread: float | None) -> TrialResult:
    load = LoadResult(10.0, 1000, 4 * 10**9, 0, 10.0, 5.0, 30.0, 30.0)
    trial = TrialResult(arm, round_no, load, load, 10.0, 10**9, 2000, None)
    return replace(trial, worker_spread=spread)


def test_the_busiest_workers_share_is_reported_per_trial_and_per_arm() -> None:
    results = [
        _trial("tpgen", 1, 1.2),
        _trial("tpgen", 2, 1.6),
        _trial("tpgen", 3, 1.3),
        _trial("perdisk", 1, 2.35),
        _trial("stock", 1, None),
    ]
    assert progress_line(results[0]).endswith("| busiest worker 1.20x the mean")
    assert "busiest worker" not in progress_line(results[-1])
    table = rounds_table(results).splitlines()
    assert table[0].split()[-2:] == ["top", "worker"]
    assert table[1].endswith("1.20x") and table[-1].endswith("n/a")
    expected = (
        "connections of the busiest worker ÷ the workers' mean (median): tpgen 1.30x, perdisk 2.35x"
    )
    assert worker_spreads(results) == expected
    assert noise(results).endswith(expected)
    assert worker_spreads([_trial("stock", 1, None)]) == ""
