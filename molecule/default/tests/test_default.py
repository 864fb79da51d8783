"""site.yml on a cache node: nginx with threads, disks mounted by UUID, the tpgen config live,
and every object cached on exactly the disk tpgen's bucket map names."""

from __future__ import annotations

import re
import secrets
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
LISTEN = HOST_VARS["tpgen_spec"]["listen"]
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


@pytest.fixture(scope="module")
def fetched(host: Any, checks: ModuleType) -> dict[str, dict[str, Any]]:
    mounts = [disk["mount"] for disk in DISKS]
    items = [
        {
            "url": f"http://{LISTEN['address']}:{LISTEN['port']}{path}?run={RUN}",
            "cache_globs": checks.cache_globs(mounts, cache_key(path)),
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
    assert re.search(r"^\s*proxy_cache_key \$scheme\$host\$request_uri;", dump.stdout, re.MULTILINE)


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
    assert [entry["key"] for entry in result["files"]] == [cache_key(path)], result["files"]
    assert result["files"][0]["path"].startswith(f"{_mount(expected_disk)}/cache/")


def test_the_objects_spread_over_every_disk(fetched: dict[str, dict[str, Any]]) -> None:
    used = {result["rounds"][0]["disk"] for result in fetched.values()}
    assert used == {disk["name"] for disk in DISKS}


def _mount(name: str) -> str:
    return str(next(disk["mount"] for disk in DISKS if disk["name"] == name))
