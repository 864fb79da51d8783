"""Small helpers over the HCL parser that checkov ships (bc-python-hcl2, imported as `hcl2`).

That parser wraps every block-level attribute value in a one-element list and writes
expressions as "${...}"; these helpers undo both so tests read plain values.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hcl2.api import load as _parse


def load(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as handle:
        data: dict[str, Any] = _parse(handle)
    return data


def attr(body: dict[str, Any], name: str, default: Any = None) -> Any:
    """A block attribute's value, unwrapped from the parser's one-element list."""
    if name not in body:
        return default
    value = body[name]
    if isinstance(value, list) and len(value) == 1:
        return value[0]
    return value


def expr(value: Any) -> str:
    """An expression's source text: "${var.x}" -> "var.x"; literals are returned as text."""
    text = str(value)
    match = re.fullmatch(r"\$\{(.*)\}", text, re.S)
    return match.group(1) if match else text


def blocks(data: dict[str, Any], kind: str) -> list[tuple[str, dict[str, Any]]]:
    """Labelled blocks of one kind: [(label, body)] for `kind "label" { ... }`."""
    found: list[tuple[str, dict[str, Any]]] = []
    for entry in data.get(kind, []):
        for label, body in entry.items():
            found.append((label, body))
    return found


def typed_blocks(data: dict[str, Any], kind: str) -> list[tuple[str, str, dict[str, Any]]]:
    """Blocks with two labels: [(type, name, body)] for `resource "type" "name" { ... }`."""
    found: list[tuple[str, str, dict[str, Any]]] = []
    for entry in data.get(kind, []):
        for type_name, named in entry.items():
            for name, body in named.items():
                found.append((type_name, name, body))
    return found


def load_dir(directory: Path) -> dict[str, dict[str, Any]]:
    """Every *.tf file of a module, parsed, by file name."""
    return {path.name: load(path) for path in sorted(directory.glob("*.tf"))}


# HCL's escapes in quoted strings, which the parser leaves as written.
_ESCAPE = re.compile(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|[nrt\"\\])")
_ESCAPED = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}


def unescape(value: Any) -> Any:
    if isinstance(value, str):
        return _ESCAPE.sub(lambda m: _ESCAPED.get(m[1]) or chr(int(m[1][1:], 16)), value)
    if isinstance(value, list):
        return [unescape(item) for item in value]
    if isinstance(value, dict):
        return {unescape(k): unescape(v) for k, v in value.items()}
    return value


def run_variables(path: Path) -> dict[str, dict[str, Any]]:
    """The variables each `run` of a .tftest.hcl file plans with: the file's, then the run's."""
    data = load(path)
    defaults = {k: unescape(attr(data["variables"][0], k)) for k in data["variables"][0]}
    runs: dict[str, dict[str, Any]] = {}
    for name, body in blocks(data, "run"):
        variables = dict(defaults)
        for block in body.get("variables", []):
            variables.update({k: unescape(attr(block, k)) for k in block})
        runs[name] = variables
    return runs
