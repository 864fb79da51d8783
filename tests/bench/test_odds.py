"""`python -m bench odds`: the chance one full run meets each goal, by paired resampling of runs
already made (bench/odds.py). Synthetic runs whose odds are known by construction."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from bench.cli import main
from bench.odds import by_pair, odds
from bench.output import write
from bench.regimes import Combo
from bench.runner import Outcome
from bench.settings import REGIME_BASE, REGIMES
from bench.system import BenchError
from tests.bench.test_pure import _trial

SETTINGS = replace(REGIMES["baseline"].apply(REGIME_BASE, 2), plot=False)
HOT_RPS = "tpgen ≥ perdisk on hot req/s (median)"


def _run(tpgen_rps: float, perdisk_rps: float, rounds: int = 3, workers: int = 2) -> Combo:
    """A pair's run whose rounds all look alike: equal tails and cold loads, these hot rates."""
    trials = []
    for round_no in range(1, rounds + 1):
        trials += [
            _trial("tpgen", round_no, tpgen_rps, 400, 80),
            _trial("perdisk", round_no, perdisk_rps, 400, 80),
        ]
    return Combo("baseline", workers, SETTINGS, Outcome(trials, [], "", True))


def _share(result_odds: list[tuple[str, str, float]], pair: str, goal: str) -> float:
    return next(share for label, text, share in result_odds if (label, text) == (pair, goal))


def test_a_config_that_wins_every_round_of_every_run_meets_every_goal_in_every_draw() -> None:
    result = odds([_run(300, 200), _run(310, 190), _run(300, 200, workers=12)], draws=300)
    assert result.runs == {"baseline w2": 2, "baseline w12": 1}
    assert result.goals_per_run == 8  # four goals a pair
    assert {share for _, _, share in result.goal_odds} == {1.0}
    assert result.every_goal == 1.0
    assert (result.percentile(0.1), result.percentile(0.9)) == (8, 8)


def test_both_arms_of_a_drawn_round_come_from_the_same_run() -> None:
    # tpgen is ahead of its own run's perdisk, but behind the other run's: mixing runs within a
    # round would lose the goal in some draws, pairing never does
    result = odds([_run(300, 290), _run(150, 140)], draws=2000)
    assert _share(result.goal_odds, "baseline w2", HOT_RPS) == 1.0


def test_a_pair_that_wins_in_one_run_and_loses_in_the_other_is_met_about_half_the_time() -> None:
    # tpgen's median beats perdisk's when at least 2 of the 3 rounds come from the winning run:
    # a chance of 1/2
    result = odds([_run(300, 200), _run(200, 300)], draws=4000)
    share = _share(result.goal_odds, "baseline w2", HOT_RPS)
    assert 0.46 < share < 0.54
    assert result.every_goal == pytest.approx(share, abs=0.02)
    # hot req/s and total MB/s flip together (the hot file is most of the bytes); tails are equal
    assert (result.percentile(0.1), result.percentile(0.9)) == (2, 4)


def test_the_same_runs_and_seed_give_the_same_figures_and_another_seed_other_draws() -> None:
    runs = [_run(300, 200), _run(200, 300)]
    assert odds(runs, draws=500, seed=3) == odds(runs, draws=500, seed=3)
    assert odds(runs, draws=500, seed=3).met_per_run != odds(runs, draws=500, seed=4).met_per_run


def test_only_rounds_every_run_has_are_drawn() -> None:
    # the 4th round exists in one run only; drawing it could only ever take that run
    result = odds([_run(300, 200, rounds=4), _run(200, 300, rounds=3)], draws=4000)
    assert 0.46 < _share(result.goal_odds, "baseline w2", HOT_RPS) < 0.54


def test_a_run_without_both_arms_cannot_be_judged() -> None:
    lone = Combo("baseline", 2, SETTINGS, Outcome([_trial("tpgen", 1, 300, 400, 80)], [], "", True))
    with pytest.raises(BenchError, match="baseline w2: every run needs the tpgen and perdisk arms"):
        by_pair([_run(300, 200), lone])
    late = Combo(
        "baseline", 2, SETTINGS, Outcome(_run(300, 200, rounds=5).outcome.results[8:], [], "", True)
    )
    with pytest.raises(BenchError, match="baseline w2: its runs have no round number in common"):
        by_pair([_run(300, 200, rounds=3), late])
    with pytest.raises(BenchError, match="no pair"):
        odds([], draws=10)


def _saved(tmp_path: Path, run: str, combo: Combo) -> Path:
    pair = tmp_path / run / f"{combo.regime}-w{combo.workers}"
    pair.mkdir(parents=True)
    write(pair, "header", combo.settings, [], combo.outcome.results, ["tpgen"])
    return pair


def test_the_command_reads_the_pairs_runs_left_and_prints_the_odds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dirs = [_saved(tmp_path, "a", _run(300, 200)), _saved(tmp_path, "b", _run(200, 300))]
    assert main(["odds", *map(str, dirs), "--draws", "400"]) == 0
    out = capsys.readouterr().out
    assert "one of its 2 runs, both arms from the same run" in out
    assert re.search(rf"^baseline w2 +{re.escape(HOT_RPS)} +0\.\d\d$", out, re.MULTILINE), out
    assert "every goal in one run: 0." in out
    assert "goals met per run of 4: p10 2, median" in out


def test_the_command_refuses_what_is_not_a_pair_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes-w2").mkdir()
    (tmp_path / "notes-w2" / "results.json").write_text("{not json")
    out = tmp_path / "summary"
    for bad in (tmp_path / "missing-w2", tmp_path / "notes-w2"):
        for command in (["odds", str(bad)], ["summary", str(bad), "--out", str(out)]):
            assert main(command) == 2
            err = capsys.readouterr().err
            assert err.count("\n") == 1
            assert f"bench: {bad}: not a pair a `bench run --regimes` left" in err
    assert not out.exists()
    with pytest.raises(SystemExit) as refused:
        main(["odds", str(tmp_path), "--draws", "0"])
    assert refused.value.code == 2
    assert "expected a whole count of draws from 1 to 100000" in capsys.readouterr().err
