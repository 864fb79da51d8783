"""The detectors: nginx's error log, the kernel log, the mount table. Each turns text into
:class:`Evidence` against one disk; none decides anything.

An Evidence carries the line that produced it, so the event log shows what guard saw.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ..doctor.errorlog import DISK_ERRNOS, FAILED_ERRNO, QUOTED_PATH
from ..doctor.mounts import MountEntry, mount_at

_ERROR_TEXTS = ("Input/output error", "Read-only file system", "Structure needs cleaning")

# Kernel messages naming the device of an I/O error (block layer, buffer cache, SCSI, file
# systems). The group is the kernel's device name: sdb, sdb1, nvme0n1, loop3, dm-2.
_KERNEL_PATTERNS = (
    re.compile(r"I/O error, dev ([\w-]+), sector"),
    re.compile(r"Buffer I/O error on (?:dev|device) ([\w-]+)"),
    re.compile(r"XFS \(([\w-]+)\): .*(?:I/O error|[Ss]hut(?:ting)? ?down|[Cc]orruption)"),
    re.compile(r"EXT4-fs (?:error|warning) \(device ([\w-]+)\)"),
    re.compile(r"\[([\w-]+)\] .*(?:Medium Error|Unrecovered read error|I/O error)"),
    re.compile(r"^([\w-]+): .*(?:critical medium error|I/O error)"),
)


@dataclass(frozen=True)
class Evidence:
    """One sign that a disk is failing: when, from which source, the line itself."""

    disk: str
    at: float  # seconds since the epoch, when guard saw it
    source: str  # nginx | kernel | mount
    line: str
    decisive: bool = False  # a mount gone or read-only: no need to count to the threshold


@dataclass(frozen=True)
class GuardDisk:
    """One disk as guard watches it (from the NodeLayout)."""

    name: str
    device: str
    mount: str
    state: str
    media: str = "hdd"
    kernel_names: frozenset[str] = field(default_factory=frozenset)
    device_id: str | None = None  # major:minor of the device node, when it exists


def nginx_evidence(lines: Iterable[str], disks: Sequence[GuardDisk], now: float) -> list[Evidence]:
    """I/O errors nginx logged on a file under a disk's mount."""
    found = []
    for line in lines:
        disk = _nginx_disk(line, disks)
        if disk is not None:
            found.append(Evidence(disk, now, "nginx", line.rstrip("\n")[:1000]))
    return found


def _nginx_disk(line: str, disks: Sequence[GuardDisk]) -> str | None:
    failed = FAILED_ERRNO.search(line)
    sick = (failed is not None and int(failed.group(1)) in DISK_ERRNOS) or any(
        text in line for text in _ERROR_TEXTS
    )
    if not sick:
        return None
    for path in QUOTED_PATH.findall(line):
        disk = disk_of_path(path, disks)
        if disk is not None:
            return disk
    return None


def disk_of_path(path: str, disks: Sequence[GuardDisk]) -> str | None:
    """The disk whose mount holds ``path`` (the longest mount wins)."""
    best: GuardDisk | None = None
    for disk in disks:
        if f"{path}/".startswith(disk.mount.rstrip("/") + "/") and (
            best is None or len(disk.mount) > len(best.mount)
        ):
            best = disk
    return None if best is None else best.name


def kernel_evidence(lines: Iterable[str], disks: Sequence[GuardDisk], now: float) -> list[Evidence]:
    """Kernel messages about I/O errors on a disk's device or one of its partitions."""
    by_name = {name: disk.name for disk in disks for name in disk.kernel_names}
    found = []
    for raw in lines:
        line = _kmsg_text(raw)
        for pattern in _KERNEL_PATTERNS:
            match = pattern.search(line)
            disk = by_name.get(match.group(1)) if match else None
            if disk is not None:
                found.append(Evidence(disk, now, "kernel", line[:1000]))
                break
    return found


def _kmsg_text(raw: str) -> str:
    """The message of a /dev/kmsg record ("6,339,5140900,-;text") or a dmesg line."""
    head, sep, text = raw.rstrip("\n").partition(";")
    if sep and re.fullmatch(r"\d+,\d+,\d+,[^;]*", head):
        return text
    return re.sub(r"^\[\s*\d+\.\d+\]\s*", "", raw.rstrip("\n"))


def kernel_name(number: str, sys_block: str = "/sys/dev/block") -> str | None:
    """The kernel's name of the block device major:minor (8:17 -> sdb1), if it has one."""
    real = os.path.realpath(os.path.join(sys_block, number))
    name = os.path.basename(real)
    return None if name == number else name


def mount_evidence(
    disks: Sequence[GuardDisk],
    mounts: Sequence[MountEntry],
    now: float,
    *,
    names: Callable[[str], str | None] = kernel_name,
) -> list[Evidence]:
    """A disk whose mount is gone, read-only, or from another device than the spec names."""
    found = []
    for disk in disks:
        problem = mount_problem(disk, mounts, names=names)
        if problem is not None:
            found.append(Evidence(disk.name, now, "mount", problem, decisive=True))
    return found


def mount_problem(
    disk: GuardDisk,
    mounts: Sequence[MountEntry],
    *,
    names: Callable[[str], str | None] = kernel_name,
) -> str | None:
    """What is wrong with the disk's mount, or None. Its device or a partition of it is right."""
    entry = mount_at(disk.mount, mounts)
    if entry is None:
        return f"{disk.mount} is not mounted"
    # The filesystem's own flag: systemd's ProtectSystem makes every mount of guard's namespace
    # read-only, the superblock stays rw until the kernel (errors=remount-ro, an XFS
    # shutdown) or an operator makes the filesystem itself read-only.
    if "ro" in entry.super_options:
        return f"{disk.mount} is mounted read-only ({entry.source})"
    if (
        disk.device_id is not None
        and entry.device != disk.device_id
        and names(entry.device) not in disk.kernel_names
    ):
        return (
            f"{disk.mount} is mounted from {entry.source} ({entry.device}), "
            f"not {disk.device} ({disk.device_id})"
        )
    return None


def resolve_device(
    device: str,
    *,
    stat: Callable[[str], os.stat_result] = os.stat,
    sys_block: str = "/sys/dev/block",
) -> tuple[frozenset[str], str | None]:
    """The kernel's names of a device (itself and its partitions) and its major:minor.

    A device node that is missing (the disk is gone) gives what its name says: sdb from
    /dev/sdb, and no major:minor.
    """
    names = {os.path.basename(device)}
    try:
        info = stat(device)
    except OSError:
        return frozenset(names), None
    number = f"{os.major(info.st_rdev)}:{os.minor(info.st_rdev)}"
    real = os.path.realpath(os.path.join(sys_block, number))
    kernel = os.path.basename(real)
    if kernel and kernel != number:
        names.add(kernel)
        with contextlib.suppress(OSError):
            names.update(entry for entry in os.listdir(real) if entry.startswith(kernel))
    return frozenset(names), number
