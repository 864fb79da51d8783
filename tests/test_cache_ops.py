"""Issue 13's rules, one behaviour each: slices, the cache policy, the loader and manager,
origins, logs, locate --offset and purge's refusals (the live ones: test_live_cache_ops.py)."""

from __future__ import annotations

import io
import os
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from tpgen.check import check_plan
from tpgen.cli import main
from tpgen.ops.purge import MAX_OBJECT_BYTES, cache_file, entry_file, slice_range
from tpgen.plan import Decision

from .conftest import ROOT
from .specs import disk, spec
from .test_values import plan_of, refusal

MIB = 1 << 20


def _cache(**sections: Any) -> dict[str, Any]:
    return spec("cache", **sections)


# ----------------------------------------------------------------------------- slices
@pytest.mark.parametrize(
    ("size", "setting", "sliced"),
    [("1MiB", None, None), ("7MiB", None, None), ("8MiB", None, MIB), ("64MiB", "auto", MIB),
     ("64MiB", "off", None), ("1MiB", "256KiB", 256 << 10)],
)  # fmt: skip
def test_auto_slices_objects_of_8mib_and_more_in_1mib(
    size: str, setting: str | None, sliced: int | None
) -> None:
    workload: dict[str, Any] = {"avg_object_size": size}
    if setting:
        workload["slice"] = setting
    plan = plan_of(_cache(workload=workload))
    assert (plan.slice_size.value if plan.slice_size else None) == sliced
    assert plan.proxy_cache_key is not None
    assert plan.proxy_cache_key.value.endswith("$slice_range") == bool(sliced)
    # the disk is picked per object: the split key never holds the range
    assert "$slice_range" not in plan.split_key.value
    assert plan.proxy_cache_background_update is not None
    assert plan.proxy_cache_background_update.value == ("off" if sliced else "on")


def test_the_keys_zone_counts_one_key_per_slice() -> None:
    whole = plan_of(_cache(workload={"avg_object_size": "64MiB", "slice": "off"}))
    sliced = plan_of(_cache(workload={"avg_object_size": "64MiB", "slice": "1MiB"}))
    zones = [p.disks[0].cache for p in (whole, sliced)]
    assert zones[0] is not None and zones[1] is not None
    assert zones[1].keys_zone_mb.value > 60 * zones[0].keys_zone_mb.value
    assert "slices of 1.0 MiB fit" in zones[1].keys_zone_mb.because


def test_a_sliced_node_whose_keys_do_not_fit_is_told_to_raise_the_slice() -> None:
    data = _cache(workload={"avg_object_size": "64MiB", "slice": "64KiB"})
    (line,) = refusal(data)
    assert "raise workload.slice (one key per slice)" in line


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("65000", "'65000': a slice is auto, off, or a size of 64KiB … 1GiB in whole 4KiB steps"),
        (65536 + 512, "66048: a slice is auto, off, or a size of 64KiB"),
        ("32KiB", "'32KiB': a slice is auto, off, or a size"),
        ("2GiB", "'2GiB': a slice is auto, off, or a size"),
        ("auto-ish", "'auto-ish' is not a size"),
    ],
)
def test_slice_sizes_outside_64k_1g_or_off_4k_are_refused(value: object, message: str) -> None:
    (line,) = refusal(_cache(workload={"slice": value}))
    assert line.startswith(f"t.yaml: workload.slice: {message}")


def test_background_update_with_a_slice_and_a_valid_without_206_are_refused() -> None:
    data = _cache(
        workload={"slice": "1MiB"},
        cache={"background_update": True, "valid": [{"status": [200], "time": "1h"}]},
    )
    assert refusal(data) == [
        "t.yaml: cache.background_update: with workload.slice a background update refetches the "
        "whole object for one slice (nginx/nginx#911): remove it (tpgen turns it off with "
        "slices)",
        "t.yaml: cache.valid: with workload.slice every slice is a 206 answer: add 206 to a "
        "status list, or nothing is cached",
    ]


def test_slice_on_an_origin_node_is_refused() -> None:
    assert refusal(spec("origin", workload={"slice": "1MiB"})) == [
        "t.yaml: workload.slice: has no effect on an origin node (only cache uses it): remove it"
    ]


# ----------------------------------------------------------------------- cache policy
@pytest.mark.parametrize(
    ("cache", "expected"),
    [
        ({"valid": [{"status": [299], "time": "1m"}]}, "t.yaml: cache.valid.0.status.0: 299 is "
         "not a status nginx caches: use any or one of 200 203 204 206 300 301 302 303 307 308 "
         "404 405 410 414 501"),
        ({"lock_timeout": "-5s"}, "t.yaml: cache.lock_timeout: '-5s' is not an nginx duration"),
        ({"valid": [{"status": [200], "time": -1}]}, "t.yaml: cache.valid.0.time: a duration "
         "cannot be negative"),
        ({"bypass": {}}, "t.yaml: cache.bypass: names neither a header nor a cookie"),
        ({"bypass": {"header": "X Y"}}, "t.yaml: cache.bypass.header: 'X Y' is not a header name"),
        ({"trusted_networks": ["10.0.0.1/8"]}, "t.yaml: cache.trusted_networks.0: '10.0.0.1/8' "
         "is not a network in CIDR form with its host bits zero"),
    ],
)  # fmt: skip
def test_bad_cache_policy_is_refused_with_its_field(cache: dict[str, Any], expected: str) -> None:
    (line,) = refusal(_cache(cache=cache))
    assert line.startswith(expected)


def test_the_policy_keys_replace_the_rules() -> None:
    plan = plan_of(
        _cache(
            cache={
                "valid": [{"status": [200, 206], "time": "1d"}, {"status": ["any"], "time": 0}],
                "min_uses": 2,
                "use_stale": [],
                "bypass": {"header": "X-No-Cache", "cookie": "nc"},
                "ignore_headers": ["Vary"],
            }
        )
    )
    assert plan.proxy_cache_valid is not None and plan.proxy_cache_min_uses is not None
    assert plan.proxy_cache_valid.value == (((200, 206), "1d"), (("any",), "0"))
    assert plan.proxy_cache_min_uses.value == 2
    assert plan.proxy_cache_use_stale is not None
    assert plan.proxy_cache_use_stale.value == ("off",)
    assert plan.proxy_cache_bypass is not None
    assert plan.proxy_cache_bypass.value == ("$http_x_no_cache", "$cookie_nc")


def test_debug_headers_go_to_loopback_and_trusted_networks_unless_asked_for_everyone() -> None:
    plan = plan_of(_cache(cache={"trusted_networks": ["10.0.0.0/8"]}))
    assert plan.trusted_networks is not None and plan.cache_headers is not None
    assert plan.trusted_networks.value == ("127.0.0.0/8", "::1/128", "10.0.0.0/8")
    assert plan.cache_headers.value == (
        ("X-Cache-Status", "$tpgen_cache_status"),
        ("X-Cache-Disk", "$tpgen_cache_disk"),
    )
    everyone = plan_of(_cache(cache={"debug_headers": True}))
    assert everyone.trusted_networks is None and everyone.cache_headers is not None
    assert everyone.cache_headers.value[1] == ("X-Cache-Disk", "$tpgen_disk")


# ------------------------------------------------------------------ loader and manager
def test_the_loader_indexes_a_zone_in_about_3600_iterations_and_the_manager_keeps_up() -> None:
    plan = plan_of(_cache(workload={"avg_object_size": "32KiB"}, node={"memory": "256GiB"}))
    zone = plan.disks[0].cache
    assert zone is not None and zone.loader_files and zone.manager_files
    files = zone.max_size.value // (32 << 10)
    assert zone.loader_files.value == min(10_000, -(-files // 3600))
    assert zone.manager_files.value == (50 << 20) // (32 << 10)  # an HDD's 50 MiB an iteration
    small = plan_of(_cache(disks=1, workload={"avg_object_size": "64MiB", "slice": "off"}))
    small_zone = small.disks[0].cache
    assert small_zone is not None and small_zone.loader_files and small_zone.manager_files
    assert (small_zone.loader_files.value, small_zone.manager_files.value) == (100, 100)


# ---------------------------------------------------------------------------- origins
def test_origin_defaults_fail_over_fast_and_bound_the_wait() -> None:
    data = _cache(workload={"upstreams": ["192.0.2.1:80", "192.0.2.2:80"]})
    plan = plan_of(data)
    assert plan.proxy_connect_timeout is not None and plan.proxy_next_upstream_timeout
    assert plan.proxy_next_upstream_tries is not None and plan.proxy_next_upstream
    assert plan.proxy_connect_timeout.value == "5s"
    assert plan.proxy_next_upstream_tries.value == 2
    assert plan.proxy_next_upstream_timeout.value == "10s"
    assert "http_502" in plan.proxy_next_upstream.value
    assert [u.parameters for u in plan.upstreams] == [("max_fails=1", "fail_timeout=10s")] * 2


@pytest.mark.parametrize(("cores", "keepalive"), [(1, 64), (8, 64), (24, 21), (200, 8)])
def test_keepalive_shares_512_idle_connections_among_the_workers(
    cores: int, keepalive: int
) -> None:
    data = _cache(node={"cores": cores, "memory": "64GiB"}, tuning={"worker_processes": cores})
    data["disks"] = [disk(1, media="ssd")]
    plan = plan_of(data)
    assert plan.upstream_keepalive is not None
    assert plan.upstream_keepalive.value == keepalive


def test_max_fails_0_is_kept_per_server_and_node_wide() -> None:
    upstreams = ["192.0.2.1:80", "192.0.2.2:80", "192.0.2.3:80"]
    own = {upstreams[0]: {"max_fails": 0}, upstreams[1]: {"max_fails": 2}}
    plan = plan_of(
        _cache(workload={"upstreams": upstreams}, origin={"max_fails": 3, "servers": own})
    )
    assert [u.max_fails for u in plan.upstreams] == [0, 2, 3]
    plan = plan_of(_cache(workload={"upstreams": upstreams}, origin={"max_fails": 0}))
    assert [u.max_fails for u in plan.upstreams] == [0, 0, 0]


def test_per_server_options_backup_and_tls() -> None:
    upstreams = ["a.example.net:443", "b.example.net:443"]
    plan = plan_of(
        _cache(
            workload={"upstreams": upstreams},
            origin={
                "servers": {upstreams[1]: {"backup": True, "weight": 2, "fail_timeout": "30s"}},
                "tls": True,
                "server_name": "origin.example.net",
            },
        )
    )
    assert [u.parameters for u in plan.upstreams] == [
        ("max_fails=1", "fail_timeout=10s"),
        ("weight=2", "max_fails=1", "fail_timeout=30s", "backup"),
    ]
    assert plan.origin_scheme is not None and plan.proxy_ssl_name is not None
    assert (plan.origin_scheme.value, plan.proxy_ssl_name.value) == ("https", "origin.example.net")


@pytest.mark.parametrize(
    ("origin", "expected"),
    [
        ({"servers": {"other.example.net:80": {"backup": True}}},
         "t.yaml: origin.servers.\"other.example.net:80\": is not one of workload.upstreams"),
        ({"servers": {"origin.example.net:8080": {"backup": True}}},
         "t.yaml: origin.servers.\"origin.example.net:8080\": every upstream is a backup"),
        ({"ca_file": "/etc/ca.pem"}, "t.yaml: origin.ca_file: has no effect without origin.tls"),
        ({"connect_timeout": "-1s"}, "t.yaml: origin.connect_timeout: '-1s' is not an nginx"),
    ],
)  # fmt: skip
def test_bad_origin_settings_are_refused(origin: dict[str, Any], expected: str) -> None:
    lines = refusal(_cache(origin=origin))
    assert any(line.startswith(expected) for line in lines), lines


def test_tls_to_ip_upstreams_needs_a_server_name() -> None:
    data = _cache(workload={"upstreams": ["192.0.2.1:443"]}, origin={"tls": True})
    assert refusal(data) == [
        "t.yaml: origin.tls: the origins' certificate is checked for one name and these "
        "upstreams have none or several: add origin.server_name: the name in the certificate"
    ]


# ------------------------------------------------------------------------------- logs
def test_the_log_formats() -> None:
    default = plan_of(_cache())
    assert default.access_log_format.value == "tpgen"
    ((name, escape, text),) = default.log_formats.value
    assert (name, escape) == ("tpgen", "default")
    assert text.startswith('$remote_addr - $remote_user [$time_local] "$request" ')
    assert "cache=$upstream_cache_status disk=$tpgen_disk" in text
    json_plan = plan_of(_cache(logging={"format": "json", "path": "/var/log/x.json"}))
    assert json_plan.log_formats.value[0][:2] == ("tpgen_json", "json")
    assert json_plan.access_log == "/var/log/x.json"
    combined = plan_of(spec("origin", logging={"format": "combined"}))
    assert (combined.access_log_format.value, combined.log_formats.value) == ("combined", ())


# ------------------------------------------------------------- cache files, locate, purge
def test_cache_files_follow_nginx_levels_from_the_end_of_the_md5() -> None:
    # md5("httpexample.com/a") = 7d6b0a4c... ; nginx's docs: levels=1:2 gives /c/29/…29c
    path = cache_file("/z", "1:2", b"httpexample.com/a")
    digest = path.rsplit("/", 1)[1]
    assert path == f"/z/{digest[-1]}/{digest[-3:-1]}/{digest}"
    assert slice_range(MIB, 0) == "bytes=0-1048575"
    assert slice_range(MIB, 5 * MIB + 1) == "bytes=5242880-6291455"
    target = {"key": "k", "dir": "/z", "levels": "1:2", "slice_bytes": MIB}
    assert entry_file(target, MIB) == (
        "bytes=1048576-2097151",
        cache_file("/z", "1:2", b"kbytes=1048576-2097151"),
    )


@pytest.mark.parametrize(
    ("claimed", "looked_for"), [(3 << 30, 3), (10**16, MAX_OBJECT_BYTES >> 30)]
)
def test_purge_looks_for_the_slices_the_cached_length_names_but_no_more_than_the_cap(
    claimed: int, looked_for: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hostile origin's Content-Range (10^16 bytes) must not make purge probe 10^7 slices."""
    import tpgen.ops.purge as purge_module

    gib = 1 << 30
    target = {"key": "k", "dir": str(tmp_path), "levels": "1:2", "slice_bytes": gib}
    first = Path(entry_file(target)[1])
    first.parent.mkdir(parents=True)
    first.write_bytes(b"\r\nContent-Range: bytes 0-%d/%d\r\n" % (gib - 1, claimed))
    probed: list[str] = []
    real_lstat = purge_module.os.lstat

    def counted(path: str) -> os.stat_result:
        probed.append(path)
        return real_lstat(path)

    monkeypatch.setattr(purge_module.os, "lstat", counted)
    assert purge_module.cached_files(target, probe_bytes=gib) == [str(first)]
    # each slice's file (named by its md5) is looked at once; the levels only of the one there
    assert len([path for path in probed if len(os.path.basename(path)) == 32]) == looked_for


def _run(args: list[str]) -> tuple[int, str, str]:
    import contextlib

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def test_locate_offset_prints_the_slice_and_file(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(_cache(workload={"avg_object_size": "64MiB"})))
    code, out, _ = _run(["locate", str(path), "httpx/a.mp4", "--offset", "5MiB"])
    assert code == 0
    key, _, disk_name, part, file = out.rstrip("\n").split("\t")
    assert (key, part) == ("httpx/a.mp4", "bytes=5242880-6291455")
    assert file.startswith(f"/srv/cache/{disk_name}/cache/")
    assert file == cache_file(
        f"/srv/cache/{disk_name}/cache", "1:2", b"httpx/a.mp4" + part.encode()
    )


@pytest.mark.parametrize("workload", ["origin", "vod"])
def test_locate_offset_and_purge_refuse_an_origin_or_vod_node(
    tmp_path: Path, workload: str
) -> None:
    # --offset's refusal names the command and the option, as its parse errors do.
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(spec(workload)))
    assert _run(["locate", str(path), "/a", "--offset", "1"])[::2] == (
        2,
        f"tpgen locate: --offset: this {workload} node keeps no cache files: locate a URI "
        "without it\n",
    )
    assert _run(["locate", str(path), "/a", "--offset", "x"])[::2] == (
        2,
        "tpgen locate: --offset: 'x' is not a size: write a number with a unit, like 4TB, "
        "48GiB, 1MiB\n",
    )
    assert _run(["locate", str(path), "/a", "--offset", "1.5"])[::2] == (
        2,
        "tpgen locate: --offset: '1.5' is 1.5 bytes, and a size is whole bytes: write 1 or 2\n",
    )
    assert _run(["purge", str(path), "/a"])[::2] == (
        2,
        f"tpgen: this {workload} node keeps no cache: purge runs on cache nodes\n",
    )


# ------------------------------------------------------------------------ media types
def test_tpgens_types_add_to_the_bundled_map_without_a_duplicate() -> None:
    import re

    from tpgen.plan.defaults import MIME_TYPES

    bundled = (ROOT / "generator" / "tpgen" / "data" / "mime.types").read_text()
    theirs = {
        ext
        for match in re.finditer(r"^\s*[a-z]+/\S+\s+([^;]+);", bundled, re.MULTILINE)
        for ext in match.group(1).split()
    }
    assert len(theirs) > 100 and {"svg", "woff2", "mp4", "m3u8", "ts"} <= theirs
    ours = [ext for _, exts in MIME_TYPES for ext in exts]
    assert len(ours) == len(set(ours))
    assert not set(ours) & theirs
    assert {"m4s", "mpd", "vtt", "aac"} <= set(ours)
    plan = plan_of(spec("vod"))
    assert plan.mime_types_file.value == "/etc/nginx/mime.types"


def test_auto_doubles_the_slice_until_the_keys_fit_the_ram_budget() -> None:
    # three 4 TB disks, 4 GiB: 1 MiB slices need ~1.3 GB of keys zones, the budget is 819 MB
    plan = plan_of(_cache(workload={"avg_object_size": "64MiB"}, node={"memory": "4GiB"}))
    assert plan.slice_size is not None and plan.slice_size.value == 2 * MIB
    assert "(1.0 MiB slices would need 1,290 MB of keys zones, over the 819 MB budget)" in (
        plan.slice_size.because
    )
    assert plan.keys_zone_budget_mb is not None
    assert sum(d.cache.keys_zone_mb.value for d in plan.disks if d.cache) <= 819
    # when no slice smaller than the objects fits, objects are fetched whole
    whole = plan_of(_cache(workload={"avg_object_size": "8MiB"}, node={"memory": "1GiB"}))
    assert whole.slice_size is None


def test_purge_refuses_a_probe_it_would_take_minutes_to_look_through() -> None:
    code, _, err = _run(
        ["purge", str(ROOT / "examples" / "cache-media-slice.yaml"), "k", "--probe-size", "1PiB"]
    )
    assert code == 2
    assert err == "tpgen purge: --probe-size: '1PiB': at most 256GiB\n"


def _spec_on(tmp_path: Path, avg_object_size: str = "1MiB") -> Path:
    """A cache spec whose disks are directories under tmp_path/cache."""
    data = _cache(workload={"avg_object_size": avg_object_size})
    for entry in data["disks"]:
        entry["mount"] = str(tmp_path / "cache" / entry["name"])
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _cached(spec_path: Path, key: str, content: bytes = b"nginx's\n") -> Path:
    """The key's (first) cache file, written where nginx would."""
    _, out, _ = _run(["locate", str(spec_path), key, "--offset", "0"])
    path = Path(out.rstrip("\n").split("\t")[-1])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return path


@pytest.mark.parametrize("dry_run", [[], ["--dry-run"]])
def test_purge_removes_nothing_through_a_link_in_the_cache(
    tmp_path: Path, dry_run: list[str]
) -> None:
    """A level directory linked out of the cache: unlinking through it removed a file outside
    the cache. Refused before any key's file is removed."""
    spec_path = _spec_on(tmp_path)
    kept = _cached(spec_path, "httpx/kept")
    linked = _cached(spec_path, "httpx/linked")
    outside = tmp_path / "outside"
    shutil.move(linked.parent, outside)
    linked.parent.symlink_to(outside)
    code, out, err = _run(["purge", str(spec_path), *dry_run, "httpx/kept", "httpx/linked"])
    assert (code, out) == (2, "")
    assert err == (
        f"tpgen: {linked.parent}: is a symbolic link, not what nginx writes in its cache: purge "
        "removes nothing; move it away by hand\n"
    )
    assert (outside / linked.name).read_bytes() == b"nginx's\n"
    assert kept.read_bytes() == b"nginx's\n"


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda path: path.mkdir(), "is a directory"),
        (lambda path: os.mkfifo(path), "is not a regular file"),
        (lambda path: path.symlink_to("/etc/passwd"), "is a symbolic link"),
    ],
)
@pytest.mark.parametrize("size", ["1MiB", "64MiB"])  # unsliced, sliced
def test_purge_refuses_a_cache_file_name_nginx_did_not_write(
    tmp_path: Path, make: Any, kind: str, size: str
) -> None:
    """--dry-run listed a directory it would remove, then the purge failed on it."""
    spec_path = _spec_on(tmp_path, size)
    path = _cached(spec_path, "httpx/a")
    path.unlink()
    make(path)
    for dry_run in ([], ["--dry-run"]):
        assert _run(["purge", str(spec_path), *dry_run, "httpx/a"]) == (
            2,
            "",
            f"tpgen: {path}: {kind}, not what nginx writes in its cache: purge removes nothing; "
            "move it away by hand\n",
        )
    assert Path("/etc/passwd").is_file()


def test_a_slice_length_longer_than_nginx_writes_is_not_read(tmp_path: Path) -> None:
    """5000 digits in the first slice's Content-Range: int() refused it, an exit 3."""
    spec_path = _spec_on(tmp_path, "64MiB")
    range_line = b"\r\nContent-Range: bytes 0-1/" + b"9" * 5000 + b"\r\n"
    first = _cached(spec_path, "httpx/a", range_line)
    code, out, err = _run(["purge", str(spec_path), "--probe-size", "4MiB", "httpx/a"])
    assert (code, err) == (0, "")
    assert out.splitlines()[0].endswith(f"\t{first}")
    assert not first.exists()


# ----------------------------------------------------------------------- repeated entries
@pytest.mark.parametrize(
    ("sections", "message"),
    [
        ({"cache": {"use_stale": ["error", "timeout", "error"]}}, "cache.use_stale.2: error is "
         "already listed as cache.use_stale.0: list it once (nginx warns of a duplicate value)"),
        ({"cache": {"ignore_headers": ["Vary", "Vary"]}}, "cache.ignore_headers.1: Vary is "
         "already listed as cache.ignore_headers.0: list it once (nginx warns of a duplicate "
         "value)"),
        ({"origin": {"next_upstream": ["timeout", "timeout"]}}, "origin.next_upstream.1: "
         "timeout is already listed as origin.next_upstream.0: list it once (nginx warns of a "
         "duplicate value)"),
        ({"cache": {"valid": [{"status": [200, 200], "time": "1m"}]}}, "cache.valid.0.status.1: "
         "200: cache.valid.0 already has its time (nginx uses the first entry that matches): "
         "list each status once, and any last"),
        ({"cache": {"valid": [{"status": [200], "time": "1m"}, {"status": [404, 200],
          "time": "2m"}]}}, "cache.valid.1.status.1: 200: cache.valid.0 already has its time "
         "(nginx uses the first entry that matches): list each status once, and any last"),
        ({"cache": {"valid": [{"status": ["any"], "time": "1m"}, {"status": [200],
          "time": "2m"}]}}, "cache.valid.1.status.0: 200: cache.valid.0 covers every status "
         "(nginx uses the first entry that matches): list each status once, and any last"),
    ],
)  # fmt: skip
def test_a_repeated_entry_nginx_warns_of_or_never_reads_is_refused(
    tmp_path: Path, sections: dict[str, Any], message: str
) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(_cache(**sections)))
    code, _, err = _run(["validate", str(path)])
    assert code == 2
    assert err.startswith(f"{path}:") and err.endswith(f": {message}\n") and err.count("\n") == 1


def test_any_after_the_statuses_it_does_not_shadow_is_taken() -> None:
    valid = [{"status": [200, "any"], "time": "1m"}]
    plan = plan_of(_cache(cache={"valid": valid}))
    assert plan.proxy_cache_valid is not None
    assert plan.proxy_cache_valid.value == (((200, "any"), "1m"),)


def test_nginx_warns_of_a_repeated_word_in_each_bitmask_directive(nginx_binary: str) -> None:
    """Why a repeated use_stale, ignore_headers or next_upstream entry is refused: nginx -t
    takes it with a warning at every start (the plan is given the repeats the spec refuses)."""
    plan = plan_of(_cache())
    assert plan.proxy_cache_use_stale is not None and plan.proxy_next_upstream is not None
    twice = replace(
        plan,
        proxy_cache_use_stale=Decision(("error", "error"), "test"),
        proxy_cache_ignore_headers=Decision(("Vary", "Vary"), "test"),
        proxy_next_upstream=replace(plan.proxy_next_upstream, value=("timeout", "timeout")),
    )
    result = check_plan(twice, nginx=nginx_binary)
    assert result.ok
    warned = re.findall(r'\[warn\] .*duplicate value "(\w+)"', result.output)
    assert sorted(warned) == ["Vary", "error", "timeout"]
