"""Hostile values through modules/cdn_nodes: what the plan accepts reaches every output as data.

Every string of a node but its names carries one hostile value (quotes, newlines, $(), backticks,
';', YAML indicators, control and non-ASCII characters, long runs), and the SSH key comment
another; the module plans with the tpgen check off (tpgen_command = null), so nothing but the
module stands between the values and the outputs. Names get tpgen's rules at plan, with the
check off too (test_cdn_nodes_names.py). Each output must give the values back: the cloud-config
through PyYAML (cloud-init's reader), the bootstrap script through `sh -n`, `bash -n` and a run
in which every command that would change the machine is a stub that only records its arguments,
the inventory through `ansible-inventory`. What the module refuses instead is in
tests/validation.tftest.hcl (test_cdn_nodes_messages.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from tpgen.spec.model import CACHE_KEY_RE, PATTERN_FIXES

from .conftest import TERRAFORM_DIR, Result, TerraformTree, find_tool, run

TEMPLATES = TERRAFORM_DIR / "modules" / "cdn_nodes" / "templates"
RUN_PWNED = 'touch "$SANDBOX/pwned"'
HOSTILE = [
    "a'b",
    'a"b',
    "a\nb",
    "evil'\nreboot",
    f"$({RUN_PWNED})",
    f"`{RUN_PWNED}`",
    f"a;{RUN_PWNED}",
    f"a'; {RUN_PWNED}; '",
    f"x\nTPGEN_KEYS\n{RUN_PWNED}",
    "TPGEN_KEYS",
    "a: b",
    "#x",
    "{a}",
    "!tag",
    "-x",
    "*x",
    "&x",
    "- x",
    "? x",
    "|x",
    ">x",
    "%x",
    "@x",
    "'",
    "''",
    "\\",
    "a\\'b",
    "%{ if true }x%{ endif }",
    "${HOME}",
    "yes",
    "null",
    "~",
    "0x10",
    "é日本\U0001f600",
    "a\x7fb\x80c\x85d\x9fe",
    "a\u2028b\u2029c\ufeffd\ufffee\uffff",
    "a\rb\tc\x1bd\x01e",
    " lead",
    "trail ",
    "x" * 5000,
    "ab " * 3000,
    "a\x00b",
]
KEY = (
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBx7mDWWlfKDD3qBbkJ+4PqS0mkWMGzdAv9kXpbX5l0c josé "
    "`touch $SANDBOX/pwned` $(touch $SANDBOX/pwned); #x: {a} !t &a *b - TPGEN_KEYS "
    "\u2028\ufffe\ufeff"
)
# Commands of the bootstrap script that would change this machine: each only records its words.
STUBS = r"""
record() {
  { printf '%s' "$1"; shift; printf '\037%s' "$@"; printf '\036'; } >>"$SANDBOX/calls"
}
for stub in hostnamectl hostname useradd passwd chown chmod systemctl apt-get dnf; do
  eval "$stub() { record $stub \"\$@\"; }"
done
id() { return 1; }
getent() { printf '%s\n' "ansible:x:1000:1000::$SANDBOX/home:/bin/bash"; }
install() { record install "$@"; command mkdir -p "${@: -1}"; }
"""


def _node(index: int, value: str) -> dict[str, Any]:
    return {
        "name": f"node-{index}",
        "address": "192.0.2.10",
        "memory": value,
        "workload": {
            "type": value,
            "upstreams": [value],
            "avg_object_size": value,
            "cache_key": value,
            "inactive": value,
            "resolver": [value],
        },
        "disks": [
            {
                "device": value,
                "mount": value,
                "size": value,
                "media": value,
                "state": value,
                "filesystem": value,
            }
        ],
        "listen": [{"address": value, "port": 80}],
        "tls": {
            "certificates": [{"cert": value, "key": value}],
            "ticket_keys": [value],
            "ocsp_stapling": value,
            "trusted_certificate": value,
        },
        "nginx": {"version": value},
        "status": {"address": value},
    }


NODES = [_node(i, value) for i, value in enumerate(HOSTILE)]
NAMES = [node["name"] for node in NODES]


@pytest.fixture(scope="module")
def outputs(terraform_tree: TerraformTree, tmp_path_factory: pytest.TempPathFactory) -> Any:
    variables = {
        "nodes": NODES,
        "ssh_authorized_keys": [KEY],
        "tpgen_command": None,
        "tuning": {
            name: {"threads_per_disk": value} for name, value in zip(NAMES, HOSTILE, strict=True)
        },
    }
    dest = tmp_path_factory.mktemp("hostile")
    return terraform_tree.planned_outputs("modules/cdn_nodes", variables, dest, data="hostile")


def test_every_node_and_key_was_accepted(outputs: Any) -> None:
    assert sorted(outputs["user_data"]) == sorted(NAMES)
    assert len(set(NAMES)) == len(HOSTILE)


@pytest.mark.parametrize("index", range(len(HOSTILE)))
def test_cloud_config_reads_back_the_values(outputs: Any, index: int) -> None:
    name = NAMES[index]
    config = yaml.safe_load(outputs["user_data"][name])
    assert outputs["user_data"][name].startswith("#cloud-config\n")
    assert (config["hostname"], config["fqdn"]) == (name, name)
    (user,) = config["users"]
    assert (user["name"], user["ssh_authorized_keys"]) == ("ansible", [KEY])
    assert config["packages"] == ["python3", "sudo"]


def _run_stubbed(script: str, sandbox: Path) -> tuple[list[list[str]], str]:
    """Run the script with its machine-changing commands stubbed and /etc moved into sandbox."""
    template = (TEMPLATES / "bootstrap.sh.tftpl").read_text(encoding="utf-8")
    assert script.count(" /etc/") == template.count(" /etc/")
    sandbox.mkdir()
    harness = sandbox / "harness.sh"
    harness.write_text(STUBS + script.replace(" /etc/", ' "$SANDBOX"/etc/'), encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "SANDBOX": str(sandbox), "LC_ALL": "C.UTF-8"}
    result = run(["bash", str(harness)], env=env, check=False)
    assert (result.returncode, result.stderr) == (0, "")
    records = (sandbox / "calls").read_bytes().decode().split("\036")[:-1]
    return [record.split("\037") for record in records], result.stdout


@pytest.mark.parametrize("index", range(len(HOSTILE)))
def test_bootstrap_script_keeps_the_values_quoted(outputs: Any, tmp_path: Path, index: int) -> None:
    name = NAMES[index]
    script: str = outputs["bootstrap_script"][name]
    path = tmp_path / "bootstrap.sh"
    path.write_text(script, encoding="utf-8")
    for shell in ("sh", "bash"):
        assert run([shell, "-n", str(path)], check=False).returncode == 0, shell
    sandbox = tmp_path / "sandbox"
    calls, _ = _run_stubbed(script, sandbox)
    assert calls[0] == ["hostnamectl", "set-hostname", name]
    assert calls[1][:4] == ["useradd", "--create-home", "--shell", "/bin/bash"]
    assert calls[-1] == ["apt-get", "install", "-y", "-q", "python3", "sudo"]
    keys = (sandbox / "home" / ".ssh" / "authorized_keys").read_text(encoding="utf-8")
    assert keys == KEY + "\n"
    sudoers = (sandbox / "etc" / "sudoers.d" / "90-tpgen-ansible").read_text(encoding="utf-8")
    assert sudoers == "ansible ALL=(ALL) NOPASSWD:ALL\n"
    assert not (sandbox / "pwned").exists()


def test_ansible_reads_back_every_host_and_value(outputs: Any, tmp_path: Path) -> None:
    hosts_file = tmp_path / "hosts.yml"
    hosts_file.write_text(outputs["inventory_yaml"], encoding="utf-8")
    listed = run([find_tool("ansible-inventory"), "-i", str(hosts_file), "--list"])
    inventory = json.loads(listed.stdout)
    assert sorted(inventory["storage_nodes"]["hosts"]) == sorted(NAMES)
    expected = outputs["inventory"]["all"]["children"]["storage_nodes"]["hosts"]
    assert inventory["_meta"]["hostvars"] == expected
    spec = inventory["_meta"]["hostvars"][NAMES[10]]["tpgen_spec"]
    assert spec["workload"]["cache_key"] == spec["tls"]["ticket_keys"][0] == "a: b"


def _apply_nodes(tree: TerraformTree, tmp_path: Path, nodes: list[dict[str, Any]]) -> Result:
    """Apply nodes with the tpgen under test."""
    variables = {"nodes": nodes, "ssh_authorized_keys": [KEY], "tpgen_command": find_tool("tpgen")}
    return tree.apply("modules/cdn_nodes", variables, tmp_path, data="hostile")


def _origin(name: str, cache_key: str) -> dict[str, Any]:
    disks = [{"device": "/dev/sdb", "size": "4TB", "media": "hdd"}]
    workload = {"type": "cache", "upstreams": ["origin.example.net:8080"], "cache_key": cache_key}
    return {"name": name, "address": "192.0.2.10", "workload": workload, "disks": disks}


def test_apply_hands_any_value_to_tpgen(terraform_tree: TerraformTree, tmp_path: Path) -> None:
    """Quotes and $() reach tpgen's file as written; a value longer than one environment string
    (128 KiB) too, so tpgen, not exec, names the field."""
    nodes = [_origin("quoted", f"a'b\n$({RUN_PWNED})"), _origin("long", "x" * 200000)]
    result = _apply_nodes(terraform_tree, tmp_path, nodes)
    assert result.returncode != 0
    details = {d["address"]: d["detail"].split(". Output: ", 1)[1].strip() for d in result.errors}
    assert details == {
        'terraform_data.tpgen_validate["quoted"]': "quoted.yaml:13: workload.cache_key: "
        f"{nodes[0]['workload']['cache_key']!r} is not {PATTERN_FIXES[CACHE_KEY_RE]}",
        'terraform_data.tpgen_validate["long"]': (
            "long.yaml:13: workload.cache_key: write at most 1024 characters"
        ),
    }


def test_plan_refuses_a_spec_the_environment_cannot_carry(
    terraform_tree: TerraformTree, tmp_path: Path
) -> None:
    result = _apply_nodes(terraform_tree, tmp_path, [_origin("huge", "x" * 250001)])
    assert result.returncode != 0
    assert [(d["summary"], " ".join(d["detail"].split())) for d in result.errors] == [
        (
            "Resource precondition failed",
            "A node's tpgen spec is longer than 250000 characters: a string in nodes or tuning "
            "is far longer than any spec field takes. Shorten it.",
        )
    ]


# tpgen's longest host name: 253 characters, labels of up to 63.
LONGEST_NAME = ".".join(["a" * 63, "b" * 63, "c" * 63, "d" * 61])


def test_apply_checks_the_longest_name(terraform_tree: TerraformTree, tmp_path: Path) -> None:
    """The spec's file is named after the node, cut to what a file name holds: the longest
    name tpgen takes passes (a longer one is refused at plan: test_cdn_nodes_names.py)."""
    result = _apply_nodes(terraform_tree, tmp_path, [_origin(LONGEST_NAME, "$uri")])
    assert (result.returncode, result.errors) == (0, [])
