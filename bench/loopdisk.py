"""Emulated disks: a sparse file, a loop device over it (direct I/O, so the host's page cache does
not hold a second copy), an ext4 filesystem (xfs for `bench metadata`), a mount. Reads and writes
are counted from /sys/block."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.janitor import Janitor
from bench.system import BenchError, run

SECTOR = 512
MKFS = {
    # No lazy init: ext4lazyinit would otherwise write to the disk in the background mid-run.
    "ext4": ["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0"],
    "xfs": ["mkfs.xfs", "-q", "-f"],
}


@dataclass(frozen=True)
class DiskCounters:
    """A block device's I/O counters: since it was attached, or between two samples."""

    read_ios: int
    read_bytes: int
    write_bytes: int

    @classmethod
    def parse(cls, stat: str) -> DiskCounters:
        """From /sys/block/<dev>/stat: reads completed, merged, sectors read, ms reading, writes
        completed, merged, sectors written, ... (Documentation/block/stat.rst)."""
        fields = stat.split()
        if len(fields) < 7 or not all(f.isdigit() for f in fields[:7]):
            raise BenchError(f"not a block device's stat line: {stat.strip()!r}")
        return cls(int(fields[0]), int(fields[2]) * SECTOR, int(fields[6]) * SECTOR)

    def __sub__(self, earlier: DiskCounters) -> DiskCounters:
        return DiskCounters(
            self.read_ios - earlier.read_ios,
            self.read_bytes - earlier.read_bytes,
            self.write_bytes - earlier.write_bytes,
        )


def counters_between(
    names: Sequence[str], before: Sequence[DiskCounters], after: Sequence[DiskCounters]
) -> dict[str, DiskCounters]:
    """Each named disk's I/O between two samples of the same disks' counters."""
    return {name: then - now for name, now, then in zip(names, before, after, strict=True)}


@dataclass(frozen=True)
class LoopDisk:
    name: str
    image: Path
    device: str  # /dev/loopN
    mount: Path

    @property
    def kname(self) -> str:
        return Path(self.device).name

    @property
    def read_ahead_kb(self) -> int:
        return int(Path(f"/sys/block/{self.kname}/queue/read_ahead_kb").read_text())

    @property
    def majmin(self) -> str:
        return Path(f"/sys/block/{self.kname}/dev").read_text().strip()

    def set_inode_readahead(self, blocks: int) -> None:
        """ext4's read-ahead of the inode table, in blocks, for this mount (0: none)."""
        knob = Path(f"/sys/fs/ext4/{self.kname}/inode_readahead_blks")
        if not knob.exists():
            raise BenchError(f"{self.device}: no {knob} (not an ext4 mount?)")
        knob.write_text(f"{blocks}\n")

    def counters(self) -> DiskCounters:
        """Its reads and writes since the device was attached."""
        return DiskCounters.parse(Path(f"/sys/block/{self.kname}/stat").read_text())


def make_disk(
    workdir: Path, name: str, size: int, janitor: Janitor, filesystem: str = "ext4"
) -> LoopDisk:
    """Create, attach, format (ext4 or xfs) and mount one disk; register its teardown."""
    image = workdir / f"{name}.img"
    mount = workdir / "mnt" / name
    with image.open("wb") as fh:
        fh.truncate(size)
    janitor.push(f"remove {image}", lambda: image.unlink(missing_ok=True))
    device = run(["losetup", "-f", "--show", "--direct-io=on", str(image)]).strip()
    janitor.push(f"detach {device}", lambda: detach_own_loop(device, image))
    run(MKFS[filesystem] + [device])
    mount.mkdir(parents=True, exist_ok=True)
    run(["mount", "-o", "noatime", device, str(mount)])
    janitor.push(f"unmount {mount}", lambda: unmount(mount))
    return LoopDisk(name=name, image=image, device=device, mount=mount)


def detach_own_loop(device: str, image: Path) -> None:
    """Detach `device` only if it is still backed by our `image` (loop numbers get reused)."""
    backing = run(["losetup", "-n", "-O", "BACK-FILE", device], check=False).strip()
    if backing.removesuffix(" (deleted)") != str(image):
        return
    run(["losetup", "-d", device])


def unmount(mount: Path) -> None:
    if os.path.ismount(mount):
        try:
            run(["umount", str(mount)], timeout=60)
        except BenchError:
            run(["umount", "-l", str(mount)], timeout=60)


def own_loops(under: Path) -> list[tuple[str, Path]]:
    """(device, backing file) of every loop device whose backing file lies under `under`."""
    out = run(["losetup", "-l", "-n", "-O", "NAME,BACK-FILE"], check=False)
    found: list[tuple[str, Path]] = []
    for line in out.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2:
            backing = Path(parts[1].strip().removesuffix(" (deleted)"))
            if backing.is_relative_to(under):
                found.append((parts[0], backing))
    return found


def own_mounts(under: Path) -> list[Path]:
    """Mount points under `under`, deepest first."""
    points = []
    for line in Path("/proc/self/mounts").read_text().splitlines():
        point = Path(line.split()[1].replace("\\040", " "))
        if point.is_relative_to(under):
            points.append(point)
    return sorted(points, key=lambda p: len(p.parts), reverse=True)
