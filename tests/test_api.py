"""tpgen.api: the one import of the plugins and the bench, and what it promises."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from tpgen import api
from tpgen.errors import SpecError

from .conftest import ROOT

# A plan-stage refusal (the model takes it): keys zones for 500 TB of 4 KiB objects do not fit
# in 8 GiB of RAM. avg_object_size sits on line 5.
OVER_BUDGET = """\
node: {name: n1, cores: 4, memory: 8GiB}
workload:
  type: cache
  upstreams: ["o.example.net:80"]
  avg_object_size: 4KiB
disks:
  - {name: d1, device: /dev/sdb, mount: /srv/cache/d1, size: 500TB, media: hdd}
"""


def _tpgen_imports(path: Path) -> set[str]:
    """The tpgen modules a file imports (``tpgen.api`` for ``from tpgen import api``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "tpgen")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "tpgen":
            if node.module == "tpgen":
                found.update(f"tpgen.{a.name}" for a in node.names)
            else:
                found.add(str(node.module))
    return found


@pytest.mark.parametrize("folder", ["plugins", "bench"])
def test_plugins_and_bench_import_only_tpgen_api(folder: str) -> None:
    files = sorted((ROOT / folder).rglob("*.py"))
    imports = {str(f.relative_to(ROOT)): _tpgen_imports(f) for f in files}
    assert any(imports.values()), f"{folder}/ imports no tpgen module at all"
    assert {f: i - {"tpgen.api"} for f, i in imports.items() if i - {"tpgen.api"}} == {}


def test_every_exported_name_exists_and_the_dead_ones_are_gone() -> None:
    assert [name for name in api.__all__ if not hasattr(api, name)] == []
    dead = ("plan_for", "render_from_mapping", "check_config", "disk_layout")
    assert [name for name in dead if hasattr(api, name)] == []


def test_make_plan_names_the_line_of_a_plan_stage_refusal(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(OVER_BUDGET, encoding="utf-8")
    document = api.read_spec_document(str(path))
    spec = api.spec_from_mapping(document.data, str(path), document.lines)
    with pytest.raises(SpecError) as without_lines:
        api.make_plan(spec, str(path))
    assert str(without_lines.value).startswith(
        f"{path}: workload.avg_object_size: keys_zones need "
    )
    with pytest.raises(SpecError) as with_lines:
        api.make_plan(spec, str(path), document.lines)
    assert str(with_lines.value).startswith(f"{path}:5: workload.avg_object_size: keys_zones need ")
    with pytest.raises(SpecError) as loaded:
        api.load_plan(str(path))
    assert str(loaded.value) == str(with_lines.value)


def test_load_plan_is_the_plan_of_the_file() -> None:
    example = ROOT / "examples" / "cache-3hdd.yaml"
    plan = api.load_plan(str(example))
    assert plan.source == str(example)
    assert plan == api.make_plan(api.load_spec_file(example), str(example))
