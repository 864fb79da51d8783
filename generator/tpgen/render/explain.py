"""The plan as a table: directive, value, because.

Generic: every Decision field of the Plan is registered with the directive it feeds
(``tpgen.plan.types.feeds``), so the table is the Plan's fields in config order. A disk is a
heading with its own Decisions below it; its thread pool and cache zone name their rows.
Directives that only wire the decisions together (split_clients, map, proxy_pass, try_files,
locations) have no value of their own and no row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import fields
from typing import Any, Protocol, runtime_checkable

from tpgen.plan.types import Decision, Plan, Shown
from tpgen.spec.units import human_size, nginx_size

Row = tuple[str, str, str]


def _size(value: int) -> str:
    written = nginx_size(value)
    return written if value < 1 << 30 else f"{written} ({human_size(value)})"


def _megabytes(value: int) -> str:
    return f"{value}m"


def _words(value: tuple[Any, ...]) -> str:
    return " ".join(str(item) for item in value)


def _types(value: tuple[tuple[str, tuple[str, ...]], ...]) -> str:
    return f"{len(value)} media types ({sum(len(exts) for _, exts in value)} extensions)"


def _valid(value: tuple[tuple[tuple[int, ...], str], ...]) -> str:
    return ", ".join(f"{_words(codes)} {time}" for codes, time in value)


def _headers(value: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{name} {variable}" for name, variable in value)


def _ciphers(value: str) -> str:
    suites = value.split(":")
    return f"{len(suites)} suites, {suites[0]} first"


_SHOW: dict[Shown, Callable[[Any], str]] = {
    "text": str,
    "size": _size,
    "mb": _megabytes,
    "words": _words,
    "types": _types,
    "valid": _valid,
    "headers": _headers,
    "servers": _words,
    "formats": lambda value: (
        " ".join(f"{name} (escape={escape})" for name, escape, _ in value)
        or "combined (nginx's own)"
    ),
    "ciphers": _ciphers,
}


@runtime_checkable
class Part(Protocol):
    """A dataclass inside the plan whose rows are named after it (a pool, a cache zone)."""

    @property
    def label(self) -> str: ...


@runtime_checkable
class Section(Part, Protocol):
    """A part the plan holds several of (a disk): a heading row of its own."""

    @property
    def summary(self) -> tuple[str, str]: ...


def _decision_rows(part: Any, label: str) -> Iterator[Row]:
    """The rows of one part of the plan: its Decisions, then its sections' rows."""
    for field in fields(part):
        value = getattr(part, field.name)
        if isinstance(value, Decision) and "directive" in field.metadata:
            directive = f"{label} {field.metadata['directive']}".strip()
            shown = _SHOW[field.metadata["shown"]](value.value)
            because = value.because + (" [override]" if value.overridden else "")
            yield directive, shown, because
        elif isinstance(value, Part):
            yield from _decision_rows(value, f"{label} {value.label}".strip())
        elif isinstance(value, tuple):
            yield from _section_rows(value)


def _section_rows(items: tuple[Any, ...]) -> Iterator[Row]:
    """Parts the plan holds one of per disk: a heading each, their rows indented below it."""
    for item in items:
        if isinstance(item, Section):
            yield (item.label, *item.summary)
            yield from (("  " + a, b, c) for a, b, c in _decision_rows(item, ""))


def explain_rows(plan: Plan) -> list[Row]:
    return list(_decision_rows(plan, ""))


def format_table(rows: list[Row]) -> str:
    headers: Row = ("directive", "value", "because")
    widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(2)]
    lines = [f"{headers[0]:<{widths[0]}}  {headers[1]:<{widths[1]}}  {headers[2]}"]
    lines.append(f"{'-' * widths[0]}  {'-' * widths[1]}  {'-' * 7}")
    lines += [f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c}" for a, b, c in rows]
    return "\n".join(lines)
