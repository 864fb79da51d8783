"""What tpgen guard decided on this node (its state file), against what the spec says.

The file is guard's (tpgen.ops.guard.state); doctor only reads it, so a node without guard has
no file and gets no finding. A disk guard failed that the spec still lists as in service fails
the node until the decision is persisted (doctor.yml writes it into host_vars).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from .findings import Finding, Level
from .layout import LayoutDisk

CHECK = "guard.state"


def read_guard_disks(text: str) -> dict[str, Mapping[str, str]]:
    """Disk name -> {state, since, reason}; ValueError for a file guard did not write."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise ValueError("nested deeper than Python reads") from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # int() refuses a number of more than 4300 digits
        raise ValueError("a number too long to read") from None
    version = data.get("version") if isinstance(data, dict) else None
    # true == 1 and 1.0 == 1 in Python: guard writes the integer.
    is_one = isinstance(version, int) and not isinstance(version, bool) and version == 1
    disks = data.get("disks") if is_one else None
    if not isinstance(disks, dict) or not all(
        isinstance(item, dict) and isinstance(item.get("state"), str) for item in disks.values()
    ):
        raise ValueError("not a version 1 guard state")
    return {str(name): item for name, item in disks.items()}


def check_guard_state(
    text: str | None, disks: Sequence[LayoutDisk], *, path: str, error: str | None = None
) -> list[Finding]:
    """One finding per disk guard did not leave active; nothing without a state file."""
    if text is None:
        if error is None:
            return []
        return [Finding(CHECK, Level.WARN, f"cannot read {path}: {error}")]
    try:
        guarded = read_guard_disks(text)
    except ValueError as err:
        return [
            Finding(
                CHECK,
                Level.WARN,
                f"{path} is corrupt ({err})",
                fix="guard sets a corrupt state aside at its start: systemctl restart tpgen-guard",
            )
        ]
    spec = {disk["name"]: disk["state"] for disk in disks}
    return [
        _finding(name, item, spec.get(name))
        for name, item in sorted(guarded.items())
        if item.get("state") != "active"
    ]


def _finding(name: str, item: Mapping[str, str], in_spec: str | None) -> Finding:
    state, since, reason = item.get("state"), item.get("since", "?"), item.get("reason", "")
    data = {"state": state, "since": since, "reason": reason, "spec_state": in_spec}
    said = f"guard: {name} {state} since {since}: {reason}"
    if state == "slow":
        return Finding(
            CHECK,
            Level.WARN,
            said,
            subject=name,
            data=data,
            fix=f"a dying disk is often slow first: drain it (disk-drain.yml -e disk={name}) "
            "or set guard.slow: drain in the spec",
        )
    if in_spec == state:
        return Finding(CHECK, Level.OK, f"{said} (the spec agrees)", subject=name, data=data)
    return Finding(
        CHECK,
        Level.FAIL,
        f"{said}; the spec still says {in_spec or 'nothing of it'}",
        subject=name,
        data=data,
        fix="persist it: ansible-playbook doctor.yml -l <host> (writes the state into host_vars); "
        f"then replace the disk: disk-replace.yml -e disk={name}",
    )
