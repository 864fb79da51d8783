"""Write a disk's new ``state`` (and device) back into an inventory's host_vars file.

The disk playbooks (``disk-drain.yml``, ``disk-fail.yml``, ``disk-replace.yml``) change the
disk's state in ``tpgen_spec`` for their run; this module makes the change persist on the
controller so that the next ``site.yml`` renders the same config. It edits the YAML in
round-trip mode: comments, key order and flow style of the file stay as they are.

    python -m tpgen.ops.hostvars FILE --disk d2 --state failed [--device /dev/sdx]

Exit code: 0 written or already so, 2 the file or the disk cannot be found.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import MutableMapping, Sequence
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from tpgen.ops.guard.state import write_atomic

# The spec model's disk states (ops imports nothing of the model: import-linter's ops-narrow
# contract); tests/test_ops_hostvars.py holds this copy equal to the model's Literal.
STATES = ("active", "draining", "failed")
DEFAULT_VAR = "tpgen_spec"


class HostVarsError(Exception):
    """The file cannot be changed as asked; ``str()`` is the message for the user."""


def _yaml() -> YAML:
    yaml = YAML()  # round-trip: keeps comments, order, quotes and flow style
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.explicit_start = True
    return yaml


def set_disk_state(
    text: str,
    disk: str,
    state: str,
    *,
    device: str | None = None,
    var: str = DEFAULT_VAR,
    source: str = "host_vars",
) -> tuple[str, list[str]]:
    """Return the new file text and what changed (empty when nothing did).

    ``active`` removes the ``state`` key (active is the default); other states set it.
    """
    if state not in STATES:
        raise HostVarsError(f"state must be one of {', '.join(STATES)}, not {state!r}")
    yaml = _yaml()
    try:
        data = yaml.load(text)
    except YAMLError as err:
        raise HostVarsError(f"{source}: not valid YAML: {err}") from err
    entry = _disk_entry(data, disk, var, source)
    changes = _apply(entry, disk, state, device)
    if not changes:
        return text, []
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue(), changes


def _disk_entry(data: object, disk: str, var: str, source: str) -> MutableMapping[str, Any]:
    """The disk's mapping inside the spec variable of a host_vars document."""
    if not isinstance(data, MutableMapping) or not isinstance(data.get(var), MutableMapping):
        raise HostVarsError(f"{source}: no `{var}` mapping: is this the host's host_vars file?")
    disks = data[var].get("disks")
    if not isinstance(disks, list):
        raise HostVarsError(f"{source}: `{var}` has no disks list")
    entries = [d for d in disks if isinstance(d, MutableMapping)]
    entry = next((d for d in entries if d.get("name") == disk), None)
    if entry is None:
        names = ", ".join(str(d.get("name")) for d in entries)
        raise HostVarsError(f"{source}: no disk named {disk!r} in `{var}` (disks: {names})")
    return entry


def _apply(entry: MutableMapping[str, Any], disk: str, state: str, device: str | None) -> list[str]:
    """Set the state (and device) in place; what changed, one line each."""
    changes = []
    old_state = str(entry.get("state", "active"))
    if old_state != state:
        changes.append(f"{disk}: state {old_state} -> {state}")
    if state == "active":
        entry.pop("state", None)
    else:
        entry["state"] = state
    if device is not None and entry.get("device") != device:
        changes.append(f"{disk}: device {entry.get('device')} -> {device}")
        entry["device"] = device
    return changes


def update_file(
    path: str | Path, disk: str, state: str, *, device: str | None = None, var: str = DEFAULT_VAR
) -> list[str]:
    """Rewrite ``path`` atomically (same mode) when the disk's entry changes."""
    target = Path(path)
    try:
        text = target.read_text(encoding="utf-8")
    except OSError as err:
        raise HostVarsError(
            f"cannot read {target}: {err.strerror} (the disk playbooks take the host's spec "
            "file as -e host_vars_file=PATH, or -e persist=false to leave it alone)"
        ) from err
    new_text, changes = set_disk_state(
        text, disk, state, device=device, var=var, source=str(target)
    )
    if changes:
        try:
            # The record of every disk's state: it must survive a crash in the middle, as it was.
            write_atomic(str(target), new_text, like=str(target))
        except OSError as err:
            raise HostVarsError(
                f"cannot rewrite {target}: {err.strerror or err} (it is unchanged; "
                "-e persist=false leaves it alone)"
            ) from err
    return changes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tpgen.ops.hostvars", description=__doc__.splitlines()[0]
    )
    parser.add_argument("file", help="the host's host_vars file")
    parser.add_argument("--disk", required=True)
    parser.add_argument("--state", required=True, choices=STATES)
    parser.add_argument("--device", help="the disk's new device path (after a replacement)")
    parser.add_argument("--var", default=DEFAULT_VAR, help="the spec's variable name")
    args = parser.parse_args(argv)
    try:
        changes = update_file(args.file, args.disk, args.state, device=args.device, var=args.var)
    except HostVarsError as err:
        print(f"tpgen.ops.hostvars: {err}", file=sys.stderr)
        return 2
    for change in changes:
        print(f"{args.file}: {change}")
    if not changes:
        print(f"{args.file}: unchanged ({args.disk} is {args.state})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
