"""YAML text → NodeSpec, with every problem pointing at its file, line and field.

Reading is bounded before anything is parsed: a regular file of at most 1 MiB, UTF-8, no control
characters; then at most 10,000 keys and values in the text, nesting at most 32 levels, and at most
10,000 values once YAML aliases are expanded (so an alias bomb is refused in milliseconds instead
of being walked for minutes). Anchors, aliases and merge keys (``<<: *hdd``) work within those
bounds; tags other than YAML's plain scalar types are refused.
"""

from __future__ import annotations

import datetime
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer, MaxDepthExceededError
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from tpgen.errors import FileRefused, Problem, SpecError, printable
from tpgen.errors import Path as FieldPath
from tpgen.files import MIB, NotUtf8, decode_utf8, read_regular_file
from tpgen.spec.model import PATTERN_FIXES, NodeSpec, shown
from tpgen.spec.validate import semantic_problems
from tpgen.spec.yaml11 import yaml11_kind

LineMap = dict[FieldPath, int]

MAX_SPEC_BYTES = MIB
MAX_DEPTH = 32
MAX_VALUES = 10_000
MAX_PROBLEMS = 100
# Python cannot print an int of more than 4,300 digits; no spec value comes near 20.
MAX_NUMBER_CHARS = 1000
MAX_INT_BITS = 3300
_FLATTEN = "write the keys of docs/spec.md at their own level"
_RANGES = "write a value in the field's range (docs/spec.md, Values and limits)"

_TAG = "tag:yaml.org,2002:"
_TEXT_TAGS = {f"{_TAG}str", f"{_TAG}timestamp"}  # a date-like name stays the text it was
# What the YAML reader refuses, found first here so the message has a line and column.
# NEL, LS and PS too: YAML 1.1 readers break lines there and YAML 1.2 readers do not.
_AMBIGUOUS_BREAKS = "\x85\u2028\u2029"
_NOT_YAML_TEXT = re.compile(
    "[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)


@dataclass(frozen=True)
class SpecDocument:
    """A spec file read into plain data, with the line of every key and list item."""

    data: Any
    lines: LineMap
    source: str


def _line_for(path: FieldPath, lines: LineMap) -> int | None:
    for end in range(len(path), 0, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None


def with_lines(err: SpecError, source: str, lines: LineMap) -> SpecError:
    """The same problems, each given the file and the line of its field where it had none."""
    return SpecError(
        Problem(
            p.path,
            p.message,
            p.file or source,
            p.line if p.line is not None else _line_for(p.path, lines),
        )
        for p in err.problems
    )


def _too_big(node: int) -> bool:
    return abs(node).bit_length() > MAX_INT_BITS


class _Plain:
    """Plain data from nested mappings and sequences, refusing cycles and runaway sizes."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.count = 0
        self.open: set[int] = set()

    def refuse(self, path: FieldPath, message: str) -> SpecError:
        return SpecError([Problem(path, message, self.source)])

    def convert(self, node: Any, path: FieldPath) -> Any:
        self.count += 1
        if self.count > MAX_VALUES:
            raise self.refuse(
                path,
                f"the data holds more than {MAX_VALUES:,} values: a spec needs a few hundred; "
                "remove the rest",
            )
        if len(path) > MAX_DEPTH:
            raise self.refuse(
                path, f"nested deeper than {MAX_DEPTH} levels (a spec needs 4): {_FLATTEN}"
            )
        if isinstance(node, Mapping | list | tuple):
            return self.container(node, path)
        return self.scalar(node, path)

    def container(
        self, node: Mapping[Any, Any] | list[Any] | tuple[Any, ...], path: FieldPath
    ) -> Any:
        if id(node) in self.open:
            raise self.refuse(
                path, "contains itself (a recursive structure): remove the reference back to it"
            )
        self.open.add(id(node))
        try:
            if isinstance(node, Mapping):
                return {
                    self.key(k, path): self.convert(v, (*path, str(k))) for k, v in node.items()
                }
            return [self.convert(value, (*path, i)) for i, value in enumerate(node)]
        finally:
            self.open.discard(id(node))

    def scalar(self, node: Any, path: FieldPath) -> Any:
        if isinstance(node, datetime.date | datetime.time):
            raise self.refuse(
                path,
                f"a date or time ({node.isoformat()}): a YAML 1.1 reader (Ansible, PyYAML) reads "
                "an unquoted 2024-01-01 as one; quote it to keep it text",
            )
        for kind in (bool, int, float, str):
            if isinstance(node, kind):
                if isinstance(node, int) and not isinstance(node, bool) and _too_big(node):
                    raise self.refuse(
                        path, f"number too large: no value in a spec comes near it; {_RANGES}"
                    )
                return kind(node)
        return node

    def key(self, key: Any, path: FieldPath) -> str:
        if not isinstance(key, str):
            raise self.refuse(
                path,
                f"key {printable(repr(key))} is not a name: every key in a spec is text; quote it",
            )
        return str(key)


def plain_data(node: Any, source: str = "<mapping>") -> Any:
    """Plain dicts, lists and exact scalar types: YAML loaders and Ansible hand over subclasses.

    Raises SpecError for a structure that contains itself, nests deeper than 32 levels or holds
    more than 10,000 values (shared references count each time they are reached).
    """
    return _Plain(source).convert(node, ())


def _number_bound(kind: str, ctx: Mapping[str, Any]) -> str:
    bound = next(iter(ctx.values()))
    if isinstance(bound, float) and bound.is_integer():
        bound = int(bound)
    words = {
        "greater_than_equal": "too small: write {} or more",
        "greater_than": "too small: write more than {}",
        "less_than_equal": "too large: write {} or less",
        "less_than": "too large: write less than {}",
    }
    return words[kind].format(bound)


def _length_bound(kind: str, ctx: Mapping[str, Any]) -> str:
    if kind.startswith("string_"):
        limit = ctx.get("min_length", ctx.get("max_length"))
        fewest = kind == "string_too_short"
        return f"write {'at least' if fewest else 'at most'} {limit} characters"
    actual = ctx.get("actual_length")
    has = f"has {actual} items: " if actual is not None else ""
    if kind == "too_short":
        return f"{has}write at least {ctx['min_length']}"
    return f"{has}write at most {ctx['max_length']}"


# pydantic's wording says what is wrong, not what to write instead: each kind gets its fix.
_FIXES = {
    "bool_type": "write true or false",
    "bool_parsing": "write true or false",
    "int_type": "write a whole number, e.g. 4",
    "int_parsing": "write a whole number, e.g. 4",
    "int_from_float": "write a whole number, e.g. 4",
    "float_type": "write a number, e.g. 1.5",
    "float_parsing": "write a number, e.g. 1.5",
    "finite_number": "write a finite number, e.g. 1.5",
    "string_type": "write text here (quote it if YAML reads it as something else)",
    "list_type": "write a list (- item, or [a, b])",
    "dict_type": "write a mapping (key: value)",
    "model_type": "write a mapping (key: value)",
    "model_attributes_type": "write a mapping (key: value)",
}


_NO_INPUT = {
    "extra_forbidden": "unknown key: remove it or check its spelling (see `tpgen schema`)",
    "missing": "required: add this key",
}


def _with_fix(kind: str, value: str, ctx: Mapping[str, Any]) -> str | None:
    """The message of an error kind tpgen words itself, or None for pydantic's own."""
    if kind in {"literal_error", "enum"}:
        return (
            f"{value} is not allowed here: write {ctx.get('expected', 'one of the listed values')}"
        )
    if kind in {"greater_than_equal", "greater_than", "less_than_equal", "less_than"} and ctx:
        return f"{value} is {_number_bound(kind, ctx)}"
    if kind in {"too_short", "too_long", "string_too_short", "string_too_long"} and ctx:
        return _length_bound(kind, ctx)
    if kind in _FIXES:
        return f"{value} is the wrong type: {_FIXES[kind]}"
    return None


def field_message(error: Any) -> str:
    """One pydantic error of a field as tpgen words it: what the field takes, and a fix."""
    kind = error["type"]
    if kind in _NO_INPUT:
        return _NO_INPUT[kind]
    value = shown(error.get("input"))
    fixed = _with_fix(kind, value, error.get("ctx") or {})
    if fixed is not None:
        return fixed
    message = str(error["msg"])
    for prefix in ("Value error, ", "Assertion failed, "):
        message = message.removeprefix(prefix)
    if kind == "string_pattern_mismatch":
        # in full where it can be right: the character that does not match may be past what
        # `shown` keeps; longer than any value a pattern takes, it is wrong by its length
        text = str(error["input"])
        written = (
            repr(text)
            if len(text) <= PATTERN_SHOWN
            else f"{text[:40]!r}… ({len(text):,} characters)"
        )
        fix = PATTERN_FIXES.get((error.get("ctx") or {}).get("pattern", ""))
        if fix:
            return f"{written} is not {fix}"
        return f"{written} has characters or a form not allowed here ({message})"
    return message


# The longest text shown whole in a pattern's refusal: a host name (253), with room for a typo.
PATTERN_SHOWN = 256


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


def _single_listen(path: FieldPath) -> FieldPath:
    """``listen`` written as one mapping is listen.0 inside: name the field as written."""
    return ("listen", *path[2:]) if path[:2] == ("listen", 0) else path


def _as_written(
    by_path: dict[FieldPath, list[str]], data: Mapping[str, Any]
) -> dict[FieldPath, list[str]]:
    if not isinstance(data.get("listen"), Mapping):
        return by_path
    return {_single_listen(path): messages for path, messages in by_path.items()}


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
        spec = NodeSpec.model_validate(plain_data(data, source))
    except ValidationError as err:
        # A union field reports one error per member: say them as one line.
        by_path: dict[FieldPath, list[str]] = {}
        for error in err.errors():
            messages = by_path.setdefault(_pydantic_path(tuple(error["loc"])), [])
            message = field_message(error)
            if message not in messages:
                messages.append(message)
        raise SpecError(
            Problem(path, ", or ".join(messages), source, _line_for(path, lines))
            for path, messages in _as_written(by_path, data).items()
        ) from None
    found = semantic_problems(spec)
    if isinstance(data.get("listen"), Mapping):
        found = [replace(p, path=_single_listen(p.path)) for p in found]
    if found:
        raise with_lines(SpecError(found), source, lines)
    return spec


_KINDS = {
    f"{_TAG}int": "a number",
    f"{_TAG}float": "a number",
    f"{_TAG}bool": "a boolean",
    f"{_TAG}null": "YAML's null",
}


def _tag_name(tag: str) -> str:
    return "!!" + tag.removeprefix(_TAG) if tag.startswith(_TAG) else tag


class _Document:
    """Composed YAML nodes → plain data and a line map, within the reading bounds."""

    def __init__(self, yaml: YAML, source: str) -> None:
        self.constructor = yaml.constructor
        self.source = source
        self.lines: LineMap = {}
        self.count = 0
        self.open: set[int] = set()
        self.problems: list[Problem] = []

    def problem(self, node: Node, path: FieldPath, message: str) -> Problem:
        return Problem(path, message, self.source, node.start_mark.line + 1)

    def add(self, found: Problem) -> None:
        if len(self.problems) == MAX_PROBLEMS:
            more = Problem((), f"more than {MAX_PROBLEMS} problems: fix these first", self.source)
            raise SpecError([*self.problems, more])
        self.problems.append(found)

    def fatal(self, node: Node, path: FieldPath, message: str) -> SpecError:
        return SpecError([*self.problems, self.problem(node, path, message)])

    def build(self, node: Node, path: FieldPath, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_VALUES:
            raise self.fatal(
                node,
                path,
                f"the document expands to more than {MAX_VALUES:,} values (each alias repeats "
                "its anchor): a spec needs a few hundred; write values out instead of nesting "
                "aliases",
            )
        if depth > MAX_DEPTH:
            raise self.fatal(
                node, path, f"nested deeper than {MAX_DEPTH} levels (a spec needs 4): {_FLATTEN}"
            )
        if isinstance(node, ScalarNode):
            return self.scalar(node, path)
        if id(node) in self.open:
            raise self.fatal(
                node,
                path,
                "an alias refers to a collection that contains it: point it at an anchor outside",
            )
        self.open.add(id(node))
        try:
            if isinstance(node, SequenceNode) and str(node.tag) == f"{_TAG}seq":
                return self.sequence(node, path, depth)
            if isinstance(node, MappingNode) and str(node.tag) == f"{_TAG}map":
                return self.mapping(node, path, depth)
        finally:
            self.open.discard(id(node))
        raise self.refuse_tag(node, path)

    def refuse_tag(self, node: Node, path: FieldPath) -> SpecError:
        tag = _tag_name(str(node.tag))
        return self.fatal(node, path, f"YAML tag {tag} is not allowed in a spec: remove it")

    def sequence(self, node: SequenceNode, path: FieldPath, depth: int) -> list[Any]:
        items = []
        for index, child in enumerate(node.value):
            self.lines[(*path, index)] = child.start_mark.line + 1
            items.append(self.build(child, (*path, index), depth + 1))
        return items

    def mapping(self, node: MappingNode, path: FieldPath, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        key_lines: dict[str, int] = {}
        merged: list[Node] = []
        merge_line = 0
        for key_node, value_node in node.value:
            if str(key_node.tag) == f"{_TAG}merge":
                if merged:  # YAML readers disagree on which of two wins
                    self.add(
                        Problem(
                            path,
                            f"duplicate key <<: already set on line {merge_line}; merge several "
                            "sources with one: <<: [*first, *second]",
                            self.source,
                            key_node.start_mark.line + 1,
                        )
                    )
                    continue
                merge_line = key_node.start_mark.line + 1
                merged.append(value_node)
                continue
            key = self.key(key_node, path)
            if key is None:
                continue
            line = key_node.start_mark.line + 1
            if key in key_lines:
                self.add(
                    Problem(
                        (*path, key),
                        f"duplicate key: already set on line {key_lines[key]}; keep one",
                        self.source,
                        line,
                    )
                )
                continue
            key_lines[key] = line
            self.lines[(*path, key)] = line
            result[key] = self.build(value_node, (*path, key), depth + 1)
        for source in self.merge_sources(merged, path):
            # Keys written out win over merged ones; an earlier merge source wins over a later.
            for key, value in self.build(source, path, depth).items():
                result.setdefault(key, value)
        self.lines.update({(*path, key): line for key, line in key_lines.items()})
        return result

    def merge_sources(self, merged: list[Node], path: FieldPath) -> list[Node]:
        sources: list[Node] = []
        for value in merged:
            candidates = value.value if isinstance(value, SequenceNode) else [value]
            for candidate in candidates:
                if not isinstance(candidate, MappingNode):
                    raise self.fatal(
                        candidate,
                        path,
                        "<< merges a mapping or a list of them: write <<: *name, where &name "
                        "marks a mapping, or <<: [*first, *second]",
                    )
                sources.append(candidate)
        return sources

    def key(self, node: Node, path: FieldPath) -> str | None:
        tag = str(node.tag)
        if isinstance(node, ScalarNode) and tag in _TEXT_TAGS:
            return self.text(node, path)
        if isinstance(node, ScalarNode):
            kind = _KINDS.get(tag, f"tagged {_tag_name(tag)}")
            message = f"key {node.value!r} is {kind}, not a name: quote it if it is meant as text"
        else:
            kind = "a list" if isinstance(node, SequenceNode) else "a mapping"
            message = f"{kind} cannot be a key: every key in a spec is a name (see `tpgen schema`)"
        self.add(self.problem(node, path, message))
        return None

    def scalar(self, node: ScalarNode, path: FieldPath) -> Any:
        tag = str(node.tag)
        if tag in _TEXT_TAGS:
            return self.text(node, path)
        if tag not in _TYPED:
            raise self.refuse_tag(node, path)
        if (
            tag == f"{_TAG}float"
            and isinstance(node, _PlainScalar)
            and yaml11_kind(node.value) != "float"
        ):
            fix = "write it with a dot and a signed exponent (1.0e+3), or quote it for text"
            self.add(self.problem(node, path, _read_apart(node.value, "text", "a number", fix)))
            return None
        # An explicit !!int, !!bool, !!float or !!null on text that is not one: ruamel's
        # constructors raise whatever their parsing raises, or (!!null) ignore the text.
        try:
            value = self.typed(node, tag, path)
        except (ValueError, KeyError, IndexError, TypeError, OverflowError):
            value = _UNREADABLE
        if value is _UNREADABLE:
            kind, example = _TYPED[tag]
            fix = f"write e.g. {example} or remove the tag"
            self.add(self.problem(node, path, f"{shown(node.value)} is not {kind}: {fix}"))
            return None
        return value

    def typed(self, node: ScalarNode, tag: str, path: FieldPath) -> Any:
        if tag == f"{_TAG}null":
            return None if _NULL.fullmatch(node.value) else _UNREADABLE
        if tag == f"{_TAG}bool":
            return self.constructor.construct_yaml_bool(node)
        if tag == f"{_TAG}float":
            return self.constructor.construct_yaml_float(node)
        return self.whole(node, path)

    def whole(self, node: ScalarNode, path: FieldPath) -> int | None:
        """An int every YAML reader reads as tpgen does, or None and a problem."""
        number = None
        if len(node.value) <= MAX_NUMBER_CHARS:
            number = self.constructor.construct_yaml_int(node)
        if number is None or _too_big(number):
            message = (
                f"a number of {len(node.value):,} characters: no value in a spec comes near "
                f"that size; {_RANGES}"
            )
        elif not _DECIMAL.match(node.value):
            message = (
                f"{node.value!r}: write it in plain decimal digits; YAML readers disagree on "
                f"numbers with a leading 0, 0x, 0o, 0b or _ (tpgen would read {number})"
            )
        else:
            return int(number)
        self.add(self.problem(node, path, message))
        return None

    def text(self, node: ScalarNode, path: FieldPath) -> str | None:
        value = str(node.value)
        if isinstance(node, _PlainScalar) or str(node.tag) != f"{_TAG}str":
            kind = yaml11_kind(value) if isinstance(node, _PlainScalar) else "timestamp"
            if kind != "str":
                self.add(self.problem(node, path, _text_read_apart(value, kind)))
                return None
        surrogate = _SURROGATE.search(value)
        if surrogate is None:
            return value
        message = (
            f"the escape for U+{ord(surrogate.group()):04X} (a UTF-16 surrogate) is not a "
            "character: write the character itself, or \\U and its 8 hex digits"
        )
        self.add(self.problem(node, path, message))
        return None


def _read_apart(value: str, yaml11: str, tpgen: str, fix: str) -> str:
    return (
        f"{value} unquoted is {yaml11} to YAML 1.1 readers (Ansible, PyYAML) and {tpgen} "
        f"to tpgen: {fix}"
    )


def _text_read_apart(value: str, kind: str) -> str:
    """Text to tpgen that YAML 1.1 types: the role would get a date, a boolean or a number."""
    quote = f"quote it ('{value}')"
    if kind == "bool":
        truth = "true" if value.lower() in {"yes", "true", "on"} else "false"
        return _read_apart(
            value, truth, "text", f"write {truth} for a boolean, or {quote} for text"
        )
    reading = {"timestamp": "a date", "int": "a number", "float": "a number"}.get(kind, kind)
    return _read_apart(value, reading, "text", quote)


_UNREADABLE = object()
_NULL = re.compile(r"~|null|Null|NULL|")
_SURROGATE = re.compile("[\ud800-\udfff]")
# The scalar types a spec holds, read by ruamel's own constructors (ints by _DECIMAL's rule too).
_TYPED = {
    f"{_TAG}int": ("a whole number", "4"),
    f"{_TAG}null": ("null", "~"),
    f"{_TAG}bool": ("true or false", "true"),
    f"{_TAG}float": ("a number", "1.5"),
}
# An int every YAML reader reads alike: no base prefix, leading zero or separator.
_DECIMAL = re.compile(r"[-+]?(0|[1-9][0-9]*)\Z")


def _text_problem(text: str, source: str) -> Problem | None:
    bad = _NOT_YAML_TEXT.search(text)
    if bad is None:
        return None
    line_start = text.rfind("\n", 0, bad.start()) + 1
    what = (
        "a line break only some YAML readers see"
        if bad.group() in _AMBIGUOUS_BREAKS
        else "YAML text cannot hold it"
    )
    return Problem(
        _field_at(text, bad.start()),
        f"control character U+{ord(bad.group()):04X} at column {bad.start() - line_start + 1}: "
        f"{what}; remove it (write it as an escape in a quoted string)",
        source,
        text.count("\n", 0, bad.start()) + 1,
    )


def _field_at(text: str, offset: int) -> FieldPath:
    """The field whose value holds ``offset``, read with each character YAML cannot hold as a
    space (offsets kept): a control character's message names its field; () if none."""
    yaml = YAML(typ="safe", pure=True)
    yaml.max_depth = MAX_DEPTH
    yaml.Composer = _BoundedComposer
    try:
        root, _ = _compose(yaml, _NOT_YAML_TEXT.sub(" ", text), "")
    except SpecError:
        return ()
    path: FieldPath = ()
    node = root
    while isinstance(node, MappingNode | SequenceNode):
        items = (
            [(key.value, value) for key, value in node.value if isinstance(key, ScalarNode)]
            if isinstance(node, MappingNode)
            else list(enumerate(node.value))
        )
        inside = [
            (part, value)
            for part, value in items
            if value.start_mark.index <= offset <= value.end_mark.index
        ]
        if not inside:
            break
        part, node = inside[0]
        path = (*path, part)
    return path


class _TooManyNodes(MarkedYAMLError):
    pass


class _PlainScalar(ScalarNode):
    """A scalar written unquoted and untagged: its type is what the reader's YAML version says."""

    __slots__ = ()


class _BoundedComposer(Composer):
    """Stops composing after MAX_VALUES nodes: the pure-Python parser takes ~50 µs a node.

    Marks each unquoted, untagged scalar as a _PlainScalar, which YAML 1.1 readers may type
    differently from tpgen."""

    nodes = 0

    def compose_scalar_node(self, anchor: Any) -> Any:
        event = self.parser.peek_event()
        node = super().compose_scalar_node(anchor)
        if event.ctag is None and event.style is None:
            node.__class__ = _PlainScalar
        return node

    def compose_node(self, parent: Any, index: Any) -> Any:
        self.nodes += 1
        if self.nodes > MAX_VALUES:
            mark = self.parser.peek_event().start_mark
            raise _TooManyNodes(None, None, "too many values", mark)
        return super().compose_node(parent, index)


def _compose(yaml: YAML, text: str, source: str) -> tuple[Node | None, Node | None]:
    """The first document's node tree, and the second's if there is one."""
    try:
        with warnings.catch_warnings():
            # A redefined anchor is legal YAML (the latest wins); ruamel warns on stderr.
            warnings.simplefilter("ignore")
            documents = yaml.compose_all(text)
            return next(documents, None), next(documents, None)
    # ValueError, OverflowError: chr() of a \U escape past U+10FFFF, in ruamel's scanner.
    except (YAMLError, ValueError, OverflowError) as err:
        raise SpecError([_not_yaml(err, source)]) from None
    except AssertionError:
        # ruamel asserts, rather than raising a YAMLError, on a %YAML 1.x directive of a version
        # it does not read (1.0, 1.3): the text's fault, not tpgen's.
        directive = next(
            (
                found
                for found in _YAML_DIRECTIVE.finditer(text)
                if (int(found.group(2)), int(found.group(3))) not in ((1, 1), (1, 2))
            ),
            None,
        )
        if directive is None:
            raise
        line = text.count("\n", 0, directive.start()) + 1
        message = (
            f"not valid YAML: %YAML {directive.group(1)}: tpgen reads YAML 1.1 and 1.2; "
            "write %YAML 1.2, or remove the line"
        )
        raise SpecError([Problem((), message, source, line)]) from None


# A %YAML directive's version, as ruamel reads it: two numbers.
_YAML_DIRECTIVE = re.compile(r"^%YAML[ \t]+(([0-9]+)\.([0-9]+))", re.MULTILINE)


_FIX_YAML = "fix the YAML there (a value holding ': ' or ' #' needs quotes)"
_UNDEFINED_ALIAS = re.compile(r"found undefined alias '(.*)'\Z")


def _yaml_problem(what: str, mark: Any) -> str:
    """The YAML reader's problem with its fix: ruamel says what is wrong, not what to write."""
    if "codec can't decode" in what:  # ruamel's wording of a tag's %-escapes
        return "a tag's %-escapes are not UTF-8; remove the tag"
    alias = _UNDEFINED_ALIAS.match(what)
    if alias:
        return f"{what}: mark the value it stands for with &{alias.group(1)}, before the alias"
    column = f" at column {mark.column + 1}" if mark is not None else ""
    return f"{what or 'not valid YAML'}{column}: {_FIX_YAML}"


def _not_yaml(err: Exception, source: str) -> Problem:
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    line = mark.line + 1 if mark is not None else None
    if isinstance(err, MaxDepthExceededError):
        message = f"nested deeper than {MAX_DEPTH} levels (a spec needs 4): {_FLATTEN}"
    elif isinstance(err, _TooManyNodes):
        message = (
            f"more than {MAX_VALUES:,} keys and values: a spec needs a few hundred; remove the rest"
        )
    elif isinstance(err, MarkedYAMLError):
        message = f"not valid YAML: {_yaml_problem(err.problem or err.context or '', mark)}"
    elif isinstance(err, YAMLError):
        message = f"not valid YAML: {err}; {_FIX_YAML}"
    else:
        message = (
            "not valid YAML: a \\U escape in a double-quoted string names no character "
            "(U+0000 … U+10FFFF); fix it"
        )
    return Problem((), message, source, line)


def parse_spec_text(text: str, source: str = "<spec>") -> SpecDocument:
    """YAML text → plain data and line map; SpecError for anything that is not a plain spec."""
    found = _text_problem(text, source)
    if found is not None:
        raise SpecError([found])
    yaml = YAML(typ="safe", pure=True)
    yaml.max_depth = MAX_DEPTH
    yaml.Composer = _BoundedComposer
    root, extra = _compose(yaml, text, source)
    if extra is not None:
        line = extra.start_mark.line + 1
        message = "a second YAML document: a spec file holds one; remove it and the --- before it"
        raise SpecError([Problem((), message, source, line)])
    if root is None:
        return SpecDocument(None, {}, source)
    document = _Document(yaml, source)
    data = document.build(root, (), 0)
    if document.problems:
        raise SpecError(document.problems)
    return SpecDocument(data, document.lines, source)


def read_spec_document(path: str | Path) -> SpecDocument:
    """A spec file read within the bounds: regular file, 1 MiB, UTF-8, plain YAML."""
    source = str(path)
    try:
        data = read_regular_file(source, MAX_SPEC_BYTES)
    except FileRefused as err:
        raise SpecError([Problem((), f"cannot read the spec: {err.message}", source)]) from None
    text = decode_utf8(data)
    if isinstance(text, NotUtf8):
        raise SpecError(
            [
                Problem(
                    (),
                    f"not UTF-8 text: byte 0x{text.byte:02x} at column {text.column} (byte "
                    f"offset {text.offset}): save the spec as UTF-8",
                    source,
                    text.line,
                )
            ]
        )
    return parse_spec_text(text.removeprefix("\ufeff"), source)


def load_spec_text(text: str, source: str = "<spec>") -> NodeSpec:
    document = parse_spec_text(text, source)
    return spec_from_mapping(document.data, source, document.lines)


def load_spec_file(path: str | Path) -> NodeSpec:
    document = read_spec_document(path)
    return spec_from_mapping(document.data, document.source, document.lines)
