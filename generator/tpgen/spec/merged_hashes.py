"""Which hashes nginx builds of the config's keys as it reads and merges the config, with the
sizes in force where it builds them (alike in nginx 1.22 to 1.31), judged by
spec/hash_sizes.py: the variables each http and stream block declares (set, map, geo,
split_clients, js_set, perl_set) and nginx's own, once the block is read, with its
variables_hash_* sizes (ngx_http_variables_init_vars); each map block's keys as it ends,
with the map_hash_* sizes set before the first map (ngx_http_map_block; with hostnames,
hashed as server names are); the http block's types (or nginx's three defaults) when its
first server merges, each server's and location's own types, with the types_hash_* sizes in
force there (ngx_http_core_merge_loc_conf); the headers proxy hides (in the first server and
each server that lists its own) and the ones it sets (in every server, but where the http
block sets some: in the first and those that list their own), and in each location that
lists its own, with the proxy_headers_hash_* sizes in force (ngx_http_proxy_merge_loc_conf,
ngx_http_upstream_hide_headers_hash). An include whose file is not read may add keys and
settings: a hash is judged only where nginx surely builds it, on the keys known. A snippet
includes nothing (spec/snippets.py refuses it): an include left is tpgen's own, its mime types
file (a types block). Hashes whose sizes nginx fixes: spec/fixed_hashes.py.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from tpgen.spec.directive_values import number
from tpgen.spec.fixed_hashes import fixed_hash_refusals
from tpgen.spec.hash_sizes import Build, HashKey, Size, build_refusal, keys_of
from tpgen.spec.names_hash import CACHE_LINE, names_failure
from tpgen.spec.nginx_syntax import Directive, with_snippets

Items = Sequence[tuple[Directive, bool]]
Snippets = Mapping[str, tuple[Directive, ...]]

# The argument that names the variable a directive declares.
_DECLARES = {"set": 0, "map": 1, "geo": -1, "split_clients": 1, "js_set": 0, "perl_set": 0}
# Blocks whose directives are a config's own (not a map's or a types' entries).
_NESTED = frozenset({"server", "location", "if", "limit_except"})
# A variable of nginx's own: a key of every variables hash, added before the config's.
_OWN_VARIABLE = HashKey(b"host")
_DEFAULT_TYPES = (b"html", b"gif", b"jpg")  # ngx_http_core_default_types
_PROXY_HIDES = (
    *("Date", "Server", "X-Pad", "X-Accel-Expires", "X-Accel-Redirect"),
    *("X-Accel-Limit-Rate", "X-Accel-Buffering", "X-Accel-Charset"),
)
_PROXY_SETS = (
    *("Host", "Connection", "Content-Length", "Transfer-Encoding", "TE", "Keep-Alive"),
    *("Expect", "Upgrade"),
)
_ABOVE_MAPS = "above the first map"
_DEFAULTS = {
    "variables_hash_bucket_size": 64,
    "variables_hash_max_size": 1024,
    "map_hash_bucket_size": CACHE_LINE,
    "map_hash_max_size": 2048,
    "types_hash_bucket_size": 64,
    "types_hash_max_size": 1024,
    "proxy_headers_hash_bucket_size": 64,
    "proxy_headers_hash_max_size": 512,
}


def hash_refusals(config: tuple[Directive, ...], snippets: Snippets) -> list[tuple[Directive, str]]:
    """(snippet directive, why) for each hash of the config nginx cannot build; each
    directive once."""
    found: dict[int, tuple[Directive, str]] = {}
    for directive, mine in with_snippets(config, snippets, False):
        if directive.name in ("http", "stream") and directive.block is not None:
            items = list(with_snippets(directive.block, snippets, mine))
            for late in _late_map_sizes(items):
                found.setdefault(id(late[0]), late)
            if directive.name == "http" and _owns(items, ("server",)):
                for fixed in fixed_hash_refusals(_every(items, snippets)):
                    found.setdefault(id(fixed[0]), fixed)
            for build in _block_builds(directive.name, items, snippets):
                refused = build_refusal(build)
                if refused is not None:
                    found.setdefault(id(refused[0]), refused)
    return list(found.values())


def _block_builds(top: str, items: Items, snippets: Snippets) -> Iterator[Build]:
    yield from _map_builds(items, snippets)
    if top == "http":
        yield from _server_builds(items, snippets)
    yield _variables_build(items, snippets, top)


def _size(items: Items, name: str, inherited: Size | None = None) -> Size:
    """The size a block sets (nginx takes the first: a second is a duplicate), or the one it
    inherits; a value nginx's own parser refuses is said elsewhere: the default here."""
    for directive, mine in items:
        if directive.name == name and len(directive.args) == 1:
            value = number(directive.args[0])
            if value is not None:
                return Size(name, value, directive, mine)
    return inherited or Size(name, _DEFAULTS[name])


def _sizes(
    items: Items, prefix: str, inherited: tuple[Size, Size] | None = None
) -> tuple[Size, Size]:
    bucket, max_size = inherited or (None, None)
    return (
        _size(items, f"{prefix}_bucket_size", bucket),
        _size(items, f"{prefix}_max_size", max_size),
    )


def _unread(items: Items) -> bool:
    """Whether the block includes a file not read here (tpgen's mime types)."""
    return any(directive.name == "include" for directive, _ in items)


def _every(items: Items, snippets: Snippets) -> Iterator[tuple[Directive, bool]]:
    """The block's directives and those of its servers, locations and ifs, in order."""
    for directive, mine in items:
        yield directive, mine
        if directive.name in _NESTED and directive.block is not None:
            yield from _every(list(with_snippets(directive.block, snippets, mine)), snippets)


def _variables_build(items: Items, snippets: Snippets, top: str) -> Build:
    declared: list[tuple[str, Directive | None, bool]] = [
        (_OWN_VARIABLE.text.decode(), None, False)
    ]
    for directive, mine in _every(items, snippets):
        at = _DECLARES.get(directive.name)
        if at is not None and len(directive.args) > max(at, -at - 1):
            name = directive.args[at]
            if name.startswith("$") and len(name) > 1:
                declared.append((name[1:], directive, mine))
    bucket, max_size = _sizes(items, "variables_hash")
    set_in = "in an extra.http snippet" if top == "http" else "in the stream block"
    return Build("variables_hash", "variable", keys_of(declared), bucket, max_size, set_in=set_in)


def _map_builds(items: Items, snippets: Snippets) -> Iterator[Build]:
    """Each map block's hash, with the sizes set before the first map (ngx_http_map_block
    settles them there)."""
    first = next((i for i, (d, _) in enumerate(items) if d.name == "map" and d.block), None)
    if first is None:
        return
    sizes = _sizes(items[:first], "map_hash")
    settable = items[first][1]  # tpgen's first map settles the sizes before any snippet
    for directive, mine in items[first:]:
        if directive.name == "map" and directive.block is not None:
            entries = list(with_snippets(directive.block, snippets, mine))
            texts = [(key, directive, mine) for key in _map_keys(entries)]
            if any(d.name == "hostnames" and not d.args for d, _ in entries):
                yield from _hostnames_build(texts, sizes, settable)
            elif texts:  # nginx builds no hash of a map without keys
                keys = keys_of(texts)
                yield Build("map_hash", "map key", keys, *sizes, settable, set_in=_ABOVE_MAPS)


def _hostnames_build(
    texts: Sequence[tuple[str, Directive, bool]], sizes: tuple[Size, Size], settable: bool
) -> Iterator[Build]:
    """A map of hostnames hashes its keys as server names are (exact ones, and each level of
    the wildcards'): the key that fails, alone, shows why."""
    failure = names_failure([text for text, _, _ in texts], sizes[0].value, sizes[1].value)
    if failure is None or failure.kind == "invalid" or not texts:
        return  # an invalid wildcard is the map's own handler's refusal
    _, directive, mine = texts[0]
    key = HashKey(failure.key or failure.name.lower().encode(), directive, mine)
    yield Build("map_hash", "map key", (key,), *sizes, settable, set_in=_ABOVE_MAPS)


def _late_map_sizes(items: Items) -> Iterator[tuple[Directive, str]]:
    """A snippet's map_hash_* after a map block: the first map settles both sizes, and nginx
    takes a size once."""
    first = next((i for i, (d, _) in enumerate(items) if d.name == "map" and d.block), None)
    if first is None:
        return
    # tpgen's own maps come before any http snippet.
    fix = "set it above the first map" if items[first][1] else "remove it: tpgen's maps come first"
    for directive, mine in items[first:]:
        if mine and directive.name in ("map_hash_bucket_size", "map_hash_max_size"):
            said = f'(nginx: "{directive.name}" directive is duplicate)'
            yield (
                directive,
                f"comes after a map block, which settles the map hashes' sizes {said}: {fix}",
            )


def _map_keys(entries: Items) -> list[str]:
    """A map's keys (ngx_http_map): not default, nor a regex; a leading \\ escapes one."""
    keys = []
    for entry, _ in entries:
        key = entry.name
        if len(entry.args) != 1 or key in ("default", "include") or key.startswith("~"):
            continue
        keys.append(key[1:] if key.startswith("\\") else key)
    return keys


@dataclass(frozen=True)
class _Scope:
    """What a server or location inherits: the sizes in force, and the proxy header names
    (hidden, passed, set) of the nearest block that lists its own."""

    types: tuple[Size, Size]
    proxy: tuple[Size, Size]
    headers: tuple[tuple[tuple[str, Directive | None, bool], ...], ...] = ((), (), ())


def _server_builds(items: Items, snippets: Snippets) -> Iterator[Build]:
    """The types and proxy headers hashes of each server and its locations, merged in order
    (ngx_http_merge_servers)."""
    scope = _Scope(_sizes(items, "types_hash"), _sizes(items, "proxy_headers_hash"))
    scope = replace(scope, headers=_proxy_names(items, scope.headers))
    http_types = _types_keys(items, snippets)
    # Whether the http block's hashes are built yet, for the servers after.
    built: dict[str, bool] = {"types": False, "hide": False, "set": False}
    # Whether a server that lists no headers hands its hashes to the http block: the hidden
    # ones always; the set ones only where the http block sets its own (else the server's
    # source, none, is not the http block's, unset, and each server builds them).
    built["handed set"] = _owns(items, _PROXY_LISTS[2:])
    for directive, mine in items:
        if directive.name == "server" and directive.block is not None:
            own = list(with_snippets(directive.block, snippets, mine))
            yield from _server_hashes(own, snippets, scope, (http_types, _unread(items), built))


def _types_keys(items: Items, snippets: Snippets) -> tuple[HashKey, ...] | None:
    """The extensions of a block's own types blocks; None: it has none."""
    texts: list[tuple[str, Directive | None, bool]] = []
    found = False
    for directive, mine in items:
        if directive.name == "types" and directive.block is not None:
            found = True
            for entry, _ in with_snippets(directive.block, snippets, mine):
                texts += [(ext, directive, mine) for ext in entry.args if entry.name != "include"]
    return keys_of(texts) if found else None


def _server_hashes(
    own: Items,
    snippets: Snippets,
    scope: _Scope,
    http: tuple[tuple[HashKey, ...] | None, bool, dict[str, bool]],
) -> Iterator[Build]:
    http_types, http_unread, built = http
    scope = _inner_scope(own, scope)
    if built["types"] is False and (http_types is not None or http_unread):
        # The first server builds the http block's types (known or not) with its sizes.
        yield _types_build(http_types or (), scope.types)
        built["types"] = True
    own_types = _types_keys(own, snippets)
    if own_types is not None:
        yield _types_build(own_types, scope.types)
    elif http_types is None and not http_unread:
        yield _types_build(tuple(HashKey(ext) for ext in _DEFAULT_TYPES), scope.types)
    yield from _server_proxy(own, scope, built)
    yield from _location_builds(own, snippets, scope)


def _types_build(keys: tuple[HashKey, ...], sizes: tuple[Size, Size]) -> Build:
    return Build("types_hash", "extension", keys, sizes[0], sizes[1])


def _inner_scope(own: Items, scope: _Scope) -> _Scope:
    return _Scope(
        _sizes(own, "types_hash", scope.types),
        _sizes(own, "proxy_headers_hash", scope.proxy),
        _proxy_names(own, scope.headers),
    )


_PROXY_LISTS = ("proxy_hide_header", "proxy_pass_header", "proxy_set_header")


def _proxy_names(
    items: Items, inherited: tuple[tuple[tuple[str, Directive | None, bool], ...], ...]
) -> tuple[tuple[tuple[str, Directive | None, bool], ...], ...]:
    """The header names of the block's own proxy lists, each list inherited where it has
    none."""
    lists = []
    for index, name in enumerate(_PROXY_LISTS):
        own = tuple((d.args[0], d, mine) for d, mine in items if d.name == name and d.args)
        lists.append(own or (inherited[index] if inherited else ()))
    return tuple(lists)


def _owns(items: Items, names: tuple[str, ...]) -> bool:
    return any(directive.name in names for directive, _ in items)


def _server_proxy(own: Items, scope: _Scope, built: dict[str, bool]) -> Iterator[Build]:
    """A server builds its proxy hashes where it lists its own headers, or where the http
    block's are not built yet (the first server that lists none builds them for it)."""
    for kind, names in (("hide", _PROXY_LISTS[:2]), ("set", _PROXY_LISTS[2:])):
        mine = _owns(own, names)
        if mine or built[kind] is False:
            yield _proxy_build(kind, scope)
        if built[kind] is False and not mine:
            built[kind] = built.get(f"handed {kind}", True)


def _proxy_build(kind: str, scope: _Scope) -> Build:
    hidden, passed, added = scope.headers
    if kind == "hide":
        gone = {name.lower() for name, _, _ in passed}
        texts = [(name, None, False) for name in _PROXY_HIDES] + list(hidden)
        texts = [text for text in texts if text[0].lower() not in gone]
    else:
        texts = [*added, *((name, None, False) for name in _PROXY_SETS)]
    bucket, max_size = scope.proxy
    return Build("proxy_headers_hash", "header", keys_of(texts), bucket, max_size)


def _location_builds(items: Items, snippets: Snippets, scope: _Scope) -> Iterator[Build]:
    """Each location (and if, limit_except) inside builds the hashes it lists its own keys
    of; the others it inherits built."""
    for directive, mine in items:
        if directive.name not in ("location", "if", "limit_except") or directive.block is None:
            continue
        own = list(with_snippets(directive.block, snippets, mine))
        inner = _inner_scope(own, scope)
        own_types = _types_keys(own, snippets)
        if own_types is not None:
            yield _types_build(own_types, inner.types)
        if _owns(own, _PROXY_LISTS[:2]):
            yield _proxy_build("hide", inner)
        if _owns(own, _PROXY_LISTS[2:]):
            yield _proxy_build("set", inner)
        yield from _location_builds(own, snippets, inner)
