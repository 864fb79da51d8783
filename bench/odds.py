"""`python -m bench odds PAIR_DIR...`: how often ONE full run would meet each goal, and every goal
at once, with the configs as they are, from the runs already made.

A pair's goals are medians over its rounds, and a round's trials swing far more between runs than
two configs differ (session 23: the same pair and cold load, tpgen's hot p99 0.3x the article's in
one run and 3.2x in the next). Paired resampling puts a number on that: a simulated run of a pair
takes each round from one of the given runs, drawn at random, with both arms' trials of that round
from the same run (they ran minutes apart under the same cold load), and judges it with the goals
`bench run --regimes` prints. Over many draws, a goal's share of draws met is the chance one run
meets it; the product over pairs is not assumed: every simulated run draws every pair.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from bench.regimes import Combo, pair_goals
from bench.system import BenchError
from bench.trial import TrialResult


@dataclass(frozen=True)
class Odds:
    runs: dict[str, int]  # pair label -> how many runs of it were resampled
    draws: int
    goal_odds: list[tuple[str, str, float]]  # (pair label, goal, share of draws that met it)
    met_per_run: list[int]  # goals met in each simulated full run, sorted

    @property
    def goals_per_run(self) -> int:
        return len(self.goal_odds)

    @property
    def every_goal(self) -> float:
        """Share of simulated full runs that met every goal of every pair."""
        return self.met_per_run.count(self.goals_per_run) / len(self.met_per_run)

    def percentile(self, share: float) -> int:
        return self.met_per_run[min(len(self.met_per_run) - 1, int(share * len(self.met_per_run)))]


def by_pair(combos: Sequence[Combo]) -> dict[str, list[Combo]]:
    """The runs of each (regime, workers) pair, pairs in the order first given."""
    pairs: dict[str, list[Combo]] = {}
    for combo in combos:
        pairs.setdefault(combo.label, []).append(combo)
    for label, runs in pairs.items():
        for run in runs:
            if {"tpgen", "perdisk"} - {t.arm for t in run.outcome.results}:
                raise BenchError(f"{label}: every run needs the tpgen and perdisk arms")
        if not shared_rounds(runs):
            raise BenchError(f"{label}: its runs have no round number in common to draw")
    return pairs


def shared_rounds(runs: Sequence[Combo]) -> list[int]:
    """The rounds every run of a pair has: the only ones a draw may take from any of them."""
    return sorted(set.intersection(*({t.round for t in c.outcome.results} for c in runs)))


def draw(runs: Sequence[Combo], rounds: Sequence[int], rng: random.Random) -> list[TrialResult]:
    """One simulated run of a pair: each of its `shared_rounds` from a run drawn at random."""
    trials: list[TrialResult] = []
    for round_no in rounds:
        run = rng.choice(runs)
        trials += [t for t in run.outcome.results if t.round == round_no]
    return trials


def odds(combos: Sequence[Combo], draws: int, seed: int = 0) -> Odds:
    """The goals' odds over `draws` simulated full runs of every pair in `combos`."""
    pairs = by_pair(combos)
    if not pairs:
        raise BenchError("no pair to resample")
    rounds = {label: shared_rounds(runs) for label, runs in pairs.items()}
    rng = random.Random(seed)
    met: dict[tuple[str, str], int] = {}
    per_run: list[int] = []
    for _ in range(draws):
        met_here = 0
        for label, runs in pairs.items():
            for goal in pair_goals(draw(runs, rounds[label], rng), runs[0].settings):
                key = (label, goal.text)
                met[key] = met.get(key, 0) + goal.ok
                met_here += goal.ok
        per_run.append(met_here)
    return Odds(
        runs={label: len(runs) for label, runs in pairs.items()},
        draws=draws,
        goal_odds=[(label, text, count / draws) for (label, text), count in met.items()],
        met_per_run=sorted(per_run),
    )


def report(result: Odds) -> str:
    runs = sorted(set(result.runs.values()))
    lines = [
        f"odds of one full run: {result.draws} simulated runs, each round of a pair drawn from "
        f"one of its {'/'.join(map(str, runs))} runs, both arms from the same run",
        f"{'pair':<22}{'goal':<72}{'met':>6}",
    ]
    lines += [f"{label:<22}{text:<72}{share:>6.2f}" for label, text, share in result.goal_odds]
    lines.append(
        f"every goal in one run: {result.every_goal:.3f}; goals met per run of "
        f"{result.goals_per_run}: p10 {result.percentile(0.1)}, median "
        f"{result.percentile(0.5)}, p90 {result.percentile(0.9)}"
    )
    return "\n".join(lines)
