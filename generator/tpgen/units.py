"""Sizes and durations as people write them, and as nginx wants them."""

from __future__ import annotations

import re

_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgtpKMGTP]?)(i?)([bB]?)\s*$")
_POWERS = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
_TIME_RE = re.compile(r"^(\d+(ms|s|m|h|d|w|M|y)?)+$")


def parse_size(text: str | int) -> int:
    """``'4TB'`` → 4·10¹², ``'48GiB'`` → 48·2³⁰, ``512k`` → 512 000; a bare number is bytes."""
    if isinstance(text, bool):
        raise ValueError("a size, like 4TB, 48GiB or 512KiB, not a boolean")
    if isinstance(text, int):
        if text < 0:
            raise ValueError("a size cannot be negative")
        return text
    match = _SIZE_RE.match(str(text))
    if not match:
        raise ValueError(
            f"{text!r} is not a size: write a number with a unit, like 4TB, 48GiB, 1MiB"
        )
    number, prefix, binary, _bytes = match.groups()
    base = 1024 if binary else 1000
    value = float(number) * base ** _POWERS[prefix.lower()]
    if binary and not prefix:
        raise ValueError(f"{text!r} is not a size: 'i' needs a prefix, like KiB or MiB")
    return int(value)


def nginx_size(num_bytes: int) -> str:
    """The shortest exact nginx size: ``1m`` for 1 MiB, ``512k``, else floor MiB for big values."""
    for unit, factor in (("g", 1 << 30), ("m", 1 << 20), ("k", 1 << 10)):
        if num_bytes >= factor and num_bytes % factor == 0:
            return f"{num_bytes // factor}{unit}"
    if num_bytes >= 1 << 20:
        return f"{num_bytes >> 20}m"
    if num_bytes >= 1 << 10:
        return f"{num_bytes >> 10}k"
    return str(num_bytes)


def human_size(num_bytes: int) -> str:
    value = float(num_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def check_nginx_time(text: str) -> str:
    """nginx durations: ``7d``, ``1h30m``, ``600`` (seconds)."""
    if not _TIME_RE.match(text):
        raise ValueError(f"{text!r} is not an nginx duration: write e.g. 10m, 12h, 7d")
    return text
