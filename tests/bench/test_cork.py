"""`python -m bench cork`: two configs that differ in tcp_nopush only and carry tpgen's socket
settings, the client mixes, the table, and one short real run (nginx, wrk, a cgroup)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from tpgen.api import load_plan, render_config

from bench import splitcost, threadcost
from bench.cache.settings import CACHE_FULL
from bench.cli import main
from bench.corkcost import (
    ARMS,
    PORT_RANGE,
    CorkRun,
    Row,
    config,
    measure,
    mixes,
    table,
)
from bench.leftovers import BENCH_ROOT, bench_cgroups
from bench.load import LoadResult
from bench.loopdisk import LoopDisk
from bench.settings import FULL, REGIME_BASE, REGIMES
from bench.system import BenchError
from bench.tpgencli import NodeFacts, SpecFile
from tests.conftest import nginx_t, require_root, unavailable

SOCKET_DIRECTIVES = ("sendfile", "sendfile_max_chunk", "tcp_nopush", "tcp_nodelay")


def _directives(conf: str) -> dict[str, str]:
    found = {}
    for name in SOCKET_DIRECTIVES:
        values = set(re.findall(rf"^\s*{name}\s+([^;]+);", conf, re.MULTILINE))
        assert len(values) == 1, (name, values)
        found[name] = values.pop()
    # nginx's sizes: 2097152, 2048k and 2m are one value
    size = re.fullmatch(r"(\d+)([km]?)", found["sendfile_max_chunk"].lower())
    assert size, found
    found["sendfile_max_chunk"] = str(int(size[1]) << {"": 0, "k": 10, "m": 20}[size[2]])
    found["threads"] = ",".join(sorted(set(re.findall(r"thread_pool \S+ threads=(\d+)", conf))))
    return found


def _bench_node_conf(tmp_path: Path, workers: int, memory: int, file_size: int = 4 << 20) -> str:
    """What tpgen renders for a regime's node (bench.runner: its cores are the worker count)."""
    facts = NodeFacts("bench", workers, memory, file_size, 29000, 29001)
    disks = tuple(
        LoopDisk(f"d{i}", tmp_path / f"d{i}.img", f"/dev/loop{i}", tmp_path / f"d{i}")
        for i in range(1, 5)
    )
    spec_path = tmp_path / "spec.yaml"
    spec_path.write_text(SpecFile(facts, disks, 2 << 30).text())
    return render_config(load_plan(str(spec_path)))


def test_the_arms_differ_in_tcp_nopush_only(tmp_path: Path) -> None:
    on, off = (config(arm, 2, tmp_path, 29000).splitlines() for arm in ARMS)
    changed = [(a, b) for a, b in zip(on, off, strict=True) if a != b]
    assert changed == [("    tcp_nopush on;", "    tcp_nopush off;")]


@pytest.mark.parametrize(("workers", "memory"), [(2, 1 << 30), (12, 1 << 30), (2, 256 << 20)])
def test_the_cork_arm_carries_tpgens_socket_settings_for_the_bench_node(
    tmp_path: Path, workers: int, memory: int
) -> None:
    tpgen = _directives(_bench_node_conf(tmp_path, workers, memory))
    cork = _directives(config("on", workers, tmp_path, 29000))
    # The cork's one pool holds no cold transfer, so it keeps the 16 a worker and the 2m chunk
    # that tpgen's plan lowers only where its busy threads' chunks would outgrow a small node's
    # memory.
    if memory < 1 << 30:
        assert int(tpgen.pop("threads")) < int(cork.pop("threads")) == 16
        assert int(tpgen.pop("sendfile_max_chunk")) < int(cork.pop("sendfile_max_chunk")) == 2 << 20
    assert cork == tpgen


@pytest.mark.parametrize("regime", sorted(REGIMES))
def test_tpgen_corks_the_regimes_4_mib_files_and_not_the_small_ones(
    tmp_path: Path, regime: str
) -> None:
    settings = REGIMES[regime].apply(REGIME_BASE, 12)
    conf = _bench_node_conf(tmp_path, 12, settings.nginx_memory, settings.file_size)
    corked = "on" if settings.file_size >= 4 << 20 else "off"
    assert _directives(conf)["tcp_nopush"] == corked
    assert (regime == "small-files") == (corked == "off")


def test_both_arms_pass_nginx_t(tmp_path: Path, nginx_binary: str) -> None:
    for arm in ARMS:
        prefix = tmp_path / arm
        prefix.mkdir()
        conf = prefix / "nginx.conf"
        conf.write_text(config(arm, 2, prefix, 29000))
        proc = nginx_t(nginx_binary, prefix, conf)
        assert proc.returncode == 0, proc.stderr


def test_no_bench_listens_where_the_kernel_picks_client_ports() -> None:
    """A listen port inside the ephemeral range can be held by one of wrk's own client sockets
    when nginx restarts between trials: `bind() ... Address already in use` (it happened)."""
    low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    ranges = {
        "run": FULL.port_range,
        "cache": CACHE_FULL.port_range,
        "splitcost": splitcost.PORT_RANGE,
        "threads": threadcost.PORT_RANGE,
        "cork": PORT_RANGE,
    }
    inside = {name: r for name, r in ranges.items() if r[0] <= high and r[1] >= low}
    assert inside == {}, f"ephemeral ports {low}-{high}"


def test_the_mixes_keep_build_close_and_pace() -> None:
    kept, built, closing, paced = mixes(7, 90)
    assert (kept.script, kept.args) == ("hot.lua", ())
    assert (built.script, built.args) == ("hot_reconnect.lua", ("0",))  # 0: never closes
    assert (closing.script, closing.args) == ("hot_reconnect.lua", ("7",))
    assert "every 7" in closing.name
    assert (paced.script, paced.args) == ("hot_paced.lua", ("90", "0"))  # kept, 90 ms apart


def _result(rps: float, p99_ms: float) -> LoadResult:
    return LoadResult(1.0, int(rps), int(rps) << 22, 0, 10.0, p99_ms / 10, p99_ms, p99_ms * 2)


def test_the_table_gives_same_round_ratios_and_the_rounds_the_cork_won() -> None:
    row = Row(
        "kept (hot.lua)",
        on=[_result(800, 100), _result(900, 120), _result(700, 90)],
        off=[_result(720, 110), _result(990, 130), _result(560, 80)],
    )
    text = table([row], CorkRun(workers=2, rounds=3, duration=6))
    line = text.splitlines()[-1]
    # off ÷ on per round: 0.90, 1.10, 0.80 -> median 0.90; the cork won rounds 1 and 3;
    # then each arm's median p50/p99
    assert re.search(r"800\s+720\s+0\.90 \(0\.80-1\.10\)\s+10/100\s+11/110\s+2/3$", line), line
    assert "2 workers" in text and "3 rounds x 6 s" in text
    assert "a 4MiB file" in text and "sendfile in a thread pool" in text


def test_the_table_names_the_answer_size_and_where_sendfile_runs() -> None:
    text = table([], CorkRun(file_size=256 << 10, pooled=False))
    assert "a 256KiB file" in text and "sendfile on the event loop" in text
    assert "a 1000B file" in table([], CorkRun(file_size=1000))


def test_the_loop_arm_has_no_pool_and_the_loops_chunk(tmp_path: Path) -> None:
    pooled = _directives(config("on", 2, tmp_path, 29000))
    loop_conf = config("on", 2, tmp_path, 29000, pooled=False)
    on_loop = _directives(loop_conf)
    assert "aio threads" not in loop_conf and "location / { aio off; }" in loop_conf
    assert on_loop["threads"] == "" and pooled["threads"] == "16"
    assert (on_loop["sendfile_max_chunk"], pooled["sendfile_max_chunk"]) == ("524288", "2097152")
    assert on_loop["tcp_nopush"] == pooled["tcp_nopush"] == "on"


def test_mixes_are_picked_by_key_and_unknown_keys_are_refused() -> None:
    assert [m.key for m in mixes(10, 80, ("paced", "kept"))] == ["kept", "paced"]
    with pytest.raises(BenchError, match="subset of kept,built,closing,paced, not: slow"):
        mixes(10, 80, ("kept", "slow"))


@pytest.mark.parametrize(
    "argv",
    [
        ["--workers", "0"],
        ["--rounds", "101"],
        ["--duration", "0"],
        ["--reconnect-every", "x"],
        ["--hot-think-ms", "0"],
        ["--file-size", "3GiB"],
        ["--file-size", "2KiB"],
        ["--file-size", "256"],
        ["--file-size", "-1MiB"],
        ["--file-size", "4x"],
        ["--mixes", "kept,slow"],
        ["--mixes", ","],
    ],
)
def test_the_cork_options_are_bounded(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["cork", *argv])
    assert exit_info.value.code == 2
    assert "expected" in capsys.readouterr().err


def test_a_short_real_run_measures_every_mix_on_both_arms_and_leaves_nothing() -> None:
    require_root("nginx runs in its own cgroup")
    for tool in ("nginx", "wrk"):
        if shutil.which(tool) is None:
            unavailable(f"{tool} is not installed")
    before = set(BENCH_ROOT.glob("*-cork")) if BENCH_ROOT.exists() else set()
    run = CorkRun(workers=1, rounds=2, duration=1, reconnect_every=5, think_ms=50)
    rows = measure(lambda _line: None, run)
    assert [row.mix for row in rows] == [mix.name for mix in mixes(5, 50)]
    for row in rows:
        assert len(row.on) == len(row.off) == 2
        assert all(result.requests > 0 and result.errors == 0 for result in [*row.on, *row.off])
        # every answer is the whole 4 MiB file
        assert all(result.bytes >= result.requests << 22 for result in [*row.on, *row.off])
    after = set(BENCH_ROOT.glob("*-cork")) if BENCH_ROOT.exists() else set()
    assert after == before
    assert not [group for group in bench_cgroups() if "-cork-" in group.name]
