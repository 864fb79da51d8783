"""What nginx refuses of a mail server's protocol, listen and block, ported from
ngx_mail_core_protocol, ngx_mail_core_listen and ngx_mail_core_server
(src/mail/ngx_mail_core_module.c): a protocol of the mail modules (imap, pop3, smtp, as
written); a listen's address as ngx_parse_url reads a listen's, with no default port, then
bind, backlog=, rcvbuf=, sndbuf=, ipv6only=, ssl, so_keepalive=, proxy_protocol (from 1.19.8)
and multipath (from 1.29.7) only; and a server block with a listen. A server whose body
includes a file is left to nginx -t (the file may bring the listen).
"""

from __future__ import annotations

from collections.abc import Sequence

from tpgen.spec.handlers_listen import Options, address_problem, socket_value
from tpgen.spec.nginx_syntax import Directive
from tpgen.spec.nginx_table import Version, Where

PROTOCOLS = ("imap", "pop3", "smtp")  # the mail modules' ngx_mail_protocol_t names
_WORDS: dict[str, Version] = {
    "bind": (0, 0, 0),
    "ssl": (0, 0, 0),
    "proxy_protocol": (1, 19, 8),
    "multipath": (1, 29, 7),
}
_MESSAGE_SINCE = (1, 25, 5)  # nginx's words for a parameter it does not know


def mail_protocol_problem(args: Sequence[str], place: Where) -> str | None:
    """ngx_mail_core_protocol: a mail module's protocol name."""
    if args[0] in PROTOCOLS:
        return None
    return f'takes {", ".join(PROTOCOLS)}, not {args[0]!r} (nginx: unknown protocol "{args[0]}")'


def _parameter_problem(word: str, version: Version) -> str | None:
    if not word.startswith("fastopen="):
        valued = socket_value(word, Options())
        if valued is not None:
            return valued or None
        if version >= _WORDS.get(word, (9999,)):
            return None
    if version >= _MESSAGE_SINCE:
        return f'invalid parameter "{word}"'
    return f'the invalid "{word}" parameter'


def mail_listen_problem(args: Sequence[str], place: Where) -> str | None:
    """ngx_mail_core_listen: the address, then each parameter in order."""
    address = address_problem(args[0], default_port=0)
    if address is not None:
        return address
    for word in args[1:]:
        found = _parameter_problem(word, place.version)
        if found is not None:
            newer = ", proxy_protocol" if place.version >= _WORDS["proxy_protocol"] else ""
            newer += ", multipath" if place.version >= _WORDS["multipath"] else ""
            return (
                "takes bind, backlog=N, rcvbuf= and sndbuf=SIZE, ipv6only=on|off, ssl, "
                f"so_keepalive=on|off|IDLE:INTVL:CNT{newer} after the address (nginx: "
                f"{found}): fix or remove the parameter"
            )
    return None


def mail_server_check(directive: Directive, place: Where) -> str | None:
    """ngx_mail_core_server: after its body, a listen."""
    names = {entry.name for entry in directive.block or ()}
    if "listen" in names or "include" in names:
        return None
    return (
        'has no listen, and nginx needs one in each mail server (nginx: no "listen" is '
        "defined for server): add a listen"
    )
