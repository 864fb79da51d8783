"""spec/handlers_targets.py: what nginx says of a log's syslog target, access_log's
parameters and a resolver's name servers, with the fix (the real nginx's verdicts are
tests/nginx_tables.py HANDLER_CASES')."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from tpgen.spec.build import Build
from tpgen.spec.directive_handlers import Place
from tpgen.spec.handlers_targets import access_log, error_log, resolver, syslog_problem
from tpgen.spec.nginx_urls import url_problem

from .nginx_tables import V122, configure_arguments, reasons

V126 = (1, 26, 3)


@pytest.mark.parametrize(
    ("context", "text", "expected"),
    [
        ("http", "access_log syslog:server=[::1 combined;", "(nginx: invalid host in syslog"),
        (
            "http",
            "access_log syslog:server=127.0.0.1,facility=bogus combined;",
            "not 'bogus' (nginx: unknown syslog facility)",
        ),
        (
            "main",
            "error_log syslog:server=1.2.3.4,tag=bad-tag;",
            "not 'bad-tag' (nginx: syslog \"tag\" only allows alphanumeric",
        ),
        ("http", "resolver 127.0.0.1:99999;", "(nginx: invalid port in resolver): write a port"),
        ("http", "access_log syslog:tag=x;", "(nginx: no syslog server specified)"),
        ("http", "access_log syslog:server=a,server=b;", 'duplicate syslog "server"'),
        ("http", "access_log syslog:server=a,nohost;", "not 'nohost' (nginx: unknown syslog"),
        ("location", f"error_log syslog:server=a,tag={'t' * 33};", "tag length exceeds 32"),
        ("http", "access_log off x;", "takes nothing after off, not 'x'"),
        ("http", "access_log x.log combined flush=5s;", "no buffer is defined for access_log"),
        ("http", "access_log x.log combined gzip=10;", "invalid compression level"),
        ("http", "access_log x.log combined buffer=0;", "invalid buffer size"),
        ("http", "access_log syslog:server=a combined gzip;", "cannot be buffered"),
        ("http", "access_log $host.log combined buffer=8k;", "cannot have variables in name"),
        ("stream", "access_log x.log;", "(nginx: log format is not specified)"),
        ("http", "resolver ::1;", "(nginx: invalid port in resolver)"),
        ("http", "resolver [::1;", "(nginx: invalid host in resolver)"),
        ("http", "resolver 1.2.3.256;", "(nginx: host not found in resolver)"),
        ("http", "resolver 127.0.0.1 valid=1x;", "takes valid= a time in whole seconds"),
        ("http", "resolver valid=5s;", "(nginx: no name servers defined)"),
        ("http", "resolver 127.0.0.1 ipv4=off;", "nginx reads as a host name before 1.23.1"),
    ],
)
def test_what_nginx_refuses_of_a_target_is_said_with_the_fix(
    context: str, text: str, expected: str
) -> None:
    (reason,) = reasons(text, context)
    assert expected in reason


def test_a_memory_log_is_as_large_as_nginx_needs_for_the_file_s_path(
    nginx_binary: str, tmp_path: Path
) -> None:
    """ngx_log_set_log's memory buffer holds 2099 bytes and the path of the file that sets
    it (a snippet's; not known: 1024, the longest), and only a build --with-debug has it."""
    conf = tmp_path / "nginx.conf"
    least = 2099 + len(str(conf))
    said = {}
    for buffer in (least - 1, least):
        conf.write_text(f"pid {tmp_path}/pid;\nerror_log memory:{buffer};\nevents {{}}\n")
        test = [nginx_binary, "-t", "-q", "-p", f"{tmp_path}/", "-c", str(conf)]
        said[buffer] = subprocess.run(test, capture_output=True, check=False).returncode == 0
        place = Place("main", path=str(conf))
        assert (error_log([f"memory:{buffer}"], place) is None) is said[buffer]
    assert said == {least - 1: False, least: True}
    assert error_log(["memory:3123"], Place("main")) is None
    assert error_log(["memory:3122"], Place("main")) == (
        "takes memory:SIZE of at least 3123 bytes (2099 and the length of the file's path), a "
        "size of digits then k or m, not 'memory:3122' (nginx: invalid buffer size): e.g. "
        "memory:32m"
    )
    assert error_log(["memory:32m"], Place("main", debug=False)) == (
        "logs to memory, which needs an nginx built --with-debug, and this build "
        "(nginx.configure) is not (nginx: nginx was built without debug support): log to a file"
    )


def test_debian_s_nginx_is_built_with_debug(nginx_binary: str) -> None:
    """Debian 12's and 13's nginx take error_log memory: (tests/test_nginx_versions.py)."""
    assert Build(V122, configure_arguments([nginx_binary])).debug
    assert not Build(V122, "--with-http_ssl_module").debug


def test_ipv4_of_a_resolver_is_read_from_nginx_1_23_1_on() -> None:
    assert reasons("resolver 127.0.0.1 ipv4=off;", "http", V126) == []
    assert reasons("resolver 127.0.0.1 ipv4=on;", "http", V126) == []
    (both,) = reasons("resolver 127.0.0.1 ipv4=off ipv6=off;", "http", V126)
    assert '"ipv4" and "ipv6" cannot both be "off"' in both
    assert reasons("resolver 127.0.0.1 ipv4=off ipv4=on ipv6=off;", "http", V126) == []
    # A place's version is 1.22.1 unless the spec says: there ipv4=off is a host name.
    assert "host not found" in (resolver(["127.0.0.1", "ipv4=off"], Place("http")) or "")


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("127.0.0.1", None),
        ("127.0.0.1:53", None),
        ("[::1]:53", None),
        ("[::1]", None),
        ("unix:/dev/log", None),
        ("UNIX:/dev/log", None),
        ("dns.example.net", None),  # a name: nginx resolves it on the node
        ("dns_1.example.net.", None),
        ("127.1", None),  # getaddrinfo's inet_aton reads it
        ("0x7f000001", None),
        ("255.255.255.255", None),
        ("1.2.3.256", "host not found"),
        ("a..b", "host not found"),
        ("ipv4=off", "host not found"),
        ("[::1]x", "invalid host"),
        ("[::1]/", "invalid host"),
        ("[]", "no host"),
        ("[1::2::3]", "invalid IPv6 address"),
        ("[::1]:", "invalid port"),
        ("1.2.3.4:0", "invalid port"),
        ("1.2.3.4:65536", "invalid port"),
        (":53", "no host"),
        ("a/b", "invalid host"),
        ("a?b", "invalid host"),
        ("unix:", "no path in the unix domain socket"),
        (f"unix:/{'s' * 107}", "too long path in the unix domain socket"),
        (f"unix:/{'s' * 106}", None),
    ],
)
def test_addresses_are_read_as_ngx_parse_url_reads_them(url: str, said: str | None) -> None:
    assert url_problem(url) == said


def test_a_syslog_target_takes_every_parameter_once() -> None:
    target = "syslog:server=[::1]:514,facility=local7,severity=info,tag=nginx_1,nohostname"
    assert syslog_problem(target) is None
    assert "duplicate" in (syslog_problem(target + ",tag=x") or "")
    assert syslog_problem(target + ",nohostname") is None


def test_the_spec_s_resolver_as_rendered_is_one_nginx_reads() -> None:
    """workload.resolver takes IP addresses only; the plan writes an IPv6 one in brackets."""
    assert resolver(["127.0.0.1", "[2001:db8::53]", "[::1]"], Place("http")) is None
    assert (
        access_log(["/var/log/nginx/access.log", "tpgen", "buffer=64k", "flush=5s"], Place("http"))
        is None
    )
