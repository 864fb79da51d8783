"""``tpgen discover``: a draft spec from this host's disks (the probing lives in tpgen.ops),
checked by validate's own code: a disk it refuses is skipped with its reason."""

from __future__ import annotations

from typing import TypedDict, Unpack

from tpgen.api import draft_problems
from tpgen.commands import STANDARD, Console
from tpgen.ops.discover import run_discover


class DiscoverOptions(TypedDict):
    as_json: bool
    min_size: int  # bytes
    include_loop: bool
    mount_root: str


def discover(console: Console = STANDARD, **options: Unpack[DiscoverOptions]) -> int:
    """0 disks found, 1 none usable (or a draft validate refuses: it says why), 2 the probe
    failed."""
    return run_discover(**options, check=draft_problems, out=console.out, err=console.err)
