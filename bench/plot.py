"""A PNG of the table: one panel per metric, a bar per arm (median), a dot per round."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.report import COLUMNS, by_arm, medians
from bench.trial import TrialResult

PANELS = ("hot_rps", "hot_p99_ms", "cold_rps", "total_mbps", "disk_mbps", "disk_iops")
LOG_SCALE = {"hot_rps", "hot_p99_ms"}
COLORS = {
    "stock": "#c0392b",
    "tpgen": "#27ae60",
    "perdisk": "#f39c12",
    "handwritten": "#2980b9",
    "floor": "#7f8c8d",
}
_TITLES = {key: label for key, label, _ in COLUMNS}


def save_png(
    results: Sequence[TrialResult], path: Path, title: str, disk_budget_mbps: float
) -> None:
    """Dashed lines: the disks' throttle sum (disk MB/s) and 3x the floor's p99 (hot p99)."""
    plt = _pyplot()
    med = medians(results)
    arms = by_arm(results)
    names = list(med)
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
        _scale_and_title(ax, key)
        if key == "disk_mbps":
            ax.axhline(disk_budget_mbps, color="black", linestyle="--", linewidth=1)
            ax.text(0, disk_budget_mbps, " throttles", va="bottom", fontsize=8)
        if key == "hot_p99_ms" and "floor" in med:
            ax.axhline(3 * med["floor"][key], color="black", linestyle="--", linewidth=1)
            ax.text(0, 3 * med["floor"][key], " 3x floor", va="bottom", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    _save(plt, fig, title, path)


def save_regimes_png(
    pairs: Sequence[tuple[str, Sequence[TrialResult]]], path: Path, throttles: Sequence[float]
) -> None:
    """One panel per metric, a group of bars (medians per arm) per regime and worker count."""
    plt = _pyplot()
    keys = ("hot_rps", "hot_p99_ms", "total_mbps", "cold_mbps", "disk_mbps")
    meds = [medians(results) for _, results in pairs]
    arms = [a for a in dict.fromkeys(a for med in meds for a in med) if a != "floor"]
    width = 0.8 / max(1, len(arms))
    fig, axes = plt.subplots(1, len(keys), figsize=(4 * len(keys), 4.5))
    for ax, key in zip(axes.flat, keys, strict=True):
        _bar_groups(ax, key, arms, meds, width)
        if key == "disk_mbps":
            _throttle_marks(ax, throttles, width)
        ax.set_xticks(
            [x + 0.4 - width / 2 for x in range(len(pairs))],
            [label for label, _ in pairs],
            rotation=30,
            fontsize=8,
        )
        _scale_and_title(ax, key)
        ax.grid(axis="y", alpha=0.3)
    axes.flat[0].legend(fontsize=8)
    _save(
        plt, fig, "tpgen bench: medians per regime and worker count (dashed: disk throttles)", path
    )


def _bar_groups(
    ax: Any, key: str, arms: list[str], meds: list[dict[str, dict[str, float]]], width: float
) -> None:
    """A bar a arm in every regime's group, 0 where the pair did not run the arm."""
    for i, arm in enumerate(arms):
        xs = [x + i * width for x in range(len(meds))]
        ys = [med.get(arm, {}).get(key, 0.0) for med in meds]
        ax.bar(xs, ys, width, label=arm, color=COLORS.get(arm, "#8e44ad"))


def _throttle_marks(ax: Any, throttles: Sequence[float], width: float) -> None:
    """A dashed line over each regime's group at its disks' throttle sum."""
    for x, throttle in enumerate(throttles):
        ax.hlines(throttle, x - width / 2, x + 0.8 - width / 2, colors="black", ls="--")


def _pyplot() -> Any:
    # matplotlib is the dev extra's: imported when a plot is drawn, not with the bench
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _scale_and_title(ax: Any, key: str) -> None:
    ax.set_title(_TITLES[key] + (" (log)" if key in LOG_SCALE else ""))
    if key in LOG_SCALE:
        ax.set_yscale("log")


def _save(plt: Any, fig: Any, title: str, path: Path) -> None:
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
