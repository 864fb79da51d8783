"""Mounts: every active disk is mounted at its place, from its device, read-write, on its own."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .findings import Finding, Level
from .layout import LayoutDisk

CHECK = "disk.mount"


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


def _ids(fields: Sequence[str]) -> bool:
    # ASCII digits, as the kernel prints them: int() takes "²" for none and refuses 5000 digits.
    return all(field.isascii() and field.isdigit() and len(field) <= 20 for field in fields)


def parse_mountinfo(text: str) -> list[MountEntry]:
    """Parse /proc/self/mountinfo (see proc(5)); malformed lines are ignored."""
    entries = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 6 or len(tail) < 2 or not _ids(fields[:2]):
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
    disk: LayoutDisk,
    mounts: Sequence[MountEntry],
    *,
    realpath: Callable[[str], str] = os.path.realpath,
) -> list[Finding]:
    """Mounted at its place, on its own device (not the root fs), read-write, from its device."""
    entry = mount_at(disk["mount"], mounts)
    if disk["state"] == "failed":
        return [_failed_disk(disk, entry)]
    if entry is None:
        return [_not_mounted(disk)]
    root = mount_at("/", mounts)
    if root is not None and root.device == entry.device:
        return [
            Finding(
                CHECK,
                Level.FAIL,
                f"{disk['mount']} is on the root filesystem's device {entry.device} "
                f"({entry.source})",
                subject=disk["name"],
                fix=f"mount {disk['device']} at {disk['mount']}",
            )
        ]
    findings = _mount_problems(disk, entry, mounts, realpath)
    if findings:
        return findings
    return [
        Finding(
            CHECK,
            Level.OK,
            f"{entry.source} mounted at {disk['mount']} "
            f"({entry.fstype}, rw, device {entry.device})",
            subject=disk["name"],
            data={"source": entry.source, "device": entry.device},
        )
    ]


def _failed_disk(disk: LayoutDisk, entry: MountEntry | None) -> Finding:
    if entry is None:
        return Finding(
            CHECK,
            Level.OK,
            f"failed disk, {disk['mount']} not mounted (expected)",
            subject=disk["name"],
        )
    return Finding(
        CHECK,
        Level.WARN,
        f"marked failed in the spec but still mounted at {disk['mount']} ({entry.source})",
        subject=disk["name"],
        fix=f"ansible-playbook disk-fail.yml -l <host> -e disk={disk['name']} (unmounts it)",
    )


def _not_mounted(disk: LayoutDisk) -> Finding:
    return Finding(
        CHECK,
        Level.FAIL,
        f"{disk['mount']} is not a mount point: the cache would fill the filesystem below it",
        subject=disk["name"],
        fix=(
            f"mount it (ansible-playbook site.yml -l <host>) or, if {disk['device']} is dead, "
            f"ansible-playbook disk-fail.yml -l <host> -e disk={disk['name']}"
        ),
    )


def _mount_problems(
    disk: LayoutDisk,
    entry: MountEntry,
    mounts: Sequence[MountEntry],
    realpath: Callable[[str], str],
) -> list[Finding]:
    """Shared device, read-only, other filesystem, other device: each its own finding."""
    name, mount = disk["name"], disk["mount"]
    findings = []
    others = {
        m.mountpoint
        for m in mounts
        if m.device == entry.device and m.mountpoint not in (entry.mountpoint, "/")
    }
    if others and entry.fstype != "tmpfs":
        findings.append(
            Finding(
                CHECK,
                Level.WARN,
                f"{mount} shares device {entry.device} with {', '.join(sorted(others))}: "
                "not a disk of its own",
                subject=name,
                fix="give every disk of the spec its own device",
            )
        )
    if entry.read_only:
        findings.append(
            Finding(
                CHECK,
                Level.FAIL,
                f"{mount} is mounted read-only (the kernel does this after I/O errors)",
                subject=name,
                fix=(
                    f"check dmesg for {entry.source}; if the disk is dying: "
                    f"ansible-playbook disk-fail.yml -l <host> -e disk={name}"
                ),
            )
        )
    findings.extend(_identity_problems(disk, entry, realpath))
    return findings


def _identity_problems(
    disk: LayoutDisk, entry: MountEntry, realpath: Callable[[str], str]
) -> list[Finding]:
    """The filesystem and the device the spec names, compared with what is mounted."""
    name, mount = disk["name"], disk["mount"]
    findings = []
    if disk["filesystem"] and entry.fstype != disk["filesystem"]:
        findings.append(
            Finding(
                CHECK,
                Level.WARN,
                f"{mount} is {entry.fstype}, the spec says {disk['filesystem']}",
                subject=name,
                fix="correct filesystem in the spec or re-format the disk",
            )
        )
    if entry.source.startswith("/dev/") and realpath(entry.source) != realpath(disk["device"]):
        findings.append(
            Finding(
                CHECK,
                Level.WARN,
                f"{mount} is mounted from {entry.source}, the spec says {disk['device']}",
                subject=name,
                fix="device names move after a reboot or a replacement: correct device in the spec",
            )
        )
    return findings
