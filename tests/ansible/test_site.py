"""site.yml: parses with every role and plugin it names, and keeps its fleet settings."""

from __future__ import annotations

import yaml

from tests.ansible.conftest import REPO, ansible_tool, run_ansible


def test_site_yml_passes_the_syntax_check_with_both_inventories() -> None:
    for inventory in ("example", "molecule"):
        proc = run_ansible(
            [
                ansible_tool("ansible-playbook"),
                "--syntax-check",
                "-i",
                str(REPO / "inventories" / inventory),
                str(REPO / "site.yml"),
            ]
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_site_yml_is_the_thin_entry_of_the_collection_s_playbook() -> None:
    (entry,) = yaml.safe_load((REPO / "site.yml").read_text())
    assert entry["ansible.builtin.import_playbook"] == "tpgen.storage.site"


def test_site_yml_checks_the_spec_first_then_runs_the_roles_in_order() -> None:
    (play,) = yaml.safe_load((REPO / "playbooks" / "site.yml").read_text())
    assert play["hosts"] == "storage_nodes"
    assert play["serial"] == "{{ tpgen_serial | default('25%') }}"
    assert play["max_fail_percentage"] == "{{ tpgen_max_fail_percentage | default(0) }}"
    # tests/ansible/test_role_variables.py: the pre_tasks before it check every role's variables
    pre_task = play["pre_tasks"][-1]
    assert pre_task["ansible.builtin.include_role"] == {
        "name": "tpgen.storage.nginx_tpconfig",
        "tasks_from": "spec",
    }
    assert [role["role"] for role in play["roles"]] == [
        "tpgen.storage.nginx_install",
        "tpgen.storage.storage_disks",
        "tpgen.storage.nginx_tpconfig",
        "tpgen.storage.tpgen_metrics",
    ]
    assert play["roles"][3]["when"] == "tpgen_metrics_enabled | default(true) | bool"
    # storage_disks makes the directories of the layout the rendered config was made with.
    assert play["roles"][1]["vars"] == {"storage_disks_layout": "{{ nginx_tpconfig_layout }}"}
