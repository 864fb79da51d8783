"""Sizes and durations as people write them, and as nginx wants them.

The ONE parser of each: the model, the plan and the ops tools all call these.
"""

from __future__ import annotations

import itertools
import re
from fractions import Fraction

# [0-9], not \d, and [ \t], not \s: \d and \s also match other scripts' digits and spaces
# (a no-break space), which nginx does not read.
_SIZE_RE = re.compile(r"[ \t]*([0-9]+(?:\.[0-9]+)?)[ \t]*([kmgtpKMGTP]?)(i?)([bB]?)[ \t]*")
_POWERS = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
# nginx keeps sizes and offsets in off_t: nothing above this can mean anything to it.
MAX_BYTES = (1 << 63) - 1
# Longer text cannot be a size below MAX_BYTES; refusing it early keeps big-number math out.
_MAX_SIZE_TEXT = 40

# ngx_parse_time (src/core/ngx_parse.c): units in this order, each at most once.
_TIME_UNITS = ("y", "M", "w", "d", "h", "m", "s", "ms")
_UNIT_MS = {
    "y": 365 * 86400_000,
    "M": 30 * 86400_000,
    "w": 7 * 86400_000,
    "d": 86400_000,
    "h": 3600_000,
    "m": 60_000,
    "s": 1000,
    "ms": 1,
}
_TIME_PART_RE = re.compile(r"([0-9]+)(ms|y|M|w|d|h|m|s)")
_MAX_TIME_TEXT = 32


def parse_size(text: object) -> int:
    """``'4TB'`` → 4·10¹², ``'48GiB'`` → 48·2³⁰, ``512k`` → 512 000; a bare integer is bytes.

    Exact integer arithmetic (no float rounding, no overflow); the result is in 0 … MAX_BYTES.
    """
    if isinstance(text, str):
        return _size_of_text(text)
    return _size_of_value(text)


def _size_of_value(value: object) -> int:
    """A size YAML gave as something other than text: whole bytes, or what is wrong with it."""
    if isinstance(value, bool):
        raise ValueError("a size, like 4TB, 48GiB or 512KiB, not a boolean")
    if isinstance(value, float):
        raise ValueError(
            f"{value!r} is not a size: write whole bytes or a number with a unit, like 4TB or 1MiB"
        )
    if isinstance(value, int):
        if value < 0:
            raise ValueError("a size cannot be negative")
        return _at_most_off_t(value, f"{value}" if value.bit_length() < 200 else "this number")
    raise ValueError("a size is a number with a unit, like 4TB, 48GiB or 1MiB")


def _size_of_text(text: str) -> int:
    match = _SIZE_RE.fullmatch(text) if len(text) <= _MAX_SIZE_TEXT else None
    if not match:
        shown = repr(text) if len(text) <= _MAX_SIZE_TEXT else f"{text[:20]!r}…"
        raise ValueError(
            f"{shown} is not a size: write a number with a unit, like 4TB, 48GiB, 1MiB"
        )
    number, prefix, binary, _bytes = match.groups()
    if binary and not prefix:
        raise ValueError(f"{text!r} is not a size: 'i' needs a prefix, like KiB or MiB")
    base = 1024 if binary else 1000
    exact = Fraction(number) * base ** _POWERS[prefix.lower()]
    if exact.denominator != 1:
        # Refused, not rounded: nginx has no part of a byte, and which way to round is a guess.
        whole = exact.numerator // exact.denominator
        smaller = f", or a unit smaller than {prefix}{binary}{_bytes or 'B'}" if prefix else ""
        raise ValueError(
            f"{text!r} is {_decimal(exact)} bytes, and a size is whole bytes: write {whole} or "
            f"{whole + 1}{smaller}"
        )
    return _at_most_off_t(int(exact), repr(text))


def _decimal(value: Fraction) -> str:
    """A fraction of bytes from a decimal size (its denominator divides a power of 10) in full."""
    whole, rest = divmod(value, 1)
    places = 0
    while rest.denominator != 1:
        rest *= 10
        places += 1
    return f"{whole}.{int(rest):0{places}d}"


def _at_most_off_t(value: int, shown: str) -> int:
    if value > MAX_BYTES:
        raise ValueError(f"{shown} is larger than any disk or file nginx can address (8 EiB)")
    return value


def nginx_size(num_bytes: int, units: str = "gmk") -> str:
    """The shortest exact nginx size: ``1m`` for 1 MiB, ``512k``, else floor MiB for big values.

    ``units="mk"`` for a directive nginx reads with ngx_parse_size (``slice``), which takes no
    ``g``: 1 GiB is ``1024m`` there."""
    for unit, factor in (("g", 1 << 30), ("m", 1 << 20), ("k", 1 << 10)):
        if unit in units and num_bytes >= factor and num_bytes % factor == 0:
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


def short_size(num_bytes: int) -> str:
    """A limit as people write it: ``64MiB``, ``1PiB``, ``512B``."""
    for unit, factor in (("PiB", 1 << 50), ("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20)):
        if num_bytes >= factor and num_bytes % factor == 0:
            return f"{num_bytes // factor}{unit}"
    if num_bytes >= 1 << 10 and num_bytes % (1 << 10) == 0:
        return f"{num_bytes >> 10}KiB"
    return f"{num_bytes}B"


def parse_duration(text: object, *, milliseconds: bool) -> int:
    """An nginx duration in milliseconds, exactly as nginx's ``ngx_parse_time`` reads it.

    ``milliseconds=False`` is a directive nginx reads in whole seconds (``inactive=``): ``ms``
    is refused there, ``y`` and ``M`` are allowed. ``milliseconds=True`` is a directive nginx
    reads in milliseconds (``keepalive_timeout``): ``ms`` is allowed, ``y`` and ``M`` are not.
    A bare integer is seconds. Stricter than nginx in one way: every unit needs its number.
    """
    text = _duration_text(text)
    units = _TIME_UNITS[2:] if milliseconds else _TIME_UNITS[:-1]
    example = "1h30m, 500ms" if milliseconds else "12h, 7d, 1h30m"
    if len(text) > _MAX_TIME_TEXT:
        raise ValueError(f"{text[:20]!r}… is not an nginx duration: write e.g. {example}")
    if re.fullmatch(r"[0-9]+", text):
        return int(text) * 1000
    parts = _duration_parts(text, units, example)
    for _number, unit in parts:
        if unit not in units:
            raise ValueError(
                f"{text!r}: nginx reads this directive in "
                + (
                    f"milliseconds and does not take {unit!r} there: write days, e.g. 30d"
                    if milliseconds
                    else "whole seconds and does not take 'ms' there: write e.g. 1s"
                )
            )
    return sum(int(number) * _UNIT_MS[unit] for number, unit in parts)


def _duration_text(text: object) -> str:
    """A duration as text: whole seconds (an int) written as nginx reads them."""
    if isinstance(text, bool) or not isinstance(text, int | str):
        raise ValueError("a duration is text like 10m, 12h or 7d, or whole seconds")
    if isinstance(text, int):
        if text < 0:
            raise ValueError("a duration cannot be negative")
        return str(text)
    return text


def _duration_parts(text: str, units: tuple[str, ...], example: str) -> list[tuple[str, str]]:
    """The (number, unit) parts of a duration, each unit once, from the largest down."""
    parts: list[tuple[str, str]] = _TIME_PART_RE.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(
            f"{text!r} is not an nginx duration: write a number and a unit "
            f"({' '.join(units)}), e.g. {example}"
        )
    order = [_TIME_UNITS.index(unit) for _number, unit in parts]
    if any(later <= earlier for earlier, later in itertools.pairwise(order)):
        raise ValueError(
            f"{text!r} is not an nginx duration: units go from the largest to the smallest, "
            f"each at most once ({' '.join(units)}), e.g. {example}"
        )
    return parts


def format_duration(ms: int) -> str:
    """A limit as people write it: ``1h``, ``365d``, ``1m30s``, ``500ms``."""
    if ms == 0:
        return "0s"
    out = ""
    for unit in ("d", "h", "m", "s", "ms"):
        count, ms = divmod(ms, _UNIT_MS[unit])
        if count:
            out += f"{count}{unit}"
    return out
