"""Doctor's checks as Prometheus series, for the node exporter's textfile collector.

``tpgen doctor SPEC --prometheus FILE`` (a machine with tpgen) and ``python3 -m
tpgen.ops.doctor.prometheus --layout FILE --prometheus FILE`` (a node, where role tpgen_metrics
runs it from a systemd timer with the module_utils copy of this package) write the same series:
one run of :func:`diagnose`, plus what a graph needs that a finding does not carry (mounted or
not, free bytes of draining disks, the bucket share). The series are listed, with their labels,
in docs/operations.md ("Metrics"). Like every doctor module: the standard library only.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import stat
import sys
import tempfile
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from .diagnose import diagnose
from .errorlog import DEFAULT_SINCE, parse_since
from .findings import DoctorError, Finding, Level, worst
from .guard_state import read_guard_disks
from .layout import DEFAULT_CONFIG, GUARD_STATE_FILE, DoctorInputs, Layout, LayoutDisk, read_layout
from .mounts import MountEntry, mount_at, parse_mountinfo
from .space import DEFAULT_MIN_FREE_RATIO, INODE_MIN_FREE_RATIO, FsUsage
from .system import HostSystem, System

DISK_STATES = ("active", "draining", "failed")
GUARD_STATES = ("active", "draining", "failed", "slow")


@dataclass
class Family:
    """One metric family: its name, help, type and samples (labels, value)."""

    name: str
    help: str
    samples: list[tuple[dict[str, str], float]] = field(default_factory=list)
    kind: str = "gauge"

    def add(self, value: float, **labels: str) -> None:
        self.samples.append((labels, value))


def _escape(value: str) -> str:
    """A label value as the text format wants it: UTF-8, backslash, quote and newline escaped.

    A name in guard's state may hold a lone surrogate (JSON's \\ud800): no UTF-8 has it, and
    writing the file failed (exit 3); it is shown as its escape."""
    text = value.encode("utf-8", "backslashreplace").decode("utf-8")
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def exposition(families: Iterable[Family]) -> str:
    """The Prometheus text format (0.0.4) of the families that have samples."""
    lines = []
    for family in families:
        if not family.samples:
            continue
        lines.append(f"# HELP {family.name} {family.help}")
        lines.append(f"# TYPE {family.name} {family.kind}")
        for labels, value in family.samples:
            text = ",".join(f'{key}="{_escape(val)}"' for key, val in labels.items())
            lines.append(
                f"{family.name}{{{text}}} {_number(value)}"
                if text
                else f"{family.name} {_number(value)}"
            )
    return "\n".join(lines) + "\n" if lines else ""


# ----------------------------------------------------------------------------- node series


def node_families(findings: Sequence[Finding], now: datetime, window: float | None) -> list[Family]:
    """Doctor's verdict, nginx's build and the config drift: one series each."""
    status = Family("tpgen_doctor_status", "Worst doctor finding: 0 ok, 1 warn, 2 fail.")
    status.add(int(worst(findings)))
    counts = Family("tpgen_doctor_findings", "Doctor findings of the last run, by level.")
    for level in Level:
        counts.add(sum(1 for f in findings if f.level is level), level=level.label)
    threads = Family("tpgen_nginx_threads", "1 when nginx -V shows --with-threads.")
    drift = Family(
        "tpgen_config_drift", "1 when the live nginx.conf is not what tpgen renders for the spec."
    )
    for finding in findings:
        if finding.check == "nginx.threads":
            threads.add(int(finding.level is Level.OK))
        elif finding.check == "config.drift" and not finding.data.get("skipped"):
            drift.add(int(finding.level is not Level.OK))
    stamp = Family("tpgen_doctor_timestamp_seconds", "When doctor last ran, Unix time.")
    stamp.add(round(now.timestamp(), 3))
    families = [status, counts, threads, drift, stamp]
    if window is not None:
        span = Family(
            "tpgen_doctor_window_seconds",
            "The error-log window the per-disk error and overflow counts cover.",
        )
        span.add(window)
        families.append(span)
    return families


# ----------------------------------------------------------------------------- disk series


# Per-disk series, in exposition order: (key, name, help).
DISK_SERIES = (
    (
        "state",
        "tpgen_disk_state",
        "The disk's state in the spec: 1 for its state, 0 for the others.",
    ),
    ("mounted", "tpgen_disk_mounted", "1 when the disk's mount is mounted."),
    (
        "writable",
        "tpgen_disk_writable",
        "1 when doctor's probe write into the cache directory worked.",
    ),
    ("size", "tpgen_disk_size_bytes", "Size of the disk's filesystem."),
    ("free", "tpgen_disk_free_bytes", "Bytes free for unprivileged users (df's Avail)."),
    (
        "min_free",
        "tpgen_disk_min_free_bytes",
        "Doctor warns below this many free bytes (min_free).",
    ),
    ("files", "tpgen_disk_files", "Inodes of the disk's filesystem."),
    ("files_free", "tpgen_disk_files_free", "Free inodes."),
    ("files_min_free", "tpgen_disk_files_min_free", "Doctor warns below this many free inodes."),
    (
        "read_ahead",
        "tpgen_disk_read_ahead_bytes",
        "The device's read-ahead (HDDs the plan gives a floor).",
    ),
    (
        "read_ahead_floor",
        "tpgen_disk_read_ahead_floor_bytes",
        "The plan's read-ahead floor for the disk; doctor warns below it.",
    ),
    ("buckets", "tpgen_disk_buckets", "Buckets of the split_clients map that land on the disk."),
    ("share", "tpgen_disk_bucket_share_ratio", "The disk's share of the buckets (0 to 1)."),
    (
        "overflows",
        "tpgen_disk_queue_overflows",
        "Thread-pool queue overflow lines of the disk's pool in the error-log window.",
    ),
    (
        "io_errors",
        "tpgen_disk_io_errors",
        "Error-log lines with an I/O error (EIO, ENXIO, ENODEV, EROFS, EUCLEAN) on the disk "
        "in the window.",
    ),
)


def disk_families(
    layout: Layout, findings: Sequence[Finding], mounts: Sequence[MountEntry], system: System
) -> list[Family]:
    """State, mount, space, buckets, overflows and I/O errors of every disk of the layout."""
    out = {key: Family(name, text) for key, name, text in DISK_SERIES}
    total_buckets = sum(disk["buckets"] for disk in layout["disks"])
    overflows = _counts(findings, "log.queue_overflow")
    io_errors = _counts(findings, "log.disk_errors")
    unwritable = {
        f.subject for f in findings if f.check == "disk.writable" and f.level is not Level.OK
    }
    read_ahead = {f.subject: f.data for f in findings if f.check == "disk.read_ahead" and f.data}
    for disk in layout["disks"]:
        mounted = mount_at(disk["mount"], mounts) is not None
        _mount_series(out, disk, mounted, unwritable, system)
        _read_ahead_series(out, disk["name"], read_ahead.get(disk["name"]))
        _load_series(out, disk, total_buckets, overflows, io_errors)
    return list(out.values())


def _mount_series(
    out: dict[str, Family],
    disk: LayoutDisk,
    mounted: bool,
    unwritable: Collection[str | None],
    system: System,
) -> None:
    """A disk's state, whether it is mounted and writable, and its space."""
    name = disk["name"]
    for state in DISK_STATES:
        out["state"].add(int(disk["state"] == state), disk=name, state=state)
    out["mounted"].add(int(mounted), disk=name)
    if disk["state"] == "active" and mounted:
        out["writable"].add(int(name not in unwritable), disk=name)
    if mounted and disk["state"] != "failed":
        _space(out, disk, system)


def _read_ahead_series(
    out: dict[str, Family], name: str, measured: Mapping[str, Any] | None
) -> None:
    """A disk's read-ahead and its floor, where doctor measured them."""
    if measured is not None:
        out["read_ahead"].add(measured["read_ahead_kb"] * 1024, disk=name)
        out["read_ahead_floor"].add(measured["floor_kb"] * 1024, disk=name)


def _load_series(
    out: dict[str, Family],
    disk: LayoutDisk,
    total_buckets: int,
    overflows: Mapping[str | None, int],
    io_errors: Mapping[str | None, int],
) -> None:
    """A disk's buckets and their share, its pool's queue overflows and its I/O errors."""
    name = disk["name"]
    out["buckets"].add(disk["buckets"], disk=name)
    if total_buckets:
        out["share"].add(round(disk["buckets"] / total_buckets, 6), disk=name)
    pool = disk["thread_pool"]
    out["overflows"].add(overflows.get(pool, 0) if pool else 0, disk=name)
    out["io_errors"].add(io_errors.get(name, 0), disk=name)


def _counts(findings: Sequence[Finding], check: str) -> dict[str | None, int]:
    return {f.subject: int(f.data.get("count", 0)) for f in findings if f.check == check}


def _space(out: dict[str, Family], disk: LayoutDisk, system: System) -> None:
    try:
        usage: FsUsage = system.statvfs(disk["mount"])
    except OSError:
        return  # the disk's mount and doctor's findings say what is wrong
    name = disk["name"]
    min_free = disk["min_free_bytes"]
    out["size"].add(usage.total, disk=name)
    out["free"].add(usage.free, disk=name)
    out["min_free"].add(
        min_free if min_free is not None else int(usage.total * DEFAULT_MIN_FREE_RATIO), disk=name
    )
    out["files"].add(usage.inodes, disk=name)
    out["files_free"].add(usage.inodes_free, disk=name)
    out["files_min_free"].add(int(usage.inodes * INODE_MIN_FREE_RATIO), disk=name)


# ----------------------------------------------------------------------------- guard state


def guard_families(path: str, system: System) -> list[Family]:
    """The guard's view of each disk, when its state file exists (none without it).

    The file is ``{"version": 1, "disks": {"d1": {"state": ..., "since": ..., "reason": ...}}}``.
    An unreadable or malformed file gives ``tpgen_guard_state_readable 0`` and nothing else.
    """
    readable = Family(
        "tpgen_guard_state_readable", "1 when the guard's state file could be read (exists)."
    )
    state = Family(
        "tpgen_guard_disk_state", "The guard's state of the disk: 1 for its state, 0 for others."
    )
    since = Family(
        "tpgen_guard_disk_state_since_timestamp_seconds", "Since when the disk is in that state."
    )
    try:
        disks = read_guard_disks(system.read_text(path))
    except FileNotFoundError:
        return []
    except (OSError, ValueError):
        readable.add(0)
        return [readable]
    readable.add(1)
    for name, entry in sorted(disks.items()):
        current = str(entry.get("state", ""))
        for known in sorted({*GUARD_STATES, current} - {""}):
            state.add(int(known == current), disk=name, state=known)
        stamp = _timestamp(entry.get("since"))
        if stamp is not None:
            since.add(stamp, disk=name)
    return [readable, state, since]


def _timestamp(value: object) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


# ----------------------------------------------------------------------------- run


def metrics_text(
    inputs: DoctorInputs,
    system: System,
    *,
    since: str | None = DEFAULT_SINCE,
    guard_state: str | None = GUARD_STATE_FILE,
) -> str:
    """Every tpgen series of this node, in the text format."""
    now = system.now()
    findings = diagnose(inputs, system, since=since)
    window = (now - parse_since(since, now)).total_seconds() if since else None
    try:
        mounts = parse_mountinfo(system.mountinfo())
    except OSError:
        mounts = []
    families = [
        *node_families(findings, now, window),
        *disk_families(inputs.layout, findings, mounts, system),
        *(guard_families(guard_state, system) if guard_state else []),
    ]
    return exposition(families)


def _replaceable(path: Path, inputs: Iterable[str]) -> None:
    """OSError unless ``path`` is a new name or a regular file other than ``inputs``: the node's
    copy of `render -o`'s rule (tpgen.files does not ship through module_utils)."""
    try:
        current = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(current.st_mode):
        raise OSError(errno.EINVAL, "not a regular file: name the .prom file itself", str(path))
    for source in inputs:
        try:
            other = os.stat(source)
        except OSError:
            continue  # an input that is not there is not this file
        if (other.st_dev, other.st_ino) == (current.st_dev, current.st_ino):
            raise OSError(errno.EINVAL, f"is the input {source} itself", str(path))


def write_textfile(path: str, text: str, inputs: Iterable[str] = ()) -> None:
    """Write ``text`` to ``path`` at once (``-``: stdout): over a regular file or a new name,
    never a link, a device or one of ``inputs``.

    The textfile collector reads every ``*.prom`` at each scrape: a rename, never a half file.
    """
    if path == "-":
        sys.stdout.write(text)
        return
    target = Path(path)
    _replaceable(target, inputs)
    # mkstemp, not a guessable name: the collector's directory may be writable by others.
    fd, temporary = tempfile.mkstemp(
        prefix=f".{target.name[:100]}.", suffix=".tmp", dir=target.parent
    )
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fchmod(handle.fileno(), 0o644)  # the exporter runs as its own user
            os.fsync(handle.fileno())
        _replaceable(target, inputs)  # swapped for a link or a device meanwhile
        os.replace(temporary, target)
    finally:
        Path(temporary).unlink(missing_ok=True)


def main(argv: Sequence[str] | None = None, system: System | None = None) -> int:
    """The node's entry (role tpgen_metrics' timer): 0 written, 2 bad input or cannot write."""
    parser = argparse.ArgumentParser(
        prog="tpgen-metrics", description="Write tpgen's Prometheus series of this node."
    )
    parser.add_argument("--layout", required=True, help="the NodeLayout JSON (role nginx_tpconfig)")
    parser.add_argument("--prometheus", required=True, help="the .prom file to write, - stdout")
    parser.add_argument("--config", default=DEFAULT_CONFIG, help="the live nginx.conf")
    parser.add_argument("--since", default=DEFAULT_SINCE, help="the error-log window (1h, 10m)")
    parser.add_argument("--guard-state", default=GUARD_STATE_FILE, help="tpgen guard's state")
    parser.add_argument("--nginx", default="nginx", help="the nginx binary")
    args = parser.parse_args(argv)
    host = system or HostSystem()
    try:
        layout = read_layout(json.loads(host.read_text(args.layout)), args.layout)
        inputs = DoctorInputs(layout=layout, config_path=args.config, nginx_binary=args.nginx)
        text = metrics_text(inputs, host, since=args.since, guard_state=args.guard_state)
        write_textfile(args.prometheus, text, (args.layout, args.config, args.guard_state))
    except (OSError, ValueError, DoctorError) as err:
        sys.stderr.write(f"tpgen-metrics: {err}\n")
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
