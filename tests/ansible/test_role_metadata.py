"""nginx_tpconfig's variables: prefixed, defaulted, documented in meta/argument_specs.yml."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tests.ansible.conftest import REPO

ROLE = REPO / "roles" / "nginx_tpconfig"


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def test_every_default_is_prefixed_and_documented_with_the_same_default() -> None:
    defaults = load(ROLE / "defaults" / "main.yml")
    options = load(ROLE / "meta" / "argument_specs.yml")["argument_specs"]["main"]["options"]
    assert all(name.startswith("nginx_tpconfig_") for name in defaults)
    assert sorted(defaults) == sorted(options)
    for name, value in defaults.items():
        assert options[name]["default"] == value, name
        assert options[name]["description"], name


def test_the_spec_entry_point_documents_what_it_reads() -> None:
    specs = load(ROLE / "meta" / "argument_specs.yml")["argument_specs"]
    assert set(specs["spec"]["options"]) == {
        "nginx_tpconfig_spec",
        "nginx_tpconfig_fill_from_facts",
    }


def test_every_task_file_is_included_somewhere() -> None:
    tasks = ROLE / "tasks"
    text = "\n".join(path.read_text() for path in tasks.glob("*.yml"))
    for path in tasks.glob("*.yml"):
        if path.name == "main.yml":
            continue
        assert f": {path.name}" in text, f"{path.name} is not included by any task file"
