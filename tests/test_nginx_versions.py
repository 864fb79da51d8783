"""Configs for nginx ≥ 1.25 through Debian 13's nginx 1.26, in a container (the host has 1.22).

Marked ``containers``: they need the docker engine, which the molecule phase of scripts/test.sh
installs and starts, so that phase runs them (scripts/ci/molecule.sh); the pytest phase leaves
them out.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tpgen.api import extra_file_problems
from tpgen.check import check_plan, install_bundled_mime_types, rebased, write_tls_files
from tpgen.plan import Decision, make_plan
from tpgen.render import render_config
from tpgen.spec.build import Build
from tpgen.spec.edge import HTTP3_SINCE, version_tuple
from tpgen.spec.handlers_listen_build import unbuilt_parameter
from tpgen.spec.load import load_spec_file, spec_from_mapping

from .conftest import CASES, ROOT, unavailable
from .h3client import h3_get
from .live import free_ports
from .nginx_tables import (
    configure_arguments,
    directive_disagreements,
    handler_disagreements,
    in_container,
    lacked_by_build,
    lacked_stream_variables,
    nginx_version,
    unknown_variables,
    value_disagreements,
)
from .specs import spec
from .test_merged import (
    BUFFER_CASES,
    CERTIFICATE_PATH_CASES,
    EMPTY_CERTIFICATE_CASES,
    HASH_CASES,
    INNER_CERTIFICATE_CASES,
    LISTEN_NAME_CASES,
    LOG_BUFFER_CASES,
    MERGED_BUFFER_CASES,
    NAMES_CASES,
    OCSP_CASES,
    ORIGIN_TLS,
    TLS,
    TLS_CERTIFICATE_PATH_CASES,
    TLS_NAMES,
    TLS_NAMES_CASES,
    merge_disagreements,
    with_snippets,
)

pytestmark = pytest.mark.containers
IMAGE = "tpgen-nginx:trixie"
NEW_CASES = sorted(
    p
    for p in CASES.iterdir()
    if (p / "spec.yaml").exists()
    and version_tuple(load_spec_file(p / "spec.yaml").nginx.version) >= HTTP3_SINCE
)


@pytest.fixture(scope="session")
def trixie_nginx(tmp_path_factory: pytest.TempPathFactory) -> str:
    """An ``nginx`` that runs Debian 13's in a container, with /tmp shared (the check's prefix)."""
    if (
        shutil.which("docker") is None
        or subprocess.run(["docker", "info"], capture_output=True, check=False).returncode
    ):
        unavailable("no docker engine answers: scripts/ci/molecule.sh installs and starts one")
    subprocess.run([str(ROOT / "scripts/ci/nginx-image.sh"), "trixie"], check=True)
    wrapper = tmp_path_factory.mktemp("bin") / "nginx"
    # IPv6 on lo, as a node has it: the image's /etc/hosts makes localhost ::1 as well.
    wrapper.write_text(
        "#!/bin/sh\nexec docker run --rm --network none --sysctl net.ipv6.conf.lo.disable_ipv6=0 "
        f'-v /tmp:/tmp {IMAGE} nginx "$@"\n'
    )
    wrapper.chmod(0o755)
    return str(wrapper)


@pytest.mark.parametrize(
    ("cases", "sections"),
    [
        (NAMES_CASES, {}),
        (LISTEN_NAME_CASES, {}),
        (TLS_NAMES_CASES, TLS_NAMES),
        (LOG_BUFFER_CASES, {}),
        (OCSP_CASES, TLS),
        (CERTIFICATE_PATH_CASES, {}),
        (TLS_CERTIFICATE_PATH_CASES, TLS),
        (HASH_CASES, {}),
        ([*MERGED_BUFFER_CASES, *BUFFER_CASES], {}),
    ],
    ids=[
        "names",
        "listen-names",
        "tls",
        "log-buffers",
        "ocsp",
        "certificate-paths",
        "tls-certificate-paths",
        "hashes",
        "buffers",
    ],
)
def test_tpgen_refuses_what_nginx_1_26_refuses_of_the_whole_config(
    trixie_nginx: str,
    tmp_path: Path,
    cases: list[tuple[dict[str, str], bool]],
    sections: dict[str, object],
) -> None:
    """As tests/test_merged.py does with the host's nginx 1.22."""
    assert merge_disagreements(trixie_nginx, tmp_path, cases, sections) == []


def test_there_are_goldens_for_nginx_1_26() -> None:
    assert [p.name for p in NEW_CASES] == ["edge-h3-126", "edge-tls-h2-126"]


@pytest.mark.parametrize("case", NEW_CASES, ids=[p.name for p in NEW_CASES])
def test_golden_config_passes_nginx_1_26(case: Path, trixie_nginx: str) -> None:
    plan = make_plan(load_spec_file(case / "spec.yaml"), str(case / "spec.yaml"))
    result = check_plan(plan, nginx=trixie_nginx)
    assert result.ok, result.output


def test_the_directive_tables_say_what_nginx_1_26_says(
    trixie_nginx: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """As tests/test_directives.py does with the host's nginx 1.22: every directive of 1.26 in
    a block that allows it and one that does not, and every variable, in one container; and
    what that nginx calls unknown is what tpgen reads its build lacks from its nginx -V."""
    version = nginx_version([trixie_nginx])
    assert version >= (1, 26, 0)
    build = Build(version, configure_arguments([trixie_nginx]))
    assert build.debug  # error_log memory: is taken (handlers_targets)
    # Its listens take ssl, http2 and quic, and stream's ssl (spec/handlers_listen_build).
    loaded = build.with_loaded(["modules/ngx_stream_module.so"])
    assert unbuilt_parameter(("443", "ssl", "http2"), loaded, stream=False) is None
    assert unbuilt_parameter(("443", "quic"), loaded, stream=False) is None
    assert unbuilt_parameter(("5000", "ssl"), loaded, stream=True) is None
    names, variables = lacked_by_build(build)
    root = tmp_path_factory.mktemp("tables")
    (root / "d").mkdir()
    (root / "v").mkdir()
    lacking, wrong = directive_disagreements(in_container(IMAGE), root / "d", version)
    assert wrong == []
    assert len(lacking) < 100
    assert names == lacking
    (root / "values").mkdir()
    assert value_disagreements(in_container(IMAGE), root / "values", version) == []
    (root / "handlers").mkdir()
    assert handler_disagreements(in_container(IMAGE), root / "handlers", version) == []
    unknown = unknown_variables(in_container(IMAGE), root / "v", version)
    assert [name for name in unknown if not name.startswith(("geoip_", "perl_"))] == []
    assert variables == set(unknown)


def test_the_stream_variables_say_what_nginx_1_26_says(
    trixie_nginx: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """As tests/test_directives.py does with the host's nginx 1.22: a reference in a stream
    server to each stream variable of 1.26, and what that nginx calls unknown is what tpgen
    reads its build lacks from its nginx -V."""
    version = nginx_version([trixie_nginx])
    root = tmp_path_factory.mktemp("stream_variables")
    unknown = unknown_variables(in_container(IMAGE), root, version, "stream")
    assert [name for name in unknown if not name.startswith("geoip_")] == []
    assert lacked_stream_variables(Build(version, configure_arguments([trixie_nginx]))) == set(
        unknown
    )


def test_an_empty_upstream_certificate_is_none_in_nginx_1_26(
    trixie_nginx: str, tmp_path: Path
) -> None:
    """What nginx 1.22 refuses of a proxy_, grpc_ or uwsgi_ssl_certificate "" (the prefix
    directory loaded, tests/test_merged.py), nginx 1.23.0 on takes: "" is no certificate."""
    cases = [(snippets, ORIGIN_TLS) for snippets, _ in EMPTY_CERTIFICATE_CASES]
    cases += [(snippets, {}) for snippets, _ in INNER_CERTIFICATE_CASES]
    for index, (snippets, sections) in enumerate(cases):
        case = tmp_path / str(index)
        case.mkdir()
        node, plan, paths = with_snippets(case, snippets, **sections, nginx={"version": "1.26.3"})
        assert check_plan(plan, nginx=trixie_nginx).ok, snippets
        assert extra_file_problems(node, paths) == []


@pytest.fixture
def h3_node(tmp_path_factory: pytest.TempPathFactory, trixie_nginx: str) -> Iterator[int]:
    """nginx 1.26 in a container on the host's network with a rendered HTTP/3 config."""
    (port,) = free_ports(1, start=27800)
    (status,) = free_ports(1, start=port + 1)
    data = spec("origin", disks=1, node={"cores": 2, "memory": "4GiB"}, status={"port": status})
    data["disks"][0].update(media="ssd", size="1GiB")
    data["listen"] = [{"address": "127.0.0.1", "port": port, "tls": True, "http3": True}]
    data["tls"] = {"certificates": [{"cert": "/etc/t/edge.crt", "key": "/etc/t/edge.key"}]}
    data["nginx"] = {"version": "1.26.3", "http_v3": True}
    prefix = Path(tmp_path_factory.mktemp("h3", numbered=True))
    moved = rebased(make_plan(spec_from_mapping(data, "h3.yaml"), "h3.yaml"), str(prefix))
    moved = moved.__class__(**{**moved.__dict__, "user": Decision("root", "test container")})
    for path in (moved.pid_path, moved.error_log, moved.access_log, moved.disks[0].dir + "/x"):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_tls_files(moved)
    install_bundled_mime_types(moved)
    (Path(moved.disks[0].dir) / "hello.txt").write_text("hello\n")
    conf = prefix / "nginx.conf"
    conf.write_text(render_config(moved))
    name = f"tpgen-h3-{port}"
    subprocess.run(
        ["docker", "run", "-d", "--name", name, "--network", "host", "-v", "/tmp:/tmp", IMAGE,
         "nginx", "-g", "daemon off;", "-p", str(prefix), "-e", "stderr", "-c", str(conf)],
        check=True, capture_output=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield port
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, check=False)


def test_http3_listens_on_udp_and_advertises_it(h3_node: int) -> None:
    result = subprocess.run(
        ["curl", "-sk", "--max-time", "10", "-D", "-", "-o", "/dev/null",
         f"https://127.0.0.1:{h3_node}/hello.txt"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    headers = result.stdout.lower()
    assert " 200" in headers.splitlines()[0]
    assert f'alt-svc: h3=":{h3_node}"; ma=86400' in headers
    # nginx holds the UDP port: binding it again fails.
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp, pytest.raises(OSError):
        udp.bind(("127.0.0.1", h3_node))


def test_an_http3_client_gets_the_file_over_quic(h3_node: int) -> None:
    headers, body = h3_get("127.0.0.1", h3_node, "/hello.txt")
    assert (headers[":status"], body) == ("200", b"hello\n")
    assert headers["alt-svc"] == f'h3=":{h3_node}"; ma=86400'


def test_nginx_1_26_warns_of_the_repeats_the_spec_refuses(trixie_nginx: str) -> None:
    """As nginx 1.22 does (tests/test_cache_ops.py, tests/test_addresses.py): a repeated word
    of a bitmask directive and a repeated geo network are warnings at every start."""
    data = spec("cache", nginx={"version": "1.26.3"})
    plan = make_plan(spec_from_mapping(data, "s.yaml"), "s.yaml")
    assert plan.proxy_next_upstream is not None and plan.trusted_networks is not None
    repeated = plan.__class__(
        **{
            **plan.__dict__,
            "proxy_cache_use_stale": Decision(("error", "error"), "test"),
            "proxy_cache_ignore_headers": Decision(("Vary", "Vary"), "test"),
            "proxy_next_upstream": Decision(("timeout", "timeout"), "test"),
            "trusted_networks": Decision(
                ("127.0.0.0/8", "::1/128", "::1/128", "0.0.0.0/0"), "test"
            ),
        }
    )
    result = check_plan(repeated, nginx=trixie_nginx)
    assert result.ok, result.output
    assert sorted(
        re.findall(r'\[warn\] .*duplicate (?:value|network) "([^"]+)"', result.output)
    ) == [
        "0.0.0.0/0",
        "::1/128",
        "Vary",
        "error",
        "timeout",
    ]


def test_debian_13s_configure_line_is_options_only(trixie_nginx: str) -> None:
    configure = configure_arguments([trixie_nginx])
    data = spec("cache", nginx={"version": "1.26.3", "configure": configure})
    assert spec_from_mapping(data, "s.yaml").nginx.configure == configure
