"""Every check, in the order of the report, against the machine behind a :class:`System`."""

from __future__ import annotations

import http.client
import subprocess
from datetime import datetime

from .drift import check_drift, check_extra_files
from .errorlog import DEFAULT_SINCE, LogCounts, check_log, parse_since, scan_error_log
from .findings import Finding, Level
from .guard_state import check_guard_state
from .layout import DoctorInputs, LayoutDisk
from .mounts import check_mount, mount_at, parse_mountinfo
from .nginx_build import check_threads, parse_nginx_v
from .readahead import check_read_ahead
from .space import FsUsage, check_space, check_writable
from .stub_status import check_status
from .system import System, error_text


def diagnose(
    inputs: DoctorInputs, system: System, *, since: str | None = DEFAULT_SINCE
) -> list[Finding]:
    """Run every check against the machine behind ``system``."""
    since_at = parse_since(since, system.now()) if since else None
    return [
        _nginx_build(inputs, system),
        *_disks(inputs, system),
        _drift(inputs, system),
        *_extra(inputs, system),
        *_error_log(inputs, system, since_at),
        _status(inputs, system),
        *_guard(inputs, system),
    ]


def _guard(inputs: DoctorInputs, system: System) -> list[Finding]:
    path = inputs.guard_state
    try:
        text: str | None = system.read_text(path)
        failure = None
    except FileNotFoundError:
        text, failure = None, None
    except OSError as err:
        text, failure = None, error_text(err, path)
    return check_guard_state(text, inputs.layout["disks"], path=path, error=failure)


def _nginx_build(inputs: DoctorInputs, system: System) -> Finding:
    try:
        return check_threads(parse_nginx_v(system.nginx_v(inputs.nginx_binary)))
    except (OSError, subprocess.SubprocessError) as err:
        return check_threads(None, error_text(err))


def _disks(inputs: DoctorInputs, system: System) -> list[Finding]:
    """Mounts of every disk; space and a write probe on the active ones (not draining); the
    read-ahead of every disk the plan gives a floor (not failed)."""
    findings = []
    try:
        mounts = parse_mountinfo(system.mountinfo())
    except OSError as err:
        mounts = []
        findings.append(
            Finding("disk.mount", Level.FAIL, f"cannot read mountinfo: {error_text(err)}")
        )
    for disk in inputs.layout["disks"]:
        findings.extend(check_mount(disk, mounts, realpath=system.realpath))
        if disk["state"] == "active" and mount_at(disk["mount"], mounts) is not None:
            findings.extend(_filesystem(disk, system))
        if disk["read_ahead_kb"] and disk["state"] != "failed":
            findings.append(_read_ahead(disk, system))
    return findings


def _read_ahead(disk: LayoutDisk, system: System) -> Finding:
    try:
        return check_read_ahead(disk, system.read_ahead_kb(disk["device"]))
    except OSError as err:
        return check_read_ahead(disk, None, error_text(err, disk["device"]))


def _filesystem(disk: LayoutDisk, system: System) -> list[Finding]:
    try:
        usage: FsUsage | None = system.statvfs(disk["mount"])
        usage_error = None
    except OSError as err:
        usage, usage_error = None, error_text(err, disk["mount"])
    try:
        system.write_probe(disk["dir"])
        writable = check_writable(disk, None, system.owner_of(disk["dir"]))
    except OSError as err:
        writable = check_writable(disk, error_text(err, disk["dir"]))
    return [check_space(disk, usage, usage_error), writable]


def _drift(inputs: DoctorInputs, system: System) -> Finding:
    try:
        live: str | None = system.read_text(inputs.config_path)
        live_error = None
    except OSError as err:
        live, live_error = None, error_text(err, inputs.config_path)
    return check_drift(
        live,
        path=inputs.config_path,
        expected=inputs.expected_config,
        expected_sha1=inputs.layout["config_sha1"],
        live_error=live_error,
    )


def _extra(inputs: DoctorInputs, system: System) -> list[Finding]:
    missing: dict[str, str] = {}
    paths = inputs.layout.get("extra_files", [])
    for path in paths:
        try:
            system.read_text(path)
        except OSError as err:
            missing[path] = error_text(err, path)
    finding = check_extra_files(missing, len(paths) - len(missing))
    return [finding] if finding else []


def _error_log(inputs: DoctorInputs, system: System, since_at: datetime | None) -> list[Finding]:
    disks, path = inputs.layout["disks"], inputs.layout["error_log"]
    try:
        counts: LogCounts | None = scan_error_log(system.read_lines(path), since_at, disks)
        log_error = None
    except OSError as err:
        counts, log_error = None, error_text(err, path)
    return check_log(
        counts,
        path=path,
        since_label=since_at.strftime("%Y-%m-%d %H:%M:%S") if since_at else "the log's start",
        error=log_error,
        failed_disks=frozenset(d["name"] for d in disks if d["state"] == "failed"),
    )


def _status(inputs: DoctorInputs, system: System) -> Finding:
    url = inputs.layout["status_url"]
    if url is None:
        return check_status(None, None)
    try:
        return check_status(url, system.fetch(url))
    # URLError is an OSError; a malformed URL a ValueError or an InvalidURL; an answer that is
    # not HTTP (a bad status line, a header too long, a cut chunked body) an HTTPException.
    except (OSError, ValueError, http.client.HTTPException) as err:
        return check_status(url, None, error_text(err))
