"""Rules of the test suite itself: one skip-or-fail rule, no skipping the package under test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .conftest import ROOT, unavailable

TESTS = ROOT / "tests"
HELPER = TESTS / "conftest.py"
# the ways a test could skip on its own, bypassing unavailable()
SKIPS = re.compile(r"importorskip|pytest\.skip\(|mark\.skip(if)?\b|\.xfail\b")


@pytest.mark.parametrize(
    ("env", "outcome"),
    [
        ({}, pytest.skip.Exception),
        ({"CI": "true"}, pytest.fail.Exception),
        ({"CI": "1"}, pytest.fail.Exception),
        ({"TPGEN_CI": "1"}, pytest.fail.Exception),
        ({"CI": "false", "TPGEN_CI": "0"}, pytest.skip.Exception),
    ],
    ids=["local", "CI=true", "CI=1", "TPGEN_CI=1", "both-off"],
)
def test_a_missing_prerequisite_skips_locally_and_fails_in_ci(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], outcome: type[BaseException]
) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("TPGEN_CI", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(outcome, match=r"^frobnicator is not installed"):
        unavailable("frobnicator is not installed")


def test_only_the_conftest_helper_decides_to_skip() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted(TESTS.rglob("*.py"))
        if path not in (HELPER, Path(__file__))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if SKIPS.search(line)
    ]
    assert offenders == [], "call tests/conftest.py's unavailable() or require_root() instead"


def test_ci_run_turns_a_skip_into_a_failure() -> None:
    assert "export TPGEN_CI=1" in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
