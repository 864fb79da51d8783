"""The draft as `tpgen validate` sees it: a disk it refuses is skipped with its reason.

ops does not import the spec's validator (the ops-narrow contract): the command hands it in.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence

from tpgen.errors import Problem, format_path, printable

from .decide import NO_DISK_NOTE, Discovery, Skipped
from .draft import render_draft

# validate's refusals of a draft's text: none when it accepts it
DraftCheck = Callable[[str], Sequence[Problem]]
# validate names another disk by its place in the draft, which skipping disks changes
_DISK_INDEX = re.compile(r"\bdisks\.(\d+)(?:\.([a-z_]+))?\b")


def vetted(discovery: Discovery, check: DraftCheck) -> Discovery:
    """``discovery`` with each disk validate refuses moved to the skipped devices (its reason
    validate's line), until the rest passes; a refusal of anything else is kept in
    ``refused``, which the draft prints at its top."""
    # Each round skips at least one disk, or ends: one more round than there are disks.
    for _ in range(len(discovery.disks) + 1):
        if not discovery.disks:
            return discovery
        problems = check(render_draft(discovery))
        if not problems:
            return discovery
        refused = _disk_reasons(problems, discovery)
        if not refused:
            lines = tuple(_line(item, discovery) for item in problems)
            return dataclasses.replace(discovery, refused=lines)
        discovery = _skip(discovery, refused)
    return discovery


def _line(item: Problem, discovery: Discovery) -> str:
    """validate's line without the file, each disk it names by place named by device."""

    def device(found: re.Match[str]) -> str:
        index, key = int(found.group(1)), found.group(2)
        if index >= len(discovery.disks):
            return found.group(0)
        disk = discovery.disks[index]
        return f"{disk.name}'s {key}" if key else f"{disk.name} ({disk.device})"

    where = item.path[2:] if _disk_of(item, discovery) is not None else item.path
    return _DISK_INDEX.sub(device, f"{format_path(where)}: {printable(item.message)}")


def _disk_of(item: Problem, discovery: Discovery) -> int | None:
    path = item.path
    if len(path) >= 2 and path[0] == "disks" and isinstance(path[1], int):
        return path[1] if path[1] < len(discovery.disks) else None
    return None


def _disk_reasons(problems: Sequence[Problem], discovery: Discovery) -> dict[int, str]:
    """The first refusal of each disk validate names (disks.N....), by N."""
    reasons: dict[int, str] = {}
    for item in problems:
        index = _disk_of(item, discovery)
        if index is not None:
            reasons.setdefault(index, f"refused by tpgen validate: {_line(item, discovery)}")
    return reasons


def _skip(discovery: Discovery, reasons: dict[int, str]) -> Discovery:
    kept = tuple(d for i, d in enumerate(discovery.disks) if i not in reasons)
    skipped = tuple(Skipped(discovery.disks[i].device, reasons[i]) for i in sorted(reasons))
    notes = discovery.notes if kept else (*discovery.notes, NO_DISK_NOTE)
    return dataclasses.replace(
        discovery, disks=kept, skipped=discovery.skipped + skipped, notes=notes
    )
