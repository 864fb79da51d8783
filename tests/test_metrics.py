"""tpgen doctor --prometheus: the series, their labels and values, promtool, the node entry."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tpgen.cli import main as cli_main
from tpgen.ops import doctor as dr
from tpgen.ops.doctor import prometheus as prom

from .ansible.metrics_checks import parse
from .conftest import unavailable
from .test_doctor import GIB, MIRROR, RENDERED, FakeSystem, disk_entry, layout_dict

FIXTURES = Path(__file__).parent / "fixtures" / "ops"
GUARD = "/var/lib/tpgen/guard-state.json"


@dataclass
class MetricsSystem(FakeSystem):
    """FakeSystem whose read_text serves named files (the guard's state) next to the config."""

    files: dict[str, str] = field(default_factory=dict)

    def read_text(self, path: str) -> str:
        if path in self.files:
            return self.files[path]
        if path == GUARD:
            raise FileNotFoundError(2, "No such file or directory", path)
        return super().read_text(path)


def metrics(system: FakeSystem, *disks: dict[str, object], since: str | None = "1h") -> str:
    layout = dr.read_layout(layout_dict(*(disks or (disk_entry("d1"), disk_entry("d2")))))
    inputs = dr.DoctorInputs(layout=layout, expected_config=RENDERED)
    return prom.metrics_text(inputs, system, since=since, guard_state=GUARD)


def disk(name: str, **labels: str) -> tuple[tuple[str, str], ...]:
    return tuple(sorted({"disk": name, **labels}.items()))


def promtool(text: str) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("promtool")
    if tool is None:
        unavailable("promtool not found (Debian: prometheus; scripts/ci/deps.sh install system)")
    return subprocess.run(
        [tool, "check", "metrics"], input=text, capture_output=True, text=True, check=False
    )


def test_healthy_node_series_and_values() -> None:
    samples = parse(metrics(MetricsSystem(), disk_entry("d1", buckets=300), disk_entry("d2")))
    assert samples[("tpgen_doctor_status", ())] == 0
    assert samples[("tpgen_nginx_threads", ())] == 1
    assert samples[("tpgen_config_drift", ())] == 0
    assert samples[("tpgen_doctor_window_seconds", ())] == 3600
    assert samples[("tpgen_doctor_findings", (("level", "ok"),))] == 10
    for name in ("d1", "d2"):
        assert samples[("tpgen_disk_state", disk(name, state="active"))] == 1
        assert samples[("tpgen_disk_state", disk(name, state="draining"))] == 0
        assert samples[("tpgen_disk_state", disk(name, state="failed"))] == 0
        assert samples[("tpgen_disk_mounted", disk(name))] == 1
        assert samples[("tpgen_disk_writable", disk(name))] == 1
        assert samples[("tpgen_disk_size_bytes", disk(name))] == 100 * GIB
        assert samples[("tpgen_disk_free_bytes", disk(name))] == 60 * GIB
        assert samples[("tpgen_disk_min_free_bytes", disk(name))] == 5 * GIB  # 5 % default
        assert samples[("tpgen_disk_files", disk(name))] == 100
        assert samples[("tpgen_disk_files_free", disk(name))] == 90
        assert samples[("tpgen_disk_files_min_free", disk(name))] == 5
        assert samples[("tpgen_disk_queue_overflows", disk(name))] == 0
        assert samples[("tpgen_disk_io_errors", disk(name))] == 0
    assert samples[("tpgen_disk_buckets", disk("d1"))] == 300
    assert samples[("tpgen_disk_bucket_share_ratio", disk("d1"))] == 0.369458  # 300 / 812
    assert samples[("tpgen_disk_bucket_share_ratio", disk("d2"))] == 0.630542
    assert not any(name.startswith("tpgen_guard") for name, _ in samples)


def test_overflows_go_to_the_disk_of_the_pool_and_io_errors_to_the_disk_of_the_path() -> None:
    log = (
        '2026/11/21 18:10:00 [error] 7#7: thread pool "pool_d2" queue overflow: 65536 tasks '
        "waiting\n"
        * 3
        + '2026/11/21 18:11:00 [crit] 7#7: *9 pread() "/srv/cache/d1/cache/a/bc/x" failed '
        "(5: Input/output error)\n"
        + '2026/11/21 16:00:00 [crit] 7#7: *1 pread() "/srv/cache/d1/cache/old" failed (5: EIO)\n'
    )
    samples = parse(metrics(MetricsSystem(log=log)))
    assert samples[("tpgen_disk_queue_overflows", disk("d1"))] == 0
    assert samples[("tpgen_disk_queue_overflows", disk("d2"))] == 3
    assert samples[("tpgen_disk_io_errors", disk("d1"))] == 1  # the 16:00 line is out of the hour
    assert samples[("tpgen_disk_io_errors", disk("d2"))] == 0
    assert samples[("tpgen_doctor_status", ())] == 2


def test_a_failed_disk_is_state_failed_unmounted_and_has_no_space_series() -> None:
    samples = parse(
        metrics(
            MetricsSystem(),
            disk_entry("d1"),
            disk_entry("d2", state="draining"),
            disk_entry("d4", state="failed", buckets=0),
        )
    )
    assert samples[("tpgen_disk_state", disk("d4", state="failed"))] == 1
    assert samples[("tpgen_disk_state", disk("d4", state="active"))] == 0
    assert samples[("tpgen_disk_mounted", disk("d4"))] == 0
    assert ("tpgen_disk_free_bytes", disk("d4")) not in samples
    assert samples[("tpgen_disk_bucket_share_ratio", disk("d4"))] == 0
    # a draining disk is still mounted and read: its space is shown, its writes are not probed
    assert samples[("tpgen_disk_state", disk("d2", state="draining"))] == 1
    assert samples[("tpgen_disk_free_bytes", disk("d2"))] == 60 * GIB
    assert ("tpgen_disk_writable", disk("d2")) not in samples


def test_read_ahead_and_its_floor_are_series_of_the_disks_that_have_a_floor() -> None:
    system = MetricsSystem(read_aheads={"/dev/sdb": 128})
    samples = parse(metrics(system, disk_entry("d1", read_ahead_kb=1024), disk_entry("d2")))
    assert samples[("tpgen_disk_read_ahead_bytes", disk("d1"))] == 128 * 1024
    assert samples[("tpgen_disk_read_ahead_floor_bytes", disk("d1"))] == 1024 * 1024
    assert ("tpgen_disk_read_ahead_bytes", disk("d2")) not in samples
    assert samples[("tpgen_doctor_status", ())] == 1  # below the floor: a warning
    assert promtool(metrics(system, disk_entry("d1", read_ahead_kb=1024))).returncode == 0


def test_min_free_comes_from_the_layout_and_drift_and_threads_are_zero_or_one() -> None:
    system = MetricsSystem(config=RENDERED + "# edited\n", nginx="nginx version: nginx/1.22\n")
    samples = parse(metrics(system, disk_entry("d1", min_free_bytes=7 * GIB)))
    assert samples[("tpgen_disk_min_free_bytes", disk("d1"))] == 7 * GIB
    assert samples[("tpgen_config_drift", ())] == 1
    assert samples[("tpgen_nginx_threads", ())] == 0


def test_guard_state_file_is_exported_per_disk() -> None:
    guard = (FIXTURES / "guard-state.json").read_text()
    samples = parse(metrics(MetricsSystem(files={GUARD: guard})))
    assert samples[("tpgen_guard_state_readable", ())] == 1
    assert samples[("tpgen_guard_disk_state", disk("d1", state="active"))] == 1
    assert samples[("tpgen_guard_disk_state", disk("d2", state="slow"))] == 1
    assert samples[("tpgen_guard_disk_state", disk("d2", state="active"))] == 0
    assert samples[("tpgen_guard_disk_state", disk("d3", state="failed"))] == 1
    assert samples[("tpgen_guard_disk_state_since_timestamp_seconds", disk("d3"))] == 1795511400


@pytest.mark.parametrize(
    "content",
    [
        "{",
        '{"version": 2, "disks": {}}',
        '{"version": 1, "disks": ["d1"]}',
        "[]",
        # an internal error (exit 3) of the metrics timer, and true taken for version 1
        pytest.param("[" * 100_000 + "]" * 100_000, id="deep"),
        pytest.param('{"version": ' + "9" * 5000 + "}", id="5000-digits"),
        '{"version": true, "disks": {"d1": {"state": "failed"}}}',
    ],
)
def test_an_unreadable_guard_state_is_one_series_and_no_crash(content: str) -> None:
    samples = parse(metrics(MetricsSystem(files={GUARD: content})))
    assert samples[("tpgen_guard_state_readable", ())] == 0
    assert not any(name == "tpgen_guard_disk_state" for name, _ in samples)
    assert samples[("tpgen_disk_mounted", disk("d1"))] == 1


def test_promtool_accepts_every_series_even_with_hostile_label_values() -> None:
    guard = json.dumps(
        {"version": 1, "disks": {'d"1\\\n': {"state": 'we"ird', "since": "2026-11-21T18:00:00"}}}
    )
    text = metrics(
        MetricsSystem(files={GUARD: guard}),
        disk_entry("d1"),
        disk_entry("d2", state="draining"),
        disk_entry("d3", state="failed"),
    )
    assert 'disk="d\\"1\\\\\\n",state="we\\"ird"} 1' in text
    result = promtool(text)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_a_lone_surrogate_in_guards_state_is_written_as_its_escape() -> None:
    """JSON's \\ud800 is a str no UTF-8 holds: writing the file failed (exit 3)."""
    guard = '{"version": 1, "disks": {"d1\\ud800": {"state": "failed"}}}'
    text = metrics(MetricsSystem(files={GUARD: guard}))
    assert 'tpgen_guard_disk_state{disk="d1\\\\ud800",state="failed"} 1' in text.splitlines()
    result = promtool(text)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_node_entry_runs_on_a_python_without_tpgen_and_writes_the_file_at_once(
    tmp_path: Path,
) -> None:
    """The timer's command: the module_utils copy of doctor, python3 -S, no tpgen installed."""
    mount = tmp_path
    while not os.path.ismount(mount):
        mount = mount.parent
    layout = layout_dict(
        disk_entry("d1", mount=str(mount), dir=str(tmp_path)),
        error_log=str(tmp_path / "none.log"),
        status_url=None,
    )
    (tmp_path / "layout.json").write_text(json.dumps(layout))
    out = tmp_path / "tpgen.prom"
    proc = subprocess.run(
        [
            *(sys.executable, "-S", "-m", "tpgen.ops.doctor.prometheus"),
            *("--layout", str(tmp_path / "layout.json"), "--prometheus", str(out)),
            *("--guard-state", str(tmp_path / "absent.json"), "--config", str(tmp_path / "none")),
        ],
        env={"PYTHONPATH": str(MIRROR.parent), "PATH": os.environ["PATH"]},
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    samples = parse(out.read_text())
    st = os.statvfs(mount)
    assert samples[("tpgen_disk_free_bytes", disk("d1"))] == pytest.approx(
        st.f_bavail * st.f_frsize, rel=0.01
    )
    assert oct(out.stat().st_mode & 0o777) == "0o644"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["layout.json", "tpgen.prom"]


def test_the_textfile_replaces_a_long_named_file_whole_and_leaves_no_temporary(
    tmp_path: Path,
) -> None:
    target = tmp_path / ("n" * 240 + ".prom")  # the temporary's name must stay within 255
    target.write_text("old 1\n")
    prom.write_textfile(str(target), "new 2\n")
    assert target.read_text() == "new 2\n"
    assert oct(target.stat().st_mode & 0o777) == "0o644"
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


@pytest.mark.parametrize("kind", ["symlink", "fifo", "input"])
def test_the_textfile_is_never_written_through_a_link_onto_a_fifo_or_over_an_input(
    tmp_path: Path, kind: str
) -> None:
    """The node's entry keeps `render -o`'s rule (the timer's path is a role variable)."""
    layout = tmp_path / "layout.json"
    layout.write_text("{}")
    target = tmp_path / "tpgen.prom"
    if kind == "symlink":
        target.symlink_to(layout)
    elif kind == "fifo":
        os.mkfifo(target)
    else:
        target = layout
    with pytest.raises(OSError, match=r"not a regular file|is the input"):
        prom.write_textfile(str(target), "new 2\n", [str(layout)])
    assert layout.read_text() == "{}"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({"layout.json", target.name})


def test_node_entry_names_a_bad_layout_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "layout.json").write_text('{"disks": "d1"}')
    code = prom.main(["--layout", str(tmp_path / "layout.json"), "--prometheus", "-"])
    assert code == 2
    assert capsys.readouterr().err == (
        f"tpgen-metrics: {tmp_path / 'layout.json'}: disks must be a list of disks\n"
    )


def test_cli_writes_the_file_and_exits_0_or_2_when_it_cannot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = Path(__file__).parents[1] / "examples" / "cache-3hdd.yaml"
    out = tmp_path / "tpgen.prom"
    code = cli_main(["doctor", str(spec), "--prometheus", str(out), "--config", "/nonexistent"])
    assert code == 0  # the node is unhealthy here; that is a series, not the exit code
    samples = parse(out.read_text())
    assert samples[("tpgen_disk_state", disk("d1", state="active"))] == 1
    assert samples[("tpgen_doctor_status", ())] == 2
    code = cli_main(["doctor", str(spec), "--prometheus", str(tmp_path / "no" / "x.prom")])
    assert code == 2
    assert capsys.readouterr().err == (
        f"tpgen doctor: {tmp_path / 'no' / 'x.prom'}: directory {tmp_path / 'no'} does not "
        "exist: create it first\n"
    )
