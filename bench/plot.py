"""A PNG of the table: one panel per metric, a bar per arm (median), a dot per round."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bench.report import COLUMNS, by_arm, medians
from bench.trial import TrialResult

PANELS = ("hot_rps", "hot_p99_ms", "cold_rps", "total_mbps", "disk_mbps", "disk_iops")
LOG_SCALE = {"hot_rps", "hot_p99_ms"}
COLORS = {"stock": "#c0392b", "tpgen": "#27ae60", "handwritten": "#2980b9", "floor": "#7f8c8d"}


def save_png(
    results: Sequence[TrialResult], path: Path, title: str, disk_budget_mbps: float
) -> None:
    """Dashed lines: the disks' throttle sum (disk MB/s) and 3x the floor's p99 (hot p99)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    med = medians(results)
    arms = by_arm(results)
    names = list(med)
    titles = {key: label for key, label, _ in COLUMNS}
    metrics = {key: metric for key, _, metric in COLUMNS}
    fig, axes = plt.subplots(2, 3, figsize=(13, 7))
    for ax, key in zip(axes.flat, PANELS, strict=True):
        xs = range(len(names))
        ax.bar(
            xs,
            [med[n][key] for n in names],
            color=[COLORS.get(n, "#8e44ad") for n in names],
            alpha=0.8,
        )
        for x, name in zip(xs, names, strict=True):
            points = [metrics[key](t) for t in arms[name]]
            ax.scatter([x] * len(points), points, color="black", s=12, zorder=3)
        ax.set_xticks(list(xs), names, rotation=20)
        ax.set_title(titles[key] + (" (log)" if key in LOG_SCALE else ""))
        if key in LOG_SCALE:
            ax.set_yscale("log")
        if key == "disk_mbps":
            ax.axhline(disk_budget_mbps, color="black", linestyle="--", linewidth=1)
            ax.text(0, disk_budget_mbps, " throttles", va="bottom", fontsize=8)
        if key == "hot_p99_ms" and "floor" in med:
            ax.axhline(3 * med["floor"][key], color="black", linestyle="--", linewidth=1)
            ax.text(0, 3 * med["floor"][key], " 3x floor", va="bottom", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
