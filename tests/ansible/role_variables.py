"""Run each role's check-variables entry point on localhost, one inventory host per case."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.ansible.conftest import ansible_tool, run_ansible

PLAY = [
    {
        "name": "Check one role's variables per host",
        "hosts": "all",
        "gather_facts": False,
        "tasks": [
            {
                "name": "Check the variables",
                "ansible.builtin.include_role": {
                    "name": "tpgen.storage.{{ tpgen_test_role }}",
                    "tasks_from": "check-variables",
                },
            }
        ],
    }
]


def _first_failure(tasks: list[dict[str, Any]], host: str) -> str | None:
    for task in tasks:
        result = task["hosts"].get(host, {})
        for item in result.get("results", [result]):
            if item.get("failed"):
                return str(item.get("msg"))
    return None


def check_variables(cases: list[tuple[str, dict[str, Any]]], tmp: Path) -> list[str | None]:
    """The first failure message of each (role, variables) case, None when it was accepted."""
    hosts = {
        f"case{index}": {
            **variables,
            "tpgen_test_role": role,
            "ansible_connection": "local",
            "ansible_python_interpreter": sys.executable,
        }
        for index, (role, variables) in enumerate(cases)
    }
    (tmp / "hosts.yml").write_text(json.dumps({"all": {"hosts": hosts}}))
    (tmp / "play.yml").write_text(yaml.safe_dump(PLAY))
    proc = run_ansible(
        [ansible_tool("ansible-playbook"), "-i", str(tmp / "hosts.yml"), str(tmp / "play.yml")],
        ANSIBLE_STDOUT_CALLBACK="json",
        ANSIBLE_LOAD_CALLBACK_PLUGINS="1",
    )
    try:
        tasks = json.loads(proc.stdout)["plays"][0]["tasks"]
    except (ValueError, KeyError, IndexError):
        raise AssertionError(proc.stdout + proc.stderr) from None
    return [_first_failure(tasks, host) for host in hosts]
