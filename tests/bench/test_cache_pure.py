"""The cache bench's pure parts: the arms' configs (through real `nginx -t`), the fill
accounting, the goals against the article's layout, and the CLI's option checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.cache import configs, store
from bench.cache.report import goals, table
from bench.cache.trial import CacheTrial, DiskIO
from bench.cli import main
from bench.load import LoadResult
from bench.loopdisk import LoopDisk
from tests.conftest import nginx_t

PORTS = configs.Ports(front=29100, status=29101, origin=29102)


def _disks(tmp_path: Path, count: int) -> list[LoopDisk]:
    return [
        LoopDisk(f"d{n}", tmp_path / f"d{n}.img", f"/dev/loop{n}", tmp_path / "mnt" / f"d{n}")
        for n in range(1, count + 1)
    ]


def test_article_conf_is_the_articles_layout_for_three_disks(tmp_path: Path) -> None:
    conf = configs.article_conf(tmp_path, _disks(tmp_path, 3), PORTS, workers=2)
    for n in (1, 2, 3):
        assert f"thread_pool pool_{n} threads=16;\n" in conf
        assert (
            f"proxy_cache_path {tmp_path}/mnt/d{n}/article levels=1:2 keys_zone=cache_{n}:256m "
            "max_size=1024G\n                     use_temp_path=off;"
        ) in conf
    assert "        33.3%     1;\n        33.3%     2;\n        *         3;\n" in conf
    assert "aio threads=pool_$disk;" in conf and "proxy_cache cache_$disk;" in conf
    assert "proxy_cache_key $request_uri;" in conf


def test_article_shares_follow_the_disk_count(tmp_path: Path) -> None:
    conf = configs.article_conf(tmp_path, _disks(tmp_path, 4), PORTS, workers=2)
    assert "        25.0%     1;\n        25.0%     2;\n        25.0%     3;\n" in conf
    assert "        *         4;\n" in conf


def test_stock_caches_on_the_first_disk_only(tmp_path: Path) -> None:
    disks = _disks(tmp_path, 3)
    conf = configs.stock_conf(tmp_path, disks, PORTS)
    assert f"proxy_cache_path {tmp_path}/mnt/d1/stock keys_zone=stock:10m;" in conf
    assert "thread_pool" not in conf and "aio" not in conf
    assert configs.arm_dirs("stock", disks) == [tmp_path / "mnt" / "d1" / "stock"]
    assert configs.arm_dirs("tpgen", disks) == [d.mount / "tpgen" for d in disks]


def test_tpgen_arm_conf_moves_runtime_paths_and_renames_cache_dirs(tmp_path: Path) -> None:
    rendered = (
        "pid /run/nginx.pid;\nerror_log /var/log/nginx/error.log warn;\nhttp {\n"
        "    proxy_cache_path /srv/cache/d1/cache levels=1:2 keys_zone=cache_d1:1m "
        "use_temp_path=off;\n"
        "    proxy_cache_path /srv/cache/d2/cache levels=1:2 keys_zone=cache_d2:1m "
        "use_temp_path=off;\n}\n"
    )
    conf = configs.tpgen_arm_conf(rendered, tmp_path, "t16")
    assert f"pid {tmp_path}/nginx.pid;" in conf
    assert "proxy_cache_path /srv/cache/d1/t16 levels=1:2 keys_zone=cache_d1:1m" in conf
    assert "proxy_cache_path /srv/cache/d2/t16 levels=1:2 keys_zone=cache_d2:1m" in conf


@pytest.mark.parametrize("arm", ["stock", "article", "origin"])
def test_the_bench_configs_pass_nginx_t(tmp_path: Path, arm: str, nginx_binary: str) -> None:
    nginx = nginx_binary
    disks = _disks(tmp_path, 3)
    for disk in disks:
        disk.mount.mkdir(parents=True)
    text = {
        "stock": lambda: configs.stock_conf(tmp_path, disks, PORTS),
        "article": lambda: configs.article_conf(tmp_path, disks, PORTS, workers=2),
        "origin": lambda: configs.origin_conf(tmp_path, tmp_path, PORTS.origin, 50),
    }[arm]()
    # nginx -t as an unprivileged user cannot switch to www-data: drop the line for the check
    text = text.replace("user www-data;\n", "")
    conf = tmp_path / "nginx.conf"
    conf.write_text(text)
    proc = nginx_t(nginx, tmp_path, conf)
    assert proc.returncode == 0, proc.stderr


def test_stored_counts_new_cache_files_per_disk(tmp_path: Path) -> None:
    d1, d2 = tmp_path / "d1", tmp_path / "d2"
    old = d1 / "a" / "0b" / ("a" * 32)
    old.parent.mkdir(parents=True)
    old.write_bytes(b"x" * 10)
    before = store.scan([d1, d2])
    new1 = d1 / "b" / "0c" / ("b" * 32)
    new2 = d2 / "c" / "0d" / ("c" * 32)
    temp = d2 / "c" / "0d" / "0000000042"  # a temp file nginx had not renamed yet
    for path, size in ((new1, 100), (new2, 200), (temp, 300)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"y" * size)
    after = store.scan([d1, d2])
    assert store.stored(before, after, [d1, d2]) == [100, 200]
    store.remove_new(before, after)
    assert store.scan([d1, d2]) == {old: 10}


def _load(rps: float, p99: float) -> LoadResult:
    return LoadResult(10.0, int(rps * 10), int(rps * 10) << 20, 0, p99 / 2, p99 / 2, p99, p99)


def _trial(
    arm: str, rnd: int, hot: float, p99: float, fill_mb: int, warm_misses: int
) -> CacheTrial:
    io = {
        n: DiskIO(read_bytes=100_000_000, read_ios=400, write_bytes=0, stored_bytes=fill_mb * 10**6)
        for n in ("d1", "d2", "d3")
    }
    return CacheTrial(
        arm=arm,
        round=rnd,
        hot=_load(hot, p99),
        warm=_load(30, 7000),
        fill=_load(50, 500),
        seconds=10.0,
        disks=io,
        origin_warm=warm_misses,
        origin_fill=500,
        memory_peak=None,
    )


def test_goals_compare_tpgen_with_the_article_layout() -> None:
    results = [
        _trial("article", 1, 300, 4000, 10, 0),
        _trial("tpgen", 1, 600, 200, 170, 0),
        _trial("article", 2, 700, 3000, 10, 0),
        _trial("tpgen", 2, 650, 300, 170, 30),  # 30 of 300 re-reads went to the origin
    ]
    verdict = {g.text: (g.value, g.ok) for g in goals(results, "tpgen")}
    assert verdict["tpgen at least as good as article on hot req/s"] == ("1.25x, 1/2 rounds", True)
    assert verdict["tpgen at least as good as article on hot p99"] == ("14.00x, 2/2 rounds", True)
    assert verdict[
        "tpgen at least as good as article on fill MB/s (capped by the origin) (within 3%)"
    ] == ("17.00x, 2/2 rounds", True)
    assert verdict["tpgen at least as good as article on HIT ratio"] == ("0.95x, 1/2 rounds", False)
    rows = table(results, ["tpgen"]).splitlines()
    assert rows[-1].split()[:4] == ["tpgen", "÷", "article", "1.25"]


@pytest.mark.parametrize(
    ("options", "refused"),
    [
        (["--files-per-disk", "10"], "--files-per-disk"),
        (["--file-size", "1m"], "--file-size"),
        (["--cold-connections", "240"], "--cold-connections"),
        (["--disk-iops", "400", "--nginx-memory", "1GiB"], "--disk-iops, --nginx-memory"),
        (["--readahead-arm", "ra:512"], "--readahead-arm"),
        # 0 is a value the command gives, not an unset option
        (["--inode-readahead", "0"], "--inode-readahead"),
        (["--disk-read-ahead", "128"], "--disk-read-ahead"),
        (["--sysctl-arm", "v:vm.swappiness=1"], "--sysctl-arm"),
    ],
)
def test_cache_run_refuses_origin_only_options(
    options: list[str], refused: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--workload", "cache", *options]) == 2
    assert capsys.readouterr().err == f"bench: {refused}: only for --workload origin\n"
