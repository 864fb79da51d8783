"""Each HDD's read-ahead against the plan's floor (role storage_disks raises it, udev keeps it)."""

from __future__ import annotations

from .findings import Finding, Level
from .layout import LayoutDisk

CHECK = "disk.read_ahead"


def check_read_ahead(disk: LayoutDisk, current_kb: int | None, error: str | None = None) -> Finding:
    """Warn when the device reads ahead less than the layout's ``read_ahead_kb`` (or cannot say).

    A floor only: a device set higher keeps its value, as the role leaves it.
    """
    floor, name, device = disk["read_ahead_kb"] or 0, disk["name"], disk["device"]
    fix = (
        f"re-run site.yml -l <host> (role storage_disks raises it and writes the udev rule that "
        f"keeps it across reboots and replugs); now: blockdev --setra {floor * 2} {device}"
    )
    if current_kb is None:
        return Finding(
            CHECK,
            Level.WARN,
            f"cannot read the read-ahead of {device}: {error}",
            subject=name,
            fix=fix,
        )
    data = {"read_ahead_kb": current_kb, "floor_kb": floor}
    if current_kb < floor:
        return Finding(
            CHECK,
            Level.WARN,
            f"{device} reads ahead {current_kb} KiB, below the plan's {floor} KiB: interleaved "
            f"cold streams cost a seek every {current_kb} KiB and the disk runs out of IOPS "
            "before bandwidth",
            subject=name,
            fix=fix,
            data=data,
        )
    return Finding(
        CHECK,
        Level.OK,
        f"{device} reads ahead {current_kb} KiB (the plan's floor: {floor} KiB)",
        subject=name,
        data=data,
    )
