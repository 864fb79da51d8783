"""The cgroup nginx runs in: a block-I/O read throttle per disk and a memory limit.

cgroup v1 (`blkio.throttle.*`, `memory.limit_in_bytes`) and v2 (`io.max`, `memory.max`) are both
supported. v1 groups are created under the bench's own group of each controller, so that a parent
limit still applies; v2 groups under the root of the unified tree (v2 forbids processes in inner
groups, so the bench's own group cannot be a parent).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path

from bench.system import BenchError

CGROUP_ROOT = Path("/sys/fs/cgroup")


class Cgroup(ABC):
    """One cgroup (a directory per controller on v1, one directory on v2)."""

    def __init__(self, name: str, dirs: list[Path]) -> None:
        self.name = name
        self.dirs = dirs

    @abstractmethod
    def limit_reads(self, device: str, bps: int, iops: int) -> None:
        """Throttle reads of the block device `device` ("MAJ:MIN") by processes in the group."""

    @abstractmethod
    def limit_memory(self, limit: int) -> None:
        """Bound the group's memory, page cache included."""

    @abstractmethod
    def memory_peak(self) -> int | None:
        """Highest memory use (page cache included) seen, if the kernel reports it."""

    def join_paths(self) -> list[Path]:
        """The `cgroup.procs` files a new process writes its pid to (see `command`)."""
        return [d / "cgroup.procs" for d in self.dirs]

    def command(self, argv: Sequence[str], *, nofile_hard: int | None = None) -> list[str]:
        """`argv` started inside the group: a shell writes its own pid to each `cgroup.procs`,
        then execs it, so everything it forks is inside too. Not a preexec_fn, which may
        deadlock a child forked from a process with threads (the bench's samplers).
        `nofile_hard` raises (never lowers) the open-files hard limit first, where allowed."""
        steps = [f"echo $$ > {shlex.quote(str(procs))}" for procs in self.join_paths()]
        if nofile_hard is not None:
            steps.append(
                f'{{ h=$(ulimit -Hn); [ "$h" = unlimited ] || [ "$h" -ge {nofile_hard} ] || '
                f"ulimit -Hn {nofile_hard} 2>/dev/null || :; }}"
            )
        return ["sh", "-c", " && ".join([*steps, 'exec "$@"']), "sh", *argv]

    def pids(self) -> set[int]:
        found: set[int] = set()
        for procs in self.join_paths():
            if procs.exists():
                found.update(int(line) for line in procs.read_text().split())
        return found

    def create(self) -> None:
        for d in self.dirs:
            d.mkdir(exist_ok=False)

    def destroy(self, timeout: float = 10.0) -> None:
        """Kill what is left inside (only the bench puts processes here), then remove the dirs."""
        deadline = time.monotonic() + timeout
        while (pids := self.pids()) and time.monotonic() < deadline:
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.1)
        for d in reversed(self.dirs):
            while d.exists():
                try:
                    d.rmdir()
                except OSError as exc:
                    if time.monotonic() > deadline:
                        raise BenchError(f"cannot remove cgroup {d}: {exc}") from exc
                    time.sleep(0.1)


class CgroupV1(Cgroup):
    def __init__(self, name: str) -> None:
        super().__init__(name, [_own_v1_dir("blkio") / name, _own_v1_dir("memory") / name])
        self.blkio, self.memory = self.dirs

    def limit_reads(self, device: str, bps: int, iops: int) -> None:
        (self.blkio / "blkio.throttle.read_bps_device").write_text(f"{device} {bps}\n")
        (self.blkio / "blkio.throttle.read_iops_device").write_text(f"{device} {iops}\n")

    def limit_memory(self, limit: int) -> None:
        (self.memory / "memory.limit_in_bytes").write_text(f"{limit}\n")

    def memory_peak(self) -> int | None:
        return int((self.memory / "memory.max_usage_in_bytes").read_text())


class CgroupV2(Cgroup):
    def __init__(self, name: str) -> None:
        super().__init__(name, [CGROUP_ROOT / name])
        self.dir = self.dirs[0]

    def create(self) -> None:
        control = CGROUP_ROOT / "cgroup.subtree_control"
        enabled = control.read_text().split()
        for ctl in ("io", "memory"):
            if ctl not in enabled:
                control.write_text(f"+{ctl}\n")
        super().create()

    def limit_reads(self, device: str, bps: int, iops: int) -> None:
        (self.dir / "io.max").write_text(f"{device} rbps={bps} riops={iops}\n")

    def limit_memory(self, limit: int) -> None:
        (self.dir / "memory.max").write_text(f"{limit}\n")

    def memory_peak(self) -> int | None:
        peak = self.dir / "memory.peak"  # Linux >= 5.19
        return int(peak.read_text()) if peak.exists() else None


def _own_v1_dir(controller: str) -> Path:
    """This process's group of a v1 controller, e.g. /sys/fs/cgroup/memory/some/group."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return CGROUP_ROOT / controller / path.lstrip("/")
    raise BenchError(f"cgroup v1 controller {controller} not mounted")


def cgroup_version() -> int:
    """1 when the v1 blkio and memory controllers are mounted, 2 when v2 offers io and memory."""
    if (CGROUP_ROOT / "blkio" / "blkio.throttle.read_bps_device").exists() and (
        CGROUP_ROOT / "memory" / "memory.limit_in_bytes"
    ).exists():
        return 1
    controllers = CGROUP_ROOT / "cgroup.controllers"
    if controllers.exists() and {"io", "memory"} <= set(controllers.read_text().split()):
        return 2
    raise BenchError("need cgroup v1 blkio+memory or cgroup v2 io+memory controllers")


def new_cgroup(name: str) -> Cgroup:
    """A cgroup object of the kind this host has (not created yet: call `.create()`)."""
    return CgroupV1(name) if cgroup_version() == 1 else CgroupV2(name)
