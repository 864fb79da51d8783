"""Static checks of the Terraform code that no offline `terraform` command can make.

The provider adapters cannot be `terraform init`-ed here (no registry), so their contract is
checked on the parsed HCL (python-hcl2, as shipped with checkov): pinned providers, thin
modules that only consume modules/cdn_nodes, documented inputs and outputs.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from . import hcl
from .conftest import TERRAFORM_DIR

ADAPTERS = {
    "aws": ("aws", "hashicorp/aws", "aws_instance"),
    "maas": ("maas", "canonical/maas", "maas_instance"),
    "ovh": ("ovh", "ovh/ovh", "ovh_dedicated_server"),
}
FOUR_FILES = ["main.tf", "outputs.tf", "variables.tf", "versions.tf"]
PINNED = re.compile(r"^(=\s*)?\d+\.\d+\.\d+$|^~>\s*\d+\.\d+(\.\d+)?$")
ALL_MODULES = sorted({p.parent for p in TERRAFORM_DIR.rglob("*.tf") if ".terraform" not in p.parts})


def _module(directory: Path) -> dict[str, list[Any]]:
    """All top-level blocks of a module's *.tf files, merged by block kind."""
    merged: dict[str, list[Any]] = {}
    for data in hcl.load_dir(directory).values():
        for kind, entries in data.items():
            merged.setdefault(kind, []).extend(entries)
    return merged


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for k, v in value.items() if not k.startswith("__") for s in _strings(v)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return [value] if isinstance(value, str) else []


def _required_providers(directory: Path) -> dict[str, dict[str, str]]:
    providers: dict[str, dict[str, str]] = {}
    for block in _module(directory).get("terraform", []):
        for entry in block.get("required_providers", []):
            for name, spec in entry.items():
                if not name.startswith("__"):
                    providers[name] = {
                        k: hcl.attr(spec[0] if isinstance(spec, list) else spec, k)
                        for k in ("source", "version")
                    }
    return providers


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_adapter_is_a_four_file_module(adapter: str) -> None:
    directory = TERRAFORM_DIR / "providers" / adapter
    assert sorted(p.name for p in directory.glob("*.tf")) == FOUR_FILES


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_adapter_pins_its_provider(adapter: str) -> None:
    name, source, _ = ADAPTERS[adapter]
    for directory in [
        TERRAFORM_DIR / "providers" / adapter,
        *sorted((TERRAFORM_DIR / "providers" / adapter / "examples").iterdir()),
    ]:
        providers = _required_providers(directory)
        assert set(providers) == {name}, directory
        assert providers[name]["source"] == source
        assert PINNED.match(providers[name]["version"] or ""), providers[name]["version"]
        terraform_block = _module(directory)["terraform"][0]
        assert hcl.attr(terraform_block, "required_version"), directory


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_adapter_calls_cdn_nodes_once_and_nothing_else(adapter: str) -> None:
    modules = hcl.blocks(_module(TERRAFORM_DIR / "providers" / adapter), "module")
    assert [(name, hcl.attr(body, "source")) for name, body in modules] == [
        ("cdn_nodes", "../../modules/cdn_nodes")
    ]


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_adapter_builds_no_inventory_or_user_data_itself(adapter: str) -> None:
    text = "\n".join(
        p.read_text(encoding="utf-8") for p in (TERRAFORM_DIR / "providers" / adapter).glob("*.tf")
    )
    for function in ("templatefile(", "yamlencode(", "file(", "templatestring("):
        assert function not in text, f"{adapter} must leave {function}...) to modules/cdn_nodes"


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_adapter_consumes_only_cdn_nodes_outputs_and_variables(adapter: str) -> None:
    module = _module(TERRAFORM_DIR / "providers" / adapter)
    own = {f"{t}.{n}" for t, n, _ in hcl.typed_blocks(module, "resource")}
    for resource_type, name, body in hcl.typed_blocks(module, "resource"):
        for value in _strings(body):
            for ref in re.findall(r"\bmodule\.([A-Za-z0-9_]+)", value):
                assert ref == "cdn_nodes", f"{resource_type}.{name} reads module.{ref}"
            assert not re.search(r"(?<![A-Za-z0-9_])data\.[a-z]", value), (
                f"{resource_type}.{name} reads a data source: {value}"
            )
            for ref in re.findall(r"\b([a-z0-9]+_[a-z0-9_]+\.[a-z0-9_]+)\b", value):
                if ref.split(".")[0] in {"each", "var", "local", "count"}:
                    continue
                if ref.startswith(("aws_", "maas_", "ovh_")):
                    assert ref in own, f"{resource_type}.{name} reads {ref}, not this adapter's"


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_adapter_machines_get_cdn_nodes_user_data(adapter: str) -> None:
    _, _, machine_type = ADAPTERS[adapter]
    module = _module(TERRAFORM_DIR / "providers" / adapter)
    machines = [body for t, _, body in hcl.typed_blocks(module, "resource") if t == machine_type]
    assert len(machines) == 1
    user_data = {
        "aws_instance": lambda b: _strings(b.get("user_data")),
        "maas_instance": lambda b: _strings(b.get("deploy_params")),
        "ovh_dedicated_server": lambda b: _strings(b.get("customizations")),
    }[machine_type](machines[0])
    assert any(
        "module.cdn_nodes.user_data" in s or "module.cdn_nodes.bootstrap_script" in s
        for s in user_data
    )


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_adapter_feeds_machine_addresses_back(adapter: str) -> None:
    _, _, machine_type = ADAPTERS[adapter]
    module = _module(TERRAFORM_DIR / "providers" / adapter)
    ((_, call),) = hcl.blocks(module, "module")
    assert f"{machine_type}.node" in str(hcl.attr(call, "addresses"))
    outputs = dict(hcl.blocks(module, "output"))
    assert (
        hcl.expr(hcl.attr(outputs["inventory_yaml"], "value")) == "module.cdn_nodes.inventory_yaml"
    )


@pytest.mark.parametrize("caller", ["envs/sim", *(f"providers/{a}" for a in sorted(ADAPTERS))])
def test_caller_passes_the_tpgen_command_on(caller: str) -> None:
    """Every caller lets the operator name tpgen, so apply can check the specs with it."""
    module = _module(TERRAFORM_DIR / caller)
    ((_, call),) = hcl.blocks(module, "module")
    assert hcl.expr(hcl.attr(call, "tpgen_command")) == "var.tpgen_command"
    variables = dict(hcl.blocks(module, "variable"))
    assert hcl.attr(variables["tpgen_command"], "default") == "tpgen"


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_adapter_has_a_complete_example(adapter: str) -> None:
    examples = sorted((TERRAFORM_DIR / "providers" / adapter / "examples").iterdir())
    assert examples, f"providers/{adapter}/examples/<name>/ is missing"
    for example in examples:
        assert sorted(p.name for p in example.glob("*.tf")) == FOUR_FILES
        calls = hcl.blocks(_module(example), "module")
        assert [hcl.attr(body, "source") for _, body in calls] == ["../.."]
        assert "inventory_yaml" in dict(hcl.blocks(_module(example), "output"))


def test_no_ansible_provider_anywhere() -> None:
    for directory in ALL_MODULES:
        assert not any("ansible" in name for name in _required_providers(directory)), directory
        assert "ansible/ansible" not in "".join(p.read_text() for p in directory.glob("*.tf"))


def test_sim_needs_no_provider_and_only_terraform_data() -> None:
    sim = TERRAFORM_DIR / "envs" / "sim"
    assert _required_providers(sim) == {}
    resources = {t for t, _, _ in hcl.typed_blocks(_module(sim), "resource")}
    assert resources == {"terraform_data"}
    assert "data" not in _module(sim)


def test_cdn_nodes_needs_no_provider() -> None:
    module = _module(TERRAFORM_DIR / "modules" / "cdn_nodes")
    assert _required_providers(TERRAFORM_DIR / "modules" / "cdn_nodes") == {}
    assert "data" not in module and "provider" not in module
    # Its one resource is built into Terraform: the tpgen check (see test_tpgen_rules.py).
    resources = [(t, n) for t, n, _ in hcl.typed_blocks(module, "resource")]
    assert resources == [("terraform_data", "tpgen_validate")]


def _node_attributes(directory: Path) -> dict[str, str]:
    """The attributes of a module's `nodes` object type, each with its type as written."""
    (body,) = [b for name, b in hcl.blocks(_module(directory), "variable") if name == "nodes"]
    text = str(hcl.attr(body, "type"))
    assert text.startswith("${list(object(") and text.endswith("))}"), text
    attributes: dict[str, str] = ast.literal_eval(text[len("${list(object(") : -len("))}")])
    return attributes


# The node object type is written in five places, because Terraform has no type aliases and
# an untyped `nodes = any` would lose the optional() defaults and the precise type errors at
# each module's own input. The copies are held equal here: an attribute a caller shares with
# modules/cdn_nodes has exactly its type, and a caller leaves out only what it supplies itself.
NODE_TYPE_CALLERS = {
    "envs/sim": set(),
    # AWS: the instance type gives disk_set (and cores, memory); the instance gives the address.
    "providers/aws": {"address", "disks", "disk_set"},
    "providers/maas": set(),
    # OVHcloud: the server's IP is the address.
    "providers/ovh": {"address"},
}


@pytest.mark.parametrize("caller", sorted(NODE_TYPE_CALLERS))
def test_node_type_is_the_modules_own(caller: str) -> None:
    module = _node_attributes(TERRAFORM_DIR / "modules" / "cdn_nodes")
    own = _node_attributes(TERRAFORM_DIR / caller)
    shared = set(module) & set(own)
    assert set(module) - shared == NODE_TYPE_CALLERS[caller]
    assert {a: own[a] for a in sorted(shared)} == {a: module[a] for a in sorted(shared)}


@pytest.mark.parametrize("directory", ALL_MODULES, ids=lambda p: str(p.relative_to(TERRAFORM_DIR)))
def test_every_variable_is_typed_and_described(directory: Path) -> None:
    module = _module(directory)
    for name, body in hcl.blocks(module, "variable"):
        assert hcl.attr(body, "type") is not None, f"variable {name} has no type"
        assert str(hcl.attr(body, "description") or "").strip(), (
            f"variable {name} has no description"
        )
        for rule in body.get("validation", []):
            assert len(str(hcl.attr(rule, "error_message"))) > 20, f"variable {name}: say the fix"
    for name, body in hcl.blocks(module, "output"):
        assert str(hcl.attr(body, "description") or "").strip(), f"output {name} has no description"


README_MODULES = [
    "modules/cdn_nodes",
    "envs/sim",
    "providers/aws",
    "providers/maas",
    "providers/ovh",
]


@pytest.mark.parametrize("module", README_MODULES)
def test_readme_documents_every_input_and_output(module: str) -> None:
    readme = (TERRAFORM_DIR / "README.md").read_text(encoding="utf-8")
    parsed = _module(TERRAFORM_DIR / module)
    names = [n for n, _ in hcl.blocks(parsed, "variable")] + [
        n for n, _ in hcl.blocks(parsed, "output")
    ]
    missing = [name for name in names if f"`{name}`" not in readme]
    assert missing == [], f"terraform/README.md does not mention these of {module}"
