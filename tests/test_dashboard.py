"""dashboards/tpgen-storage-node.json: valid JSON, a sound layout, and every query it makes
names a series tpgen writes and parses as PromQL (promtool)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from tpgen.ops import doctor as dr
from tpgen.ops.doctor import prometheus as prom
from tpgen.plan.defaults import LOG_FIELDS

from .conftest import unavailable
from .test_doctor import RENDERED, disk_entry, layout_dict
from .test_metrics import GUARD, MetricsSystem

DASHBOARD = Path(__file__).resolve().parents[1] / "dashboards" / "tpgen-storage-node.json"
# Grafana's variables, as a query sees them once Grafana filled them in
VARIABLES = {"$__rate_interval": "5m", "$instance": ".*", "$disk": ".*"}


@pytest.fixture(scope="module")
def dashboard() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return data


def prometheus_queries(dashboard: dict[str, Any]) -> list[str]:
    return [
        target["expr"]
        for panel in dashboard["panels"]
        for target in panel.get("targets", [])
        if target["datasource"]["type"] == "prometheus"
    ]


def written_series() -> set[str]:
    """Every family doctor writes, on a node with each disk state and a guard state file."""
    layout = dr.read_layout(
        layout_dict(
            disk_entry("d1"), disk_entry("d2", state="draining"), disk_entry("d3", state="failed")
        )
    )
    guard = (Path(__file__).parent / "fixtures" / "ops" / "guard-state.json").read_text()
    text = prom.metrics_text(
        dr.DoctorInputs(layout=layout, expected_config=RENDERED),
        MetricsSystem(files={GUARD: guard}),
        guard_state=GUARD,
    )
    return {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE ")}


def test_dashboard_is_a_grafana_dashboard_with_unique_panels(dashboard: dict[str, Any]) -> None:
    assert (dashboard["uid"], dashboard["title"]) == ("tpgen-storage-node", "tpgen storage node")
    assert isinstance(dashboard["schemaVersion"], int)
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        grid = panel["gridPos"]
        assert grid["x"] >= 0 and grid["w"] > 0 and grid["x"] + grid["w"] <= 24, panel["title"]
    variables = {v["name"] for v in dashboard["templating"]["list"]}
    assert variables == {"prometheus", "loki", "instance", "disk", "log_stream"}


def test_panels_do_not_overlap(dashboard: dict[str, Any]) -> None:
    cells: dict[tuple[int, int], str] = {}
    for panel in dashboard["panels"]:
        grid = panel["gridPos"]
        for x in range(grid["x"], grid["x"] + grid["w"]):
            for y in range(grid["y"], grid["y"] + grid["h"]):
                assert (x, y) not in cells, (panel["title"], cells.get((x, y)))
                cells[(x, y)] = panel["title"]


def test_every_tpgen_series_the_dashboard_reads_is_one_doctor_writes(
    dashboard: dict[str, Any],
) -> None:
    read = {
        name for expr in prometheus_queries(dashboard) for name in re.findall(r"tpgen_\w+", expr)
    }
    assert read, "the dashboard reads no tpgen series"
    assert read - written_series() == set()
    per_disk = {name for name in written_series() if name.startswith("tpgen_disk_")}
    # every per-disk series has a panel but the raw bucket count (the share is shown) and the
    # inode minimum (the panel shows the free share)
    assert per_disk - read == {"tpgen_disk_files_min_free", "tpgen_disk_buckets"}


def test_every_prometheus_query_parses(dashboard: dict[str, Any], tmp_path: Path) -> None:
    """promtool checks PromQL in rule files: each query becomes a recording rule."""
    tool = shutil.which("promtool")
    if tool is None:
        unavailable("promtool not found (Debian: prometheus; scripts/ci/deps.sh install system)")
    rules = []
    for number, expr in enumerate(prometheus_queries(dashboard)):
        for variable, value in VARIABLES.items():
            expr = expr.replace(variable, value)
        assert "$" not in expr, expr
        rules.append({"record": f"tpgen:dashboard_query_{number}", "expr": expr})
    path = tmp_path / "queries.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    result = subprocess.run(
        [tool, "check", "rules", str(path)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(rules)} rules found" in result.stdout


def test_loki_panel_reads_fields_of_tpgen_s_json_access_log(dashboard: dict[str, Any]) -> None:
    """logging.format json (plan.defaults.LOG_FIELDS) has the fields the LogQL query extracts."""
    queries = [
        target["expr"]
        for panel in dashboard["panels"]
        for target in panel.get("targets", [])
        if target["datasource"]["type"] == "loki"
    ]
    assert queries
    for expr in queries:
        (fields,) = re.findall(r"\| json ([\w, ]+) \|", expr)
        assert {f.strip() for f in fields.split(",")} <= {name for name, _ in LOG_FIELDS}, expr
