"""Arm (b) comes from tpgen itself: the bench writes an `origin` spec for its disks, renders it with
`tpgen render` and places every file where `tpgen locate` says."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.loopdisk import LoopDisk
from bench.system import BenchError, run


@dataclass(frozen=True)
class NodeFacts:
    name: str
    cores: int
    memory: int  # what nginx may use, page cache included: the memory cgroup limit
    avg_object_size: int
    listen_port: int
    status_port: int


@dataclass(frozen=True)
class SpecFile:
    """The bench's node as an `origin` spec (docs/spec.md): every disk an HDD."""

    facts: NodeFacts
    disks: tuple[LoopDisk, ...]
    disk_size: int

    def text(self, tuning: Mapping[str, str] | None = None) -> str:
        facts = self.facts
        lines = [
            "# written by `python -m bench`: the emulated node (loop-device HDDs; memory is",
            "# nginx's memory cgroup limit)",
            f"node: {{name: {facts.name}, cores: {facts.cores}, memory: {facts.memory}}}",
            f"workload: {{type: origin, avg_object_size: {facts.avg_object_size}}}",
            f"listen: {{address: 127.0.0.1, port: {facts.listen_port}}}",
            f"status: {{address: 127.0.0.1, port: {facts.status_port}}}",
            *disks_and_tuning(self.disks, self.disk_size, tuning),
        ]
        return "\n".join(lines) + "\n"


def disks_and_tuning(
    disks: Sequence[LoopDisk], disk_size: int, tuning: Mapping[str, str] | None
) -> list[str]:
    """The lines of a bench spec's `disks:` (every disk an HDD) and of its `tuning:` if any."""
    lines = ["disks:"]
    for disk in disks:
        lines.append(
            f"  - {{name: {disk.name}, device: {disk.device}, mount: {disk.mount}, "
            f"size: {disk_size}, media: hdd, filesystem: ext4}}"
        )
    if tuning:
        lines.append("tuning: {" + ", ".join(f"{k}: {v}" for k, v in tuning.items()) + "}")
    return lines


def tpgen_command() -> str:
    """The tpgen next to this Python (the project venv), else the one on PATH."""
    beside = Path(sys.executable).parent / "tpgen"
    if beside.exists():
        return str(beside)
    found = shutil.which("tpgen")
    if found is None:
        raise BenchError("tpgen not found: install the project (pip install -e '.[dev]')")
    return found


def render(spec: Path, out: Path) -> str:
    """`tpgen render SPEC -o OUT` (tpgen runs its own nginx -t); return the config text."""
    run([tpgen_command(), "render", str(spec), "-o", str(out)])
    return out.read_text()


def locate(spec: Path, uris: list[str], chunk: int = 500) -> dict[str, str]:
    """URI -> disk name, from `tpgen locate SPEC KEY...` (origin: the key is the URI)."""
    where: dict[str, str] = {}
    for start in range(0, len(uris), chunk):
        out = run([tpgen_command(), "locate", str(spec), *uris[start : start + chunk]])
        for line in out.splitlines():
            key, _bucket, disk = line.split("\t")
            where[key] = disk
    missing = set(uris) - where.keys()
    if missing:
        raise BenchError(f"tpgen locate gave no disk for {sorted(missing)[:3]}...")
    return where
