"""Every case renders to its checked-in config byte for byte, and real nginx accepts it."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import crossplane
import pytest
from tpgen.plan import make_plan
from tpgen.render import render_config
from tpgen.render.explain import explain_rows, format_table
from tpgen.spec.edge import HTTP3_SINCE, version_tuple
from tpgen.spec.load import load_spec_file

from .accepts import own_refusals, snippets_and_nginx
from .conftest import CASES, ROOT

CASE_DIRS = sorted(p for p in CASES.iterdir() if (p / "spec.yaml").exists())


def _render(case: Path) -> str:
    source = str((case / "spec.yaml").relative_to(ROOT))
    return render_config(make_plan(load_spec_file(case / "spec.yaml"), source))


def _matches_golden(golden: Path, produced: str, update: bool) -> None:
    if update:
        golden.write_text(produced, encoding="utf-8")
    expected = golden.read_text(encoding="utf-8") if golden.exists() else ""
    if produced != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                produced.splitlines(keepends=True),
                str(golden),
                "produced",
                n=2,
            )
        )
        pytest.fail(
            f"{golden} is stale:\n{diff[:6000]}\nReview the change, then refresh it with:\n"
            "  .venv/bin/pytest tests/test_golden.py --update-goldens"
        )


@pytest.mark.parametrize("case", CASE_DIRS, ids=[p.name for p in CASE_DIRS])
def test_rendered_config_matches_golden(case: Path, update_goldens: bool) -> None:
    _matches_golden(case / "nginx.conf", _render(case), update_goldens)


@pytest.mark.parametrize("case", CASE_DIRS, ids=[p.name for p in CASE_DIRS])
def test_explain_matches_golden(case: Path, update_goldens: bool) -> None:
    """`tpgen explain` of the case, as the command prints it."""
    plan = make_plan(load_spec_file(case / "spec.yaml"), "spec.yaml")
    _matches_golden(case / "explain.txt", format_table(explain_rows(plan)) + "\n", update_goldens)


# Directives that only wire the plan's decisions together: blocks, the bucket maps, the proxy and
# file plumbing, a location's fixed answers. Every other directive has a row in `tpgen explain`.
WIRING = {
    "events", "http", "server", "location", "upstream", "types", "split_clients", "map", "if",
    "return", "error_page", "proxy_pass", "proxy_http_version", "proxy_set_header",
    "proxy_cache", "root", "try_files", "server_name", "stub_status", "deny",
}  # fmt: skip


def _directives(block: list[dict[str, Any]]) -> Iterator[str]:
    for directive in block:
        yield directive["directive"]
        if directive["directive"] not in (
            "types",
            "split_clients",
            "map",
            "geo",
        ):  # entries, not directives
            yield from _directives(directive.get("block") or [])


@pytest.mark.parametrize("case", CASE_DIRS, ids=[p.name for p in CASE_DIRS])
def test_explain_lists_every_directive_the_config_writes(case: Path) -> None:
    parsed = crossplane.parse(str(case / "nginx.conf"), single=True, check_ctx=False)
    assert parsed["status"] == "ok", parsed["errors"]
    written = set(_directives(parsed["config"][0]["parsed"]))
    plan = make_plan(load_spec_file(case / "spec.yaml"), "spec.yaml")
    explained = {word for row in explain_rows(plan) for word in row[0].split()}
    assert written - WIRING - explained == set()


# Cases for nginx ≥ 1.25 (http2 on;, QUIC) go through Debian 13's nginx: test_nginx_versions.py.
HOST_NGINX_CASES = [
    p
    for p in CASE_DIRS
    if version_tuple(load_spec_file(p / "spec.yaml").nginx.version) < HTTP3_SINCE
]


def _node_files(case: Path) -> Callable[[str], str]:
    """A case's files on the node (spec extra) sit under its files/ at their node paths."""
    return lambda path: str(case / "files" / path.lstrip("/"))


@pytest.mark.parametrize("case", HOST_NGINX_CASES, ids=[p.name for p in HOST_NGINX_CASES])
def test_golden_config_passes_real_nginx(case: Path, nginx_binary: str) -> None:
    spec = load_spec_file(case / "spec.yaml")
    plan = make_plan(spec, str(case / "spec.yaml"))
    _, found, result = snippets_and_nginx(spec, plan, _node_files(case), nginx_binary)
    assert found == []
    assert result.ok, result.output


@pytest.mark.parametrize("case", CASE_DIRS, ids=[p.name for p in CASE_DIRS])
def test_tpgen_s_own_config_passes_the_shape_it_checks_snippets_for(case: Path) -> None:
    """What tpgen refuses in a snippet as nginx would (spec/directives.py) it never writes
    itself: every case's config, read whole, for its own nginx version."""
    spec = load_spec_file(case / "spec.yaml")
    assert own_refusals(_render(case), spec.nginx.version) == []


def test_every_example_is_a_golden_case() -> None:
    examples = {p.name: p.read_text() for p in (ROOT / "examples").glob("*.yaml")}
    assert examples, "examples/ is empty"
    for name, text in examples.items():
        case = CASES / Path(name).stem / "spec.yaml"
        assert case.exists(), f"examples/{name} has no golden case at {case}"
        assert case.read_text() == text, f"{case} differs from examples/{name}: copy it over"
