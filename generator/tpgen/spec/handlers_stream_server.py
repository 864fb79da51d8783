"""What nginx refuses of a stream ``server`` block as a whole, ported from
src/stream/ngx_stream_core_module.c: a server without a listen (ngx_stream_core_server, in
every nginx), and, up to 1.27.0 (788e462c5 moved the check to the connection, which it closes),
a server whose directives set no content handler (ngx_stream_core_merge_srv_conf: "no handler
for server"). Only return, proxy_pass and, from 1.25.5, pass set it of nginx's own modules:
ssl_preread, ssl_reject_handshake and the rest do not. A server with a directive nginx's
tables lack (a third-party module's) or an include may set one: it is left to nginx -t.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from tpgen.spec.edge import version_text
from tpgen.spec.nginx_syntax import Directive
from tpgen.spec.nginx_table import Version

HANDLER_OPTIONAL_SINCE = (1, 27, 1)
_PASS_SINCE = (1, 25, 5)
_HANDLERS = frozenset({"return", "proxy_pass", "pass"})


def stream_server_refusals(
    directives: tuple[Directive, ...], version: Version, known: Callable[[str], bool]
) -> Iterator[tuple[Directive, str]]:
    """(server, why) of each server of a stream block's ``directives`` nginx refuses as a
    whole; ``known``: whether nginx's own tables have a directive name."""
    for server in directives:
        if server.name != "server" or server.block is None:
            continue
        names = {directive.name for directive in server.block}
        if "include" in names or not all(known(name) for name in names):
            continue
        if "listen" not in names:
            yield server, _NO_LISTEN
        elif version < HANDLER_OPTIONAL_SINCE and not names & _HANDLERS:
            yield server, _no_handler(version)


_NO_LISTEN = (
    'has no listen, and nginx needs one in every stream server (nginx: no "listen" is '
    "defined for server): add listen with the address and port it serves"
)


def _no_handler(version: Version) -> str:
    handlers = "return, proxy_pass or pass" if version >= _PASS_SINCE else "return or proxy_pass"
    return (
        f"has no {handlers}, and nginx {version_text(version)} needs one in every stream server "
        "(nginx: no handler for server; nginx 1.27.1 and later take it and close its "
        "connections): add proxy_pass (or return) to the server, or target nginx 1.27.1 or later"
    )
