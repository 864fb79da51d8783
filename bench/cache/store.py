"""What the caches hold on the disks, and their metadata warmed, outside nginx's cgroup.

The scan (one stat() per file) doubles as the inode warm-up of the origin bench
(docs/benchmark.md): nginx opens a cache file on its event loop, and a cold inode would be read
there from the throttled disk. Comparing the scans before and after a trial gives what the trial
stored on each disk."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from bench.system import BenchError, run

# nginx names a cache file after the MD5 of its key; temp files are numbered instead.
_CACHE_FILE = re.compile(r"[0-9a-f]{32}")


def scan(dirs: Iterable[Path]) -> dict[Path, int]:
    """Every regular file under `dirs` and its size (stat()s each one: inodes now cached)."""
    found: dict[Path, int] = {}
    for top in dirs:
        for dirpath, _dirs, files in os.walk(top):
            for name in files:
                path = Path(dirpath) / name
                try:
                    found[path] = path.lstat().st_size
                except FileNotFoundError:
                    continue
    return found


def stored(before: dict[Path, int], after: dict[Path, int], dirs: Iterable[Path]) -> list[int]:
    """Bytes of cache files that appeared in each of `dirs` between the two scans."""
    totals = []
    for top in dirs:
        totals.append(
            sum(
                size
                for path, size in after.items()
                if path not in before
                and path.is_relative_to(top)
                and _CACHE_FILE.fullmatch(path.name)
            )
        )
    return totals


def remove_new(before: dict[Path, int], after: dict[Path, int]) -> None:
    """Delete what a trial added (filled objects, stray temp files): the next trial of the arm
    starts from the same warm set."""
    for path in after.keys() - before.keys():
        path.unlink(missing_ok=True)


_INODE_TABLE = re.compile(r"Inode table at (\d+)-(\d+)")
_BLOCK_SIZE = re.compile(r"^Block size:\s+(\d+)", re.MULTILINE)


def warm_inode_tables(device: str) -> int:
    """Read every ext4 inode-table block of `device` into the buffer cache; return the bytes.

    Creating a file (every cache miss creates its temp file) and looking up a name whose inode is
    not in memory read an inode-table block on nginx's event loop, from the throttled disk: no
    thread pool covers open(). A node whose metadata fits in RAM has these blocks cached; after
    the trial's drop_caches only this puts them back. The bench reads them, outside nginx's
    cgroup, so the reads are neither throttled nor charged to nginx's memory limit."""
    listing = run(["dumpe2fs", device], timeout=60)
    size = _BLOCK_SIZE.search(listing)
    if size is None:
        raise BenchError(f"dumpe2fs {device}: no block size in its output")
    block = int(size.group(1))
    total = 0
    fd = os.open(device, os.O_RDONLY)
    try:
        for first, last in _INODE_TABLE.findall(listing):
            start, end = int(first) * block, (int(last) + 1) * block
            for offset in range(start, end, 1 << 20):
                total += len(os.pread(fd, min(1 << 20, end - offset), offset))
    finally:
        os.close(fd)
    return total
