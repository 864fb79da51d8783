"""tpgen doctor: each check from fixture text, the whole run against a fake machine."""

from __future__ import annotations

import ast
import contextlib
import hashlib
import io
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pytest
from tpgen.commands.doctor import doctor_main, inputs_from_spec
from tpgen.ops import doctor as dr
from tpgen.ops.doctor import FsUsage, LayoutDisk, Level
from tpgen.ops.doctor.system import error_text

from .ansible.conftest import run_module
from .conftest import require_root
from .live import free_ports

FIXTURES = Path(__file__).parent / "fixtures" / "ops"
GIB = 1024**3
NOW = datetime(2026, 11, 21, 18, 30, 0)


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def disk_entry(name: str, **kwargs: object) -> dict[str, object]:
    """One disk of a NodeLayout dict, every key of the contract (docs: layout-contract)."""
    mount = f"/srv/cache/{name}"
    entry: dict[str, object] = {
        "name": name,
        "device": "/dev/sd" + "bcdefg"[int(name[1]) - 1],
        "mount": mount,
        "dir": f"{mount}/cache",
        "state": "active",
        "media": "hdd",
        "filesystem": "xfs",
        "owner": "www-data",
        "group": "www-data",
        "mode": "0700",
        "thread_pool": f"pool_{name}",
        "buckets": 512,
        "min_free_bytes": None,
    }
    entry.update(kwargs)
    return entry


def layout_dict(*disks: dict[str, object], **kwargs: object) -> dict[str, object]:
    """A NodeLayout dict as NodeLayout.to_dict() gives it."""
    layout: dict[str, object] = {
        "node": "node1",
        "nginx_user": "www-data",
        "nginx_group": "www-data",
        "listen_urls": ["http://127.0.0.1:80/"],
        "status_url": "http://127.0.0.1:8081/nginx_status",
        "error_log": "/var/log/nginx/error.log",
        "access_log": "/var/log/nginx/access.log",
        "disks": list(disks),
        "config_sha1": None,
    }
    layout.update(kwargs)
    return layout


def disk(name: str, **kwargs: object) -> LayoutDisk:
    return dr.read_layout(layout_dict(disk_entry(name, **kwargs)))["disks"][0]


MOUNTS = dr.parse_mountinfo(fixture("mountinfo-cache-node.txt"))


def levels(findings: Iterable[dr.Finding]) -> list[tuple[str, str | None, str]]:
    return [(f.check, f.subject, f.level.label) for f in findings]


# ----------------------------------------------------------------------------- nginx -V


def test_debian_nginx_has_threads() -> None:
    finding = dr.check_threads(dr.parse_nginx_v(fixture("nginx-V-debian.txt")))
    assert (finding.level, finding.message) == (Level.OK, "nginx 1.22.1 built --with-threads")


def test_nginx_without_threads_fails_with_the_fix() -> None:
    finding = dr.check_threads(dr.parse_nginx_v(fixture("nginx-V-no-threads.txt")))
    assert finding.level is Level.FAIL
    assert "nginx 1.24.0 is built without --with-threads" in finding.message
    assert finding.fix is not None and "--with-threads" in finding.fix


def test_missing_nginx_fails() -> None:
    finding = dr.check_threads(None, "No such file or directory: nginx")
    assert finding.level is Level.FAIL and "cannot run nginx -V" in finding.message


# ----------------------------------------------------------------------------- mounts


def test_parse_mountinfo_unescapes_and_splits_options() -> None:
    spaced = dr.mount_at("/srv/cache/with space", MOUNTS)
    assert spaced is not None and spaced.source == "/dev/sde"
    d3 = dr.mount_at("/srv/cache/d3", MOUNTS)
    assert d3 is not None and d3.read_only and d3.device == "8:48" and d3.fstype == "xfs"


def test_parse_mountinfo_of_this_host() -> None:
    mounts = dr.parse_mountinfo(fixture("mountinfo-this-host.txt"))
    root = dr.mount_at("/", mounts)
    assert root is not None and root.source == "/dev/vda" and root.fstype == "ext4"


def test_mount_ok() -> None:
    findings = dr.check_mount(disk("d1"), MOUNTS, realpath=str)
    assert levels(findings) == [("disk.mount", "d1", "ok")]
    assert findings[0].message == "/dev/sdb mounted at /srv/cache/d1 (xfs, rw, device 8:16)"


def test_not_mounted_fails_and_names_both_fixes() -> None:
    (finding,) = dr.check_mount(disk("d4", mount="/srv/cache/d4"), MOUNTS, realpath=str)
    assert finding.level is Level.FAIL
    assert finding.message.startswith("/srv/cache/d4 is not a mount point")
    assert finding.fix is not None and "disk-fail.yml -l <host> -e disk=d4" in finding.fix


def test_read_only_mount_fails() -> None:
    findings = dr.check_mount(disk("d3"), MOUNTS, realpath=str)
    assert levels(findings) == [("disk.mount", "d3", "fail")]
    assert "read-only" in findings[0].message


def test_bind_mount_from_the_root_device_fails() -> None:
    findings = dr.check_mount(disk("d5", filesystem="ext4"), MOUNTS, realpath=str)
    assert levels(findings) == [("disk.mount", "d5", "fail")]
    assert "root filesystem's device 8:2" in findings[0].message


def test_wrong_filesystem_and_wrong_device_warn() -> None:
    findings = dr.check_mount(disk("d6", device="/dev/sdz"), MOUNTS, realpath=str)
    assert [f.message for f in findings] == [
        "/srv/cache/d6 is ext4, the spec says xfs",
        "/srv/cache/d6 is mounted from /dev/sdf, the spec says /dev/sdz",
    ]
    assert {f.level for f in findings} == {Level.WARN}


def test_device_compared_through_symlinks() -> None:
    aliases = {"/dev/disk/by-id/wwn-0x5000": "/dev/sdb"}
    findings = dr.check_mount(
        disk("d1", device="/dev/disk/by-id/wwn-0x5000"),
        MOUNTS,
        realpath=lambda p: aliases.get(p, p),
    )
    assert levels(findings) == [("disk.mount", "d1", "ok")]


def test_failed_disk_still_mounted_warns_and_unmounted_is_ok() -> None:
    (mounted,) = dr.check_mount(disk("d2", state="failed"), MOUNTS, realpath=str)
    assert mounted.level is Level.WARN and "still mounted" in mounted.message
    (gone,) = dr.check_mount(disk("d4", state="failed"), MOUNTS, realpath=str)
    assert gone.level is Level.OK


# ----------------------------------------------------------------------------- space


@pytest.mark.parametrize(
    ("free", "level"),
    [(50 * GIB, Level.OK), (4 * GIB, Level.WARN), (int(2.4 * GIB), Level.FAIL)],
)
def test_free_space_against_default_min_free_of_five_percent(free: int, level: Level) -> None:
    finding = dr.check_space(disk("d1"), FsUsage(100 * GIB, free, 1000, 900))
    assert finding.level is level
    assert finding.data["min_free"] == 5 * GIB


def test_min_free_from_the_layout_wins() -> None:
    layout_disk = disk("d1", min_free_bytes=20 * GIB)
    finding = dr.check_space(layout_disk, FsUsage(100 * GIB, 15 * GIB, 0, 0))
    assert finding.level is Level.WARN
    assert finding.message == "15.0 GiB free of 100.0 GiB (15.0%), min_free 20.0 GiB"


def test_inodes_running_out_warns() -> None:
    finding = dr.check_space(disk("d1"), FsUsage(100 * GIB, 50 * GIB, 1000, 10))
    assert finding.level is Level.WARN and "10 of 1000 inodes free" in finding.message


def test_writable() -> None:
    assert dr.check_writable(disk("d1"), None).level is Level.OK
    finding = dr.check_writable(disk("d1"), "Input/output error")
    assert finding.level is Level.FAIL
    assert finding.message == "cannot write to /srv/cache/d1/cache: Input/output error"


def test_writable_directory_of_another_user_fails() -> None:
    """The probe runs as root: only the owner tells whether nginx's workers can write."""
    assert dr.check_writable(disk("d1"), None, "www-data").level is Level.OK
    finding = dr.check_writable(disk("d1", owner="nginx"), None, "www-data")
    assert finding.level is Level.FAIL
    assert finding.message == (
        "/srv/cache/d1/cache is owned by www-data, nginx runs as nginx: "
        "its workers cannot write there"
    )


# ----------------------------------------------------------------------------- layout


@pytest.mark.parametrize(
    ("value", "size"), [(4096, 4096), ("512k", 512000), ("2GiB", 2 * GIB), ("1.5MB", 1500000)]
)
def test_min_free_goes_through_the_one_size_parser(value: object, size: int) -> None:
    assert disk("d1", min_free_bytes=value)["min_free_bytes"] == size


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"min_free_bytes": -1}, "disk 'd1': min_free_bytes: a size cannot be negative"),
        ({"min_free_bytes": True}, "disk 'd1': min_free_bytes: a size, like 4TB"),
        ({"state": None}, "disk 'd1': state is missing"),
        ({"dir": None}, "disk 'd1': dir is missing"),
        ({"owner": 33}, "disk 'd1': owner must be text, not int"),
    ],
)
def test_a_layout_doctor_cannot_trust_is_refused(change: dict[str, object], message: str) -> None:
    with pytest.raises(dr.DoctorError, match=message):
        disk("d1", **change)


def test_a_layout_without_disks_or_error_log_is_refused() -> None:
    with pytest.raises(dr.DoctorError, match=r"^layout.json: disks must be a list"):
        dr.read_layout(layout_dict(disks=None), "layout.json")
    with pytest.raises(dr.DoctorError, match=r"^<layout>: error_log is missing"):
        dr.read_layout(layout_dict(error_log=None))
    with pytest.raises(dr.DoctorError, match="expected the node layout"):
        dr.read_layout([disk_entry("d1")])


def test_operator_endpoints_replace_the_layouts() -> None:
    layout = dr.read_layout(layout_dict())
    moved = dr.with_endpoints(layout, error_log="/tmp/e.log", status_url="http://[::1]:1/s")
    assert (moved["error_log"], moved["status_url"]) == ("/tmp/e.log", "http://[::1]:1/s")
    assert dr.with_endpoints(layout) == layout
    assert layout["error_log"] == "/var/log/nginx/error.log"  # the input is not changed


# ----------------------------------------------------------------------------- read-ahead


def test_a_disk_reading_ahead_below_the_plans_floor_warns_with_the_fix() -> None:
    finding = dr.check_read_ahead(disk("d1", read_ahead_kb=1024), 128)
    assert (finding.check, finding.subject, finding.level) == ("disk.read_ahead", "d1", Level.WARN)
    assert finding.message.startswith("/dev/sdb reads ahead 128 KiB, below the plan's 1024 KiB")
    assert finding.fix is not None and "blockdev --setra 2048 /dev/sdb" in finding.fix
    assert dict(finding.data) == {"read_ahead_kb": 128, "floor_kb": 1024}


@pytest.mark.parametrize("current", [1024, 8192])  # a floor: a device set higher keeps it
def test_a_disk_at_or_above_the_floor_is_ok(current: int) -> None:
    finding = dr.check_read_ahead(disk("d1", read_ahead_kb=1024), current)
    assert finding.level is Level.OK and finding.fix is None
    assert finding.message == f"/dev/sdb reads ahead {current} KiB (the plan's floor: 1024 KiB)"


def test_a_read_ahead_doctor_cannot_read_warns() -> None:
    finding = dr.check_read_ahead(disk("d1", read_ahead_kb=512), None, "no such device")
    assert finding.level is Level.WARN
    assert finding.message == "cannot read the read-ahead of /dev/sdb: no such device"


@pytest.mark.parametrize(("value", "read"), [(None, None), (2048, 2048)])
def test_the_layouts_read_ahead_floor_is_read(value: object, read: int | None) -> None:
    assert disk("d1", read_ahead_kb=value)["read_ahead_kb"] == read
    entry = disk_entry("d1")
    assert dr.read_layout(layout_dict(entry))["disks"][0]["read_ahead_kb"] is None  # no key


@pytest.mark.parametrize("value", [-1, True, "2MiB", 1.5])
def test_a_read_ahead_floor_that_is_no_count_is_refused(value: object) -> None:
    with pytest.raises(dr.DoctorError, match="disk 'd1': read_ahead_kb must be a count"):
        disk("d1", read_ahead_kb=value)


def sys_block(root: Path) -> Path:
    """A sysfs block tree: disk sdb (4096 KiB) with partition sdb1, a disk with a bad value."""
    devices = root / "devices" / "pci0" / "block"
    for name, value in (("sdb", "4096"), ("odd", "lots")):
        (devices / name / "queue").mkdir(parents=True)
        (devices / name / "queue" / "read_ahead_kb").write_text(value + "\n")
        (devices / name / "dev").write_text("8:16\n")
    (devices / "sdb" / "sdb1").mkdir()
    (devices / "sdb" / "sdb1" / "dev").write_text("8:17\n")
    (devices / "sdb" / "sdb1" / "partition").write_text("1\n")
    return devices


def test_read_ahead_of_a_disk_and_of_a_partition_which_reads_ahead_as_its_disk(
    tmp_path: Path,
) -> None:
    devices = sys_block(tmp_path)
    by_number = tmp_path / "dev" / "block"
    by_number.mkdir(parents=True)
    (by_number / "8:17").symlink_to(devices / "sdb" / "sdb1")
    assert dr.read_ahead_of(devices / "sdb") == 4096
    assert dr.read_ahead_of(by_number / "8:17") == 4096
    with pytest.raises(OSError, match="the kernel lists no such block device"):
        dr.read_ahead_of(by_number / "8:99")
    with pytest.raises(OSError, match="not a size in KiB: 'lots'"):
        dr.read_ahead_of(devices / "odd")


@pytest.mark.parametrize(
    ("value", "shown"),
    [("\u00b2", "\\ufffd\\ufffd"), ("9" * 5000, "9" * 40 + "...")],
    ids=["superscript-two", "5000-digits"],
)
def test_a_read_ahead_python_reads_otherwise_is_not_a_size(
    tmp_path: Path, value: str, shown: str
) -> None:
    """Not ASCII (its decoding failed) or 5000 digits (int() refused them): an internal error."""
    block = tmp_path / "sdb"
    (block / "queue").mkdir(parents=True)
    (block / "dev").write_text("8:16\n")
    (block / "queue" / "read_ahead_kb").write_text(value + "\n")
    with pytest.raises(OSError) as refused:
        dr.read_ahead_of(block)
    assert str(refused.value) == f"[Errno 22] not a size in KiB: {shown!r}: '{block}'"


def test_mountinfo_lines_whose_ids_are_not_the_kernels_digits_are_skipped() -> None:
    """int() took "²" for no number and refused 5000 digits: doctor ended with exit 3."""
    good = "36 25 8:16 / /srv/cache/d1 rw,noatime shared:1 - xfs /dev/sdb rw"
    lines = [good.replace("36 25", "\u00b2 25"), good.replace("36 25", "9" * 5000 + " 25"), good]
    assert [entry.mountpoint for entry in dr.parse_mountinfo("\n".join(lines))] == ["/srv/cache/d1"]


def test_host_read_ahead_is_blockdevs_under_any_name_of_the_device(tmp_path: Path) -> None:
    require_root("blockdev --getra opens the device; mknod makes a second name for it")
    real = next(iter(sorted(Path("/sys/class/block").iterdir())), None)
    assert real is not None, "this machine lists no block device"
    device = f"/dev/{real.name}"
    sectors = subprocess.run(
        ["blockdev", "--getra", device], capture_output=True, text=True, check=True
    ).stdout
    # the name docker's --device gives it in a container, not the kernel's
    alias = tmp_path / "sdz"
    os.mknod(alias, 0o600 | stat.S_IFBLK, os.stat(device).st_rdev)
    system = dr.HostSystem()
    assert system.read_ahead_kb(device) == system.read_ahead_kb(str(alias)) == int(sectors) // 2
    with pytest.raises(OSError, match="not a block device"):
        system.read_ahead_kb(str(FIXTURES / "stub-status.txt"))


# ----------------------------------------------------------------------------- drift

RENDERED = "# generated by tpgen from spec.yaml - do not edit\nworker_processes 2;\nevents {}\n"


def test_drift_ignores_the_header_naming_another_spec_path() -> None:
    live = RENDERED.replace("spec.yaml", "tpgen_spec of node1")
    finding = dr.check_drift(live, path="/etc/nginx/nginx.conf", expected=RENDERED)
    assert finding.level is Level.OK


def test_drift_shows_a_unified_diff() -> None:
    live = RENDERED.replace("worker_processes 2;", "worker_processes 8;")
    finding = dr.check_drift(live, path="/etc/nginx/nginx.conf", expected=RENDERED)
    assert finding.level is Level.WARN
    assert finding.message == "/etc/nginx/nginx.conf differs from tpgen's rendering (2 lines)"
    assert "-worker_processes 8;" in finding.data["diff"]
    assert "+worker_processes 2;" in finding.data["diff"]


def test_drift_by_sha1() -> None:
    sha = hashlib.sha1(RENDERED.encode()).hexdigest()
    assert dr.check_drift(RENDERED, path="x", expected_sha1=sha).level is Level.OK
    assert dr.check_drift(RENDERED + "#\n", path="x", expected_sha1=sha).level is Level.WARN


def test_missing_config_fails() -> None:
    finding = dr.check_drift(None, path="/etc/nginx/nginx.conf", live_error="No such file")
    assert finding.level is Level.FAIL


# ----------------------------------------------------------------------------- error log

DISKS = (disk("d1"), disk("d2"), disk("d3"))


def test_scan_error_log_counts_only_after_since() -> None:
    lines = fixture("error-log-sick.log").splitlines()
    counts = dr.scan_error_log(lines, datetime(2026, 11, 21, 18, 0, 0), DISKS)
    assert counts.queue_overflow == {"pool_d1": 2, "pool_d2": 1}
    assert counts.tasks_waiting_max == {"pool_d1": 65600, "pool_d2": 70000}
    assert counts.alloc_node == {"cache_d2": 2}
    assert counts.disk_errors == {"d3": 2}  # EIO and EROFS; d30 is not d3
    assert counts.errno_seen["d3"] == {"EIO", "EROFS"}
    assert counts.disk_full == {"d2": 1}
    assert counts.lines == 10


def test_a_requests_text_of_5000_digits_in_the_log_counts_as_nothing() -> None:
    """int() refused 5000 digits: doctor ended with an internal error (exit 3), and so did the
    metrics timer; a client's URI in a line of a file nginx did not find can carry them."""
    digits = "9" * 5000
    lines = [
        f'2026/11/21 18:10:00 [error] 7#7: *1 open() "{DISKS[0]["mount"]}/failed ({digits}: x)" '
        "failed (2: No such file or directory)",
        f'2026/11/21 18:10:01 [error] 7#7: *2 open() "/srv/www/thread pool "p" queue overflow: '
        f'{digits} tasks waiting" failed (2: No such file or directory)',
    ]
    counts = dr.scan_error_log(lines, None, DISKS)
    assert (counts.lines, counts.queue_overflow, counts.disk_errors) == (2, {}, {})


def test_scan_error_log_without_since_reads_everything() -> None:
    counts = dr.scan_error_log(fixture("error-log-sick.log").splitlines(), None, DISKS)
    assert counts.queue_overflow == {"pool_d1": 3, "pool_d2": 1}


def test_log_findings_levels_and_fixes() -> None:
    counts = dr.scan_error_log(
        fixture("error-log-sick.log").splitlines(), datetime(2026, 11, 21, 18, 0, 0), DISKS
    )
    findings = dr.check_log(counts, path="error.log", since_label="2026-11-21 18:00:00")
    assert levels(findings) == [
        ("log.queue_overflow", "pool_d1", "warn"),
        ("log.queue_overflow", "pool_d2", "warn"),
        ("log.alloc_node", "cache_d2", "warn"),
        ("log.disk_errors", "d3", "fail"),
        ("log.disk_full", "d2", "warn"),
    ]
    assert findings[0].message == (
        'thread pool "pool_d1" queue overflow: 2 times since 2026-11-21 18:00:00 '
        "(up to 65600 tasks waiting)"
    )
    assert findings[1].message.startswith('thread pool "pool_d2" queue overflow: once since')
    assert findings[3].fix == (
        "the disk is failing: ansible-playbook disk-fail.yml -l <host> -e disk=d3"
    )


def test_errors_of_a_disk_marked_failed_are_expected() -> None:
    counts = dr.scan_error_log(fixture("error-log-sick.log").splitlines(), None, DISKS)
    findings = dr.check_log(counts, path="e.log", since_label="x", failed_disks=frozenset({"d3"}))
    d3 = next(f for f in findings if f.subject == "d3")
    assert (d3.check, d3.level) == ("log.disk_errors", Level.OK)
    assert d3.message.endswith("it is marked failed, as it should be")


def test_clean_log_is_ok_and_unreadable_log_warns() -> None:
    clean = dr.check_log(dr.LogCounts(lines=3), path="e.log", since_label="x")
    assert levels(clean) == [("log.errors", None, "ok")]
    unreadable = dr.check_log(None, path="e.log", since_label="x", error="Permission denied")
    assert levels(unreadable) == [("log.read", None, "warn")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("90m", datetime(2026, 11, 21, 17, 0, 0)),
        ("1d", datetime(2026, 11, 20, 18, 30, 0)),
        ("1h30m", datetime(2026, 11, 21, 17, 0, 0)),
        ("2026-11-21 18:00", datetime(2026, 11, 21, 18, 0, 0)),
        ("2026-11-21T17:45:30", datetime(2026, 11, 21, 17, 45, 30)),
        ("2026/11/21 17:00:00", datetime(2026, 11, 21, 17, 0, 0)),
        ("2026-11-20", datetime(2026, 11, 20, 0, 0, 0)),
    ],
)
def test_parse_since(text: str, expected: datetime) -> None:
    assert dr.parse_since(text, NOW) == expected


def test_parse_since_rejects_garbage_with_examples() -> None:
    with pytest.raises(dr.DoctorError, match=r"use a duration \(30m, 2h, 1d\)"):
        dr.parse_since("yesterday", NOW)


# ----------------------------------------------------------------------------- stub_status


def test_stub_status_parsed_and_ok() -> None:
    finding = dr.check_status("http://127.0.0.1:8081/nginx_status", fixture("stub-status.txt"))
    assert finding.level is Level.OK
    assert finding.data["active"] == 291 and finding.data["requests"] == 31070465


def test_stub_status_dropped_connections_warn() -> None:
    page = fixture("stub-status.txt").replace("16630948 16630948", "16630948 16630900")
    finding = dr.check_status("u", page)
    assert finding.level is Level.WARN and "48 connections dropped" in finding.message


def test_stub_status_unreachable_or_wrong_page_fails() -> None:
    assert dr.check_status("u", None, "Connection refused").level is Level.FAIL
    assert dr.check_status("u", "<html>welcome</html>").level is Level.FAIL


# ----------------------------------------------------------------------------- whole run


@dataclass
class FakeSystem:
    mountinfo_text: str = field(default_factory=lambda: fixture("mountinfo-cache-node.txt"))
    config: str | None = RENDERED
    log: str = ""
    status: str | None = field(default_factory=lambda: fixture("stub-status.txt"))
    unwritable: set[str] = field(default_factory=set)
    owners: dict[str, str] = field(default_factory=dict)
    usage: FsUsage = field(default_factory=lambda: FsUsage(100 * GIB, 60 * GIB, 100, 90))
    nginx: str = field(default_factory=lambda: fixture("nginx-V-debian.txt"))
    probed: list[str] = field(default_factory=list)
    guard_state: str | None = None
    read_aheads: dict[str, int] = field(default_factory=dict)  # device -> KiB; others unreadable

    def nginx_v(self, binary: str) -> str:
        return self.nginx

    def mountinfo(self) -> str:
        return self.mountinfo_text

    def statvfs(self, path: str) -> FsUsage:
        return self.usage

    def write_probe(self, directory: str) -> None:
        self.probed.append(directory)
        if directory in self.unwritable:
            raise OSError(5, "Input/output error")

    def owner_of(self, path: str) -> str:
        return self.owners.get(path, "www-data")

    def read_text(self, path: str) -> str:
        if path.endswith("guard-state.json"):
            if self.guard_state is None:
                raise FileNotFoundError(2, "No such file or directory", path)
            return self.guard_state
        if self.config is None:
            raise FileNotFoundError(2, "No such file or directory", path)
        return self.config

    def read_lines(self, path: str) -> Iterable[str]:
        return self.log.splitlines()

    def fetch(self, url: str) -> str:
        if self.status is None:
            raise ConnectionRefusedError(111, "Connection refused")
        return self.status

    def realpath(self, path: str) -> str:
        return path

    def read_ahead_kb(self, device: str) -> int:
        if device not in self.read_aheads:
            raise OSError(19, "not a block device the kernel lists", device)
        return self.read_aheads[device]

    def now(self) -> datetime:
        return NOW


def inputs(*disks: dict[str, object]) -> dr.DoctorInputs:
    layout = layout_dict(*(disks or (disk_entry("d1"), disk_entry("d2"))))
    return dr.DoctorInputs(layout=dr.read_layout(layout), expected_config=RENDERED)


class RealFetch(FakeSystem):
    """The fake machine, except that the status page is fetched for real (HostSystem)."""

    def fetch(self, url: str) -> str:
        return dr.HostSystem(timeout=10).fetch(url)


@contextlib.contextmanager
def answering(reply: bytes) -> Iterator[str]:
    """A loopback endpoint (a port the kernel picks) that answers one request with ``reply``."""
    server = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        connection, _ = server.accept()
        with connection, contextlib.suppress(OSError):  # the client may hang up first
            connection.recv(65536)
            connection.sendall(reply)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/nginx_status"
    finally:
        thread.join(timeout=10)
        server.close()


@pytest.mark.parametrize(
    "reply",
    [
        b"garbage\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nX-Long: " + b"a" * (70 << 10) + b"\r\n\r\n",
        b"HTTP/1.1 200 OK\r\n" + b"X-Many: 1\r\n" * 101 + b"\r\n",
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ],
    ids=["bad-status-line", "header-70k", "101-headers", "bad-chunk"],
)
def test_a_status_endpoint_that_does_not_speak_http_is_a_finding(reply: bytes) -> None:
    with answering(reply) as url:
        layout = layout_dict(disk_entry("d1"), status_url=url)
        doctor_inputs = dr.DoctorInputs(layout=dr.read_layout(layout), expected_config=RENDERED)
        findings = dr.diagnose(doctor_inputs, RealFetch(), since="1h")
    (status,) = [f for f in findings if f.check == "nginx.status"]
    assert status.level is Level.FAIL
    assert status.message.startswith(f"no answer from {url}: not an HTTP answer: ")
    assert "\n" not in status.message and "\r" not in status.message


class Unreadable(FakeSystem):
    """A machine where every file, directory and device doctor names fails as the kernel says:
    the OSError carries the path."""

    def statvfs(self, path: str) -> FsUsage:
        raise OSError(5, "Input/output error", path)

    def owner_of(self, path: str) -> str:
        raise PermissionError(13, "Permission denied", path)

    def read_text(self, path: str) -> str:
        raise PermissionError(13, "Permission denied", path)

    def read_lines(self, path: str) -> Iterable[str]:
        raise FileNotFoundError(2, "No such file or directory", path)

    def read_ahead_kb(self, device: str) -> int:
        raise FileNotFoundError(2, "No such file or directory", device)


def test_a_path_a_finding_names_is_not_named_again_by_its_error() -> None:
    extra = [{"path": "/etc/x.conf"}]
    layout = layout_dict(disk_entry("d1", read_ahead_kb=4096), extra_files=extra)
    doctor_inputs = dr.DoctorInputs(
        layout=dr.read_layout(layout), expected_config=RENDERED, guard_state="/g.json"
    )
    found = {f.check: f.message for f in dr.diagnose(doctor_inputs, Unreadable(), since="1h")}
    assert found["log.read"] == ("cannot read /var/log/nginx/error.log: No such file or directory")
    assert found["config.drift"] == "cannot read /etc/nginx/nginx.conf: Permission denied"
    assert found["disk.free"] == "cannot stat /srv/cache/d1: Input/output error"
    assert found["disk.writable"] == "cannot write to /srv/cache/d1/cache: Permission denied"
    assert found["disk.read_ahead"] == (
        "cannot read the read-ahead of /dev/sdb: No such file or directory"
    )
    assert found["guard.state"] == "cannot read /g.json: Permission denied"
    assert found["config.extra"].startswith(
        "the config includes what is not readable here (/etc/x.conf: Permission denied): "
    )
    # a path the finding does not name stays in the reason
    other = FileNotFoundError(2, "No such file or directory", "/srv/cache/d1/cache/.probe")
    assert error_text(other, "/srv/cache/d1/cache") == (
        "No such file or directory: /srv/cache/d1/cache/.probe"
    )


def _status_finding(url: str, system: FakeSystem) -> dr.Finding:
    layout = layout_dict(disk_entry("d1"), status_url=url)
    doctor_inputs = dr.DoctorInputs(layout=dr.read_layout(layout), expected_config=RENDERED)
    (status,) = [f for f in dr.diagnose(doctor_inputs, system) if f.check == "nginx.status"]
    return status


def test_a_status_page_sent_a_byte_at_a_time_is_cut_at_the_timeout() -> None:
    """urllib's timeout bounds each read: a peer dripping a byte every 0.2 s held doctor (and the
    metrics timer) for as long as it kept on."""
    server = socket.create_server(("127.0.0.1", 0))
    done = threading.Event()

    def drip() -> None:
        connection, _ = server.accept()
        with connection, contextlib.suppress(OSError):
            connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\n")
            for _ in range(30):  # 6 s, then it ends: a doctor without the cut would wait it out
                if done.wait(0.2):
                    break
                connection.sendall(b"X")

    class OneSecond(FakeSystem):
        def fetch(self, url: str) -> str:
            return dr.HostSystem(timeout=1).fetch(url)

    threading.Thread(target=drip, daemon=True).start()
    url = f"http://127.0.0.1:{server.getsockname()[1]}/nginx_status"
    started = time.monotonic()
    try:
        status = _status_finding(url, OneSecond())
    finally:
        done.set()
        server.close()
    assert time.monotonic() - started < 3
    assert (status.level, status.message) == (
        Level.FAIL,
        f"no answer from {url}: no whole answer in 1 s",
    )


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (
            b"HTTP/1.1 200 OK\r\nContent-Length: 5096\r\n\r\nActive connections: 1 \n"
            b"server accepts handled requests\n " + b"9" * 5000 + b" 5 9 \n"
            b"Reading: 0 Writing: 1 Waiting: 0 \n",
            "{url} is not a stub_status page",
        ),
        (
            b"HTTP/1.1 503 \xff\x1b[2J\r\nContent-Length: 0\r\n\r\n",
            "no answer from {url}: \\xff\\x1b[2J",
        ),
    ],
    ids=["counter-of-5000-digits", "reason-with-escapes"],
)
def test_a_status_answer_python_reads_otherwise_is_its_own_finding(reply: bytes, said: str) -> None:
    """5000 digits (int() refused them) were reported as no answer, with Python's advice; an
    HTTP reason's bytes reached the terminal as they were."""
    with answering(reply) as url:
        status = _status_finding(url, RealFetch())
    assert (status.level, status.message) == (Level.FAIL, said.format(url=url))


def test_a_malformed_status_url_is_a_finding() -> None:
    layout = layout_dict(disk_entry("d1"), status_url="http://a b")
    doctor_inputs = dr.DoctorInputs(layout=dr.read_layout(layout), expected_config=RENDERED)
    (status,) = [f for f in dr.diagnose(doctor_inputs, RealFetch()) if f.check == "nginx.status"]
    assert status.level is Level.FAIL
    assert status.message.startswith("no answer from http://a b: not a valid URL: ")


def test_healthy_node_exits_zero_with_every_check_listed() -> None:
    system = FakeSystem()
    findings = dr.diagnose(inputs(), system, since="1h")
    assert levels(findings) == [
        ("nginx.threads", None, "ok"),
        ("disk.mount", "d1", "ok"),
        ("disk.free", "d1", "ok"),
        ("disk.writable", "d1", "ok"),
        ("disk.mount", "d2", "ok"),
        ("disk.free", "d2", "ok"),
        ("disk.writable", "d2", "ok"),
        ("config.drift", None, "ok"),
        ("log.errors", None, "ok"),
        ("nginx.status", None, "ok"),
    ]
    assert system.probed == ["/srv/cache/d1/cache", "/srv/cache/d2/cache"]
    assert dr.worst(findings) is Level.OK


def test_every_hdd_with_a_floor_but_a_failed_one_has_its_read_ahead_checked() -> None:
    system = FakeSystem(read_aheads={"/dev/sdb": 4096, "/dev/sdc": 128})
    findings = dr.diagnose(
        inputs(
            disk_entry("d1", read_ahead_kb=1024),
            disk_entry("d2", read_ahead_kb=1024),
            disk_entry("d3"),  # no floor: an SSD, or a disk nginx does not read
            disk_entry("d4", read_ahead_kb=1024, state="failed"),
        ),
        system,
        since=None,
    )
    checked = [f for f in findings if f.check == "disk.read_ahead"]
    assert levels(checked) == [("disk.read_ahead", "d1", "ok"), ("disk.read_ahead", "d2", "warn")]
    assert levels(findings)[:4] == [
        ("nginx.threads", None, "ok"),
        ("disk.mount", "d1", "ok"),
        ("disk.free", "d1", "ok"),
        ("disk.writable", "d1", "ok"),
    ]
    assert levels(findings)[4] == ("disk.read_ahead", "d1", "ok")


def test_draining_disk_is_not_probed_for_writes_and_failed_disk_not_at_all() -> None:
    system = FakeSystem()
    findings = dr.diagnose(
        inputs(disk_entry("d1", state="draining"), disk_entry("d4", state="failed")),
        system,
        since=None,
    )
    assert ("disk.writable", "d1", "ok") not in levels(findings)
    assert ("disk.mount", "d4", "ok") in levels(findings)
    assert system.probed == []


def test_dead_disk_makes_the_run_fail() -> None:
    log = '2026/11/21 18:20:00 [crit] 1#1: *1 pread() "/srv/cache/d2/cache/a" failed (5: EIO)\n'
    system = FakeSystem(log=log, unwritable={"/srv/cache/d2/cache"})
    findings = dr.diagnose(inputs(), system, since="1h")
    assert ("disk.writable", "d2", "fail") in levels(findings)
    assert ("log.disk_errors", "d2", "fail") in levels(findings)
    assert dr.worst(findings) is Level.FAIL


def test_run_doctor_json_document() -> None:
    out = io.StringIO()
    system = FakeSystem(config=RENDERED.replace("2;", "3;"), status=None)
    code = dr.run_doctor(inputs(), since="30m", as_json=True, system=system, out=out)
    payload = json.loads(out.getvalue())
    assert code == 2
    assert payload["schema"] == "tpgen-doctor/1"
    assert (payload["status"], payload["exit_code"]) == ("fail", 2)
    assert payload["counts"] == {"ok": 8, "warn": 1, "fail": 1}
    drift = next(f for f in payload["findings"] if f["check"] == "config.drift")
    assert drift["level"] == "warn" and "+worker_processes 2;" in drift["data"]["diff"]
    assert set(drift) == {"check", "subject", "level", "message", "fix", "data"}


def test_run_doctor_text_table_shows_fixes_and_summary() -> None:
    out = io.StringIO()
    code = dr.run_doctor(
        inputs(), since="1h", as_json=False, system=FakeSystem(status=None), out=out
    )
    text = out.getvalue()
    assert code == 2
    assert text.splitlines()[0].split() == ["LEVEL", "CHECK", "SUBJECT", "MESSAGE"]
    assert "FAIL  nginx.status" in text
    assert "fix: is nginx running?" in text
    assert text.splitlines()[-1].endswith(": fail (9 ok, 0 warn, 1 fail)")


def test_the_text_report_escapes_what_a_terminal_would_act_on() -> None:
    """A zone name from the error log and a line of the live config reached the terminal as they
    were: an OSC sequence retitled it, a newline split a finding's row."""
    out = io.StringIO()
    system = FakeSystem(
        log='2026/11/21 18:20:00 [alert] 7#7: could not allocate node in cache keys zone "z\x1b]0;'
        'pwned\x07"\n',
        config=RENDERED + "# \x1b[2J\n",
    )
    dr.run_doctor(inputs(), since="1h", as_json=False, system=system, out=out)
    text = out.getvalue()
    assert "\x1b" not in text and "\x07" not in text
    zone = "z\\x1b]0;pwned\\x07"
    (row,) = [line.split(maxsplit=3) for line in text.splitlines() if "log.alloc_node" in line]
    assert row == [
        "WARN",
        "log.alloc_node",
        zone,
        f'could not allocate node in keys zone "{zone}": once since 2026-11-21 17:30:00',
    ]
    assert "      | -# \\x1b[2J" in text.splitlines()  # a line the live config has, not tpgen


def test_cache_directory_of_another_user_makes_the_run_fail() -> None:
    system = FakeSystem(owners={"/srv/cache/d2/cache": "root"})
    findings = {(f.check, f.subject): f for f in dr.diagnose(inputs(), system, since="1h")}
    assert findings[("disk.writable", "d1")].level is Level.OK
    assert findings[("disk.writable", "d2")].level is Level.FAIL
    assert findings[("disk.writable", "d2")].data == {"owner": "root"}


def test_node_report_checks_the_layouts_sha1_and_endpoints() -> None:
    """What the Ansible module returns: the layout alone, the rendered text stays behind."""
    layout = layout_dict(
        disk_entry("d1"),
        config_sha1=hashlib.sha1(RENDERED.encode()).hexdigest(),
        status_url=None,
    )
    system = FakeSystem(
        log='2026/11/21 18:20:00 [crit] 1#1: pread() "/srv/cache/d1/a" failed (5: EIO)'
    )
    report = dr.node_report(
        layout, source="tpgen_spec of node1", error_log="/tmp/elsewhere.log", system=system
    )
    found = {(f["check"], f["subject"]): f for f in report["findings"]}
    assert found[("config.drift", None)]["level"] == "ok"
    assert found[("nginx.status", None)]["message"] == "not checked (no status URL)"
    assert found[("log.disk_errors", "d1")]["level"] == "fail"
    assert (report["spec"], report["status"], report["exit_code"]) == (
        "tpgen_spec of node1",
        "fail",
        2,
    )
    system.config = RENDERED + "#\n"
    drifted = dr.node_report(layout, system=system)["findings"]
    assert next(f for f in drifted if f["check"] == "config.drift")["level"] == "warn"


REPO = Path(__file__).resolve().parents[1]
DOCTOR = REPO / "generator" / "tpgen" / "ops" / "doctor"
MIRROR = REPO / "plugins" / "module_utils" / "tpgen"


def test_module_utils_mirror_links_every_node_side_module_to_the_one_copy() -> None:
    node_side = {p.name for p in DOCTOR.glob("*.py")} - {"__init__.py"}
    mirrored = {p.name for p in (MIRROR / "ops" / "doctor").glob("*.py") if p.is_symlink()}
    assert mirrored == node_side
    for name in node_side:
        assert (MIRROR / "ops" / "doctor" / name).resolve() == DOCTOR / name
    units = REPO / "generator" / "tpgen" / "spec" / "units.py"
    assert (MIRROR / "spec" / "units.py").resolve() == units


def test_node_side_modules_import_the_standard_library_and_each_other_only() -> None:
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    for path in [*(MIRROR / "ops" / "doctor").glob("*.py"), MIRROR / "spec" / "units.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            assert {n.split(".")[0] for n in names} <= stdlib, (path.name, names)


def test_ansible_module_runs_on_a_python_without_tpgen(tmp_path: Path) -> None:
    """doctor.yml runs the module tpgen_doctor: AnsiballZ ships the doctor package to a node
    that has python3 only; -I -S keeps tpgen, pydantic and every site package out of reach."""
    interpreter = tmp_path / "python3"
    interpreter.write_text(f'#!/bin/sh\nexec {sys.executable} -I -S "$@"\n')
    interpreter.chmod(0o755)
    config = tmp_path / "nginx.conf"
    config.write_text(RENDERED)
    layout = layout_dict(
        disk_entry("d1", mount=str(tmp_path), dir=str(tmp_path)),
        error_log=str(tmp_path / "none.log"),
        status_url=None,
        config_sha1=hashlib.sha1(RENDERED.encode()).hexdigest(),
    )
    args = {"layout": layout, "config": str(config), "source": "it"}
    code, result = run_module("tpgen_doctor", args, python=str(interpreter))
    assert code == 0, result
    assert (result["changed"], result["status"]) == (False, "fail")
    found = {(f["check"], f["subject"]): f["level"] for f in result["report"]["findings"]}
    assert found[("config.drift", None)] == "ok"
    assert found[("disk.mount", "d1")] == "fail"  # a temp dir is not a mount point
    assert found[("log.read", None)] == "warn"
    assert result["report"]["schema"] == "tpgen-doctor/1"


# ----------------------------------------------------------------------------- real nginx


@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A temp directory nginx's www-data workers can enter (pytest's tmp_path is 0700)."""
    root = Path(tempfile.mkdtemp(prefix="tpgen-doctor-it-", dir="/tmp"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _it_spec(listen: int, status: int, origin: int) -> dict[str, object]:
    disks = [
        {"name": n, "device": f"/dev/tpgen-it-{n[1]}", "mount": f"/srv/cache/{n}", "size": "1GiB"}
        for n in ("d1", "d2")
    ]
    return {
        "node": {"name": "doctor-it", "cores": 1, "memory": "1GiB"},
        "workload": {
            "type": "cache",
            "upstreams": [f"127.0.0.1:{origin}"],
            "avg_object_size": "1MiB",
        },
        "listen": {"address": "127.0.0.1", "port": listen},
        "status": {"address": "127.0.0.1", "port": status},
        "disks": [{**disk, "media": "hdd"} for disk in disks],
    }


@dataclass
class LiveNginx:
    inputs: dr.DoctorInputs
    conf: Path
    text: str
    error_log: str


@pytest.fixture
def live_nginx(open_tmp: Path, nginx_binary: str) -> Iterator[LiveNginx]:
    """nginx running the config tpgen renders, rebased into a temp directory; doctor's inputs."""
    require_root("nginx's rendered config switches to www-data")
    from tpgen import api
    from tpgen.check import install_bundled_mime_types, rebased

    listen, status, origin = free_ports(3, start=26000 + os.getpid() % 500, stop=27000)
    spec = api.spec_from_mapping(_it_spec(listen, status, origin), "it.yaml")
    plan = rebased(api.make_plan(spec, "it.yaml"), str(open_tmp))
    install_bundled_mime_types(plan)
    text = api.render_config(plan)
    disks = api.node_layout(plan).to_dict()["disks"]
    for entry in disks:
        Path(entry["dir"]).mkdir(parents=True)
        shutil.chown(entry["dir"], "www-data")
    for path in (plan.pid_path, plan.error_log, plan.access_log):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    conf = open_tmp / "nginx.conf"
    conf.write_text(text)
    command = [nginx_binary, "-p", str(open_tmp), "-c", str(conf)]
    started = subprocess.run(command, capture_output=True, text=True, check=False)
    assert started.returncode == 0, started.stderr
    status_url = f"http://127.0.0.1:{status}/nginx_status"
    layout = layout_dict(
        *({**disk_entry("d1"), **entry} for entry in disks),
        status_url=status_url,
        error_log=plan.error_log,
    )
    inputs = dr.DoctorInputs(
        layout=dr.read_layout(layout),
        config_path=str(conf),
        expected_config=text,
        nginx_binary=nginx_binary,
    )
    for _ in range(50):  # the master forks its workers right after it returns
        try:
            urllib.request.urlopen(status_url, timeout=1).read()
            break
        except OSError:
            time.sleep(0.1)
    try:
        yield LiveNginx(inputs, conf, text, plan.error_log)
    finally:
        subprocess.run([*command, "-s", "stop"], capture_output=True, check=False)
        pid = Path(plan.pid_path)
        for _ in range(50):
            if not pid.exists():
                break
            time.sleep(0.1)


def test_doctor_against_a_real_nginx_rendered_by_tpgen(live_nginx: LiveNginx) -> None:
    inputs = live_nginx.inputs
    findings = {(f.check, f.subject): f for f in dr.diagnose(inputs, dr.HostSystem())}
    assert findings[("nginx.threads", None)].level is Level.OK
    assert findings[("config.drift", None)].level is Level.OK
    assert findings[("log.errors", None)].level is Level.OK
    live_status = findings[("nginx.status", None)]
    assert live_status.level is Level.OK and live_status.data["requests"] >= 2
    # temp directories are not mount points: doctor must say so for both disks
    assert findings[("disk.mount", "d1")].level is Level.FAIL
    assert findings[("disk.mount", "d2")].level is Level.FAIL

    live_nginx.conf.write_text(
        live_nginx.text.replace("sendfile_max_chunk", "sendfile_max_chunk ", 1)
    )
    with open(live_nginx.error_log, "a", encoding="utf-8") as log:
        stamp = datetime.now().strftime("%Y/%m/%d %H:%M:%S")
        log.write(
            f'{stamp} [error] 1#1: thread pool "pool_d1" queue overflow: 65536 tasks waiting\n'
        )
    after = {(f.check, f.subject): f for f in dr.diagnose(inputs, dr.HostSystem())}
    assert after[("config.drift", None)].level is Level.WARN
    assert after[("log.queue_overflow", "pool_d1")].data["count"] == 1


# ----------------------------------------------------------------------------- spec helpers


def test_node_facts_fill_only_what_the_spec_leaves_out() -> None:
    from tpgen import api

    spec = {"node": {"name": "edge-1"}, "disks": []}
    filled = api.fill_node_facts(spec, name="host", cores=8, memory_mb=2048)
    assert filled["node"] == {"name": "edge-1", "cores": 8, "memory": "2048MiB"}
    assert spec == {"node": {"name": "edge-1"}, "disks": []}  # the input is not changed


def test_inputs_from_a_spec_are_the_plans_node_layout(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "node: {name: edge-1, cores: 2, memory: 16GiB}\n"
        "workload: {type: cache, upstreams: ['127.0.0.1:8080']}\n"
        "status: {address: '::1', port: 9000}\n"
        "disks:\n"
        "  - {name: d1, device: /dev/sdb, mount: /srv/cache/d1, size: 4TB, media: hdd}\n"
        "  - {name: d2, device: /dev/sdc, mount: /srv/cache/d2, size: 4TB, media: hdd,"
        " state: draining}\n"
    )
    got = inputs_from_spec(str(spec), error_log="/tmp/other.log")
    layout = got.layout
    assert got.expected_config is not None and "thread_pool pool_d1" in got.expected_config
    assert layout["config_sha1"] == hashlib.sha1(got.expected_config.encode()).hexdigest()
    assert layout["status_url"] == "http://[::1]:9000/nginx_status"
    assert layout["error_log"] == "/tmp/other.log"  # the operator's, not the plan's
    assert [(d["name"], d["dir"], d["state"], d["owner"]) for d in layout["disks"]] == [
        ("d1", "/srv/cache/d1/cache", "active", "www-data"),
        ("d2", "/srv/cache/d2/cache", "draining", "www-data"),
    ]
    assert all(d["min_free_bytes"] for d in layout["disks"])


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("node: edge-1\nworkload: {type: cache}\ndisks: []\n",
         "1: node: 'edge-1' is the wrong type: write a mapping (key: value)"),
        ("- node\n", "1: (top): a spec is a mapping with node, workload and disks"),
        ("", "1: (top): a spec is a mapping with node, workload and disks"),
    ],
    ids=["node-text", "list", "empty"],
)  # fmt: skip
def test_doctor_main_names_a_spec_or_node_that_is_not_a_mapping_as_validate_does(
    tmp_path: Path, text: str, problem: str
) -> None:
    """doctor said `node must be a mapping, got str` and `the spec must be a mapping`: no
    line, no field's fix, unlike validate's refusal of the same file."""
    spec = tmp_path / "spec.yaml"
    spec.write_text(text)
    err = io.StringIO()
    assert doctor_main(str(spec), err=err, out=io.StringIO()) == 2
    assert err.getvalue().splitlines()[0] == f"tpgen doctor: {spec}:{problem}"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested deeper than Python reads"),
        ('{"version": ' + "9" * 5000 + "}", "a number too long to read"),
        ('{"version": true, "disks": {"d1": {"state": "failed"}}}', "not a version 1 guard state"),
    ],
    ids=["deep", "5000-digits", "true"],
)
def test_a_guard_state_python_reads_otherwise_is_a_corrupt_one(text: str, reason: str) -> None:
    """A deep nesting and 5000 digits ended doctor with an internal error (exit 3); true was
    taken for version 1."""
    from tpgen.ops.doctor.guard_state import check_guard_state

    (found,) = check_guard_state(text, [], path="/var/lib/tpgen/guard-state.json")
    assert (found.level, found.message) == (
        Level.WARN,
        f"/var/lib/tpgen/guard-state.json is corrupt ({reason})",
    )


def test_doctor_checks_the_guard_state_it_is_given(tmp_path: Path) -> None:
    """--guard-state named the file --prometheus exports; the report read the default path."""
    state = tmp_path / "guard-state.json"
    state.write_text(
        '{"version": 1, "disks": {"d3": {"state": "failed", "since": "2026-11-21T18:00:00Z", '
        '"reason": "5 I/O errors within 30s"}}}'
    )
    out = io.StringIO()
    doctor_main(
        str(Path(__file__).parent.parent / "examples" / "cache-3hdd.yaml"),
        out=out,
        err=io.StringIO(),
        as_json=True,
        config_path=str(tmp_path / "nginx.conf"),
        error_log=str(tmp_path / "error.log"),
        guard_state=str(state),
        nginx_binary="/bin/false",
    )
    (guard,) = [f for f in json.loads(out.getvalue())["findings"] if f["check"] == "guard.state"]
    assert (guard["level"], guard["subject"], guard["message"]) == (
        "fail",
        "d3",
        "guard: d3 failed since 2026-11-21T18:00:00Z: 5 I/O errors within 30s; the spec still "
        "says active",
    )


def test_doctor_main_reports_a_bad_spec_and_exits_2(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text("node: {name: x}\nworkload: {type: cache}\ndisks: []\nbogus: 1\n")
    err = io.StringIO()
    assert doctor_main(str(spec), err=err, out=io.StringIO()) == 2
    assert err.getvalue().startswith("tpgen doctor: ")
    assert "bogus" in err.getvalue()


def test_the_status_probe_ignores_the_environments_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A play's http_proxy (for apt) must not take doctor's loopback status probe elsewhere."""
    import http.server
    import threading

    class Status(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"Active connections: 1\n")

        def log_message(self, *_: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Status)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    dead_proxy = f"http://127.0.0.1:{free_ports(1)[0]}"  # nothing listens: a proxied probe fails
    for name in ("http_proxy", "HTTP_PROXY"):
        monkeypatch.setenv(name, dead_proxy)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    try:
        body = dr.HostSystem().fetch(f"http://127.0.0.1:{server.server_port}/nginx_status")
    finally:
        server.shutdown()
        server.server_close()
    assert body == "Active connections: 1\n"


def test_the_status_probe_follows_no_redirect() -> None:
    """stub_status never redirects: doctor (root) is not taken to another host or scheme."""
    import http.server
    import threading

    class Redirect(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(302)
            self.send_header("Location", "ftp://192.0.2.1/x\x1b[2J")
            self.end_headers()

        def log_message(self, *_: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Redirect)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(urllib.error.HTTPError) as caught:
            dr.HostSystem().fetch(f"http://127.0.0.1:{server.server_port}/nginx_status")
    finally:
        server.shutdown()
        server.server_close()
    assert error_text(caught.value) == "redirects to ftp://192.0.2.1/x%1B[2J"


def test_a_hung_nginx_is_one_failed_finding_not_a_hang(tmp_path: Path) -> None:
    fake = tmp_path / "nginx"
    fake.write_text("#!/bin/sh\nexec sleep 30\n")
    fake.chmod(0o755)

    class HungNginx(FakeSystem):
        def nginx_v(self, binary: str) -> str:
            return dr.HostSystem(timeout=0.5).nginx_v(binary)

    findings = dr.diagnose(
        dr.DoctorInputs(
            layout=dr.read_layout(layout_dict(disk_entry("d1"))),
            expected_config=RENDERED,
            nginx_binary=str(fake),
        ),
        HungNginx(),
        since=None,
    )
    threads = next(f for f in findings if f.check == "nginx.threads")
    assert (threads.level, threads.message) == (
        Level.FAIL,
        f"cannot run nginx -V: {fake} -V did not finish in 0.5 s",
    )
