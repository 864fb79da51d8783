"""``tpgen locate``: the bucket and disk nginx picks for each cache key; with ``--offset``, the
slice that holds that byte and the cache file nginx keeps it in."""

from __future__ import annotations

from collections.abc import Iterable

from tpgen.api import bucket_for_key, cache_target, disk_for_key, load_plan
from tpgen.commands import STANDARD, Console
from tpgen.errors import EXIT_OK, OptionMisused, printable
from tpgen.ops.purge import entry_file


def locate(
    spec: str, keys: Iterable[str], *, offset: int | None = None, console: Console = STANDARD
) -> int:
    """One line per key: key, bucket, disk (tab-separated); with ``offset``, then the slice's
    range (``-`` where objects are not sliced) and the cache file."""
    plan = load_plan(spec)
    if offset is not None and plan.workload != "cache":
        raise OptionMisused(
            "locate",
            "--offset",
            f"this {plan.workload} node keeps no cache files: locate a URI without it",
        )
    for key in keys:
        # nginx hashes bytes: an argument that is not UTF-8 keeps its bytes (surrogateescape).
        line = f"{printable(key)}\t{bucket_for_key(plan, key)}\t{disk_for_key(plan, key)}"
        if offset is not None:
            part, path = entry_file(cache_target(plan, key).to_dict(), offset)
            line += f"\t{part or '-'}\t{printable(path)}"
        console.say(line)
    return EXIT_OK
