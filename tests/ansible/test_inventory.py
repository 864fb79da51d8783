"""inventories/example: parses, and every host's spec is one tpgen accepts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from tests.ansible.conftest import REPO, ansible_tool, run_ansible

# What facts typically report on the example hardware; the role fills node.cores/memory from
# facts only when a spec leaves them out, so these count only for such specs.
FACTS = {"cores": 16, "memory_mb": 65536}


@pytest.fixture(scope="module")
def hostvars() -> dict[str, Any]:
    proc = run_ansible(
        [ansible_tool("ansible-inventory"), "-i", str(REPO / "inventories" / "example"), "--list"]
    )
    assert proc.returncode == 0, proc.stderr
    inventory = json.loads(proc.stdout)
    assert sorted(inventory["storage_nodes"]["hosts"]) == [
        "edge-ams-01.example.net",
        "edge-par-02.example.net",
        "vod-fra-01.example.net",
    ]
    result: dict[str, Any] = inventory["_meta"]["hostvars"]
    return result


HOSTS = sorted(path.stem for path in (REPO / "inventories" / "example" / "host_vars").glob("*.yml"))


def test_the_example_fleet_covers_the_three_kinds_of_node(hostvars: dict[str, Any]) -> None:
    kinds = {
        host: (
            hostvars[host]["tpgen_spec"]["workload"]["type"],
            sorted({disk["media"] for disk in hostvars[host]["tpgen_spec"]["disks"]}),
            len(hostvars[host]["tpgen_spec"]["disks"]),
        )
        for host in HOSTS
    }
    assert kinds == {
        "edge-ams-01.example.net": ("cache", ["hdd"], 3),
        "vod-fra-01.example.net": ("vod", ["hdd"], 12),
        "edge-par-02.example.net": ("cache", ["hdd", "nvme"], 5),
    }


@pytest.mark.parametrize("host", HOSTS)
def test_each_host_spec_passes_tpgen_validate(
    host: str, hostvars: dict[str, Any], filters: ModuleType, tmp_path: Path
) -> None:
    spec = filters.tpgen_node_spec(
        hostvars[host]["tpgen_spec"], name=host, cores=FACTS["cores"], memory_mb=FACTS["memory_mb"]
    )
    spec_file = tmp_path / f"{host}.yaml"
    spec_file.write_text(yaml.safe_dump(spec))
    proc = subprocess.run(
        [sys.executable, "-m", "tpgen", "validate", str(spec_file)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("host", HOSTS)
def test_each_host_has_health_paths_the_layout_reaches_on_the_node(
    host: str, hostvars: dict[str, Any], filters: ModuleType
) -> None:
    paths = hostvars[host]["nginx_tpconfig_health_paths"]
    assert paths, f"{host} needs at least one content path for the health check"
    assert all(path.startswith("/") and "://" not in path for path in paths), paths
    spec = filters.tpgen_node_spec(
        hostvars[host]["tpgen_spec"], name=host, cores=FACTS["cores"], memory_mb=FACTS["memory_mb"]
    )
    listen = hostvars[host]["tpgen_spec"]["listen"]
    assert listen["address"] == "0.0.0.0", "the example nodes listen on every address"
    assert filters.tpgen_node_layout(spec)["listen_urls"] == [f"http://127.0.0.1:{listen['port']}/"]
