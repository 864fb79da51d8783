"""Render a role's templates with Ansible itself (the role's defaults and vars, then overrides)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

from tests.ansible.conftest import REPO, ansible_tool, run_ansible


def render(role: str, templates: list[str], variables: dict[str, Any], out: Path) -> dict[str, str]:
    """Each template of ``role`` rendered into ``out``, by name, as the role's task would."""
    role_dir = REPO / "roles" / role
    play = [
        {
            "name": f"Render templates of {role}",
            "hosts": "localhost",
            "gather_facts": False,
            "vars_files": [
                str(role_dir / "defaults" / "main.yml"),
                str(role_dir / "vars" / "main.yml"),
            ],
            "tasks": [
                {
                    "name": "Render",
                    "ansible.builtin.template": {
                        "src": str(role_dir / "templates" / f"{name}.j2"),
                        "dest": str(out / name),
                        "mode": "0644",
                    },
                }
                for name in templates
            ],
        }
    ]
    (out / "play.yml").write_text(yaml.safe_dump(play))
    (out / "vars.json").write_text(json.dumps(variables))
    proc = run_ansible(
        [
            *(ansible_tool("ansible-playbook"), "-i", "localhost,", "-c", "local"),
            *("-e", f"ansible_python_interpreter={sys.executable}", "-e", f"@{out / 'vars.json'}"),
            str(out / "play.yml"),
        ]
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return {name: (out / name).read_text() for name in templates}
