"""Testinfra checks of the official scenario: nginx_install from a local copy of nginx.org's
repository (files/make-repo.sh), on Debian 12 and Debian 13."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SCENARIO = Path(__file__).resolve().parent.parent
REPO_URL = "http://127.0.0.1:28731/packages/debian"
KEYRING = "/usr/share/keyrings/nginx-archive-keyring.gpg"
SOURCES = "/etc/apt/sources.list.d/nginx.sources"
PREFERENCES = "/etc/apt/preferences.d/99nginx"


def repo_version(host) -> str:
    """The version make-repo.sh gave the package: <upstream>-1~<codename>."""
    return host.file("/root/nginx-org/version").content_string.strip()


def version_table(host) -> list[tuple[bool, str, int, list[str]]]:
    """`apt-cache policy nginx`'s version table: (installed, version, priority, origins)."""
    table: list[tuple[bool, str, int, list[str]]] = []
    lines = host.check_output("apt-cache policy nginx").splitlines()
    for line in lines[lines.index("  Version table:") + 1 :]:
        match = re.fullmatch(r" (\*\*\*|   ) (\S+) (-?\d+)", line)
        if match:
            table.append((match[1] == "***", match[2], int(match[3]), []))
        else:
            table[-1][3].append(line.strip())
    return table


def test_nginx_is_the_repository_s_package(host):
    version = repo_version(host)
    codename = host.system_info.codename
    assert version.endswith(f"-1~{codename}")
    shown = host.check_output("dpkg-query -W -f '${Version} ${Maintainer}' nginx")
    assert shown == f"{version} NGINX Packaging <nginx-packaging@f5.com>"
    # apt knows where the installed version came from: the local nginx.org copy, at the pin.
    installed = [row for row in version_table(host) if row[0]]
    assert len(installed) == 1
    _, shown_version, priority, origins = installed[0]
    assert (shown_version, priority) == (version, 900)
    assert f"900 {REPO_URL} {codename}/nginx amd64 Packages" in origins


def test_the_pin_is_what_made_apt_take_it(host):
    """The distro's nginx has the higher version; without the pin apt would have chosen it."""
    distro = [
        row[1] for row in version_table(host) if any("debian.org" in origin for origin in row[3])
    ]
    assert distro
    for version in distro:
        higher = host.run(f"dpkg --compare-versions {version} gt {repo_version(host)}")
        assert higher.rc == 0, (version, repo_version(host))


def test_nginx_runs_with_thread_pools(host):
    out = host.run("/usr/sbin/nginx -V")
    assert out.rc == 0, out.stderr
    assert "--with-threads" in out.stderr
    assert f"nginx/{repo_version(host).split('-')[0]}" in out.stderr
    conf = """
pid /tmp/tpgen-official.pid;
error_log stderr;
thread_pool pool_d1 threads=4 max_queue=1024;
events { worker_connections 64; }
http { server { listen 127.0.0.1:28732; location / { aio threads=pool_d1; } } }
"""
    host.run(f"cat > /tmp/tpgen-official.conf <<'EOF'\n{conf}\nEOF")
    checked = host.run("/usr/sbin/nginx -t -c /tmp/tpgen-official.conf")
    assert checked.rc == 0, checked.stderr


def test_package_did_not_start_nginx_and_its_default_site_is_gone(host):
    # The package's postinst starts nginx (as nginx.org's does); policy_rc_d 101 forbade it.
    assert not host.service("nginx").is_running
    assert host.service("nginx").is_enabled
    assert host.process.filter(comm="nginx") == []
    assert not host.file("/etc/nginx/conf.d/default.conf").exists
    assert not host.file("/usr/sbin/policy-rc.d").exists
    assert host.user("nginx").exists


def test_apt_source_pin_and_keyring(host):
    fpr = host.file("/root/nginx-org/signing.fpr").content_string.strip()
    assert host.file(KEYRING).mode == 0o644
    shown = host.check_output(f"gpg --batch --with-colons --show-keys {KEYRING}")
    assert [line for line in shown.splitlines() if line.startswith("fpr:")] == [
        f"fpr:::::::::{fpr}:"
    ]
    source = host.file(SOURCES).content_string
    assert f"URIs: {REPO_URL}\n" in source
    assert f"Suites: {host.system_info.codename}\n" in source
    assert "Components: nginx\n" in source
    assert f"Signed-By: {KEYRING}\n" in source
    prefs = host.file(PREFERENCES).content_string
    assert "Pin-Priority: 900\n" in prefs


@pytest.mark.parametrize(
    ("key", "served"),
    [
        ("other.key", "other"),  # a key that is not pinned
        ("both.key", "signing+other"),  # the pinned key with another one beside it
    ],
)
def test_refuses_a_key_file_with_a_key_that_is_not_pinned(host, checks, key, served):
    before = {path: host.file(path).sha256sum for path in (KEYRING, SOURCES, PREFERENCES)}
    result = checks.run_playbook(SCENARIO / "check-refused.yml", {"check_key": key})
    assert result.returncode != 0, result.stdout
    assert "which are not all in nginx_install_official_key_fingerprints" in result.stdout
    assert "It was not installed." in result.stdout
    other = host.file("/root/nginx-org/other.fpr").content_string.strip()
    assert other in result.stdout, served
    assert {path: host.file(path).sha256sum for path in before} == before
