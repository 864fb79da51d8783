"""Testinfra checks of the source scenario: nginx_install built from a source tarball, the
release's own (vars/tarballs.yml): 1.22.1 on Debian 12, 1.26.3 with HTTP/3 on Debian 13."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

TARBALLS = yaml.safe_load(
    (Path(__file__).resolve().parent.parent / "vars" / "tarballs.yml").read_text()
)["tpgen_molecule_nginx_sources"]
HTTP_V3 = "--with-http_v3_module"  # the role adds it from nginx 1.25.0 on
QUIC_PORT = 28099
BUILD_LOG = "/var/lib/nginx/tpgen-source-builds.log"
REQUIRED_FLAGS = [
    "--with-threads",
    "--with-file-aio",
    "--with-http_stub_status_module",
    "--with-http_ssl_module",
    "--with-http_slice_module",
    "--with-http_mp4_module",
    "--user=www-data",
    "--group=www-data",
]
EXTRA_FLAG = "--with-http_realip_module"  # added by side_effect.yml


def wanted_version(host) -> str:
    return str(TARBALLS[host.system_info.codename]["version"])


def has_http_v3(version: str) -> bool:
    return tuple(int(part) for part in version.split(".")) >= (1, 25, 0)


def configure_args(host) -> list[str]:
    out = host.run("/usr/sbin/nginx -V")
    assert out.rc == 0, out.stderr
    lines = [line for line in out.stderr.splitlines() if line.startswith("configure arguments: ")]
    assert len(lines) == 1
    return lines[0].removeprefix("configure arguments: ").split()


def test_version_is_the_tarballs(host):
    version = wanted_version(host)
    assert f"nginx version: nginx/{version}" in host.run("/usr/sbin/nginx -V").stderr


def test_http_v3_module_is_built_from_1_25_on(host):
    """1.26 gets the QUIC module (OpenSSL 3's compatibility layer); 1.22 has none to build."""
    assert (HTTP_V3 in configure_args(host)) == has_http_v3(wanted_version(host))


@pytest.mark.parametrize("flag", [*REQUIRED_FLAGS, EXTRA_FLAG])
def test_binary_has_flag(host, flag):
    assert flag in configure_args(host)


def test_flag_change_rebuilt_exactly_once(host):
    builds = host.file(BUILD_LOG).content_string.splitlines()
    # converge (build 1), idempotence (none), side effect with the new flag (build 2),
    # idempotence again (none).
    assert len(builds) == 2, builds
    assert EXTRA_FLAG not in builds[0].split()
    assert EXTRA_FLAG in builds[1].split()
    # The installed binary is the one from the last build.
    assert builds[1].split()[2:] == configure_args(host)


def test_systemd_unit_is_installed_enabled_and_not_started(host):
    unit = host.file("/etc/systemd/system/nginx.service")
    assert unit.exists
    assert "ExecStart=/usr/sbin/nginx " in unit.content_string
    svc = host.service("nginx")
    assert svc.is_enabled
    assert not svc.is_running


def test_thread_pools_and_modules_work(host):
    """A config with thread_pool, aio threads and the built modules passes nginx -t."""
    conf = """
user www-data;
pid /tmp/tpgen-test-nginx.pid;
error_log stderr;
thread_pool pool_d1 threads=4 max_queue=1024;
events { worker_connections 64; }
http {
    access_log off;
    server {
        listen 127.0.0.1:28097;
        location / { aio threads=pool_d1; sendfile on; slice 1m; }
        location /v { mp4; }
        location = /nginx_status { stub_status; }
        set_real_ip_from 127.0.0.1;
    }
}
"""
    host.run(f"cat > /tmp/tpgen-test-nginx.conf <<'EOF'\n{conf}\nEOF")
    out = host.run("/usr/sbin/nginx -t -c /tmp/tpgen-test-nginx.conf")
    assert out.rc == 0, out.stderr
    assert "test is successful" in out.stderr


def test_http3_listen_serves_quic_on_udp(host):
    """nginx 1.26's HTTP/3: a `listen ... quic reuseport` with a throwaway certificate passes
    nginx -t and, started, holds the UDP port (the HTTP/3 request itself is tests/test_edge_live's
    job on Debian 13's packaged nginx)."""
    if not has_http_v3(wanted_version(host)):
        pytest.skip(f"nginx {wanted_version(host)} has no HTTP/3 module (Debian 12's source build)")
    conf = f"""
pid /tmp/tpgen-quic.pid;
error_log stderr;
events {{ worker_connections 64; }}
http {{
    access_log off;
    server {{
        listen 127.0.0.1:{QUIC_PORT} quic reuseport;
        listen 127.0.0.1:{QUIC_PORT} ssl;
        http2 on;
        http3 on;
        quic_retry on;
        ssl_certificate /tmp/tpgen-quic.crt;
        ssl_certificate_key /tmp/tpgen-quic.key;
        add_header Alt-Svc 'h3=":{QUIC_PORT}"; ma=86400';
        location / {{ return 204; }}
    }}
}}
"""
    host.run_expect(
        [0],
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1"
        " -subj /CN=localhost -keyout /tmp/tpgen-quic.key -out /tmp/tpgen-quic.crt",
    )
    host.run(f"cat > /tmp/tpgen-quic.conf <<'EOF'\n{conf}\nEOF")
    checked = host.run("/usr/sbin/nginx -t -c /tmp/tpgen-quic.conf")
    assert checked.rc == 0, checked.stderr
    started = host.run("/usr/sbin/nginx -c /tmp/tpgen-quic.conf")
    assert started.rc == 0, started.stderr
    try:
        assert host.socket(f"udp://127.0.0.1:{QUIC_PORT}").is_listening
        assert host.socket(f"tcp://127.0.0.1:{QUIC_PORT}").is_listening
    finally:
        host.run("/usr/sbin/nginx -c /tmp/tpgen-quic.conf -s quit")


def test_logrotate_rotates_the_logs_and_nginx_reopens_them(host):
    """/etc/logrotate.d/nginx of the source build: a forced rotation moves the access log aside,
    and the USR1 of postrotate makes nginx write the next request into the new file."""
    conf = """
pid /run/nginx.pid;
error_log /var/log/nginx/tpgen-rotate-error.log;
events { worker_connections 64; }
http {
    access_log /var/log/nginx/tpgen-rotate.log;
    server { listen 127.0.0.1:28098; location / { return 204; } }
}
"""
    fetch = (
        "python3 -c 'import urllib.request; urllib.request.urlopen(\"http://127.0.0.1:28098/x\")'"
    )
    log = "/var/log/nginx/tpgen-rotate.log"
    host.run(f"cat > /tmp/tpgen-rotate.conf <<'EOF'\n{conf}\nEOF")
    assert host.run("logrotate -d /etc/logrotate.d/nginx").rc == 0
    start = host.run("/usr/sbin/nginx -c /tmp/tpgen-rotate.conf")
    assert start.rc == 0, start.stderr
    try:
        host.run_expect([0], fetch)
        assert host.file(log).content_string.count("GET /x") == 1
        rotated = host.run("logrotate -f /etc/logrotate.d/nginx")
        assert rotated.rc == 0, rotated.stderr
        host.run("sleep 1")  # the master reopens on USR1, then tells its workers
        host.run_expect([0], fetch)
        host.run_expect([0], fetch)
        assert host.file(f"{log}.1").content_string.count("GET /x") == 1
        assert host.file(log).content_string.count("GET /x") == 2  # reopened after USR1
        assert host.file(log).mode == 0o640
    finally:
        host.run("/usr/sbin/nginx -c /tmp/tpgen-rotate.conf -s quit")
        host.run(f"rm -f {log} {log}.* /var/log/nginx/tpgen-rotate-error.log*")
