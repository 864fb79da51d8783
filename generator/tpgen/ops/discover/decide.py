"""The choice of disks: the rules of the package docstring, each device with its reason."""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .devices import BlockDevice
from .sizes import GIB, format_memory, format_size, human_size

DEFAULT_MIN_SIZE = 32 * GIB
DEFAULT_MOUNT_ROOT = "/srv/cache"
DRAFT_UPSTREAM = "origin.example.net:80"
NO_DISK_NOTE = "no usable disk found: add disks by hand (see docs/spec.md)"

SYSTEM_MOUNTS = frozenset(
    {"/", "/boot", "/boot/efi", "/usr", "/var", "/home", "/opt", "/tmp", "/srv", "[SWAP]"}
)
SYSTEM_MOUNT_PREFIXES = ("/boot/", "/usr/", "/var/log", "/var/lib/docker")
CACHE_FILESYSTEMS = frozenset({"xfs", "ext4"})
MEMBER_FSTYPES = {"LVM2_member": "an LVM physical volume", "linux_raid_member": "a RAID member"}
_DISK_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")


@dataclass(frozen=True)
class DiskChoice:
    """A device the draft spec uses, and why."""

    device: str
    name: str
    mount: str
    size: int
    media: str
    filesystem: str
    reason: str


@dataclass(frozen=True)
class Skipped:
    """A device the draft spec leaves out, and why."""

    device: str
    reason: str


@dataclass(frozen=True)
class Discovery:
    """What :func:`discover` decided about one host."""

    node_name: str
    cores: int
    memory: int
    disks: tuple[DiskChoice, ...]
    skipped: tuple[Skipped, ...]
    notes: tuple[str, ...] = field(default=())
    # what `tpgen validate` refuses in the draft beyond its disks (theirs skip the disk)
    refused: tuple[str, ...] = field(default=())

    @property
    def usable(self) -> bool:
        """A draft with disks that validate accepts."""
        return bool(self.disks) and not self.refused

    def spec_mapping(self) -> dict[str, Any]:
        """The draft spec as a plain mapping (what :func:`render_draft` writes as YAML)."""
        return {
            "node": {
                "name": self.node_name,
                "cores": self.cores,
                "memory": format_memory(self.memory),
            },
            "workload": {
                "type": "cache",
                "upstreams": [DRAFT_UPSTREAM],
                "avg_object_size": "1MiB",
            },
            "disks": [
                {
                    "name": d.name,
                    "device": d.device,
                    "mount": d.mount,
                    "size": format_size(d.size),
                    "media": d.media,
                    "filesystem": d.filesystem,
                }
                for d in self.disks
            ],
        }

    def to_json(self) -> dict[str, Any]:
        """Machine-readable result: the spec plus the reasons for every device."""
        return {
            "spec": self.spec_mapping(),
            "used": [{"device": d.device, "name": d.name, "reason": d.reason} for d in self.disks],
            "skipped": [{"device": s.device, "reason": s.reason} for s in self.skipped],
            "notes": list(self.notes),
            "refused": list(self.refused),
        }


def classify_media(device: BlockDevice) -> str:
    """``hdd`` when rotational, ``nvme`` for NVMe devices, else ``ssd``."""
    if device.rotational:
        return "hdd"
    if device.tran == "nvme" or device.name.startswith("nvme"):
        return "nvme"
    return "ssd"


def sanitize_node_name(hostname: str) -> str:
    """Turn a host name into a valid spec ``node.name`` (lower case, ``[a-z0-9.-]``)."""
    labels = []
    for label in hostname.lower().split("."):
        clean = re.sub(r"[^a-z0-9-]+", "-", label).strip("-")[:63]
        if clean:
            labels.append(clean)
    name = ".".join(labels)
    return name if name and name[0].isalnum() else "node"


def _is_system_mount(mountpoint: str) -> bool:
    return mountpoint in SYSTEM_MOUNTS or mountpoint.startswith(SYSTEM_MOUNT_PREFIXES)


def _under(path: str, root: str) -> bool:
    root = root.rstrip("/") or "/"
    return path.startswith(root + "/")


def _skip_reason(dev: BlockDevice, *, include_loop: bool) -> str | None:
    if dev.type == "loop" and not include_loop:
        return "loop device (pass --include-loop on a test rig)"
    if dev.type not in ("disk", "loop"):
        return f"not a whole disk (type {dev.type})"
    if dev.name.startswith(("zram", "ram")):
        return "RAM-backed block device, not storage"
    if dev.tran == "usb":
        return "USB-attached (removable)"
    return None


def _mount_decision(
    dev: BlockDevice, mount_root: str
) -> tuple[str | None, tuple[str, BlockDevice] | None]:
    """(skip reason, existing cache mount) from what is mounted on the device's tree."""
    mounts = dev.mounts()
    if not mounts:
        return None, None
    points = [mp for mp, _ in mounts]
    if "/" in points:
        return "root disk (holds /)", None
    system = [mp for mp in points if _is_system_mount(mp)]
    if system:
        return f"holds mounted system partitions: {', '.join(system)}", None
    ours = [(mp, node) for mp, node in mounts if _under(mp, mount_root)]
    if len(ours) == 1 and len(mounts) == 1:
        return None, ours[0]
    return f"in use: mounted at {', '.join(points)}", None


def discover(
    devices: Sequence[BlockDevice],
    *,
    hostname: str,
    cores: int,
    memory: int,
    min_size: int = DEFAULT_MIN_SIZE,
    include_loop: bool = False,
    mount_root: str = DEFAULT_MOUNT_ROOT,
) -> Discovery:
    """Decide which devices a draft spec uses; every device gets a reason."""
    used: list[_Candidate] = []
    skipped: list[Skipped] = []
    for dev in devices:
        decision = _decide(dev, min_size=min_size, include_loop=include_loop, mount_root=mount_root)
        if isinstance(decision, Skipped):
            skipped.append(decision)
        else:
            used.append(decision)
    choices = _choices(used, mount_root)
    notes = () if choices else (NO_DISK_NOTE,)
    return Discovery(
        node_name=sanitize_node_name(hostname),
        cores=max(1, cores),
        memory=memory,
        disks=tuple(choices),
        skipped=tuple(skipped),
        notes=notes,
    )


@dataclass(frozen=True)
class _Candidate:
    """A device the draft uses: the node of its tree that holds the cache, why, a kept mount."""

    node: BlockDevice
    note: str
    kept_mount: str | None = None


def _decide(
    dev: BlockDevice, *, min_size: int, include_loop: bool, mount_root: str
) -> _Candidate | Skipped:
    """The rules of the module docstring, in order: the first that matches decides."""
    reason = _skip_reason(dev, include_loop=include_loop)
    if reason is None:
        reason, existing = _mount_decision(dev, mount_root)
        if reason is None and existing is not None:
            mountpoint, node = existing
            fs = node.fstype or "unknown filesystem"
            return _Candidate(node, f"{fs} already mounted at {mountpoint}; mount kept", mountpoint)
    reason = reason or _content_reason(dev, min_size)
    if reason is not None:
        return Skipped(dev.path, reason)
    return _Candidate(dev, f"holds {dev.fstype} (kept, not formatted)" if dev.fstype else "empty")


def _content_reason(dev: BlockDevice, min_size: int) -> str | None:
    """Why an unmounted whole disk is not proposed: what it holds, or its size."""
    if dev.children:
        names = ", ".join(child.name for child in dev.children)
        return (
            f"has partitions or volumes ({names}); tpgen uses whole disks: "
            "wipe it first (wipefs -a) if it is meant for the cache"
        )
    if dev.fstype in MEMBER_FSTYPES:
        return f"{MEMBER_FSTYPES[dev.fstype]}; tpgen uses whole disks"
    if dev.size < min_size:
        return f"too small: {human_size(dev.size)} < {human_size(min_size)} (--min-size)"
    if dev.fstype is not None and dev.fstype not in CACHE_FILESYSTEMS:
        return (
            f"holds a {dev.fstype} filesystem; wipe it first (wipefs -a) "
            "if it is meant for the cache"
        )
    return None


def _disk_names(used: Sequence[_Candidate]) -> list[str]:
    """A kept mount keeps its directory's name when it is a valid disk name; the others get
    d1, d2, ... skipping the names already taken."""
    kept = [
        base
        if c.kept_mount is not None and _DISK_NAME.fullmatch(base := os.path.basename(c.kept_mount))
        else None
        for c in used
    ]
    taken = {name for name in kept if name is not None}
    numbers = itertools.count(1)
    names = []
    for name in kept:
        if name is None:
            name = next(f"d{n}" for n in numbers if f"d{n}" not in taken)
            taken.add(name)
        names.append(name)
    return names


def _choices(used: Sequence[_Candidate], mount_root: str) -> list[DiskChoice]:
    root = mount_root.rstrip("/")  # "/" gives /d1, not //d1
    choices = []
    for candidate, name in zip(used, _disk_names(used), strict=True):
        node = candidate.node
        mount = candidate.kept_mount or f"{root}/{name}"
        media = classify_media(node)
        media_why = {"hdd": "rotational", "nvme": "NVMe", "ssd": "non-rotational"}[media]
        filesystem = node.fstype if node.fstype in CACHE_FILESYSTEMS and node.fstype else "xfs"
        reason = f"{media} ({media_why}), {human_size(node.size)}, {candidate.note}"
        choices.append(DiskChoice(node.path, name, mount, node.size, media, filesystem, reason))
    return choices
