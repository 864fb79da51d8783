"""``tpgen purge``: remove cached objects from this node's disks (nginx OSS has no purge).

Each key's file is where nginx put it: md5 of the key, ``levels=1:2``, on the disk ``locate``
names. A sliced object is one file per slice: the object's length comes from the first cached
slice's Content-Range, so every slice is found without walking the disk.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from tpgen.api import Plan, cached_file, load_plan
from tpgen.commands import STANDARD, Console
from tpgen.errors import EXIT_OK, BadInput, printable

# A cache file starts with nginx's binary header, the KEY line and the origin's headers: the
# Content-Range of a slice is within its first few KiB.
_HEADER_BYTES = 16 << 10
_CONTENT_RANGE = re.compile(rb"\r\nContent-Range: bytes [0-9]+-[0-9]+/([0-9]+)\r\n", re.IGNORECASE)


def _object_length(path: str) -> int | None:
    try:
        with open(path, "rb") as cached:
            head = cached.read(_HEADER_BYTES)
    except FileNotFoundError:
        return None
    match = _CONTENT_RANGE.search(head)
    return int(match.group(1)) if match else None


def _files(plan: Plan, key: bytes, probe_bytes: int) -> list[str]:
    """The cache files of ``key`` that exist: its file, or each of its slices' files."""
    first = cached_file(plan, key, 0)
    if plan.slice_size is None:
        return [first.path] if os.path.exists(first.path) else []
    size = plan.slice_size.value
    length = _object_length(first.path)
    end = length if length is not None else probe_bytes
    paths = (cached_file(plan, key, offset).path for offset in range(0, max(end, 1), size))
    return [path for path in paths if os.path.exists(path)]


def purge(
    spec: str,
    keys: Iterable[str],
    *,
    dry_run: bool = False,
    probe_bytes: int = 64 << 30,
    console: Console = STANDARD,
) -> int:
    """Remove (or with ``dry_run`` only print) every cache file of each key; one line a file:
    ``removed|would remove<TAB>key<TAB>disk<TAB>path``, or ``not cached<TAB>key``."""
    return purge_plan(
        load_plan(spec), keys, dry_run=dry_run, probe_bytes=probe_bytes, console=console
    )


def purge_plan(
    plan: Plan,
    keys: Iterable[str],
    *,
    dry_run: bool = False,
    probe_bytes: int = 64 << 30,
    console: Console = STANDARD,
) -> int:
    """:func:`purge` on a plan already made (a test's rebased one)."""
    if plan.workload != "cache":
        raise BadInput(f"a {plan.workload} node keeps no cache: purge runs on cache nodes")
    verb = "would remove" if dry_run else "removed"
    for key in keys:
        raw = key.encode("utf-8", "surrogateescape")
        disk = cached_file(plan, raw).disk
        found = _files(plan, raw, probe_bytes)
        if not found:
            console.say(f"not cached\t{printable(key)}\t{disk}")
        for path in found:
            if not dry_run:
                try:
                    os.unlink(path)
                except FileNotFoundError:  # nginx's manager evicted it meanwhile
                    continue
            console.say(f"{verb}\t{printable(key)}\t{disk}\t{printable(path)}")
    return EXIT_OK
