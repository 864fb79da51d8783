"""This host: lsblk, /proc/meminfo, the CPU count and the name, read; the draft printed."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TextIO

from .decide import DEFAULT_MIN_SIZE, DEFAULT_MOUNT_ROOT, Discovery, discover
from .devices import BYTE_COUNT, LSBLK_COLUMNS, LSBLK_COLUMNS_OLD, DiscoverError, parse_lsblk
from .draft import render_draft
from .sizes import GIB, MIB
from .vet import DraftCheck, vetted


def parse_meminfo(text: str) -> int:
    """Return MemTotal in bytes from ``/proc/meminfo`` text."""
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        if key.strip() == "MemTotal":
            parts = rest.split()
            if not parts or not BYTE_COUNT.fullmatch(parts[0]):
                break
            unit = parts[1].lower() if len(parts) > 1 else "b"
            factor = {"kb": 1024, "mb": MIB, "gb": GIB, "b": 1}.get(unit)
            if factor is None:
                break
            return int(parts[0]) * factor
    raise DiscoverError("/proc/meminfo: no readable MemTotal line")


@dataclass(frozen=True)
class HostProbe:
    """Raw facts read from the local host."""

    lsblk_json: str
    meminfo: str
    cpu_count: int
    hostname: str


# lsblk reads sysfs and answers in milliseconds; longer means a device stuck in the kernel.
LSBLK_SECONDS = 30


def _run_lsblk() -> str:
    last = ""
    for columns in (LSBLK_COLUMNS, LSBLK_COLUMNS_OLD):
        try:
            proc = subprocess.run(
                ["lsblk", "-J", "-b", "-o", columns],
                capture_output=True,
                text=True,
                errors="replace",
                check=False,
                timeout=LSBLK_SECONDS,
            )
        except FileNotFoundError as err:
            raise DiscoverError("lsblk not found: install util-linux") from err
        except subprocess.TimeoutExpired:
            raise DiscoverError(
                f"lsblk did not answer in {LSBLK_SECONDS} s (a hung device?): see dmesg"
            ) from None
        if proc.returncode == 0:
            return proc.stdout
        last = proc.stderr.strip()
    raise DiscoverError(f"lsblk failed: {last}")


def probe_host() -> HostProbe:
    """Read lsblk, /proc/meminfo, the CPU count and the host name of this machine."""
    try:
        with open("/proc/meminfo", encoding="utf-8") as fh:
            meminfo = fh.read()
    except OSError as err:
        raise DiscoverError(f"cannot read /proc/meminfo: {err}") from err
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return HostProbe(_run_lsblk(), meminfo, cpus or 1, socket.gethostname())


def discover_host(
    probe: HostProbe,
    *,
    min_size: int = DEFAULT_MIN_SIZE,
    include_loop: bool = False,
    mount_root: str = DEFAULT_MOUNT_ROOT,
) -> Discovery:
    """:func:`discover` over a :class:`HostProbe`."""
    return discover(
        parse_lsblk(probe.lsblk_json),
        hostname=probe.hostname,
        cores=probe.cpu_count,
        memory=parse_meminfo(probe.meminfo),
        min_size=min_size,
        include_loop=include_loop,
        mount_root=mount_root,
    )


def run_discover(
    *,
    as_json: bool = False,
    min_size: int | str = DEFAULT_MIN_SIZE,
    include_loop: bool = False,
    mount_root: str = DEFAULT_MOUNT_ROOT,
    check: DraftCheck | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Probe this host and print the draft. Exit code: 0 disks found, 1 none (or a draft
    ``check`` refuses beyond its disks: it says why), 2 bad input or probe failed.
    ``min_size`` is bytes or a size as the spec writes it (``32GiB``). ``check``: validate's
    refusals of the draft's text; a disk it refuses is skipped with validate's reason."""
    from tpgen.spec.units import parse_size

    stdout = out if out is not None else sys.stdout
    stderr = err if err is not None else sys.stderr
    try:
        try:
            min_bytes = parse_size(min_size)
        except ValueError as error:
            raise DiscoverError(f"--min-size: {error}") from error
        result = discover_host(
            probe_host(), min_size=min_bytes, include_loop=include_loop, mount_root=mount_root
        )
    except DiscoverError as error:
        print(f"tpgen discover: {error}", file=stderr)
        return 2
    if check is not None:
        result = vetted(result, check)
    if as_json:
        stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
    else:
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        stdout.write(render_draft(result, generated_at=stamp))
    return 0 if result.usable else 1
