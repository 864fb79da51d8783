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

import errno
import hashlib
import os
import re
import stat
from collections.abc import Mapping, Sequence
from typing import Any

from .doctor.system import open_regular

# A cache file starts with nginx's binary header, the KEY line and the origin's headers: a
# slice's Content-Range is within its first few KiB.
_HEADER_BYTES = 16 << 10
# At most 20 digits, as nginx writes an off_t: int() refuses a number of 5000.
_CONTENT_RANGE = re.compile(
    rb"\r\nContent-Range: bytes [0-9]+-[0-9]+/([0-9]{1,20})\r\n", re.IGNORECASE
)


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
    """The length the first slice's Content-Range gives; None when it is not cached."""
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


def _is_cached(directory: str, path: str) -> bool:
    """Whether the cache at ``directory`` holds the file ``path``; OSError (exit 2, nothing
    removed) for what nginx never writes there: a link, a directory, a FIFO at the file's name,
    or a link among the level directories, which would take purge out of the cache."""
    try:
        found = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    if not stat.S_ISREG(found.st_mode):
        raise OSError(errno.EINVAL, f"{_kind(found.st_mode)}, {_NOT_NGINX}", path)
    level = os.path.dirname(path)
    while len(level) > len(directory.rstrip("/")):
        mode = os.lstat(level).st_mode
        if not stat.S_ISDIR(mode):
            raise OSError(errno.ELOOP, f"{_kind(mode)}, {_NOT_NGINX}", level)
        level = os.path.dirname(level)
    return True


_NOT_NGINX = "not what nginx writes in its cache: purge removes nothing; move it away by hand"


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "is a symbolic link"
    if stat.S_ISDIR(mode):
        return "is a directory"
    return "is not a regular file"


def cached_files(target: Mapping[str, Any], probe_bytes: int) -> list[str]:
    """The files of the target's key that exist: its file, or each of its slices' files (up to
    the object's length, or ``probe_bytes`` when its first slice is not cached; never beyond
    ``probe_bytes`` or MAX_OBJECT_BYTES, whichever is more)."""
    directory = str(target["dir"])
    first = entry_file(target)[1]
    size = target.get("slice_bytes")
    if not size:
        return [first] if _is_cached(directory, first) else []
    cached = _is_cached(directory, first)
    length = _object_length(first) if cached else None
    end = min(length, max(probe_bytes, MAX_OBJECT_BYTES)) if length is not None else probe_bytes
    paths = (entry_file(target, offset)[1] for offset in range(size, end, size))
    return ([first] if cached else []) + [p for p in paths if _is_cached(directory, p)]


def remove_files(directory: str, paths: Sequence[str]) -> list[str]:
    """Remove ``paths`` (what :func:`cached_files` found in ``directory``): the paths removed."""
    done = []
    for path in paths:
        try:
            _unlink_below(directory, path)
        except FileNotFoundError:  # nginx's cache manager evicted it meanwhile
            continue
        done.append(path)
    return done


def _unlink_below(directory: str, path: str) -> None:
    """Unlink ``path`` through its level directories, none of them followed if it became a link
    since it was looked at: the unlink stays in the cache."""
    *levels, name = os.path.relpath(path, directory).split(os.sep)
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for level in levels:
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
            inner = os.open(level, flags, dir_fd=fd)
            os.close(fd)
            fd = inner
        os.unlink(name, dir_fd=fd)
    except FileNotFoundError:
        raise
    except OSError as err:
        raise OSError(err.errno, err.strerror, path) from None
    finally:
        os.close(fd)


def purge(target: Mapping[str, Any], *, dry_run: bool, probe_bytes: int) -> list[str]:
    """Remove the target's files (or only list them with ``dry_run``): the paths removed.
    OSError, before anything is removed, when one of them is not nginx's (see _is_cached)."""
    found = cached_files(target, probe_bytes)
    return found if dry_run else remove_files(str(target["dir"]), found)
