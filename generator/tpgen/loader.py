"""YAML text → NodeSpec, with every problem pointing at its file, line and field."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError

from tpgen.errors import Path as FieldPath
from tpgen.errors import Problem, SpecError
from tpgen.model import NodeSpec
from tpgen.rules import semantic_problems

LineMap = dict[FieldPath, int]


def _line_map(node: Any, prefix: FieldPath = (), lines: LineMap | None = None) -> LineMap:
    """Where each key and item of a ruamel document starts (1-based lines)."""
    lines = {} if lines is None else lines
    if isinstance(node, CommentedMap):
        for key, value in node.items():
            path = (*prefix, str(key))
            with contextlib.suppress(KeyError, TypeError):
                lines[path] = node.lc.key(key)[0] + 1
            _line_map(value, path, lines)
    elif isinstance(node, CommentedSeq):
        for index, value in enumerate(node):
            path = (*prefix, index)
            with contextlib.suppress(KeyError, TypeError, IndexError):
                lines[path] = node.lc.item(index)[0] + 1
            _line_map(value, path, lines)
    return lines


def _line_for(path: FieldPath, lines: LineMap) -> int | None:
    for end in range(len(path), 0, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None


def plain_data(node: Any) -> Any:
    """Plain dicts, lists and exact scalar types: YAML loaders and Ansible hand over subclasses."""
    if isinstance(node, Mapping):
        return {str(key): plain_data(value) for key, value in node.items()}
    if isinstance(node, list | tuple):
        return [plain_data(value) for value in node]
    for kind in (bool, int, float, str):
        if isinstance(node, kind):
            return kind(node)
    return node


def _pydantic_message(error: Any) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        return "unknown key: remove it or check its spelling (see `tpgen schema`)"
    if kind == "missing":
        return "required: add this key"
    message = str(error["msg"])
    for prefix in ("Value error, ", "Assertion failed, "):
        message = message.removeprefix(prefix)
    if kind == "string_pattern_mismatch":
        return f"{error['input']!r} has characters or a form not allowed here ({message})"
    return message


def _pydantic_path(loc: tuple[Any, ...]) -> FieldPath:
    # Union members add their type to the location ('int', 'literal[...]'): drop those.
    return tuple(
        part
        for part in loc
        if isinstance(part, int)
        or not (
            str(part).startswith(("literal[", "function-"))
            or part in {"int", "str", "float", "constrained-int"}
        )
    )


def spec_from_mapping(
    data: Any, source: str = "<mapping>", lines: LineMap | None = None
) -> NodeSpec:
    """Validate a plain mapping; raise SpecError listing every problem."""
    lines = lines or {}
    if not isinstance(data, Mapping):
        raise SpecError(
            [Problem((), "a spec is a mapping with node, workload and disks", source, 1)]
        )
    try:
        spec = NodeSpec.model_validate(plain_data(data))
    except ValidationError as err:
        # A union field reports one error per member: say them as one line.
        by_path: dict[FieldPath, list[str]] = {}
        for error in err.errors():
            messages = by_path.setdefault(_pydantic_path(tuple(error["loc"])), [])
            message = _pydantic_message(error)
            if message not in messages:
                messages.append(message)
        raise SpecError(
            Problem(path, ", or ".join(messages), source, _line_for(path, lines))
            for path, messages in by_path.items()
        ) from None
    found = semantic_problems(spec)
    if found:
        raise SpecError(
            [Problem(p.path, p.message, source, _line_for(p.path, lines)) for p in found]
        )
    return spec


def load_spec_text(text: str, source: str = "<spec>") -> NodeSpec:
    yaml = YAML(typ="rt")
    try:
        document = yaml.load(text)
    except MarkedYAMLError as err:
        mark = err.problem_mark
        line = mark.line + 1 if mark is not None else None
        raise SpecError([Problem((), f"not valid YAML: {err.problem}", source, line)]) from None
    return spec_from_mapping(document, source, _line_map(document))


def load_spec_file(path: str | Path) -> NodeSpec:
    spec_path = Path(path)
    try:
        text = spec_path.read_text(encoding="utf-8")
    except OSError as err:
        raise SpecError([Problem((), f"cannot read the spec: {err.strerror}", str(path))]) from None
    except UnicodeDecodeError:
        raise SpecError([Problem((), "the spec is not UTF-8 text", str(path))]) from None
    return load_spec_text(text, str(path))
