"""What nginx refuses of ``valid_referers``' host names, ported from ngx_http_valid_referers
and ngx_http_add_referer (src/http/modules/ngx_http_referer_module.c), which put each name
(its /URI part cut off) into the block's hash keys by ngx_hash_add_key (src/core/ngx_hash.c,
NGX_HASH_WILDCARD_KEY): a name with two *, with "..", or with a * other than *.example.com,
.example.com or www.example.* is an "invalid hostname or wildcard"; a name the block has
already (caseless; .example.com is example.com too, and *.example.com) is a "conflicting
parameter". ngx_http_referer_merge_conf then builds the hash with referer_hash_bucket_size
(64, a cache line): a name (a wildcard's labels each) of 47 characters or more does not fit.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from tpgen.spec.nginx_syntax import Directive

# Words valid_referers reads as flags (ngx_strcmp: case matters); ~ starts a regex.
FLAGS = frozenset({"none", "blocked", "server_names"})
_BUCKET = 64  # referer_hash_bucket_size's default: ngx_cacheline_size


def hash_entry(key: str) -> int:
    """Bytes one key takes in an nginx hash bucket (NGX_HASH_ELT_SIZE: a pointer, the length,
    the name, aligned to a pointer), plus the pointer that ends the bucket (ngx_hash_init);
    the plan sizes server_names_hash_bucket_size with it too."""
    pointer = 8
    return pointer + math.ceil((len(key) + 2) / pointer) * pointer + pointer


@dataclass
class RefererKeys:
    """A block's ngx_hash_keys_arrays_t as ngx_hash_add_key fills it: the exact names and the
    head (*.x, .x) and tail (x.*) wildcards, lowercase; and each key the hashes hold."""

    exact: set[str] = field(default_factory=set)
    head: set[str] = field(default_factory=set)
    tail: set[str] = field(default_factory=set)
    keys: list[str] = field(default_factory=list)

    def add(self, word: str) -> str | None:
        """Why nginx refuses the referer ``word`` after those added already, or None."""
        name = word.partition("/")[0]
        form = _wildcard_form(name)
        if name.count("*") > 1 or ".." in name or "\0" in name or (form is None and "*" in name):
            return _invalid(name)
        if form is not None:
            kind, rest = form
            table = self.tail if kind == "tail" else self.head
            return self._wildcard(name, table, rest, exact=kind == "dot")
        key = name.lower()
        if key in self.exact:
            return _conflicting(name)
        self.exact.add(key)
        self.keys.append(key)
        return None

    def _wildcard(
        self, name: str, table: set[str], rest: str, *, exact: bool = False
    ) -> str | None:
        key = rest.lower()
        if exact:
            # Only to find conflicts: the exact hash itself does not get it.
            if key in self.exact:
                return _conflicting(name)
            self.exact.add(key)
        if key in table:
            return _conflicting(name)
        table.add(key)
        # ngx_hash_wildcard_init: each label is a key of a hash of its own.
        self.keys.extend(key.split("."))
        return None

    def too_long(self) -> str | None:
        """The first key that does not fit referer_hash_bucket_size's default, or None."""
        return next((key for key in self.keys if hash_entry(key) > _BUCKET), None)


def _wildcard_form(name: str) -> tuple[str, str] | None:
    """(dot, head or tail; the name without its wildcard) of a wildcard the hash takes:
    .example.com, *.example.com, www.example.*; None for any other name."""
    if len(name) > 1 and name.startswith("."):
        return "dot", name[1:]
    if len(name) > 2 and name.startswith("*."):
        return "head", name[2:]
    if len(name) > 2 and name.endswith(".*"):
        return "tail", name[:-2]
    return None


def _invalid(name: str) -> str:
    return (
        f"has {name!r}, which is no host name or wildcard nginx takes (nginx: invalid "
        'hostname or wildcard): a wildcard is "*.example.com", ".example.com" or "www.example.*"'
    )


def _conflicting(name: str) -> str:
    return (
        f"names {name!r} a second time in this block (nginx: conflicting parameter; names are "
        "caseless, their /URI part aside, and .example.com is example.com and *.example.com "
        "too): keep one"
    )


def referers_problem(args: Sequence[str]) -> str | None:
    """What ngx_hash_add_key refuses of one valid_referers' names on their own."""
    keys = RefererKeys()
    for word in args:
        if word in FLAGS or word.startswith("~") or not word:
            continue
        found = keys.add(word)
        if found:
            return found
    return None


def referer_conflicts(
    directives: Sequence[Directive], *, bucket_set: bool
) -> Iterator[tuple[Directive, str]]:
    """A block's valid_referers together: a name another one gave already, and (unless the
    config sets referer_hash_bucket_size somewhere: ``bucket_set``) a name the default bucket
    cannot hold. What one directive refuses on its own is its handler's (referers_problem)."""
    keys = RefererKeys()
    last = None
    for directive in directives:
        if directive.name != "valid_referers":
            continue
        if referers_problem(directive.args):
            return
        last = directive
        for word in directive.args:
            if word in FLAGS or word.startswith("~") or not word:
                continue
            found = keys.add(word)
            if found:
                yield directive, found
                return
    longest = keys.too_long()
    if last is not None and longest is not None and not bucket_set:
        yield (
            last,
            f"has the name {longest!r} ({len(longest)} characters), longer than a referer hash "
            f"bucket of {_BUCKET} bytes holds (46) (nginx: could not build referer_hash, you "
            "should increase referer_hash_bucket_size: 64): set referer_hash_bucket_size 128",
        )
