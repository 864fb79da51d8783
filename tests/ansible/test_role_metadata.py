"""Every role's variables: prefixed, defaulted, documented in meta/argument_specs.yml."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.ansible.conftest import REPO

ROLES = sorted(path.parent.parent for path in REPO.glob("roles/*/meta/argument_specs.yml"))
ROLE = REPO / "roles" / "nginx_tpconfig"
# argument_specs types -> the YAML values a default of that type may be
TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "path": (str,),
    "bool": (bool,),
    "int": (int,),
    "float": (float, int),
    "list": (list,),
    "dict": (dict,),
    "raw": (object,),
}


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def entry_points(role: Path) -> dict[str, dict[str, Any]]:
    specs: dict[str, dict[str, Any]] = load(role / "meta" / "argument_specs.yml")["argument_specs"]
    return {name: spec.get("options") or {} for name, spec in specs.items()}


def type_problems(name: str, option: dict[str, Any], value: object) -> list[str]:
    kind = option.get("type", "str")
    allowed = TYPES[kind]
    if isinstance(value, str) and "{{" in value:
        return []  # a template: its type is known only once Ansible renders it
    # bool is an int in Python, never in an argument spec
    if not isinstance(value, allowed) or (kind in ("int", "float") and isinstance(value, bool)):
        return [f"{name}: default {value!r} is not of type {kind}"]
    if kind == "list" and "elements" in option:
        elements = TYPES[option["elements"]]
        return [
            f"{name}: element {item!r} is not {option['elements']}"
            for item in value
            if not isinstance(item, elements)
        ]
    if "choices" in option and value not in option["choices"]:
        return [f"{name}: default {value!r} is not one of {option['choices']}"]
    return []


def test_every_role_is_checked() -> None:
    assert [role.name for role in ROLES] == sorted(
        path.name for path in (REPO / "roles").iterdir() if path.is_dir()
    ), "a role without meta/argument_specs.yml"


@pytest.mark.parametrize("role", ROLES, ids=[role.name for role in ROLES])
def test_every_default_is_prefixed_documented_and_of_its_type(role: Path) -> None:
    defaults = load(role / "defaults" / "main.yml") or {}
    main = entry_points(role)["main"]
    assert [name for name in defaults if not name.startswith(f"{role.name}_")] == []
    assert sorted(defaults) == sorted(name for name in main if not main[name].get("required"))
    problems = []
    for name, value in defaults.items():
        if main[name].get("default") != value:
            problems.append(f"{name}: argument_specs default {main[name].get('default')!r}")
        problems += type_problems(name, main[name], value)
    assert problems == []


@pytest.mark.parametrize("role", ROLES, ids=[role.name for role in ROLES])
def test_every_documented_option_has_a_default_or_is_required(role: Path) -> None:
    defaults = load(role / "defaults" / "main.yml") or {}
    problems = []
    for entry, options in entry_points(role).items():
        for name, option in options.items():
            where = f"{entry}.{name}"
            if not option.get("description"):
                problems.append(f"{where}: no description")
            if option.get("required"):
                if name in defaults or "default" in option:
                    problems.append(f"{where}: required, yet it has a default")
            elif name not in defaults:
                problems.append(f"{where}: neither required nor in defaults/main.yml")
            elif option.get("default") != defaults[name]:
                problems.append(f"{where}: default differs from defaults/main.yml")
    assert problems == []


def test_the_spec_entry_point_documents_what_it_reads() -> None:
    specs = load(ROLE / "meta" / "argument_specs.yml")["argument_specs"]
    assert set(specs["spec"]["options"]) == {
        "nginx_tpconfig_spec",
        "nginx_tpconfig_fill_from_facts",
        # the spec follows the installed nginx (nginx -V), which variables.yml locates
        "nginx_tpconfig_fill_from_nginx",
        "nginx_tpconfig_nginx_binary",
        "nginx_tpconfig_guard_state_path",
    }


def test_every_task_file_is_included_somewhere() -> None:
    tasks = ROLE / "tasks"
    text = "\n".join(path.read_text() for path in tasks.glob("*.yml"))
    for path in tasks.glob("*.yml"):
        if path.name == "main.yml":
            continue
        assert f": {path.name}" in text, f"{path.name} is not included by any task file"
