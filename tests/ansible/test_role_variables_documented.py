"""Each role reads exactly the variables its meta/argument_specs.yml documents, each with a type."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tests.ansible.conftest import REPO

ROLES = sorted(path.parent.parent for path in REPO.glob("roles/*/meta/argument_specs.yml"))


def role_text(role: Path) -> str:
    """What the role's tasks, handlers, templates and vars read (not its defaults or docs)."""
    parts = ("tasks", "handlers", "templates", "vars")
    return "".join(
        path.read_text()
        for part in parts
        for path in sorted((role / part).rglob("*"))
        if path.is_file()
    )


def facts_it_sets(role: Path, text: str) -> set[str]:
    """The role's own results (set_fact, register): read by later steps, never set by a user."""
    registered = re.findall(rf"register: ({role.name}_\w+)", text)
    set_facts = re.findall(rf"set_fact:\n((?:\s+{role.name}_\w+:.*\n)+)", text)
    names = {name for block in set_facts for name in re.findall(rf"({role.name}_\w+):", block)}
    return set(registered) | names


@pytest.mark.parametrize("role", ROLES, ids=[role.name for role in ROLES])
def test_the_role_reads_what_its_argument_spec_documents_and_nothing_else(role: Path) -> None:
    specs = yaml.safe_load((role / "meta" / "argument_specs.yml").read_text())["argument_specs"]
    documented = set(specs["main"]["options"])
    text = role_text(role)
    read = set(re.findall(rf"(?<![\w.])({role.name}_\w+)", text)) - facts_it_sets(role, text)
    assert sorted(read - documented) == []
    assert sorted(documented - read) == []


@pytest.mark.parametrize("role", ROLES, ids=[role.name for role in ROLES])
def test_every_option_has_a_type_and_a_list_its_elements(role: Path) -> None:
    specs = yaml.safe_load((role / "meta" / "argument_specs.yml").read_text())["argument_specs"]
    untyped = [
        f"{entry}.{name}"
        for entry, spec in specs.items()
        for name, option in (spec.get("options") or {}).items()
        if "type" not in option or (option["type"] == "list" and "elements" not in option)
    ]
    assert untyped == []


@pytest.mark.parametrize("role", ROLES, ids=[role.name for role in ROLES])
def test_the_check_variables_entry_point_checks_every_option_of_main(role: Path) -> None:
    specs = yaml.safe_load((role / "meta" / "argument_specs.yml").read_text())["argument_specs"]
    assert specs["check-variables"]["options"] == specs["main"]["options"]
