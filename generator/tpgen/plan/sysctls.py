"""The kernel settings an edge node needs for its config: applied by the storage_disks role
through ansible.posix.sysctl, never written into nginx.conf."""

from __future__ import annotations

from typing import Any

from tpgen.plan.defaults import (
    FILE_MAX_RESERVE,
    LOCAL_PORT_RANGE,
    SOMAXCONN_DEFAULT,
    VFS_CACHE_PRESSURE_HDD,
)
from tpgen.plan.types import Decision
from tpgen.spec.model import NodeSpec


def sysctl_fields(spec: NodeSpec, workers: int, nofile: int, backlog: int) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "somaxconn": Decision(
            max(backlog, SOMAXCONN_DEFAULT),
            f"at least the listen backlog ({backlog:,}): Linux cuts a longer backlog to "
            f"somaxconn; never below {SOMAXCONN_DEFAULT:,}, Linux ≥ 5.4's default (a floor: "
            "a node set higher keeps its value)",
        ),
        "file_max": Decision(
            workers * nofile + FILE_MAX_RESERVE,
            f"{workers} workers × worker_rlimit_nofile {nofile:,} + {FILE_MAX_RESERVE:,} for "
            "the rest of the system: every worker may open all it is allowed (a floor)",
        ),
    }
    if spec.workload.type == "cache":
        fields["local_port_range"] = Decision(
            LOCAL_PORT_RANGE,
            "each origin connection takes a local port: Linux's 32768-60999 gives 28,232 per "
            "origin address, this range 64,512",
        )
    if any(d.media == "hdd" and d.state != "failed" for d in spec.disks):
        fields["vfs_cache_pressure"] = Decision(
            VFS_CACHE_PRESSURE_HDD,
            "keeps inodes and dentries twice as long as the default 100: nginx opens files on "
            "the event loop, and a cold inode on an HDD blocks it. For nodes whose inodes "
            "compete with the page cache: the bench's (1,536 files) showed no difference beyond "
            "its noise (6 regime pairs, 100 against 50: hot req/s 0.97-1.06x)",
        )
    return fields
