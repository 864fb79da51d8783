"""The spec: model, units, cross-field validation, YAML loading, schema."""
