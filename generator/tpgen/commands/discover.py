"""``tpgen discover``: a draft spec from this host's disks (the probing lives in tpgen.ops)."""

from __future__ import annotations

from typing import TypedDict, Unpack

from tpgen.commands import STANDARD, Console
from tpgen.ops.discover import run_discover


class DiscoverOptions(TypedDict):
    as_json: bool
    min_size: int  # bytes
    include_loop: bool
    mount_root: str


def discover(console: Console = STANDARD, **options: Unpack[DiscoverOptions]) -> int:
    """0 disks found, 1 none usable, 2 the probe failed."""
    return run_discover(**options, out=console.out, err=console.err)
