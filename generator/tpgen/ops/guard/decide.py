"""The rules (DESIGN §7): when a disk's evidence fails it, and when guard only reports.

Pure: evidence, states and the time go in, at most one :class:`Verdict` per disk comes out.

- A disk crosses the threshold with ``errors`` pieces of evidence within ``window``, or when
  its mount is wrong on two polls in a row (gone, read-only, another device).
- Two or more disks crossing together are a cluster: a controller, a cable, the kernel. Guard
  reports it and fails none, so one bad cable never empties a node.
- At most one disk is failed per ``rate_window``; another one crossing in that span is
  reported for an operator to confirm (disk-fail.yml).
- The last active disk is never failed: a node that serves from one sick disk still answers
  most requests (cache misses go to the origin), a node with no disk answers none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .detect import Evidence, GuardDisk
from .policy import Policy

WATCHED = ("active", "draining")


@dataclass(frozen=True)
class Verdict:
    kind: str  # fail | cluster | rate_limited | last_disk
    disks: tuple[str, ...]
    message: str
    evidence: tuple[Evidence, ...] = ()

    @property
    def acts(self) -> bool:
        return self.kind == "fail"


def in_window(evidence: Sequence[Evidence], now: float, window: float) -> list[Evidence]:
    return [item for item in evidence if now - item.at <= window]


def crossing(evidence: Sequence[Evidence], policy: Policy) -> bool:
    """Whether one disk's evidence within the window crosses the threshold."""
    decisive = sum(1 for item in evidence if item.decisive)
    return len(evidence) >= policy.errors or decisive >= 2


def _summary(evidence: Sequence[Evidence], policy: Policy) -> str:
    sources = ", ".join(sorted({item.source for item in evidence}))
    decisive = [item for item in evidence if item.decisive]
    if decisive and len(evidence) < policy.errors:
        return decisive[-1].line
    return f"{len(evidence)} I/O errors within {policy.window:g}s ({sources})"


def decide(
    now: float,
    disks: Sequence[GuardDisk],
    evidence: Mapping[str, Sequence[Evidence]],
    policy: Policy,
    last_failure: float | None,
    *,
    state_lost: float | None = None,
) -> list[Verdict]:
    """What to do now. ``disks`` carry their current state (the spec's, or guard's own);
    ``last_failure`` is when guard last failed a disk, ``state_lost`` when it set a corrupt
    state file aside (and with it the time of any failure before)."""
    recent = {
        disk.name: in_window(evidence.get(disk.name, ()), now, policy.window)
        for disk in disks
        if disk.state in WATCHED
    }
    over = sorted(name for name, items in recent.items() if crossing(items, policy))
    if len(over) >= 2:
        merged = tuple(item for name in over for item in recent[name])
        return [
            Verdict(
                "cluster",
                tuple(over),
                f"{len(over)} disks crossed the error threshold together ({', '.join(over)}): "
                f"more likely a controller, cable or kernel problem than {len(over)} dead disks; "
                "none taken out. Check dmesg and the controller; fail a disk with disk-fail.yml",
                merged,
            )
        ]
    if not over:
        return []
    name = over[0]
    return [
        _one(
            name,
            disks,
            recent[name],
            policy,
            now=now,
            last_failure=last_failure,
            state_lost=state_lost,
        )
    ]


def _one(
    name: str,
    disks: Sequence[GuardDisk],
    evidence: Sequence[Evidence],
    policy: Policy,
    *,
    now: float,
    last_failure: float | None,
    state_lost: float | None,
) -> Verdict:
    summary = _summary(evidence, policy)
    others = [disk.name for disk in disks if disk.state == "active" and disk.name != name]
    if not others and any(disk.name == name and disk.state == "active" for disk in disks):
        return Verdict(
            "last_disk",
            (name,),
            f"{name} is failing ({summary}) but it is the last active disk: kept in service, "
            "a node with no disk serves nothing. Replace it (disk-replace.yml)",
            tuple(evidence),
        )
    # the lost file may have held a failure of moments before: its window runs from the loss
    for since, what in (
        (last_failure, "guard already failed a disk {ago}s ago"),
        (
            state_lost,
            "guard set its corrupt state file aside {ago}s ago and may have failed a "
            "disk just before",
        ),
    ):
        if since is not None and now - since < policy.rate_window:
            return Verdict(
                "rate_limited",
                (name,),
                f"{name} is failing ({summary}) but {what.format(ago=f'{now - since:.0f}')} "
                f"(rate window {policy.rate_window:g}s): kept in service. Confirm with: "
                f"ansible-playbook disk-fail.yml -l <host> -e disk={name}",
                tuple(evidence),
            )
    return Verdict("fail", (name,), f"{name} failed: {summary}", tuple(evidence))
