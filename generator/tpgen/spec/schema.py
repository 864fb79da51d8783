"""The spec's JSON Schema, generated from the model."""

from __future__ import annotations

import json

from tpgen.spec.model import NodeSpec


def spec_schema_json() -> str:
    schema = NodeSpec.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"
