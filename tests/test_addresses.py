"""Addresses are checked by tpgen itself: the offline check cannot see an upstream it never
resolves, and nginx would read a scope id or a bracket as part of the config."""

from __future__ import annotations

import contextlib
import io
import ipaddress
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from tpgen.check import check_plan
from tpgen.cli import main
from tpgen.errors import SpecError
from tpgen.plan import Decision, make_plan
from tpgen.spec.load import spec_from_mapping

from .specs import spec


def _error(data: dict[str, Any]) -> str:
    with pytest.raises(SpecError) as caught:
        spec_from_mapping(data, "s.yaml")
    return str(caught.value)


NOT_IPV4 = "is not an IPv4 address: four numbers 0..255 without leading zeros"
NO_HOST = "names no single host: write the server's own address"
GROUP = "is a group address no TCP listen binds: write the node's own"
# glibc's inet_aton: 0x7f000001 and origin.1 never reach DNS.
AN_ADDRESS = (
    "reads as an IPv4 address (the resolver takes hex and numeric forms): write the address as "
    "four decimal numbers, or a host name"
)
NOT_HOST = (
    "is not a valid host name: dot-separated labels of letters, digits and inner hyphens, "
    "each at most 63 characters, 253 in all"
)


@pytest.mark.parametrize(
    ("upstream", "message"),
    [
        ("999.999.999.999:80", f"'999.999.999.999' {NOT_IPV4}"),
        ("10.0.0:80", f"'10.0.0' {NOT_IPV4}"),
        ("010.0.0.1:80", f"'010.0.0.1' {NOT_IPV4}"),
        ("-origin.example.net:80", f"'-origin.example.net' {NOT_HOST}"),
        ("origin..example.net:80", f"'origin..example.net' {NOT_HOST}"),
        ("origin_a.example.net:80", f"'origin_a.example.net' {NOT_HOST}"),
        ("\u212aelvin.example.net:80", f"'\u212aelvin.example.net' {NOT_HOST}"),
        (f"{'a' * 64}.example.net:80", f"'{'a' * 64}.example.net' {NOT_HOST}"),
        ("origin.example.net:0", "port 0 is out of range 1..65535"),
        ("origin.example.net:65536", "port 65536 is out of range 1..65535"),
        (
            "[fe80::1%eth0]:80",
            "'fe80::1%eth0': nginx takes no %scope in an address: write 'fe80::1' without it",
        ),
        ("[10.0.0.1]:80", "'[10.0.0.1]': brackets are for IPv6 only, write an IPv4 address bare"),
        (
            "[2001:DB8::1]:80",
            "'2001:DB8::1' is not written the way nginx prints it: write '2001:db8::1'",
        ),
        (
            "origin.example.net",
            "'origin.example.net' is not host:port (write e.g. "
            "origin-a.example.net:8080 or [2001:db8::1]:80)",
        ),
        (
            "::1:80",
            "'::1:80' is not host:port (write e.g. origin-a.example.net:8080 or [2001:db8::1]:80)",
        ),
        ("0.0.0.0:80", f"'0.0.0.0' {NO_HOST}"),
        ("[::]:80", f"'::' {NO_HOST}"),
        ("224.0.0.1:80", f"'224.0.0.1' {NO_HOST}"),
        (
            "[fe80::1]:80",
            "'fe80::1': a link-local address needs an interface, which nginx cannot name: use a "
            "global or unique-local address",
        ),
        ("0x7f000001:80", f"'0x7f000001' {AN_ADDRESS}"),
        ("origin.1:80", f"'origin.1' {AN_ADDRESS}"),
        ("origin.example.net:080", "port 080 has a leading zero: write origin.example.net:80"),
        ("[::ffff:0:0]:80", "'::ffff:0:0': an IPv4-mapped address: write '0.0.0.0'"),
        ("[::ffff:e000:1]:80", "'::ffff:e000:1': an IPv4-mapped address: write '224.0.0.1'"),
    ],
)
def test_upstream_hosts_are_checked_here_not_by_the_offline_check(
    upstream: str, message: str
) -> None:
    data = spec(workload={"upstreams": [upstream]})
    assert _error(data) == f"s.yaml: workload.upstreams.0: {message}"


@pytest.mark.parametrize("good", ["192.0.2.1:80", "[2001:db8::1]:8080", "Origin-A.example.net:1"])
def test_good_upstreams_pass(good: str) -> None:
    spec_from_mapping(spec(workload={"upstreams": [good]}), "s.yaml")


@pytest.mark.parametrize("section", ["listen", "status"])
@pytest.mark.parametrize(
    ("address", "message"),
    [
        (
            "::%x]:80; } server { listen [::1",
            "'::%x]:80; } server { listen [::1': nginx takes no %scope in an address: write "
            "'::' without it",
        ),
        ("::1%lo", "'::1%lo': nginx takes no %scope in an address: write '::1' without it"),
        (
            "0:0:0:0:0:0:0:1",
            "'0:0:0:0:0:0:0:1' is not written the way nginx prints it: write '::1'",
        ),
    ],
)
def test_listen_and_status_addresses_are_canonical_without_scope(
    section: str, address: str, message: str
) -> None:
    assert (
        _error(spec(**{section: {"address": address}})) == f"s.yaml: {section}.address: {message}"
    )


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("::ffff:7f00:1", "'::ffff:7f00:1': an IPv4-mapped address: write '127.0.0.1'"),
        (
            "fe80::1",
            "'fe80::1': a link-local address needs an interface, which nginx's listen cannot "
            "name: use a global or unique-local address, or ::",
        ),
        ("224.0.0.1", f"'224.0.0.1' {GROUP}"),
        ("255.255.255.255", f"'255.255.255.255' {GROUP}"),
        ("ff02::1", f"'ff02::1' {GROUP}"),
    ],
)
def test_listen_addresses_linux_cannot_bind_are_refused_before_nginx_t(
    address: str, message: str
) -> None:
    """bind() gives EINVAL for both on every machine: validate must not pass them (status has
    its own loopback rule)."""
    assert _error(spec(listen={"address": address})) == f"s.yaml: listen.address: {message}"


def test_a_host_name_origin_with_a_resolver_must_be_the_only_upstream() -> None:
    data = spec(
        workload={
            "upstreams": ["192.0.2.1:80", "origin.example.net:80"],
            "resolver": ["192.0.2.53"],
        }
    )
    assert _error(data) == (
        "s.yaml: workload.upstreams.1: with a resolver, a host name must be the only upstream: "
        "nginx re-resolves one proxied name, not the names of an upstream group; put the origins "
        "behind one name with several addresses, or list them as IP addresses without resolver"
    )


def test_a_resolver_without_a_host_name_origin_is_refused() -> None:
    data = spec(workload={"upstreams": ["192.0.2.1:80"], "resolver": ["192.0.2.53"]})
    assert _error(data) == (
        "s.yaml: workload.resolver: no upstream is a host name and OCSP stapling is off: "
        "remove resolver (IP upstreams need no DNS)"
    )


def test_resolver_is_for_a_cache_origin_name_or_ocsp_stapling() -> None:
    data = spec("origin", workload={"resolver": ["192.0.2.53"]})
    assert _error(data) == (
        "s.yaml: workload.resolver: has no effect on an origin node without OCSP stapling "
        "(nginx asks it for a cache node's host-name upstream and for the OCSP responders of "
        "tls.ocsp_stapling): remove it"
    )


def test_resolver_addresses_are_ip_addresses() -> None:
    data = spec(workload={"resolver": ["dns.example.net"]})
    assert _error(data) == (
        "s.yaml: workload.resolver.0: 'dns.example.net' is not an IP address (write e.g. "
        "127.0.0.1 or 2001:db8::1)"
    )


@pytest.mark.parametrize("resolver", ["0.0.0.0", "::", "224.0.0.53", "255.255.255.255"])
def test_a_resolver_names_one_server(resolver: str) -> None:
    data = spec(workload={"upstreams": ["o.example.net:80"], "resolver": [resolver]})
    assert _error(data) == (
        f"s.yaml: workload.resolver.0: {resolver!r} names no single host: write the server's "
        "own address"
    )


@pytest.mark.parametrize(
    ("section", "field", "value"),
    [
        ("workload", "resolver", ["::ffff:0:0"]),
        ("workload", "resolver", ["::ffff:ffff:ffff"]),
        ("workload", "upstreams", ["[::ffff:ffff:ffff]:53"]),
        ("status", "address", "::ffff:7f00:1"),
        ("listen", "address", "::ffff:e000:1"),
    ],
)
def test_an_ipv4_mapped_address_is_written_as_ipv4_in_every_address_field(
    section: str, field: str, value: str | list[str]
) -> None:
    """::ffff:0:0 is 0.0.0.0 and ::ffff:ffff:ffff the broadcast address: in IPv6 clothes they
    passed the rules an origin, a resolver or a listen has for the IPv4 form."""
    data = spec(workload={"upstreams": ["o.example.net:80"], "resolver": ["192.0.2.53"]})
    data[section] = {**data.get(section, {}), field: value}
    mapped = value[0] if isinstance(value, list) else value
    address = mapped.strip("[]").removesuffix("]:53").strip("[]")
    ipv4 = str(ipaddress.IPv6Address(address).ipv4_mapped)
    where = f"{section}.{field}" + (".0" if isinstance(value, list) else "")
    assert _error(data) == (f"s.yaml: {where}: {address!r}: an IPv4-mapped address: write {ipv4!r}")


@pytest.mark.parametrize(
    "upstreams",
    [["192.0.2.1:80", "192.0.2.1:80"], ["o.example.net:80", "O.Example.NET:80"]],
)
def test_an_origin_listed_twice_is_refused(upstreams: list[str]) -> None:
    """Two shares of the requests, and proxy_next_upstream_tries (each upstream once) could
    retry a failed request on the origin that just failed it."""
    assert _error(spec(workload={"upstreams": upstreams})) == (
        f"s.yaml: workload.upstreams.1: {upstreams[1]!r} is already listed as "
        "workload.upstreams.0: nginx would send it two shares of the requests and may retry a "
        "failed one on it; list each origin once (origin.servers sets a weight)"
    )


def _validate(tmp_path: Path, data: dict[str, Any]) -> tuple[int, str]:
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data))
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["validate", str(path)])
    return code, err.getvalue().replace(str(path), "s.yaml")


MAPPED_NETWORK = (
    "an IPv4-mapped network, which nginx never matches (it looks such clients up by their IPv4 "
    "address): write"
)


@pytest.mark.parametrize(
    ("networks", "message"),
    [
        (["::ffff:a00:0/104"], f"cache.trusted_networks.0: '::ffff:a00:0/104': {MAPPED_NETWORK} "
         "'10.0.0.0/8'"),
        (["::ffff:10.0.0.0/104"], f"cache.trusted_networks.0: '::ffff:10.0.0.0/104': "
         f"{MAPPED_NETWORK} '10.0.0.0/8'"),
        (["2001:db8::/32", "::ffff:0:0/96"], f"cache.trusted_networks.1: '::ffff:0:0/96': "
         f"{MAPPED_NETWORK} '0.0.0.0/0'"),
        (["::ffff:c000:201/128"], f"cache.trusted_networks.0: '::ffff:c000:201/128': "
         f"{MAPPED_NETWORK} '192.0.2.1/32'"),
        (["10.0.0.0/8", "2001:db8::/32", "10.0.0.0/8"], "cache.trusted_networks.2: 10.0.0.0/8 "
         "is already listed as cache.trusted_networks.0: list each network once"),
        (["10.0.0.0/8", "127.0.0.0/8"], "cache.trusted_networks.1: 127.0.0.0/8 is loopback, "
         "which is always trusted: remove it"),
        (["::1/128"], "cache.trusted_networks.0: ::1/128 is loopback, which is always trusted: "
         "remove it"),
        (["10.0.0.0/8", "::/0"], "cache.trusted_networks.1: ::/0 is every client, the geo "
         "block's default: set cache.debug_headers: true to send the headers to everyone"),
        (["0.0.0.0/0"], "cache.trusted_networks.0: 0.0.0.0/0 is every client, the geo block's "
         "default: set cache.debug_headers: true to send the headers to everyone"),
    ],
)  # fmt: skip
def test_a_trusted_network_nginx_never_matches_or_has_already_is_refused(
    tmp_path: Path, networks: list[str], message: str
) -> None:
    code, err = _validate(tmp_path, spec(cache={"trusted_networks": networks}))
    assert code == 2
    assert err.startswith("s.yaml:") and err.endswith(f": {message}\n") and err.count("\n") == 1


def test_a_network_the_geo_block_has_already_makes_nginx_warn_at_every_start(
    nginx_binary: str,
) -> None:
    """Why a repeated trusted network, and every client (the geo default), are refused:
    nginx -t takes them with a warning."""
    plan = make_plan(spec_from_mapping(spec(), "s.yaml"), "s.yaml")
    twice = Decision(("127.0.0.0/8", "::1/128", "127.0.0.0/8", "0.0.0.0/0", "::/0"), "test")
    result = check_plan(replace(plan, trusted_networks=twice), nginx=nginx_binary)
    assert result.ok
    warned = r'\[warn\] .*duplicate network "(\S+)", value: "1", old value: "(\d)"'
    assert re.findall(warned, result.output) == [
        ("127.0.0.0/8", "1"),
        ("0.0.0.0/0", "0"),
        ("::/0", "0"),
    ]


@pytest.mark.parametrize(
    ("resolver", "message"),
    [
        (["192.0.2.53", "192.0.2.53"], "workload.resolver.1: '192.0.2.53' is already listed as "
         "workload.resolver.0"),
        (["2001:db8::53", "192.0.2.53", "2001:db8::53"], "workload.resolver.2: '2001:db8::53' is "
         "already listed as workload.resolver.0"),
    ],
)  # fmt: skip
def test_a_resolver_listed_twice_is_refused(
    tmp_path: Path, resolver: list[str], message: str
) -> None:
    """nginx takes turns over the list, so a repeat gets twice the queries (nginx -t says
    nothing of it)."""
    data = spec(workload={"upstreams": ["o.example.net:80"], "resolver": resolver})
    code, err = _validate(tmp_path, data)
    assert code == 2
    assert err.startswith("s.yaml:") and err.count("\n") == 1
    assert err.endswith(
        f": {message}: nginx would send it twice the queries; list each DNS server once\n"
    )


def test_at_most_64_upstreams_one_line_for_more(tmp_path: Path) -> None:
    upstreams = [f"192.0.2.{i}:80" for i in range(1, 66)]
    code, err = _validate(tmp_path, spec(workload={"upstreams": upstreams}))
    assert (code, err.split(": ", 1)[1]) == (
        2,
        "workload.upstreams: has 65 items: write at most 64\n",
    )
