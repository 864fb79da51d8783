"""Probe the local host and draft a node spec (``tpgen discover``).

The work is done by pure functions over text: :func:`parse_lsblk` (``lsblk -J -b`` output),
:func:`parse_meminfo` (``/proc/meminfo``), :func:`discover` (the choice of disks, each with its
reason) and :func:`render_draft` (a commented YAML draft). :func:`probe_host` is the only
function that touches the machine and :func:`run_discover` the only one that prints.

Rules, in order, for each top-level block device (the first that matches decides):

1. not a whole disk (``type`` other than ``disk``; ``loop`` only with ``include_loop``) - skipped;
2. RAM-backed (``zram*``, ``ram*``) or USB-attached - skipped;
3. it (or a partition/volume on it) is mounted: ``/`` - "root disk"; another system mount point
   (``/boot``, ``/usr``, ``/var``, ``[SWAP]``...) - "system partitions"; a mount under the cache
   root (``/srv/cache`` by default) - kept as an existing tpgen disk, mount unchanged; anything
   else - "in use";
4. it holds partitions, LVM or RAID members - skipped (tpgen uses whole disks);
5. smaller than ``min_size`` - skipped;
6. it holds a filesystem other than xfs/ext4 - skipped (never proposes to wipe data);
7. otherwise used: ``media`` is ``hdd`` when rotational, ``nvme`` for NVMe, else ``ssd``.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TextIO

GIB = 1024**3
MIB = 1024**2
DEFAULT_MIN_SIZE = 32 * GIB
DEFAULT_MOUNT_ROOT = "/srv/cache"
DRAFT_UPSTREAM = "origin.example.net:80"

LSBLK_COLUMNS = "NAME,KNAME,PATH,TYPE,SIZE,ROTA,MOUNTPOINTS,FSTYPE,UUID,TRAN,PKNAME"
# util-linux < 2.37 has no MOUNTPOINTS column; lsblk then prints one MOUNTPOINT per device.
LSBLK_COLUMNS_OLD = LSBLK_COLUMNS.replace("MOUNTPOINTS", "MOUNTPOINT")

SYSTEM_MOUNTS = frozenset(
    {"/", "/boot", "/boot/efi", "/usr", "/var", "/home", "/opt", "/tmp", "/srv", "[SWAP]"}
)
SYSTEM_MOUNT_PREFIXES = ("/boot/", "/usr/", "/var/log", "/var/lib/docker")
CACHE_FILESYSTEMS = frozenset({"xfs", "ext4"})
MEMBER_FSTYPES = {"LVM2_member": "an LVM physical volume", "linux_raid_member": "a RAID member"}
_DISK_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
_PLAIN_SCALAR = re.compile(r"[A-Za-z0-9_./@-][A-Za-z0-9_./@-]*")
_YAML_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"})


class DiscoverError(Exception):
    """Probe output that cannot be read; ``str()`` is the message for the user."""


@dataclass(frozen=True)
class BlockDevice:
    """One node of the ``lsblk`` tree."""

    name: str
    path: str
    type: str
    size: int
    rotational: bool
    mountpoints: tuple[str, ...] = ()
    fstype: str | None = None
    uuid: str | None = None
    tran: str | None = None
    children: tuple[BlockDevice, ...] = ()

    def walk(self) -> Iterator[BlockDevice]:
        """Yield this device, then every partition/volume below it."""
        yield self
        for child in self.children:
            yield from child.walk()

    def mounts(self) -> list[tuple[str, BlockDevice]]:
        """Every (mount point, device) pair in this device's tree."""
        return [(mp, dev) for dev in self.walk() for mp in dev.mountpoints]


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
        }


# ----------------------------------------------------------------------------- parsing


def _as_bool(value: object) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in {"1", "true"}


def _as_int(value: object) -> int:
    if isinstance(value, bool):
        raise DiscoverError(f"lsblk: size is not a number: {value!r}")
    if isinstance(value, int):
        return value
    if value is None:
        return 0
    text = str(value).strip()
    if not text.isdigit():
        raise DiscoverError(f"lsblk: size is not a byte count: {value!r} (run lsblk with -b)")
    return int(text)


def _as_str(value: object) -> str | None:
    if value is None:
        return None
    text = str(value)
    return text or None


def _mountpoints(entry: Mapping[str, Any]) -> tuple[str, ...]:
    raw: object = entry.get("mountpoints", entry.get("mountpoint"))
    items: list[object] = list(raw) if isinstance(raw, list) else [raw]
    return tuple(str(mp) for mp in items if mp not in (None, ""))


def _device(entry: Mapping[str, Any]) -> BlockDevice:
    name = _as_str(entry.get("name"))
    if name is None:
        raise DiscoverError("lsblk: a device without a name")
    children = entry.get("children") or []
    if not isinstance(children, list):
        raise DiscoverError(f"lsblk: {name}: children is not a list")
    return BlockDevice(
        name=name,
        path=_as_str(entry.get("path")) or f"/dev/{name}",
        type=_as_str(entry.get("type")) or "unknown",
        size=_as_int(entry.get("size")),
        rotational=_as_bool(entry.get("rota")),
        mountpoints=_mountpoints(entry),
        fstype=_as_str(entry.get("fstype")),
        uuid=_as_str(entry.get("uuid")),
        tran=_as_str(entry.get("tran")),
        children=tuple(_device(child) for child in children if isinstance(child, dict)),
    )


def parse_lsblk(text: str) -> list[BlockDevice]:
    """Parse ``lsblk -J -b`` output (util-linux 2.33+ typed JSON, or older all-string JSON)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise DiscoverError(f"lsblk: output is not JSON: {err}") from err
    if not isinstance(data, dict) or not isinstance(data.get("blockdevices"), list):
        raise DiscoverError('lsblk: no "blockdevices" list in the output')
    return [_device(entry) for entry in data["blockdevices"] if isinstance(entry, dict)]


def parse_meminfo(text: str) -> int:
    """Return MemTotal in bytes from ``/proc/meminfo`` text."""
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        if key.strip() == "MemTotal":
            parts = rest.split()
            if not parts or not parts[0].isdigit():
                break
            unit = parts[1].lower() if len(parts) > 1 else "b"
            factor = {"kb": 1024, "mb": MIB, "gb": GIB, "b": 1}.get(unit)
            if factor is None:
                break
            return int(parts[0]) * factor
    raise DiscoverError("/proc/meminfo: no readable MemTotal line")


# ----------------------------------------------------------------------------- decisions


def classify_media(device: BlockDevice) -> str:
    """``hdd`` when rotational, ``nvme`` for NVMe devices, else ``ssd``."""
    if device.rotational:
        return "hdd"
    if device.tran == "nvme" or device.name.startswith("nvme"):
        return "nvme"
    return "ssd"


def format_size(size: int) -> str:
    """A spec size that never overstates ``size``: exact GiB/MiB, else whole GB (floor)."""
    if size >= GIB and size % GIB == 0:
        return f"{size // GIB}GiB"
    if size >= MIB and size % MIB == 0:
        return f"{size // MIB}MiB"
    if size >= 10**9:
        return f"{size // 10**9}GB"
    return str(size)


def format_memory(size: int) -> str:
    """Memory as Ansible's facts give it (memtotal_mb): exact GiB, else whole MiB (floor)."""
    if size >= GIB and size % GIB == 0:
        return f"{size // GIB}GiB"
    return f"{size // MIB}MiB"


def human_size(size: int) -> str:
    """Short decimal size for messages: ``4.0 TB``, ``8.6 GB``, ``200 MB``.

    Decimal on purpose, unlike tpgen.spec.units.human_size (binary, for figures tpgen derives):
    here it describes a device, and vendors and lsblk users know disks by decimal sizes.
    """
    for unit, factor in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if size >= factor:
            value = size / factor
            return f"{value:.1f} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{size} B"


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
    notes = () if choices else ("no usable disk found: add disks by hand (see docs/spec.md)",)
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
    root = mount_root.rstrip("/") or "/"
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


# ----------------------------------------------------------------------------- output


def yaml_scalar(value: object) -> str:
    """One YAML scalar: plain when unambiguous, else a JSON (double-quoted) string."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if (
        _PLAIN_SCALAR.fullmatch(text)
        and text.lower() not in _YAML_WORDS
        and not re.fullmatch(r"[-+.0-9eE_:]+", text)
    ):
        return text
    return json.dumps(text)


def render_draft(discovery: Discovery, *, generated_at: str | None = None) -> str:
    """The draft spec as commented YAML: why each disk is used, why others are skipped."""
    spec = discovery.spec_mapping()
    node, workload = spec["node"], spec["workload"]
    when = f" at {generated_at}" if generated_at else ""
    lines = [
        f"# Draft spec written by `tpgen discover` on {discovery.node_name}{when}.",
        "# Review it before use: set workload.upstreams, check every disk below, then run",
        "# `tpgen validate` on it. Devices are named as the kernel sees them now.",
        "node:",
        f"  name: {yaml_scalar(node['name'])}",
        f"  cores: {yaml_scalar(node['cores'])}",
        f"  memory: {yaml_scalar(node['memory'])}",
        "workload:",
        "  type: cache",
        f"  upstreams: [{yaml_scalar(DRAFT_UPSTREAM)}]  # TODO: your origin server(s), host:port",
        f"  avg_object_size: {yaml_scalar(workload['avg_object_size'])}  # TODO: measure yours",
    ]
    if discovery.disks:
        lines.append("disks:")
        for choice, entry in zip(discovery.disks, spec["disks"], strict=True):
            lines.append(f"  # {choice.device}: {choice.reason}")
            first = True
            for key in ("name", "device", "mount", "size", "media", "filesystem"):
                prefix = "  - " if first else "    "
                lines.append(f"{prefix}{key}: {yaml_scalar(entry[key])}")
                first = False
    else:
        lines.append("disks: []  # no usable disk found: add disks by hand (see docs/spec.md)")
    if discovery.skipped:
        lines.append("# Skipped devices:")
        lines.extend(f"#   {s.device}: {s.reason}" for s in discovery.skipped)
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- I/O


@dataclass(frozen=True)
class HostProbe:
    """Raw facts read from the local host."""

    lsblk_json: str
    meminfo: str
    cpu_count: int
    hostname: str


def _run_lsblk() -> str:
    last = ""
    for columns in (LSBLK_COLUMNS, LSBLK_COLUMNS_OLD):
        try:
            proc = subprocess.run(
                ["lsblk", "-J", "-b", "-o", columns],
                capture_output=True,
                text=True,
                check=False,
            )
        except FileNotFoundError as err:
            raise DiscoverError("lsblk not found: install util-linux") from err
        if proc.returncode == 0:
            return proc.stdout
        last = proc.stderr.strip()
    raise DiscoverError(f"lsblk failed: {last}")


def probe_host() -> HostProbe:
    """Read lsblk, /proc/meminfo, the CPU count and the host name of this machine."""
    try:
        with open("/proc/meminfo", encoding="utf-8") as fh:
            meminfo = fh.read()
    except OSError as err:
        raise DiscoverError(f"cannot read /proc/meminfo: {err}") from err
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return HostProbe(_run_lsblk(), meminfo, cpus or 1, socket.gethostname())


def discover_host(
    probe: HostProbe,
    *,
    min_size: int = DEFAULT_MIN_SIZE,
    include_loop: bool = False,
    mount_root: str = DEFAULT_MOUNT_ROOT,
) -> Discovery:
    """:func:`discover` over a :class:`HostProbe`."""
    return discover(
        parse_lsblk(probe.lsblk_json),
        hostname=probe.hostname,
        cores=probe.cpu_count,
        memory=parse_meminfo(probe.meminfo),
        min_size=min_size,
        include_loop=include_loop,
        mount_root=mount_root,
    )


def run_discover(
    *,
    as_json: bool = False,
    min_size: int | str = DEFAULT_MIN_SIZE,
    include_loop: bool = False,
    mount_root: str = DEFAULT_MOUNT_ROOT,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Probe this host and print the draft. Exit code: 0 disks found, 1 none, 2 bad input or
    probe failed. ``min_size`` is bytes or a size as the spec writes it (``32GiB``)."""
    from tpgen.spec.units import parse_size

    stdout = out if out is not None else sys.stdout
    stderr = err if err is not None else sys.stderr
    try:
        try:
            min_bytes = parse_size(min_size)
        except ValueError as error:
            raise DiscoverError(f"--min-size: {error}") from error
        result = discover_host(
            probe_host(), min_size=min_bytes, include_loop=include_loop, mount_root=mount_root
        )
    except DiscoverError as error:
        print(f"tpgen discover: {error}", file=stderr)
        return 2
    if as_json:
        stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
    else:
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        stdout.write(render_draft(result, generated_at=stamp))
    return 0 if result.disks else 1
