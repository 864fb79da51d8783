"""Every case renders to its checked-in config byte for byte, and real nginx accepts it."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from tpgen.check import check_plan
from tpgen.plan import make_plan
from tpgen.render import render_config
from tpgen.spec.load import load_spec_file

from .conftest import CASES, ROOT

CASE_DIRS = sorted(p for p in CASES.iterdir() if (p / "spec.yaml").exists())


def _render(case: Path) -> str:
    source = str((case / "spec.yaml").relative_to(ROOT))
    return render_config(make_plan(load_spec_file(case / "spec.yaml"), source))


@pytest.mark.parametrize("case", CASE_DIRS, ids=[p.name for p in CASE_DIRS])
def test_rendered_config_matches_golden(case: Path, update_goldens: bool) -> None:
    golden = case / "nginx.conf"
    rendered = _render(case)
    if update_goldens:
        golden.write_text(rendered, encoding="utf-8")
    expected = golden.read_text(encoding="utf-8") if golden.exists() else ""
    if rendered != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                rendered.splitlines(keepends=True),
                str(golden),
                "rendered",
                n=2,
            )
        )
        pytest.fail(
            f"{golden} is stale:\n{diff[:6000]}\nReview the change, then refresh it with:\n"
            "  .venv/bin/pytest tests/test_golden.py --update-goldens"
        )


@pytest.mark.parametrize("case", CASE_DIRS, ids=[p.name for p in CASE_DIRS])
def test_golden_config_passes_real_nginx(case: Path, nginx_binary: str) -> None:
    spec = load_spec_file(case / "spec.yaml")
    result = check_plan(make_plan(spec, str(case / "spec.yaml")), nginx=nginx_binary)
    assert result.ok, result.output


def test_every_example_is_a_golden_case() -> None:
    examples = {p.name: p.read_text() for p in (ROOT / "examples").glob("*.yaml")}
    assert examples, "examples/ is empty"
    for name, text in examples.items():
        case = CASES / Path(name).stem / "spec.yaml"
        assert case.exists(), f"examples/{name} has no golden case at {case}"
        assert case.read_text() == text, f"{case} differs from examples/{name}: copy it over"
