"""Names in modules/cdn_nodes: the plan refuses what tpgen refuses, with or without tpgen.

A node's name is its host name in the user data and the inventory, whether or not apply runs
`tpgen validate` (tpgen_command = null skips it), so the module holds tpgen's own name rules:
node.name, disks[*].name and tls.certificates[*].server_names. Each case here is judged by
tpgen itself and by the plan, once with the check off and once with it on: a name tpgen refuses
gets the module's one message at plan, a name it accepts applies (tpgen's check included).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from tpgen.api import load_plan
from tpgen.errors import SpecError
from tpgen.spec.model import DISK_NAME_RE, HOSTNAME_RE, RESERVED_DISK_NAMES, SERVER_NAME_RE

from . import hcl
from .conftest import TERRAFORM_DIR, TerraformTree, find_tool

VARIABLES = TERRAFORM_DIR / "modules" / "cdn_nodes" / "variables.tf"
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBx7mDWWlfKDD3qBbkJ+4PqS0mkWMGzdAv9kXpbX5l0c test"
NODE_NAME = (
    "nodes[*].name must be a lowercase host name (labels of a-z, 0-9 and '-', joined by '.', "
    "each at most 63 characters, 253 in all), tpgen's rule for node.name: write e.g. edge-ams-01."
)
DISK_NAME = (
    "nodes[*].disks[*].name must be a disk name (a lowercase letter, then up to 31 of a-z, 0-9 "
    "and '_'), not default, hostnames, include or volatile (words of nginx's map block), "
    "tpgen's rule for disks[*].name: write e.g. d1."
)
SERVER_NAME = (
    "nodes[*].tls.certificates[*].server_names entries must be lowercase host names, or one "
    "after '*.' (labels of a-z, 0-9 and '-', joined by '.', 253 characters in all), tpgen's "
    "rule for server_names: write e.g. cdn.example.com or *.example.com."
)
LABEL = "a" * 63
# field -> [(value, whether tpgen takes it)]
CASES: dict[str, list[tuple[str, bool]]] = {
    "node.name": [
        ("edge-ams-01", True),
        ("192.0.2.1", True),
        (".".join([LABEL, LABEL, LABEL, "a" * 61]), True),
        (".".join([LABEL, LABEL, LABEL, "a" * 62]), False),
        ("a" * 64, False),
        ("Edge-01", False),
        ("edge_01", False),
        ("-edge", False),
        ("--help", False),
        ("edge-", False),
        ("edge..01", False),
        ("edge.", False),
        ("edge-01\n", False),
        ("nel\x85x", False),
        ("edge-01:2222", False),
    ],
    "disks.0.name": [
        ("d1", True),
        ("hdd_07", True),
        ("d" * 32, True),
        ("d" * 33, False),
        ("Disk-1", False),
        ("1d", False),
        ("d1\n", False),
        *((word, False) for word in RESERVED_DISK_NAMES),
    ],
    "tls.certificates.0.server_names.0": [
        ("cdn.example.com", True),
        ("*.example.com", True),
        ("CDN.example.com", False),
        ("*example.com", False),
        ("www.*.example.com", False),
        ("*." + ".".join([LABEL, LABEL, LABEL, "a" * 59]), True),
        ("*." + ".".join([LABEL, LABEL, LABEL, "a" * 60]), False),
    ],
}
MESSAGES = {"node.name": NODE_NAME, "disks.0.name": DISK_NAME}
MESSAGES["tls.certificates.0.server_names.0"] = SERVER_NAME


def _node(field: str, value: str) -> dict[str, Any]:
    """A node tpgen accepts, but for the value at field."""
    node: dict[str, Any] = {
        "name": "edge-01",
        "address": "192.0.2.10",
        "workload": {"type": "origin"},
        "disks": [{"name": "d1", "device": "/dev/sdb", "size": "4TB", "media": "hdd"}],
        "listen": [{"port": 443, "tls": True}],
        "tls": {
            "certificates": [
                {
                    "cert": "/etc/nginx/tls/edge.crt",
                    "key": "/etc/nginx/tls/edge.key",
                    "server_names": ["cdn.example.com"],
                }
            ]
        },
    }
    {
        "node.name": lambda: node.update(name=value),
        "disks.0.name": lambda: node["disks"][0].update(name=value),
        "tls.certificates.0.server_names.0": lambda: node["tls"]["certificates"][0].update(
            server_names=[value]
        ),
    }[field]()
    return node


def _tpgen_accepts(node: dict[str, Any], tmp_path: Path) -> bool:
    """tpgen's verdict on the node's spec, as the module writes it for the check."""
    spec = copy.deepcopy(node)
    spec["node"] = {"name": spec.pop("name"), "cores": 1, "memory": "64TiB"}
    del spec["address"]
    spec["disks"][0]["mount"] = "/srv/data/d1"
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    try:
        load_plan(str(path))
    except SpecError:
        return False
    return True


def test_the_copies_are_tpgens_rules() -> None:
    (local,) = hcl.load(VARIABLES)["locals"]
    copied = {name: hcl.unescape(hcl.attr(local, name)) for name in local}
    assert copied["host_name_re"] == HOSTNAME_RE
    assert copied["disk_name_re"] == DISK_NAME_RE
    assert copied["server_name_re"] == SERVER_NAME_RE
    assert tuple(copied["reserved_disk_names"]) == RESERVED_DISK_NAMES


@pytest.mark.parametrize("check", ["without tpgen", "with tpgen"])
@pytest.mark.parametrize(
    ("field", "value", "accepted"),
    [(field, value, accepted) for field, cases in CASES.items() for value, accepted in cases],
)
def test_plan_refuses_what_tpgen_refuses(
    terraform_tree: TerraformTree,
    tmp_path: Path,
    check: str,
    field: str,
    value: str,
    accepted: bool,
) -> None:
    node = _node(field, value)
    assert _tpgen_accepts(node, tmp_path) is accepted
    tpgen = find_tool("tpgen") if check == "with tpgen" else None
    variables = {"nodes": [node], "ssh_authorized_keys": [KEY], "tpgen_command": tpgen}
    # With tpgen, apply: a name the module takes must pass tpgen's check too.
    run = terraform_tree.apply if tpgen else terraform_tree.plan
    result = run("modules/cdn_nodes", variables, tmp_path, data="names")
    if accepted:
        assert (result.returncode, result.errors) == (0, []), result.output
        return
    assert result.returncode != 0
    # Terraform adds where the rule is: " This was checked by the validation rule at ...".
    assert [
        (d["summary"], " ".join(d["detail"].split()).partition(" This was checked")[0])
        for d in result.errors
    ] == [("Invalid value for variable", MESSAGES[field])]
