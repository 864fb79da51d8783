"""The checked-in JSON Schema is a golden file: a model change without a schema refresh fails."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tpgen.render import TOKEN_MAX
from tpgen.spec.model import DURATION_SCHEMA, SIZE_SCHEMA
from tpgen.spec.schema import spec_schema_json

from .conftest import ROOT

# The repository's copy, for editors and readers, and the package's, shipped in the wheel.
SCHEMAS = [
    ROOT / "schemas" / "node-spec.schema.json",
    ROOT / "generator" / "tpgen" / "schemas" / "node-spec.schema.json",
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda p: str(p.relative_to(ROOT)))
def test_checked_in_schema_is_current(schema: Path, update_goldens: bool) -> None:
    current = spec_schema_json()
    if update_goldens:
        schema.write_text(current, encoding="utf-8")
    name = schema.relative_to(ROOT)
    assert schema.read_text(encoding="utf-8") == current, (
        f"{name} is stale: run `pytest tests/test_schema.py --update-goldens` (it writes both "
        "schemas/ and generator/tpgen/schemas/) and review the diff"
    )


def test_schema_forbids_unknown_keys_and_requires_the_core_sections() -> None:
    schema = json.loads(spec_schema_json())
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == {"node", "workload", "disks"}
    disk = schema["$defs"]["Disk"]
    assert disk["additionalProperties"] is False
    assert disk["properties"]["media"]["enum"] == ["hdd", "ssd", "nvme"]
    assert disk["properties"]["state"]["enum"] == ["active", "draining", "failed"]


def _schemas(node: object, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object in ``node`` with its JSON pointer, depth first."""
    if isinstance(node, dict):
        yield where, node
        for key, child in node.items():
            yield from _schemas(child, f"{where}/{key}")
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from _schemas(child, f"{where}/{index}")


def _strings(node: object) -> Iterator[tuple[str, dict[str, Any]]]:
    return ((where, n) for where, n in _schemas(node) if n.get("type") == "string")


# Sizes and durations are read into numbers and range-checked: their text never reaches nginx.conf.
_NUMBER_PATTERNS = {SIZE_SCHEMA["anyOf"][1]["pattern"], DURATION_SCHEMA["anyOf"][1]["pattern"]}  # type: ignore[index]


def _bounded(pattern: str | None) -> bool:
    """A pattern that repeats only {m,n} times (a + or * anywhere counts as unbounded)."""
    return pattern is not None and not re.search(r"[*+]|\{[0-9]+,\}", pattern)


def test_every_free_text_field_has_a_length_bound_nginx_takes() -> None:
    """nginx reads no token past its 4 KiB buffer ("too long parameter") and the renderer
    refuses one (an internal error, exit 3): every text a spec may hold is bounded, so an
    overlong value is one exit-2 line naming its field instead."""
    unbounded = [
        where
        for where, node in _strings(json.loads(spec_schema_json()))
        if "enum" not in node
        and "const" not in node
        and node.get("pattern") not in _NUMBER_PATTERNS
        and not 0 < node.get("maxLength", 0) <= TOKEN_MAX
        and not _bounded(node.get("pattern"))
    ]
    assert unbounded == []


def _collections(node: object) -> Iterator[tuple[str, dict[str, Any]]]:
    return (
        (where, n)
        for where, n in _schemas(node)
        if n.get("type") == "array" or isinstance(n.get("additionalProperties"), dict)
    )


def test_every_list_and_mapping_has_a_size_bound() -> None:
    """An unbounded list (workload.upstreams was one) took 20,000 entries and said so in one
    line each; a bounded one is one exit-2 line naming its field."""
    unbounded = [
        where
        for where, node in _collections(json.loads(spec_schema_json()))
        if "maxItems" not in node and "maxProperties" not in node
    ]
    assert unbounded == []
