"""``tpgen discover``: a draft spec from this host's disks (the probing lives in tpgen.ops)."""

from __future__ import annotations

from tpgen.commands import STANDARD, Console
from tpgen.ops.discover import run_discover


def discover(
    *,
    as_json: bool,
    min_size: int,
    include_loop: bool,
    mount_root: str,
    console: Console = STANDARD,
) -> int:
    """0 disks found, 1 none usable, 2 the probe failed. ``min_size`` is in bytes."""
    return run_discover(
        as_json=as_json,
        min_size=min_size,
        include_loop=include_loop,
        mount_root=mount_root,
        out=console.out,
        err=console.err,
    )
