"""The draft spec as commented YAML: why each disk is used, why others are skipped."""

from __future__ import annotations

import json
import re

from tpgen.errors import printable

from .decide import DRAFT_UPSTREAM, Discovery

_PLAIN_SCALAR = re.compile(r"[A-Za-z0-9_./@-][A-Za-z0-9_./@-]*")
_YAML_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"})


def yaml_scalar(value: object) -> str:
    """One YAML scalar: plain when unambiguous, else a JSON (double-quoted) string."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if (
        _PLAIN_SCALAR.fullmatch(text)
        and text.lower() not in _YAML_WORDS
        and not re.fullmatch(r"[-+.0-9eE_:]+", text)
    ):
        return text
    return json.dumps(text)


def _comment(line: str) -> str:
    # A device name or mount point is the kernel's text: a newline in one would end the
    # comment and put the rest into the draft as YAML.
    return printable(line)


def render_draft(discovery: Discovery, *, generated_at: str | None = None) -> str:
    """The draft spec as commented YAML: why each disk is used, why others are skipped."""
    spec = discovery.spec_mapping()
    node, workload = spec["node"], spec["workload"]
    when = f" at {generated_at}" if generated_at else ""
    lines = [
        f"# Draft spec written by `tpgen discover` on {discovery.node_name}{when}.",
        "# Review it before use: set workload.upstreams, check every disk below, then run",
        "# `tpgen validate` on it. Devices are named as the kernel sees them now.",
        *(_comment(f"# tpgen validate refuses this draft: {line}") for line in discovery.refused),
        "node:",
        f"  name: {yaml_scalar(node['name'])}",
        f"  cores: {yaml_scalar(node['cores'])}",
        f"  memory: {yaml_scalar(node['memory'])}",
        "workload:",
        "  type: cache",
        f"  upstreams: [{yaml_scalar(DRAFT_UPSTREAM)}]  # TODO: your origin server(s), host:port",
        f"  avg_object_size: {yaml_scalar(workload['avg_object_size'])}  # TODO: measure yours",
    ]
    if discovery.disks:
        lines.append("disks:")
        for choice, entry in zip(discovery.disks, spec["disks"], strict=True):
            lines.append(_comment(f"  # {choice.device}: {choice.reason}"))
            first = True
            for key in ("name", "device", "mount", "size", "media", "filesystem"):
                prefix = "  - " if first else "    "
                lines.append(f"{prefix}{key}: {yaml_scalar(entry[key])}")
                first = False
    else:
        lines.append("disks: []  # no usable disk found: add disks by hand (see docs/spec.md)")
    if discovery.skipped:
        lines.append("# Skipped devices:")
        lines.extend(_comment(f"#   {s.device}: {s.reason}") for s in discovery.skipped)
    return "\n".join(lines) + "\n"
