"""The include files of the spec's ``extra``: each is read where it is and refused when a
directive in it would break what tpgen's config stands on (one cache, pool and aio per disk,
the key that picks the disk, tpgen's variables, the listens its checks read).

Reading: a snippet is read at its node path, or where ``locate`` says a copy is (the
controller's file). A snippet that is not there is skipped unless ``required``: a controller
validates a node's spec without the node's files. One that is there but cannot be read (a
directory, no permission, not UTF-8, over 1 MiB) is always refused.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Container, Iterator, Mapping
from dataclasses import dataclass, field, replace

from tpgen.errors import FileRefused, Problem, problem
from tpgen.files import MIB, read_text_file
from tpgen.spec.build import (
    Build,
    configured_prefix,
    has_pcre,
    loaded_module,
    own_modules,
    third_party,
)
from tpgen.spec.certs import shown_path
from tpgen.spec.directives import (
    Site,
    Target,
    block_site,
    defined_names,
    defined_variable,
    defined_variables,
    directive_names,
    http_servers,
    include_sites,
    refusals,
    ssl_set,
)
from tpgen.spec.edge import version_tuple
from tpgen.spec.merged import whole_config_refusals
from tpgen.spec.model import EXTRA_CONTEXTS, NodeSpec
from tpgen.spec.nginx_syntax import Directive, SyntaxProblem, parse

SNIPPET_LIMIT = MIB
# Refusals listed per snippet; past them one line says how many more (one line each would
# bury the first under a generated file's thousands).
SHOWN_PER_SNIPPET = 10

_POOL = "tpgen sets aio per disk (threads=pool_$tpgen_disk), so a slow disk never blocks another"
_DAEMON = "the nginx unit runs nginx as a daemon with a master process"
# Refused at any depth of any snippet: the directive, and why (with the fix).
REFUSED: dict[str, str] = {
    "proxy_cache_path": (
        "tpgen writes one cache per disk, sized from the disk; a cache it does not plan is on "
        "no bucket map (locate, purge and doctor miss it) and fills a disk unsized: remove it"
    ),
    "thread_pool": (
        "tpgen writes one thread pool per disk that needs one, sized by its rule (tpgen "
        "explain): set tuning.threads_per_disk or disks.N.thread_pool instead"
    ),
    "aio": f"{_POOL}: remove it",
    "aio_write": f"{_POOL}: remove it",
    "proxy_cache": (
        "tpgen picks the cache of each key (proxy_cache cache_$tpgen_disk): to keep requests "
        "out of the cache set cache.bypass"
    ),
    "proxy_cache_key": (
        "the cache key also picks the disk (locate, purge and remap compute it): set "
        "workload.cache_key"
    ),
    "include": (
        "tpgen cannot check what a nested include brings in: write its directives into this "
        "snippet, or list that file in extra itself"
    ),
    "worker_processes": (
        "worker_connections and the open-files limit are sized from it: set tuning.worker_processes"
    ),
    "worker_rlimit_nofile": (
        "the plan checks it against the node's limits: set tuning.worker_rlimit_nofile"
    ),
    "user": (
        "the disks' cache directories belong to tpgen's user and group: set tuning.user and "
        "tuning.group"
    ),
    "pid": "the nginx unit and the roles signal the pid file tpgen writes: remove it",
    "daemon": f"{_DAEMON}: remove it",
    "master_process": f"{_DAEMON}: remove it",
}
# Refused directly in the block tpgen includes the snippet in (not inside the snippet's own
# blocks, e.g. a server an http snippet adds).
TOP_REFUSED: dict[str, dict[str, str]] = {
    "server": {
        "listen": (
            "the health check, doctor and the exporters read the listens of spec listen: add "
            "the address there"
        ),
    },
    "location": {
        "location": (
            "a nested location takes its requests out of tpgen's content location (its disk "
            "choice, cache and thread pool): put the location in an extra.server snippet"
        ),
    },
}
_MODULES = "nginx loads modules in the main context only: list this snippet in extra.main"
TPGEN_VARIABLE_PREFIX = "$tpgen_"
_FIX_FILE = (
    "put the snippet there or fix the path (`tpgen validate` and `tpgen render --no-check` "
    "skip a snippet that is not here; the check needs it)"
)


def _reason(directive: Directive, context: str, depth: int) -> str | None:
    if directive.name in REFUSED:
        return REFUSED[directive.name]
    if directive.name == "load_module" and (context != "main" or depth):
        return _MODULES
    if depth == 0 and directive.name in TOP_REFUSED.get(context, {}):
        return TOP_REFUSED[context][directive.name]
    variable = defined_variable(directive)
    if variable is not None and variable.lower().startswith(TPGEN_VARIABLE_PREFIX):
        return (
            f"defines {variable}: $tpgen_ names are tpgen's own (the disk of a key, its cache "
            "and pool follow from them): name yours otherwise"
        )
    return None


def _refusals(
    directives: tuple[Directive, ...],
    context: str,
    shadowed: Mapping[str, str],
    depth: int = 0,
) -> Iterator[tuple[Directive, str]]:
    for directive in directives:
        reason = _reason(directive, context, depth)
        if reason is None and depth == 0 and directive.name in shadowed:
            name = directive.name
            reason = (
                f"is not inherited by {shadowed[name]}, which sets its own {name} (nginx "
                f"inherits {name} only into a block that sets none): put it in extra.location"
            )
        if reason is not None:
            yield directive, reason
        if directive.block is not None:
            yield from _refusals(directive.block, context, shadowed, depth + 1)


# Editors on Windows write it; nginx has no notion of it.
BYTE_ORDER_MARK = "\ufeff"


DEFAULT_TARGET = Target(version_tuple(None))


@dataclass(frozen=True)
class Surroundings:
    """What a snippet is checked against beyond its own text."""

    shadowed: Mapping[str, str] = field(default_factory=dict)
    target: Target = DEFAULT_TARGET
    # The block tpgen includes the snippet in (its nginx context and what it sets there);
    # None: the spec context's own block, with nothing set.
    site: Site | None = None
    # What nginx refuses when it merges the blocks of the whole config (spec/merged.py).
    merged: tuple[tuple[Directive, str], ...] = ()


def check_snippet(
    text: str, context: str, around: Surroundings | None = None
) -> list[tuple[int, str]]:
    """(line, message) of each thing in ``text`` that tpgen or nginx refuses in ``context``."""
    return _check(text, _tree(text), context, around or Surroundings())


def _check(
    text: str,
    directives: tuple[Directive, ...] | SyntaxProblem,
    context: str,
    around: Surroundings,
) -> list[tuple[int, str]]:
    if text.startswith(BYTE_ORDER_MARK):
        return [
            (
                1,
                "the file starts with a byte order mark (U+FEFF), which nginx reads as part of "
                "its first directive (unknown directive): save it as UTF-8 without one",
            )
        ]
    if isinstance(directives, SyntaxProblem):
        return [(directives.line, f"{directives.message}: nginx -t would refuse it")]
    # Each directive once, tpgen's reason before nginx's, in the order the file reads.
    order = {id(directive): index for index, directive in enumerate(_each(directives))}
    site = around.site or Site(context, frozenset())
    found: dict[int, tuple[Directive, str]] = {}
    for directive, reason in (
        *_refusals(directives, context, around.shadowed),
        *refusals(directives, site.context, around.target, site),
        *(found for found in around.merged if id(found[0]) in order),
    ):
        found.setdefault(order[id(directive)], (directive, reason))
    return [(d.line, f"{d.name}: {reason}") for _, (d, reason) in sorted(found.items())]


def _each(directives: tuple[Directive, ...]) -> Iterator[Directive]:
    for directive in directives:
        yield directive
        if directive.block is not None:
            yield from _each(directive.block)


def _tree(text: str) -> tuple[Directive, ...] | SyntaxProblem:
    try:
        return parse(text)
    except SyntaxProblem as err:
        return err


@dataclass(frozen=True)
class _Snippet:
    """One extra file as read: its text (None: not here and not required, or refused), parsed
    once for all that reads it."""

    where: tuple[str, str, int]
    path: str
    text: str | None
    tree: tuple[Directive, ...] | SyntaxProblem = ()
    refused: tuple[Problem, ...] = ()

    @property
    def directives(self) -> tuple[Directive, ...]:
        """Its directives; none where it does not parse (its check says why)."""
        return () if isinstance(self.tree, SyntaxProblem) else self.tree


def _read(
    where: tuple[str, str, int], path: str, locate: Callable[[str], str], required: bool
) -> _Snippet:
    located = locate(path)
    if not required and not os.path.lexists(located):
        return _Snippet(where, path, None)
    try:
        text = read_text_file(located, SNIPPET_LIMIT)
    except FileRefused as err:
        refusal = problem(where, f"{shown_path(path, locate)}: {err.message}: {_FIX_FILE}")
        return _Snippet(where, path, None, refused=(refusal,))
    return _Snippet(where, path, text, _tree(text))


def _whole(spec: NodeSpec, read: list[_Snippet], config: str | None) -> bool:
    """Whether the whole config is known: tpgen's, and every snippet of the spec read (or
    refused, which stops the spec anyway)."""
    every = {path for context in EXTRA_CONTEXTS for path in getattr(spec.extra, context)}
    return (
        config is not None
        and every <= {snippet.path for snippet in read}
        and all(snippet.text is not None or snippet.refused for snippet in read)
    )


def _target(
    spec: NodeSpec, read: list[_Snippet], tree: tuple[Directive, ...], config: str | None
) -> Target:
    """What the snippets are checked for: the version, the build (nginx.configure) with the
    modules the main snippets load, whether one loads a module not nginx's own, and what the
    whole config defines for their references — unknown while one of the spec's snippets is
    unread (not here, or not among those checked)."""
    here = [snippet for snippet in read if snippet.text is not None]
    loads = _main_loads(here)
    version = version_tuple(spec.nginx.version)
    build = None
    if spec.nginx.configure is not None:
        build = Build(version, spec.nginx.configure).with_loaded(loads)
    foreign = _foreign_module(version, build, loads)
    whole = _whole(spec, read, config)
    names, used = _whole_config_names(tree, here) if whole else (None, None)
    http = next((d.block for d in tree if d.name == "http" and d.block is not None), ())
    http_ssl = _http_ssl(http, here)
    return Target(
        version,
        unchecked_names=foreign,
        defined=_whole_config_variables(tree, here, build) if whole and not foreign else None,
        names=names,
        used=used,
        build=build,
        servers=http_servers(http, version, http_ssl, tpgen=True),
        http_ssl=http_ssl,
    )


def _http_ssl(http: tuple[Directive, ...], here: list[_Snippet]) -> frozenset[str]:
    """What of a server's certificate the http block sets, tpgen's and the http snippets'."""
    return ssl_set(http).union(
        *(ssl_set(snippet.directives) for snippet in here if snippet.where[1] == "http")
    )


def _main_loads(here: list[_Snippet]) -> list[str]:
    """The module paths the main snippets load (load_module)."""
    return [
        d.args[0]
        for snippet in here
        if snippet.where[1] == "main"
        for d in snippet.directives
        if d.name == "load_module" and len(d.args) == 1
    ]


def _foreign_module(version: tuple[int, ...], build: Build | None, loads: list[str]) -> bool:
    """Whether a module not nginx's own is loaded or built in: it may bring names nginx lacks
    (a module of nginx's own that the build makes dynamic brings none)."""
    own = own_modules(version) if build is not None else frozenset()
    return any(loaded_module(path) not in own for path in loads) or (
        build is not None and third_party(build.configure)
    )


def _whole_config_variables(
    tree: tuple[Directive, ...], here: list[_Snippet], build: Build | None
) -> frozenset[tuple[str, str]]:
    """The variables tpgen's config and the snippets define (``build``: nginx.configure's,
    whose PCRE makes regexes' named captures variables)."""
    pcre = has_pcre(build)
    return defined_variables(tree, pcre=pcre).union(
        *(defined_variables(s.directives, s.where[1], pcre=pcre) for s in here)
    )


def _whole_config_names(
    tree: tuple[Directive, ...], here: list[_Snippet]
) -> tuple[frozenset[tuple[str, str]], frozenset[str]]:
    """The log formats and zones tpgen's config and the snippets define, and every directive
    name they use."""
    names = frozenset(
        defined_names(tree).union(
            *(defined_names(snippet.directives, snippet.where[1]) for snippet in here)
        )
    )
    used = directive_names(tree).union(*(directive_names(snippet.directives) for snippet in here))
    return names, used


def snippet_problems(
    spec: NodeSpec,
    shadowed: Mapping[str, Mapping[str, str]] | None = None,
    *,
    locate: Callable[[str], str] = lambda path: path,
    required: bool = False,
    only: Container[str] | None = None,
    config: str | None = None,
) -> list[Problem]:
    """Every refusal of the spec's snippets (``only``: just these node paths).

    ``shadowed``: per context, the directives tpgen's blocks below it set themselves (so a
    snippet's would not be inherited), each with the block that sets it: the plan's
    ``shadowed_by_tpgen``. ``config``: tpgen's rendered config, for the blocks that include
    each snippet (what they set already) and the variables it defines.
    """
    read = [
        _read(("extra", context, index), path, locate, required)
        for context in EXTRA_CONTEXTS
        for index, path in enumerate(getattr(spec.extra, context))
        if only is None or path in only
    ]
    tree = parse(config) if config is not None else ()
    target = _target(spec, read, tree, config)
    sites = include_sites(tree)
    merged = _merged_refusals(read, tree, target)
    before: dict[str, Site] = {}
    problems: list[Problem] = []
    for snippet in read:
        problems.extend(snippet.refused)
        if snippet.text is None:
            continue
        context = snippet.where[1]
        site = (sites.get(snippet.path) or Site(context, frozenset())).joined(before.get(context))
        checked = replace(target, path=snippet.path)
        around = Surroundings((shadowed or {}).get(context, {}), checked, site, merged)
        found = _check(snippet.text, snippet.tree, context, around)
        before[context] = block_site(context, snippet.directives).joined(before.get(context))
        problems.extend(_shown_refusals(snippet, found, shown_path(snippet.path, locate)))
    return problems


def _merged_refusals(
    read: list[_Snippet], tree: tuple[Directive, ...], target: Target
) -> tuple[tuple[Directive, str], ...]:
    """What nginx refuses of the whole config's merged blocks; none while it is not known."""
    if target.used is None:  # the whole config is not known (_whole)
        return ()
    inlined = {snippet.path: snippet.directives for snippet in read if snippet.text}
    prefix = configured_prefix(target.build.configure) if target.build else None
    return whole_config_refusals(tree, inlined, target.version, prefix, pcre=has_pcre(target.build))


def _shown_refusals(
    snippet: _Snippet, found: list[tuple[int, str]], shown: str
) -> Iterator[Problem]:
    """A snippet's first refusals, each with its line, and how many more there are."""
    for line, message in found[:SHOWN_PER_SNIPPET]:
        yield problem(snippet.where, f"{shown} line {line}: {message}")
    if len(found) > SHOWN_PER_SNIPPET:
        more = len(found) - SHOWN_PER_SNIPPET
        yield problem(snippet.where, f"{shown}: {more} more refusals like these")
