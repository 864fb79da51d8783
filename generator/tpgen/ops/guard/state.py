"""The guard's local state: /var/lib/tpgen/guard-state.json.

    {"version": 1, "disks": {"d3": {"state": "failed", "since": "2026-11-25T10:02:03Z",
                                    "reason": "5 I/O errors within 30s (nginx)"}}}

Written atomically (a temporary file in the same directory, fsync, rename). Other readers
(doctor, doctor.yml, the metrics exporter) read it as it is. A file that does not parse is
renamed aside (``.corrupt-<time>``) and reported, never trusted: guard then starts from the
spec's states. Only a regular file is read, set aside or replaced (tpgen.files): a link, a FIFO,
a device or one of guard's inputs (the spec) is refused.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tpgen.files import Target, existing_target, read_head, write_output

VERSION = 1
STATES = ("active", "failed", "draining", "slow")
MAX_BYTES = 1 << 20
# How a refusal names the file: the option of `tpgen guard` that chose it.
STATE = Target("--state", "the state")


def utc_iso(epoch: float) -> str:
    """Seconds since the epoch as ISO-8601 UTC, second precision: 2026-11-25T10:02:03Z."""
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_utc(text: str) -> float | None:
    """Seconds since the epoch of a :func:`utc_iso` time, None for anything else."""
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
    except ValueError:
        return None


@dataclass(frozen=True)
class DiskState:
    state: str
    since: str
    reason: str


@dataclass
class GuardState:
    disks: dict[str, DiskState] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "disks": {
                name: {"state": item.state, "since": item.since, "reason": item.reason}
                for name, item in sorted(self.disks.items())
            },
        }

    def with_disk(self, name: str, state: str, at: float, reason: str) -> GuardState:
        disks = dict(self.disks)
        disks[name] = DiskState(state, utc_iso(at), " ".join(reason.split())[:500])
        return GuardState(disks)

    def named(self, state: str) -> frozenset[str]:
        return frozenset(name for name, item in self.disks.items() if item.state == state)


class CorruptState(ValueError):
    """The state file is not what guard writes."""


def state_from(data: object) -> GuardState:
    """The state in ``data`` (the parsed JSON), or CorruptState saying what is wrong."""
    version = data.get("version") if isinstance(data, Mapping) else None
    # true == 1 and 1.0 == 1 in Python: guard writes the integer.
    written = isinstance(version, int) and not isinstance(version, bool)
    if not isinstance(data, Mapping) or not written or version != VERSION:
        raise CorruptState(f"not a version {VERSION} guard state")
    disks = data.get("disks")
    if not isinstance(disks, Mapping):
        raise CorruptState("disks is not a mapping")
    out = {}
    for name, item in disks.items():
        if not isinstance(item, Mapping) or item.get("state") not in STATES:
            raise CorruptState(f"disk {name!r}: state must be one of {', '.join(STATES)}")
        since, reason = item.get("since"), item.get("reason")
        if not isinstance(since, str) or not isinstance(reason, str):
            raise CorruptState(f"disk {name!r}: since and reason must be strings")
        out[str(name)] = DiskState(item["state"], since, reason)
    return GuardState(out)


def read_state(path: str, now: float, inputs: Sequence[str] = ()) -> tuple[GuardState, str | None]:
    """The state at ``path`` (empty when there is none) and a warning when it was set aside.

    FileRefused when ``path`` is not a regular file or is one of ``inputs``: only guard's own
    file, corrupt, is moved aside.
    """
    if existing_target(path, inputs, STATE) is None:
        return GuardState(), None
    raw = read_head(path, MAX_BYTES + 1)
    try:
        if len(raw) > MAX_BYTES:
            raise CorruptState(f"larger than {MAX_BYTES} bytes")
        return state_from(_json_of(raw)), None
    except (CorruptState, ValueError) as err:
        aside = f"{path}.corrupt-{utc_iso(now).replace(':', '')}"
        # Still the regular file just read, not something swapped in since.
        existing_target(path, inputs, STATE)
        os.replace(path, aside)
        return GuardState(), f"{path} is corrupt ({err}): moved to {aside}, not trusted"


def _json_of(raw: bytes) -> object:
    """The JSON in ``raw``; ValueError (CorruptState for what json's own words do not say)."""
    try:
        return json.loads(raw.decode("utf-8"))
    except RecursionError:
        raise CorruptState("nested deeper than Python reads") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise
    except ValueError:  # int() refuses a number of more than 4300 digits
        raise CorruptState("a number too long to read") from None


def write_state(path: str, state: GuardState, inputs: Sequence[str] = ()) -> None:
    """Replace ``path`` with ``state`` atomically: readers see the old file or the new one."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    text = json.dumps(state.to_dict(), indent=2, sort_keys=True) + "\n"
    write_output(path, text, inputs, target=STATE)


def write_atomic(path: str, text: str, mode: int = 0o644, *, like: str | None = None) -> None:
    """Replace ``path`` with ``text`` (fsynced, then renamed) or leave it as it was. ``like``: an
    existing file whose mode and owner the new one takes (the live nginx.conf the role may have
    made 0640 for a group); without one, or when it is missing, ``mode``."""
    try:
        model = os.stat(like) if like is not None else None
    except FileNotFoundError:
        model = None
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=".tpgen-", dir=directory)
    try:
        # surrogateescape: a live config read back as it was is written back as it was.
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(text)
            handle.flush()
            os.fchmod(handle.fileno(), model.st_mode & 0o7777 if model else mode)
            mine = os.fstat(handle.fileno())
            if model and (model.st_uid, model.st_gid) != (mine.st_uid, mine.st_gid):
                os.fchown(handle.fileno(), model.st_uid, model.st_gid)
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        # The error that stopped the write is the one to report, not a failed clean-up.
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
