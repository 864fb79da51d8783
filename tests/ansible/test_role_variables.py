"""Hostile role variables: refused before anything changes, with one line naming the variable
and the fix; a hostile but valid value is accepted (and tests/ansible/test_role_templates.py
shows that it then works)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tests.ansible.conftest import REPO
from tests.ansible.role_variables import check_variables

ROLES = ("nginx_install", "nginx_tpconfig", "storage_disks", "tpgen_metrics")
PATH_FIX = (
    "give an absolute path (at most 4095 characters, 255 a name) without a newline, a control "
    "character or $NAME"
)
# 4095 characters, each name 255 long: the longest path the checks accept
HUGE_PATH = ("/" + "y" * 255) * 15 + "/" + "z" * 254
UNIT_FIX = "give a systemd unit name (letters, digits, : _ . @ -; not starting with . or -), e.g."

REFUSED: list[tuple[str, dict[str, Any], str]] = [
    (
        "nginx_install",
        {"nginx_install_distro_packages": ["nginx -o APT::Get::AllowUnauthenticated=1"]},
        'nginx_install_distro_packages: "nginx -o APT::Get::AllowUnauthenticated=1" refused: give '
        "Debian "
        "package names (lower-case letters, digits, + - .), each optionally =VERSION, at least "
        "one.",
    ),
    (
        "nginx_install",
        {"nginx_install_distro_packages": []},
        'nginx_install_distro_packages: "" refused: give Debian package names (lower-case '
        "letters, digits, "
        "+ - .), each optionally =VERSION, at least one.",
    ),
    (
        "nginx_install",
        {"nginx_install_official_repo_url": "https://nginx.org/packages\nTrusted: yes"},
        'nginx_install_official_repo_url: "https://nginx.org/packages\\nTrusted: yes" refused: '
        "give an "
        "http(s):// or file:// URL without spaces or control characters (percent-encode them).",
    ),
    (
        "nginx_install",
        {"nginx_install_official_key_fingerprints": ["573B FD6B 3D8F BC64"]},
        'nginx_install_official_key_fingerprints: "573B FD6B 3D8F BC64" refused: give each pinned '
        "fingerprint as its 40 hex digits, without spaces, at least one.",
    ),
    (
        "nginx_install",
        {"nginx_install_official_version": "1.26.2 -o foo"},
        'nginx_install_official_version: "1.26.2 -o foo" refused: give a Debian package version '
        "such as "
        '1.26.2-1~bookworm, or "" for the newest.',
    ),
    (
        "nginx_install",
        {"nginx_install_source_version": "../../etc/1.22.1"},
        'nginx_install_source_version: "../../etc/1.22.1" refused: give an nginx release such as '
        "1.26.3 "
        "(quoted, so YAML keeps it a string).",
    ),
    (
        "nginx_install",
        {"nginx_install_from": "source", "nginx_install_source_sha256": "z" * 64},
        f'nginx_install_source_sha256: "{"z" * 64}" refused: give the sha256 (64 hex digits) of '
        f"the "
        "tarball: verify its .asc signature from nginx.org, then take `sha256sum "
        "nginx-VERSION.tar.gz`.",
    ),
    (
        "nginx_install",
        {"nginx_install_source_tarball": "nginx.tar.gz"},
        'nginx_install_source_tarball: "nginx.tar.gz" refused: give an absolute path on the node '
        "(at most 4095 characters, 255 a name) without a newline, a control character or $NAME, "
        'or "" to download.',
    ),
    (
        "nginx_install",
        {"nginx_install_source_extra_configure_args": ["--with-cc-opt=-O2\n-x"]},
        'nginx_install_source_extra_configure_args: "--with-cc-opt=-O2\\n-x" refused: give '
        "configure "
        "flags, each starting with -- and without a newline or control character.",
    ),
    (
        "nginx_install",
        {"nginx_install_source_build_dir": "/"},
        'nginx_install_source_build_dir: "/" refused: give an absolute directory (at most 4095 '
        "characters, 255 a name) without a newline, a control character or $NAME, not / (its src/ "
        "is deleted before each build).",
    ),
    (
        "nginx_install",
        {"nginx_install_source_build_dir": "/usr/local/src/$HOME"},
        'nginx_install_source_build_dir: "/usr/local/src/$HOME" refused: give an absolute '
        "directory (at most 4095 characters, 255 a name) without a newline, a control character "
        "or $NAME, not / (its src/ is deleted before each build).",
    ),
    (
        "nginx_install",
        {"nginx_install_source_make_jobs": "0"},
        'nginx_install_source_make_jobs: "0" refused: give a whole number of parallel make jobs, '
        "1 to 9999.",
    ),
    (
        "nginx_install",
        {"nginx_install_source_user": "www-data adm\n}\n/etc/shadow {"},
        'nginx_install_source_user: "www-data adm\\n}\\n/etc/shadow {" refused: give a user name '
        '(lower-case letters, digits, _ and -, up to 32), or "" for www-data.',
    ),
    (
        "nginx_tpconfig",
        {"nginx_tpconfig_service": "nginx.service\nExecStartPre=/bin/sh"},
        'nginx_tpconfig_service: "nginx.service\\nExecStartPre=/bin/sh" refused: '
        f"{UNIT_FIX} nginx.",
    ),
    (
        "nginx_tpconfig",
        {"nginx_tpconfig_guard_service": "../../../etc/cron.d/x"},
        f'nginx_tpconfig_guard_service: "../../../etc/cron.d/x" refused: {UNIT_FIX} tpgen-guard.',
    ),
    (
        "nginx_tpconfig",
        {"nginx_tpconfig_conf_path": "/etc/nginx/nginx.conf\nExecStartPre=/bin/sh"},
        'nginx_tpconfig_conf_path: "/etc/nginx/nginx.conf\\nExecStartPre=/bin/sh" refused: '
        f"{PATH_FIX}.",
    ),
    (
        "nginx_tpconfig",
        {"nginx_tpconfig_guard_venv": "/opt/tp'gen"},
        'nginx_tpconfig_guard_venv: "/opt/tp\'gen" refused: give an absolute path (at most 4095 '
        "characters, 255 a name) without a newline, a control character, $, a quote, a backquote "
        "or a backslash (its programs would not start).",
    ),
    (
        "nginx_tpconfig",
        {"nginx_tpconfig_nginx_binary": "-V"},
        f'nginx_tpconfig_nginx_binary: "-V" refused: {PATH_FIX}, or "" for the OS package\'s.',
    ),
    (
        "nginx_tpconfig",
        {"nginx_tpconfig_conf_mode": 644},
        'nginx_tpconfig_conf_mode: 644 refused: give the mode as a quoted string, e.g. "0644" or '
        '"u=rw,go=r".',
    ),
    (
        "nginx_tpconfig",
        {"nginx_tpconfig_health_paths": ["/health check"]},
        'nginx_tpconfig_health_paths: "/health check" refused: give URL paths of printable ASCII '
        "without "
        "# (percent-encode a space as %20, and non-ASCII).",
    ),
    (
        "nginx_tpconfig",
        {"nginx_tpconfig_health_status_codes": [200, 2000]},
        'nginx_tpconfig_health_status_codes: "2000" refused: give HTTP status codes, 100 to 599.',
    ),
    (
        "nginx_tpconfig",
        {"nginx_tpconfig_health_timeout": 0},
        "nginx_tpconfig_health_timeout: 0 refused: give whole seconds, 1 or more.",
    ),
    (
        "nginx_tpconfig",
        {"nginx_tpconfig_guard_interval": "0.01"},
        'nginx_tpconfig_guard_interval: "0.01" refused: give seconds from 0.1 to 60 (tpgen '
        "guard's "
        "--interval).",
    ),
    (
        "nginx_tpconfig",
        {"nginx_tpconfig_guard_package": "--index-url=http://evil.example/ tpgen"},
        'nginx_tpconfig_guard_package: "--index-url=http://evil.example/ tpgen" refused: give a '
        "pip "
        "requirement starting with its project name (e.g. tpgen or tpgen==1.0), not an option.",
    ),
    (
        "storage_disks",
        {"storage_disks_mount_options": ["noatime,exec", "nofail"]},
        'storage_disks_mount_options: "noatime,exec" refused: give one mount option per item, of '
        "printable ASCII without a space or a comma (e.g. noatime).",
    ),
    (
        "storage_disks",
        {"storage_disks_mount_options": ["noatime\n/dev/sda / ext4 defaults 0 0"]},
        'storage_disks_mount_options: "noatime\\n/dev/sda / ext4 defaults 0 0" refused: give one '
        "mount "
        "option per item, of printable ASCII without a space or a comma (e.g. noatime).",
    ),
    (
        "storage_disks",
        {"storage_disks_device_timeout": "10s,exec"},
        'storage_disks_device_timeout: "10s,exec" refused: give a systemd time span without '
        "spaces or "
        "commas, e.g. 10s or 1min.",
    ),
    (
        "storage_disks",
        {"storage_disks_mkfs_options": {"btrfs": "-f"}},
        'storage_disks_mkfs_options: "btrfs" refused: give options for xfs and ext4 only, the '
        "filesystems "
        "a disk may have.",
    ),
    (
        "storage_disks",
        {"storage_disks_sysctl_file": "sysctl.conf"},
        f'storage_disks_sysctl_file: "sysctl.conf" refused: {PATH_FIX}.',
    ),
    (
        "tpgen_metrics",
        {"tpgen_metrics_listen_address": "127.0.0.1:9100\nLD_PRELOAD=/tmp/x.so"},
        'tpgen_metrics_listen_address: "127.0.0.1:9100\\nLD_PRELOAD=/tmp/x.so" refused: give an IP '
        "address or a host name (letters, digits, . : -), e.g. 127.0.0.1 or [::1].",
    ),
    (
        "tpgen_metrics",
        {"tpgen_metrics_node_exporter_port": 65536},
        'tpgen_metrics_node_exporter_port: "65536" refused: give a TCP port, 1 to 65535.',
    ),
    (
        "tpgen_metrics",
        {"tpgen_metrics_textfile_dir": "/var/lib/node exporter"},
        'tpgen_metrics_textfile_dir: "/var/lib/node exporter" refused: give an absolute path (at '
        "most 4095 characters, 255 a name) without blanks, quotes, backslashes or $ (the node "
        "exporter's ARGS are split on blanks).",
    ),
    (
        "tpgen_metrics",
        {"tpgen_metrics_interval": "1min\nExecStartPre=/bin/sh"},
        'tpgen_metrics_interval: "1min\\nExecStartPre=/bin/sh" refused: give a systemd time span, '
        "e.g. "
        "1min or 30s.",
    ),
    (
        "tpgen_metrics",
        {"tpgen_metrics_window": "10 minutes"},
        'tpgen_metrics_window: "10 minutes" refused: give a duration of whole seconds or more, '
        "e.g. 10m, 1h or 1h30m.",
    ),
    (
        "tpgen_metrics",
        {"tpgen_metrics_lib_dir": "/usr/local/lib/a:b"},
        f'tpgen_metrics_lib_dir: "/usr/local/lib/a:b" refused: {PATH_FIX} or :.',
    ),
    (
        "tpgen_metrics",
        {"tpgen_metrics_nginx_binary": "-c/tmp/evil.conf"},
        'tpgen_metrics_nginx_binary: "-c/tmp/evil.conf" refused: give the nginx binary\'s name or '
        "path, "
        "without a control character and not starting with -.",
    ),
    (
        "nginx_tpconfig",
        {"nginx_tpconfig_guard_spec_path": "/etc/" + "x" * 256 + "/spec.yaml"},
        f'nginx_tpconfig_guard_spec_path: "/etc/{"x" * 256}/spec.yaml" refused: {PATH_FIX}.',
    ),
    (
        "storage_disks",
        {"storage_disks_sysctl_file": HUGE_PATH + "/x"},
        f'storage_disks_sysctl_file: "{HUGE_PATH}/x" refused: {PATH_FIX}.',
    ),
    (
        "nginx_install",
        {"nginx_install_official_pin_priority": 1000000},
        "nginx_install_official_pin_priority: 1000000 refused: give a whole number from -9999 to "
        "9999 (apt's pin priority, e.g. 900).",
    ),
]

# Hostile but valid: spaces, quotes, $ that names nothing, ;, %, non-ASCII, numbers as strings,
# empty strings and lists, huge values.
ODD_PATH = '/srv/tp gen/ca\'che "x" ;%n $ 1$/ü'
ACCEPTED: list[tuple[str, dict[str, Any]]] = [
    (
        "nginx_install",
        {
            "nginx_install_source_build_dir": ODD_PATH,
            "nginx_install_source_tarball": ODD_PATH + "/nginx.tar.gz",
            "nginx_install_source_make_jobs": "64",
            "nginx_install_source_logrotate_keep": "0",
            "nginx_install_official_pin_priority": "-10",
            "nginx_install_official_version": "1:1.26.2-1~bookworm+b1",
            "nginx_install_source_extra_configure_args": ["--with-cc-opt=-O2 -g '-DX=\"y\"'"],
            "nginx_install_distro_packages": ["nginx-full=1.22.1-9+deb12u1", "libnginx-mod-stream"],
        },
    ),
    (
        "nginx_install",
        {
            "nginx_install_source_extra_configure_args": [],
            "nginx_install_source_user": "",
            "nginx_install_source_version": "1.26.3",
        },
    ),
    (
        "nginx_tpconfig",
        {
            "nginx_tpconfig_conf_path": ODD_PATH + "/nginx.conf",
            "nginx_tpconfig_guard_venv": "/srv/tp gen/;%n 1/ü",
            "nginx_tpconfig_nginx_binary": ODD_PATH + "/nginx",
            "nginx_tpconfig_service": "nginx@edge-1.service",
            "nginx_tpconfig_conf_mode": "u=rw,go=r",
            "nginx_tpconfig_health_paths": ["/a%20b?x=1&y=%C3%BC", "healthz"],
            "nginx_tpconfig_health_status_codes": ["200", 204],
            "nginx_tpconfig_health_retries": "500000",
            "nginx_tpconfig_guard_interval": "0.5",
            "nginx_tpconfig_guard_package": "tpgen @ file:///opt/wheels/tpgen-1.0-py3-none-any.whl",
            "nginx_tpconfig_layout_path": "",
        },
    ),
    (
        "storage_disks",
        {
            "storage_disks_read_ahead_rules": HUGE_PATH,
            "storage_disks_mount_options": [],
            "storage_disks_device_timeout": "1min30s",
            "storage_disks_mkfs_options": {"ext4": "-m 0 -L 'c d'"},
            "storage_disks_sysctl_file": ODD_PATH + "/60-tpgen.conf",
        },
    ),
    (
        "tpgen_metrics",
        {
            "tpgen_metrics_listen_address": "[::1]",
            "tpgen_metrics_node_exporter_port": "9100",
            "tpgen_metrics_layout_path": ODD_PATH + "/layout.json",
            "tpgen_metrics_lib_dir": ODD_PATH,
            "tpgen_metrics_interval": "1h 30min",
            "tpgen_metrics_window": "1h30m",
            "tpgen_metrics_nginx_binary": ODD_PATH + "/nginx",
        },
    ),
]


def test_each_hostile_value_is_refused_with_one_line_naming_the_variable_and_the_fix(
    tmp_path: Path,
) -> None:
    cases = [(role, variables) for role, variables, _ in REFUSED] + ACCEPTED
    messages = check_variables(cases, tmp_path)
    assert messages[: len(REFUSED)] == [message for _, _, message in REFUSED]
    assert messages[len(REFUSED) :] == [None] * len(ACCEPTED)


def test_every_role_checks_its_variables_first_and_site_yml_before_any_role() -> None:
    for role in ROLES:
        (first, *_) = yaml.safe_load((REPO / "roles" / role / "tasks" / "main.yml").read_text())
        included = first.get("ansible.builtin.include_tasks") or first.get(
            "ansible.builtin.import_tasks"
        )
        assert included == "check-variables.yml", role
    (play,) = yaml.safe_load((REPO / "playbooks" / "site.yml").read_text())
    checked = [task["ansible.builtin.include_role"] for task in play["pre_tasks"][:-1]]
    assert checked == [
        {"name": f"tpgen.storage.{role}", "tasks_from": "check-variables"} for role in ROLES
    ]


def test_the_shipped_inventories_pass_every_role_s_checks(tmp_path: Path) -> None:
    cases = []
    for inventory in ("example", "molecule"):
        root = REPO / "inventories" / inventory
        group = yaml.safe_load((root / "group_vars" / "storage_nodes.yml").read_text()) or {}
        for host in sorted((root / "host_vars").glob("*.yml")):
            variables = {**group, **(yaml.safe_load(host.read_text()) or {})}
            cases += [(role, variables) for role in ROLES]
    assert check_variables(cases, tmp_path) == [None] * len(cases)
