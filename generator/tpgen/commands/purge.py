"""``tpgen purge``: remove cached objects from this node's disks (nginx OSS has no purge).

The plan names each key's disk and zone (tpgen.plan.cachefiles); tpgen.ops.purge finds and
removes its files, the same code the Ansible module tpgen_purge runs on nodes.
"""

from __future__ import annotations

from collections.abc import Iterable

from tpgen.api import Plan, cache_target, load_plan
from tpgen.commands import STANDARD, Console
from tpgen.errors import EXIT_OK, BadInput, printable
from tpgen.ops.purge import cached_files, remove_files

PROBE_BYTES = 64 << 30


def purge(
    spec: str,
    keys: Iterable[str],
    *,
    dry_run: bool = False,
    probe_bytes: int = PROBE_BYTES,
    console: Console = STANDARD,
) -> int:
    """Remove (or with ``dry_run`` only print) every cache file of each key; one line a file:
    ``removed|would remove<TAB>key<TAB>disk<TAB>path``, or ``not cached<TAB>key<TAB>disk``."""
    return purge_plan(
        load_plan(spec), keys, dry_run=dry_run, probe_bytes=probe_bytes, console=console
    )


def purge_plan(
    plan: Plan,
    keys: Iterable[str],
    *,
    dry_run: bool = False,
    probe_bytes: int = PROBE_BYTES,
    console: Console = STANDARD,
) -> int:
    """:func:`purge` on a plan already made (a test's rebased one)."""
    if plan.workload != "cache":
        raise BadInput(f"this {plan.workload} node keeps no cache: purge runs on cache nodes")
    verb = "would remove" if dry_run else "removed"
    # Every key's files are found (and refused, exit 2) before the first is removed.
    found = []
    for key in keys:
        target = cache_target(plan, key)
        found.append((key, target, cached_files(target.to_dict(), probe_bytes)))
    for key, target, paths in found:
        done = paths if dry_run else remove_files(target.dir, paths)
        if not done:
            console.say(f"not cached\t{printable(key)}\t{target.disk}")
        for path in done:
            console.say(f"{verb}\t{printable(key)}\t{target.disk}\t{printable(path)}")
    return EXIT_OK
