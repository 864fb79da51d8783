"""Where a spec may put disks and files: never over or into the system's own directories, never
a kernel file, never a file nginx needs on a data disk (spec/paths.py, spec/validate.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tpgen.check import check_plan
from tpgen.cli import main
from tpgen.plan import make_plan
from tpgen.spec.load import spec_from_mapping
from tpgen.spec.paths import SHARED_DIRS, SYSTEM_TREES, log_problem, mount_problem, read_problem

from .specs import disk, spec, write_spec


def validate(tmp_path: Path, data: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> str:
    """validate's one error line (asserting exit 2 and exactly one line)."""
    path = write_spec(tmp_path / "s.yaml", data)
    assert main(["validate", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def accepted(tmp_path: Path, data: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    path = write_spec(tmp_path / "s.yaml", data)
    assert main(["validate", str(path)]) == 0, capsys.readouterr().err


@pytest.mark.parametrize(
    ("mount", "reason"),
    [
        ("/etc", "is in the system's /etc"),
        ("/etc/nginx", "is in the system's /etc"),
        ("/usr/local/cache", "is in the system's /usr"),
        ("/boot/d1", "is in the system's /boot"),
        ("/proc/d1", "is in the system's /proc"),
        ("/var/log/nginx", "is in the system's /var/log"),
        ("/var/lib/dpkg", "is in the system's /var/lib/dpkg"),
        ("/var", "would hide what /var/backups holds"),
        ("/var/cache", "would hide what /var/cache/apt holds"),
        ("/var/lib", "would hide what /var/lib/apt holds"),
        ("/home", "would hide what /home holds"),
        ("/tmp", "would hide what /tmp holds"),
        ("/opt", "would hide what /opt holds"),
    ],
)
def test_a_disk_is_never_mounted_over_the_systems_own_directories(
    mount: str, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = spec(disks=2)
    data["disks"][1] = disk(2, mount=mount)
    line = validate(tmp_path, data, capsys)
    assert f": disks.1.mount: {mount} " in line or f"at {mount} " in line
    assert reason in line and "e.g. /srv/cache/d1" in line


@pytest.mark.parametrize(
    "mount", ["/srv/cache/d1", "/var/cache/nginx/d1", "/var/lib/docker", "/mnt", "/data", "/tmp/x"]
)
def test_the_usual_places_for_data_disks_are_accepted(
    mount: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    accepted(tmp_path, spec(disks=1) | {"disks": [disk(1, mount=mount)]}, capsys)


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/etc/shadow", "in the system's /etc, which nginx (root) would append to"),
        ("/etc/nginx/mime.types", "in the system's /etc"),
        ("/var/lib/dpkg/status", "in the system's /var/lib/dpkg"),
        ("/run/nginx.pid", "in the system's /run"),
        ("/dev/sda", "in the system's /dev"),
        ("/var/log/nginx", "is a directory"),
        ("/var/log", "is a directory"),
        ("/tmp", "is a directory"),
        ("/var/log/nginx/error.log", "is nginx's error log"),
        ("/srv/cache/d2/access.log", "is on disks.1 (d2, mounted at /srv/cache/d2)"),
        ("/srv/cache", "is a directory on the node (disks.0.mount /srv/cache/d1 is inside it)"),
    ],
)
def test_the_access_log_is_never_a_system_file_nginx_root_would_append_to(
    path: str, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = validate(tmp_path, spec(logging={"path": path}), capsys)
    assert ": logging.path: " in line and reason in line
    assert "/var/log/nginx/access.log" in line


@pytest.mark.parametrize(
    "path", ["/var/log/nginx/access.log", "/var/log/edge/a.json", "/srv/logs/access.log"]
)
def test_logs_in_their_usual_places_are_accepted(
    path: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    accepted(tmp_path, spec(logging={"path": path}), capsys)


A_PAIR = ("/etc/nginx/tls/a.crt", "/etc/nginx/tls/a.key")


def _tls(*pairs: tuple[str, str], **fields: Any) -> dict[str, Any]:
    """A TLS listen with these (cert, key) pairs (A_PAIR if none), each after the first with a
    name of its own, and the other tls fields."""
    certificates = [{"cert": cert, "key": key} for cert, key in pairs or [A_PAIR]]
    for index, pair in enumerate(certificates[1:], 1):
        pair["server_names"] = [f"n{index}.example"]
    return {"listen": {"port": 443, "tls": True}, "tls": {"certificates": certificates, **fields}}


KERNEL_FILE = ("not a file: name a regular file",)
ON_A_DISK = ("a failed or unmounted data disk would keep nginx from starting", "e.g. under /etc")
# nginx would read its own config, media types, pid or log as a PEM or as directives.
NGINX_OWN = ("name a file of its own",)
A_DIRECTORY = ("is a directory: name the file in it",)


@pytest.mark.parametrize(
    ("sections", "field", "reasons"),
    [
        (_tls((A_PAIR[0], "/proc/self/environ")), "tls.certificates.0.key", KERNEL_FILE),
        (_tls(("/dev/zero", A_PAIR[1])), "tls.certificates.0.cert", KERNEL_FILE),
        (_tls(ticket_keys=["/sys/kernel/notes"]), "tls.ticket_keys.0", KERNEL_FILE),
        (_tls(trusted_certificate="/dev/urandom"), "tls.trusted_certificate", KERNEL_FILE),
        ({"origin": {"tls": True, "ca_file": "/proc/1/mem"}}, "origin.ca_file", KERNEL_FILE),
        ({"extra": {"http": ["/dev/stdin"]}}, "extra.http.0", KERNEL_FILE),
        (_tls((A_PAIR[0], "/srv/cache/d1/tls/a.key")), "tls.certificates.0.key", ON_A_DISK),
        (_tls(ticket_keys=["/srv/cache/d3/t.key"]), "tls.ticket_keys.0", ON_A_DISK),
        ({"origin": {"tls": True, "ca_file": "/srv/cache/d2/ca.pem"}}, "origin.ca_file", ON_A_DISK),
        ({"extra": {"location": ["/srv/cache/d1/x.conf"]}}, "extra.location.0", ON_A_DISK),
        (_tls(("/etc/nginx/nginx.conf", A_PAIR[1])), "tls.certificates.0.cert", NGINX_OWN),
        (_tls((A_PAIR[0], "/etc/nginx/mime.types")), "tls.certificates.0.key", NGINX_OWN),
        (_tls(ticket_keys=["/run/nginx.pid"]), "tls.ticket_keys.0", NGINX_OWN),
        ({"extra": {"main": ["/var/log/nginx/error.log"]}}, "extra.main.0", NGINX_OWN),
        (_tls(("/etc", A_PAIR[1])), "tls.certificates.0.cert", A_DIRECTORY),
        (_tls(trusted_certificate="/var/log/nginx"), "tls.trusted_certificate", A_DIRECTORY),
        ({"origin": {"tls": True, "ca_file": "/srv"}}, "origin.ca_file", A_DIRECTORY),
    ],
)
def test_nginx_reads_no_kernel_file_no_file_of_its_own_and_nothing_on_a_data_disk(
    sections: dict[str, Any],
    field: str,
    reasons: tuple[str, ...],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A kernel file can block nginx's start (/dev/zero); a data disk can fail or be unmounted.
    line = validate(tmp_path, spec(**sections), capsys)
    assert f": {field}: " in line
    for reason in reasons:
        assert reason in line


def test_a_path_beside_a_mount_with_the_same_prefix_is_not_on_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    accepted(tmp_path, spec(logging={"path": "/srv/cache/d10.log"}), capsys)


def test_the_rules_name_the_whole_part_of_a_system_tree() -> None:
    assert mount_problem("/etcetera") is None and mount_problem("/usrdata/d1") is None
    assert log_problem("/etcetera/a.log") is None and read_problem("/devices/a.pem") is None
    for tree in SYSTEM_TREES:
        assert mount_problem(tree) and mount_problem(tree + "/d1")
    for shared in SHARED_DIRS:
        assert mount_problem(shared) and not mount_problem(shared + "/d1/x")
        assert log_problem(shared)


def test_the_access_log_is_never_a_file_nginx_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = spec(**_tls((A_PAIR[0], "/srv/tls/a.key")), logging={"path": "/srv/tls/a.key"})
    line = validate(tmp_path, data, capsys)
    assert (
        ": logging.path: /srv/tls/a.key is also tls.certificates.0.key, a file nginx reads: "
        in line
    )
    assert "nginx would append its log to it" in line


@pytest.mark.parametrize(
    ("sections", "field", "message"),
    [
        (
            _tls(("/etc/t/a.crt", "/etc/t/a.key"), ("/etc/t/a.key", "/etc/t/b.key")),
            "tls.certificates.1.cert",
            "/etc/t/a.key is also tls.certificates.0.key, from which nginx reads a private key, "
            "not a certificate",
        ),
        (
            _tls(("/etc/t/a.crt", "/etc/t/a.key"), ticket_keys=["/etc/t/a.key"]),
            "tls.ticket_keys.0",
            "from which nginx reads a private key, not a ticket key",
        ),
        (
            _tls(("/etc/t/a.pem", "/etc/t/a.pem"), ("/etc/t/b.crt", "/etc/t/a.pem")),
            "tls.certificates.1.key",
            "/etc/t/a.pem is also tls.certificates.0.cert, from which nginx reads a certificate, "
            "not a private key",
        ),
        (
            {**_tls(("/etc/t/a.crt", "/etc/t/a.key")), "extra": {"http": ["/etc/t/a.crt"]}},
            "extra.http.0",
            "from which nginx reads a certificate, not a config snippet",
        ),
    ],
)
def test_one_file_is_never_read_as_two_kinds_of_thing(
    sections: dict[str, Any],
    field: str,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = validate(tmp_path, spec(**sections), capsys)
    assert f": {field}: " in line and message in line
    assert "name another file (a certificate and its own key may share one)" in line


def test_a_certificate_named_with_two_keys_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One of the two servers would fail nginx -t on any node ("key values mismatch")."""
    sections = _tls(("/etc/t/a.crt", "/etc/t/a.key"), ("/etc/t/a.crt", "/etc/t/b.key"))
    line = validate(tmp_path, spec(**sections), capsys)
    assert line.endswith(
        ": tls.certificates.1.key: /etc/t/a.crt is paired with /etc/t/a.key in "
        "tls.certificates.0: a certificate has one key; name that key here, or another "
        "certificate"
    )


@pytest.mark.parametrize(
    "sections",
    [
        _tls(("/etc/t/a.pem", "/etc/t/a.pem")),  # a combined PEM
        _tls(("/etc/t/a.pem", "/etc/t/a.pem"), ("/etc/t/a.pem", "/etc/t/a.pem")),
        _tls(("/etc/t/a.crt", "/etc/t/k.key"), ("/etc/t/b.crt", "/etc/t/k.key")),  # one key
        _tls(("/etc/t/a.crt", "/etc/t/a.key"), trusted_certificate="/etc/t/a.crt"),  # chain
    ],
)
def test_files_shared_the_ways_nginx_reads_them_are_accepted_and_pass_nginx_t(
    sections: dict[str, Any], nginx_binary: str, tmp_path: Path
) -> None:
    path = write_spec(tmp_path / "s.yaml", spec("origin", **sections))
    assert main(["validate", str(path)]) == 0
    result = check_plan(
        make_plan(spec_from_mapping(spec("origin", **sections))), nginx=nginx_binary
    )
    assert result.ok, result.output


@pytest.mark.parametrize("path", ["/srv/cache"])
def test_a_file_the_config_names_is_not_the_directory_a_disk_is_mounted_in(
    path: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found as a render failure (the offline check's prefix has the disk's directories:
    "tpgen: /tmp/tpgen-check-…/root/srv/cache: Is a directory", no field named) of a key
    validate took."""
    line = validate(tmp_path, spec() | _tls(("/etc/nginx/tls/a.crt", path)), capsys)
    assert line.endswith(
        f": tls.certificates.0.key: {path} is a directory on the node (disks.0.mount "
        "/srv/cache/d1 is inside it): name a file, e.g. under /etc"
    ), line


RUN_LINK = "(that is /run/nginx.pid: /var/run is a link to /run)"


@pytest.mark.parametrize(
    ("sections", "message"),
    [
        ({"logging": {"path": "/var/run/nginx.pid"}}, f"logging.path: /var/run/nginx.pid "
         f"{RUN_LINK} is in the system's /run, which nginx (root) would append to: keep logs in "
         "/var/log, e.g. /var/log/nginx/access.log"),
        ({"logging": {"path": "/var/lock/a.log"}}, "logging.path: /var/lock/a.log (that is "
         "/run/lock/a.log: /var/lock is a link to /run/lock) is in the system's /run, which "
         "nginx (root) would append to: keep logs in /var/log, e.g. /var/log/nginx/access.log"),
        (_tls(ticket_keys=["/var/run/nginx.pid"]), f"tls.ticket_keys.0: /var/run/nginx.pid "
         f"{RUN_LINK} is nginx's pid file: name a file of its own"),
        (_tls(("/var/lock", A_PAIR[1])), "tls.certificates.0.cert: /var/lock (that is "
         "/run/lock: /var/lock is a link to /run/lock) is a directory: name the file in it"),
        ({"disks": [disk(1, mount="/var/run/d1")]}, "disks.0.mount: /var/run/d1 (that is "
         "/run/d1: /var/run is a link to /run) is in the system's /run: mount data disks "
         "elsewhere, e.g. /srv/cache/d1"),
    ],
)  # fmt: skip
def test_a_path_through_debians_links_to_run_is_read_where_it_leads(
    sections: dict[str, Any], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """/var/run and /var/lock are links to /run and /run/lock on Debian 12 and 13: the
    rules compared text, so /var/run/nginx.pid passed as the access log."""
    line = validate(tmp_path, spec(disks=1) | sections, capsys)
    assert line == f"{tmp_path / 's.yaml'}:{line.split(':')[1]}: {message}"
