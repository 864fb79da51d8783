"""``lsblk -J -b`` read into a tree of :class:`BlockDevice` (typed or all-string JSON)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

LSBLK_COLUMNS = "NAME,KNAME,PATH,TYPE,SIZE,ROTA,MOUNTPOINTS,FSTYPE,UUID,TRAN,PKNAME"
# util-linux < 2.37 has no MOUNTPOINTS column; lsblk then prints one MOUNTPOINT per device.
LSBLK_COLUMNS_OLD = LSBLK_COLUMNS.replace("MOUNTPOINTS", "MOUNTPOINT")


# ASCII digits, no more than a byte count has: int() refuses "²" and 5000 digits.
BYTE_COUNT = re.compile(r"[0-9]{1,30}")


class DiscoverError(Exception):
    """Probe output that cannot be read; ``str()`` is the message for the user."""


@dataclass(frozen=True)
class BlockDevice:
    """One node of the ``lsblk`` tree."""

    name: str
    path: str
    type: str
    size: int
    rotational: bool
    mountpoints: tuple[str, ...] = ()
    fstype: str | None = None
    uuid: str | None = None
    tran: str | None = None
    children: tuple[BlockDevice, ...] = ()

    def walk(self) -> Iterator[BlockDevice]:
        """Yield this device, then every partition/volume below it."""
        yield self
        for child in self.children:
            yield from child.walk()

    def mounts(self) -> list[tuple[str, BlockDevice]]:
        """Every (mount point, device) pair in this device's tree."""
        return [(mp, dev) for dev in self.walk() for mp in dev.mountpoints]


def _as_bool(value: object) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in {"1", "true"}


def _as_int(value: object) -> int:
    if isinstance(value, bool):
        raise DiscoverError(f"lsblk: size is not a number: {value!r}")
    if isinstance(value, int):
        return value
    if value is None:
        return 0
    text = str(value).strip()
    if not BYTE_COUNT.fullmatch(text):
        shown = text if len(text) <= 40 else f"{text[:36]}..."
        raise DiscoverError(f"lsblk: size is not a byte count: {shown!r} (run lsblk with -b)")
    return int(text)


def _as_str(value: object) -> str | None:
    if value is None:
        return None
    text = str(value)
    return text or None


def _mountpoints(entry: Mapping[str, Any]) -> tuple[str, ...]:
    raw: object = entry.get("mountpoints", entry.get("mountpoint"))
    items: list[object] = list(raw) if isinstance(raw, list) else [raw]
    return tuple(str(mp) for mp in items if mp not in (None, ""))


def _device(entry: Mapping[str, Any]) -> BlockDevice:
    name = _as_str(entry.get("name"))
    if name is None:
        raise DiscoverError("lsblk: a device without a name")
    children = entry.get("children") or []
    if not isinstance(children, list):
        raise DiscoverError(f"lsblk: {name}: children is not a list")
    return BlockDevice(
        name=name,
        path=_as_str(entry.get("path")) or f"/dev/{name}",
        type=_as_str(entry.get("type")) or "unknown",
        size=_as_int(entry.get("size")),
        rotational=_as_bool(entry.get("rota")),
        mountpoints=_mountpoints(entry),
        fstype=_as_str(entry.get("fstype")),
        uuid=_as_str(entry.get("uuid")),
        tran=_as_str(entry.get("tran")),
        children=tuple(_device(child) for child in children if isinstance(child, dict)),
    )


def parse_lsblk(text: str) -> list[BlockDevice]:
    """Parse ``lsblk -J -b`` output (util-linux 2.33+ typed JSON, or older all-string JSON)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise DiscoverError(f"lsblk: output is not JSON: {err}") from err
    except ValueError:  # not a JSONDecodeError: an integer of more digits than int() takes
        raise DiscoverError(
            "lsblk: output is not lsblk's JSON: a number too long to read"
        ) from None
    except RecursionError:
        raise DiscoverError(_TOO_DEEP) from None
    if not isinstance(data, dict) or not isinstance(data.get("blockdevices"), list):
        raise DiscoverError('lsblk: no "blockdevices" list in the output')
    try:
        return [_device(entry) for entry in data["blockdevices"] if isinstance(entry, dict)]
    except RecursionError:
        raise DiscoverError(_TOO_DEEP) from None


# A disk holds partitions, they hold LVM or RAID, those crypt: lsblk's trees are a few deep.
_TOO_DEEP = "lsblk: devices nested deeper than Python reads: not lsblk's output"
