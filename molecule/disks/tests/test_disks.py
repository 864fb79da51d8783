"""Testinfra checks of the disks scenario: storage_disks + nginx_install (distro)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from tpgen.api import make_plan, node_layout, spec_from_mapping

SCENARIO = Path(__file__).resolve().parent.parent
SPEC = yaml.safe_load((SCENARIO / "molecule.yml").read_text())["provisioner"]["inventory"][
    "host_vars"
]["tpgen-disks"]["tpgen_spec"]
# What storage_disks must make of the spec: its owner is tuning.user, not Debian's www-data.
LAYOUT = {disk.mount: disk for disk in node_layout(make_plan(spec_from_mapping(SPEC))).disks}
MOUNT_OPTS = "noatime,nofail,x-systemd.device-timeout=10s"

LIVE_DISKS = [
    # name, device, mount, filesystem
    ("d1", "/dev/sdb", "/srv/cache/d1", "xfs"),
    ("d2", "/dev/sdc", "/srv/cache/d2", "ext4"),
]


def blkid(host, device: str, tag: str) -> str:
    return host.check_output(f"blkid -p -s {tag} -o value {device} || true").strip()


def first_mib_sha256(host, device: str) -> str:
    return host.check_output(f"head -c 1048576 {device} | sha256sum").split()[0]


# --- nginx_install, distro path -------------------------------------------------------------------


def test_nginx_is_built_with_threads(host):
    out = host.run("nginx -V")
    assert out.rc == 0
    assert "--with-threads" in out.stderr


def test_nginx_package_did_not_start_a_default_site(host):
    # policy_rc_d 101 kept the postinst from starting nginx; the role never starts it.
    assert host.package("nginx").is_installed
    assert not host.service("nginx").is_running
    assert host.service("nginx").is_enabled
    assert host.process.filter(comm="nginx") == []
    assert not host.file("/etc/nginx/sites-enabled/default").exists
    assert not host.file("/usr/sbin/policy-rc.d").exists


# --- storage_disks --------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "device", "mount", "fstype"), LIVE_DISKS)
def test_disk_is_mounted_by_uuid(host, name, device, mount, fstype):
    uuid = blkid(host, device, "UUID")
    assert blkid(host, device, "TYPE") == fstype
    assert uuid
    fstab = [line.split() for line in host.file("/etc/fstab").content_string.splitlines()]
    assert [f"UUID={uuid}", mount, fstype, MOUNT_OPTS, "0", "0"] in fstab
    mp = host.mount_point(mount)
    assert mp.exists
    assert mp.filesystem == fstype
    assert "noatime" in mp.options
    # The mounted filesystem is the one on the spec's device.
    assert host.check_output(f"findmnt -n -o UUID {mount}").strip() == uuid


@pytest.mark.parametrize(("name", "device", "mount", "fstype"), LIVE_DISKS)
def test_cache_directory_belongs_to_the_user_the_config_runs_nginx_as(
    host, name, device, mount, fstype
):
    disk = LAYOUT[mount]
    assert (disk.dir, disk.owner, disk.group, disk.mode) == (
        f"{mount}/cache",
        "nginx",
        "nginx",
        "0700",
    )
    d = host.file(disk.dir)
    assert d.is_directory
    assert d.user == disk.owner
    assert d.group == disk.group
    assert d.mode == int(disk.mode, 8)
    # The directory is on the disk, not on the container's root filesystem.
    assert host.check_output(f"findmnt -n -o TARGET --target {mount}/cache").strip() == mount


READ_AHEAD_RULES = "/etc/udev/rules.d/70-tpgen-read-ahead.rules"


def read_ahead_sectors(host, device: str) -> int:
    return int(host.check_output(f"blockdev --getra {device}"))


def test_the_hdd_reads_ahead_its_floor_and_only_it_has_one(host):
    floor = LAYOUT["/srv/cache/d1"].read_ahead_kb
    assert floor is not None and 128 <= floor <= 1024
    assert LAYOUT["/srv/cache/d2"].read_ahead_kb is None, "an SSD keeps the kernel's read-ahead"
    # prepare left 128 KiB; the converge raised it (blockdev counts 512-byte sectors)
    assert read_ahead_sectors(host, "/dev/sdb") == 2 * floor
    rules = [
        line for line in host.file(READ_AHEAD_RULES).content_string.splitlines() if "ACTION" in line
    ]
    assert len(rules) == 1
    assert f'ENV{{ID_FS_UUID}}=="{blkid(host, "/dev/sdb", "UUID")}"' in rules[0]


def test_the_udev_rule_raises_a_lower_read_ahead_and_keeps_a_higher_one(host):
    floor = 2 * LAYOUT["/srv/cache/d1"].read_ahead_kb
    (rule,) = [
        line for line in host.file(READ_AHEAD_RULES).content_string.splitlines() if "ACTION" in line
    ]
    # What udev runs when the disk appears: RUN+="<command>", $$ for $, $devnode for the node.
    command = rule.split('RUN+="', 1)[1].rstrip('"')
    command = command.replace("$$", "$").replace("$devnode", "/dev/sdb")
    found = read_ahead_sectors(host, "/dev/sdb")  # the loop device is the host's: put it back
    try:
        for before, after in ((256, floor), (4 * floor, 4 * floor)):
            host.check_output(f"blockdev --setra {before} /dev/sdb")
            host.check_output(command)
            assert read_ahead_sectors(host, "/dev/sdb") == after
    finally:
        host.check_output(f"blockdev --setra {found} /dev/sdb")


def test_failed_disk_is_unmounted_and_left_alone(host):
    assert not host.mount_point("/srv/cache/d3").exists
    # Same filesystem as before the run (not reformatted), marker still on it, no cache dir.
    assert blkid(host, "/dev/sdd", "UUID") == host.file("/root/d3.uuid").content_string.strip()
    listing = host.check_output(
        "mkdir -p /mnt/d3-check && mount -o ro /dev/sdd /mnt/d3-check && ls -A /mnt/d3-check;"
        " umount /mnt/d3-check"
    )
    assert listing.split() == ["marker"]


@pytest.mark.parametrize(
    ("device", "found"),
    [
        ("/dev/sde", "it holds ext4"),
        ("/dev/sdf", "it holds data without a known signature"),
    ],
)
def test_refuses_to_format_a_device_that_holds_something_else(host, checks, device, found):
    before = (blkid(host, device, "UUID"), first_mib_sha256(host, device))
    result = checks.run_playbook(SCENARIO / "check-format.yml", {"check_device": device})
    assert result.returncode != 0, result.stdout
    assert f"Refusing to format disk check ({device}): {found}" in result.stdout
    assert "storage_disks_allow_format=true" in result.stdout
    assert (blkid(host, device, "UUID"), first_mib_sha256(host, device)) == before
    assert not host.mount_point("/srv/check").exists


def test_refuses_to_touch_a_disk_when_nginx_s_user_does_not_exist(host, checks):
    before = (blkid(host, "/dev/sde", "UUID"), first_mib_sha256(host, "/dev/sde"))
    result = checks.run_playbook(
        SCENARIO / "check-format.yml",
        {"check_device": "/dev/sde", "check_user": "tpgen-nobody"},
    )
    assert result.returncode != 0, result.stdout
    assert "has no user tpgen-nobody and no group tpgen-nobody." in result.stdout
    assert "Nothing was changed on the disks." in result.stdout
    assert (blkid(host, "/dev/sde", "UUID"), first_mib_sha256(host, "/dev/sde")) == before
    assert not host.mount_point("/srv/check").exists


# --- last: changes the junk disk ------------------------------------------------------------------


@pytest.fixture
def junk_disk_restored(host):
    """Put the junk disk back as prepare left it, so verify can run again."""
    yield
    host.run(
        "umount /srv/check; sed -i '\\| /srv/check |d' /etc/fstab;"
        " dd if=/dev/urandom of=/dev/sdf bs=1M count=1 conv=fsync status=none"
    )


def test_formats_a_used_device_only_when_allowed(host, checks, junk_disk_restored):
    result = checks.run_playbook(
        SCENARIO / "check-format.yml", {"check_device": "/dev/sdf", "check_allow_format": True}
    )
    assert result.returncode == 0, result.stdout
    assert blkid(host, "/dev/sdf", "TYPE") == "xfs"
    assert host.mount_point("/srv/check").filesystem == "xfs"
