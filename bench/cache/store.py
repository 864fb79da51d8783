"""What the caches hold on the disks: one stat() per file, outside nginx's cgroup.

The scan doubles as the inode warm-up of the origin bench (docs/benchmark.md): nginx opens a cache
file on its event loop, and a cold inode would be read there from the throttled disk. Comparing
the scans before and after a trial gives what the trial stored on each disk."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

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
