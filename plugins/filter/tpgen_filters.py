# Filters that expose the tpgen package (imported from the controller's Python) to plays.
"""tpgen filters: complete a spec from facts, the plan's disk layout, the disk of a cache key."""

from __future__ import annotations

import copy
import sys
from collections.abc import Mapping
from typing import Any

from ansible.errors import AnsibleFilterError


def plain(value: Any) -> Any:
    """Plain dict/list/scalars (Ansible passes tagged subclasses): tpgen's own normaliser."""
    api = _api()
    try:
        return api.plain_data(value, "tpgen_spec")
    except api.SpecError as exc:
        # A structure that contains itself or nests without bound: say so, not a traceback.
        raise AnsibleFilterError(f"tpgen rejected the spec:\n{exc}") from None


def _api() -> Any:
    try:
        from tpgen import api  # pylint: disable=import-outside-toplevel
    except ImportError as exc:
        raise AnsibleFilterError(
            f"the tpgen package is not importable from the Python that runs Ansible "
            f"({sys.executable}): {exc}. Install it into that environment "
            f"(pip install -e <repo>) or run ansible from the repo's .venv."
        ) from exc
    return api


def _plan(spec: Any, source: str) -> Any:
    api = _api()
    if not isinstance(spec, Mapping):
        raise AnsibleFilterError(
            f"{source}: expected the node spec as a mapping, got {type(spec).__name__}"
        )
    try:
        return api.make_plan(api.spec_from_mapping(plain(spec), source=source), source)
    except api.SpecError as exc:
        raise AnsibleFilterError(f"tpgen rejected the spec:\n{exc}") from None


def tpgen_node_spec(
    spec: Any,
    name: Any = None,
    cores: Any = None,
    memory_mb: Any = None,
) -> dict[str, Any]:
    """Fill node.name, node.cores and node.memory ("<n>MiB") when the spec leaves them out.

    Values present in the spec always win; a fact that is None is not used.
    """
    if spec is None:
        spec = {}
    if not isinstance(spec, Mapping):
        raise AnsibleFilterError(f"tpgen_node_spec: expected a mapping, got {type(spec).__name__}")
    result: dict[str, Any] = copy.deepcopy(plain(spec))
    node = result.get("node")
    if node is None:
        node = {}
    if not isinstance(node, dict):
        raise AnsibleFilterError(
            f"tpgen_node_spec: node must be a mapping, got {type(node).__name__}"
        )
    facts = {
        "name": None if name is None else str(name),
        "cores": None if cores is None else int(cores),
        "memory": None if memory_mb is None else f"{int(memory_mb)}MiB",
    }
    for key, value in facts.items():
        if key not in node and value is not None:
            node[key] = value
    result["node"] = node
    return result


def tpgen_disk_layout(spec: Any, source: str = "tpgen_spec") -> list[dict[str, Any]]:
    """The plan's disk layout: one dict per disk (name, device, mount, dir, state, media, ...)."""
    plan = _plan(spec, source)
    return list(_api().disk_layout(plan))


def tpgen_disk_for_key(spec: Any, key: Any, source: str = "tpgen_spec") -> Any:
    """The disk a cache key (or origin URI) lands on; a list of keys gives a list of disks."""
    plan = _plan(spec, source)
    api = _api()
    if isinstance(key, (list, tuple)):
        return [str(api.disk_for_key(plan, str(item))) for item in key]
    return str(api.disk_for_key(plan, str(key)))


class FilterModule:
    """tpgen filters."""

    def filters(self) -> dict[str, Any]:
        return {
            "tpgen_node_spec": tpgen_node_spec,
            "tpgen_disk_layout": tpgen_disk_layout,
            "tpgen_disk_for_key": tpgen_disk_for_key,
        }
