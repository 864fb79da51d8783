"""Health checks of one storage node (``tpgen doctor``).

Every check is a pure function from text or numbers to :class:`Finding` objects (check name,
level ok|warn|fail, message, the fix). :class:`HostSystem` is the only place that reads the
machine; tests pass a fake. :func:`diagnose` runs every check, :func:`doctor_main` prints.

The module imports nothing from tpgen at load time (only the standard library), so Ansible can
run this very file on a node that has python3 but not the tpgen package (``doctor.yml``):
``python3 doctor.py --layout layout.json --expected-sha1 SHA ...``. With the package installed,
:func:`inputs_from_spec` builds the inputs from a spec file (tpgen.api, imported lazily).

Exit code (and ``status`` in ``--json``): 0 every check ok, 1 a warning, 2 a failure.
"""

from __future__ import annotations

import argparse
import difflib
import errno
import hashlib
import json
import os
import re
import socket
import stat
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import IntEnum
from pathlib import Path
from typing import Any, Protocol, TextIO

JSON_SCHEMA_ID = "tpgen-doctor/1"
DEFAULT_CONFIG = "/etc/nginx/nginx.conf"
DEFAULT_ERROR_LOG = "/var/log/nginx/error.log"
DEFAULT_SINCE = "1h"
DEFAULT_STATUS_URL = "http://127.0.0.1:8081/nginx_status"
READ_LIMIT = 16 << 20  # the most doctor reads of a config: a rendered one is well under 1 MiB
DEFAULT_MIN_FREE_RATIO = 0.05  # of the filesystem, when the plan gives no min_free
INODE_MIN_FREE_RATIO = 0.05
DIFF_LINES = 40

# errno values nginx prints as "failed (N: text)" that mean the disk is sick, or full
_DISK_ERRNOS = {5: "EIO", 6: "ENXIO", 19: "ENODEV", 30: "EROFS", 117: "EUCLEAN"}
_FULL_ERRNOS = {28: "ENOSPC"}

_LOG_LINE = re.compile(r"^(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d) \[(\w+)\] (.*)$")
_QUEUE_OVERFLOW = re.compile(r'thread pool "([^"]+)" queue overflow: (\d+) tasks waiting')
_ALLOC_NODE = re.compile(r'could not allocate node(?: in cache keys zone "([^"]+)")?')
_FAILED_ERRNO = re.compile(r"failed \((\d+): [^)]*\)")
_QUOTED_PATH = re.compile(r'"(/[^"]*)"')
_RELATIVE = re.compile(r"^(\d+)\s*([smhdw])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)\s*([kKmMgGtTpP]?)(i?)[bB]?$")


class Level(IntEnum):
    """Severity; the exit code is the worst level found."""

    OK = 0
    WARN = 1
    FAIL = 2

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True)
class Finding:
    """The result of one check on one subject (a disk, a pool, the node)."""

    check: str
    level: Level
    message: str
    subject: str | None = None
    fix: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "subject": self.subject,
            "level": self.level.label,
            "message": self.message,
            "fix": self.fix,
            "data": dict(self.data),
        }


class DoctorError(Exception):
    """Inputs doctor cannot work with (unreadable spec, bad --since); ``str()`` is the message."""


# ----------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Disk:
    """One disk of the plan's layout (``tpgen.api.disk_layout``)."""

    name: str
    device: str
    mount: str
    dir: str
    state: str = "active"
    filesystem: str | None = None
    media: str | None = None
    min_free: int | None = None

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Disk:
        try:
            name, device, mount = str(data["name"]), str(data["device"]), str(data["mount"])
        except KeyError as err:
            raise DoctorError(f"disk layout: entry without {err.args[0]}: {dict(data)}") from err
        min_free = data.get("min_free", data.get("min_free_bytes"))  # api.disk_layout's key
        return cls(
            name=name,
            device=device,
            mount=mount,
            dir=str(data.get("dir") or mount),
            state=str(data.get("state") or "active"),
            filesystem=None if data.get("filesystem") is None else str(data["filesystem"]),
            media=None if data.get("media") is None else str(data["media"]),
            min_free=None if min_free is None else parse_size(min_free),
        )


@dataclass(frozen=True)
class DoctorInputs:
    """Everything doctor compares the node against."""

    disks: tuple[Disk, ...]
    config_path: str = DEFAULT_CONFIG
    error_log: str = DEFAULT_ERROR_LOG
    status_url: str | None = DEFAULT_STATUS_URL
    expected_config: str | None = None
    expected_sha1: str | None = None
    nginx_binary: str = "nginx"
    source: str = "<layout>"


def parse_size(value: object) -> int:
    """Bytes from an int or a size string of docs/spec.md (``512k``, ``4TB``, ``48GiB``)."""
    if isinstance(value, bool):
        raise DoctorError(f"not a size: {value!r}")
    if isinstance(value, int | float):
        return int(value)
    match = _SIZE.match(str(value).strip())
    if not match:
        raise DoctorError(f"not a size: {value!r}")
    number, prefix, binary = match.groups()
    power = " kmgtp".index(prefix.lower()) if prefix else 0
    return int(float(number) * (1024 if binary else 1000) ** power)


# ----------------------------------------------------------------------------- nginx -V


@dataclass(frozen=True)
class NginxBuild:
    version: str | None
    configure_args: tuple[str, ...]


def parse_nginx_v(text: str) -> NginxBuild:
    """Read ``nginx -V`` output (printed on stderr)."""
    version = None
    args: tuple[str, ...] = ()
    for line in text.splitlines():
        if line.startswith("nginx version:"):
            version = line.split("/", 1)[-1].strip() if "/" in line else line.split(":", 1)[1]
        elif line.startswith("configure arguments:"):
            args = tuple(line.split(":", 1)[1].split())
    return NginxBuild(version, args)


def check_threads(build: NginxBuild | None, error: str | None = None) -> Finding:
    """nginx must be built ``--with-threads`` for ``thread_pool``/``aio threads``."""
    fix = (
        "install an nginx built with --with-threads (Debian's and nginx.org's packages are; "
        "role nginx_install asserts it)"
    )
    if build is None:
        return Finding("nginx.threads", Level.FAIL, f"cannot run nginx -V: {error}", fix=fix)
    version = build.version or "unknown version"
    if "--with-threads" in build.configure_args:
        return Finding(
            "nginx.threads",
            Level.OK,
            f"nginx {version} built --with-threads",
            data={"version": build.version},
        )
    return Finding(
        "nginx.threads",
        Level.FAIL,
        f"nginx {version} is built without --with-threads: thread_pool is unknown to it",
        fix=fix,
        data={"version": build.version},
    )


# ----------------------------------------------------------------------------- mounts


@dataclass(frozen=True)
class MountEntry:
    """One line of /proc/self/mountinfo."""

    mount_id: int
    parent_id: int
    device: str  # major:minor
    root: str
    mountpoint: str
    options: tuple[str, ...]
    fstype: str
    source: str
    super_options: tuple[str, ...]

    @property
    def read_only(self) -> bool:
        return "ro" in self.options or "ro" in self.super_options


def _unescape(text: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text)


def parse_mountinfo(text: str) -> list[MountEntry]:
    """Parse /proc/self/mountinfo (see proc(5)); malformed lines are ignored."""
    entries = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 6 or len(tail) < 2:
            continue
        entries.append(
            MountEntry(
                mount_id=int(fields[0]),
                parent_id=int(fields[1]),
                device=fields[2],
                root=_unescape(fields[3]),
                mountpoint=_unescape(fields[4]),
                options=tuple(fields[5].split(",")),
                fstype=tail[0],
                source=_unescape(tail[1]),
                super_options=tuple(tail[2].split(",")) if len(tail) > 2 else (),
            )
        )
    return entries


def mount_at(path: str, mounts: Sequence[MountEntry]) -> MountEntry | None:
    """The mount visible at ``path`` (the last one mounted there wins)."""
    wanted = os.path.normpath(path)
    found = None
    for entry in mounts:
        if entry.mountpoint == wanted:
            found = entry
    return found


def check_mount(
    disk: Disk,
    mounts: Sequence[MountEntry],
    *,
    realpath: Any = os.path.realpath,
) -> list[Finding]:
    """Mounted at its place, on its own device (not the root fs), read-write, from its device."""
    check = "disk.mount"
    entry = mount_at(disk.mount, mounts)
    if disk.state == "failed":
        if entry is None:
            return [
                Finding(
                    check,
                    Level.OK,
                    f"failed disk, {disk.mount} not mounted (expected)",
                    subject=disk.name,
                )
            ]
        return [
            Finding(
                check,
                Level.WARN,
                f"marked failed in the spec but still mounted at {disk.mount} ({entry.source})",
                subject=disk.name,
                fix=f"ansible-playbook disk-fail.yml -l <host> -e disk={disk.name} (unmounts it)",
            )
        ]
    if entry is None:
        return [
            Finding(
                check,
                Level.FAIL,
                f"{disk.mount} is not a mount point: the cache would fill the filesystem below it",
                subject=disk.name,
                fix=(
                    f"mount it (ansible-playbook site.yml -l <host>) or, if {disk.device} is dead, "
                    f"ansible-playbook disk-fail.yml -l <host> -e disk={disk.name}"
                ),
            )
        ]
    findings = []
    root = mount_at("/", mounts)
    others = [
        m
        for m in mounts
        if m.device == entry.device and m.mountpoint != entry.mountpoint and m.mountpoint != "/"
    ]
    if root is not None and root.device == entry.device:
        return [
            Finding(
                check,
                Level.FAIL,
                f"{disk.mount} is on the root filesystem's device {entry.device} ({entry.source})",
                subject=disk.name,
                fix=f"mount {disk.device} at {disk.mount}",
            )
        ]
    if others and entry.fstype not in ("tmpfs",):
        shared = ", ".join(sorted({m.mountpoint for m in others}))
        findings.append(
            Finding(
                check,
                Level.WARN,
                f"{disk.mount} shares device {entry.device} with {shared}: not a disk of its own",
                subject=disk.name,
                fix="give every disk of the spec its own device",
            )
        )
    if entry.read_only:
        findings.append(
            Finding(
                check,
                Level.FAIL,
                f"{disk.mount} is mounted read-only (the kernel does this after I/O errors)",
                subject=disk.name,
                fix=(
                    f"check dmesg for {entry.source}; if the disk is dying: "
                    f"ansible-playbook disk-fail.yml -l <host> -e disk={disk.name}"
                ),
            )
        )
    if disk.filesystem and entry.fstype != disk.filesystem:
        findings.append(
            Finding(
                check,
                Level.WARN,
                f"{disk.mount} is {entry.fstype}, the spec says {disk.filesystem}",
                subject=disk.name,
                fix="correct filesystem in the spec or re-format the disk",
            )
        )
    if entry.source.startswith("/dev/") and realpath(entry.source) != realpath(disk.device):
        findings.append(
            Finding(
                check,
                Level.WARN,
                f"{disk.mount} is mounted from {entry.source}, the spec says {disk.device}",
                subject=disk.name,
                fix="device names move after a reboot or a replacement: correct device in the spec",
            )
        )
    if not findings:
        findings.append(
            Finding(
                check,
                Level.OK,
                f"{entry.source} mounted at {disk.mount} "
                f"({entry.fstype}, rw, device {entry.device})",
                subject=disk.name,
                data={"source": entry.source, "device": entry.device},
            )
        )
    return findings


# ----------------------------------------------------------------------------- space


@dataclass(frozen=True)
class FsUsage:
    """statvfs figures in bytes/inodes."""

    total: int
    free: int  # available to unprivileged users (f_bavail)
    inodes: int
    inodes_free: int


def check_space(disk: Disk, usage: FsUsage | None, error: str | None = None) -> Finding:
    """Free space above ``min_free`` (warn below it, fail below half of it); inodes above 5%."""
    check = "disk.free"
    if usage is None:
        return Finding(
            check,
            Level.FAIL,
            f"cannot stat {disk.mount}: {error}",
            subject=disk.name,
            fix=f"check the disk; if it is dead: disk-fail.yml -e disk={disk.name}",
        )
    min_free = (
        disk.min_free if disk.min_free is not None else int(usage.total * DEFAULT_MIN_FREE_RATIO)
    )
    data = {
        "total": usage.total,
        "free": usage.free,
        "min_free": min_free,
        "inodes": usage.inodes,
        "inodes_free": usage.inodes_free,
    }
    percent = 100.0 * usage.free / usage.total if usage.total else 0.0
    text = (
        f"{_gib(usage.free)} free of {_gib(usage.total)} ({percent:.1f}%), "
        f"min_free {_gib(min_free)}"
    )
    fix = (
        "something other than nginx's cache fills the disk (the cache stays under max_size): "
        f"find it with du -x {disk.mount}; or lower the cache size in the spec"
    )
    if usage.free < min_free / 2:
        return Finding(check, Level.FAIL, text, subject=disk.name, fix=fix, data=data)
    if usage.free < min_free:
        return Finding(check, Level.WARN, text, subject=disk.name, fix=fix, data=data)
    if usage.inodes and usage.inodes_free < usage.inodes * INODE_MIN_FREE_RATIO:
        return Finding(
            check,
            Level.WARN,
            f"{text}; only {usage.inodes_free} of {usage.inodes} inodes free",
            subject=disk.name,
            data=data,
            fix="many small objects: re-create the filesystem with more inodes (xfs: imaxpct)",
        )
    return Finding(check, Level.OK, text, subject=disk.name, data=data)


def _gib(size: int | float) -> str:
    return f"{size / 1024**3:.1f} GiB"


def check_writable(disk: Disk, error: str | None) -> Finding:
    """A small file could be written, fsync'ed and removed in the disk's cache directory."""
    if error is None:
        return Finding("disk.writable", Level.OK, f"{disk.dir} is writable", subject=disk.name)
    return Finding(
        "disk.writable",
        Level.FAIL,
        f"cannot write to {disk.dir}: {error}",
        subject=disk.name,
        fix=(
            f"if the disk is failing: ansible-playbook disk-fail.yml -l <host> -e "
            f"disk={disk.name}; if only the directory is missing: re-run site.yml"
        ),
    )


# ----------------------------------------------------------------------------- drift


def normalize_config(text: str) -> list[str]:
    """Config lines without the header comment (it names the spec file, which may differ)."""
    return [
        line
        for line in text.splitlines()
        if not (line.lstrip().startswith("#") and "generated by tpgen" in line)
    ]


def check_drift(
    live: str | None,
    *,
    path: str,
    expected: str | None = None,
    expected_sha1: str | None = None,
    live_error: str | None = None,
) -> Finding:
    """The live config equals what tpgen renders for the spec (text, or sha1 of the text)."""
    check = "config.drift"
    fix = (
        "re-deploy it (ansible-playbook site.yml -l <host>), or if the live edit is wanted, "
        f"put it into the spec: tpgen render SPEC --diff {path} shows the difference"
    )
    if live is None:
        return Finding(check, Level.FAIL, f"cannot read {path}: {live_error}", fix=fix)
    if expected is not None:
        old, new = normalize_config(live), normalize_config(expected)
        if old == new:
            return Finding(check, Level.OK, f"{path} is what tpgen renders for the spec")
        diff = list(
            difflib.unified_diff(old, new, fromfile=path, tofile="tpgen render", lineterm="", n=1)
        )
        shown = diff[:DIFF_LINES]
        if len(diff) > DIFF_LINES:
            shown.append(f"... {len(diff) - DIFF_LINES} more diff lines")
        changed = sum(1 for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---"))
        return Finding(
            check,
            Level.WARN,
            f"{path} differs from tpgen's rendering ({changed} lines)",
            fix=fix,
            data={"diff": shown},
        )
    if expected_sha1 is not None:
        actual = hashlib.sha1(live.encode()).hexdigest()  # Ansible's checksum is sha1 too
        if actual == expected_sha1:
            return Finding(check, Level.OK, f"{path} is what tpgen renders for the spec")
        return Finding(
            check,
            Level.WARN,
            f"{path} differs from tpgen's rendering (sha1 {actual[:12]}, "
            f"expected {expected_sha1[:12]})",
            fix=fix,
            data={"sha1": actual},
        )
    return Finding(check, Level.OK, "not checked (no spec given)", data={"skipped": True})


# ----------------------------------------------------------------------------- error log


def parse_since(text: str, now: datetime) -> datetime:
    """``15m``/``2h``/``7d``/``1w`` before ``now``, or a date/time (``2026-11-21 18:00``)."""
    value = text.strip()
    rel = _RELATIVE.match(value)
    if rel:
        return now - timedelta(**{_UNITS[rel.group(2)]: int(rel.group(1))})
    for fmt in (
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%d %H:%M",
        "%Y/%m/%d %H:%M:%S",
        "%Y-%m-%d",
    ):
        try:
            return datetime.strptime(value, fmt)
        except ValueError:
            continue
    raise DoctorError(
        f"--since {text!r}: use a duration (30m, 2h, 1d) or a local time (2026-11-21 18:00)"
    )


@dataclass
class LogCounts:
    """What the error log says since a time."""

    lines: int = 0
    queue_overflow: dict[str, int] = field(default_factory=dict)  # pool -> lines
    tasks_waiting_max: dict[str, int] = field(default_factory=dict)  # pool -> worst backlog
    alloc_node: dict[str, int] = field(default_factory=dict)  # keys zone -> lines
    disk_errors: dict[str, int] = field(default_factory=dict)  # disk -> I/O error lines
    disk_full: dict[str, int] = field(default_factory=dict)  # disk -> ENOSPC lines
    errno_seen: dict[str, set[str]] = field(default_factory=dict)  # disk -> errno names


def _disk_of(path: str, disks: Sequence[Disk]) -> str | None:
    best: Disk | None = None
    for disk in disks:
        root = disk.mount.rstrip("/") + "/"
        if (path + "/").startswith(root) and (best is None or len(disk.mount) > len(best.mount)):
            best = disk
    return None if best is None else best.name


def scan_error_log(
    lines: Iterable[str], since: datetime | None, disks: Sequence[Disk]
) -> LogCounts:
    """Count queue overflows, keys-zone allocation failures and disk errors after ``since``."""
    counts = LogCounts()
    cutoff = since.strftime("%Y/%m/%d %H:%M:%S") if since else None
    for line in lines:
        match = _LOG_LINE.match(line)
        if not match or (cutoff is not None and match.group(1) < cutoff):
            continue
        counts.lines += 1
        text = match.group(3)
        overflow = _QUEUE_OVERFLOW.search(text)
        if overflow:
            pool, waiting = overflow.group(1), int(overflow.group(2))
            counts.queue_overflow[pool] = counts.queue_overflow.get(pool, 0) + 1
            counts.tasks_waiting_max[pool] = max(counts.tasks_waiting_max.get(pool, 0), waiting)
            continue
        alloc = _ALLOC_NODE.search(text)
        if alloc:
            zone = alloc.group(1) or "?"
            counts.alloc_node[zone] = counts.alloc_node.get(zone, 0) + 1
            continue
        failed = _FAILED_ERRNO.search(text)
        if not failed:
            continue
        errno = int(failed.group(1))
        if errno not in _DISK_ERRNOS and errno not in _FULL_ERRNOS:
            continue
        path = _QUOTED_PATH.search(text)
        disk = _disk_of(path.group(1), disks) if path else None
        if disk is None:
            continue
        bucket = counts.disk_errors if errno in _DISK_ERRNOS else counts.disk_full
        bucket[disk] = bucket.get(disk, 0) + 1
        counts.errno_seen.setdefault(disk, set()).add(
            _DISK_ERRNOS.get(errno) or _FULL_ERRNOS[errno]
        )
    return counts


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def check_log(
    counts: LogCounts | None,
    *,
    path: str,
    since_label: str,
    error: str | None = None,
    failed_disks: frozenset[str] = frozenset(),
) -> list[Finding]:
    """Findings from :func:`scan_error_log` counts.

    Errors of disks the spec already marks ``failed`` are expected (ok): disk-fail.yml ran.
    """
    if counts is None:
        return [
            Finding(
                "log.read",
                Level.WARN,
                f"cannot read {path}: {error}",
                fix="pass the error_log path of the config (--error-log)",
            )
        ]
    findings = []
    for pool, n in sorted(counts.queue_overflow.items()):
        findings.append(
            Finding(
                "log.queue_overflow",
                Level.WARN,
                f'thread pool "{pool}" queue overflow: {_times(n)} since {since_label} '
                f"(up to {counts.tasks_waiting_max[pool]} tasks waiting)",
                subject=pool,
                data={"count": n, "max_waiting": counts.tasks_waiting_max[pool]},
                fix=(
                    "the disk cannot keep up: check it with iostat -x; raise the pool's threads or "
                    "max_queue under tuning in the spec; or drain the disk (disk-drain.yml)"
                ),
            )
        )
    for zone, n in sorted(counts.alloc_node.items()):
        findings.append(
            Finding(
                "log.alloc_node",
                Level.WARN,
                f'could not allocate node in keys zone "{zone}": {_times(n)} since {since_label}',
                subject=zone,
                data={"count": n},
                fix=(
                    "the keys_zone is full before the disk: lower avg_object_size in the spec "
                    "(more keys per zone) or shorten inactive; see tpgen explain"
                ),
            )
        )
    for disk, n in sorted(counts.disk_errors.items()):
        kinds = ", ".join(sorted(counts.errno_seen.get(disk, set())))
        if disk in failed_disks:
            findings.append(
                Finding(
                    "log.disk_errors",
                    Level.OK,
                    f"{n} disk errors ({kinds}) on {disk} since {since_label}: "
                    "it is marked failed, as it should be",
                    subject=disk,
                    data={"count": n},
                )
            )
            continue
        findings.append(
            Finding(
                "log.disk_errors",
                Level.FAIL,
                f"{n} disk errors ({kinds}) on {disk} since {since_label}",
                subject=disk,
                data={"count": n},
                fix=f"the disk is failing: ansible-playbook disk-fail.yml -l <host> -e disk={disk}",
            )
        )
    for disk, n in sorted(counts.disk_full.items()):
        findings.append(
            Finding(
                "log.disk_full",
                Level.WARN,
                f"{n} 'No space left on device' on {disk} since {since_label}",
                subject=disk,
                data={"count": n},
                fix="see disk.free; lower the disk's cache size (tuning) or free the space",
            )
        )
    if not findings:
        findings.append(
            Finding(
                "log.errors",
                Level.OK,
                f"no queue overflow, keys zone or disk errors in {path} since {since_label} "
                f"({counts.lines} lines read)",
                data={"lines": counts.lines},
            )
        )
    return findings


# ----------------------------------------------------------------------------- stub_status


@dataclass(frozen=True)
class StubStatus:
    active: int
    accepts: int
    handled: int
    requests: int
    reading: int
    writing: int
    waiting: int


def parse_stub_status(text: str) -> StubStatus:
    """Parse the ``stub_status`` page."""
    active = re.search(r"Active connections:\s*(\d+)", text)
    totals = re.search(r"server accepts handled requests\s+(\d+)\s+(\d+)\s+(\d+)", text)
    rww = re.search(r"Reading:\s*(\d+)\s+Writing:\s*(\d+)\s+Waiting:\s*(\d+)", text)
    if not (active and totals and rww):
        raise DoctorError("not a stub_status page")
    return StubStatus(
        int(active.group(1)), *(int(g) for g in totals.groups()), *(int(g) for g in rww.groups())
    )


def check_status(url: str | None, page: str | None, error: str | None = None) -> Finding:
    """nginx answers on its stub_status URL; accepted == handled (no dropped connections)."""
    if url is None:
        return Finding(
            "nginx.status", Level.OK, "not checked (no status URL)", data={"skipped": True}
        )
    fix = "is nginx running? systemctl status nginx; journalctl -u nginx"
    if page is None:
        return Finding("nginx.status", Level.FAIL, f"no answer from {url}: {error}", fix=fix)
    try:
        stub = parse_stub_status(page)
    except DoctorError:
        return Finding("nginx.status", Level.FAIL, f"{url} is not a stub_status page", fix=fix)
    data = dict(stub.__dict__)
    text = (
        f"active {stub.active} (reading {stub.reading}, writing {stub.writing}, waiting "
        f"{stub.waiting}); accepts {stub.accepts}, handled {stub.handled}, "
        f"requests {stub.requests}"
    )
    dropped = stub.accepts - stub.handled
    if dropped > 0:
        return Finding(
            "nginx.status",
            Level.WARN,
            f"{text}: {dropped} connections dropped",
            data=data,
            fix="worker_connections or worker_rlimit_nofile reached: raise them (tuning)",
        )
    return Finding("nginx.status", Level.OK, text, data=data)


# ----------------------------------------------------------------------------- the machine


class System(Protocol):
    """What doctor reads from the machine (tests pass a fake)."""

    def nginx_v(self, binary: str) -> str: ...
    def mountinfo(self) -> str: ...
    def statvfs(self, path: str) -> FsUsage: ...
    def write_probe(self, directory: str) -> None: ...
    def read_text(self, path: str) -> str: ...
    def read_lines(self, path: str) -> Iterable[str]: ...
    def fetch(self, url: str) -> str: ...
    def realpath(self, path: str) -> str: ...
    def now(self) -> datetime: ...


def open_regular(path: str) -> int:
    """A descriptor to read a regular file; OSError for anything else.

    Checked before opening: opening a FIFO blocks, and /dev/zero never ends.
    """
    kind = stat.S_IFMT(os.stat(path).st_mode)
    if kind == stat.S_IFREG:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        kind = stat.S_IFMT(os.fstat(fd).st_mode)
        if kind == stat.S_IFREG:
            return fd
        os.close(fd)
    raise OSError(errno.EINVAL, "not a regular file", path)


class HostSystem:
    """The real machine."""

    def __init__(self, timeout: float = 3.0) -> None:
        self.timeout = timeout

    def nginx_v(self, binary: str) -> str:
        proc = subprocess.run(
            [binary, "-V"], capture_output=True, text=True, check=False, timeout=self.timeout
        )
        if proc.returncode != 0:
            raise OSError(proc.stderr.strip() or f"exit {proc.returncode}")
        return proc.stderr + proc.stdout

    def mountinfo(self) -> str:
        return Path("/proc/self/mountinfo").read_text(encoding="utf-8")

    def statvfs(self, path: str) -> FsUsage:
        st = os.statvfs(path)
        return FsUsage(
            st.f_blocks * st.f_frsize, st.f_bavail * st.f_frsize, st.f_files, st.f_favail
        )

    def write_probe(self, directory: str) -> None:
        probe = os.path.join(directory, f".tpgen-doctor-{os.getpid()}")
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, b"\0" * 4096)
            os.fsync(fd)
        finally:
            os.close(fd)
            os.unlink(probe)

    def read_text(self, path: str) -> str:
        fd = open_regular(path)
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(READ_LIMIT + 1)
        if len(data) > READ_LIMIT:
            raise OSError(errno.EFBIG, f"larger than {READ_LIMIT >> 20} MiB", path)
        return data.decode("utf-8", errors="replace")

    def read_lines(self, path: str) -> Iterable[str]:
        with os.fdopen(open_regular(path), encoding="utf-8", errors="replace") as handle:
            yield from handle

    def fetch(self, url: str) -> str:
        with urllib.request.urlopen(url, timeout=self.timeout) as response:
            body: bytes = response.read(65536)
        return body.decode("utf-8", errors="replace")

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    def now(self) -> datetime:
        return datetime.now()


def _error_text(err: BaseException) -> str:
    if isinstance(err, urllib.error.URLError):
        reason = err.reason
        return reason.strerror or str(reason) if isinstance(reason, OSError) else str(reason)
    if isinstance(err, OSError) and err.strerror:
        return err.strerror if not err.filename else f"{err.strerror}: {err.filename}"
    return str(err) or type(err).__name__


def diagnose(
    inputs: DoctorInputs, system: System, *, since: str | None = DEFAULT_SINCE
) -> list[Finding]:
    """Run every check against the machine behind ``system``."""
    now = system.now()
    since_at = parse_since(since, now) if since else None
    since_label = since_at.strftime("%Y-%m-%d %H:%M:%S") if since_at else "the log's start"
    findings: list[Finding] = []

    try:
        findings.append(check_threads(parse_nginx_v(system.nginx_v(inputs.nginx_binary))))
    except (OSError, subprocess.SubprocessError) as err:
        findings.append(check_threads(None, _error_text(err)))

    try:
        mounts = parse_mountinfo(system.mountinfo())
    except OSError as err:
        mounts = []
        findings.append(Finding("disk.mount", Level.FAIL, f"cannot read mountinfo: {err}"))
    for disk in inputs.disks:
        mount_findings = check_mount(disk, mounts, realpath=system.realpath)
        findings.extend(mount_findings)
        if disk.state == "failed" or mount_at(disk.mount, mounts) is None:
            continue
        try:
            usage: FsUsage | None = system.statvfs(disk.mount)
            usage_error = None
        except OSError as err:
            usage, usage_error = None, _error_text(err)
        if disk.state != "draining":
            findings.append(check_space(disk, usage, usage_error))
            try:
                system.write_probe(disk.dir)
                findings.append(check_writable(disk, None))
            except OSError as err:
                findings.append(check_writable(disk, _error_text(err)))

    try:
        live: str | None = system.read_text(inputs.config_path)
        live_error = None
    except OSError as err:
        live, live_error = None, _error_text(err)
    findings.append(
        check_drift(
            live,
            path=inputs.config_path,
            expected=inputs.expected_config,
            expected_sha1=inputs.expected_sha1,
            live_error=live_error,
        )
    )

    try:
        counts: LogCounts | None = scan_error_log(
            system.read_lines(inputs.error_log), since_at, inputs.disks
        )
        log_error = None
    except OSError as err:
        counts, log_error = None, _error_text(err)
    failed = frozenset(d.name for d in inputs.disks if d.state == "failed")
    findings.extend(
        check_log(
            counts,
            path=inputs.error_log,
            since_label=since_label,
            error=log_error,
            failed_disks=failed,
        )
    )

    if inputs.status_url is None:
        findings.append(check_status(None, None))
    else:
        try:
            findings.append(check_status(inputs.status_url, system.fetch(inputs.status_url)))
        except (OSError, urllib.error.URLError) as err:
            findings.append(check_status(inputs.status_url, None, _error_text(err)))
    return findings


# ----------------------------------------------------------------------------- output


def worst(findings: Iterable[Finding]) -> Level:
    """The exit code: the worst level found (OK for no findings)."""
    return max((f.level for f in findings), default=Level.OK)


def report_json(
    findings: Sequence[Finding], *, host: str, source: str, since: str | None
) -> dict[str, Any]:
    """The ``--json`` document (schema ``tpgen-doctor/1``, see docs/operations.md)."""
    level = worst(findings)
    return {
        "schema": JSON_SCHEMA_ID,
        "host": host,
        "spec": source,
        "since": since,
        "status": level.label,
        "exit_code": int(level),
        "counts": {lvl.label: sum(1 for f in findings if f.level == lvl) for lvl in Level},
        "findings": [f.to_json() for f in findings],
    }


def report_text(findings: Sequence[Finding], *, host: str) -> str:
    """A table, one finding per line, the fix under every warning or failure."""
    rows = [(f.level.label.upper(), f.check, f.subject or "-", f.message) for f in findings]
    width_check = max([len(r[1]) for r in rows] + [5])
    width_subject = max([len(r[2]) for r in rows] + [7])
    lines = [f"{'LEVEL':<5} {'CHECK':<{width_check}} {'SUBJECT':<{width_subject}} MESSAGE"]
    for finding, row in zip(findings, rows, strict=True):
        lines.append(f"{row[0]:<5} {row[1]:<{width_check}} {row[2]:<{width_subject}} {row[3]}")
        if finding.level != Level.OK and finding.fix:
            lines.append(f"{'':<5} {'':<{width_check}} {'':<{width_subject}} fix: {finding.fix}")
        for diff_line in finding.data.get("diff", []) if finding.level != Level.OK else []:
            lines.append(f"      | {diff_line}")
    counts = {lvl: sum(1 for f in findings if f.level == lvl) for lvl in Level}
    lines.append(
        f"doctor {host}: {worst(findings).label} ({counts[Level.OK]} ok, "
        f"{counts[Level.WARN]} warn, {counts[Level.FAIL]} fail)"
    )
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- entry points


def _status_url_of(spec: Mapping[str, Any]) -> str:
    status = spec.get("status") or {}
    address = str(status.get("address", "127.0.0.1"))
    port = int(status.get("port", 8081))
    host = f"[{address}]" if ":" in address else address
    if address in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    return f"http://{host}:{port}/nginx_status"


def _error_log_of(config: str) -> str | None:
    for line in config.splitlines():
        match = re.match(r"\s*error_log\s+([^\s;]+)", line)
        if match and match.group(1).startswith("/"):
            return match.group(1)
    return None


def fill_node_facts(
    spec: Mapping[str, Any], *, hostname: str, cores: int | None, memory_mb: int | None
) -> dict[str, Any]:
    """Fill node.name/cores/memory like the Ansible filter ``tpgen_node_spec`` does."""
    result = json.loads(json.dumps(spec, default=str))
    node = result.setdefault("node", {})
    facts: dict[str, Any] = {
        "name": hostname,
        "cores": cores,
        "memory": None if memory_mb is None else f"{memory_mb}MiB",
    }
    for key, value in facts.items():
        if key not in node and value is not None:
            node[key] = value
    return result  # type: ignore[no-any-return]


def _local_memory_mb() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def inputs_from_spec(
    spec_path: str,
    *,
    config_path: str = DEFAULT_CONFIG,
    error_log: str | None = None,
    status_url: str | None = None,
    nginx_binary: str = "nginx",
    source: str | None = None,
) -> DoctorInputs:
    """Build doctor's inputs from a spec file with tpgen.api (the layout and the rendering).

    Node facts missing from the spec (name, cores, memory) are filled from this host, as the
    Ansible role does from facts. ``source`` is the label the config header names.
    """
    from tpgen import api  # lazily: doctor.py also runs alone

    try:
        document = api.read_spec_document(spec_path)
    except api.SpecError as err:
        raise DoctorError(str(err)) from err
    raw = document.data
    if not isinstance(raw, dict):
        raise DoctorError(f"{spec_path}: the spec must be a mapping")
    data = fill_node_facts(
        raw,
        hostname=socket.gethostname().split(".")[0],
        cores=os.cpu_count(),
        memory_mb=_local_memory_mb(),
    )
    label = source or spec_path
    try:
        spec = api.spec_from_mapping(data, source=spec_path, lines=document.lines)
        plan = api.make_plan(spec, spec_path, lines=document.lines)
    except api.SpecError as err:
        raise DoctorError(str(err)) from err
    rendered = api.render_config(plan, source=label)
    disks = tuple(Disk.from_mapping(d) for d in api.disk_layout(plan))
    return DoctorInputs(
        disks=disks,
        config_path=config_path,
        error_log=error_log or _error_log_of(rendered) or DEFAULT_ERROR_LOG,
        status_url=status_url or _status_url_of(data),
        expected_config=rendered,
        nginx_binary=nginx_binary,
        source=spec_path,
    )


def run_doctor(
    inputs: DoctorInputs,
    *,
    since: str | None,
    as_json: bool,
    system: System | None = None,
    out: TextIO | None = None,
) -> int:
    """Run the checks, print text or JSON, return the exit code (0 ok, 1 warn, 2 fail)."""
    stdout = out if out is not None else sys.stdout
    findings = diagnose(inputs, system or HostSystem(), since=since)
    host = socket.gethostname()
    if as_json:
        payload = report_json(findings, host=host, source=inputs.source, since=since)
        stdout.write(json.dumps(payload, indent=2) + "\n")
    else:
        stdout.write(report_text(findings, host=host))
    return int(worst(findings))


def doctor_main(
    spec_path: str,
    *,
    since: str | None = DEFAULT_SINCE,
    as_json: bool = False,
    config_path: str = DEFAULT_CONFIG,
    error_log: str | None = None,
    status_url: str | None = None,
    nginx_binary: str = "nginx",
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """``tpgen doctor SPEC``: check this node against its spec; exit 0/1/2 (ok/warn/fail)."""
    stderr = err if err is not None else sys.stderr
    try:
        inputs = inputs_from_spec(
            spec_path,
            config_path=config_path,
            error_log=error_log,
            status_url=status_url,
            nginx_binary=nginx_binary,
        )
        return run_doctor(inputs, since=since, as_json=as_json, out=out)
    except DoctorError as error:
        print(f"tpgen doctor: {error}", file=stderr)
        return int(Level.FAIL)


def _read_layout(path: str) -> Any:
    try:
        return json.loads(HostSystem().read_text(path))
    except RecursionError:
        # json nests one C call per level: a hostile layout must not be an internal error.
        raise DoctorError(f"{path}: nested too deeply to be a disk layout") from None


def main(argv: Sequence[str] | None = None) -> int:
    """Standalone entry for nodes without the tpgen package (``python3 doctor.py --layout``)."""
    parser = argparse.ArgumentParser(prog="doctor.py", description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--spec", help="spec file (needs the tpgen package)")
    source.add_argument("--layout", help="JSON file: the plan's disk layout (a list of disks)")
    parser.add_argument("--expected-sha1", help="sha1 of the config tpgen renders (drift check)")
    parser.add_argument("--config", default=DEFAULT_CONFIG)
    parser.add_argument("--error-log", default=None)
    parser.add_argument("--status-url", default=None)
    parser.add_argument("--no-status", action="store_true", help="skip the stub_status check")
    parser.add_argument("--nginx", default="nginx", help="nginx binary")
    parser.add_argument("--since", default=DEFAULT_SINCE)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.spec:
        return doctor_main(
            args.spec,
            since=args.since,
            as_json=args.json,
            config_path=args.config,
            error_log=args.error_log,
            status_url=args.status_url,
            nginx_binary=args.nginx,
        )
    try:
        layout = _read_layout(args.layout)
        if not isinstance(layout, list):
            raise DoctorError(f"{args.layout}: expected a JSON list of disks")
        inputs = DoctorInputs(
            disks=tuple(Disk.from_mapping(d) for d in layout),
            config_path=args.config,
            error_log=args.error_log or DEFAULT_ERROR_LOG,
            status_url=None if args.no_status else (args.status_url or DEFAULT_STATUS_URL),
            expected_sha1=args.expected_sha1,
            nginx_binary=args.nginx,
            source=args.layout,
        )
        return run_doctor(inputs, since=args.since, as_json=args.json)
    except (OSError, ValueError, DoctorError) as error:
        print(f"doctor.py: {error}", file=sys.stderr)
        return int(Level.FAIL)


if __name__ == "__main__":
    sys.exit(main())
