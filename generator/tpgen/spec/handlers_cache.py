"""ngx_http_file_cache_set_slot (proxy_cache_path, fastcgi_cache_path, …) and
ngx_http_file_cache_valid_set_slot (proxy_cache_valid, …): the parameters of a cache and how
long its responses stay valid, as nginx reads them."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from tpgen.spec.directive_values import PAGE_SIZE, number, offset, size, time
from tpgen.spec.nginx_table import Where

# levels=: up to three levels of 1 or 2, colon-separated (none at all is taken too).
_LEVELS = re.compile(r"(?:[12](?::[12]){0,2})?")
# The handler takes 2 pages (8k); the cache's own structures then need a third, or nginx -t
# fails as it allocates them (ngx_slab_alloc() failed: no memory, in 1.22 and 1.26 alike).
_KEYS_ZONE_MIN = 3 * PAGE_SIZE


def _seconds(text: str) -> bool:
    return time(text, seconds=True) is not None


def _milliseconds(text: str) -> bool:
    return time(text, seconds=False) is not None


def _offset(text: str) -> bool:
    return offset(text) is not None


def _count(text: str) -> bool:
    return number(text) is not None


def _levels(text: str) -> bool:
    return _LEVELS.fullmatch(text) is not None


def _on_off(text: str) -> bool:
    return text in ("on", "off")


# Each parameter= and what its value must parse as (in the order nginx tries them).
_PARAMETERS: dict[str, tuple[Callable[[str], bool], str]] = {
    "levels=": (_levels, "up to three levels of 1 or 2 (levels=1:2)"),
    "use_temp_path=": (_on_off, "on or off"),
    "inactive=": (_seconds, "a time in whole seconds (inactive=10m)"),
    "max_size=": (_offset, "a size (max_size=10g)"),
    "min_free=": (_offset, "a size (min_free=1g)"),
    "loader_files=": (_count, "a whole number"),
    "loader_sleep=": (_milliseconds, "a time (loader_sleep=50ms)"),
    "loader_threshold=": (_milliseconds, "a time (loader_threshold=200ms)"),
    "manager_files=": (_count, "a whole number"),
    "manager_sleep=": (_milliseconds, "a time (manager_sleep=50ms)"),
    "manager_threshold=": (_milliseconds, "a time (manager_threshold=200ms)"),
}


def _keys_zone(word: str) -> tuple[str, str | None]:
    """(the zone's name, why its size is refused or None)."""
    name, colon, size_text = word.removeprefix("keys_zone=").partition(":")
    zone_size = size(size_text) if colon else None
    if zone_size is None:
        return name, (
            f"takes keys_zone=NAME:SIZE (keys_zone=one:10m), not {word!r} (nginx: invalid keys "
            "zone size)"
        )
    if zone_size < _KEYS_ZONE_MIN:
        return (
            name,
            f"takes a keys zone of at least 12k, not {word!r} (nginx: keys zone is too small, or "
            "ngx_slab_alloc() failed: no memory)",
        )
    return name, None


def cache_path_problem(args: Sequence[str], place: Where) -> str | None:
    """After the path: levels=, use_temp_path=, keys_zone= (required), inactive=, max_size=,
    min_free=, and the loader's and manager's files, sleep and threshold."""
    zone = ""
    for word in args[1:]:
        if word.startswith("keys_zone="):
            zone, refused = _keys_zone(word)
            if refused:
                return refused
            continue
        prefix = next((p for p in _PARAMETERS if word.startswith(p)), None)
        if prefix is None:
            return (
                f"takes levels=, keys_zone=, inactive=, max_size=, min_free=, use_temp_path= "
                f"and the loader_ and manager_ parameters after the path, not {word!r} (nginx: "
                "invalid parameter)"
            )
        parses, what = _PARAMETERS[prefix]
        if not parses(word.removeprefix(prefix)):
            return f"takes {prefix}{what}, not {word!r} (nginx: invalid {prefix[:-1]} value)"
    if not zone:
        return (
            "takes a keys_zone=NAME:SIZE parameter (keys_zone=one:10m) (nginx: must have "
            '"keys_zone" parameter)'
        )
    return None


def cache_valid_problem(args: Sequence[str], place: Where) -> str | None:
    """Response codes (100–599, or any), then the time they stay valid: whole seconds."""
    if not _seconds(args[-1]):
        return (
            f"takes how long responses stay valid last, a time in whole seconds (10m, 1h), not "
            f"{args[-1]!r} (nginx: invalid time value)"
        )
    for word in args[:-1]:
        code = number(word) if word != "any" else 100
        if code is None or not 100 <= code <= 599:
            return (
                f"takes response codes (100 to 599) or any before the time, not {word!r} "
                "(nginx: invalid status)"
            )
    return None
