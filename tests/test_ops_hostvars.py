"""tpgen.ops.hostvars: the disk playbooks persist a disk's state in host_vars, comments kept."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest
from tpgen.ops import hostvars as hv
from tpgen.ops.guard import state as guard_state
from tpgen.spec.model import Disk

HOST_VARS = """\
---
# Edge cache: three disks.
tpgen_spec:
  workload:
    type: cache  # a comment that must survive
    upstreams: [origin-a.example.net:8080]
  disks:
    - {name: d1, device: /dev/sdb, mount: /srv/cache/d1, size: 4TB, media: hdd}
    - {name: d2, device: /dev/sdc, mount: /srv/cache/d2, size: 4TB, media: hdd}
    - name: d3
      device: /dev/sdd
      mount: /srv/cache/d3
      size: 4TB
      media: hdd
      state: failed

nginx_tpconfig_health_urls:
  - http://127.0.0.1:80/healthcheck/object-1MiB.bin
"""


def test_drain_adds_state_to_the_flow_mapping_and_keeps_the_rest() -> None:
    text, changes = hv.set_disk_state(HOST_VARS, "d2", "draining")
    assert changes == ["d2: state active -> draining"]
    expected = HOST_VARS.replace(
        "size: 4TB, media: hdd}\n    - name: d3",
        "size: 4TB, media: hdd, state: draining}\n    - name: d3",
    )
    assert text == expected


def test_active_removes_the_state_key_and_new_device_is_written() -> None:
    text, changes = hv.set_disk_state(HOST_VARS, "d3", "active", device="/dev/sdx")
    assert changes == ["d3: state failed -> active", "d3: device /dev/sdd -> /dev/sdx"]
    assert "      state: failed\n" not in text
    assert "      device: /dev/sdx\n" in text
    assert "# a comment that must survive" in text


def test_nothing_to_change_returns_the_text_untouched() -> None:
    assert hv.set_disk_state(HOST_VARS, "d1", "active") == (HOST_VARS, [])


@pytest.mark.parametrize(
    ("text", "disk", "state", "message"),
    [
        (HOST_VARS, "d9", "failed", r"no disk named 'd9' in `tpgen_spec` \(disks: d1, d2, d3\)"),
        (HOST_VARS, "d1", "broken", "state must be one of active, draining, failed"),
        ("other: 1\n", "d1", "failed", "no `tpgen_spec` mapping"),
        ("tpgen_spec: {disks: 3}\n", "d1", "failed", "has no disks list"),
        ("a: [\n", "d1", "failed", "not valid YAML"),
    ],
)
def test_errors_say_what_is_wrong(text: str, disk: str, state: str, message: str) -> None:
    with pytest.raises(hv.HostVarsError, match=message):
        hv.set_disk_state(text, disk, state)


def test_main_rewrites_the_file_keeping_its_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "edge.yml"
    path.write_text(HOST_VARS)
    path.chmod(0o640)
    assert hv.main([str(path), "--disk", "d1", "--state", "failed"]) == 0
    assert "state: failed}" in path.read_text().splitlines()[7]
    assert path.stat().st_mode & 0o777 == 0o640
    assert capsys.readouterr().out == f"{path}: d1: state active -> failed\n"
    assert hv.main([str(path), "--disk", "d1", "--state", "failed"]) == 0
    assert capsys.readouterr().out == f"{path}: unchanged (d1 is failed)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["edge.yml"]  # no temp file left


def test_a_failed_rewrite_is_one_line_exit_2_and_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "edge.yml"
    path.write_text(HOST_VARS)

    def disk_full(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(guard_state.os, "replace", disk_full)
    assert hv.main([str(path), "--disk", "d1", "--state", "failed"]) == 2
    err = capsys.readouterr().err
    assert f"cannot rewrite {path}: No space left on device (it is unchanged" in err
    assert len(err.splitlines()) == 1
    assert path.read_text() == HOST_VARS
    assert sorted(p.name for p in tmp_path.iterdir()) == ["edge.yml"]  # no temp file left


def test_main_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert hv.main([str(tmp_path / "nope.yml"), "--disk", "d1", "--state", "failed"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_the_states_are_the_spec_models() -> None:
    assert get_args(Disk.model_fields["state"].annotation) == hv.STATES
