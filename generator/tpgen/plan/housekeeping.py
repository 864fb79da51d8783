"""The cache loader and manager of a zone (proxy_cache_path loader_*, manager_*), sized for
disks that hold millions of files."""

from __future__ import annotations

import math
from typing import Any

from tpgen.plan.defaults import (
    DISK_WRITE_BYTES_PER_ITERATION,
    LOADER_FILES_DEFAULT,
    LOADER_FILES_MAX,
    LOADER_TARGET_ITERATIONS,
    LOADER_THRESHOLD,
    MANAGER_FILES_DEFAULT,
    MANAGER_FILES_MAX,
)
from tpgen.plan.types import pick
from tpgen.spec.model import Disk, NodeSpec
from tpgen.spec.units import human_size


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(value, high))


def zone_housekeeping(spec: NodeSpec, disk: Disk, files: int, stored: int) -> dict[str, Any]:
    """``files``: how many cached files the zone holds; ``stored``: the size of one."""
    loader = _clamp(
        math.ceil(files / LOADER_TARGET_ITERATIONS), LOADER_FILES_DEFAULT, LOADER_FILES_MAX
    )
    written = DISK_WRITE_BYTES_PER_ITERATION[disk.media]
    manager = _clamp(written // stored, MANAGER_FILES_DEFAULT, MANAGER_FILES_MAX)
    policy = spec.cache
    return {
        "loader_files": pick(
            policy.loader_files,
            loader,
            f"the zone holds about {files:,} files: the loader indexes them in about "
            f"{LOADER_TARGET_ITERATIONS:,} iterations (nginx's 100 a time would take "
            f"{math.ceil(files / LOADER_FILES_DEFAULT):,}, while every miss on a key not yet "
            f"loaded refetches), at least nginx's {LOADER_FILES_DEFAULT}, at most "
            f"{LOADER_FILES_MAX:,}",
        ),
        "loader_threshold": pick(
            policy.loader_threshold,
            LOADER_THRESHOLD,
            "nginx's default, written out: one loader iteration holds the disk at most 200 ms, "
            "so clients' reads get their turn",
        ),
        "manager_files": pick(
            policy.manager_files,
            manager,
            f"an iteration evicts at least what a {disk.media} writes in one "
            f"({human_size(written)} ÷ {human_size(stored)} files), so eviction keeps up with "
            f"fills; at least nginx's {MANAGER_FILES_DEFAULT}, at most {MANAGER_FILES_MAX:,}",
        ),
    }
