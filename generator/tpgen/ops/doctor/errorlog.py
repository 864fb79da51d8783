"""The error log since a time: thread-pool queue overflows, full keys zones, disk errors."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ...spec.units import parse_duration
from .findings import DoctorError, Finding, Level
from .layout import LayoutDisk

DEFAULT_SINCE = "1h"
_DATE_FORMATS = (
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%dT%H:%M",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y/%m/%d %H:%M:%S",
    "%Y-%m-%d",
)

# errno values nginx prints as "failed (N: text)" that mean the disk is sick, or full
DISK_ERRNOS = {5: "EIO", 6: "ENXIO", 19: "ENODEV", 30: "EROFS", 117: "EUCLEAN"}
_FULL_ERRNOS = {28: "ENOSPC"}

_LOG_LINE = re.compile(r"^(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d) \[(\w+)\] (.*)$")
# nginx prints a count or an errno in ASCII digits, twenty at most: int() refused a number of
# 5000, which a request's text in the log may carry.
_QUEUE_OVERFLOW = re.compile(r'thread pool "([^"]+)" queue overflow: ([0-9]{1,20}) tasks waiting')
_ALLOC_NODE = re.compile(r'could not allocate node(?: in cache keys zone "([^"]+)")?')
FAILED_ERRNO = re.compile(r"failed \(([0-9]{1,10}): [^)]*\)")
QUOTED_PATH = re.compile(r'"(/[^"]*)"')


def parse_since(text: str, now: datetime) -> datetime:
    """A duration before ``now`` (``15m``, ``2h``, ``7d``, ``1h30m``), or a local date/time.

    Durations are read by tpgen's one duration parser, as nginx reads them (whole seconds).
    """
    value = text.strip()
    try:
        return now - timedelta(milliseconds=parse_duration(value, milliseconds=False))
    except ValueError:
        pass
    except OverflowError:  # 1000000d: before year 1
        raise DoctorError(f"--since {text!r}: further back than a date can be") from None
    for fmt in _DATE_FORMATS:
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

    def count(self, text: str, disks: Sequence[LayoutDisk]) -> None:
        """Count one message (the text after the log line's time and level)."""
        self.lines += 1
        overflow = _QUEUE_OVERFLOW.search(text)
        if overflow:
            pool, waiting = overflow.group(1), int(overflow.group(2))
            self.queue_overflow[pool] = self.queue_overflow.get(pool, 0) + 1
            self.tasks_waiting_max[pool] = max(self.tasks_waiting_max.get(pool, 0), waiting)
            return
        alloc = _ALLOC_NODE.search(text)
        if alloc:
            zone = alloc.group(1) or "?"
            self.alloc_node[zone] = self.alloc_node.get(zone, 0) + 1
            return
        self._count_failed_file(text, disks)

    def _count_failed_file(self, text: str, disks: Sequence[LayoutDisk]) -> None:
        """A failed call on a file of a disk, by its errno: an I/O error or a full disk."""
        failed = FAILED_ERRNO.search(text)
        number = int(failed.group(1)) if failed else 0
        if number not in DISK_ERRNOS and number not in _FULL_ERRNOS:
            return
        path = QUOTED_PATH.search(text)
        disk = _disk_of(path.group(1), disks) if path else None
        if disk is None:
            return
        bucket = self.disk_errors if number in DISK_ERRNOS else self.disk_full
        bucket[disk] = bucket.get(disk, 0) + 1
        name = DISK_ERRNOS.get(number) or _FULL_ERRNOS[number]
        self.errno_seen.setdefault(disk, set()).add(name)


def _disk_of(path: str, disks: Sequence[LayoutDisk]) -> str | None:
    best: LayoutDisk | None = None
    for disk in disks:
        root = disk["mount"].rstrip("/") + "/"
        if (path + "/").startswith(root) and (
            best is None or len(disk["mount"]) > len(best["mount"])
        ):
            best = disk
    return None if best is None else best["name"]


def scan_error_log(
    lines: Iterable[str], since: datetime | None, disks: Sequence[LayoutDisk]
) -> LogCounts:
    """Count queue overflows, keys-zone allocation failures and disk errors after ``since``."""
    counts = LogCounts()
    cutoff = since.strftime("%Y/%m/%d %H:%M:%S") if since else None
    for line in lines:
        match = _LOG_LINE.match(line)
        if match and (cutoff is None or match.group(1) >= cutoff):
            counts.count(match.group(3), disks)
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
    findings = [
        *_pool_findings(counts, since_label),
        *_disk_findings(counts, since_label, failed_disks),
    ]
    if findings:
        return findings
    return [
        Finding(
            "log.errors",
            Level.OK,
            f"no queue overflow, keys zone or disk errors in {path} since {since_label} "
            f"({counts.lines} lines read)",
            data={"lines": counts.lines},
        )
    ]


def _pool_findings(counts: LogCounts, since_label: str) -> list[Finding]:
    """Thread pools whose queue overflowed, keys zones that ran out of nodes."""
    findings = []
    for pool, n in sorted(counts.queue_overflow.items()):
        most = counts.tasks_waiting_max[pool]
        findings.append(
            Finding(
                "log.queue_overflow",
                Level.WARN,
                f'thread pool "{pool}" queue overflow: {_times(n)} since {since_label} '
                f"(up to {most} tasks waiting)",
                subject=pool,
                data={"count": n, "max_waiting": most},
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
    return findings


def _disk_findings(
    counts: LogCounts, since_label: str, failed_disks: frozenset[str]
) -> list[Finding]:
    """I/O errors (expected on a disk marked failed) and full disks."""
    findings = []
    for disk, n in sorted(counts.disk_errors.items()):
        kinds = ", ".join(sorted(counts.errno_seen.get(disk, set())))
        text = f"{n} disk errors ({kinds}) on {disk} since {since_label}"
        if disk in failed_disks:
            text += ": it is marked failed, as it should be"
            findings.append(
                Finding("log.disk_errors", Level.OK, text, subject=disk, data={"count": n})
            )
            continue
        findings.append(
            Finding(
                "log.disk_errors",
                Level.FAIL,
                text,
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
    return findings
