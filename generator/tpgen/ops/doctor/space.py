"""Filesystems of the active disks: free space and inodes, and a cache directory nginx can write."""

from __future__ import annotations

from dataclasses import dataclass

from .findings import Finding, Level
from .layout import LayoutDisk

DEFAULT_MIN_FREE_RATIO = 0.05  # of the filesystem, when the plan gives no min_free
INODE_MIN_FREE_RATIO = 0.05


@dataclass(frozen=True)
class FsUsage:
    """statvfs figures in bytes/inodes."""

    total: int
    free: int  # available to unprivileged users (f_bavail)
    inodes: int
    inodes_free: int


def check_space(disk: LayoutDisk, usage: FsUsage | None, error: str | None = None) -> Finding:
    """Free space above ``min_free`` (warn below it, fail below half of it); inodes above 5%."""
    check, name = "disk.free", disk["name"]
    if usage is None:
        return Finding(
            check,
            Level.FAIL,
            f"cannot stat {disk['mount']}: {error}",
            subject=name,
            fix=f"check the disk; if it is dead: disk-fail.yml -e disk={name}",
        )
    min_free = disk["min_free_bytes"]
    if min_free is None:
        min_free = int(usage.total * DEFAULT_MIN_FREE_RATIO)
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
        f"find it with du -x {disk['mount']}; or lower the cache size in the spec"
    )
    if usage.free < min_free:
        level = Level.FAIL if usage.free < min_free / 2 else Level.WARN
        return Finding(check, level, text, subject=name, fix=fix, data=data)
    if usage.inodes and usage.inodes_free < usage.inodes * INODE_MIN_FREE_RATIO:
        return Finding(
            check,
            Level.WARN,
            f"{text}; only {usage.inodes_free} of {usage.inodes} inodes free",
            subject=name,
            data=data,
            fix="many small objects: re-create the filesystem with more inodes (xfs: imaxpct)",
        )
    return Finding(check, Level.OK, text, subject=name, data=data)


def _gib(size: int | float) -> str:
    return f"{size / 1024**3:.1f} GiB"


def check_writable(disk: LayoutDisk, error: str | None, owner: str | None = None) -> Finding:
    """A probe file could be written in the disk's directory, which the nginx user owns.

    ``owner`` is the directory's owner as found (None: not looked at). The probe runs as root,
    so only the owner says whether nginx's workers, running as the layout's user, can write.
    """
    name, directory = disk["name"], disk["dir"]
    if error is not None:
        return Finding(
            "disk.writable",
            Level.FAIL,
            f"cannot write to {directory}: {error}",
            subject=name,
            fix=(
                f"if the disk is failing: ansible-playbook disk-fail.yml -l <host> -e "
                f"disk={name}; if only the directory is missing: re-run site.yml"
            ),
        )
    if owner is not None and owner != disk["owner"]:
        return Finding(
            "disk.writable",
            Level.FAIL,
            f"{directory} is owned by {owner}, nginx runs as {disk['owner']}: "
            "its workers cannot write there",
            subject=name,
            fix="re-run site.yml -l <host> (role storage_disks gives it to the nginx user)",
            data={"owner": owner},
        )
    return Finding("disk.writable", Level.OK, f"{directory} is writable", subject=name)
