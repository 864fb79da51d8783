"""A link-local IPv6 node address keeps its interface, in the form ssh and Ansible take it.

fe80::/10 addresses are only reachable through an interface, which ssh reads after '%'
(`ssh fe80::1%eth0`, no brackets, no URL escape). modules/cdn_nodes writes such an address into
the inventory as it was given: Ansible must read it back unchanged and hand it to ssh as the
host, and ssh must read it as that host. What the interface may hold (no shell, no option) is
in tests/validation.tftest.hcl (test_cdn_nodes_messages.py).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import unavailable

from .conftest import TerraformTree, find_tool, run

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBx7mDWWlfKDD3qBbkJ+4PqS0mkWMGzdAv9kXpbX5l0c test"
DISKS = [{"device": "/dev/sdb", "size": "4TB", "media": "hdd"}]
ADDRESSES = {"edge-01": "fe80::1%eth0", "edge-02": "FEBF::2%enp0s31f6.100"}
# Records the words Ansible runs ssh with, one a line, and fails as an unreachable host does.
SSH_STUB = '#!/bin/sh\nfor word in "$@"; do printf "%s\\n" "$word"; done >"$0.argv"\nexit 255\n'


@pytest.fixture(scope="module")
def hosts_file(terraform_tree: TerraformTree, tmp_path_factory: pytest.TempPathFactory) -> Path:
    nodes = [
        {"name": "edge-01", "address": ADDRESSES["edge-01"], "workload": {"type": "origin"}},
        {"name": "edge-02", "workload": {"type": "origin"}},
    ]
    variables = {
        "nodes": [{**node, "disks": DISKS} for node in nodes],
        "addresses": {"edge-02": ADDRESSES["edge-02"]},
        "ssh_authorized_keys": [KEY],
        "tpgen_command": None,
    }
    dest = tmp_path_factory.mktemp("link_local")
    outputs = terraform_tree.planned_outputs("modules/cdn_nodes", variables, dest)
    path = dest / "hosts.yml"
    path.write_text(outputs["inventory_yaml"], encoding="utf-8")
    return path


def test_ansible_reads_the_address_back_unchanged(hosts_file: Path) -> None:
    listed = run([find_tool("ansible-inventory"), "-i", str(hosts_file), "--list"])
    hostvars: dict[str, Any] = json.loads(listed.stdout)["_meta"]["hostvars"]
    assert {name: host["ansible_host"] for name, host in hostvars.items()} == ADDRESSES


@pytest.mark.parametrize("name", sorted(ADDRESSES))
def test_ansible_hands_ssh_the_address_as_its_host(
    hosts_file: Path, tmp_path: Path, name: str
) -> None:
    stub = tmp_path / "ssh"
    stub.write_text(SSH_STUB, encoding="utf-8")
    stub.chmod(0o755)
    env = {**os.environ, "ANSIBLE_SSH_CONTROL_PATH_DIR": str(tmp_path / "cp")}
    args = [find_tool("ansible"), "-i", str(hosts_file), name, "-m", "ping"]
    result = run([*args, "-e", f"ansible_ssh_executable={stub}"], env=env, check=False)
    assert "UNREACHABLE" in result.stdout, result.output
    words = Path(f"{stub}.argv").read_text(encoding="utf-8").splitlines()
    # ssh's words: options, then the host, then the command to run there.
    assert words[-2] == ADDRESSES[name]
    assert words[-1].startswith("/bin/sh -c "), words


@pytest.mark.parametrize("name", sorted(ADDRESSES))
def test_ssh_reads_the_address_as_the_host(name: str) -> None:
    ssh = shutil.which("ssh")
    if ssh is None:
        unavailable("ssh is not installed: install openssh-client")
    shown = run([ssh, "-G", ADDRESSES[name]])
    assert f"hostname {ADDRESSES[name]}" in shown.stdout.splitlines()
