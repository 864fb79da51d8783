"""`python -m bench run|smoke --workload cache`: the options of `bench run` mapped onto the cache
bench (bench.cli parses them; this module only turns them into a run)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from bench.cache.runner import run_cache_bench
from bench.cache.settings import CACHE_FULL, CACHE_SMOKE
from bench.settings import with_overrides
from bench.system import BenchError

# `bench run` options that only mean something for the origin workload.
_ORIGIN_ONLY = {
    "files_per_disk": "--files-per-disk",
    "disk_mbps": "--disk-mbps",
    "disk_iops": "--disk-iops",
    "disk_read_ahead": "--disk-read-ahead",
    "inode_readahead": "--inode-readahead",
    "nginx_memory": "--nginx-memory",
    "file_size": "--file-size",
    "cold_connections": "--cold-connections",
    "cold_metadata": "--cold-metadata",
    "regimes": "--regimes",
    "workers": "--workers",
    "hot_think_ms": "--hot-think-ms",
    "reconnect_every": "--reconnect-every",
    "cold_seed": "--cold-seed",
    "sysctl_arm": "--sysctl-arm",
    "readahead_arm": "--readahead-arm",
}


def run(args: argparse.Namespace, log: Callable[[str], None]) -> int:
    """The full cache run; exit 0 when tpgen's arm is at least as good as the article's."""
    # Unset is None, False or []: a 0 the command gives (--inode-readahead 0) is given.
    given = [
        flag
        for key, flag in _ORIGIN_ONLY.items()
        if (value := getattr(args, key, None)) is not None and value is not False and value != []
    ]
    if given:
        raise BenchError(f"{', '.join(given)}: only for --workload origin")
    settings = with_overrides(
        CACHE_FULL,
        rounds=args.rounds,
        duration=args.duration,
        disks=args.disks,
        arms=tuple(args.arms.split(",")) if args.arms else None,
    )
    outcome = run_cache_bench(
        settings, args.out, variants=[*args.arm_file, *args.tuning_arm, *args.edit_arm], log=log
    )
    print(outcome.report)
    print(f"\nwritten to {args.out}/")
    return 0 if outcome.goals_met else 1


def smoke(out: Path, log: Callable[[str], None]) -> int:
    """A few seconds on two tiny disks: does the cache harness work? (not a verdict)"""
    outcome = run_cache_bench(CACHE_SMOKE, out, probe_seconds=1.0, log=log)
    print(outcome.report)
    return 0
