"""Remove a cache key's files from a node's disks (nginx OSS has no purge).

Runs on the node, through `tpgen purge` or the Ansible module tpgen_purge: standard library
only. A target (plan/cachefiles.CacheTarget as a dict) names the key, its disk's zone directory,
the zone's levels and the slice size; the file is nginx's rule (ngx_http_file_cache_create_key,
ngx_create_hashed_filename): the md5 of the key as nginx evaluated it, plus ``bytes=START-END``
for a slice, with each level taken from the end of that name. A sliced object's length comes
from the Content-Range its first cached slice keeps, so every slice is found without walking
the disk.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from typing import Any

from .doctor.system import open_regular

# A cache file starts with nginx's binary header, the KEY line and the origin's headers: a
# slice's Content-Range is within its first few KiB.
_HEADER_BYTES = 16 << 10
_CONTENT_RANGE = re.compile(rb"\r\nContent-Range: bytes [0-9]+-[0-9]+/([0-9]+)\r\n", re.IGNORECASE)


def slice_range(slice_bytes: int, offset: int) -> str:
    """``$slice_range`` of the slice that holds byte ``offset``."""
    start = offset // slice_bytes * slice_bytes
    return f"bytes={start}-{start + slice_bytes - 1}"


def cache_file(directory: str, levels: str, key: bytes) -> str:
    digest = hashlib.md5(key, usedforsecurity=False).hexdigest()
    parts, end = [], len(digest)
    for width in (int(level) for level in levels.split(":")):
        parts.append(digest[end - width : end])
        end -= width
    return "/".join([directory.rstrip("/"), *parts, digest])


def entry_file(target: Mapping[str, Any], offset: int = 0) -> tuple[str | None, str]:
    """The slice range (None unsliced) and the file of the entry holding byte ``offset``."""
    key = str(target["key"]).encode("utf-8", "surrogateescape")
    part = slice_range(target["slice_bytes"], offset) if target.get("slice_bytes") else None
    hashed = key + part.encode() if part else key
    return part, cache_file(target["dir"], target["levels"], hashed)


def _object_length(path: str) -> int | None:
    """The length the first slice's Content-Range gives; OSError when its file is not a regular
    file (a FIFO there would block a plain open)."""
    try:
        fd = open_regular(path)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as cached:
        head = cached.read(_HEADER_BYTES)
    match = _CONTENT_RANGE.search(head)
    return int(match.group(1)) if match else None


# The origin writes the length a slice's Content-Range gives: one that claims 10^16 bytes must
# not have purge look for 10^10 slices. 256 GiB is ~4x the longest 4K film; at 1 MiB slices,
# 262,144 looks (~3 s).
MAX_OBJECT_BYTES = 256 << 30


def cached_files(target: Mapping[str, Any], probe_bytes: int) -> list[str]:
    """The files of the target's key that exist: its file, or each of its slices' files (up to
    the object's length, or ``probe_bytes`` when its first slice is not cached; never beyond
    ``probe_bytes`` or MAX_OBJECT_BYTES, whichever is more)."""
    first = entry_file(target)[1]
    size = target.get("slice_bytes")
    if not size:
        return [first] if os.path.exists(first) else []
    length = _object_length(first)
    end = min(length, max(probe_bytes, MAX_OBJECT_BYTES)) if length is not None else probe_bytes
    paths = (entry_file(target, offset)[1] for offset in range(0, max(end, 1), size))
    return [path for path in paths if os.path.exists(path)]


def purge(target: Mapping[str, Any], *, dry_run: bool, probe_bytes: int) -> list[str]:
    """Remove the target's files (or only list them with ``dry_run``): the paths removed."""
    done = []
    for path in cached_files(target, probe_bytes):
        if not dry_run:
            try:
                os.unlink(path)
            except FileNotFoundError:  # nginx's cache manager evicted it meanwhile
                continue
        done.append(path)
    return done
