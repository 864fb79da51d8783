"""The report: a text table for people, the ``tpgen-doctor/1`` JSON document for tools."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .findings import Finding, Level, worst

JSON_SCHEMA_ID = "tpgen-doctor/1"


def report_json(
    findings: Sequence[Finding], *, host: str, source: str, since: str | None
) -> dict[str, Any]:
    """The ``--json`` document (schema ``tpgen-doctor/1``, see docs/operations.md)."""
    level = worst(findings)
    return {
        "schema": JSON_SCHEMA_ID,
        "host": host,
        "spec": source,
        "since": since,
        "status": level.label,
        "exit_code": int(level),
        "counts": {lvl.label: sum(1 for f in findings if f.level == lvl) for lvl in Level},
        "findings": [f.to_json() for f in findings],
    }


def report_text(findings: Sequence[Finding], *, host: str) -> str:
    """A table, one finding per line, the fix under every warning or failure."""
    rows = [
        (f.level.label.upper(), f.check, _cell(f.subject or "-"), _cell(f.message))
        for f in findings
    ]
    width_check = max([len(r[1]) for r in rows] + [5])
    width_subject = max([len(r[2]) for r in rows] + [7])
    lines = [f"{'LEVEL':<5} {'CHECK':<{width_check}} {'SUBJECT':<{width_subject}} MESSAGE"]
    for finding, row in zip(findings, rows, strict=True):
        lines.append(f"{row[0]:<5} {row[1]:<{width_check}} {row[2]:<{width_subject}} {row[3]}")
        lines += _under(finding, f"{'':<5} {'':<{width_check}} {'':<{width_subject}} ")
    counts = {lvl: sum(1 for f in findings if f.level == lvl) for lvl in Level}
    lines.append(
        f"doctor {host}: {worst(findings).label} ({counts[Level.OK]} ok, "
        f"{counts[Level.WARN]} warn, {counts[Level.FAIL]} fail)"
    )
    return "\n".join(lines) + "\n"


def _under(finding: Finding, indent: str) -> list[str]:
    """The lines under a warning or failure: its fix, then its diff."""
    if finding.level == Level.OK:
        return []
    fix = [f"{indent}fix: {_cell(finding.fix)}"] if finding.fix else []
    return fix + [f"      | {_cell(diff_line)}" for diff_line in finding.data.get("diff", [])]


def _cell(text: str) -> str:
    """``text`` with what a terminal would act on escaped (a tab kept): a zone name from the
    error log or a line of the live config is the node's text, and an escape sequence or a
    newline in one rewrote the table, or the screen."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == "\t" else repr(c)[1:-1] for c in text)
