"""tpgen discover: lsblk/meminfo parsing, disk choice with reasons, the YAML draft."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from tpgen import api
from tpgen.cli import main
from tpgen.ops import discover as d

from .conftest import unavailable

FIXTURES = Path(__file__).parent / "fixtures" / "ops"
GIB = 1024**3


def load_devices(name: str) -> list[d.BlockDevice]:
    return d.parse_lsblk((FIXTURES / name).read_text())


def storage_node(**kwargs: object) -> d.Discovery:
    options: dict[str, object] = {"hostname": "edge-ams-01", "cores": 24, "memory": 48 * GIB}
    options.update(kwargs)
    return d.discover(load_devices("lsblk-storage-node.json"), **options)  # type: ignore[arg-type]


def skipped_reasons(result: d.Discovery) -> dict[str, str]:
    return {s.device: s.reason for s in result.skipped}


# ----------------------------------------------------------------------------- parsing


def test_parse_lsblk_flattens_nothing_and_keeps_children() -> None:
    devices = load_devices("lsblk-storage-node.json")
    sda = next(dev for dev in devices if dev.name == "sda")
    assert [c.path for c in sda.children] == ["/dev/sda1", "/dev/sda2", "/dev/sda3"]
    assert [mp for mp, _ in sda.mounts()] == ["/boot/efi", "/", "[SWAP]"]
    assert sda.size == 480103981056 and sda.rotational is False


def test_parse_lsblk_old_all_string_format_with_single_mountpoint() -> None:
    vda, vdb = load_devices("lsblk-old-strings.json")
    assert vda.size == 21474836480 and vda.rotational is True
    assert vda.children[0].mountpoints == ("/",)
    assert vdb.rotational is False and vdb.mountpoints == ()


def test_parse_lsblk_from_this_host_capture() -> None:
    devices = load_devices("lsblk-this-host.json")
    vda = next(dev for dev in devices if dev.name == "vda")
    assert vda.mountpoints == ("/var/lib/docker", "/")
    zram = next(dev for dev in devices if dev.name == "zram0")
    assert zram.mountpoints == ()  # lsblk prints [null] for "not mounted"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "lsblk: output is not JSON"),
        ('{"devices": []}', 'no "blockdevices" list'),
        ('{"blockdevices": [{"name": "sda", "size": "4T"}]}', "run lsblk with -b"),
        ('{"blockdevices": [{"size": 1}]}', "a device without a name"),
    ],
)
def test_parse_lsblk_rejects_bad_input_with_a_message(text: str, message: str) -> None:
    with pytest.raises(d.DiscoverError, match=message):
        d.parse_lsblk(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"blockdevices": [{"name": "sdb", "size": ' + "9" * 5000 + "}]}",
            "lsblk: output is not lsblk's JSON: a number too long to read",
        ),
        (
            '{"blockdevices": [{"name": "sdb", "size": "' + "9" * 5000 + '"}]}',
            "lsblk: size is not a byte count: '" + "9" * 36 + "...' (run lsblk with -b)",
        ),
        (
            '{"blockdevices": [{"name": "sdb", "size": "\u00b2"}]}',
            "lsblk: size is not a byte count: '\u00b2' (run lsblk with -b)",
        ),
        (
            "[" * 100_000 + "]" * 100_000,
            "lsblk: devices nested deeper than Python reads: not lsblk's output",
        ),
        (
            '{"blockdevices": [' + '{"name": "a", "children": [' * 600 + "]}" * 600 + "]}",
            "lsblk: devices nested deeper than Python reads: not lsblk's output",
        ),
    ],
    ids=["json-5000-digits", "text-5000-digits", "superscript-two", "deep-json", "deep-tree"],
)
def test_lsblk_output_python_cannot_read_is_a_message_not_an_internal_error(
    text: str, message: str
) -> None:
    """int() refuses 5000 digits and "²" (a digit to str.isdigit), json.loads a deep nesting:
    each was an exit 3."""
    with pytest.raises(d.DiscoverError) as refused:
        d.parse_lsblk(text)
    assert str(refused.value) == message


def test_parse_meminfo_reads_ascii_digits_only() -> None:
    with pytest.raises(d.DiscoverError, match=r"^/proc/meminfo: no readable MemTotal line$"):
        d.parse_meminfo("MemTotal: \u00b2 kB\n")


def test_parse_meminfo_this_host() -> None:
    text = (FIXTURES / "meminfo-this-host.txt").read_text()
    assert d.parse_meminfo(text) == 24684092 * 1024
    assert d.format_memory(d.parse_meminfo(text)) == "24105MiB"  # = Ansible's memtotal_mb


def test_parse_meminfo_without_memtotal_fails() -> None:
    with pytest.raises(d.DiscoverError, match="MemTotal"):
        d.parse_meminfo("MemFree: 1 kB\n")


# ----------------------------------------------------------------------------- decisions


def test_storage_node_uses_the_empty_and_cache_disks_in_kernel_order() -> None:
    result = storage_node()
    assert [(c.device, c.name, c.mount, c.media) for c in result.disks] == [
        ("/dev/sdb", "d1", "/srv/cache/d1", "hdd"),
        ("/dev/sdc", "d2", "/srv/cache/d2", "hdd"),
        ("/dev/sdd", "d3", "/srv/cache/d3", "hdd"),
        ("/dev/sdf", "d4", "/srv/cache/d4", "ssd"),
        ("/dev/nvme0n1", "d5", "/srv/cache/d5", "nvme"),
    ]


def test_storage_node_skips_each_device_with_its_reason() -> None:
    assert skipped_reasons(storage_node()) == {
        "/dev/sda": "root disk (holds /)",
        "/dev/sde": "in use: mounted at /var/lib/postgresql",
        "/dev/sdg": "USB-attached (removable)",
        "/dev/sdh": "too small: 8.6 GB < 34.4 GB (--min-size)",
        "/dev/sr0": "not a whole disk (type rom)",
        "/dev/zram0": "RAM-backed block device, not storage",
        "/dev/sdi": "in use: mounted at /data",
    }


def test_every_device_is_either_used_or_skipped() -> None:
    result = storage_node()
    devices = load_devices("lsblk-storage-node.json")
    assert sorted([c.device for c in result.disks] + [s.device for s in result.skipped]) == sorted(
        dev.path for dev in devices
    )


def test_existing_xfs_is_kept_and_reported() -> None:
    sdd = next(c for c in storage_node().disks if c.device == "/dev/sdd")
    assert sdd.filesystem == "xfs"
    assert sdd.reason == "hdd (rotational), 8.0 TB, holds xfs (kept, not formatted)"


def test_disk_already_mounted_under_cache_root_keeps_name_and_mount() -> None:
    sdb = storage_node().disks[0]
    assert (sdb.name, sdb.mount) == ("d1", "/srv/cache/d1")
    assert "already mounted at /srv/cache/d1" in sdb.reason


def test_other_cache_root_turns_the_mounted_disk_into_in_use() -> None:
    result = storage_node(mount_root="/cache")
    assert skipped_reasons(result)["/dev/sdb"] == "in use: mounted at /srv/cache/d1"
    assert result.disks[0].mount == "/cache/d1"


def test_min_size_decides_the_small_disk() -> None:
    result = storage_node(min_size=8 * GIB)
    assert "/dev/sdh" in [c.device for c in result.disks]


def test_system_partitions_without_root_are_named() -> None:
    boot = d.BlockDevice(
        "sdx",
        "/dev/sdx",
        "disk",
        500 * GIB,
        True,
        children=(
            d.BlockDevice("sdx1", "/dev/sdx1", "part", GIB, True, ("/boot",)),
            d.BlockDevice("sdx2", "/dev/sdx2", "part", 8 * GIB, True, ("[SWAP]",)),
        ),
    )
    result = d.discover([boot], hostname="h", cores=1, memory=GIB)
    assert skipped_reasons(result) == {"/dev/sdx": "holds mounted system partitions: /boot, [SWAP]"}


def test_unmounted_partitions_and_foreign_filesystems_are_skipped() -> None:
    parted = d.BlockDevice(
        "sdx",
        "/dev/sdx",
        "disk",
        500 * GIB,
        True,
        children=(d.BlockDevice("sdx1", "/dev/sdx1", "part", 500 * GIB, True),),
    )
    ntfs = d.BlockDevice("sdy", "/dev/sdy", "disk", 500 * GIB, False, fstype="ntfs")
    raid = d.BlockDevice("sdz", "/dev/sdz", "disk", 500 * GIB, True, fstype="linux_raid_member")
    reasons = skipped_reasons(d.discover([parted, ntfs, raid], hostname="h", cores=1, memory=GIB))
    assert reasons["/dev/sdx"].startswith("has partitions or volumes (sdx1)")
    assert reasons["/dev/sdy"].startswith("holds a ntfs filesystem; wipe it first")
    assert reasons["/dev/sdz"] == "a RAID member; tpgen uses whole disks"


def test_loop_devices_only_with_include_loop() -> None:
    devices = load_devices("lsblk-this-host-loops.json")
    without = d.discover(devices, hostname="vm", cores=2, memory=GIB, min_size=GIB)
    assert without.disks == ()
    assert skipped_reasons(without)["/dev/loop2"].startswith("loop device")
    with_loops = d.discover(
        devices, hostname="vm", cores=2, memory=GIB, min_size=GIB, include_loop=True
    )
    assert [(c.device, c.media, c.size) for c in with_loops.disks] == [
        ("/dev/loop2", "hdd", 2 * GIB)
    ]
    reasons = skipped_reasons(with_loops)
    assert reasons["/dev/loop1"] == "in use: mounted at /var/tmp/tpgen-ops/m1"
    assert reasons["/dev/loop3"].startswith("too small: 210 MB")
    assert reasons["/dev/vda"] == "root disk (holds /)"


@pytest.mark.parametrize(
    ("rotational", "name", "tran", "media"),
    [
        (True, "sdb", "sas", "hdd"),
        (False, "nvme0n1", None, "nvme"),
        (False, "sdc", "nvme", "nvme"),
        (False, "sdc", "sata", "ssd"),
        (False, "vdb", None, "ssd"),
        (True, "nvme1n1", "nvme", "hdd"),
    ],
)
def test_classify_media(rotational: bool, name: str, tran: str | None, media: str) -> None:
    dev = d.BlockDevice(name, f"/dev/{name}", "disk", GIB, rotational, tran=tran)
    assert d.classify_media(dev) == media


@pytest.mark.parametrize(
    ("size", "text"),
    [(2 * GIB, "2GiB"), (200 * 1024**2, "200MiB"), (4000787030016, "4000GB"), (4096, "4096")],
)
def test_format_size_never_overstates(size: int, text: str) -> None:
    assert d.format_size(size) == text


@pytest.mark.parametrize(
    ("hostname", "name"),
    [("Edge_AMS-01.Example.NET", "edge-ams-01.example.net"), ("--", "node"), ("vm", "vm")],
)
def test_sanitize_node_name(hostname: str, name: str) -> None:
    assert d.sanitize_node_name(hostname) == name


def test_names_skip_one_already_taken_by_an_existing_mount() -> None:
    mounted = d.BlockDevice("sdb", "/dev/sdb", "disk", 100 * GIB, True, ("/srv/cache/d2",), "xfs")
    empty = d.BlockDevice("sdc", "/dev/sdc", "disk", 100 * GIB, True)
    empty2 = d.BlockDevice("sdd", "/dev/sdd", "disk", 100 * GIB, True)
    result = d.discover([empty, mounted, empty2], hostname="h", cores=1, memory=GIB)
    assert [c.name for c in result.disks] == ["d1", "d2", "d3"]
    assert [c.device for c in result.disks] == ["/dev/sdc", "/dev/sdb", "/dev/sdd"]


# ----------------------------------------------------------------------------- output


def test_draft_yaml_loads_back_to_the_spec_mapping() -> None:
    result = storage_node()
    text = d.render_draft(result, generated_at="2026-11-21 18:00 UTC")
    assert yaml.safe_load(text) == result.spec_mapping()
    assert "#   /dev/sda: root disk (holds /)" in text
    assert "  # /dev/sdc: hdd (rotational), 4.0 TB, empty\n  - name: d2\n" in text


def test_draft_yaml_without_disks_says_so() -> None:
    result = d.discover([], hostname="h", cores=1, memory=GIB)
    text = d.render_draft(result)
    assert yaml.safe_load(text)["disks"] == []
    assert "no usable disk found" in text


def test_a_mount_point_with_a_newline_stays_in_its_comment() -> None:
    """The kernel's text in a comment: a newline in a mount point ended the comment and put the
    rest into the draft as YAML."""
    devices = d.parse_lsblk(
        json.dumps(
            {
                "blockdevices": [
                    {"name": "sdb", "type": "disk", "size": 64 * GIB, "rota": True},
                    {
                        "name": "sdc",
                        "type": "disk",
                        "size": 64 * GIB,
                        "mountpoints": ["/mnt/x\ndisks: []"],
                    },
                ]
            }
        )
    )
    result = d.discover(devices, hostname="h", cores=1, memory=GIB)
    text = d.render_draft(result)
    assert yaml.safe_load(text) == result.spec_mapping()
    assert "#   /dev/sdc: in use: mounted at /mnt/x\\ndisks: []\n" in text


def test_draft_is_a_valid_spec_for_the_generator() -> None:
    spec = api.spec_from_mapping(yaml.safe_load(d.render_draft(storage_node())), "draft")
    assert [disk.name for disk in spec.disks] == ["d1", "d2", "d3", "d4", "d5"]


@pytest.mark.parametrize(
    ("option", "mounts"),
    [("/", "/d"), ("/srv/", "/srv/d"), ("/srv", "/srv/d"), ("/srv/cache", "/srv/cache/d")],
)
def test_every_mount_root_the_cli_takes_gives_a_draft_that_validates(
    option: str, mounts: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, object] = {}
    monkeypatch.setattr(
        "tpgen.commands.discover.run_discover", lambda **kwargs: seen.update(kwargs) or 0
    )
    assert main(["discover", "--mount-root", option]) == 0
    result = storage_node(mount_root=str(seen["mount_root"]))
    spec = api.spec_from_mapping(yaml.safe_load(d.render_draft(result)), "draft")
    made = [disk.mount for disk in spec.disks if disk.mount != "/srv/cache/d1"]  # d1 is kept
    assert made == [f"{mounts}{disk.name[1:]}" for disk in spec.disks if disk.mount in made]
    assert len(made) >= 4


@pytest.mark.parametrize(
    ("option", "reason"),
    [
        ("srv/cache", "an absolute path"),
        ("", "an absolute path"),
        ("/srv/my cache", "'/srv/my cache/d1' is not an absolute path (parts of letters"),
        ("/srv/$x", "'/srv/$x/d1' is not an absolute path (parts of letters"),
        ("/srv/../etc", "'/srv/../etc/d1': a path nginx.conf names holds no '..'"),
        ("/etc", "/etc/d1 is in the system's /etc: mount data disks elsewhere"),
        ("/var/lib/dpkg", "/var/lib/dpkg/d1 is in the system's /var/lib/dpkg"),
    ],
)
def test_a_mount_root_no_draft_could_use_is_one_line_exit_2(
    option: str, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["discover", "--mount-root", option]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tpgen discover: --mount-root: {option!r}: {reason}")
    assert len(err.splitlines()) == 1


def test_json_output_lists_reasons() -> None:
    payload = storage_node().to_json()
    assert payload["used"][1] == {
        "device": "/dev/sdc",
        "name": "d2",
        "reason": "hdd (rotational), 4.0 TB, empty",
    }
    assert {"device": "/dev/sr0", "reason": "not a whole disk (type rom)"} in payload["skipped"]
    json.dumps(payload)


@pytest.mark.parametrize("value", ["yes", "1.5", "12:30", "a b", "", "#x", "on"])
def test_yaml_scalar_quotes_what_yaml_would_misread(value: str) -> None:
    assert yaml.safe_load(f"k: {d.yaml_scalar(value)}") == {"k": value}


def _host(*args: str) -> str:
    """This host's own answer to a question, asked without tpgen (the test's independent view)."""
    if shutil.which(args[0]) is None:
        unavailable(f"needs {args[0]} (util-linux / coreutils)")
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def _whole_disk_of(source: str) -> str:
    """The top-level block device under a mounted device node (through partitions, dm, md)."""
    device = source
    while parent := _host("lsblk", "-ndo", "PKNAME", device).strip().splitlines():
        device = f"/dev/{parent[0]}"
    return device


def _root_source() -> str | None:
    found = ""
    for line in Path("/proc/mounts").read_text().splitlines():
        source, mountpoint = line.split()[:2]
        if mountpoint == "/":
            found = source
    # overlay or tmpfs in a container, or a /dev/root that names no device node
    return found if found.startswith("/dev/") and Path(found).exists() else None


def test_run_discover_on_this_host_describes_this_host() -> None:
    out, err = io.StringIO(), io.StringIO()
    code = d.run_discover(as_json=True, out=out, err=err, min_size=0)
    assert err.getvalue() == ""
    payload = json.loads(out.getvalue())
    node = payload["spec"]["node"]
    assert node["cores"] == int(_host("nproc"))
    kib = next(
        int(line.split()[1])
        for line in Path("/proc/meminfo").read_text().splitlines()
        if line.startswith("MemTotal:")
    )
    exact_gib = kib % 1024**2 == 0
    assert node["memory"] == (f"{kib // 1024**2}GiB" if exact_gib else f"{kib // 1024}MiB")
    assert node["name"] == d.sanitize_node_name(_host("uname", "-n").strip())
    # every whole device lsblk lists is either used or skipped with a reason; loop devices come
    # and go with other tests and the benchmark, so they are left out of the comparison
    listed = {
        path
        for path, kind in (
            line.split() for line in _host("lsblk", "-dn", "-o", "PATH,TYPE").splitlines()
        )
        if kind != "loop"
    }
    reported = [e["device"] for e in payload["used"] + payload["skipped"]]
    assert {dev for dev in reported if not dev.startswith("/dev/loop")} == listed
    assert len(reported) == len(set(reported))
    assert code == (0 if payload["used"] else 1)
    root = _root_source()
    if root is not None:
        skipped = {e["device"]: e["reason"] for e in payload["skipped"]}
        assert skipped[_whole_disk_of(root)] == "root disk (holds /)"
    draft = io.StringIO()
    assert d.run_discover(out=draft, err=io.StringIO(), min_size=0) == code
    assert yaml.safe_load(draft.getvalue())["node"] == node


def test_run_discover_rejects_a_bad_min_size() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert d.run_discover(min_size="lots", out=out, err=err) == 2
    assert err.getvalue().startswith("tpgen discover: --min-size: 'lots' is not a size")
    assert out.getvalue() == ""


def test_run_discover_takes_min_size_with_a_unit() -> None:
    _host("lsblk", "--version")
    out = io.StringIO()
    code = d.run_discover(
        as_json=True, min_size="1PB", include_loop=True, out=out, err=io.StringIO()
    )
    payload = json.loads(out.getvalue())
    assert (code, payload["used"]) == (1, [])  # no disk of this machine holds a petabyte
    too_small = [s["reason"] for s in payload["skipped"] if s["reason"].startswith("too small")]
    assert all(reason.endswith("< 1000 TB (--min-size)") for reason in too_small)


def test_a_hung_lsblk_is_a_discover_error_not_a_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    from tpgen.ops.discover import host

    def hung(argv: list[str], **kwargs: object) -> None:
        assert kwargs.get("timeout") == host.LSBLK_SECONDS
        raise subprocess.TimeoutExpired(argv, host.LSBLK_SECONDS)

    monkeypatch.setattr(host.subprocess, "run", hung)
    with pytest.raises(d.DiscoverError, match=r"^lsblk did not answer in 30 s \(a hung device\?\)"):
        d.probe_host()


# --------------------------------------------------------------- the draft as validate sees it

HOSTILE_SKIPPED = [
    "#   /dev/sd c: refused by tpgen validate: device: '/dev/sd c' is not a device path (/dev/, "
    "then letters, digits and / _ . : + -): write e.g. /dev/sdb or "
    "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4",
    "#   /dev/sdd: refused by tpgen validate: size: 8,589,934,592,000,000,000 bytes is outside "
    "64MiB … 1PiB: write a size in that range (k = 1000, KiB = 1024)",
    "#   /dev/sde: refused by tpgen validate: name: 'default' is a keyword of nginx's map block, "
    "where disk names are keys (default, hostnames, include, volatile are reserved): pick "
    "another name, e.g. default1",
    "#   /dev/sdb: refused by tpgen validate: device: '/dev/sdb' is already used by d1 "
    "(/dev/sdb): each disk needs its own device",
    "#   /dev/sdg: refused by tpgen validate: name: 'd7' is already used by d7 (/dev/sdf): each "
    "disk needs its own name",
    "#   /dev/sdh: refused by tpgen validate: mount: /srv/cache/a/d7/inner is inside d7's mount "
    "/srv/cache/a/d7: mount each disk at its own top-level directory",
]


def _probe(monkeypatch: pytest.MonkeyPatch, lsblk: str, memory_kb: int = 32 * 1024**2) -> None:
    from tpgen.ops.discover import host

    probe = d.HostProbe(lsblk, f"MemTotal: {memory_kb} kB\n", 8, "edge-1")
    monkeypatch.setattr(host, "probe_host", lambda: probe)


def _draft(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["discover", "--min-size", "0", *args])
    out = capsys.readouterr().out
    (tmp_path / "draft.yaml").write_text(out)
    return code, out


def test_a_disk_validate_refuses_is_skipped_with_validates_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hostile lsblk (a name with a space, a device listed twice, an exabyte, kept mounts
    named default, twice d7, one inside another): each disk the draft cannot hold is a skipped
    device with validate's line, and what discover writes validates."""
    _probe(monkeypatch, (FIXTURES / "lsblk-hostile.json").read_text())
    code, out = _draft(tmp_path, capsys)
    assert code == 0
    assert out.splitlines()[out.splitlines().index("# Skipped devices:") + 1 :] == HOSTILE_SKIPPED
    assert [disk["device"] for disk in yaml.safe_load(out)["disks"]] == ["/dev/sdb", "/dev/sdf"]
    assert main(["validate", str(tmp_path / "draft.yaml")]) == 0
    assert main(["discover", "--min-size", "0", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [s["reason"] for s in payload["skipped"]] == [
        line[4:].split(": ", 1)[1] for line in HOSTILE_SKIPPED
    ]
    assert payload["refused"] == []


def test_a_draft_validate_refuses_beyond_its_disks_says_why_at_its_top_and_exits_1(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _probe(monkeypatch, (FIXTURES / "lsblk-storage-node.json").read_text(), memory_kb=1)
    code, out = _draft(tmp_path, capsys)
    refused = (
        "node.memory: 0 bytes is outside 256MiB … 64TiB: write a size in that range "
        "(k = 1000, KiB = 1024)"
    )
    assert (code, out.splitlines()[3]) == (1, f"# tpgen validate refuses this draft: {refused}")
    assert main(["validate", str(tmp_path / "draft.yaml")]) == 2
    assert capsys.readouterr().err == f"{tmp_path / 'draft.yaml'}:8: {refused}\n"


def test_a_draft_whose_every_disk_validate_refuses_has_none_and_exits_1(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = {"name": "sd c", "type": "disk", "size": 64 * GIB, "rota": True}
    _probe(monkeypatch, json.dumps({"blockdevices": [odd]}))
    code, out = _draft(tmp_path, capsys)
    assert code == 1
    assert "disks: []  # no usable disk found: add disks by hand (see docs/spec.md)\n" in out
    assert out.endswith(f"{HOSTILE_SKIPPED[0]}\n")
    assert main(["discover", "--min-size", "0", "--json"]) == 1
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert notes == ["no usable disk found: add disks by hand (see docs/spec.md)"]
