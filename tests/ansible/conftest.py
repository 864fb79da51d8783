"""Shared helpers for the Ansible plugin, role and inventory tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.ansible.node_checks import load_filters
from tests.conftest import unavailable

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def ansible_tool(name: str) -> str:
    """Path of an Ansible CLI next to this Python (the venv that also holds tpgen)."""
    path = BIN / name
    if path.exists():
        return str(path)
    found = shutil.which(name)
    if found is None:
        unavailable(f"{name} is not installed next to {sys.executable}")
    return found


def ansible_env(**extra: str) -> dict[str, str]:
    """Environment that runs Ansible with the repo's ansible.cfg and this Python's tpgen."""
    env = dict(os.environ)
    env.update(
        ANSIBLE_CONFIG=str(REPO / "ansible.cfg"),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_LOCAL_TEMP=str(Path(os.environ.get("TMPDIR", "/tmp")) / "tpgen-ansible-tests"),
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
    )
    env.update(extra)
    return env


def run_ansible(args: list[str], **extra_env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, env=ansible_env(**extra_env), cwd=REPO, text=True, capture_output=True, check=False
    )


def run_module(
    name: str, args: dict[str, Any], *, python: str = sys.executable, **env: str
) -> tuple[int, dict[str, Any]]:
    """Run tpgen.storage.NAME once on localhost, ``python`` the node's interpreter: ansible's
    exit code and the module's result as Ansible registers it."""
    proc = run_ansible(
        [
            *(ansible_tool("ansible"), "localhost", "-c", "local", "-i", "localhost,"),
            *("-e", f"ansible_python_interpreter={python}"),
            *("-m", f"tpgen.storage.{name}", "-a", json.dumps(args)),
        ],
        ANSIBLE_STDOUT_CALLBACK="json",
        ANSIBLE_LOAD_CALLBACK_PLUGINS="1",
        **env,
    )
    try:
        plays = json.loads(proc.stdout)["plays"]
    except ValueError:
        raise AssertionError(proc.stdout + proc.stderr) from None
    result: dict[str, Any] = plays[0]["tasks"][0]["hosts"]["localhost"]
    return proc.returncode, result


@pytest.fixture(scope="session")
def filters() -> ModuleType:
    return load_filters()
