"""Generator figures: plan+render time, CLI cold start, and how many keys a disk change moves.

    .venv/bin/python -m bench.generator_perf          # prints three tables

Not a test: it prints figures, each next to its goal or its baseline, measured in the same run.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from tpgen.api import (
    assign_buckets,
    build_map,
    make_plan,
    moved_buckets,
    render_config,
    spec_from_mapping,
)

BUCKETS = 1000


def _spec(disks: int) -> dict[str, object]:
    return {
        "node": {"name": "bench-64", "cores": 64, "memory": "512GiB"},
        "workload": {
            "type": "cache",
            "upstreams": ["origin.example.net:80"],
            "avg_object_size": "4MiB",
        },
        "disks": [
            {
                "name": f"d{i}",
                "device": f"/dev/disk{i}",
                "mount": f"/srv/cache/d{i}",
                "size": "16TB",
                "media": "hdd",
            }
            for i in range(disks)
        ],
    }


def _median_ms(action: Callable[[], object], runs: int) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.9)]


def plan_render_figures(runs: int = 30) -> list[str]:
    lines = [
        "plan+render, in-process (goal: 64 disks < 50 ms median); first = the first plan of a "
        "spec in a process, which builds its bucket map (memoised after)",
        f"  {'disks':>5}  {'median ms':>9}  {'p90 ms':>7}  {'first ms':>8}  {'config lines':>12}",
    ]
    for disks in (3, 12, 24, 64):
        data = _spec(disks)

        def once(data: dict[str, object] = data) -> str:
            return render_config(make_plan(spec_from_mapping(data, "bench.yaml"), "bench.yaml"))

        def first(once: Callable[[], str] = once) -> str:
            build_map.cache_clear()
            return once()

        median, p90 = _median_ms(once, runs)
        first_median, _ = _median_ms(first, max(3, runs // 5))
        lines.append(
            f"  {disks:>5}  {median:>9.1f}  {p90:>7.1f}  {first_median:>8.1f}  "
            f"{once().count(chr(10)):>12}"
        )
    return lines


def cold_start_figures(runs: int = 10) -> list[str]:
    tpgen = Path(sys.executable).with_name("tpgen")
    commands: Sequence[tuple[str, list[str]]] = [
        ("python3 -c pass (baseline)", [sys.executable, "-c", "pass"]),
        ("tpgen --version (goal < 300 ms)", [str(tpgen), "--version"]),
    ]
    lines = ["CLI cold start", f"  {'command':<34}  {'median ms':>9}"]
    for label, command in commands:

        def launch(command: list[str] = command) -> object:
            return subprocess.run(command, check=True, capture_output=True)

        median, _ = _median_ms(launch, runs)
        lines.append(f"  {label:<34}  {median:>9.1f}")
    return lines


def _naive(disks: Sequence[str]) -> list[str]:
    """split_clients with one equal percentage per disk, re-percentaged on every change."""
    return [disks[bucket * len(disks) // BUCKETS] for bucket in range(BUCKETS)]


def remap_figures() -> list[str]:
    lines = [
        f"keys that change disk ({BUCKETS} buckets; optimal = the changed disk's fair share)",
        f"  {'N':>3}  {'change':<7}  {'optimal':>8}  {'tpgen':>7}  {'naive':>7}  {'tpgen/opt':>9}",
    ]
    for count in (3, 6, 12, 24):
        names = [f"d{i}" for i in range(1, count + 1)]
        weights = [(name, 1.0) for name in names]
        before = assign_buckets(weights, BUCKETS)
        removed = assign_buckets(weights[:-1], BUCKETS)
        added = assign_buckets([*weights, (f"d{count + 1}", 1.0)], BUCKETS)
        cases = [
            (
                "remove",
                1 / count,
                moved_buckets(before, removed),
                moved_buckets(_naive(names), _naive(names[:-1])),
            ),
            (
                "add",
                1 / (count + 1),
                moved_buckets(before, added),
                moved_buckets(_naive(names), _naive([*names, f"d{count + 1}"])),
            ),
        ]
        for change, optimal, ours, naive in cases:
            tp, nv = len(ours) / BUCKETS, len(naive) / BUCKETS
            lines.append(
                f"  {count:>3}  {change:<7}  {optimal:>8.1%}  {tp:>7.1%}  {nv:>7.1%}  "
                f"{tp / optimal:>9.2f}"
            )
    return lines


def main() -> int:
    for block in (plan_render_figures(), cold_start_figures(), remap_figures()):
        print("\n".join(block), end="\n\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
