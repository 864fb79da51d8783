"""What nginx refuses of ``valid_referers``' host names, ported from ngx_http_valid_referers
and ngx_http_add_referer (src/http/modules/ngx_http_referer_module.c), which put each name
(its /URI part cut off) into the block's hash keys by ngx_hash_add_key (src/core/ngx_hash.c,
NGX_HASH_WILDCARD_KEY): a name with two *, with "..", or with a * other than *.example.com,
.example.com or www.example.* is an "invalid hostname or wildcard"; a name the block has
already (caseless; .example.com is example.com too, and *.example.com) is a "conflicting
parameter". ngx_http_referer_merge_conf then builds the hash with referer_hash_bucket_size
(64, a cache line): a name (a wildcard's labels each) of 47 characters or more does not fit.
ngx_hash_add_key's port is the server names' (spec/names_hash.py).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from tpgen.spec.names_hash import BUSY, INVALID, NameKeys, hash_entry
from tpgen.spec.nginx_syntax import Directive

# Words valid_referers reads as flags (ngx_strcmp: case matters); ~ starts a regex.
FLAGS = frozenset({"none", "blocked", "server_names"})
_BUCKET = 64  # referer_hash_bucket_size's default: ngx_cacheline_size


def _add(keys: NameKeys, word: str) -> str | None:
    """Why nginx refuses the referer ``word`` (its /URI part cut off) after those the keys
    have already, or None."""
    name = word.partition("/")[0]
    found = keys.add(name)
    if found == INVALID:
        return _invalid(name)
    return _conflicting(name) if found == BUSY else None


def _too_long(keys: NameKeys) -> str | None:
    """The first key (a wildcard's labels each) that does not fit referer_hash_bucket_size's
    default, or None."""
    return next(
        (key.text.decode() for key in keys.every_key() if hash_entry(key.text) > _BUCKET), None
    )


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
    keys = NameKeys()
    for word in args:
        if word in FLAGS or word.startswith("~") or not word:
            continue
        found = _add(keys, word)
        if found:
            return found
    return None


def referer_conflicts(
    directives: Sequence[Directive], *, bucket_set: bool
) -> Iterator[tuple[Directive, str]]:
    """A block's valid_referers together: a name another one gave already, and (unless the
    config sets referer_hash_bucket_size somewhere: ``bucket_set``) a name the default bucket
    cannot hold. What one directive refuses on its own is its handler's (referers_problem)."""
    keys = NameKeys()
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
            found = _add(keys, word)
            if found:
                yield directive, found
                return
    longest = _too_long(keys)
    if last is not None and longest is not None and not bucket_set:
        yield (
            last,
            f"has the name {longest!r} ({len(longest)} characters), longer than a referer hash "
            f"bucket of {_BUCKET} bytes holds (46) (nginx: could not build referer_hash, you "
            "should increase referer_hash_bucket_size: 64): set referer_hash_bucket_size 128",
        )
