"""The hashes nginx builds with sizes no directive sets (a bucket of 64 bytes holds a key of 46
characters), of keys a snippet lists: the MIME types of addition_types, charset_types,
gzip_types, ssi_types, sub_filter_types and xslt_types ("test_types_hash",
ngx_http_merge_types), the headers fastcgi, uwsgi and scgi hide, those grpc hides and sets,
and the HTTP_ params of fastcgi, uwsgi and scgi (a header's name after HTTP_). nginx builds
each hash where it merges the block that lists the keys, one in the http block at its first
server; a header passed too (*_pass_header) is left out of the hidden ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tpgen.spec.hash_sizes import Build, HashKey, Size, build_refusal
from tpgen.spec.nginx_syntax import Directive

_TYPES = (
    *("addition_types", "charset_types", "gzip_types"),
    *("ssi_types", "sub_filter_types", "xslt_types"),
)
# The directive that lists keys -> nginx's name of the hash, and what a key is.
_HASHES = {
    **{name: ("test_types_hash", "MIME type") for name in _TYPES},
    "fastcgi_hide_header": ("fastcgi_hide_headers_hash", "header"),
    "uwsgi_hide_header": ("uwsgi_hide_headers_hash", "header"),
    "scgi_hide_header": ("scgi_hide_headers_hash", "header"),
    "grpc_hide_header": ("grpc_headers_hash", "header"),
    "grpc_set_header": ("grpc_headers_hash", "header"),
    "fastcgi_param": ("fastcgi_params_hash", "header"),
    "uwsgi_param": ("uwsgi_params_hash", "header"),
    "scgi_param": ("scgi_params_hash", "header"),
}
_BUCKET = 64
_MAX_SIZE = {"test_types_hash": 2048}  # the others 512


def fixed_hash_refusals(every: Iterable[tuple[Directive, bool]]) -> Iterator[tuple[Directive, str]]:
    """(snippet directive, why) for each that lists a key too long for its fixed bucket, of
    ``every`` directive of an http block with a server (in its servers and locations too)."""
    listed = list(every)
    passed = {
        (d.name.removesuffix("_pass_header"), d.args[0].lower())
        for d, _ in listed
        if d.name.endswith("_pass_header") and d.args
    }
    for directive, mine in listed:
        found = _HASHES.get(directive.name)
        if not mine or found is None:
            continue
        hash_name, keys_are = found
        keys = [
            HashKey(key.lower().encode(), directive, mine)
            for key in _keys(directive)
            if (directive.name.partition("_")[0], key.lower()) not in passed
            or not directive.name.endswith("_hide_header")
        ]
        sizes = (
            Size(f"{hash_name}_bucket_size", _BUCKET),
            Size(f"{hash_name}_max_size", _MAX_SIZE.get(hash_name, 512)),
        )
        refused = build_refusal(Build(hash_name, keys_are, tuple(keys), *sizes, fixed=True))
        if refused is not None:
            yield refused


def _keys(directive: Directive) -> list[str]:
    if directive.name in _TYPES:
        # "*" is any type: nginx keeps no list, nor hash.
        return [] if "*" in directive.args else list(directive.args)
    if not directive.args:
        return []
    if directive.name.endswith("_param"):
        name = directive.args[0]
        return [name[5:]] if len(name) > 5 and name.startswith("HTTP_") else []
    return [directive.args[0]]
