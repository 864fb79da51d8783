"""`python -m bench metadata`: the cold-inode probe's parsing, table and, on real loop devices,
what it measures (needs root and loop devices: skipped without them on a developer box, failed
in CI)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.cli import _parser
from bench.leftovers import BENCH_ROOT, CGROUP_PREFIX
from bench.loopdisk import own_loops, own_mounts
from bench.metadata import (
    LAYOUTS,
    MetadataRun,
    Probe,
    Row,
    charged_reads,
    measure,
    missing_prerequisites,
    table,
)
from bench.settings import MiB
from tests.conftest import unavailable


def test_charged_reads_reads_v1_and_v2_counters_of_one_device() -> None:
    v1 = "7:0 Read 107\n7:0 Write 3\n7:1 Read 9\n7:0 Total 110\nTotal 119\n"
    assert charged_reads(v1, "7:0") == 107
    assert charged_reads(v1, "7:1") == 9
    v2 = "7:1 rbytes=4096 wbytes=0 rios=1 wios=0\n7:0 rbytes=438272 wbytes=0 rios=67 wios=0\n"
    assert charged_reads(v2, "7:0") == 67
    assert charged_reads(v1, "7:2") is None
    assert charged_reads("", "7:0") is None


def test_layouts_cover_both_filesystems_and_ext4_without_inode_readahead() -> None:
    assert {(layout.filesystem, layout.inode_readahead_blks) for layout in LAYOUTS} == {
        ("ext4", None),
        ("ext4", 0),
        ("xfs", None),
    }


def test_table_prints_medians_and_names_a_missing_counter() -> None:
    settings = MetadataRun(files=1536, load_threads=50, rounds=3)
    slow = Row(
        LAYOUTS[0],
        idle=[Probe(2.0, 36, 107), Probe(2.2, 38, 107), Probe(9.0, 40, 107)],
        loaded=[Probe(4.6, 100, 300, 50.0), Probe(4.7, 90, 290, 49.0), Probe(1.0, 80, 280, 51.0)],
    )
    fast = Row(LAYOUTS[2], idle=[Probe(0.03, 67, None)], loaded=[Probe(0.04, 70, None, 50.0)])
    text = table([slow, fast], settings)
    assert "stat() of 1,536 files" in text and "behind 50 threads of 256 KiB" in text
    ext4_line = next(line for line in text.splitlines() if line.startswith("ext4 "))
    assert ext4_line.split() == ["ext4", "2.20", "38", "107", "4.60", "50.0"]
    xfs_line = next(line for line in text.splitlines() if line.startswith("xfs"))
    assert xfs_line.split() == ["xfs", "0.03", "67", "n/a", "0.04", "50.0"]


def test_prerequisites_name_each_missing_tool_and_its_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("bench.system.shutil.which", lambda tool: None)
    problems = missing_prerequisites()
    assert "mkfs.xfs not found (apt-get install xfsprogs)" in problems
    assert "mkfs.ext4 not found (apt-get install e2fsprogs)" in problems
    assert not [p for p in problems if "nginx" in p or "wrk" in p]  # the probe runs neither


@pytest.mark.parametrize("option", [["--files", "0"], ["--load-threads", "x"], ["--rounds", "0"]])
def test_cli_refuses_bad_counts(option: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        _parser().parse_args(["metadata", *option])
    assert exc.value.code == 2
    assert "expected" in capsys.readouterr().err


def test_probe_on_real_disks_reads_every_layout_cold_and_leaves_nothing() -> None:
    if problems := missing_prerequisites():
        unavailable("bench metadata cannot run: " + "; ".join(problems))
    before = set(BENCH_ROOT.iterdir()) if BENCH_ROOT.exists() else set()
    settings = MetadataRun(
        files=64, load_threads=4, rounds=1, settle_seconds=0.4, data_bytes=16 * MiB
    )
    lines: list[str] = []
    rows = measure(lines.append, settings)
    assert [row.layout for row in rows] == list(LAYOUTS)
    for row in rows:
        (idle,) = row.idle
        (loaded,) = row.loaded
        # Cold after the remount: the inodes come from the device, and the throttle charges at
        # least as many bios as the device completes requests (it counts before merging).
        assert idle.device_reads > 0, row.layout.name
        assert idle.charged_bios is not None and idle.charged_bios >= idle.device_reads
        assert loaded.load_reads_per_second and loaded.load_reads_per_second > 0
    assert len(lines) == len(LAYOUTS)
    assert set(BENCH_ROOT.iterdir()) <= before, "the probe's work dir is left behind"
    assert not [image for _, image in own_loops(BENCH_ROOT) if "-metadata" in str(image)]
    assert not [mount for mount in own_mounts(BENCH_ROOT) if "-metadata" in str(mount)]
    groups = Path("/sys/fs/cgroup/blkio")
    if groups.exists():
        assert not [g for g in groups.rglob(f"{CGROUP_PREFIX}*-metadata-*") if g.is_dir()]
