"""Turn trial results into the table, the ratios and the verdict on the issue's goals."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from bench.settings import Settings
from bench.trial import TrialResult


class Trial(Protocol):
    """What the tables need of a trial of either workload (TrialResult, cache's CacheTrial)."""

    @property
    def arm(self) -> str: ...

    @property
    def other_cpu(self) -> float: ...


TrialT = TypeVar("TrialT", bound=Trial)
Metric = Callable[[TrialResult], float]

COLUMNS: list[tuple[str, str, Metric]] = [
    ("hot_rps", "hot req/s", lambda t: t.hot.rps),
    ("hot_avg_ms", "hot avg ms", lambda t: t.hot.latency_mean_ms),
    ("hot_p99_ms", "hot p99 ms", lambda t: t.hot.latency_p99_ms),
    # the same answers weighed one each (bench.load.LoadResult.answer_p99_ms); none in old runs
    (
        "hot_answer_p99_ms",
        "answer p99",
        lambda t: math.nan if t.hot.answer_p99_ms is None else t.hot.answer_p99_ms,
    ),
    ("cold_rps", "cold req/s", lambda t: t.cold.rps if t.cold else 0.0),
    ("total_mbps", "total MB/s", lambda t: t.total_mbps),
    ("cold_mbps", "cold MB/s", lambda t: t.cold.mbps if t.cold else 0.0),
    ("disk_mbps", "disk MB/s", lambda t: t.disk_mbps),
    ("disk_iops", "disk IOPS", lambda t: t.disk_iops),
    ("kib_per_io", "KiB/IO", lambda t: t.disk_bytes / t.disk_ios / 1024 if t.disk_ios else 0.0),
]


# What a candidate is divided by: stock nginx, the article's per-disk and single-pool layouts.
REFERENCES = ("stock", "perdisk", "handwritten")

# The goal against the article's per-disk layout, on medians of the same run:
# (label, column, higher is better, least ratio in the better direction).
PERDISK_GOALS = (
    ("hot req/s", "hot_rps", True, 1.0),
    ("hot p99", "hot_p99_ms", False, 1.0),
    ("total MB/s", "total_mbps", True, 1.0),
    ("cold MB/s", "cold_mbps", True, 0.9),
)


@dataclass(frozen=True)
class Goal:
    text: str
    value: str
    ok: bool


def column(key: str) -> Metric:
    """The metric of COLUMNS' column `key`."""
    return next(metric for name, _, metric in COLUMNS if name == key)


def by_arm(results: Sequence[TrialT]) -> dict[str, list[TrialT]]:
    arms: dict[str, list[TrialT]] = {}
    for result in results:
        arms.setdefault(result.arm, []).append(result)
    return arms


def column_medians(
    results: Sequence[TrialT], columns: Sequence[tuple[str, str, Callable[[TrialT], float]]]
) -> dict[str, dict[str, float]]:
    """arm -> column key -> median over the rounds."""
    return {
        arm: {key: statistics.median(metric(t) for t in trials) for key, _, metric in columns}
        for arm, trials in by_arm(results).items()
    }


def medians(results: Sequence[TrialResult]) -> dict[str, dict[str, float]]:
    """arm -> COLUMNS' key -> median over the rounds."""
    return column_medians(results, COLUMNS)


def fmt_number(value: float) -> str:
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def row(label: str, cells: Sequence[str], width: int = 12) -> str:
    return f"{label:<22}" + "".join(f"{cell:>{width}}" for cell in cells)


def ratio_cell(num: float, den: float) -> str:
    if den:
        return fmt_number(num / den)
    return "inf" if num else "-"


def other_cpu_line(results: Sequence[Trial]) -> str:
    others = [t.other_cpu for t in results]
    return (
        f"CPU taken by other processes during trials: median {statistics.median(others):.0%}, "
        f"max {max(others):.0%} of {len(others)} trials"
    )


def table(results: Sequence[TrialResult], candidates: Sequence[str] = ("tpgen",)) -> str:
    """Medians per arm, then each candidate's ratios to stock and to the article's layouts."""
    med = medians(results)
    lines = [row("arm (median)", [title for _, title, _ in COLUMNS])]
    for arm, values in med.items():
        lines.append(row(arm, [fmt_number(values[key]) for key, _, _ in COLUMNS]))
    for num in candidates:
        for den in REFERENCES:
            if num in med and den in med:
                cells = [ratio_cell(med[num][key], med[den][key]) for key, _, _ in COLUMNS]
                lines.append(row(f"{num} ÷ {den}", cells))
    return "\n".join(lines)


def rounds_table(results: Sequence[TrialResult]) -> str:
    """Every trial, in the order it ran: shows the spread and the machine's noise."""
    titles = [
        *(title for _, title, _ in COLUMNS),
        "problems",
        "other CPU",
        "top worker",
        "sendq MiB",
    ]
    lines = [row("round arm", titles)]
    for t in results:
        cells = [fmt_number(metric(t)) for _, _, metric in COLUMNS]
        errors = t.hot.errors + (t.cold.errors if t.cold else 0)
        extra = [
            str(len(t.problems) + errors + len(t.stalled_loads())),
            f"{t.other_cpu:.0%}",
            "n/a" if t.worker_spread is None else f"{t.worker_spread:.2f}x",
            "n/a" if t.send_queue_mib is None else f"{t.send_queue_mib:.0f}",
        ]
        lines.append(row(f"{t.round:>3}   {t.arm}", [*cells, *extra]))
    return "\n".join(lines)


def goals(results: Sequence[TrialResult], settings: Settings, arm: str = "tpgen") -> list[Goal]:
    """The issue's figures for `arm` (tpgen's config, or an edited copy), from this run."""
    med = medians(results)
    arms = by_arm(results)
    out: list[Goal] = []
    if arm not in med:
        return out
    if "stock" in med:
        stock = med["stock"]["hot_rps"]
        ratio = med[arm]["hot_rps"] / stock if stock else math.inf
        out.append(Goal(f"hot req/s, {arm} ÷ stock ≥ 50", f"{ratio:.1f}x", ratio >= 50))
    if "perdisk" in med and arm != "perdisk":
        out += perdisk_goals(med, arm, paired_rounds(arms[arm], arms["perdisk"]))
    if "handwritten" in arms:
        out += _handwritten_goals(arm, paired_rounds(arms[arm], arms["handwritten"]))
    if "floor" in med:
        ratio = med[arm]["hot_p99_ms"] / max(med["floor"]["hot_p99_ms"], 1e-9)
        out.append(
            Goal(
                f"hot p99 of {arm} under cold load ÷ unloaded hot p99 ≤ 3",
                f"{ratio:.2f}x",
                ratio <= 3,
            )
        )
    budget = settings.disks * settings.disk_model.read_bps / 1e6
    ratio = med[arm]["disk_mbps"] / budget
    out.append(
        Goal(
            f"disk MB/s with {arm} ÷ throttles ({budget:.1f} MB/s) ≥ 0.85",
            f"{ratio:.2f}",
            ratio >= 0.85,
        )
    )
    return out


def _handwritten_goals(arm: str, pairs: Sequence[tuple[TrialResult, TrialResult]]) -> list[Goal]:
    """`arm` at least as good as the article's handwritten config in every round."""
    out: list[Goal] = []
    for label, key, higher_is_better in (
        ("hot req/s", "hot_rps", True),
        ("hot p99", "hot_p99_ms", False),
        ("total MB/s", "total_mbps", True),
    ):
        metric = column(key)
        sign = 1 if higher_is_better else -1
        wins = sum(sign * (metric(b) - metric(c)) >= 0 for b, c in pairs)
        out.append(
            Goal(
                f"{arm} at least as good as handwritten on {label}, every round",
                f"{wins}/{len(pairs)} rounds",
                wins == len(pairs) and wins > 0,
            )
        )
    return out


def paired_rounds(
    candidate: Sequence[TrialResult], reference: Sequence[TrialResult]
) -> list[tuple[TrialResult, TrialResult]]:
    """The two arms' trials of the same rounds (the arms run interleaved round by round)."""
    by_round = {t.round: t for t in reference}
    return [(t, by_round[t.round]) for t in candidate if t.round in by_round]


def _betterratio_cell(num: float, den: float, higher_is_better: bool) -> float:
    """num against den in the better direction (p99: den ÷ num), so ≥ 1 means num is better."""
    if higher_is_better:
        return num / den if den else math.inf
    return den / num if num else 0.0


def perdisk_goals(
    med: dict[str, dict[str, float]],
    arm: str,
    rounds: Sequence[tuple[TrialResult, TrialResult]] = (),
) -> list[Goal]:
    """`arm` ≥ the article's per-disk layout (cold MB/s: ≥ 0.9×), medians of one run.

    The verdict is the medians'; how many rounds `arm` met the same bound in says whether a
    miss (or a pass) held in every round or only in the rounds' middle one.
    """
    out = []
    for label, key, higher_is_better, least in PERDISK_GOALS:
        ratio = _betterratio_cell(med[arm][key], med["perdisk"][key], higher_is_better)
        metric = column(key)
        won = sum(
            _betterratio_cell(metric(mine), metric(theirs), higher_is_better) >= least
            for mine, theirs in rounds
        )
        word = "" if least == 1.0 else f" × {least:g}"
        out.append(
            Goal(
                f"{arm} ≥ perdisk{word} on {label} (median"
                + (", p99 of perdisk ÷ p99 of " + arm if not higher_is_better else "")
                + ")",
                f"{ratio:.2f}" + (f" (met in {won} of {len(rounds)} rounds)" if rounds else ""),
                ratio >= least,
            )
        )
    return out


def hot_spreads(results: Sequence[TrialResult]) -> list[str]:
    """Per arm, its hot req/s max÷min across rounds ('ARM 1.23x'); arms with one round or a
    round that answered nothing have none."""
    parts = []
    for arm, trials in by_arm(results).items():
        values = [t.hot.rps for t in trials]
        if len(values) > 1 and min(values) > 0:
            parts.append(f"{arm} {max(values) / min(values):.2f}x")
    return parts


def worker_spreads(results: Sequence[TrialResult]) -> str:
    """Per arm, the median of its trials' busiest-worker shares ('' when none was sampled)."""
    parts = [
        f"{arm} {statistics.median(values):.2f}x"
        for arm, trials in by_arm(results).items()
        if (values := [t.worker_spread for t in trials if t.worker_spread is not None])
    ]
    return (
        "connections of the busiest worker ÷ the workers' mean (median): " + ", ".join(parts)
        if parts
        else ""
    )


def noise(results: Sequence[TrialResult]) -> str:
    """Spread of hot req/s across rounds, per arm (max/min): what the machine's noise did."""
    parts = hot_spreads(results)
    return (
        "hot req/s max÷min across rounds: "
        + (", ".join(parts) if parts else "n/a")
        + f"\n{other_cpu_line(results)}"
        + (f"\n{stalls}" if (stalls := stalled_trials(results)) else "")
        + (f"\n{spreads}" if (spreads := worker_spreads(results)) else "")
    )


def stalled_trials(results: Sequence[TrialResult]) -> str:
    """Which arms' trials stalled (a wrk killed, counted as nothing answered); '' if none."""
    counts = [
        f"{arm} {len(stalled)} of {len(trials)}"
        for arm, trials in by_arm(results).items()
        if (stalled := [t for t in trials if t.stalled_loads()])
    ]
    return (
        "stalled trials (a wrk killed, nothing of that load counted): " + ", ".join(counts)
        if counts
        else ""
    )
