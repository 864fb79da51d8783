"""ngx_http_upstream_bind_set_slot (proxy_bind, fastcgi_bind, …) and ngx_stream_proxy_bind: the
local address of the connections to an upstream, as nginx reads it."""

from __future__ import annotations

from collections.abc import Sequence

from tpgen.spec.nginx_addresses import addr_port
from tpgen.spec.nginx_table import Where


def bind_problem(args: Sequence[str], place: Where) -> str | None:
    """off alone; else an address (and port), or a value with variables that nginx reads per
    connection (spec/script_arguments checks its script), then transparent or nothing."""
    if tuple(args) == ("off",):
        return None
    address = args[0]
    if "$" not in address and not addr_port(address):
        return (
            f"takes off, or a local IP address (a port after it optional: 192.0.2.1, "
            f"[2001:db8::1]:8000) or a value with variables, not {address!r} (nginx: invalid "
            "address)"
        )
    if len(args) > 1 and args[1] != "transparent":
        return f"takes transparent after the address, not {args[1]!r} (nginx: invalid parameter)"
    return None
