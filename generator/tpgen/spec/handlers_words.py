"""Handlers that take a keyword or one standard value, as nginx reads them: worker_processes
(ngx_set_worker_processes), worker_priority (ngx_set_priority), directio
(ngx_http_core_directio), userid_expires and userid_mark (the userid filter's)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from tpgen.spec.directive_values import number, offset, time
from tpgen.spec.nginx_table import Where

_MARK = re.compile(r"[0-9A-Za-z=]")


def _priority(word: str) -> bool:
    return number(word[1:] if word[:1] in "+-" else word) is not None


# Per kind: what it takes (the keywords as written, no other case), what that is in words,
# and what nginx says of anything else.
_WORDS: dict[str, tuple[Callable[[str], bool], str, str]] = {
    "worker_processes": (
        lambda word: word == "auto" or number(word) is not None,
        "auto or a whole number",
        "invalid value",
    ),
    "priority": (_priority, "a whole number, - or + before it optional", "invalid number"),
    "directio": (
        lambda word: word == "off" or offset(word) is not None,
        "off or a size (4m)",
        "invalid value",
    ),
    "userid_expires": (
        lambda word: word in ("max", "off") or time(word, seconds=True) is not None,
        "max, off or a time in whole seconds (365d)",
        "invalid value",
    ),
    "userid_mark": (
        lambda word: word == "off" or _MARK.fullmatch(word) is not None,
        'off or a single letter, digit or "="',
        'value must be "off" or a single letter, digit or "="',
    ),
}


def _check(kind: str) -> Callable[[Sequence[str], Where], str | None]:
    takes, what, said = _WORDS[kind]

    def check(args: Sequence[str], place: Where) -> str | None:
        return None if takes(args[0]) else f"takes {what}, not {args[0]!r} (nginx: {said})"

    return check


WORD_HANDLERS = {kind: _check(kind) for kind in _WORDS}
