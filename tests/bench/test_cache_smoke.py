"""The cache workload of the bench still works: `python -m bench smoke --workload cache` end to end,
and after Ctrl-C.

Needs root and loop devices; skipped without them on a developer box, failed in CI (CI=true or
TPGEN_CI=1), where .ci/run installs everything."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.bench.smoke import interrupted, leftovers, require_a_bench_host, start, workdirs

TIMEOUT = 240


@pytest.fixture(scope="module", autouse=True)
def _prerequisites() -> None:
    require_a_bench_host("bench cache smoke")


def test_cache_smoke_measures_every_arm_and_cleans_up(tmp_path: Path) -> None:
    proc = start(tmp_path, "--workload", "cache")
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
    assert leftovers(workdirs(output)) == []


def test_cache_smoke_cleans_up_when_interrupted(tmp_path: Path) -> None:
    proc = start(tmp_path, "--workload", "cache")
    # once the article's warm set is in, the origin and every arm are running
    output = interrupted(proc, "warm set via article", TIMEOUT)
    assert proc.returncode == 130, output
    assert "interrupted by SIGINT" in output, output
    assert leftovers(workdirs(output)) == []
