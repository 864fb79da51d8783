"""The checked-in JSON Schema is a golden file: a model change without a schema refresh fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
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
