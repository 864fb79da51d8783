"""A spec completed from the host's facts, as the Ansible role does it (filter tpgen_node_spec)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any


def with_node_facts(
    spec: Mapping[str, Any],
    *,
    name: str | None,
    cores: int | None,
    memory_mb: int | None,
) -> dict[str, Any]:
    """A copy of ``spec`` with node.name, node.cores and node.memory ("<n>MiB") filled in.

    Values present in the spec always win; a fact that is None is not used. ValueError when
    ``node`` is there but is not a mapping.
    """
    result = copy.deepcopy(dict(spec))
    node = result.get("node")
    if node is None:
        node = {}
    if not isinstance(node, dict):
        raise ValueError(f"node must be a mapping, got {type(node).__name__}")
    facts = {
        "name": name,
        "cores": cores,
        "memory": None if memory_mb is None else f"{memory_mb}MiB",
    }
    for key, value in facts.items():
        if key not in node and value is not None:
            node[key] = value
    result["node"] = node
    return result
