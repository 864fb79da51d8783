"""Every validation rule of modules/cdn_nodes fires on its own case, with the message a user sees.

`terraform test` (tests/validation.tftest.hcl) only proves that *some* rule of a variable failed.
This replays each of its runs with `terraform plan -json` and checks that exactly one error was
raised and that it is the intended rule's message, and that no validation rule is left without
a case.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from . import hcl
from .conftest import TERRAFORM_DIR, Result, TerraformTree

MODULE = TERRAFORM_DIR / "modules" / "cdn_nodes"
CASES_FILE = MODULE / "tests" / "validation.tftest.hcl"

NODE_USER_RULE = "nodes[*].ansible_user must be a plain, non-root Linux user"
NAME_RULE = "nodes[*].name must be a lowercase host name"
GROUP_RULE = "Node names must not be all or ungrouped"
DISK_NAME_RULE = "nodes[*].disks[*].name must be a disk name"
SERVER_NAME_RULE = "nodes[*].tls.certificates[*].server_names entries must be lowercase host"
ADDRESS_RULE = "nodes[*].address must be an IP address or a DNS host name"
ADDRESSES_RULE = "addresses values must be IP addresses or DNS host names"

# run name -> the start of the one error message it must produce (None: the plan must succeed).
EXPECTED: dict[str, str | None] = {
    "accepts_the_base_input": None,
    "rejects_empty_node_list": "nodes is empty",
    "rejects_duplicate_node_names": "Node names must be unique",
    "rejects_node_without_disks": "Every node needs at least one data disk",
    "rejects_disks_and_disk_set_together": "A node may give `disks` or `disk_set`, not both",
    "rejects_disk_set_beyond_sdz": "disk_set: count must be a whole number",
    "rejects_bad_node_ansible_user": NODE_USER_RULE,
    "rejects_root_as_ansible_user": "ansible_user must be a plain, non-root Linux user name",
    "rejects_empty_ssh_keys": "ssh_authorized_keys is empty",
    "rejects_private_key_as_ssh_key": "Each SSH key must be one OpenSSH public-key line",
    "rejects_bad_bootstrap_package": "bootstrap_packages entries must be plain package names",
    "rejects_tuning_for_unknown_node": "tuning must map node names",
    "rejects_node_without_address": "A node has no address",
    "rejects_address_for_unknown_node": "`addresses` has a key that names no node",
    "rejects_control_character_in_ssh_key": "Each SSH key must be one OpenSSH public-key line",
    "rejects_root_as_node_ansible_user": NODE_USER_RULE,
    "rejects_node_name_ansible_reads_as_a_port": NAME_RULE,
    "rejects_node_name_ansible_reads_as_a_range": NAME_RULE,
    "rejects_node_named_after_a_group": GROUP_RULE,
    "rejects_shell_in_node_address": ADDRESS_RULE,
    "rejects_ssh_option_as_node_address": ADDRESS_RULE,
    "rejects_command_as_address": ADDRESSES_RULE,
    "rejects_template_in_a_spec_string": "A string in nodes holds '{{', '{%' or '{#'",
    "rejects_template_in_tuning": "A string in tuning holds '{{', '{%' or '{#'",
    "accepts_ip_and_dns_addresses": None,
    "rejects_blank_tpgen_command": "tpgen_command is blank",
    "rejects_fractional_disk_set_first_index": "disk_set: count must be a whole number",
    "rejects_fractional_disk_set_first_index_of_sd_disks": "disk_set: count must be a whole number",
    "rejects_node_name_tpgen_refuses": NAME_RULE,
    "rejects_node_name_longer_than_a_host_name": NAME_RULE,
    "rejects_disk_name_tpgen_refuses": DISK_NAME_RULE,
    "rejects_disk_name_nginx_map_reserves": DISK_NAME_RULE,
    "rejects_server_name_tpgen_refuses": SERVER_NAME_RULE,
    "accepts_link_local_addresses_with_their_interface": None,
    "rejects_interface_on_a_global_address": ADDRESS_RULE,
    "rejects_shell_in_the_interface_of_a_node_address": ADDRESS_RULE,
    "rejects_an_interface_longer_than_linux_allows": ADDRESS_RULE,
    "rejects_a_command_in_the_interface_of_an_address": ADDRESSES_RULE,
    "rejects_user_data_longer_than_the_limit": "The user data of ",
    "rejects_fractional_user_data_max_bytes": "user_data_max_bytes must be a whole number",
}


def _message(rule: dict[str, object]) -> str:
    """A rule's error_message as written; the parser wraps one with interpolations in ${"..."}."""
    text = " ".join(str(hcl.attr(rule, "error_message")).split())
    return text.removeprefix('${"').removesuffix('"}')


def _validation_messages() -> list[str]:
    messages: list[str] = []
    for path in sorted(MODULE.glob("*.tf")):
        for _, body in hcl.blocks(hcl.load(path), "variable"):
            messages.extend(_message(rule) for rule in body.get("validation", []))
        for _, body in hcl.blocks(hcl.load(path), "output"):
            messages.extend(_message(rule) for rule in body.get("precondition", []))
    return messages


def test_every_run_has_an_expected_message() -> None:
    assert sorted(hcl.run_variables(CASES_FILE)) == sorted(EXPECTED)


def test_every_rule_has_a_case() -> None:
    messages = _validation_messages()
    uncovered = [m for m in messages if not any(e and m.startswith(e) for e in EXPECTED.values())]
    assert uncovered == [], "validation rules without a case in validation.tftest.hcl"
    stale = [e for e in EXPECTED.values() if e and not any(m.startswith(e) for m in messages)]
    assert stale == [], "cases whose rule is gone"


def test_nodes_rules_check_structure_only() -> None:
    """The spec's own rules are tpgen's (test_tpgen_rules.py): var.nodes may only check what
    Terraform owns: the list, node names, which disks a node gives, disk_set, the SSH user, the
    address (the inventory's ansible_host); and tpgen's name rules (test_cdn_nodes_names.py)."""
    nodes = dict(hcl.blocks(hcl.load(MODULE / "variables.tf"), "variable"))["nodes"]
    read: set[str] = set()
    for rule in nodes["validation"]:
        condition = str(hcl.attr(rule, "condition"))
        read |= set(re.findall(r"\bn\.([a-z_]+)", condition))
        per_disk = set(re.findall(r"\bd\.([a-z_]+)", condition))
        assert per_disk <= {"name"}, f"a per-disk rule is tpgen's: {condition}"
    assert read == {"name", "disks", "disk_set", "ansible_user", "address", "tls"}


def _errors(result: Result) -> list[str]:
    return [
        " ".join(f"{d.get('summary', '')}: {d.get('detail', '')}".split()) for d in result.errors
    ]


@pytest.mark.parametrize("run_name", sorted(EXPECTED))
def test_case_fails_with_its_own_message(
    terraform_tree: TerraformTree, tmp_path: Path, run_name: str
) -> None:
    variables = hcl.run_variables(CASES_FILE)[run_name]
    result = terraform_tree.plan("modules/cdn_nodes", variables, tmp_path)
    errors = _errors(result)
    expected = EXPECTED[run_name]
    if expected is None:
        assert result.returncode == 0, errors or result.output
        return
    assert result.returncode != 0
    assert len(errors) == 1, errors
    assert expected in errors[0], errors[0]
