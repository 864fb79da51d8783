"""The slow-disk bench still works: `python -m bench smoke` end to end, and after Ctrl-C.

Needs root and loop devices; skipped without them on a developer box, failed in CI (CI=true or
TPGEN_CI=1), where .ci/run installs everything."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.sysctls import applied
from tests.bench.smoke import interrupted, leftovers, require_a_bench_host, start, workdirs

TIMEOUT = 180
# What `python -m bench smoke` runs: every regime, the many-worker case, every arm once.
SMOKE_PAIRS = {
    "baseline-w2": ["stock", "tpgen", "perdisk", "handwritten", "floor"],
    "fast-disk-w2": ["stock", "tpgen", "perdisk"],
    "cold-metadata-w6": ["stock", "tpgen", "perdisk"],
    "small-files-w2": ["stock", "tpgen", "perdisk"],
}


@pytest.fixture(scope="module", autouse=True)
def _prerequisites() -> None:
    require_a_bench_host("bench smoke")


VFS_CACHE_PRESSURE = Path("/proc/sys/vm/vfs_cache_pressure")


@pytest.fixture
def host_sysctl() -> Iterator[str]:
    """The host's vm.vfs_cache_pressure set to a value no plan decides, for the run to give back;
    the host's own value is restored after the test."""
    with applied((("vm.vfs_cache_pressure", "101", False),)):
        yield "101\n"


def test_smoke_measures_every_regime_and_arm_and_cleans_up(
    tmp_path: Path, host_sysctl: str
) -> None:
    proc = start(tmp_path)
    output, _ = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0, output
    # tpgen's arms ran with the node's setting tpgen decides for HDDs; the host got its own back
    assert re.search(
        r"^tpgen: during its trials the node's sysctls .*vm.vfs_cache_pressure=50",
        output,
        re.MULTILINE,
    ), output
    assert VFS_CACHE_PRESSURE.read_text() == host_sysctl
    assert output.count("-> the throttle bites") == len(SMOKE_PAIRS), output
    for pair, arms in SMOKE_PAIRS.items():
        trials = json.loads((tmp_path / pair / "results.json").read_text())["trials"]
        assert [t["arm"] for t in trials] == arms, pair
        for trial in trials:
            assert trial["hot"]["errors"] == 0, trial
            assert trial["total_mbps"] > 0, trial
            if trial["arm"] != "stock":  # stock may block on the disk for the whole second
                assert trial["hot"]["requests"] > 0, trial
            if trial["arm"] != "floor":
                # A cold 1 MiB file on a 4 MiB/s disk may not finish within the 1 s trial under
                # load; bytes moved show that the arm served the cold load.
                assert trial["cold"]["bytes"] > 0, trial
                assert trial["disk_bytes"] > 0, trial
            # each disk's reads, named as the run's disks, add up to the trial's
            assert sum(trial["disk_bytes_each"].values()) == trial["disk_bytes"], trial
            assert all(re.fullmatch(r"d\d+", name) for name in trial["disk_bytes_each"]), trial
    summary = (tmp_path / "summary.txt").read_text()
    for regime, workers in (
        ("baseline", 2),
        ("fast-disk", 2),
        ("cold-metadata", 6),
        ("small-files", 2),
    ):
        row = rf"^{regime} +{workers}  tpgen ÷ stock +(inf|[\d.]+) "
        assert re.search(row, summary, re.MULTILINE), summary
    assert summary.count("tpgen ÷ perdisk") == 4, summary
    assert "tpgen ÷ handwritten" in summary, summary
    assert leftovers(workdirs(output)) == [], output


def test_smoke_cleans_up_when_interrupted(tmp_path: Path, host_sysctl: str) -> None:
    proc = start(tmp_path)
    output = interrupted(proc, "round 1 stock", TIMEOUT)  # nginx of the next arm is starting up
    assert proc.returncode == 130, output
    assert "interrupted by SIGINT" in output, output
    assert leftovers(workdirs(output)) == []
    assert VFS_CACHE_PRESSURE.read_text() == host_sysctl
