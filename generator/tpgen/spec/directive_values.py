"""The values nginx's standard handlers parse (ngx_conf_file.c's slots and ngx_parse.c), as
nginx parses them, and the checks a module's post handler adds after the slot (a minimum, a
maximum, a power of two): a directive whose handler is one of them takes exactly what these
take.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

# ngx_int_t, ssize_t and off_t on the 64-bit systems tpgen's nodes run.
_MAX = (1 << 63) - 1
_SIZE_UNITS = {"k": 1 << 10, "K": 1 << 10, "m": 1 << 20, "M": 1 << 20}
_OFFSET_UNITS = {**_SIZE_UNITS, "g": 1 << 30, "G": 1 << 30}
# ngx_pagesize on x86-64 and the usual arm64 kernels; a shared zone holds at least 8 pages.
PAGE_SIZE = 4096
ZONE_MIN = 8 * PAGE_SIZE
_DAY = 60 * 60 * 24
# A time's units in the only order nginx takes them (largest first), in seconds; then ms.
_TIME_UNITS = {"y": 365 * _DAY, "M": 30 * _DAY, "w": 7 * _DAY, "d": _DAY, "h": 3600, "m": 60}


def number(text: str) -> int | None:
    """ngx_atoi: ASCII digits only, at most the largest ngx_int_t."""
    if not text or any(char not in "0123456789" for char in text):
        return None
    value = int(text)
    return value if value <= _MAX else None


def _scaled(text: str, units: dict[str, int]) -> int | None:
    scale = units.get(text[-1:], 1)
    digits = text[:-1] if scale != 1 else text
    value = number(digits)
    if value is None or value > _MAX // scale:
        return None
    return value * scale


def fixed_point(text: str, point: int) -> int | None:
    """ngx_atofp: digits with at most one dot and ``point`` decimals, scaled by 10**point."""
    if not text:
        return None
    value, dot = 0, 0
    for char in text:
        if point == 0:
            return None
        if char == ".":
            if dot:
                return None
            dot = 1
            continue
        if char not in "0123456789" or value > (_MAX - int(char)) // 10:
            return None
        value = value * 10 + int(char)
        point -= dot
    for _ in range(point):
        if value > _MAX // 10:
            return None
        value *= 10
    return value


def size(text: str) -> int | None:
    """ngx_parse_size: digits, then k or m (either case); no g."""
    return _scaled(text, _SIZE_UNITS)


def offset(text: str) -> int | None:
    """ngx_parse_offset: digits, then k, m or g (either case)."""
    return _scaled(text, _OFFSET_UNITS)


_ORDER = (*_TIME_UNITS, "s", "ms", " ")


def _time_parts(text: str) -> list[tuple[str, str]] | None:
    """(digits, unit) as ngx_parse_time reads them: a unit ends each part ("ms" is one unit,
    spaces after a unit are skipped, a space after digits is a unit); the last part's unit is
    "" (its number is seconds). None: a character nginx takes for no unit."""
    parts: list[tuple[str, str]] = []
    digits = ""
    index = 0
    while index < len(text):
        unit = text[index]
        index += 1
        if unit in "0123456789":
            digits += unit
            continue
        if unit == "m" and text[index : index + 1] == "s":
            unit, index = "ms", index + 1
        if unit not in _ORDER:
            return None
        parts.append((digits, unit))
        digits = ""
        while text[index : index + 1] == " ":
            index += 1
    return [*parts, (digits, "")]


def _unit_scale(unit: str, seconds: bool) -> int:
    in_seconds = _TIME_UNITS.get(unit, 1)
    return in_seconds if seconds or unit == "ms" else in_seconds * 1000


def time(text: str, *, seconds: bool) -> int | None:
    """ngx_parse_time: parts like 1h 30m, largest unit first, each unit once; a bare number
    is seconds; ``seconds``: no ms, and the result is in seconds (else milliseconds)."""
    parts = _time_parts(text)
    if parts is None or not any(digits for digits, _ in parts):
        return None
    # In milliseconds nginx starts past "M": no years, no months.
    step = -1 if seconds else _ORDER.index("M")
    total = 0
    for digits, unit in parts:
        scale = _unit_scale(unit, seconds)
        at = _ORDER.index(unit) if unit else len(_ORDER)
        late = unit == " " and step >= _ORDER.index("s")
        if (unit == "ms" and seconds) or at <= step or late:
            return None
        step = at
        value = int(digits or "0")
        if value > _MAX // scale or total > _MAX - value * scale:
            return None
        total += value * scale
    return total


def flag_on(args: Sequence[str]) -> bool:
    """A flag directive's words say on (ngx_conf_set_flag_slot: on and off are caseless)."""
    return " ".join(args[:1]).lower() == "on"


def _one_of(choices: Sequence[str], text: str) -> bool:
    # ngx_strcasecmp folds ASCII letters only.
    def fold(word: str) -> str:
        return word.translate(_ASCII_LOWER)

    return fold(text) in {fold(choice) for choice in choices}


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_TIME_EXAMPLE = "e.g. 500ms, 30s, 1m 30s: units y M w d h m s ms, largest first, each once"
_WORDS: dict[str, tuple[str, Callable[[str], int | None]]] = {
    "number": ("a whole number (digits only)", number),
    "size": ("a size: digits, then k or m (nginx's sizes here take no g)", size),
    "offset": ("a size: digits, then k, m or g", offset),
    "msec": (f"a time ({_TIME_EXAMPLE})", lambda text: time(text, seconds=False)),
    "sec": (
        f"a time of whole seconds ({_TIME_EXAMPLE.replace(' ms,', ',')}; no ms)",
        lambda text: time(text, seconds=True),
    ),
}


def _parsed(kind: str, args: Sequence[str]) -> str | None:
    words, parse = _WORDS[kind]
    if parse(args[0]) is None:
        return f"takes {words}, not {args[0]!r} (nginx: invalid value)"
    return None


def _bufs(args: Sequence[str]) -> str | None:
    count, each = number(args[0]), size(args[1]) if len(args) > 1 else None
    if not count or not each:
        return (
            "takes a number of buffers and the size of each, both above 0 (e.g. 8 16k), "
            f"not {' '.join(args)!r} (nginx: invalid value)"
        )
    return None


def _names(kind: str, choices: Sequence[str], args: Sequence[str]) -> str | None:
    # enum reads its one argument, bitmask each of its arguments.
    wrong = [arg for arg in (args[:1] if kind == "enum" else args) if not _one_of(choices, arg)]
    if wrong:
        many = "one of" if kind == "enum" else "any of"
        return f"takes {many} {', '.join(choices)}, not {wrong[0]!r} (nginx: invalid value)"
    return None


def methods_problem(choices: Sequence[str], args: Sequence[str]) -> str | None:
    """ngx_http_core_limit_except: each argument a method of nginx's table, caseless."""
    wrong = [arg for arg in args if not _one_of(choices, arg)]
    if wrong:
        return f"takes methods of {', '.join(choices)}, not {wrong[0]!r} (nginx: invalid method)"
    return None


def value_problem(kind: str, choices: Sequence[str], args: Sequence[str]) -> str | None:
    """Why the handler that parses ``kind`` (the table's value of a directive) refuses
    ``args``, as nginx words it, or None."""
    if kind == "complex_size":
        # ngx_http_set_complex_value_size_slot: any $ makes it a script, sized per request.
        return None if "$" in args[0] else _parsed("size", args)
    if kind in _WORDS:
        return _parsed(kind, args)
    if kind in ("enum", "bitmask"):
        return _names(kind, choices, args)
    return _bufs(args)


_POOL_SIZE_MIN = 112  # NGX_MIN_POOL_SIZE of a 64-bit nginx
_POOL_ALIGNMENT = 16  # NGX_POOL_ALIGNMENT
_SHOWN_SIZES = {512: "512", **{1024 << shift: f"{1 << shift}k" for shift in range(8)}}


def _sizes(largest: int) -> tuple[int, ...]:
    return tuple(size for size in _SHOWN_SIZES if size <= largest)


# ngx_http_gzip_window and ngx_http_gzip_hash: a power of two from 512 bytes up.
_GZIP_SIZES = {"gzip_window": _sizes(32 << 10), "gzip_hash": _sizes(128 << 10)}
_V2_MAX_WINDOW = (1 << 31) - 1  # NGX_HTTP_V2_MAX_WINDOW


def _bounds(value: int, low: int, high: int | None) -> str | None:
    if high is None and value < low:
        return (
            f"takes {low} or more, not {value} (nginx: value must be equal to or greater than "
            f"{low})"
        )
    if high is not None and not low <= value <= high:
        return f"takes {low} to {high}, not {value} (nginx: value must be between {low} and {high})"
    return None


def _pool_size(value: int) -> str | None:
    if value >= _POOL_SIZE_MIN and not value % _POOL_ALIGNMENT:
        return None
    return (
        f"takes a pool size of at least {_POOL_SIZE_MIN} bytes, a multiple of {_POOL_ALIGNMENT}, "
        f"not {value} (nginx: the pool size must be …)"
    )


def _gzip_sizes(post: str) -> Callable[[int], str | None]:
    def check(value: int) -> str | None:
        if value in _GZIP_SIZES[post]:
            return None
        shown = ", ".join(_SHOWN_SIZES[size] for size in _GZIP_SIZES[post])
        return f"takes one of {shown}, not {value} bytes (nginx: must be {shown})"

    return check


def _within_window(value: int) -> str | None:
    if value <= _V2_MAX_WINDOW:
        return None
    return (
        f"takes at most {_V2_MAX_WINDOW} bytes, not {value} (nginx: the maximum body preread "
        "buffer size is …)"
    )


def _power_of_two(value: int) -> str | None:
    if value and not value & (value - 1):
        return None
    return f"takes a power of two, not {value} (nginx: must be a power of two)"


def _not_zero(value: int) -> str | None:
    return "takes a size above 0 (nginx: cannot be zero)" if value == 0 else None


# The post handlers scripts/nginx_directives.py records (its POSTS), bounds aside.
_POSTS: dict[str, Callable[[int], str | None]] = {
    "pool_size": _pool_size,
    "gzip_window": _gzip_sizes("gzip_window"),
    "gzip_hash": _gzip_sizes("gzip_hash"),
    "v2_preread_size": _within_window,
    "power_of_two": _power_of_two,
    "not_zero": _not_zero,
}


def post_problem(
    post: str, bounds: tuple[int, int | None] | None, kind: str | None, args: Sequence[str]
) -> str | None:
    """Why the post handler ``post`` refuses the value its slot ``kind`` parsed from ``args``
    (the slot took it), or None."""
    value = _WORDS[kind][1](args[0]) if kind in _WORDS else None
    if value is None:
        return None
    if post == "bounds" and bounds is not None:
        return _bounds(value, *bounds)
    if post == "above" and bounds is not None and value < bounds[0]:
        return f"takes {bounds[0]} or more, not {value} (nginx: value is too small)"
    check = _POSTS.get(post)
    return check(value) if check else None
