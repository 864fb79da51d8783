"""End state of the disk-failure scenario: three disks again, d3 on the replacement device."""

from __future__ import annotations

import urllib.request
from typing import Any

import pytest

testinfra_hosts = ["ansible://tpgen-disk-failure"]
MOUNTS = {"/srv/cache/d1": "/dev/sdb", "/srv/cache/d2": "/dev/sdc", "/srv/cache/d3": "/dev/sde"}
OBJECTS = 48
BASE_URL = "http://127.0.0.1:26080"


@pytest.mark.parametrize(("mount", "device"), sorted(MOUNTS.items()))
def test_each_disk_is_mounted_from_its_device(host: Any, mount: str, device: str) -> None:
    mount_point = host.mount_point(mount)
    assert mount_point.exists
    assert mount_point.device == device
    assert mount_point.filesystem == "xfs"


def test_replaced_disk_is_in_fstab_once_by_its_new_uuid(host: Any) -> None:
    lines = [
        line
        for line in host.file("/etc/fstab").content_string.splitlines()
        if " /srv/cache/d3 " in line
    ]
    uuid = host.check_output("blkid -p -s UUID -o value /dev/sde")
    assert len(lines) == 1
    assert lines[0].startswith(f"UUID={uuid} ")


def test_config_has_a_pool_and_a_cache_per_disk(host: Any) -> None:
    conf = host.file("/etc/nginx/nginx.conf").content_string
    for disk in ("d1", "d2", "d3"):
        assert f"thread_pool pool_{disk} " in conf
        assert f"keys_zone=cache_{disk}:" in conf


@pytest.mark.parametrize("number", range(1, OBJECTS + 1))
def test_nginx_serves_every_object(number: int) -> None:
    with urllib.request.urlopen(f"{BASE_URL}/obj-{number}.bin", timeout=10) as response:
        assert response.status == 200
        assert response.headers["X-Cache-Disk"] in {"d1", "d2", "d3"}
        assert len(response.read()) == 32768
