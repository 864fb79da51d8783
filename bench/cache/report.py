"""The cache bench's table, per-disk balance, ratios and the verdict on tpgen ≥ the article."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence

from bench.cache.trial import CacheTrial
from bench.report import Goal, by_arm, column_medians, fmt_number, ratio_cell, row

Metric = Callable[[CacheTrial], float]


def _balance(values: dict[str, float]) -> float:
    """Busiest disk ÷ mean of the disks: 1.00 is an even spread, N is all on one of N disks."""
    mean = statistics.fmean(values.values()) if values else 0.0
    return max(values.values()) / mean if mean else 0.0


COLUMNS: list[tuple[str, str, Metric]] = [
    ("hot_rps", "hot req/s", lambda t: t.hot.rps),
    ("hot_p99_ms", "hot p99 ms", lambda t: t.hot.latency_p99_ms),
    ("warm_rps", "HIT req/s", lambda t: t.warm.rps),
    ("warm_p99_ms", "HIT p99 ms", lambda t: t.warm.latency_p99_ms),
    ("hit_pct", "HIT %", lambda t: 100 * t.hit_ratio),
    ("fill_rps", "fill req/s", lambda t: t.fill.rps),
    ("fill_p99_ms", "fill p99 ms", lambda t: t.fill.latency_p99_ms),
    ("fill_mbps", "fill MB/s", lambda t: t.fill_mbps),
    ("read_mbps", "disk rd MB/s", lambda t: t.read_mbps),
    ("read_balance", "rd max÷mean", lambda t: _balance(t.disk_read_mbps())),
]

# (key, label, higher is better, tolerance): HITs are bound by the disks' throttle and the fill
# by the origin's rate for both layouts, where a trial's own noise is ~3%. Disk MB/s is no goal:
# reading the hot object again from a disk after the kernel evicted it also counts there.
GOALS = [
    ("hot_rps", "hot req/s", True, 0.0),
    ("hot_p99_ms", "hot p99", False, 0.0),
    ("fill_mbps", "fill MB/s (capped by the origin)", True, 0.03),
    ("warm_rps", "HIT req/s (objects read from the disks)", True, 0.03),
    ("hit_pct", "HIT ratio", True, 0.0),
]


def medians(results: Sequence[CacheTrial]) -> dict[str, dict[str, float]]:
    return column_medians(results, COLUMNS)


def _row(label: str, cells: Sequence[str]) -> str:
    return row(label, cells, width=13)  # the cache's column titles are longer


def table(results: Sequence[CacheTrial], candidates: Sequence[str]) -> str:
    """Medians per arm, then each candidate's ratios to stock and to the article's layout."""
    med = medians(results)
    lines = [_row("arm (median)", [title for _, title, _ in COLUMNS])]
    for arm, values in med.items():
        lines.append(_row(arm, [fmt_number(values[key]) for key, _, _ in COLUMNS]))
    for num in candidates:
        for den in ("stock", "article"):
            if num in med and den in med and num != den:
                cells = [ratio_cell(med[num][key], med[den][key]) for key, _, _ in COLUMNS]
                lines.append(_row(f"{num} ÷ {den}", cells))
    return "\n".join(lines)


def per_disk(results: Sequence[CacheTrial]) -> str:
    """Median MB/s per disk: reads (HITs, throttled) and fill (new cache files)."""
    arms = by_arm(results)
    names = list(results[0].disks) if results else []
    lines = [_row("per disk (median)", [f"rd {n}" for n in names] + [f"fill {n}" for n in names])]
    for arm, trials in arms.items():
        reads = [statistics.median(t.disk_read_mbps()[n] for t in trials) for n in names]
        fills = [statistics.median(t.disk_fill_mbps()[n] for t in trials) for n in names]
        lines.append(_row(arm, [fmt_number(v) for v in [*reads, *fills]]))
    return "\n".join(lines) + "\n(MB/s; reads are HITs coming off the throttled disks)"


def rounds_table(results: Sequence[CacheTrial]) -> str:
    lines = [_row("round arm", [*(title for _, title, _ in COLUMNS), "problems", "other CPU"])]
    for t in results:
        cells = [fmt_number(metric(t)) for _, _, metric in COLUMNS]
        errors = t.hot.errors + t.warm.errors + t.fill.errors
        extra = [str(len(t.problems) + errors), f"{t.other_cpu:.0%}"]
        lines.append(_row(f"{t.round:>3}   {t.arm}", [*cells, *extra]))
    return "\n".join(lines)


def goals(results: Sequence[CacheTrial], arm: str, against: str = "article") -> list[Goal]:
    """`arm` at least as good as `against` on each metric (medians over rounds)."""
    med = medians(results)
    arms = by_arm(results)
    if arm not in med or against not in med:
        return []
    out = []
    metrics = {key: metric for key, _, metric in COLUMNS}
    for key, label, higher, tol in GOALS:
        mine, theirs = med[arm][key], med[against][key]
        num, den = (mine, theirs) if higher else (theirs, mine)
        ratio = num / den if den else (float("inf") if num else 1.0)
        sign = 1 if higher else -1
        pairs = list(zip(arms[arm], arms[against], strict=False))
        wins = sum(
            sign * (metrics[key](a) - metrics[key](b)) >= -tol * abs(metrics[key](b))
            for a, b in pairs
        )
        slack = f" (within {tol:.0%})" if tol else ""
        out.append(
            Goal(
                f"{arm} at least as good as {against} on {label}{slack}",
                f"{ratio:.2f}x, {wins}/{len(pairs)} rounds",
                ratio >= 1 - tol,
            )
        )
    return out
