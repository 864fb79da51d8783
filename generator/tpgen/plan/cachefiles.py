"""Where nginx stores a key's cached file: ``<zone>/<levels of md5(key)>/<md5(key)>``.

The same rule as ngx_http_file_cache_create_key and ngx_create_hashed_filename: the file name is
the md5 of the cache key as nginx evaluated it (with ``$slice_range``'s ``bytes=START-END`` for
a slice), and each level is taken from the end of that name. `tpgen locate --offset` and
`tpgen purge` read it; plugins/module_utils/tpgen_cache_files.py repeats it for nodes without
tpgen, and a test holds the two equal.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from tpgen.plan.buckets import disk_for_hash, murmur_hash2
from tpgen.plan.types import Plan


def slice_range(slice_size: int, offset: int) -> str:
    """``$slice_range`` of the slice that holds byte ``offset``."""
    start = offset // slice_size * slice_size
    return f"bytes={start}-{start + slice_size - 1}"


def cache_file(zone_path: str, levels: str, key: bytes) -> str:
    digest = hashlib.md5(key, usedforsecurity=False).hexdigest()
    parts, end = [], len(digest)
    for width in (int(level) for level in levels.split(":")):
        parts.append(digest[end - width : end])
        end -= width
    return "/".join([zone_path.rstrip("/"), *parts, digest])


@dataclass(frozen=True)
class CachedFile:
    """One key's cache entry on a cache node: its disk, the key nginx hashed, and the file."""

    disk: str
    key: bytes  # the evaluated cache key, + bytes=START-END for a slice
    range: str | None  # the slice's $slice_range, None where objects are not sliced
    path: str


def cached_file(plan: Plan, key: bytes, offset: int = 0) -> CachedFile:
    """The cache file of ``key`` (the evaluated proxy_cache_key without ``$slice_range``) and,
    where objects are sliced, of the slice that holds byte ``offset``. The disk is the key's:
    the split key leaves the range out, so every slice of an object is on it."""
    disk_name = disk_for_hash(plan.split, murmur_hash2(key))
    disk = next(d for d in plan.disks if d.name == disk_name)
    if disk.cache is None:
        raise ValueError("only a cache node keeps cache files")
    part = slice_range(plan.slice_size.value, offset) if plan.slice_size else None
    hashed = key + part.encode() if part else key
    return CachedFile(
        disk_name, hashed, part, cache_file(disk.cache.path, disk.cache.levels.value, hashed)
    )
