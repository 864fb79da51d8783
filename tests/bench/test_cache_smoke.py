"""The cache workload of the bench still works: `python -m bench smoke --workload cache` end to end,
and after Ctrl-C.

Needs root and loop devices; skipped without them on a developer box, failed in CI (CI=true or
TPGEN_CI=1), where .ci/run installs everything."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bench.system import missing_prerequisites
from tests.bench.test_smoke import _leftovers, _workdir
from tests.conftest import unavailable

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 240


@pytest.fixture(scope="module", autouse=True)
def _prerequisites() -> None:
    problems = missing_prerequisites()
    if not problems:
        return
    unavailable("bench cache smoke cannot run: " + "; ".join(problems))


def _start(out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bench", "smoke", "--workload", "cache", "--out", str(out)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_cache_smoke_measures_every_arm_and_cleans_up(tmp_path: Path) -> None:
    proc = _start(tmp_path)
    output, _ = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0, output
    assert "-> the throttle bites" in output, output
    trials = json.loads((tmp_path / "results.json").read_text())["trials"]
    assert [t["arm"] for t in trials] == ["stock", "article", "tpgen"]
    for trial in trials:
        disks = trial["disks"]
        assert list(disks) == ["d1", "d2"], trial
        assert trial["hot"]["errors"] == 0 and trial["warm"]["errors"] == 0, trial
        assert trial["warm"]["requests"] > 0, trial
        assert trial["origin_warm"] == 0, trial  # the warm set is served from the cache
        assert disks["d1"]["read_bytes"] > 0, trial
        if trial["arm"] == "stock":  # one cache, on the first disk; its fill may starve for 1 s
            assert disks["d2"]["stored_bytes"] == 0 and disks["d2"]["read_bytes"] == 0, trial
            continue
        assert trial["fill"]["requests"] > 0 and trial["origin_fill"] > 0, trial
        assert trial["hot"]["requests"] > 0, trial
        for disk in disks.values():  # a cache per disk: HITs read and misses stored on each
            assert disk["read_bytes"] > 0 and disk["stored_bytes"] > 0, trial
    table = (tmp_path / "table.txt").read_text()
    assert re.search(r"^tpgen ÷ article +[\d.]+ ", table, re.MULTILINE), table
    assert re.search(r"^tpgen ÷ stock +(inf|[\d.]+) ", table, re.MULTILINE), table
    assert (
        "proxy_cache_path @MNT@/d2/@ARM@ " in (tmp_path / "tpgen-cache.conf.template").read_text()
    )
    assert _leftovers(_workdir(output)) == []


def test_cache_smoke_cleans_up_when_interrupted(tmp_path: Path) -> None:
    proc = _start(tmp_path)
    watchdog = threading.Timer(TIMEOUT, proc.kill)
    watchdog.start()
    lines = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("warm set via article"):  # origin and every arm are running
                proc.send_signal(signal.SIGINT)
                break
        lines.append(proc.stdout.read())
        proc.wait()
    finally:
        watchdog.cancel()
    output = "".join(lines)
    assert proc.returncode == 130, output
    assert "interrupted by SIGINT" in output, output
    assert _leftovers(_workdir(output)) == []
