"""``tpgen locate``: the bucket and disk nginx picks for each cache key."""

from __future__ import annotations

from collections.abc import Iterable

from tpgen.api import bucket_for_key, disk_for_key, load_plan
from tpgen.commands import STANDARD, Console
from tpgen.errors import EXIT_OK, printable


def locate(spec: str, keys: Iterable[str], *, console: Console = STANDARD) -> int:
    """One line per key: key, bucket, disk (tab-separated)."""
    plan = load_plan(spec)
    for key in keys:
        # nginx hashes bytes: an argument that is not UTF-8 keeps its bytes (surrogateescape).
        console.say(f"{printable(key)}\t{bucket_for_key(plan, key)}\t{disk_for_key(plan, key)}")
    return EXIT_OK
