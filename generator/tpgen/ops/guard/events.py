"""The event log: /var/lib/tpgen/events.jsonl, one JSON object per line, one line per decision.

    {"time": "2026-11-25T10:02:03Z", "event": "disk_failed", "disk": "d3",
     "message": "...", "evidence": ["2026/11/25 10:02:01 [crit] ... pread() ..."]}

Appended with one write() each (O_APPEND), so a reader never sees half a line; past
EVENT_LOG_MAX_BYTES the file moves to events.jsonl.1 and a new one starts. Only a regular
file is appended to or moved (tpgen.files): a link, a FIFO, a device or the spec is refused.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from tpgen.files import Target, append_output, check_target

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
# How a refusal names the file: the option of `tpgen guard` that chose it.
EVENTS = Target("--events", "the events")


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


def append_event(path: str, record: dict[str, Any], inputs: Sequence[str] = ()) -> None:
    """Append ``record`` as one line; FileRefused when ``path`` (or its ``.1``) is a link,
    not a regular file, or one of ``inputs``."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    line = (json.dumps(record, sort_keys=False, ensure_ascii=True) + "\n").encode("ascii")
    current = check_target(path, inputs, EVENTS)
    if current is not None and current.st_size + len(line) > EVENT_LOG_MAX_BYTES:
        check_target(path + ".1", inputs, EVENTS)
        os.replace(path, path + ".1")
    append_output(path, line, inputs, target=EVENTS)
