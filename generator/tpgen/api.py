"""The library API that the CLI, the Ansible plugins and the tools import."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from tpgen.check import CheckResult, check_config_text, check_plan
from tpgen.errors import NginxUnavailable, SpecError
from tpgen.plan import Plan, make_plan
from tpgen.plan.buckets import bucket_for_hash, disk_for_hash, murmur_hash2
from tpgen.plan.remap import Remap, compare
from tpgen.render import render_config as _render
from tpgen.spec.load import LineMap, SpecDocument, plain_data, read_spec_document, with_lines
from tpgen.spec.load import load_spec_file as _load_spec_file
from tpgen.spec.load import spec_from_mapping as _spec_from_mapping
from tpgen.spec.model import NodeSpec

__all__ = [
    "CheckResult",
    "NginxUnavailable",
    "NodeSpec",
    "Plan",
    "Remap",
    "SpecDocument",
    "SpecError",
    "bucket_for_key",
    "check_config",
    "check_plan",
    "compare",
    "disk_for_key",
    "disk_layout",
    "load_spec_file",
    "plain_data",
    "plan_for",
    "read_spec_document",
    "render_config",
    "render_from_mapping",
    "spec_from_mapping",
]


def spec_from_mapping(
    data: Mapping[str, Any], source: str = "<mapping>", lines: LineMap | None = None
) -> NodeSpec:
    return _spec_from_mapping(data, source, lines)


def load_spec_file(path: str | Path) -> NodeSpec:
    return _load_spec_file(path)


def plan_for(spec: NodeSpec, source: str = "<spec>", lines: LineMap | None = None) -> Plan:
    """The plan; a refusal names the line of its field when ``lines`` (from the loader) is given."""
    try:
        return make_plan(spec, source)
    except SpecError as err:
        raise with_lines(err, source, lines or {}) from None


def render_config(plan: Plan, source: str | None = None) -> str:
    if source is not None and source != plan.source:
        plan = replace(plan, source=source)
    return _render(plan)


def render_from_mapping(data: Mapping[str, Any], source: str = "<mapping>") -> str:
    return _render(make_plan(_spec_from_mapping(data, source), source))


def disk_for_key(plan: Plan, key: str) -> str:
    """The disk nginx's split_clients picks for a key (a cache key, or a URI on origin/vod)."""
    return disk_for_hash(plan.split, murmur_hash2(_key_bytes(key)))


def bucket_for_key(plan: Plan, key: str) -> int:
    return bucket_for_hash(murmur_hash2(_key_bytes(key)), plan.buckets.value)


def _key_bytes(key: str) -> bytes:
    # A key from argv that is not UTF-8 carries its bytes as surrogates: hash those bytes.
    return key.encode("utf-8", "surrogateescape")


def disk_layout(plan: Plan) -> list[dict[str, Any]]:
    return [
        {
            "name": d.name,
            "device": d.device,
            "mount": d.mount,
            "dir": d.dir,
            "state": d.state,
            "filesystem": d.filesystem,
            "media": d.media,
            "thread_pool": d.thread_pool.name if d.thread_pool else None,
            "buckets": d.bucket_count,
            "min_free_bytes": d.cache.min_free.value if d.cache else None,
        }
        for d in plan.disks
    ]


def check_config(text: str, *, rebase: bool = True, plan: Plan | None = None) -> CheckResult:
    """``nginx -t``: rebased into a throwaway prefix (needs the plan), or as-is on a node."""
    if rebase:
        if plan is None:
            raise ValueError("a rebased check needs the plan the text was rendered from")
        return check_plan(plan)
    return check_config_text(text)


# The node layout: the one contract from the controller to the node (tpgen/plan/layout.py).
from tpgen.plan.layout import DiskLayout, NodeLayout, node_layout  # noqa: E402

__all__ += ["DiskLayout", "NodeLayout", "fill_node_facts", "node_layout"]


def fill_node_facts(
    data: Mapping[str, Any], *, name: Any = None, cores: Any = None, memory_mb: Any = None
) -> dict[str, Any]:
    """A copy of a spec mapping with node.name, node.cores and node.memory ("<n>MiB") taken
    from the host's facts where the spec leaves them out; a fact that is None is not used.

    Raises TypeError when ``node`` is not a mapping.
    """
    result = copy.deepcopy(dict(data))
    node = result.get("node")
    if node is None:
        node = {}
    if not isinstance(node, dict):
        raise TypeError(f"node must be a mapping, got {type(node).__name__}")
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
