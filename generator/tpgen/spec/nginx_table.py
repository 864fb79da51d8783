"""The table of nginx's own source (data/nginx-directives.json, written by
scripts/nginx_directives.py): its directives, variables and build ways, read once, each entry
with the releases it covers (since, until)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any, Protocol

from tpgen.spec.edge import version_tuple

Version = tuple[int, ...]


class Where(Protocol):
    """What a handler ported in a module of its own reads of where a directive stands
    (directive_handlers.Place): the block's context, the target nginx version, whether it is
    built --with-debug (True where the build is not known), and the file's path (None: not
    known)."""

    @property
    def context(self) -> str: ...

    @property
    def version(self) -> Version: ...

    @property
    def debug(self) -> bool: ...

    @property
    def path(self) -> str | None: ...


@cache
def table() -> dict[str, Any]:
    text = resources.files("tpgen").joinpath("data/nginx-directives.json").read_text()
    found: dict[str, Any] = json.loads(text)
    return found


def covers(since: Version, until: Version | None, version: Version) -> bool:
    return since <= version and (until is None or version <= until)


def span(entry: Mapping[str, Any]) -> tuple[Version, Version | None]:
    """The first and the last release an entry covers (None: still the newest's)."""
    until = entry["until"]
    return version_tuple(entry["since"]), None if until is None else version_tuple(until)


def in_version(entry: Mapping[str, Any], version: Version) -> bool:
    return covers(*span(entry), version)
