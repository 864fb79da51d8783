"""`python -m bench run --regimes`: every named regime at every worker count, one after the other.

Each (regime, workers) pair is a complete run of its own (disks, data, throttle check,
interleaved rounds) in `<out>/<regime>-w<workers>/`; the summary divides tpgen by stock and by the
article's two layouts within each pair, so a ratio only ever compares trials of the same minutes.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tpgen.api import short_size

from bench import armset, runlock
from bench.load import LoadResult
from bench.report import (
    REFERENCES,
    Goal,
    fmt_number,
    goals,
    hot_spreads,
    medians,
    stalled_trials,
    worker_spreads,
)
from bench.runner import Outcome, run_bench
from bench.settings import REGIME_BASE, REGIMES, DiskModel, MiB, Settings
from bench.system import BenchError
from bench.trial import TrialResult

Log = Callable[[str], None]

# Summary columns: (key in report.medians, title); p99 is a latency, its ratio is better below 1.
RATIO_COLUMNS = (
    ("hot_rps", "hot req/s"),
    ("hot_p99_ms", "hot p99"),
    ("total_mbps", "total MB/s"),
    ("cold_mbps", "cold MB/s"),
)


@dataclass(frozen=True)
class Combo:
    regime: str
    workers: int
    settings: Settings
    outcome: Outcome

    @property
    def label(self) -> str:
        return f"{self.regime} w{self.workers}"

    @property
    def throttle_mbps(self) -> float:
        return self.settings.disks * self.settings.disk_model.read_bps / 1e6


# What defines a regime: a command option that replaces one of these is named in the log and the
# summary, so a pair's line never describes a regime the run did not measure.
_SHAPE_FIELDS: tuple[tuple[str, Callable[[Any], str]], ...] = (
    ("disks", lambda n: f"{n} disk{'s' * (n != 1)}"),
    ("files_per_disk", lambda n: f"{n} files a disk"),
    ("file_size", lambda n: f"{short_size(n)} files"),
    (
        "disk_model",
        lambda m: (
            f"{m.read_bps // MiB} MiB/s and {m.read_iops} IOPS a disk"
            + (f", reading ahead {m.read_ahead_kb} KiB" if m.read_ahead_kb else "")
            + (
                f", inode read-ahead {m.inode_readahead_blks} blocks"
                if m.inode_readahead_blks is not None
                else ""
            )
        ),
    ),
    ("nginx_memory", lambda n: f"nginx memory {short_size(n)}"),
    ("cold_connections", lambda n: f"{n} cold conns"),
    ("cold_metadata", lambda cold: "inodes cold" if cold else "inodes warmed"),
)


def replaced(regime: str, settings: Settings) -> str:
    """What of `regime`'s own disks and load `settings` replaces ('' when nothing)."""
    own = REGIMES[regime].apply(REGIME_BASE, settings.workers or 1)
    return ", ".join(
        show(getattr(settings, name))
        for name, show in _SHAPE_FIELDS
        if getattr(settings, name) != getattr(own, name)
    )


def plan(names: Sequence[str], workers: Sequence[int]) -> list[tuple[str, int]]:
    """(regime, workers) pairs in run order; unknown names raise ValueError with the known ones."""
    unknown = [n for n in names if n not in REGIMES]
    if unknown:
        raise ValueError(f"unknown regimes {unknown}: known are {', '.join(REGIMES)}")
    return [(name, count) for name in names for count in workers]


@runlock.holds_the_lock("run --regimes")  # from the first pair to the summary: no run between
def run_regimes(
    pairs: Sequence[tuple[str, int, Settings]],
    out_dir: Path,
    *,
    variants: list[armset.Variant] | None = None,
    probe_seconds: float = 2.0,
    log: Log = print,
) -> tuple[str, bool]:
    """Run every pair; write summary.txt, summary.json (and regimes.png); return the summary
    text and whether tpgen met the per-disk goals in every pair."""
    combos = []
    failed = []
    for regime, workers, settings in pairs:
        changes = replaced(regime, settings)
        log(
            f"=== regime {regime}, {workers} workers: {REGIMES[regime].what}"
            + (f"; replaced by the run: {changes}" if changes else "")
        )
        try:
            outcome = run_bench(
                settings,
                out_dir / f"{regime}-w{workers}",
                variants=variants,
                probe_seconds=probe_seconds,
                log=log,
            )
        except BenchError as exc:  # one pair's host trouble must not lose the others
            log(f"=== regime {regime}, {workers} workers: not measured: {exc}")
            failed.append(f"{regime} w{workers}: not measured: {exc}")
            continue
        combos.append(Combo(regime, workers, settings, outcome))
    if not combos:
        raise BenchError("no regime could be measured: " + "; ".join(failed))
    candidates = ["tpgen", *(v.name for v in variants or [])]
    return write_summary(combos, candidates, out_dir, failed)


def write_summary(
    combos: Sequence[Combo], candidates: Sequence[str], out_dir: Path, failed: Sequence[str] = ()
) -> tuple[str, bool]:
    """summary.txt, summary.json and (if any pair plots) regimes.png in `out_dir`."""
    text, ok = summary(combos, candidates)
    if failed:
        text += "\n" + "\n".join(f"  [MISSED] {line}" for line in failed)
        ok = False
    (out_dir / "summary.txt").write_text(text + "\n")
    (out_dir / "summary.json").write_text(json.dumps(_payload(combos), indent=1))
    if any(c.settings.plot for c in combos):
        from bench.plot import save_regimes_png

        save_regimes_png(
            [(c.label, c.outcome.results) for c in combos],
            out_dir / "regimes.png",
            [c.throttle_mbps for c in combos],
        )
    return text, ok


def load_pair(pair_dir: Path) -> Combo:
    """A pair from the results.json a run left in `<out>/<regime>-w<workers>/`."""
    try:
        return _read_pair(pair_dir)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise BenchError(
            f"{pair_dir}: not a pair a `bench run --regimes` left ({type(exc).__name__}: {exc}); "
            "give the <regime>-w<N>/ directories of its --out"
        ) from None


def _read_pair(pair_dir: Path) -> Combo:
    data = json.loads((pair_dir / "results.json").read_text())
    raw = dict(data["settings"])
    raw["disk_model"] = DiskModel(**raw["disk_model"])
    for key in ("arms", "port_range"):
        raw[key] = tuple(raw[key])
    settings = Settings(**raw)
    results = []
    for t in data["trials"]:
        fields = {k: v for k, v in t.items() if k not in ("disk_mbps", "disk_iops", "total_mbps")}
        fields["hot"] = LoadResult(**t["hot"])
        fields["cold"] = LoadResult(**t["cold"]) if t["cold"] else None
        results.append(TrialResult(**fields))
    regime, _, workers = pair_dir.name.rpartition("-w")
    return Combo(regime, int(workers), settings, Outcome(results, [], "", False))


def pair_goals(results: Sequence[TrialResult], settings: Settings) -> list[Goal]:
    """What a pair of `--regimes` is judged by: tpgen against the article's per-disk layout."""
    return [goal for goal in goals(results, settings, "tpgen") if "perdisk" in goal.text]


def summary(combos: Sequence[Combo], candidates: Sequence[str]) -> tuple[str, bool]:
    """The ratio table (medians within each pair) and the per-disk goals of every pair."""
    lines = _table_head(combos)
    judged: list[tuple[Combo, Goal]] = []
    for combo in combos:
        med = medians(combo.outcome.results)
        lines += _ratio_rows(combo, med, candidates)
        lines += [" " * 24 + note for note in _pair_notes(combo, med)]
        judged += [(combo, goal) for goal in pair_goals(combo.outcome.results, combo.settings)]
    goal_lines = [
        f"  [{'ok' if goal.ok else 'MISSED'}] {combo.label}: {goal.text}: {goal.value}"
        for combo, goal in judged
    ]
    lines += ["", "goals (tpgen against the article's per-disk layout):", *goal_lines]
    return "\n".join(lines), bool(judged) and all(goal.ok for _, goal in judged)


def _table_head(combos: Sequence[Combo]) -> list[str]:
    """What the ratios mean, every pair's client notes (once each), then the column titles."""
    notes = dict.fromkeys(note for c in combos for note in c.settings.client_notes)
    return [
        "medians per pair; a ratio is candidate ÷ reference in the same run (hot p99: below 1 "
        "is better)",
        *notes,
        f"{'regime':<15}{'workers':>7}  {'ratio':<24}"
        + "".join(f"{title:>12}" for _, title in RATIO_COLUMNS),
    ]


def _ratio_rows(
    combo: Combo, med: dict[str, dict[str, float]], candidates: Sequence[str]
) -> list[str]:
    """One row a (candidate, reference) pair; only the first names the regime and workers."""
    rows: list[str] = []
    for cand in (c for c in candidates if c in med):
        for ref in (r for r in REFERENCES if r in med and r != cand):
            cells = _ratio_cells(med[cand], med[ref])
            lead = f"{combo.regime:<15}{combo.workers:>7}" if not rows else " " * 22
            rows.append(f"{lead}  {cand + ' ÷ ' + ref:<24}" + "".join(f"{c:>12}" for c in cells))
    return rows


def _ratio_cells(cand: dict[str, float], ref: dict[str, float]) -> list[str]:
    return [fmt_number(cand[key] / ref[key]) if ref[key] else "inf" for key, _ in RATIO_COLUMNS]


def _pair_notes(combo: Combo, med: dict[str, dict[str, float]]) -> list[str]:
    """The lines under a pair's ratios: disk shares, replaced shape, noise, stalls, spreads."""
    shares = ", ".join(
        f"{arm} {values['disk_mbps'] / combo.throttle_mbps:.2f}"
        for arm, values in med.items()
        if arm != "floor"
    )
    changes = replaced(combo.regime, combo.settings)
    notes = [
        f"disk MB/s ÷ throttle ({combo.throttle_mbps:.0f} MB/s): {shares}",
        f"regime's own replaced by the run: {changes}" if changes else "",
        _spread(combo),
        stalled_trials(combo.outcome.results),
        worker_spreads(combo.outcome.results),
    ]
    return [note for note in notes if note]


def _spread(combo: Combo) -> str:
    """Noise of this pair: hot req/s max÷min across rounds per arm, CPU taken by others."""
    parts = hot_spreads(combo.outcome.results)
    others = [t.other_cpu for t in combo.outcome.results]
    if not parts:
        return ""
    return (
        "noise: hot req/s max÷min "
        + ", ".join(parts)
        + f"; other processes took a median {statistics.median(others):.0%} of the CPUs"
    )


def _payload(combos: Sequence[Combo]) -> list[dict[str, object]]:
    return [
        {
            "regime": c.regime,
            "workers": c.workers,
            "throttle_mbps": c.throttle_mbps,
            "medians": medians(c.outcome.results),
            "goals_met": c.outcome.goals_met,
        }
        for c in combos
    ]
