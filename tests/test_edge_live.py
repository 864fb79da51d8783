"""A real nginx serves a rendered TLS config: IPv4 and IPv6 on one port, HTTP/1.1 and HTTP/2,
TLS 1.1 refused, plain HTTP redirected."""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import warnings
from pathlib import Path

import pytest
from tpgen.plan import make_plan
from tpgen.spec.load import spec_from_mapping

from .conftest import unavailable
from .live import free_ports, running_nginx
from .specs import spec


def _curl(*args: str) -> subprocess.CompletedProcess[str]:
    curl = shutil.which("curl")
    if curl is None:
        unavailable("curl is not installed (apt-get install curl)")
    return subprocess.run(
        [curl, "-sk", "--max-time", "10", *args], capture_output=True, text=True, check=False
    )


def _handshake(port: int, version: ssl.TLSVersion) -> str:
    """The protocol a client limited to ``version`` negotiates, or the error it gets."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    # Let the client offer old versions at all: the refusal must come from the server.
    context.set_ciphers("DEFAULT:@SECLEVEL=0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # TLSv1_1: on purpose
        context.minimum_version = context.maximum_version = version
    try:
        with (
            socket.create_connection(("127.0.0.1", port), timeout=10) as raw,
            context.wrap_socket(raw) as tls,
        ):
            return str(tls.version())
    except ssl.SSLError as err:
        return f"refused: {err.reason}"


@pytest.fixture
def edge_node(tmp_path: Path, nginx_binary: str):  # type: ignore[no-untyped-def]
    tls_port, status = free_ports(2, start=27700)
    data = spec("origin", disks=1, node={"cores": 2, "memory": "4GiB"}, status={"port": status})
    data["disks"][0].update(media="ssd", size="1GiB")
    data["listen"] = [{"address": "*", "port": tls_port, "tls": True, "http2": True}]
    data["tls"] = {"certificates": [{"cert": "/etc/tpgen-live/edge.crt", "key": "/etc/k.key"}]}
    plan = make_plan(spec_from_mapping(data, "live.yaml"), "live.yaml")
    with running_nginx(plan, tmp_path, nginx_binary) as live:
        root = Path(live.disks[0].dir)
        (root / "hello.txt").write_text("hello over tls\n")
        yield tls_port


def test_one_port_serves_ipv4_and_ipv6_over_http1_and_http2(edge_node: int) -> None:
    for host in ("127.0.0.1", "[::1]"):
        for flag, protocol in (("--http1.1", "1.1"), ("--http2", "2")):
            url = f"https://{host}:{edge_node}/hello.txt"
            result = _curl(flag, "-w", "%{http_version} %{http_code}", url)
            assert result.stdout == f"hello over tls\n{protocol} 200", (host, flag, result)


def test_tls_1_1_is_refused_and_1_2_and_1_3_negotiate(edge_node: int) -> None:
    assert _handshake(edge_node, ssl.TLSVersion.TLSv1_2) == "TLSv1.2"
    assert _handshake(edge_node, ssl.TLSVersion.TLSv1_3) == "TLSv1.3"
    # The server's alert, not the client's own refusal to offer 1.1.
    assert _handshake(edge_node, ssl.TLSVersion.TLSv1_1) == "refused: TLSV1_ALERT_PROTOCOL_VERSION"
