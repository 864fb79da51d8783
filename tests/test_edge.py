"""An edge node: listens as a list, dual stack, reuseport and backlog, TLS, HTTP/2 and HTTP/3,
the sysctls they need, and the refusals of what nginx would not take."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from tpgen.api import fill_nginx_facts, node_layout, tls_file_problems
from tpgen.check import check_plan
from tpgen.cli import main
from tpgen.errors import SpecError
from tpgen.plan import make_plan
from tpgen.plan.workers import worker_count
from tpgen.render import render_config
from tpgen.spec.certs import write_throwaway_pair
from tpgen.spec.load import spec_from_mapping

from .conftest import unavailable
from .specs import spec

CERTS = {
    "certificates": [{"cert": "/etc/nginx/tls/a.crt", "key": "/etc/nginx/tls/a.key"}],
}


def edge(listen: Any, tls: dict[str, Any] | None = CERTS, **sections: Any) -> dict[str, Any]:
    """An edge node on NVMe: nothing blocks its event loops, so reuseport is on."""
    data = spec("cache", disks=2, listen=listen, **sections)
    data["disks"] = [{**disk, "media": "nvme"} for disk in data["disks"]]
    if tls is not None:
        data["tls"] = tls
    return data


def refusals(data: dict[str, Any]) -> list[str]:
    with pytest.raises(SpecError) as caught:
        spec_from_mapping(data, "edge.yaml")
    return [str(p) for p in caught.value.problems]


def rendered(data: dict[str, Any]) -> str:
    return render_config(make_plan(spec_from_mapping(data, "edge.yaml"), "edge.yaml"))


def listen_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("listen ")]


# ------------------------------------------------------------------------------------- listens
def test_a_single_listen_mapping_is_still_accepted_and_errors_name_it_as_written() -> None:
    data = edge({"address": "127.0.0.1", "port": 8080}, tls=None)
    assert listen_lines(rendered(data))[0] == "listen 127.0.0.1:8080 reuseport backlog=16384;"
    data["listen"]["port"] = 0
    assert refusals(data) == ["edge.yaml: listen.port: 0 is too small: write 1 or more"]


def test_star_listens_on_both_families_with_ipv6only() -> None:
    text = rendered(edge([{"address": "*", "port": 8080}], tls=None))
    assert listen_lines(text)[:2] == [
        "listen 0.0.0.0:8080 reuseport backlog=16384;",
        "listen [::]:8080 ipv6only=on reuseport backlog=16384;",
    ]


def test_reuseport_only_with_more_than_one_worker_and_backlog_follows_connections() -> None:
    one = edge([{"port": 8080}], tls=None, tuning={"worker_processes": 1})
    plan = make_plan(spec_from_mapping(one))
    assert plan.reuseport.value is False
    assert "one worker" in plan.reuseport.because
    assert plan.listens[0].parameters.value == ("backlog=16384",)
    many = edge([{"port": 8080}], tls=None, tuning={"worker_connections": 100_000})
    plan = make_plan(spec_from_mapping(many))
    assert plan.reuseport.value is True
    assert plan.backlog.value == 65535  # capped
    assert plan.somaxconn.value == 65535
    small = edge([{"port": 8080}], tls=None, tuning={"worker_connections": 1024})
    plan = make_plan(spec_from_mapping(small))
    assert (plan.backlog.value, plan.somaxconn.value) == (1024, 4096)


@pytest.mark.parametrize(
    ("media", "states", "kind", "spread"),
    [
        (["hdd", "hdd"], ["active", "active"], "cache", False),
        (["nvme", "hdd"], ["active", "active"], "origin", False),
        # an HDD nginx no longer reads cannot block it: a failed one, a draining cache disk
        (["nvme", "hdd"], ["active", "failed"], "origin", True),
        (["nvme", "hdd"], ["active", "draining"], "cache", True),
        (["nvme", "hdd"], ["active", "draining"], "origin", False),
        (["ssd", "nvme"], ["active", "active"], "vod", True),
    ],
)
def test_reuseport_is_off_while_nginx_reads_an_hdd(
    media: list[str], states: list[str], kind: str, spread: bool
) -> None:
    data = spec(kind, disks=2, listen=[{"port": 8080, "http3": True, "tls": True}], tls=CERTS)
    data["nginx"] = {"version": "1.26.3", "http_v3": True}
    for disk, medium, state in zip(data["disks"], media, states, strict=True):
        disk.update(media=medium, state=state)
    plan = make_plan(spec_from_mapping(data))
    assert plan.reuseport.value is spread
    assert ("opens files on the event loop" in plan.reuseport.because) is not spread
    tcp, quic = (socket.parameters.value for socket in plan.listens)
    assert ("reuseport" in tcp) is spread
    # QUIC needs it with several workers whatever the disks
    assert quic == ("quic", "reuseport")


def test_duplicate_ports_are_refused_with_the_field_path() -> None:
    data = edge([{"address": "*", "port": 8080}, {"address": "::", "port": 8080}], tls=None)
    assert refusals(data) == [
        "edge.yaml: listen.1.port: port 8080 on :: is already taken by listen.0: each listen "
        "needs its own port (use address '*' for IPv4 and IPv6)"
    ]
    data = edge([{"address": "0.0.0.0", "port": 80}, {"address": "127.0.0.1", "port": 80}], None)
    assert [p.split(": ")[1] for p in refusals(data)] == ["listen.1.port"]
    # Different families on one port are two sockets, not a clash.
    rendered(edge([{"address": "0.0.0.0", "port": 80}, {"address": "::1", "port": 80}], None))


def test_the_status_port_may_not_be_a_listen_port() -> None:
    data = edge([{"address": "*", "port": 9000}], tls=None, status={"port": 9000})
    assert refusals(data) == ["edge.yaml: status.port: port 9000 is the listen port: pick another"]


# ----------------------------------------------------------------------------------------- TLS
def test_a_tls_listen_without_a_certificate_is_refused() -> None:
    assert refusals(edge([{"port": 443, "tls": True}], tls=None)) == [
        "edge.yaml: listen.0.tls: a TLS listen needs a certificate: add tls.certificates "
        "[{cert: /etc/nginx/tls/site.crt, key: /etc/nginx/tls/site.key}]"
    ]


def test_tls_without_a_tls_listen_and_http2_without_tls_are_refused() -> None:
    problems = refusals(edge([{"port": 8080, "http2": True}]))
    assert [p.split(": ")[1] for p in problems] == ["tls", "listen.0.http2"]


def test_redirect_http_cannot_share_port_80_with_a_listen() -> None:
    tls = {**CERTS, "redirect_http": True}
    problems = refusals(edge([{"port": 443, "tls": True}, {"port": 80}], tls=tls))
    assert [p.split(": ")[1] for p in problems] == ["tls.redirect_http"]
    problems = refusals(edge([{"port": 443, "tls": True}], tls=tls, status={"port": 80}))
    assert [p.split(": ")[1] for p in problems] == ["status.port"]


def test_a_second_certificate_needs_names_and_names_are_unique() -> None:
    tls = {
        "certificates": [
            {"cert": "/t/a.crt", "key": "/t/a.key", "server_names": ["a.example"]},
            {"cert": "/t/b.crt", "key": "/t/b.key"},
            {"cert": "/t/c.crt", "key": "/t/c.key", "server_names": ["a.example"]},
        ]
    }
    problems = refusals(edge([{"port": 443, "tls": True}], tls=tls))
    assert [p.split(": ")[1] for p in problems] == [
        "tls.certificates.1.server_names",
        "tls.certificates.2.server_names",
    ]


def test_tls_policy_and_session_cache_from_ram_and_connections() -> None:
    data = edge([{"address": "*", "port": 443, "tls": True}])
    parsed = spec_from_mapping(data)
    plan = make_plan(parsed)
    assert plan.tls is not None
    assert plan.tls.protocols.value == ("TLSv1.2", "TLSv1.3")
    assert plan.tls.session_tickets.value == "off"
    assert plan.tls.early_data.value == "off"
    # every worker's 16384 connections, 4000 sessions a megabyte, rounded up
    sessions = worker_count(parsed) * 16384
    assert plan.tls.session_cache_mb.value == -(-sessions // 4000)
    tiny = spec("origin", 1, node={"memory": "1GiB", "cores": 64}, tls=CERTS)
    tiny["listen"] = {"port": 443, "tls": True}
    tiny["disks"][0]["media"] = "ssd"
    plan = make_plan(spec_from_mapping(tiny))
    assert plan.tls is not None
    assert plan.tls.session_cache_mb.value == 10  # 1% of 1 GiB
    assert "held to 1% of node.memory" in plan.tls.session_cache_mb.because


def test_ticket_keys_turn_tickets_on() -> None:
    tls = {**CERTS, "ticket_keys": ["/etc/nginx/tls/t1.key"]}
    text = rendered(edge([{"port": 443, "tls": True}], tls=tls))
    assert "ssl_session_tickets on;" in text
    assert "ssl_session_ticket_key /etc/nginx/tls/t1.key;" in text


def test_redirect_server_answers_301_to_the_tls_port() -> None:
    tls = {**CERTS, "redirect_http": True}
    text = rendered(edge([{"address": "*", "port": 8443, "tls": True}], tls=tls))
    assert "return 301 https://$host:8443$request_uri;" in text
    assert "listen [::]:80 ipv6only=on reuseport backlog=16384;" in text


# ---------------------------------------------------------------------------- HTTP/2 and HTTP/3
def test_http2_form_follows_the_nginx_version() -> None:
    listen = [{"port": 443, "tls": True, "http2": True}]
    old = rendered(edge(listen))
    assert "listen 0.0.0.0:443 ssl http2 reuseport backlog=16384;" in old
    assert "http2 on;" not in old
    new = rendered(edge(listen, nginx={"version": "1.25.1"}))
    assert "listen 0.0.0.0:443 ssl reuseport backlog=16384;" in new
    assert "        http2 on;" in new


def test_http2_per_listen_differs_only_where_nginx_takes_it_per_listen() -> None:
    listen = [{"port": 443, "tls": True, "http2": True}, {"port": 8443, "tls": True}]
    rendered(edge(listen))
    problems = refusals(edge(listen, nginx={"version": "1.26.3"}))
    assert [p.split(": ")[1] for p in problems] == ["listen.1.http2"]


def test_http3_needs_the_v3_module_and_a_recent_nginx() -> None:
    listen = [{"port": 443, "tls": True, "http3": True}]
    assert refusals(edge(listen)) == [
        "edge.yaml: listen.0.http3: needs an nginx built with --with-http_v3_module "
        "(nginx ≥ 1.25; Debian 13's has it, Debian 12's has not): set nginx.http_v3: true if "
        "`nginx -V` shows it, or remove http3"
    ]
    problems = refusals(edge(listen, nginx={"version": "1.22.1", "http_v3": True}))
    assert [p.split(": ")[1] for p in problems] == ["nginx.http_v3"]
    problems = refusals(edge([{"port": 443, "http3": True}], tls=None))
    assert [p.split(": ")[1] for p in problems] == ["listen.0.http3", "listen.0.http3"]


def test_http3_renders_quic_listens_alt_svc_and_retry() -> None:
    data = edge(
        [{"address": "*", "port": 443, "tls": True, "http2": True, "http3": True}],
        nginx={"version": "1.26.3", "http_v3": True},
    )
    text = rendered(data)
    assert listen_lines(text)[:4] == [
        "listen 0.0.0.0:443 ssl reuseport backlog=16384;",
        "listen 0.0.0.0:443 quic reuseport;",
        "listen [::]:443 ssl ipv6only=on reuseport backlog=16384;",
        "listen [::]:443 quic ipv6only=on reuseport;",
    ]
    assert "add_header Alt-Svc 'h3=\":443\"; ma=86400' always;" in text
    assert "    quic_retry on;" in text


def test_alt_svc_names_every_http3_port_once_in_port_order() -> None:
    data = edge(
        [
            {"address": "*", "port": 8443, "tls": True, "http3": True},
            {"address": "*", "port": 443, "tls": True, "http3": True},
            {"address": "127.0.0.1", "port": 9443, "tls": True},
        ],
        nginx={"version": "1.26.3", "http_v3": True},
    )
    plan = make_plan(spec_from_mapping(data))
    assert plan.alt_svc is not None
    assert plan.alt_svc.value == 'h3=":443"; ma=86400, h3=":8443"; ma=86400'
    assert "UDP ports 443 and 8443" in plan.alt_svc.because
    assert 'add_header Alt-Svc \'h3=":443"; ma=86400, h3=":8443"; ma=86400\' always;' in (
        render_config(plan)
    )


# ------------------------------------------------------------------------------ node side
def test_layout_lists_https_urls_sysctls_and_tls_files_with_modes() -> None:
    data = edge([{"address": "*", "port": 443, "tls": True}])
    data["disks"] = [{**disk, "media": "hdd"} for disk in data["disks"]]
    parsed = spec_from_mapping(data)
    plan = make_plan(parsed)
    layout = node_layout(plan).to_dict()
    assert layout["listen_urls"] == ["https://127.0.0.1:443/", "https://[::1]:443/"]
    assert layout["tls_files"] == [
        {"path": "/etc/nginx/tls/a.crt", "kind": "certificate", "mode": "0644"},
        {"path": "/etc/nginx/tls/a.key", "kind": "key", "mode": "0600"},
    ]
    names = {s["name"]: (s["value"], s["at_least"]) for s in layout["sysctls"]}
    assert names == {
        "net.core.somaxconn": ("16384", True),
        "fs.file-max": (str(worker_count(parsed) * plan.worker_rlimit_nofile.value + 65536), True),
        "net.ipv4.ip_local_port_range": ("1024 65535", False),
        "vm.vfs_cache_pressure": ("50", False),
    }


def test_an_ssd_origin_node_sets_neither_port_range_nor_vfs_pressure() -> None:
    data = spec("origin", disks=1)
    data["disks"][0]["media"] = "ssd"
    plan = make_plan(spec_from_mapping(data))
    assert [s.name for s in plan.sysctls] == ["net.core.somaxconn", "fs.file-max"]


def test_nginx_facts_fill_only_what_the_spec_leaves_out() -> None:
    assert fill_nginx_facts({"node": {}}, version="1.26.3", http_v3=True)["nginx"] == {
        "version": "1.26.3",
        "http_v3": True,
    }
    stated = {"nginx": {"version": "1.22.1"}}
    assert fill_nginx_facts(stated, version="1.26.3", http_v3=False)["nginx"] == {
        "version": "1.22.1",
        "http_v3": False,
    }
    configure = "--with-stream=dynamic --with-http_v2_module"
    assert fill_nginx_facts({}, version="1.22.1", configure=configure)["nginx"] == {
        "version": "1.22.1",
        "configure": configure,
    }
    stated = {"nginx": {"configure": "--with-stream"}}
    assert fill_nginx_facts(stated, configure=configure)["nginx"] == {"configure": "--with-stream"}


# --------------------------------------------------------------------- certificate files
def _pair(tmp_path: Path, name: str) -> tuple[Path, Path]:
    cert, key = tmp_path / f"{name}.crt", tmp_path / f"{name}.key"
    write_throwaway_pair(cert, key, ("edge.example",))
    return cert, key


def test_missing_and_mismatched_files_are_refused_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cert_a, key_a = _pair(tmp_path, "a")
    _, key_b = _pair(tmp_path, "b")
    tls = {"certificates": [{"cert": str(cert_a), "key": str(key_b)}]}
    path = tmp_path / "edge.yaml"
    path.write_text(yaml.safe_dump(edge([{"port": 443, "tls": True}], tls=tls)))
    assert main(["validate", str(path)]) == 0
    assert main(["validate", "--tls-files", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"tls.certificates.0.key: {key_b} does not belong to {cert_a}" in err
    tls["certificates"][0] = {"cert": str(cert_a), "key": str(tmp_path / "gone.key")}
    path.write_text(yaml.safe_dump(edge([{"port": 443, "tls": True}], tls=tls)))
    assert main(["validate", "--tls-files", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"tls.certificates.0.key: {tmp_path / 'gone.key'}: No such file or directory" in err
    tls["certificates"][0] = {"cert": str(cert_a), "key": str(key_a)}
    path.write_text(yaml.safe_dump(edge([{"port": 443, "tls": True}], tls=tls)))
    assert main(["validate", "--tls-files", str(path)]) == 0


def test_controller_copies_are_checked_through_the_path_map(tmp_path: Path) -> None:
    cert, key = _pair(tmp_path, "a")
    _, other = _pair(tmp_path, "b")
    parsed = spec_from_mapping(edge([{"port": 443, "tls": True}]))
    files = {"/etc/nginx/tls/a.crt": str(cert), "/etc/nginx/tls/a.key": str(key)}
    assert tls_file_problems(parsed, files) == []
    files["/etc/nginx/tls/a.key"] = str(other)
    assert [p.path for p in tls_file_problems(parsed, files)] == [("tls", "certificates", 0, "key")]


def test_a_bad_edge_spec_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "edge.yaml"
    path.write_text(yaml.safe_dump(edge([{"port": 443, "tls": True, "http3": True}])))
    target = tmp_path / "nginx.conf"
    target.write_text("previous\n")
    assert main(["render", str(path), "-o", str(target)]) == 2
    assert "listen.0.http3: needs an nginx built with --with-http_v3_module" in (
        capsys.readouterr().err
    )
    assert target.read_text() == "previous\n"


def test_render_check_uses_throwaway_certificates(nginx_binary: str) -> None:
    """No certificate exists on this machine: the offline check makes its own, per key path."""
    tls = {
        "certificates": [
            {"cert": "/etc/nginx/tls/a.crt", "key": "/etc/nginx/tls/shared.key"},
            {
                "cert": "/etc/nginx/tls/b.crt",
                "key": "/etc/nginx/tls/shared.key",
                "server_names": ["b.example.net"],
            },
        ],
        "ticket_keys": ["/etc/nginx/tls/ticket.key"],
        "redirect_http": True,
    }
    data = edge([{"address": "*", "port": 443, "tls": True, "http2": True}], tls=tls)
    plan = make_plan(spec_from_mapping(data, "edge.yaml"), "edge.yaml")
    result = check_plan(plan, nginx=nginx_binary)
    assert result.ok, result.output
    assert not Path("/etc/nginx/tls/a.crt").exists()


def _nginx_t_with(
    tmp_path: Path, nginx_binary: str, cert: Path, key: Path
) -> subprocess.CompletedProcess[str]:
    """The real nginx -t of one TLS server with these files."""
    conf = tmp_path / "nginx.conf"
    conf.write_text(
        "events {}\nhttp { server { listen 127.0.0.1:27999 ssl; "
        f"ssl_certificate {cert}; ssl_certificate_key {key}; }} }}\n"
    )
    return subprocess.run(
        [nginx_binary, "-t", "-p", str(tmp_path), "-e", "stderr", "-c", str(conf)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_real_nginx_refuses_a_mismatched_pair(tmp_path: Path, nginx_binary: str) -> None:
    """What validate --tls-files says ahead of time is what nginx itself would refuse."""
    cert_a, _ = _pair(tmp_path, "a")
    _, key_b = _pair(tmp_path, "b")
    result = _nginx_t_with(tmp_path, nginx_binary, cert_a, key_b)
    assert result.returncode != 0
    assert "key values mismatch" in result.stderr


def test_checking_a_1_26_config_with_nginx_1_22_says_which_nginx_it_needs(
    tmp_path: Path, nginx_binary: str, capsys: pytest.CaptureFixture[str]
) -> None:
    version = subprocess.run([nginx_binary, "-v"], capture_output=True, text=True).stderr
    if "nginx/1.22" not in version:
        pytest.fail(f"this test expects Debian 12's nginx 1.22, not {version}")
    path = tmp_path / "edge.yaml"
    data = edge([{"port": 443, "tls": True, "http2": True}], nginx={"version": "1.26.3"})
    path.write_text(yaml.safe_dump(data))
    assert main(["render", str(path)]) == 2
    assert capsys.readouterr().err == (
        "tpgen: the config is for a newer nginx (nginx.version in the spec): it uses `http2 on;` "
        f"(nginx ≥ 1.25.1), which {nginx_binary} (1.22.1) does not take; point TPGEN_NGINX at "
        "such an nginx (e.g. Debian 13's, scripts/ci/nginx-image.sh) or pass --no-check\n"
    )
    assert main(["render", "--no-check", str(path)]) == 0


def test_the_redirect_listens_once_per_address_and_a_wildcard_covers_its_family() -> None:
    tls = {**CERTS, "redirect_http": True}
    listen = [
        {"address": "0.0.0.0", "port": 443, "tls": True},
        {"address": "127.0.0.1", "port": 8443, "tls": True},
        {"address": "::1", "port": 8443, "tls": True},
        {"address": "::1", "port": 9443, "tls": True},
    ]
    plan = make_plan(spec_from_mapping(edge(listen, tls=tls)))
    assert [s.address for s in plan.redirect_listens] == ["0.0.0.0:80", "[::1]:80"]
    assert plan.redirect_to is not None
    assert plan.redirect_to.value == "https://$host$request_uri"


def test_a_key_type_the_check_cannot_read_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """secp112r1 (OpenSSL makes it; the cryptography library refuses it): not an internal error."""
    cert, key = tmp_path / "weak.crt", tmp_path / "weak.key"
    made = subprocess.run(
        ["openssl", "ecparam", "-name", "secp112r1", "-genkey", "-noout", "-out", str(key)],
        capture_output=True,
        check=False,
    )
    if made.returncode != 0:
        unavailable("this OpenSSL does not make secp112r1 keys")
    subprocess.run(
        [
            *("openssl", "req", "-new", "-x509", "-key", str(key)),
            *("-subj", "/CN=a", "-days", "2", "-out", str(cert)),
        ],
        capture_output=True,
        check=True,
    )
    tls = {"certificates": [{"cert": str(cert), "key": str(key)}]}
    path = tmp_path / "edge.yaml"
    path.write_text(yaml.safe_dump(edge([{"port": 443, "tls": True}], tls=tls)))
    assert main(["validate", "--tls-files", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"tls.certificates.0.key: {key}: a key type tpgen cannot check (" in err
    assert len(err.splitlines()) == 1


BROKEN_BLOCK = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"


def test_a_chain_whose_later_block_does_not_parse_is_refused_as_nginx_refuses_it(
    tmp_path: Path, nginx_binary: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """nginx reads every block of the chain (PEM_read_bio_X509 fails on a broken one)."""
    cert, key = _pair(tmp_path, "a")
    cert.write_text(cert.read_text() + BROKEN_BLOCK)
    refused = _nginx_t_with(tmp_path, nginx_binary, cert, key)
    assert refused.returncode != 0, refused.stderr
    tls = {"certificates": [{"cert": str(cert), "key": str(key)}]}
    path = tmp_path / "edge.yaml"
    path.write_text(yaml.safe_dump(edge([{"port": 443, "tls": True}], tls=tls)))
    assert main(["validate", "--tls-files", str(path)]) == 2
    assert _fields(capsys, path) == [
        f"tls.certificates.0.cert: {cert} is not a PEM certificate chain (each "
        "CERTIFICATE block must parse): put the certificate, then its issuers, in PEM"
    ]


def _fields(capsys: pytest.CaptureFixture[str], spec_path: Path) -> list[str]:
    """stderr's lines without their "file:line: " (the line is the dump's, not the test's)."""
    prefix = re.compile(rf"^{re.escape(str(spec_path))}:[0-9]+: ")
    return [prefix.sub("", line) for line in capsys.readouterr().err.splitlines()]


def test_an_encrypted_key_and_a_file_that_is_no_key_get_their_own_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cert, key = _pair(tmp_path, "a")
    encrypted = tmp_path / "enc.key"
    subprocess.run(
        [
            "openssl",
            "pkey",
            "-in",
            str(key),
            "-aes256",
            "-passout",
            "pass:x",
            "-out",
            str(encrypted),
        ],
        capture_output=True,
        check=True,
    )
    for named, fix in [
        (encrypted, "is an encrypted private key (nginx would ask for a passphrase at every "
         "start): store it unencrypted, readable by root only"),
        (cert, f"is not a PEM private key: name the key file of {cert}"),
    ]:  # fmt: skip
        tls = {"certificates": [{"cert": str(cert), "key": str(named)}]}
        path = tmp_path / "edge.yaml"
        path.write_text(yaml.safe_dump(edge([{"port": 443, "tls": True}], tls=tls)))
        assert main(["validate", "--tls-files", str(path)]) == 2
        assert _fields(capsys, path) == [f"tls.certificates.0.key: {named} {fix}"]
