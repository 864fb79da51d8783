"""spec/handlers_mail.py: a mail server's protocol, listen and block as nginx reads them, with
the fix; the real nginx's verdicts of tests/nginx_tables.py MAIL_CASES (the host's nginx has
the mail module, the trixie image does not)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .nginx_tables import MAIL, MAIL_CASES, handler_disagreements, nginx_version, on_host, reasons

V126 = (1, 26, 3)


def test_mail_servers_are_taken_and_refused_as_the_real_nginx_does(
    nginx_binary: str, tmp_path: Path
) -> None:
    version = nginx_version([nginx_binary])
    assert handler_disagreements(on_host(nginx_binary), tmp_path, version, MAIL_CASES) == []
    refused = [bool(reasons(text + "\n", context, version)) for context, text in MAIL_CASES]
    assert refused.count(True) == 7 and refused.count(False) == 4


def _server(body: str) -> str:
    return f"{MAIL} mail {{ auth_http 127.0.0.1:9; server {{ {body} }} }}\n"


@pytest.mark.parametrize(
    ("body", "version", "expected"),
    [
        (
            "listen 1; protocol IMAP;",
            (1, 22, 1),
            "takes imap, pop3, smtp, not 'IMAP' (nginx: unknown protocol \"IMAP\")",
        ),
        (
            "listen 1 fastopen=1; protocol imap;",
            (1, 22, 1),
            "takes bind, backlog=N, rcvbuf= and sndbuf=SIZE, ipv6only=on|off, ssl, "
            "so_keepalive=on|off|IDLE:INTVL:CNT, proxy_protocol after the address (nginx: the "
            'invalid "fastopen=1" parameter): fix or remove the parameter',
        ),
        ("listen 1 reuseport; protocol imap;", V126, '(nginx: invalid parameter "reuseport")'),
        ("listen 1 proxy_protocol;", (1, 19, 7), 'the invalid "proxy_protocol" parameter'),
        ("listen 1 backlog=x;", V126, '(nginx: invalid backlog "backlog=x")'),
        ("listen [::1;", V126, '(nginx: invalid host in "[::1" of the "listen" directive)'),
        (
            "protocol imap;",
            V126,
            'has no listen, and nginx needs one in each mail server (nginx: no "listen" is '
            "defined for server): add a listen",
        ),
    ],
)
def test_what_nginx_refuses_of_a_mail_server_is_said_with_the_fix(
    body: str, version: tuple[int, ...], expected: str
) -> None:
    (reason,) = reasons(_server(body), "main", version)
    assert expected in reason


@pytest.mark.parametrize(
    "body", ["listen 1 multipath; protocol imap;", "include listens.conf; protocol imap;"]
)
def test_multipath_from_1_29_7_and_a_server_that_includes_a_file_pass(body: str) -> None:
    assert reasons(_server(body), "main", (1, 31, 4)) == []
