"""Which of nginx's own modules a build has, read from its configure arguments (the
"configure arguments:" line of `nginx -V`, spec nginx.configure) as nginx's configure reads
them: auto/options' defaults, then each option in turn (a later one wins, one configure does
not know sets nothing here); then, per source file, the ways auto/modules builds it
(data/nginx-directives.json, written by scripts/nginx_directives.py). A module built dynamic
is there only where an extra.main snippet loads its .so.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath
from typing import Any

from tpgen.spec.edge import version_text
from tpgen.spec.nginx_table import Version, in_version, table

# A condition of the table: true, false, ["=", SWITCH, VALUE], ["not", c], ["and"/"or", c, …].
Condition = bool | list[Any]


def _of_version(kind: str, version: Version) -> dict[str, Mapping[str, Any]]:
    """Each name of the table's ``kind`` with its entry in ``version``."""
    return {
        name: entry
        for name, entries in table()[kind].items()
        for entry in entries
        if in_version(entry, version)
    }


def configure_options(configure: str) -> list[str]:
    """The options of a configure line, as the shell splits it (quoted values whole)."""
    try:
        words = shlex.split(configure)
    except ValueError:  # an unbalanced quote: nginx -V prints none, a hand-written line may
        words = configure.split()
    return [word for word in words if word.startswith("--")]


def has_pcre(build: Build | None) -> bool:
    """Whether regexes compile and define their named captures: a build not known is
    Debian's, which has PCRE."""
    return build is None or build.pcre


def configured_prefix(configure: str) -> str | None:
    """configure's --prefix (nginx's prefix when run without -p), or None where the line
    names none (configure's default, or a line of module options alone: not known)."""
    given = [option for option in configure_options(configure) if option.startswith("--prefix=")]
    return given[-1].removeprefix("--prefix=") if given else None


_OPTION_NAME = re.compile(r"--[a-z0-9_-]+")
_PRINTABLE = re.compile(r"[ -~]+")
# A third-party module built in or dynamic: its names are not in nginx's tables.
THIRD_PARTY = ("--add-module", "--add-dynamic-module")
# ngx_regex_module: configure builds it exactly where it links PCRE (auto/modules).
_REGEX_SOURCE = "src/core/ngx_regex.c"
# A switch's values that build nothing.
_NOT_BUILT = ("NO", "DISABLED")


def build_options(configure: str) -> str:
    """The options of a configure line that tpgen reads of a build: those that say which
    modules it builds (--with-X, --with-X=dynamic, --without-X, and a bare
    --add-module/--add-dynamic-module for a third-party one) and its --prefix, which a
    snippet's relative paths (log files, load_module modules/…) are taken after. Other paths
    and compiler flags (--with-cc-opt=…, often long) are not read and would not fit a spec
    text."""
    prefix = configured_prefix(configure)
    # The spec takes printable ASCII alone (CONFIGURE_RE): another prefix stays unknown.
    kept = [f"--prefix={shlex.quote(prefix)}"] if prefix and _PRINTABLE.fullmatch(prefix) else []
    for option in configure_options(configure):
        name, equals, value = option.partition("=")
        if not _OPTION_NAME.fullmatch(name):
            continue  # no option of configure's: nothing it could choose
        if name in THIRD_PARTY:
            kept.append(name)
        elif not equals or value == "dynamic":
            kept.append(option)
    return " ".join(dict.fromkeys(kept))


def third_party(configure: str) -> bool:
    """Whether a configure line builds a module that is not nginx's own."""
    return any(option.partition("=")[0] in THIRD_PARTY for option in configure_options(configure))


def switches(version: Version, configure: str) -> dict[str, str]:
    """configure's switches (HTTP_GZIP, STREAM, …) after ``configure``'s options: the
    defaults of ``version``, then what each option sets, a later option over an earlier."""
    found = {name: str(entry["value"]) for name, entry in _of_version("defaults", version).items()}
    options = _of_version("options", version)
    for option in configure_options(configure):
        entry = options.get(option)
        for assignment in str(entry["sets"]).split() if entry else ():
            name, _, value = assignment.partition("=")
            found[name] = value
    return found


def holds(condition: Condition, values: Mapping[str, str]) -> bool:
    """Whether a condition of the table holds for these switches (one not set: empty)."""
    if isinstance(condition, bool):
        return condition
    operator, *parts = condition
    if operator == "=":
        return bool(values.get(parts[0], "") == parts[1])
    if operator == "not":
        return not holds(parts[0], values)
    if operator == "and":
        return all(holds(part, values) for part in parts)
    return any(holds(part, values) for part in parts)


@dataclass(frozen=True)
class Built:
    """How a build has a source file's module: its name, and whether it is a dynamic module
    (its .so named after it) or linked into nginx."""

    module: str
    dynamic: bool


@cache
def built_sources(version: Version, configure: str) -> dict[str, Built]:
    """Each source file of nginx's modules that this build compiles, and how: the last way
    whose condition holds decides, as the last assignment does in configure's shell."""
    values = switches(version, configure)
    found: dict[str, Built] = {}
    for source, entry in _of_version("builds", version).items():
        decided = [way for way in entry["ways"] if holds(way["when"], values)]
        if decided:
            link = str(decided[-1]["link"])
            value = link if link in ("YES", "DYNAMIC") else values.get(link, "")
            found[source] = Built(str(decided[-1]["module"]), value == "DYNAMIC")
    return found


def _switches_wanted(version: Version, source: str) -> set[str]:
    """The switches whose value the source's ways want YES (or not NO), HTTP aside: every
    build tpgen configures has it."""
    wanted: set[str] = set()
    for way in _of_version("builds", version).get(source, {}).get("ways", ()):
        wanted |= _tested(way["when"])
    return wanted - {"HTTP"}


def _tested(condition: Condition) -> set[str]:
    if isinstance(condition, bool):
        return set()
    if condition[0] == "=":
        return {condition[1]} if condition[2] == "YES" else set()
    if condition[0] == "not":
        inner = condition[1]
        return {inner[1]} if isinstance(inner, list) and inner[:1] == ["="] else set()
    return set().union(*(_tested(part) for part in condition[1:]))


def _options_setting(version: Version, wanted: set[str], built: bool) -> list[str]:
    """The options that set a wanted switch so that it builds (YES, DYNAMIC), or not (NO;
    --without-pcre's DISABLED)."""
    return sorted(
        option
        for option, entry in _of_version("options", version).items()
        for assignment in str(entry["sets"]).split()
        if assignment.partition("=")[0] in wanted
        and (assignment.partition("=")[2] not in _NOT_BUILT) == built
    )


@cache
def own_modules(version: Version) -> frozenset[str]:
    """The modules of nginx's own that a build of ``version`` may make dynamic (their .so)."""
    return frozenset(
        str(way["module"])
        for entry in _of_version("builds", version).values()
        for way in entry["ways"]
        if way["module"]
    )


def loaded_module(path: str) -> str:
    """The module a load_module path loads, by its file's name: ngx_stream_module."""
    return PurePosixPath(path).name.removesuffix(".so")


@dataclass(frozen=True)
class Build:
    """An nginx build as its configure arguments say, and the dynamic modules the config
    loads (:func:`loaded_module` of each load_module path)."""

    version: Version
    configure: str
    loaded: frozenset[str] = frozenset()

    def with_loaded(self, paths: Iterable[str]) -> Build:
        return Build(self.version, self.configure, frozenset(map(loaded_module, paths)))

    @property
    def debug(self) -> bool:
        """Whether it is built --with-debug (NGX_DEBUG: error_log memory: needs it)."""
        return "--with-debug" in configure_options(self.configure)

    @property
    def pcre(self) -> bool:
        """Whether it has the PCRE library (NGX_PCRE): configure links it for the rewrite
        module or with --with-pcre; --without-pcre, or no rewrite module, leaves it out."""
        return _REGEX_SOURCE in built_sources(self.version, self.configure)

    def lacks_pcre(self) -> str:
        """Why the config's nginx has no PCRE library, with the options that say so."""
        disabled = switches(self.version, self.configure).get("USE_PCRE") == "DISABLED"
        how = (
            "--without-pcre"
            if disabled
            else "--without-http_rewrite_module, and no --with-pcre: the rewrite module brings it"
        )
        return (
            f"nginx {version_text(self.version)} as built here (nginx.configure) has no PCRE "
            f"library ({how})"
        )

    def has(self, source: str) -> bool:
        """Whether the config's nginx has the module of ``source``: linked in, or loaded."""
        built = built_sources(self.version, self.configure).get(source)
        return built is not None and (not built.dynamic or built.module in self.loaded)

    def lacks(self, source: str, fix: str = "remove it or rebuild nginx") -> str:
        """Why the config's nginx has no module of ``source``, with the fix (``fix``: what to
        do where it is not built at all)."""
        built = built_sources(self.version, self.configure).get(source)
        name = built.module if built else PurePosixPath(source).stem
        said = f"nginx {version_text(self.version)} as built here (nginx.configure) has no {name}"
        if built is not None and built.dynamic:
            return (
                f"{said}: it is a dynamic module of this build; add load_module "
                f"modules/{built.module}.so; at the top of an extra.main snippet"
            )
        wanted = _switches_wanted(self.version, source)
        given = configure_options(self.configure)
        options = [
            option for option in _options_setting(self.version, wanted, False) if option in given
        ] or _options_setting(self.version, wanted, True)
        how = f" ({' or '.join(options)})" if options else ""
        return f"{said}: it is not built{how}: {fix}"
