"""Doctor's inputs: the plan's NodeLayout, as the dict ``NodeLayout.to_dict()`` gives.

Doctor reads the layout and derives nothing: the disks (dir, owner, state, min_free_bytes,
read_ahead_kb), the error log, the status URL and the config's sha1 are what the plan decided.
The dict crosses a process (and on nodes, a network) boundary, so it is checked here once: every
check after this may trust its types. The TypedDicts below name the keys doctor reads; they
describe the contract's JSON, they are not a second model of a disk.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from ...spec.units import parse_size
from .findings import DoctorError

# Written by tpgen guard, read by doctor and its metrics: named in the code Ansible ships.
GUARD_STATE_FILE = "/var/lib/tpgen/guard-state.json"

DEFAULT_CONFIG = "/etc/nginx/nginx.conf"


class LayoutDisk(TypedDict):
    """One disk of the NodeLayout (the keys doctor reads)."""

    name: str
    device: str
    mount: str
    dir: str
    state: str
    filesystem: str | None
    owner: str
    min_free_bytes: int | None
    thread_pool: str | None  # the disk's pool, for the metrics' queue overflows per disk
    buckets: int  # buckets of the split on this disk (0 when the layout does not say)
    read_ahead_kb: int | None  # the plan's floor for an HDD nginx reads (None: no floor)


class Layout(TypedDict):
    """The NodeLayout (the keys doctor reads)."""

    disks: list[LayoutDisk]
    error_log: str
    status_url: str | None
    config_sha1: str | None
    extra_files: list[str]  # the include files of spec extra: tpgen's, like nginx.conf


@dataclass(frozen=True)
class DoctorInputs:
    """Everything doctor compares the node against."""

    layout: Layout
    config_path: str = DEFAULT_CONFIG
    expected_config: str | None = None  # the rendered text, when the spec is at hand
    nginx_binary: str = "nginx"
    source: str = "<layout>"
    guard_state: str = GUARD_STATE_FILE  # tpgen guard's decisions, if any


def read_layout(data: object, source: str = "<layout>") -> Layout:
    """The layout doctor can trust, or :class:`DoctorError` naming what is wrong in it."""
    if not isinstance(data, Mapping):
        raise DoctorError(f"{source}: expected the node layout, a mapping with disks")
    disks = data.get("disks")
    if not isinstance(disks, list | tuple):
        raise DoctorError(f"{source}: disks must be a list of disks")
    return {
        "disks": [_read_disk(entry, source) for entry in disks],
        "error_log": _text(data, "error_log", source),
        "status_url": _optional_text(data, "status_url", source),
        "config_sha1": _optional_text(data, "config_sha1", source),
        "extra_files": _extra_paths(data.get("extra_files") or [], source),
    }


def _extra_paths(entries: object, source: str) -> list[str]:
    if not isinstance(entries, list | tuple):
        raise DoctorError(f"{source}: extra_files must be a list of files")
    paths = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            raise DoctorError(f"{source}: an extra file must be a mapping with its path")
        paths.append(_text(entry, "path", f"{source}: extra file"))
    return paths


def with_endpoints(
    layout: Layout, *, error_log: str | None = None, status_url: str | None = None
) -> Layout:
    """The layout with the operator's --error-log / --status-url in place of the plan's."""
    result = layout.copy()
    if error_log is not None:
        result["error_log"] = error_log
    if status_url is not None:
        result["status_url"] = status_url
    return result


def _read_disk(entry: object, source: str) -> LayoutDisk:
    if not isinstance(entry, Mapping):
        raise DoctorError(f"{source}: a disk must be a mapping, not {type(entry).__name__}")
    where = f"{source}: disk {entry.get('name')!r}"
    return {
        "name": _text(entry, "name", where),
        "device": _text(entry, "device", where),
        "mount": _text(entry, "mount", where),
        "dir": _text(entry, "dir", where),
        "state": _text(entry, "state", where),  # active | draining | failed, as the plan says
        "filesystem": _optional_text(entry, "filesystem", where),
        "owner": _text(entry, "owner", where),
        "min_free_bytes": _optional_size(entry, "min_free_bytes", where),
        "thread_pool": _optional_text(entry, "thread_pool", where),
        "buckets": _count(entry, "buckets", where),
        "read_ahead_kb": _optional_count(entry, "read_ahead_kb", where),
    }


def _text(data: Mapping[str, Any], key: str, where: str) -> str:
    value = _optional_text(data, key, where)
    if value is None:
        raise DoctorError(f"{where}: {key} is missing")
    return value


def _optional_text(data: Mapping[str, Any], key: str, where: str) -> str | None:
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    raise DoctorError(f"{where}: {key} must be text, not {type(value).__name__}")


def _count(data: Mapping[str, Any], key: str, where: str) -> int:
    value = _optional_count(data, key, where)
    return 0 if value is None else value


def _optional_count(data: Mapping[str, Any], key: str, where: str) -> int | None:
    value = data.get(key)
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0):
        return value
    raise DoctorError(f"{where}: {key} must be a count (a whole number >= 0), not {value!r}")


def _optional_size(data: Mapping[str, Any], key: str, where: str) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    try:
        return parse_size(value)
    except ValueError as err:
        raise DoctorError(f"{where}: {key}: {err}") from None
