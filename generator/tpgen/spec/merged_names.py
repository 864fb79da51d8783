"""What nginx refuses of the server names of the whole config, tpgen's servers and the
snippets' together (ngx_http_optimize_servers, src/http/ngx_http.c, alike in nginx 1.22 to
1.31): on each listen address that has more than one server, or whose default server has a
regex name with captures, nginx hashes the names of the address's servers
(spec/names_hash.py) with the http block's server_names_hash_bucket_size and
server_names_hash_max_size. A refusal names the snippet's server_name (or its setting of
the size nginx needs more of) and the value that fixes it.

Addresses are merged as for the listen rules (handlers_listen.listen_addresses). A listen of a
host name, which nginx resolves as it loads the config, is on every address the name resolves
to: the servers that listen on one name and port are hashed together there (with others, where
an address has more: a refusal of theirs is nginx's too), and localhost is 127.0.0.1
(handlers_listen.host_name_sockets). A name of $hostname is the node's host name, not known
here: it is left out of the names hashed, as a name nginx may not need room for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tpgen.spec.directive_values import number
from tpgen.spec.handlers_listen import Address, Listen, Server, listen_addresses, server_listens
from tpgen.spec.hash_sizes import Size, too_large, unallocatable
from tpgen.spec.names_hash import (
    CACHE_LINE,
    LONGEST_BUCKET,
    Failure,
    aligned,
    bucket_needed,
    hash_entry,
    longest_key_in,
    max_size_needed,
    names_failure,
)
from tpgen.spec.nginx_syntax import Directive, with_snippets
from tpgen.spec.nginx_table import Version
from tpgen.spec.pcre import compiled

BUCKET = "server_names_hash_bucket_size"
MAX_SIZE = "server_names_hash_max_size"
_DEFAULTS = {BUCKET: CACHE_LINE, MAX_SIZE: 512}  # ngx_http_core_init_main_conf
# A server without a listen is on *:80 when nginx runs as root, as a node's master does
# (ngx_http_core_merge_srv_conf; *:8000 otherwise).
_NO_LISTEN = Directive("listen", ("*:80",), 0)


@dataclass(frozen=True)
class _Name:
    """A server name, the server_name that gives it (None: nginx's "" for a server without
    one), and whether a snippet wrote it."""

    text: str
    directive: Directive | None
    from_snippet: bool


@dataclass(frozen=True)
class _Server:
    listens: tuple[Listen, ...]
    names: tuple[_Name, ...]
    captures: bool  # its last regex name has captures (cscf->captures)


def names_hash_refusals(
    config: tuple[Directive, ...],
    snippets: Mapping[str, tuple[Directive, ...]],
    version: Version,
    *,
    pcre: bool = True,
) -> list[tuple[Directive, str]]:
    """(snippet directive, why) for each address whose server names nginx cannot hash
    (``pcre``: whether nginx has the PCRE library; without it a regex name is refused
    before, spec/handlers_pcre.py, and has no captures here)."""
    http = _http_block(config, snippets)
    sizes = (_size(http, BUCKET), _size(http, MAX_SIZE))
    if sizes[0] is None or sizes[1] is None:
        return []  # a value nginx's own parser refuses, said elsewhere
    servers = [
        _server(d.block, snippets, (mine, pcre), version)
        for d, mine in http
        if d.name == "server" and d.block is not None
    ]
    return _address_refusals(servers, (sizes[0], sizes[1]))


def _address_refusals(
    servers: Sequence[_Server], sizes: tuple[Size, Size]
) -> list[tuple[Directive, str]]:
    """A refusal for each address whose names nginx hashes and cannot."""
    found = []
    for address in listen_addresses([Server(s.listens, False, False, True) for s in servers]):
        on = [servers[index] for index in address.servers]
        if len(on) > 1 or _default(address, on).captures:
            refused = _refusal(address.text, on, sizes)
            found += [refused] if refused is not None else []
    return found


def _http_block(
    config: tuple[Directive, ...], snippets: Mapping[str, tuple[Directive, ...]]
) -> list[tuple[Directive, bool]]:
    """The http block's directives with its snippets' (whether a snippet wrote each); none
    without an http block."""
    return next(
        (
            list(with_snippets(d.block, snippets, mine))
            for d, mine in with_snippets(config, snippets, False)
            if d.name == "http" and d.block is not None
        ),
        [],
    )


def _size(http: Sequence[tuple[Directive, bool]], name: str) -> Size | None:
    directive, mine = next(((d, mine) for d, mine in http if d.name == name), (None, False))
    if directive is None:
        return Size(name, _DEFAULTS[name])
    value = number(directive.args[0]) if len(directive.args) == 1 else None
    return None if value is None else Size(name, value, directive, mine)


def _server(
    block: tuple[Directive, ...],
    snippets: Mapping[str, tuple[Directive, ...]],
    read: tuple[bool, bool],
    version: Version,
) -> _Server:
    """A server block (``read``: whether a snippet wrote it, whether nginx has PCRE)."""
    from_snippet, pcre = read
    own = list(with_snippets(block, snippets, from_snippet))
    listens = [(d, mine) for d, mine in own if d.name == "listen"] or [(_NO_LISTEN, from_snippet)]
    words = [(d, mine, word) for d, mine in own if d.name == "server_name" for word in d.args]
    names, captures = _hashed_names(words, pcre)
    # nginx names a server "" only where it has no server_name at all (regexes count).
    unnamed = () if words else (_Name("", None, from_snippet),)
    return _Server(_listens(listens, version), names or unnamed, captures)


def _listens(listens: Sequence[tuple[Directive, bool]], version: Version) -> tuple[Listen, ...]:
    return tuple(
        item for d, mine in listens for item in server_listens([d], version, tpgen=not mine)
    )


def _hashed_names(
    words: Sequence[tuple[Directive, bool, str]], pcre: bool
) -> tuple[tuple[_Name, ...], bool]:
    """The names of a server's server_name words that nginx hashes, and whether its last regex
    has captures."""
    names: list[_Name] = []
    captures = False
    for directive, mine, word in words:
        if word.startswith("~"):
            captures = pcre and _captures(word[1:])
        elif word.lower() != "$hostname":
            names.append(_Name(word, directive, mine))
    return tuple(names), captures


def _captures(pattern: str) -> bool:
    found = compiled(pattern, caseless=any("A" <= char <= "Z" for char in pattern))
    # Unknown without the PCRE2 library here: none, so a hash nginx may not build refuses
    # nothing.
    return found is not None and found.captures > 0


def _default(address: Address, on: Sequence[_Server]) -> _Server:
    """The address's default server: the one with default_server, or the first."""
    return next((s for s in on if any(item is address.default for item in s.listens)), on[0])


def _refusal(
    address: str, on: Sequence[_Server], sizes: tuple[Size, Size]
) -> tuple[Directive, str] | None:
    names = [name for server in on for name in server.names]
    texts = [name.text for name in names]
    bucket, max_size = sizes
    failure = names_failure(texts, bucket.value, max_size.value)
    if failure is None:
        return None
    where = _hashed_where(address, len(on))
    origin = _named(names, failure.name)
    if failure.kind == "invalid" and origin is not None:
        return _invalid(origin, address)
    if failure.kind == "bucket" and origin is not None:
        return _too_long(origin, failure, where, (bucket, bucket_needed(texts)))
    if failure.kind == "too large":
        return too_large(bucket, "server_names_hash")
    if failure.kind == "memory":
        return unallocatable(
            Size(MAX_SIZE, max_size.value, max_size.directive, max_size.from_snippet),
            "server_names_hash",
        )
    return _too_many_names(names, sizes, where)


def _named(names: Sequence[_Name], text: str) -> _Name | None:
    """The first of `names` that is `text` (the one nginx's hash failed on)."""
    return next((name for name in names if name.text == text), None)


def _hashed_where(address: str, servers: int) -> str:
    """Why nginx hashes the names on the address: several servers, or one with captures."""
    if servers > 1:
        return f"on {address}, where nginx hashes the names of the address's {servers} servers"
    return f"on {address}, where nginx hashes the names: its server has a regex with captures"


def _too_many_names(
    names: Sequence[_Name], sizes: tuple[Size, Size], where: str
) -> tuple[Directive, str] | None:
    """More names than the hash's max size takes, with the size they need."""
    texts = [name.text for name in names]
    bucket, max_size = sizes
    needed = max_size_needed(texts, bucket.value, max_size.value)
    mine = [name for name in names if name.from_snippet and name.directive is not None]
    count = len({text.lower() for text in texts})
    return _too_many(max_size, mine[-1] if mine else None, (where, count, needed))


def _invalid(origin: _Name, address: str) -> tuple[Directive, str] | None:
    if origin.directive is None or not origin.from_snippet:
        return None
    return origin.directive, (
        f"has {origin.text!r}, which nginx cannot hash with the other names on {address}: a * "
        f'belongs only in a wildcard, and a name has no ".." (nginx: invalid server name or '
        f'wildcard "{origin.text}" on {address}): a wildcard is *.example.com, .example.com '
        "or www.example.*"
    )


def _too_long(
    origin: _Name, failure: Failure, where: str, bucket: tuple[Size, int]
) -> tuple[Directive, str] | None:
    size, needed = bucket
    key = failure.key.decode("utf-8", "replace")
    part = "the name" if key == origin.text.lower() else f"its label {key!r}"
    said = (
        f"{part} takes {hash_entry(failure.key)} bytes of a hash bucket with the pointer "
        f"that ends it, more than {BUCKET} {aligned(size.value, CACHE_LINE)} holds (nginx: "
        f"could not build server_names_hash, you should increase {BUCKET}: "
        f"{aligned(size.value, CACHE_LINE)})"
    )
    if origin.from_snippet and origin.directive is not None:
        named = f"names {origin.text!r} ({len(origin.text)} characters) {where}; "
        return origin.directive, named + said + ": " + _bucket_fix(size, needed)
    if size.from_snippet and size.directive is not None:
        shown = repr(origin.text) if origin.text else "'' (a server's without server_name)"
        named = f"is too small for the server name {shown} {where}: "
        return size.directive, named + said + f": raise it to {needed}"
    return None


def _bucket_fix(size: Size, needed: int) -> str:
    if size.directive is not None and not size.from_snippet:
        longest = longest_key_in(size.value)
        return (
            f"tpgen's config sets {BUCKET} for its own names, and nginx takes it once: shorten "
            f"the name (a wildcard: each label) to {longest} characters or fewer"
        )
    if needed > LONGEST_BUCKET:
        return f"shorten the name: no bucket holds it ({BUCKET} is at most {LONGEST_BUCKET})"
    return _set(size, needed)


def _set(size: Size, value: int) -> str:
    if size.directive is None:
        return f"add {size.name} {value}; to an extra.http snippet"
    return f"raise {size.name} to {value}"


def _too_many(
    max_size: Size, last: _Name | None, said: tuple[str, int, int | None]
) -> tuple[Directive, str] | None:
    where, count, needed = said
    spread = (
        f"nginx spreads the {count} names over at most {MAX_SIZE} {max_size.value} buckets, "
        f"and a bucket would pass {LONGEST_BUCKET} bytes"
        if max_size.value
        else f"{MAX_SIZE} 0 leaves nginx no bucket for the {count} names"
    )
    why = (
        f"{spread} (nginx: could not build server_names_hash, you should increase {MAX_SIZE}: "
        f"{max_size.value})"
    )
    fix = f"raise it to {needed}" if needed else "name fewer servers on the address"
    if max_size.directive is not None and max_size.from_snippet:
        return max_size.directive, f"is too small for the server names {where}: {why}: {fix}"
    if last is None or last.directive is None:
        return None
    fix = _set(max_size, needed) if needed else "name fewer servers on the address"
    return last.directive, f"adds server names {where}; {why}: {fix}"
