"""Sizes as a draft spec writes them (never more than the device has) and as messages show them."""

from __future__ import annotations

GIB = 1024**3
MIB = 1024**2


def format_size(size: int) -> str:
    """A spec size that never overstates ``size``: exact GiB/MiB, else whole GB (floor)."""
    if size >= GIB and size % GIB == 0:
        return f"{size // GIB}GiB"
    if size >= MIB and size % MIB == 0:
        return f"{size // MIB}MiB"
    if size >= 10**9:
        return f"{size // 10**9}GB"
    return str(size)


def format_memory(size: int) -> str:
    """Memory as Ansible's facts give it (memtotal_mb): exact GiB, else whole MiB (floor)."""
    if size >= GIB and size % GIB == 0:
        return f"{size // GIB}GiB"
    return f"{size // MIB}MiB"


def human_size(size: int) -> str:
    """Short decimal size for messages: ``4.0 TB``, ``8.6 GB``, ``200 MB``.

    Decimal on purpose, unlike tpgen.spec.units.human_size (binary, for figures tpgen derives):
    here it describes a device, and vendors and lsblk users know disks by decimal sizes.
    """
    for unit, factor in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if size >= factor:
            value = size / factor
            return f"{value:.1f} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{size} B"
