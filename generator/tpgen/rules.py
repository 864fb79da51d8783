"""Cross-field rules of a spec that one field alone cannot check."""

from __future__ import annotations

from collections.abc import Iterator

from tpgen.errors import Problem, problem
from tpgen.model import NodeSpec


def _duplicates(spec: NodeSpec, field: str) -> Iterator[Problem]:
    seen: dict[str, int] = {}
    for index, disk in enumerate(spec.disks):
        value = getattr(disk, field)
        if value in seen:
            yield problem(
                ("disks", index, field),
                f"{value!r} is already used by disks.{seen[value]}: "
                f"each disk needs its own {field}",
            )
        else:
            seen[value] = index


def _nested_mounts(spec: NodeSpec) -> Iterator[Problem]:
    for index, disk in enumerate(spec.disks):
        for other_index, other in enumerate(spec.disks):
            if index != other_index and disk.mount.startswith(other.mount.rstrip("/") + "/"):
                yield problem(
                    ("disks", index, "mount"),
                    f"{disk.mount} is inside disks.{other_index}.mount {other.mount}: "
                    "mount each disk at its own top-level directory",
                )
        if disk.mount == "/":
            yield problem(("disks", index, "mount"), "a cache disk cannot be mounted at /")


def semantic_problems(spec: NodeSpec) -> list[Problem]:
    """Every cross-field problem of a spec that passed field validation."""
    problems: list[Problem] = []
    for field in ("name", "device", "mount"):
        problems.extend(_duplicates(spec, field))
    problems.extend(_nested_mounts(spec))
    if not any(disk.state == "active" for disk in spec.disks):
        problems.append(
            problem(("disks",), "no disk is active: at least one disk must have state: active")
        )
    workload = spec.workload
    if workload.type == "cache" and not workload.upstreams:
        problems.append(
            problem(
                ("workload", "upstreams"),
                'a cache node needs at least one upstream: add upstreams: ["origin:8080"]',
            )
        )
    if workload.type != "cache":
        for field in ("upstreams", "cache_key", "inactive"):
            if getattr(workload, field):
                problems.append(
                    problem(
                        ("workload", field),
                        f"only the cache workload uses {field}: remove it or set type: cache",
                    )
                )
    if spec.listen.port == spec.status.port and spec.listen.address in {
        spec.status.address,
        "0.0.0.0",
        "::",
    }:
        problems.append(
            problem(("status", "port"), f"port {spec.status.port} is the listen port: pick another")
        )
    for index, disk in enumerate(spec.disks):
        if disk.size < 64 << 20:
            problems.append(
                problem(("disks", index, "size"), "a disk smaller than 64MiB cannot hold a cache")
            )
        if workload.avg_object_size is not None and workload.avg_object_size > disk.size:
            problems.append(
                problem(
                    ("workload", "avg_object_size"),
                    f"larger than disk {disk.name} ({disk.size} bytes): lower avg_object_size",
                )
            )
    if workload.avg_object_size is not None and workload.avg_object_size < 512:
        problems.append(
            problem(("workload", "avg_object_size"), "below 512 bytes: write a realistic average")
        )
    if spec.node.memory < 256 << 20:
        problems.append(problem(("node", "memory"), "below 256MiB: nginx needs more RAM than that"))
    if spec.tuning.directio is not None and workload.type != "vod":
        problems.append(
            problem(("tuning", "directio"), "directio is a vod rule: remove it or set type: vod")
        )
    return problems
