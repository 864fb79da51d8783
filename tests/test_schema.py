"""The checked-in JSON Schema is a golden file: a model change without a schema refresh fails."""

from __future__ import annotations

import json

from tpgen.schema import spec_schema_json

from .conftest import ROOT

SCHEMA = ROOT / "schemas" / "node-spec.schema.json"


def test_checked_in_schema_is_current(update_goldens: bool) -> None:
    current = spec_schema_json()
    if update_goldens:
        SCHEMA.write_text(current, encoding="utf-8")
    assert SCHEMA.read_text(encoding="utf-8") == current, (
        "schemas/node-spec.schema.json is stale: run `.venv/bin/tpgen schema > "
        "schemas/node-spec.schema.json` (or pytest --update-goldens) and review the diff"
    )


def test_schema_forbids_unknown_keys_and_requires_the_core_sections() -> None:
    schema = json.loads(spec_schema_json())
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == {"node", "workload", "disks"}
    disk = schema["$defs"]["Disk"]
    assert disk["additionalProperties"] is False
    assert disk["properties"]["media"]["enum"] == ["hdd", "ssd", "nvme"]
    assert disk["properties"]["state"]["enum"] == ["active", "draining", "failed"]
