"""site.yml on a cache node: nginx with threads, disks mounted by UUID, the tpgen config live,
and every object cached on exactly the disk tpgen's bucket map names."""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from tpgen.api import disk_for_key, make_plan, node_layout, render_config, spec_from_mapping

REPO = Path(__file__).resolve().parents[3]
INVENTORY = REPO / "inventories" / "molecule"
HOST_VARS = yaml.safe_load((INVENTORY / "host_vars" / "tpgen-default.yml").read_text())
GROUP_VARS = yaml.safe_load((INVENTORY / "group_vars" / "storage_nodes.yml").read_text())
DISKS = HOST_VARS["tpgen_spec"]["disks"]
LISTEN = HOST_VARS["tpgen_spec"]["listen"][0]
TLS_LISTENS = [listen for listen in HOST_VARS["tpgen_spec"]["listen"] if listen.get("tls")]
TLS_FILES = HOST_VARS["nginx_tpconfig_tls_files"]
STATUS = HOST_VARS["tpgen_spec"]["status"]
ORIGIN_ROOT = GROUP_VARS["tpgen_molecule_origin_root"]
OBJECTS = [
    f"/objects/{group['size']}-{n:02d}.bin"
    for group in GROUP_VARS["tpgen_molecule_origin_objects"]
    for n in range(group["count"])
]
HOST_HEADER = "cache.test"
SOURCE = "tpgen_spec of tpgen-default"
# A fresh query string per run makes fresh cache keys, so a repeated `molecule verify` still
# sees a MISS first.
RUN = secrets.token_hex(4)

testinfra_hosts = ["ansible://tpgen-default"]


@pytest.fixture(scope="module")
def plan(spec: dict[str, Any]) -> Any:
    return make_plan(spec_from_mapping(spec, SOURCE), SOURCE)


@pytest.fixture(scope="module")
def layout(plan: Any) -> Any:
    return node_layout(plan)


def cache_key(path: str) -> str:
    """The key nginx computes for GET <path>, Host: cache.test ($scheme$host$request_uri)."""
    return f"http{HOST_HEADER}{path}?run={RUN}"


SLICE = 1 << 20  # the host's workload.slice


def slice_keys(path: str) -> list[str]:
    """The cache entries of a whole object: one per slice, the key + $slice_range."""
    size = int(Path(path).name.split("-")[0])
    return [
        f"{cache_key(path)}bytes={start}-{start + SLICE - 1}" for start in range(0, size, SLICE)
    ]


@pytest.fixture(scope="module")
def fetched(host: Any, checks: ModuleType) -> dict[str, dict[str, Any]]:
    mounts = [disk["mount"] for disk in DISKS]
    items = [
        {
            "url": f"http://{LISTEN['address']}:{LISTEN['port']}{path}?run={RUN}",
            "cache_globs": [g for key in slice_keys(path) for g in checks.cache_globs(mounts, key)],
            "origin": f"{ORIGIN_ROOT}{path}",
        }
        for path in OBJECTS
    ]
    results = checks.fetch(host, items, HOST_HEADER)
    return {path: result for path, result in zip(OBJECTS, results, strict=True)}


def test_nginx_is_built_with_thread_pools(host: Any) -> None:
    version = host.run("nginx -V")
    assert version.rc == 0
    assert "--with-threads" in version.stderr


def test_nginx_runs_on_the_spec_ports(host: Any) -> None:
    nginx = host.service("nginx")
    assert nginx.is_running
    assert nginx.is_enabled
    assert host.socket(f"tcp://{LISTEN['address']}:{LISTEN['port']}").is_listening
    assert host.socket(f"tcp://{STATUS['address']}:{STATUS['port']}").is_listening


@pytest.mark.parametrize("disk", DISKS, ids=[disk["name"] for disk in DISKS])
def test_each_disk_is_mounted_by_uuid_with_its_options(
    host: Any, disk: dict[str, Any], layout: Any
) -> None:
    mount = host.mount_point(disk["mount"])
    assert mount.exists
    assert mount.filesystem == disk.get("filesystem", "xfs")
    assert "noatime" in mount.options
    uuid = host.check_output("blkid -s UUID -o value %s", disk["device"])
    assert uuid
    fstab = [line.split() for line in host.file("/etc/fstab").content_string.splitlines()]
    entries = [fields for fields in fstab if len(fields) >= 4 and fields[1] == disk["mount"]]
    assert len(entries) == 1, entries
    source, _, fstype, options = entries[0][:4]
    assert source == f"UUID={uuid}"
    assert fstype == disk.get("filesystem", "xfs")
    assert {"noatime", "nofail"} <= set(options.split(","))
    planned = next(d for d in layout.disks if d.name == disk["name"])
    assert (planned.dir, planned.owner) == (f"{disk['mount']}/cache", "www-data")
    cache_dir = host.file(planned.dir)
    assert cache_dir.is_directory
    assert (cache_dir.user, cache_dir.group) == (planned.owner, planned.group)
    assert cache_dir.mode == int(planned.mode, 8)


def test_the_installed_config_is_what_tpgen_renders_for_this_host(host: Any, plan: Any) -> None:
    assert host.file("/etc/nginx/nginx.conf").content_string == render_config(plan, SOURCE)


def test_the_replaced_config_is_kept_for_rollback(host: Any) -> None:
    previous = host.file("/etc/nginx/nginx.conf.tpgen-prev")
    assert previous.is_file
    assert previous.content_string != host.file("/etc/nginx/nginx.conf").content_string


def test_the_live_config_has_one_thread_pool_and_one_cache_per_disk(host: Any) -> None:
    dump = host.run("nginx -T")
    assert dump.rc == 0, dump.stderr
    pools = re.findall(r"^\s*thread_pool\s+(\S+)\s", dump.stdout, re.MULTILINE)
    caches = re.findall(r"^\s*proxy_cache_path\s+(\S+)\s", dump.stdout, re.MULTILINE)
    assert sorted(pools) == sorted(f"pool_{disk['name']}" for disk in DISKS)
    assert sorted(caches) == sorted(f"{disk['mount']}/cache" for disk in DISKS)
    assert re.search(
        r"^\s*proxy_cache_key \$scheme\$host\$request_uri\$slice_range;", dump.stdout, re.MULTILINE
    )
    assert re.search(r"^\s*slice 1m;", dump.stdout, re.MULTILINE)


def test_stub_status_answers_on_loopback(host: Any, layout: Any) -> None:
    assert layout.status_url == f"http://{STATUS['address']}:{STATUS['port']}/nginx_status"
    status = host.check_output(
        "python3 -c %s %s",
        "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())",
        layout.status_url,
    )
    assert status.startswith("Active connections:")


@pytest.mark.parametrize("path", OBJECTS)
def test_an_object_is_cached_on_the_disk_the_bucket_map_names(
    path: str, fetched: dict[str, dict[str, Any]], plan: Any
) -> None:
    result = fetched[path]
    first, second = result["rounds"]
    expected_disk = disk_for_key(plan, cache_key(path))
    assert (first["status"], second["status"]) == (200, 200)
    assert first["sha256"] == second["sha256"] == result["origin_sha256"]
    assert (first["cache"], second["cache"]) == ("MISS", "HIT")
    assert first["disk"] == second["disk"] == expected_disk
    # every slice of the object, each once, all on the object's disk
    assert [entry["key"] for entry in result["files"]] == slice_keys(path), result["files"]
    assert all(f["path"].startswith(f"{_mount(expected_disk)}/cache/") for f in result["files"])
    assert result["files"][0]["path"].startswith(f"{_mount(expected_disk)}/cache/")


def test_the_objects_spread_over_every_disk(fetched: dict[str, dict[str, Any]]) -> None:
    used = {result["rounds"][0]["disk"] for result in fetched.values()}
    assert used == {disk["name"] for disk in DISKS}


def _mount(name: str) -> str:
    return str(next(disk["mount"] for disk in DISKS if disk["name"] == name))


def test_a_1k_range_of_a_cold_3mib_object_is_one_slice_then_a_hit(host: Any, plan: Any) -> None:
    path = f"/objects/3145728-00.bin?range={RUN}"
    url = f"http://{LISTEN['address']}:{LISTEN['port']}{path}"
    script = (
        "import hashlib, json, sys, urllib.request\n"
        "out = []\n"
        "for _ in range(2):\n"
        "    req = urllib.request.Request(sys.argv[1], headers={'Host': sys.argv[2],"
        " 'Range': 'bytes=2100000-2101023'})\n"
        "    with urllib.request.urlopen(req, timeout=10) as r:\n"
        "        out.append([r.status, r.headers.get('X-Cache-Status'), r.read().hex()])\n"
        "print(json.dumps(out))"
    )
    rounds = json.loads(host.check_output("python3 -c %s %s %s", script, url, HOST_HEADER))
    origin = host.file(f"{ORIGIN_ROOT}/objects/3145728-00.bin")
    expected = host.check_output(
        "python3 -c %s %s",
        "import sys; f=open(sys.argv[1],'rb'); f.seek(2100000); print(f.read(1024).hex())",
        origin.path,
    )
    assert [(status, cache) for status, cache, _ in rounds] == [(206, "MISS"), (206, "HIT")]
    assert rounds[0][2] == rounds[1][2] == expected
    key = f"http{HOST_HEADER}{path}"
    held = [g for g in _slice_globs(key + "bytes=2097152-3145727") if host.file(g).exists]
    assert len(held) == 1 and held[0].startswith(f"{_mount(disk_for_key(plan, key))}/cache/")
    # only the slice that holds the range was fetched: the object's other slices are not cached
    others = [g for s in (0, 1) for g in _slice_globs(f"{key}bytes={s << 20}-{(s + 1 << 20) - 1}")]
    assert not any(host.file(g).exists for g in others)


def _slice_globs(key: str) -> list[str]:
    digest = hashlib.md5(key.encode()).hexdigest()
    return [f"{d['mount']}/cache/{digest[-1]}/{digest[-3:-1]}/{digest}" for d in DISKS]


def _log_lines(host: Any, marker: str, count: int) -> list[dict[str, Any]]:
    """The JSON access log's lines for requests holding ``marker`` (written 64k or 5 s late)."""
    for _ in range(30):
        text = host.file(HOST_VARS["tpgen_spec"]["logging"]["path"]).content_string
        lines = [json.loads(line) for line in text.splitlines() if marker in line]
        if len(lines) >= count:
            return lines
        time.sleep(0.5)
    raise AssertionError(f"{count} log lines with {marker} did not appear: {lines}")


def test_the_json_access_log_names_the_disk_and_the_cache_status(
    fetched: dict[str, dict[str, Any]], host: Any, plan: Any
) -> None:
    lines = _log_lines(host, f"run={RUN}", 2 * len(OBJECTS))
    for line in lines:
        path = line["request"].split()[1]
        assert line["disk"] == disk_for_key(plan, f"http{HOST_HEADER}{path}")
        assert line["cache"] in ("MISS", "HIT") and line["status"] == "200"
    assert {line["cache"] for line in lines} == {"MISS", "HIT"}
    misses = [line for line in lines if line["cache"] == "MISS"]
    assert all(line["upstream_addr"].startswith("127.0.0.1:") for line in misses)


def run_playbook(playbook: str, extra_vars: dict[str, Any], **env_vars: str) -> str:
    """A playbook of the checkout from the controller, as an operator runs it."""
    inventory = Path(os.environ["MOLECULE_INVENTORY_FILE"]).parent
    env = {
        **os.environ,
        "ANSIBLE_NOCOLOR": "1",
        # tpgen.storage: the installed collection (TPGEN_COLLECTIONS_PATH, molecule.sh)
        "ANSIBLE_COLLECTIONS_PATH": os.environ["TPGEN_COLLECTIONS_PATH"],
        **env_vars,
    }
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "ansible-playbook"), "-i", str(inventory),
         str(REPO / playbook), "--limit", "tpgen-default", "-e", json.dumps(extra_vars)],
        env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def run_purge(keys: list[str]) -> str:
    """cache-purge.yml from the controller, as an operator runs it."""
    return run_playbook("cache-purge.yml", {"keys": keys})


def test_purge_through_the_playbook_turns_the_key_into_a_miss_and_leaves_the_others(
    fetched: dict[str, dict[str, Any]], host: Any, checks: ModuleType
) -> None:
    purged, kept = "/objects/3145728-01.bin", "/objects/3145728-02.bin"
    assert [fetched[p]["rounds"][1]["cache"] for p in (purged, kept)] == ["HIT", "HIT"]
    out = run_purge([cache_key(purged)])
    assert f"{cache_key(purged)}: 3 file(s)" in out
    base = f"http://{LISTEN['address']}:{LISTEN['port']}"
    after = checks.fetch(
        host,
        [{"url": f"{base}{p}?run={RUN}", "cache_globs": []} for p in (purged, kept)],
        HOST_HEADER,
    )
    assert [r["rounds"][0]["cache"] for r in after] == ["MISS", "HIT"]
    assert after[0]["rounds"][0]["sha256"] == fetched[purged]["origin_sha256"]


@pytest.mark.parametrize(
    ("path", "mode"),
    [("/etc/nginx/tls/cache.test.crt", 0o644), ("/etc/nginx/tls/cache.test.key", 0o600)],
)
def test_the_certificate_and_key_are_on_the_node_with_their_modes(
    host: Any, path: str, mode: int
) -> None:
    copied = host.file(path)
    assert copied.is_file
    assert (copied.user, copied.group, copied.mode) == ("root", "root", mode)


def test_the_key_never_shows_in_ansible_output() -> None:
    log = Path(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"]) / "ansible.log"
    key_pem = Path(os.environ["MOLECULE_EPHEMERAL_DIRECTORY"]) / "tls" / "cache.test.key"
    body = [line for line in key_pem.read_text().splitlines() if not line.startswith("-----")]
    text = log.read_text()
    assert "Copy the keys from the controller, readable by root only" in text
    assert body and not any(line in text for line in body)


def answer(host: Any, url: str, *names: str) -> str:
    """The status and these headers of a GET of `url` made on the node (Host cache.test, the
    throwaway certificate not verified), space-separated."""
    return host.check_output(
        "python3 -c %s %s %s",
        "import ssl, sys, urllib.request\n"
        "ctx = ssl._create_unverified_context()\n"
        "r = urllib.request.urlopen(urllib.request.Request(sys.argv[1], "
        "headers={'Host': 'cache.test'}), context=ctx)\n"
        "print(r.status, *(r.headers[name] for name in sys.argv[2].split(',')))",
        url,
        ",".join(names),
    )


@pytest.mark.parametrize("listen", TLS_LISTENS, ids=[item["address"] for item in TLS_LISTENS])
def test_tls_serves_http2_and_a_hit_on_ipv4_and_ipv6(host: Any, listen: dict[str, Any]) -> None:
    address = f"[{listen['address']}]" if ":" in listen["address"] else listen["address"]
    # Its own key per address: the second request is the first HIT of this listen.
    url = f"https://{address}:{listen['port']}{OBJECTS[0]}?tls={RUN}-{listen['address']}"
    script = (
        "import ssl, sys, http.client, urllib.parse\n"
        "ctx = ssl.create_default_context(); ctx.check_hostname = False\n"
        "ctx.verify_mode = ssl.CERT_NONE; ctx.set_alpn_protocols(['h2', 'http/1.1'])\n"
        "u = urllib.parse.urlsplit(sys.argv[1])\n"
        "import socket\n"
        "raw = socket.create_connection((u.hostname, u.port), timeout=10)\n"
        "tls = ctx.wrap_socket(raw, server_hostname='cache.test')\n"
        "print(tls.selected_alpn_protocol(), tls.version())\n"
    )
    negotiated = host.check_output("python3 -c %s %s", script, url)
    assert negotiated == "h2 TLSv1.3"
    statuses = [answer(host, url, "X-Cache-Status", "Strict-Transport-Security") for _ in range(2)]
    assert statuses == ["200 MISS max-age=63072000", "200 HIT max-age=63072000"]


EXTRA = HOST_VARS["tpgen_spec"]["extra"]["location"][0]


def test_the_extra_snippet_is_copied_from_the_controller_with_its_mode(host: Any) -> None:
    copied = host.file(EXTRA)
    assert (copied.user, copied.group, copied.mode) == ("root", "root", 0o644)
    controller = Path(os.environ["MOLECULE_SCENARIO_DIRECTORY"]) / "files" / "extra-location.conf"
    assert copied.content_string == controller.read_text()


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_the_extra_snippet_adds_its_header_to_every_content_answer(host: Any, scheme: str) -> None:
    listen = LISTEN if scheme == "http" else TLS_LISTENS[0]
    url = f"{scheme}://{listen['address']}:{listen['port']}{OBJECTS[0]}?extra={RUN}"
    headers = answer(host, url, "X-Tpgen-Extra", "X-Cache-Status")
    # The snippet's header and tpgen's own: the location sets both.
    assert headers == "200 from a snippet MISS"


def test_doctor_counts_the_snippet_as_the_config_and_finds_each_hdds_read_ahead_raised() -> None:
    out = run_playbook(
        "doctor.yml",
        {"persist": False, "fail_on": "never"},
        ANSIBLE_STDOUT_CALLBACK="ansible.posix.json",
    )
    tasks = [task for play in json.loads(out)["plays"] for task in play["tasks"]]
    run = next(t for t in tasks if t["task"]["name"].startswith("Run doctor on the node"))
    report = run["hosts"]["tpgen-default"]["report"]["findings"]
    # The container names each loop disk /dev/sdX (docker --device): doctor finds its read-ahead
    # by the device number, at least the floor storage_disks raised it to.
    read_ahead = [f for f in report if f["check"] == "disk.read_ahead"]
    assert [(f["subject"], f["level"]) for f in read_ahead] == [
        (disk["name"], "ok") for disk in HOST_VARS["tpgen_spec"]["disks"]
    ], read_ahead
    assert all(f["data"]["read_ahead_kb"] >= f["data"]["floor_kb"] > 0 for f in read_ahead)
    findings = {f["check"]: f for f in report}
    assert findings["config.drift"]["level"] == "ok", findings["config.drift"]
    assert findings["config.extra"]["level"] == "ok", findings["config.extra"]
    assert findings["config.extra"]["message"] == (
        "1 include file(s) of spec extra in place (tpgen's: not drift)"
    )


def test_the_log_directory_the_node_lacked_was_created(host: Any, layout: Any) -> None:
    assert "/var/log/tpgen-cache" in layout.log_dirs
    made = host.file("/var/log/tpgen-cache")
    assert (made.is_directory, made.user, made.mode) == (True, "root", 0o755)
