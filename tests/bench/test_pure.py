"""The bench's pure parts: wrk summaries, config relocation, the table and the goals."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from bench.arms import relocate, single_root_conf, substitute
from bench.cli import _arm_file, _tuning_arm
from bench.load import LoadResult, parse_summary
from bench.report import goals, table
from bench.settings import FULL
from bench.trial import TrialResult

WRK_OUTPUT = """Running 1s test @ http://127.0.0.1:29000/files/hot.bin
  1 threads and 4 connections
TPGEN-WRK {"duration_us":1000000,"requests":500,"bytes":2097152000,\
"errors":{"connect":0,"read":0,"write":0,"status":1,"timeout":0},\
"latency_us":{"min":900,"mean":8000.5,"p50":7000,"p90":12000,"p99":20000,"max":31000}}
"""


def test_parse_summary_reads_the_lua_json_line() -> None:
    result = parse_summary(WRK_OUTPUT)
    assert result.requests == 500
    assert result.rps == 500.0
    assert result.mbps == pytest.approx(2097.152)
    assert result.errors == 1
    assert result.latency_p99_ms == 20.0


def test_relocate_moves_only_runtime_paths(tmp_path: Path) -> None:
    conf = (
        "user www-data;\npid /run/nginx.pid;\nerror_log /var/log/nginx/error.log warn;\n"
        "thread_pool pool_d1 threads=16 max_queue=65536;\nhttp {\n"
        "    access_log /var/log/nginx/access.log combined buffer=64k flush=5s;\n"
        "    server { access_log off; }\n}\n"
    )
    moved = relocate(conf, tmp_path)
    assert f"pid {tmp_path}/nginx.pid;" in moved
    assert f"error_log {tmp_path}/error.log warn;" in moved
    assert f"access_log {tmp_path}/access.log combined buffer=64k flush=5s;" in moved
    assert "access_log off;" in moved
    assert "thread_pool pool_d1 threads=16 max_queue=65536;" in moved


def test_relocate_adds_a_pid_when_the_config_has_none(tmp_path: Path) -> None:
    moved = relocate("events {}\n", tmp_path)
    assert f"pid {tmp_path}/nginx.pid;\n" in moved
    assert f"error_log {tmp_path}/error.log warn;\n" in moved


def test_substitute_refuses_unknown_placeholders() -> None:
    assert substitute("listen @PORT@;", {"PORT": "29000"}) == "listen 29000;"
    with pytest.raises(ValueError, match="@DISK@"):
        substitute("root @DISK@;", {"PORT": "29000"})


def test_only_the_handwritten_arm_has_a_pool(tmp_path: Path) -> None:
    def conf(name: str) -> str:
        return single_root_conf(name, workers=2, prefix=tmp_path, port=29000, storage=tmp_path)

    assert "aio" not in conf("stock")
    assert "thread_pool" not in conf("article-nopool")
    handwritten = conf("handwritten")
    assert "thread_pool default threads=32 max_queue=65536;" in handwritten
    assert "aio threads;" in handwritten


def _load(rps: float, p99: float) -> LoadResult:
    return LoadResult(10.0, int(rps * 10), int(rps * 10 * 4e6), 0, p99 / 2, p99 / 3, p99, p99)


def _trial(arm: str, round_no: int, hot_rps: float, p99: float, disk_mbps: float) -> TrialResult:
    cold = None if arm == "floor" else _load(5, 5000)
    return TrialResult(
        arm,
        round_no,
        _load(hot_rps, p99),
        cold,
        10.0,
        int(disk_mbps * 1e7),
        int(disk_mbps * 20),
        None,
    )


def test_goals_compare_the_arms_round_by_round() -> None:
    results = []
    for round_no in (1, 2):
        results += [
            _trial("stock", round_no, 5, 9000, 40),
            _trial("tpgen", round_no, 300, 400, 80),
            _trial("handwritten", round_no, 4 if round_no == 1 else 400, 9000, 80),
            _trial("floor", round_no, 320, 300, 0),
        ]
    verdict = {g.text: g for g in goals(results, FULL)}
    assert verdict["hot req/s, tpgen ÷ stock ≥ 50"].ok
    assert verdict["hot req/s, tpgen ÷ stock ≥ 50"].value == "60.0x"
    hot_rps = verdict["tpgen at least as good as handwritten on hot req/s, every round"]
    assert (hot_rps.ok, hot_rps.value) == (False, "1/2 rounds")
    assert verdict["hot p99 of tpgen under cold load ÷ unloaded hot p99 ≤ 3"].value == "1.33x"
    disk = next(g for text, g in verdict.items() if text.startswith("disk MB/s"))
    assert disk.ok and disk.value == "0.95"
    text = table(results)
    assert "tpgen ÷ stock" in text and "tpgen ÷ handwritten" in text


def test_tuning_arm_parses_overrides() -> None:
    variant = _tuning_arm("t64c:threads_per_disk=64,sendfile_max_chunk=2MiB")
    assert variant.name == "t64c"
    assert variant.tuning == {"threads_per_disk": "64", "sendfile_max_chunk": "2MiB"}
    assert variant.template is None


@pytest.mark.parametrize("text", ["t64", "t64:", "t64:threads", "T64:threads_per_disk=64"])
def test_tuning_arm_rejects_malformed_text(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="NAME:KEY=VALUE"):
        _tuning_arm(text)


def test_arm_file_needs_an_existing_file(tmp_path: Path) -> None:
    conf = tmp_path / "x.conf"
    conf.write_text("events {}\n")
    assert _arm_file(f"big={conf}").template == conf
    with pytest.raises(argparse.ArgumentTypeError, match="NAME=FILE"):
        _arm_file(f"big={tmp_path / 'missing.conf'}")
