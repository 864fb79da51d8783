"""Small host helpers: commands, prerequisites, free ports, the page cache."""

from __future__ import annotations

import os
import random
import shutil
import socket
import stat
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path


class BenchError(Exception):
    """A problem the user can fix (missing tool, no root, busy ports...); the CLI exits 2."""


def run(cmd: Sequence[str], *, timeout: float = 120.0, check: bool = True) -> str:
    """Run `cmd`, return its stdout; raise BenchError with its stderr when it fails."""
    try:
        proc = subprocess.run(
            list(cmd), capture_output=True, text=True, timeout=timeout, check=False
        )
    except FileNotFoundError as exc:
        raise BenchError(f"{cmd[0]}: not found") from exc
    except subprocess.TimeoutExpired as exc:
        raise BenchError(f"{' '.join(cmd)}: no answer after {timeout:.0f}s") from exc
    if check and proc.returncode != 0:
        raise BenchError(f"{' '.join(cmd)}: exit {proc.returncode}: {proc.stderr.strip()}")
    return proc.stdout


def private_dir(path: Path) -> Path:
    """``path``, made if missing; BenchError unless it is a directory of this user's that no
    other user can write. /var/tmp is everyone's: a directory another user made there first would
    hand them the lock, the nginx configs and the sysctl journals cleanup writes back as root."""
    path.mkdir(mode=0o755, parents=True, exist_ok=True)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode):
        raise BenchError(f"{path}: not a directory (a link?): remove it")
    if info.st_uid != os.geteuid() or info.st_mode & stat.S_IWOTH:
        raise BenchError(
            f"{path}: owner uid {info.st_uid}, mode {stat.S_IMODE(info.st_mode):o}: another user "
            "can write in it: remove it (the bench makes its own)"
        )
    return path


# Every tool a disk needs, and the Debian package that brings it.
DISK_TOOLS = {"losetup": "mount", "mkfs.ext4": "e2fsprogs", "mount": "mount", "umount": "mount"}
REQUIRED_TOOLS = {"nginx": "nginx-core", "wrk": "wrk", **DISK_TOOLS}


def missing_host(tools: Mapping[str, str]) -> list[str]:
    """Root, loop devices and `tools` (name -> Debian package): what of it this host lacks."""
    problems = (
        [] if os.geteuid() == 0 else ["needs root (loop devices, mounts, cgroups, drop_caches)"]
    )
    problems += [
        f"{tool} not found (apt-get install {package})"
        for tool, package in tools.items()
        if shutil.which(tool) is None
    ]
    if not Path("/dev/loop-control").exists():
        problems.append("no loop device support (/dev/loop-control missing)")
    return problems


def missing_prerequisites() -> list[str]:
    """What keeps the bench from running here; empty when everything is in place."""
    problems = missing_host(REQUIRED_TOOLS)
    if shutil.which("nginx") is not None and os.geteuid() == 0:
        version = run(["nginx", "-V"], check=False) + _stderr_of(["nginx", "-V"])
        if "--with-threads" not in version:
            problems.append("nginx is built without --with-threads")
    return problems


def _stderr_of(cmd: Sequence[str]) -> str:
    proc = subprocess.run(list(cmd), capture_output=True, text=True, check=False, timeout=30)
    return proc.stderr


def free_ports(count: int, port_range: tuple[int, int], host: str = "127.0.0.1") -> list[int]:
    """`count` ports in `port_range` that nothing listens on right now.

    The scan starts at a random port: two benches started at once (other sessions on a shared
    machine) would otherwise both pick the first free ports and collide when nginx binds."""
    found: list[int] = []
    ports = list(range(port_range[0], port_range[1] + 1))
    start = random.randrange(len(ports))
    for port in ports[start:] + ports[:start]:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((host, port))
            except OSError:
                continue
        found.append(port)
        if len(found) == count:
            return found
    raise BenchError(f"no {count} free ports in {port_range[0]}-{port_range[1]}")


def drop_caches() -> None:
    """Write back dirty pages, then drop the page cache, dentries and inodes (global!)."""
    os.sync()
    Path("/proc/sys/vm/drop_caches").write_text("3\n")


def cpu_count() -> int:
    return len(os.sched_getaffinity(0))
