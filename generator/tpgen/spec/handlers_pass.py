"""fastcgi_pass, scgi_pass, uwsgi_pass, grpc_pass, memcached_pass and stream's proxy_pass: the
address of the upstream, as ngx_http_upstream_add (ngx_stream_upstream_add) reads it with
ngx_parse_url; one with variables is read per request (spec/script_arguments checks it), but
memcached_pass compiles none: its $ is the address's own character."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tpgen.spec.nginx_table import Where
from tpgen.spec.nginx_urls import url_problem

# The schemes a handler strips before the address (caseless), by directive.
SCHEMES = {"uwsgi_pass": ("uwsgi://", "suwsgi://"), "grpc_pass": ("grpc://", "grpcs://")}
# Stream's proxy_pass apart: http's takes a URL, whose scheme gives a port.
PASSES = frozenset({"fastcgi_pass", "scgi_pass", "memcached_pass", "stream proxy_pass", *SCHEMES})


def _address(url: str, schemes: tuple[str, ...]) -> str:
    scheme = next((s for s in schemes if url[: len(s)].lower() == s), "")
    return url[len(scheme) :]


def pass_problem(
    schemes: tuple[str, ...], *, variables: bool = True
) -> Callable[[Sequence[str], Where], str | None]:
    """The check of a pass whose handler strips ``schemes`` (and, with ``variables``, reads an
    address with a $ per request)."""

    def check(args: Sequence[str], place: Where) -> str | None:
        url = args[0]
        # A host name that cannot be one may still name an upstream block: nginx -t says.
        found = None if variables and "$" in url else url_problem(_address(url, schemes))
        if found is None or found == "host not found":
            return None
        return (
            f"takes an upstream's address (host:port, unix:/path) or name, not {url!r} (nginx: "
            f"{found} in upstream)"
        )

    return check


def portless_host(name: str, args: Sequence[str], *, literal: bool) -> str | None:
    """The host a pass names with no port (nginx needs an upstream block of that name, else: no
    port in upstream); None where it has a port, variables (not ``literal``) or a unix: path."""
    if name not in PASSES or not args or ("$" in args[0] and not literal):
        return None
    address = _address(args[0], SCHEMES.get(name, ()))
    if address[:5].lower() == "unix:":
        return None
    if address.startswith("["):
        return None if "]:" in address else address
    return None if ":" in address else address
