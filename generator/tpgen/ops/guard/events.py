"""The event log: /var/lib/tpgen/events.jsonl, one JSON object per line, one line per decision.

    {"time": "2026-11-25T10:02:03Z", "event": "disk_failed", "disk": "d3",
     "message": "...", "evidence": ["2026/11/25 10:02:01 [crit] ... pread() ..."]}

Appended with one write() each (O_APPEND), so a reader never sees half a line; past
EVENT_LOG_MAX_BYTES the file moves to events.jsonl.1 and a new one starts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from .detect import Evidence
from .state import utc_iso

DEFAULT_EVENT_LOG = "/var/lib/tpgen/events.jsonl"
# Enough lines to show what guard saw, few enough that a storm of errors stays readable.
EVIDENCE_LINES = 10
# An error log line may be 64 KiB (the follower's cap); the evidence needs its head only.
EVIDENCE_LINE_CHARS = 2000
# Years of one node's decisions fit; a storm of them never fills /var/lib: past this size the log
# moves to <path>.1, replacing the one before (logrotate's "rotate 1").
EVENT_LOG_MAX_BYTES = 16 << 20


def event_record(
    at: float,
    event: str,
    message: str,
    *,
    disk: str | None = None,
    evidence: Sequence[Evidence] = (),
    **extra: Any,
) -> dict[str, Any]:
    record: dict[str, Any] = {"time": utc_iso(at), "event": event}
    if disk is not None:
        record["disk"] = disk
    record["message"] = message
    if evidence:
        record["evidence"] = [
            f"{item.source}: {item.line}"[:EVIDENCE_LINE_CHARS]
            for item in evidence[-EVIDENCE_LINES:]
        ]
    record.update(extra)
    return record


def append_event(path: str, record: dict[str, Any]) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    line = (json.dumps(record, sort_keys=False, ensure_ascii=True) + "\n").encode("ascii")
    try:
        if os.stat(path).st_size + len(line) > EVENT_LOG_MAX_BYTES:
            os.replace(path, path + ".1")
    except FileNotFoundError:
        pass
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
