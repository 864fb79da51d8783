"""What nginx itself checks of a directive before its handler reads the values, so that what
validate takes nginx -t takes too: the name exists (in the target version), the block allows
it, its argument count, a block where it takes one, on/off for a flag; then, as the handlers
do, a second one in the same block where nginx refuses that ("is duplicate"), a log_format,
upstream or location already there, and a $variable nothing defines; with the build known
(nginx.configure), a directive or variable of a module it lacks (spec/build.py). The rules are
ngx_conf_handler's; the tables are nginx's modules' own (data/nginx-directives.json, written by
scripts/nginx_directives.py from nginx's source). The values of the standard parsers and their
post handlers are directive_values'; those of the handlers ported (location, if, the regexes),
directive_handlers'. Other values (a path, an upstream host) stay nginx -t's to judge.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from tpgen.spec.build import Build
from tpgen.spec.directive_handlers import KINDS as HANDLER_KINDS
from tpgen.spec.directive_handlers import (
    Place,
    handler_problem,
    location_name,
    redefined_problem,
)
from tpgen.spec.directive_values import flag_on, methods_problem, post_problem, value_problem
from tpgen.spec.edge import version_text
from tpgen.spec.file_slots import FILE_SLOTS
from tpgen.spec.handlers_certificates import empty_certificate_paths, unpaired_certificate
from tpgen.spec.handlers_charset_map import charset_pair
from tpgen.spec.handlers_http_ssl import http_certificate_refusals
from tpgen.spec.handlers_listen import Listen, Server, listen_conflicts, server_listens
from tpgen.spec.handlers_pass import portless_host
from tpgen.spec.handlers_referers import referer_conflicts
from tpgen.spec.handlers_stream_listen import stream_listen_conflicts, stream_listens
from tpgen.spec.handlers_stream_server import stream_server_refusals
from tpgen.spec.handlers_stream_ssl import stream_ssl_refusals
from tpgen.spec.handlers_thread_pool import aio_pool
from tpgen.spec.nginx_script import script_variables
from tpgen.spec.nginx_syntax import Directive
from tpgen.spec.nginx_table import Version, covers, in_version, span, table
from tpgen.spec.script_arguments import compiled_values, script_refusal

# Block directives whose body holds directives of another context; every other block (types,
# map, geo, split_clients, charset_map, …) is read by its module's own parser, not checked.
INNER_CONTEXTS: dict[tuple[str, str], str] = {
    ("main", "events"): "events",
    ("main", "http"): "http",
    ("main", "stream"): "stream",
    ("main", "mail"): "mail",
    ("http", "server"): "server",
    ("http", "upstream"): "upstream",
    ("server", "location"): "location",
    ("server", "if"): "server_if",
    ("location", "location"): "location",
    ("location", "if"): "location_if",
    ("location", "limit_except"): "limit_except",
    ("stream", "server"): "stream_server",
    ("stream", "upstream"): "stream_upstream",
    ("mail", "server"): "mail_server",
}
# Directives that define a variable, and which argument names it (-1: the last).
DEFINES = {
    "set": 0,
    "map": 1,
    "split_clients": 1,
    "geo": -1,
    "auth_request_set": 0,
    "perl_set": 0,
    "js_set": 0,
}
HTTP_CONTEXTS = frozenset(
    {"http", "server", "location", "upstream", "server_if", "location_if", "limit_except"}
)
STREAM_CONTEXTS = frozenset({"stream", "stream_server", "stream_upstream"})
# Where log formats, upstreams and shared zones are named and used (each family its own list).
NAMING_CONTEXTS = HTTP_CONTEXTS | STREAM_CONTEXTS
# Named captures of a PCRE regex become variables wherever the regex is.
_CAPTURE = re.compile(r"\(\?P?(?:<([A-Za-z_][A-Za-z0-9_]*)>|'([A-Za-z_][A-Za-z0-9_]*)')")
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_REGEX_OPERATORS = ("~", "~*", "!~", "!~*")
# Arguments that are a regex or perl's code, not nginx's script (perl_set's handler compiles
# nothing of them; location's regex only defines its captures).
NO_SCRIPT = frozenset({"location", "perl_set"})
# Directives a distribution carries into an nginx older than nginx's own release of them, from
# this version on: Debian's security updates of 1.22.1 (bookworm) and 1.26.3 (trixie) carry
# max_headers (nginx 1.29.8) against request-header floods. An nginx built from nginx's own
# source of those versions lacks it: its nginx -t says so on the node.
BACKPORTED: dict[str, Version] = {"max_headers": (1, 22, 1)}
# Where an operator puts a directive nginx allows in these blocks (spec extra).
EXTRA_FOR = {"main": "main", "http": "http", "server": "server", "location": "location"}
_WORDS = {
    "server_if": "an if block of a server",
    "location_if": "an if block of a location",
    "limit_except": "a limit_except block",
    "stream_server": "a stream server",
    "stream_upstream": "a stream upstream",
    "mail_server": "a mail server",
}


@dataclass(frozen=True)
class Command:
    """One entry of a module's command table, in the nginx versions that have it."""

    contexts: frozenset[str]
    args: str  # "any", "flag", "1+", "2+", or the counts allowed: "1,2"
    block: bool
    once: bool  # a second one in the same block is refused ("is duplicate")
    on_off: bool
    since: Version
    until: Version | None  # the last version that has it; None: still there
    # The value its handler parses, if a standard one (directive_values) or a handler ported
    # (directive_handlers), and its names.
    value: str | None = None
    choices: tuple[str, ...] = ()
    # The check its post handler adds after a standard slot, and a bounds check's bounds.
    post: str | None = None
    bounds: tuple[int, int | None] | None = None
    literal: bool = False  # its handler keeps text as text: no $variable is ever looked up
    # Which arguments its handler compiles as scripts (spec/script_arguments.py).
    script: str | None = None
    looks_up: tuple[str, ...] = ()  # variables its handler needs by name ($memcached_key)
    source: str = ""  # the module's source file: which builds have it (spec/build.py)

    def in_version(self, version: Version) -> bool:
        return covers(self.since, self.until, version)


def _bounds(entry: Mapping[str, Any]) -> tuple[int, int | None] | None:
    if "bounds" not in entry:
        return None
    low, high = entry["bounds"]
    return int(low), None if high is None else int(high)


@cache
def commands() -> dict[str, tuple[Command, ...]]:
    """Every directive name of nginx's modules, with its command table entries."""
    return {
        name: tuple(
            Command(
                contexts=frozenset(entry["contexts"]),
                args=entry["args"],
                block=entry["block"],
                once=entry["once"],
                on_off=entry["on_off"],
                since=span(entry)[0],
                until=span(entry)[1],
                value=entry.get("value"),
                choices=tuple(entry.get("choices", ())),
                literal=entry.get("literal", False),
                script=entry.get("script"),
                looks_up=tuple(entry.get("looks_up", ())),
                post=entry.get("post"),
                bounds=_bounds(entry),
                source=entry["source"],
            )
            for entry in entries
        )
        for name, entries in table()["directives"].items()
    }


# Each family of modules has variables of its own (a stream config has no $uri): the table's
# key of its variables.
VARIABLE_KINDS = {"http": "variables", "stream": "stream_variables"}


def variable_family(context: str) -> str | None:
    """Whose variables a block's directives name: http's, stream's, or none (main, mail)."""
    if context in HTTP_CONTEXTS:
        return "http"
    return "stream" if context in STREAM_CONTEXTS else None


@cache
def _variable_entries(version: Version, family: str) -> tuple[tuple[str, Any], ...]:
    """(name, entry) of each variable of ``family``'s modules in ``version``."""
    return tuple(
        (name, entry)
        for name, entries in table()[VARIABLE_KINDS[family]].items()
        for entry in entries
        if in_version(entry, version)
    )


@cache
def module_variables(
    version: Version, family: str = "http"
) -> tuple[frozenset[str], tuple[str, ...]]:
    """The variables ``family``'s modules (http, stream) define in ``version``: whole names,
    and prefixes (http_, arg_, …) that stand for every name they start."""
    names: set[str] = set()
    prefixes: set[str] = set()
    for name, entry in _variable_entries(version, family):
        (prefixes if entry["prefix"] else names).add(name)
    return frozenset(names), tuple(sorted(prefixes))


@cache
def variable_sources(version: Version, family: str = "http") -> dict[str, frozenset[str]]:
    """The source files that define each variable of ``family`` (a prefix one by its prefix)
    in ``version``: a build has the variable where it has one of their modules."""
    found: dict[str, set[str]] = {}
    for name, entry in _variable_entries(version, family):
        found.setdefault(name, set()).add(entry["source"])
    return {name: frozenset(sources) for name, sources in found.items()}


def _lacked_variable(name: str, target: Target, family: str) -> str | None:
    """Why the target's build has no module that defines the variable (by its whole name or
    its prefix); None: it has one, or the build is unknown."""
    if target.build is None:
        return None
    sources = variable_sources(target.version, family)
    known = sources.get(name) or next(
        (found for prefix, found in sources.items() if name.startswith(prefix)), frozenset()
    )
    if not known or any(target.build.has(source) for source in known):
        return None
    return target.build.lacks(min(known))


def _fixed(target: Target, family: str | None) -> frozenset[str]:
    """The variables of ``family`` no config may define again, of the modules the build has."""
    if family is None:
        return frozenset()
    fixed = fixed_variables(target.version, family)
    if target.build is None:
        return fixed
    return frozenset(name for name in fixed if _lacked_variable(name, target, family) is None)


@cache
def fixed_variables(version: Version, family: str = "http") -> frozenset[str]:
    """The variables of ``version``'s ``family`` modules that a config may not define again
    (set, map, a named capture): nginx's own, but those its modules mark changeable ($args,
    $limit_rate)."""
    return frozenset(
        name
        for name, entry in _variable_entries(version, family)
        if not entry["prefix"] and not entry["changeable"]
    )


def present(name: str, version: Version) -> tuple[Command, ...]:
    """The command table entries of a directive in ``version`` (a backport: its newest)."""
    known = commands().get(name, ())
    found = tuple(command for command in known if command.in_version(version))
    if not found and name in BACKPORTED and version >= BACKPORTED[name]:
        return tuple(command for command in known if command.until is None)
    return found


def _place(context: str) -> str:
    return _WORDS.get(context, context)


def _allowed_places(found: tuple[Command, ...]) -> str:
    places = sorted({context for command in found for context in command.contexts})
    extra = [EXTRA_FOR[place] for place in places if place in EXTRA_FOR]
    where = ", ".join(_place(place) for place in places)
    if extra:
        return f"nginx allows it in {where}: list the snippet in extra.{' or extra.'.join(extra)}"
    return f"nginx allows it in {where} only"


def _count_fits(args: str, count: int) -> bool:
    if args == "any":
        return True
    if args == "flag":
        return count == 1
    if args == "1+":
        return count >= 1
    if args == "2+":
        return count >= 2
    return str(count) in args.split(",")


def _counts(args: str) -> str:
    if args == "flag":
        return "one argument (on or off)"
    if args in ("1+", "2+"):
        return f"at least {args[0]} argument{'s' if args[0] != '1' else ''}"
    counts = args.split(",")
    if counts == ["0"]:
        return "no arguments"
    shown = " or ".join(counts)
    return f"{shown} argument{'s' if counts != ['1'] else ''}"


def _unknown(name: str, version: Version, unchecked: bool) -> str | None:
    found = commands().get(name)
    if found:
        first = min(command.since for command in found)
        if version < first:
            return (
                f"nginx {version_text(version)} has no such directive (it came in "
                f"{version_text(first)}): set nginx.version to the node's nginx, or remove it"
            )
        last = max(command.until or version for command in found)
        return (
            f"nginx {version_text(version)} has no such directive (the last nginx with it is "
            f"{version_text(last)}): remove it"
        )
    if unchecked:
        return None  # a module the snippets load may bring it: nginx -t on the node says
    return (
        "nginx has no such directive (unknown directive): check the spelling; a third-party "
        "module's directive needs its load_module in an extra.main snippet"
    )


def _shape(directive: Directive, command: Command) -> str | None:
    if command.block and directive.block is None:
        return 'takes a { … } block (nginx: has no opening "{")'
    if not command.block and directive.block is not None:
        return 'takes no block: end it with ; (nginx: is not terminated by ";")'
    if not _count_fits(command.args, len(directive.args)):
        return (
            f"takes {_counts(command.args)}, not {len(directive.args)} (nginx: invalid number "
            "of arguments)"
        )
    return None


def _value(directive: Directive, command: Command, place: Place) -> str | None:
    """What the handler's parser refuses of the arguments (their count is right) where the
    directive stands."""
    if command.on_off and directive.args[0].lower() not in ("on", "off"):
        return f"takes on or off, not {directive.args[0]!r}"
    if command.value in HANDLER_KINDS:
        return handler_problem(command.value, directive, place)
    found = _slot_problem(command, directive.args)
    if found is None and command.post is not None:
        return post_problem(command.post, command.bounds, command.value, directive.args)
    return found


def _slot_problem(command: Command, args: tuple[str, ...]) -> str | None:
    """What a standard slot (ngx_conf_file.c's, ngx_file.c's) or limit_except's method table
    refuses of the arguments."""
    if command.value in FILE_SLOTS:
        return FILE_SLOTS[command.value](args)
    if command.value == "methods":
        return methods_problem(command.choices, args)
    if command.value is not None:
        return value_problem(command.value, command.choices, args)
    return None


# What declares a shared memory zone (ngx_shared_memory_add) and the word that names it:
# zone=NAME:SIZE, keys_zone=NAME:SIZE, shared:NAME:SIZE, or an upstream's zone NAME [SIZE].
ZONE_DECLARERS = {
    "limit_req_zone": "zone=",
    "limit_conn_zone": "zone=",
    "proxy_cache_path": "keys_zone=",
    "fastcgi_cache_path": "keys_zone=",
    "uwsgi_cache_path": "keys_zone=",
    "scgi_cache_path": "keys_zone=",
    "ssl_session_cache": "shared:",
    "ssl_ocsp_cache": "shared:",
    "zone": "",
}
# The declarers whose zones other directives name, and what nginx says of a use of a zone no
# such directive declares.
_ZONE_USES = {
    "limit_req_zone": "zero size shared memory zone",
    "limit_conn_zone": "zero size shared memory zone",
    "proxy_cache_path": "zone is unknown",
    "fastcgi_cache_path": "zone is unknown",
    "uwsgi_cache_path": "zone is unknown",
    "scgi_cache_path": "zone is unknown",
    "zone": "zero size shared memory zone",
}
_ZONE_USERS = {"proxy_cache", "fastcgi_cache", "uwsgi_cache", "scgi_cache"}


def declared_zone(directive: Directive) -> tuple[str, str] | None:
    """(name, size as written: "" if none) of the shared zone a directive declares."""
    prefix = ZONE_DECLARERS.get(directive.name)
    if prefix is None or not directive.args:
        return None
    if not prefix:
        words: tuple[str, ...] = (":".join(directive.args[:2]),)
    else:
        # a limit zone's first argument is its key and a cache path's its path, whatever they
        # look like; nginx reads every zone= after it and keeps the last
        words = directive.args[1:] if prefix != "shared:" else directive.args
    word = next((arg for arg in reversed(words) if arg.startswith(prefix)), None)
    if word is None:
        return None
    name, _, rest = word.removeprefix(prefix).partition(":")
    return name, rest.partition(":")[0]


def _name_key(kind: str, name: str) -> tuple[str, str]:
    """How nginx matches a name: a log format and an upstream caseless (ngx_strcasecmp), a
    zone as written."""
    return kind, name.lower() if kind in ("log_format", "upstream") else name


def _defined_name(directive: Directive) -> tuple[str, str] | None:
    """(what defines it, the name) of a log format, upstream or shared zone a directive
    defines."""
    if directive.name in ("log_format", "upstream", "thread_pool") and directive.args:
        return _name_key(directive.name, directive.args[0])
    zone = declared_zone(directive) if directive.name in _ZONE_USES else None
    # An upstream's zone without a size declares none: it names one declared with a size.
    if zone is None or (directive.name == "zone" and not zone[1]):
        return None
    return directive.name, zone[0]


def defined_names(directives: tuple[Directive, ...], context: str = "main") -> set[tuple[str, str]]:
    """The log formats, upstreams and limit zones a config defines, at any depth: HTTP's, and
    stream's apart ("stream " before the kind; mail's are its own)."""
    found: set[tuple[str, str]] = set()
    for directive in directives:
        naming = context in NAMING_CONTEXTS or directive.name == "thread_pool"
        name = _defined_name(directive) if naming else None
        if name is not None:
            found.add(_of_family(name, context))
        inner = INNER_CONTEXTS.get((context, directive.name))
        if inner is not None and directive.block is not None:
            found |= defined_names(directive.block, inner)
    return found


def directive_names(directives: tuple[Directive, ...]) -> frozenset[str]:
    """Every directive name of a config, at any depth."""
    return frozenset(
        name
        for directive in directives
        for name in (directive.name, *directive_names(directive.block or ()))
    )


def _of_family(name: tuple[str, str], context: str) -> tuple[str, str]:
    """A name as stream's own where ``context`` is stream's: its modules keep their lists."""
    return (f"stream {name[0]}", name[1]) if context in STREAM_CONTEXTS else name


def _limit_req_zone(args: tuple[str, ...]) -> str | None:
    """The zone a limit_req names (its first zone=)."""
    return next((arg.removeprefix("zone=") for arg in args if arg.startswith("zone=")), None)


def _referenced_name(
    directive: Directive, context: str, *, literal: bool
) -> tuple[str, str] | None:
    """(what must define it, the name) of the log format, shared zone or upstream a directive
    uses."""
    args = directive.args
    stream = context in STREAM_CONTEXTS
    # nginx looks a log format up caseless (ngx_strcasecmp); combined is http's own, not stream's.
    if (
        directive.name == "access_log"
        and len(args) >= 2
        and (stream or args[1].lower() != "combined")
    ):
        return "log_format", args[1]
    if directive.name in _NAME_READERS:
        kind, read = _NAME_READERS[directive.name]
        found = read(args)
        return (kind, found) if found is not None else None
    if directive.name in ("limit_conn", "zone") and len(args) == 1 + (directive.name != "zone"):
        return _ZONE_DECLARER_OF[directive.name], args[0]
    pass_name = f"stream {directive.name}" if stream else directive.name
    host = portless_host(pass_name, args, literal=literal)
    if host is not None:
        return "upstream", host
    # "off", or a zone named per request by a variable.
    if directive.name in _ZONE_USERS and args and args[0] != "off" and "$" not in args[0]:
        return f"{directive.name}_path", args[0]
    return None


# What defines the name a directive uses, and how the name is read from its arguments.
_NAME_READERS: dict[str, tuple[str, Callable[[tuple[str, ...]], str | None]]] = {
    "limit_req": ("limit_req_zone", _limit_req_zone),
    "aio": ("thread_pool", aio_pool),
}
# What declares the zone limit_conn names, and an upstream's zone without a size.
_ZONE_DECLARER_OF = {"limit_conn": "limit_conn_zone", "zone": "zone"}


def _unknown_name(
    directive: Directive, command: Command, context: str, names: frozenset[tuple[str, str]] | None
) -> str | None:
    used = _referenced_name(directive, context, literal=command.literal)
    if names is None or used is None or _of_family(_name_key(*used), context) in names:
        return None
    kind, name = used
    if context in STREAM_CONTEXTS:
        return _unknown_in_stream(kind, name)
    return _unknown_in_http(kind, name)


def _unknown_in_http(kind: str, name: str) -> str:
    if kind == "zone":
        return (
            f"names the zone {name!r} with no size, and no upstream's zone of the config gives "
            f"it one (nginx: zero size shared memory zone): give it a size (zone {name} 64k)"
        )
    if kind == "upstream":
        return (
            f"passes to {name!r} with no port, and the config has no upstream block of that "
            f'name (nginx: no port in upstream "{name}"): add the port ({name}:9000), or define '
            "the upstream in an extra.http snippet"
        )
    if kind == "thread_pool":
        return (
            f"uses the thread pool {name!r}, which no thread_pool of the config defines (nginx: "
            f'unknown thread pool "{name}"): define it with thread_pool in an extra.main '
            "snippet, or write aio threads (nginx's default pool)"
        )
    if kind == "log_format":
        return (
            f"uses the log format {name!r}, which the config does not define (nginx: unknown "
            "log format): define it with log_format in an extra.http snippet, or use combined "
            "or tpgen"
        )
    return (
        f"uses the zone {name!r}, which no {kind} of the config defines (nginx: "
        f"{_ZONE_USES[kind]}): define it with {kind} in an extra.http snippet"
    )


def _unknown_in_stream(kind: str, name: str) -> str:
    if kind == "upstream":
        return (
            f"passes to {name!r} with no port, and the stream block has no upstream of that name "
            f'(nginx: no port in upstream "{name}"): add the port ({name}:9000), or define the '
            "upstream in the stream block"
        )
    if kind == "log_format":
        return (
            f"uses the log format {name!r}, which the stream block does not define (nginx: "
            "unknown log format; stream has no combined): define it with log_format in the "
            "stream block"
        )
    if kind == "zone":
        return (
            f"names the zone {name!r} with no size, and no upstream's zone of the stream block "
            f"gives it one (nginx: zero size shared memory zone): give it a size (zone {name} 64k)"
        )
    return (
        f"uses the zone {name!r}, which no {kind} of the stream block defines (nginx: zero size "
        f"shared memory zone): define it with {kind} in the stream block"
    )


def _redefined(directive: Directive, fixed: frozenset[str]) -> str | None:
    variable = defined_variable(directive)
    if variable == "$":
        # ngx_http_add_variable: a name of no characters.
        return (
            'defines the variable "$", which has no name (nginx: invalid variable name "$"): '
            "name it ($name)"
        )
    name = variable.removeprefix("$") if variable else ""
    if name.lower() in fixed:
        return redefined_problem(name)
    return None


def defined_variable(directive: Directive) -> str | None:
    """The variable a set/map/geo/… directive defines, as written (with its $)."""
    position = DEFINES.get(directive.name)
    if position is None or not directive.args or position >= len(directive.args):
        return None
    return directive.args[position]


def defined_variables(
    directives: tuple[Directive, ...], context: str = "main", *, pcre: bool = True
) -> frozenset[tuple[str, str]]:
    """(family, name) of each variable a config's blocks of ``context`` define (lowercase, no
    $): by set, map, geo, … at any depth, and by the named captures of its regexes (a map's
    entries' too) where nginx has PCRE (``pcre``); a name defined in http is not stream's,
    nor the other way round."""
    found: set[tuple[str, str]] = set()
    family = variable_family(context)
    for directive in directives:
        variable = defined_variable(directive)
        if family is not None and variable is not None:
            found.add((family, variable.removeprefix("$").lower()))
        # Without PCRE nothing is compiled as a regex: a map's ~ key is a plain string, and
        # a regex location or server name is refused.
        if family is not None and pcre:
            words = " ".join((directive.name, *directive.args))
            found.update((family, (a or b).lower()) for a, b in _CAPTURE.findall(words))
        if directive.block is not None:
            inner = INNER_CONTEXTS.get((context, directive.name), context)
            found |= defined_variables(directive.block, inner, pcre=pcre)
    return frozenset(found)


def _references(directive: Directive, script: str | None) -> Iterator[str]:
    """The variables a directive's values name; regexes and what it defines are not read.
    Where the table knows which arguments nginx compiles (``script``), only those: a header's
    name in add_header X-$a b is text, not a reference."""
    if directive.name in NO_SCRIPT:
        return
    if script is not None:
        for value in compiled_values(directive.args, script) if directive.args else ():
            yield from script_variables(value)
    elif directive.name == "geo":
        # ngx_http_geo_block: the address is one variable, named by all that follows its $.
        if len(directive.args) == 2 and directive.args[0][1:]:
            yield directive.args[0][1:]
    elif directive.name == "if":
        yield from _if_references(directive.args)
    else:
        yield from _other_references(directive)


def _other_references(directive: Directive) -> Iterator[str]:
    """The values of map, split_clients and the other handlers the table has no script for: every
    argument but the variable it defines and a regex."""
    position = DEFINES.get(directive.name)
    skipped = {position % len(directive.args)} if position is not None and directive.args else set()
    for index, arg in enumerate(directive.args):
        after_operator = index and directive.args[index - 1] in _REGEX_OPERATORS
        if index in skipped or after_operator or arg.startswith("~"):
            continue
        yield from script_variables(arg)


def _if_references(args: tuple[str, ...]) -> Iterator[str]:
    """ngx_http_rewrite_if_condition: a condition's operand that starts with a $ is one
    variable, named by all that follows its $ ("$a$" names "a$"); the text compared with it
    and a file operator's path are scripts."""
    operands = list(args)
    if operands and operands[0].startswith("("):
        operands[0] = operands[0][1:]
    if operands and operands[-1].endswith(")"):
        operands[-1] = operands[-1][:-1]
    operands = [operand for index, operand in enumerate(operands) if operand or index]
    for index, operand in enumerate(operands):
        if index == 0 and len(operand) > 1 and operand.startswith("$"):
            yield operand[1:]
        elif not (index and operands[index - 1] in _REGEX_OPERATORS):
            yield from script_variables(operand)


def _unknown_variable(
    references: Iterable[str],
    target: Target,
    defined: frozenset[tuple[str, str]],
    family: str,
) -> str | None:
    version = target.version
    names, prefixes = module_variables(version, family)
    for variable in references:
        name = variable.lower()
        if (family, name) in defined:
            continue
        if name in names or name.startswith(prefixes):
            lacked = _lacked_variable(name, target, family)
            if lacked is None:
                continue
            return f"uses ${variable}: {lacked}"
        return _undefined(variable, version, family)
    return None


def _merged_variables(target: Target, family: str) -> Callable[[Directive], str | None]:
    """_unknown_variable of a directive of ``family`` (http, stream) whose values nginx
    compiles elsewhere (in a merge); nothing where the config's own variables are not known."""
    defined = target.defined
    if defined is None:
        return lambda _: None
    return lambda directive: _unknown_variable(
        _references(directive, "all"), target, defined, family
    )


def _undefined(variable: str, version: Version, family: str) -> str:
    """What tpgen says of a variable neither nginx's modules nor the config define."""
    name = variable.lower()
    if family == "stream":
        return (
            f"uses {_shown(variable)}, which neither nginx {version_text(version)}'s stream "
            f'modules nor the stream block defines (nginx: unknown "{name}" variable): check '
            "the spelling (stream's variables are its own: no $uri, $arg_…), or define it in "
            "the stream block (set, map)"
        )
    return (
        f"uses {_shown(variable)}, which neither nginx {version_text(version)} nor the "
        f'config defines (nginx: unknown "{name}" variable): check the spelling, or define '
        "it (set, map)"
    )


def _shown(variable: str) -> str:
    """$name as a config writes it; else the name nginx read, quoted: geo's "{uri}" (its
    address is all that follows the $), "1" of ${1} (not the capture $1)."""
    if _PLAIN_NAME.fullmatch(variable):
        return f"${variable}"
    return f'the variable named "{variable}"'


def _twice(by_tpgen: bool, context: str) -> str:
    if by_tpgen:
        return (
            f"tpgen's config sets it in this {_place(context)} block already and nginx takes it "
            "once per block (is duplicate): remove it (tpgen explain shows why tpgen sets it "
            "and the spec field that changes it, where there is one)"
        )
    return (
        f"is set twice in this {_place(context)} block and nginx takes it once per block "
        "(is duplicate): keep one"
    )


def _named_twice(key: tuple[str, ...], by_tpgen: bool) -> str:
    what = f"{key[0]} {key[-1]!r}" if key[0] != "location" else f"{key[1]} location {key[-1]!r}"
    if by_tpgen:
        return (
            f"tpgen's config already has a {what} in this block and nginx refuses a duplicate: "
            "give yours another name or path"
        )
    return f"a second {what} in this block, which nginx refuses as a duplicate: keep one"


@dataclass(frozen=True)
class Target:
    """What a snippet is checked for: the nginx version, whether a loaded module outside
    nginx's own may bring names nginx lacks, the variables the whole config defines
    (:func:`defined_variables`), the log formats and zones (:func:`defined_names`; None:
    references are not read) and the build with the modules the config loads (None:
    unknown, every module of nginx's is taken as there)."""

    version: Version
    unchecked_names: bool = False
    defined: frozenset[tuple[str, str]] | None = None
    names: frozenset[tuple[str, str]] | None = None
    # Every directive name of the whole config (None: not known).
    used: frozenset[str] | None = None
    build: Build | None = None
    # tpgen's own HTTP servers (their listens, spec listen: and the status and redirect
    # servers), read by the listen rules after the snippet's; and what the http block (tpgen's
    # or another snippet's) sets that a server inherits: ssl_certificate, ssl_reject_handshake.
    servers: tuple[Server, ...] = ()
    http_ssl: frozenset[str] = frozenset()
    # The path of the file checked (a snippet's on the node; None: not known).
    path: str | None = None


def _command(
    directive: Directive, context: str, target: Target
) -> tuple[Command | None, str | None]:
    """The command table entry nginx would run the directive by, or why there is none."""
    found = present(directive.name, target.version)
    if not found:
        return None, _unknown(directive.name, target.version, target.unchecked_names)
    if target.build is not None:
        built = tuple(command for command in found if target.build.has(command.source))
        if not built:
            return None, _lacked_module(found, context, target.build)
        found = built
    here = [command for command in found if context in command.contexts]
    if not here:
        return None, f"is not allowed in {_place(context)}: {_allowed_places(found)}"
    return here[0], None


def _lacked_module(found: tuple[Command, ...], context: str, build: Build) -> str:
    """Why the build has no module for a name: the module nginx would look the name up in
    here, else any that has it."""
    lacked = [command for command in found if context in command.contexts] or list(found)
    return build.lacks(lacked[0].source)


@dataclass
class _Seen:
    """What a block has set so far: names, and :func:`unique_key` keys."""

    names: set[str]
    keys: set[tuple[str, ...]]

    def add(self, directive: Directive) -> None:
        self.names.add(directive.name)
        key = unique_key(directive)
        if key is not None:
            self.keys.add(key)


# root and alias set the same path: nginx takes one of them per block.
_ONE_PATH = {"root": "alias", "alias": "root"}


def _repeated(
    directive: Directive, command: Command, context: str, site: Site, seen: _Seen
) -> str | None:
    if command.once and directive.name in seen.names:
        return _twice(directive.name in site.taken, context)
    other = _ONE_PATH.get(directive.name)
    if other in seen.names:
        by = "tpgen's config sets" if other in site.taken else "this block sets"
        return (
            f"{by} {other} here already, and nginx takes one of root and alias per block "
            f'(nginx: "{directive.name}" directive is duplicate, "{other}" directive was '
            "specified earlier): keep one"
        )
    key = unique_key(directive)
    if key is not None and key in seen.keys:
        return _named_twice(key, key in site.named)
    return None


def refusals(
    directives: tuple[Directive, ...],
    context: str,
    target: Target,
    site: Site | None = None,
    location: Directive | None = None,
) -> Iterator[tuple[Directive, str]]:
    """(directive, why nginx -t refuses it) in a block of ``context``, its inner blocks too.

    ``site``: what the block sets already (tpgen's own directives beside the snippet's
    include), for nginx's "is duplicate" and its duplicate names. ``location``: the location
    whose block this is, for what nginx refuses of a location inside it.
    """
    site = site or Site(context, frozenset())
    seen = _Seen(set(site.taken), set(site.named))
    place = _block_place(context, target, location)
    inner_target = _inner_target(directives, context, target)
    for directive in directives:
        command, reason = _command(directive, context, target)
        if command is not None:
            reason = _own_refusal(directive, command, place, site, seen) or _reference_refusal(
                directive, command, context, target
            )
        seen.add(directive)
        if reason is not None and not _body_refused_first(directive, command, context, target):
            yield directive, reason
            continue
        inner = INNER_CONTEXTS.get((context, directive.name))
        if inner is not None and directive.block is not None:
            around = directive if directive.name == "location" else None
            yield from refusals(directive.block, inner, inner_target, location=around)
    yield from _block_rules(directives, context, site, target)


def _inner_target(directives: tuple[Directive, ...], context: str, target: Target) -> Target:
    """The target of the blocks inside: a server of an http block takes what that block
    sets of a server's certificate too."""
    if context != "http":
        return target
    return replace(target, http_ssl=target.http_ssl | ssl_set(directives))


def _block_place(context: str, target: Target, location: Directive | None) -> Place:
    """Where the block's directives stand, as their handlers see it."""
    return Place(
        context,
        location.args if location is not None else None,
        _fixed(target, variable_family(context)),
        target.version,
        debug=target.build is None or target.build.debug,
        path=target.path,
        build=target.build,
    )


def _own_refusal(
    directive: Directive, command: Command, place: Place, site: Site, seen: _Seen
) -> str | None:
    """Why nginx refuses the directive by itself: its shape, its value, its script, a variable
    it may not define, or a second one in the block."""
    return (
        _shape(directive, command)
        or _value(directive, command, place)
        or script_refusal(directive.args, command.script)
        or _redefined(directive, place.fixed)
        or _repeated(directive, command, place.context, site, seen)
    )


def _reference_refusal(
    directive: Directive, command: Command, context: str, target: Target
) -> str | None:
    """Why nginx refuses what the directive refers to: a variable or a log format or zone the
    whole config does not define (only where the whole config is known)."""
    family = variable_family(context)
    if target.defined is not None and family is not None:
        read = () if command.literal else _references(directive, command.script)
        references = (*read, *command.looks_up)
        unknown = _unknown_variable(references, target, target.defined, family)
        if unknown is not None:
            return unknown
    if context in NAMING_CONTEXTS:
        return _unknown_name(directive, command, context, target.names)
    return None


def _block_rules(
    directives: tuple[Directive, ...], context: str, site: Site, target: Target
) -> Iterator[tuple[Directive, str]]:
    """What nginx refuses of a block's directives together, after each one's own checks."""
    if context in ("http", "server"):
        yield from _unpaired_certificate(directives, site, target)
        yield from empty_certificate_paths(directives)
        # A certificate set beside the snippet's (tpgen's) pairs with the key set beside it.
        inherited = context == "server" and "ssl_certificate" not in site.taken
        yield from http_certificate_refusals(
            directives,
            inherited and "ssl_certificate" in target.http_ssl,
            _merged_variables(target, "http"),
        )
    if context in ("server", "location"):
        # The bucket a config sets anywhere may be the one this block inherits.
        bucket_set = target.used is None or "referer_hash_bucket_size" in target.used
        yield from referer_conflicts(directives, bucket_set=bucket_set)
    if context == "http":
        yield from _listen_rules(directives, target)
    if context == "stream":
        yield from _stream_listen_rules(directives, target)
        yield from stream_server_refusals(directives, target.version, commands().__contains__)
        yield from stream_ssl_refusals(
            directives, target.version, _merged_variables(target, "stream")
        )


# Handlers that judge their block after nginx has read it (an upstream without servers):
# what its directives refuse comes first.
_BODY_FIRST = frozenset({"upstream", "mail_server"})


def _body_refused_first(
    directive: Directive, command: Command | None, context: str, target: Target
) -> bool:
    inner = INNER_CONTEXTS.get((context, directive.name))
    if command is None or command.value not in _BODY_FIRST or inner is None:
        return False
    return any(True for _ in refusals(directive.block or (), inner, target))


def ssl_set(directives: tuple[Directive, ...]) -> frozenset[str]:
    """What of a server's certificate a block sets: ssl_certificate, ssl_reject_handshake on."""
    return frozenset(
        d.name
        for d in directives
        if d.name == "ssl_certificate" or (d.name == "ssl_reject_handshake" and flag_on(d.args))
    )


ListenReader = Callable[..., tuple[Listen, ...]]


def http_servers(
    directives: tuple[Directive, ...],
    version: Version,
    above: frozenset[str],
    *,
    tpgen: bool,
    read: ListenReader = server_listens,
) -> tuple[Server, ...]:
    """The server blocks of an http block's directives (a stream block's: ``read``
    stream_listens) as the listen rules read them."""
    found = []
    for server in directives:
        if server.name != "server" or server.block is None:
            continue
        listens = [d for d in server.block if d.name == "listen"]
        ssl = ssl_set(server.block) | above
        found.append(
            Server(
                read(listens, version, tpgen=tpgen),
                certificate="ssl_certificate" in ssl,
                rejects="ssl_reject_handshake" in ssl,
                tpgen=tpgen,
            )
        )
    return tuple(found)


def _listen_rules(
    directives: tuple[Directive, ...], target: Target
) -> Iterator[tuple[Directive, str]]:
    """ngx_http_add_addresses and ngx_http_ssl_init over the snippet's servers, then
    tpgen's (the http snippets come before tpgen's servers)."""
    above = ssl_set(directives) | target.http_ssl
    mine = http_servers(directives, target.version, above, tpgen=False)
    if any(server.listens for server in mine):
        yield from listen_conflicts((*mine, *target.servers))


def _stream_listen_rules(
    directives: tuple[Directive, ...], target: Target
) -> Iterator[tuple[Directive, str]]:
    """ngx_stream_core_listen's and ngx_stream_add_addresses' rules over the stream block's
    servers, and the certificates an ssl listen needs (tpgen's config has no stream)."""
    servers = http_servers(
        directives, target.version, ssl_set(directives), tpgen=False, read=stream_listens
    )
    yield from stream_listen_conflicts(servers, target.version)


def _unpaired_certificate(
    directives: tuple[Directive, ...], site: Site, target: Target
) -> Iterator[tuple[Directive, str]]:
    """ngx_http_ssl_merge_srv_conf: a block that sets certificates needs as many keys, its
    own or (when it sets none) inherited. tpgen's own certificates come with their keys."""
    certificates = [d for d in directives if d.name == "ssl_certificate"]
    keys = sum(d.name == "ssl_certificate_key" for d in directives)
    unpaired = unpaired_certificate(certificates, keys)
    no_key_anywhere = target.used is not None and "ssl_certificate_key" not in target.used
    if unpaired is not None and (keys or "ssl_certificate" in site.taken or no_key_anywhere):
        yield unpaired


@dataclass(frozen=True)
class Site:
    """Where a config includes a file: the context of the block, and the directives it sets."""

    context: str
    taken: frozenset[str]
    named: frozenset[tuple[str, ...]] = frozenset()

    def joined(self, other: Site | None) -> Site:
        if other is None:
            return self
        return Site(self.context, self.taken | other.taken, self.named | other.named)


def block_site(context: str, directives: tuple[Directive, ...]) -> Site:
    """What a block's own directives set (its includes aside)."""
    seen = _Seen(set(), set())
    for directive in directives:
        if directive.name != "include":
            seen.add(directive)
    return Site(context, frozenset(seen.names), frozenset(seen.keys))


def include_sites(directives: tuple[Directive, ...], context: str = "main") -> dict[str, Site]:
    """Per file a config includes (its path as written), the block that includes it; a file
    included in several blocks gets the names of all of them (any one refuses a duplicate)."""
    sites: dict[str, Site] = {}
    here = block_site(context, directives)
    for directive in directives:
        if directive.name == "include" and len(directive.args) == 1:
            path = directive.args[0]
            sites[path] = here.joined(sites.get(path))
        inner = INNER_CONTEXTS.get((context, directive.name))
        if inner is not None and directive.block is not None:
            for path, site in include_sites(directive.block, inner).items():
                sites[path] = site.joined(sites.get(path))
    return sites


def unique_key(directive: Directive) -> tuple[str, ...] | None:
    """What nginx allows once per block beyond "is duplicate": a log_format or upstream name,
    a limit_conn or limit_req zone, a prefix or exact location's path (regex and named
    locations may repeat), a charset_map's two charsets."""
    args = directive.args
    if directive.name in ("log_format", "upstream", "limit_conn") and args:
        return (directive.name, args[0])
    if directive.name == "limit_req":
        zone = _limit_req_zone(args)
        return ("limit_req", zone) if zone is not None else None
    if directive.name == "location" and args:
        return _location_key(args)
    if directive.name == "charset_map" and len(args) == 2:
        return ("charset_map", charset_pair(args))
    return None


def _location_key(args: tuple[str, ...]) -> tuple[str, ...] | None:
    kind, name = location_name(args)
    return ("location", kind, name) if kind in ("prefix", "exact") else None
