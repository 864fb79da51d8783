"""A real cache nginx in front of a real origin nginx (both on loopback): byte ranges through
slices, purge, the JSON access log and debug headers, as issue 13 asks for them."""

from __future__ import annotations

import hashlib
import io
import json
import os
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tpgen.api import cache_target, disk_for_key
from tpgen.commands import Console
from tpgen.commands.purge import purge_plan
from tpgen.ops.purge import entry_file
from tpgen.plan import Decision, Plan, make_plan
from tpgen.spec.load import spec_from_mapping

from .live import file_server_spec, free_ports, running_nginx
from .origin_nginx import Origin, origin_nginx
from .specs import disk, spec

MIB = 1 << 20
BIG = 64 * MIB
SLICED = 16 * MIB


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(request, timeout=60) as reply:
        return reply.status, {k.lower(): v for k, v in reply.headers.items()}, reply.read()


@pytest.fixture
def origin(tmp_path: Path, nginx_binary: str) -> Iterator[Origin]:
    (port,) = free_ports(1, start=27700)
    with origin_nginx(tmp_path / "origin", nginx_binary, port) as running:
        yield running


def cache_plan(
    source: Origin, slice_setting: str, upstreams: list[str] | None = None, **sections: Any
) -> tuple[Plan, int]:
    listen, status = free_ports(2, start=27800)
    data = spec(
        "cache",
        workload={
            "upstreams": upstreams or [f"127.0.0.1:{source.port}"],
            "avg_object_size": "64MiB",
            "slice": slice_setting,
        },
        listen={"address": "127.0.0.1", "port": listen},
        status={"port": status},
        node={"cores": 2, "memory": "4GiB"},
        tuning={"worker_connections": 256},
        **sections,
    )
    data["disks"] = [disk(i, size="1GiB") for i in (1, 2, 3)]
    return make_plan(spec_from_mapping(data, "live.yaml"), "live.yaml"), listen


def _files(live: Plan) -> dict[str, int]:
    return {
        d.name: sum(1 for p in Path(d.cache.path).rglob("*") if p.is_file())
        for d in live.disks
        if d.cache
    }


def test_a_1k_range_of_a_cold_64mib_object_costs_at_most_two_slices_and_assembles(
    tmp_path: Path, nginx_binary: str, origin: Origin
) -> None:
    blob = os.urandom(BIG)
    (origin.root / "big.bin").write_bytes(blob)
    plan, listen = cache_plan(origin, "auto", logging={"format": "json"})
    assert plan.slice_size is not None and plan.slice_size.value == MIB
    url = f"http://127.0.0.1:{listen}/big.bin"
    key = "http127.0.0.1/big.bin"
    with running_nginx(plan, tmp_path / "cache", nginx_binary) as live:
        status, headers, body = fetch(url, {"Range": "bytes=3000000-3001023"})
        assert (status, body, headers["x-cache-status"]) == (206, blob[3000000:3001024], "MISS")
        assert len(origin.settled(1)) == 1
        assert origin.bytes_sent() <= 2 * MIB
        assert origin.requests()[0].endswith('"bytes=2097152-3145727"')
        status, headers, body = fetch(url, {"Range": "bytes=3000000-3001023"})
        assert (status, headers["x-cache-status"]) == (206, "HIT")
        assert origin.bytes_sent() <= 2 * MIB
        status, headers, body = fetch(url)
        assert status == 200
        assert hashlib.sha256(body).digest() == hashlib.sha256(blob).digest()
        # every slice once from the origin, all of them on the disk locate names for the key
        assert len(origin.settled(64)) == 64
        assert origin.bytes_sent() == BIG
        expected = disk_for_key(plan, key)
        assert _files(live) == {d: (64 if d == expected else 0) for d in ("d1", "d2", "d3")}
        target = cache_target(live, key)
        assert target.disk == expected
        part, path = entry_file(target.to_dict(), 3000000)
        assert part == "bytes=2097152-3145727"
        assert Path(path).is_file()
    # each worker buffers its own lines: the order in the file is not the order of requests
    log = [json.loads(line) for line in Path(live.access_log).read_text().splitlines()]
    assert sorted((e["status"], e["cache"], e["disk"], e["range"]) for e in log) == [
        ("200", "MISS", expected, ""),
        ("206", "HIT", expected, "bytes=3000000-3001023"),
        ("206", "MISS", expected, "bytes=3000000-3001023"),
    ]
    log.sort(key=lambda e: (e["cache"], e["status"]), reverse=True)
    first = log[0]  # the cold range: MISS 206
    assert (first["cache"], first["status"]) == ("MISS", "206")
    assert (first["upstream_addr"], first["upstream_status"]) == (f"127.0.0.1:{origin.port}", "206")
    assert float(first["upstream_response_time"]) >= 0 and float(first["request_time"]) >= 0
    assert int(first["body_bytes_sent"]) == 1024


def test_without_slices_a_1k_range_of_a_cold_object_fetches_all_of_it(
    tmp_path: Path, nginx_binary: str, origin: Origin
) -> None:
    # the problem slices solve, measured: nginx drops the client's Range when it caches
    (origin.root / "big.bin").write_bytes(os.urandom(BIG))
    plan, listen = cache_plan(origin, "off")
    assert plan.slice_size is None
    with running_nginx(plan, tmp_path / "cache", nginx_binary):
        status, _, body = fetch(f"http://127.0.0.1:{listen}/big.bin", {"Range": "bytes=0-1023"})
        assert (status, len(body)) == (206, 1024)
        assert len(origin.settled(1)) == 1
    assert origin.bytes_sent() == BIG


def test_a_split_key_with_the_slice_range_stores_a_slice_twice(
    tmp_path: Path, nginx_binary: str, origin: Origin
) -> None:
    """Why tpgen keeps $slice_range out of the split key: nginx picks the disk once per client
    request (subrequests share the main request's variables), so a slice reached through two
    client ranges lands on two disks and is fetched twice, and nothing spreads."""
    (origin.root / "big.bin").write_bytes(os.urandom(16 * MIB))
    plan, listen = cache_plan(origin, "1MiB")
    spread = replace(plan, split_key=Decision(plan.split_key.value + "$slice_range", "test"))
    url = f"http://127.0.0.1:{listen}/big.bin"
    with running_nginx(spread, tmp_path / "cache", nginx_binary) as live:
        # a client range that starts in slice 4, on whichever disk slice 4's range picks
        fetch(url, {"Range": f"bytes={4 * MIB + 10}-{4 * MIB + 20}"})
        fetch(url)  # the whole object: the disk slice 0's range picks, for all 16 slices
        assert len(origin.settled(17)) == 17
        files = _files(live)
    assert sum(files.values()) == 17  # slice 4 twice
    assert origin.bytes_sent() == 17 * MIB
    assert sorted(files.values())[-1] == 16


def _purge(live: Plan, keys: list[str], dry_run: bool = False) -> list[list[str]]:
    out = io.StringIO()
    assert purge_plan(live, keys, dry_run=dry_run, console=Console(out, io.StringIO())) == 0
    return [line.split("\t") for line in out.getvalue().splitlines()]


@pytest.mark.parametrize("slice_setting", ["off", "1MiB"])
def test_purge_removes_one_object_and_leaves_the_others(
    tmp_path: Path, nginx_binary: str, origin: Origin, slice_setting: str
) -> None:
    for name in ("a", "b"):
        (origin.root / f"{name}.bin").write_bytes(os.urandom(3 * MIB + 5))
    plan, listen = cache_plan(origin, slice_setting)
    files = 4 if plan.slice_size else 1
    with running_nginx(plan, tmp_path / "cache", nginx_binary) as live:
        for name in ("a", "b"):
            fetch(f"http://127.0.0.1:{listen}/{name}.bin")
        key = "http127.0.0.1/a.bin"
        dry = _purge(live, [key], dry_run=True)
        assert [line[:3] for line in dry] == [
            ["would remove", key, disk_for_key(plan, key)]
        ] * files
        assert all(Path(line[3]).is_file() for line in dry)
        assert _purge(live, [key]) == [["removed", *line[1:]] for line in dry]
        assert not any(Path(line[3]).exists() for line in dry)
        assert _purge(live, [key]) == [["not cached", key, disk_for_key(plan, key)]]
        _, headers, _ = fetch(f"http://127.0.0.1:{listen}/a.bin")
        assert headers["x-cache-status"] == "MISS"
        _, headers, _ = fetch(f"http://127.0.0.1:{listen}/b.bin")
        assert headers["x-cache-status"] == "HIT"


def test_debug_headers_reach_trusted_clients_only(
    tmp_path: Path, nginx_binary: str, origin: Origin
) -> None:
    (origin.root / "small.txt").write_bytes(b"hello")
    # 127.0.0.2 is loopback but not trusted once loopback is narrowed to 127.0.0.1 by the test
    plan, listen = cache_plan(origin, "off")
    networks = Decision(("127.0.0.1/32",), "test")
    narrowed = replace(plan, trusted_networks=networks)
    with running_nginx(narrowed, tmp_path / "cache", nginx_binary):
        _, trusted, _ = fetch(f"http://127.0.0.1:{listen}/small.txt")
    assert trusted["x-cache-status"] == "MISS" and "x-cache-disk" in trusted
    # The IPv4-mapped form of 127.0.0.1 trusts nobody: geo looks IPv4 clients up as IPv4, so
    # the spec refuses such a network (tests/test_addresses.py).
    for name, network in (("cache2", "10.0.0.0/8"), ("cache3", "::ffff:7f00:1/128")):
        outsider = replace(plan, trusted_networks=Decision((network,), "test"))
        with running_nginx(outsider, tmp_path / name, nginx_binary):
            _, untrusted, body = fetch(f"http://127.0.0.1:{listen}/small.txt")
        assert body == b"hello"
        assert "x-cache-status" not in untrusted and "x-cache-disk" not in untrusted


def test_an_origin_answering_502_fails_over_to_the_backup_within_the_timeout(
    tmp_path: Path, nginx_binary: str
) -> None:
    bad_port, good_port = free_ports(2, start=27750)
    with (
        origin_nginx(tmp_path / "bad", nginx_binary, bad_port, failing=True) as bad,
        origin_nginx(tmp_path / "good", nginx_binary, good_port) as good,
    ):
        (good.root / "x.txt").write_bytes(b"from the backup")
        backup = f"127.0.0.1:{good_port}"
        plan, listen = cache_plan(
            bad,
            "off",
            [f"127.0.0.1:{bad_port}", backup],
            origin={"servers": {backup: {"backup": True}}, "connect_timeout": "1s"},
        )
        assert [str(u) for u in plan.upstreams] == [f"127.0.0.1:{bad_port}", backup]
        assert plan.proxy_next_upstream_timeout is not None
        assert plan.proxy_next_upstream_timeout.value == "2s"
        with running_nginx(plan, tmp_path / "cache", nginx_binary):
            started = time.monotonic()
            status, _, body = fetch(f"http://127.0.0.1:{listen}/x.txt")
            elapsed = time.monotonic() - started
        assert (status, body) == (200, b"from the backup")
        assert elapsed < 2.0
        assert [line.split()[1] for line in bad.requests()] == ["502"]
        assert [line.split()[1] for line in good.requests()] == ["200"]


def test_an_origin_node_serves_the_full_media_map_and_tpgens_additions(
    tmp_path: Path, nginx_binary: str
) -> None:
    listen, status = free_ports(2, start=27850)
    data = file_server_spec("origin", (listen, status))
    plan = make_plan(spec_from_mapping(data, "origin.yaml"), "origin.yaml")
    types = {
        "a.svg": "image/svg+xml",
        "a.woff2": "font/woff2",
        "a.vtt": "text/vtt",
        "a.m4s": "video/iso.segment",
        "a.aac": "audio/aac",
        "a.bin": "application/octet-stream",
    }
    with running_nginx(plan, tmp_path, nginx_binary) as live:
        root = Path(live.disks[0].dir)
        for name in types:
            (root / name).write_bytes(b"x")
        served = {n: fetch(f"http://127.0.0.1:{listen}/{n}")[1]["content-type"] for n in types}
    assert served == types


def _valid_until(path: str) -> int:
    """The second a cache entry stops being fresh: ``valid_sec``, the second field (after the
    version, both 8 bytes on 64-bit builds) of nginx's cache file header."""
    return int.from_bytes(Path(path).read_bytes()[8:16], "little")


def _expired_range(
    tmp_path: Path,
    nginx_binary: str,
    origin: Origin,
    revalidate: bool,
    edit: Callable[[str], str] | None = None,
) -> tuple[str, list[str]]:
    """A 1 KiB range of a 16 MiB object in 1 MiB slices: fetched, left to expire (valid 1s),
    asked again. The cache status of the second answer and the origin's log lines for it."""
    (origin.root / "big.bin").write_bytes(os.urandom(SLICED))
    policy = {"valid": [{"status": [200, 206], "time": "1s"}], "revalidate": revalidate}
    plan, listen = cache_plan(origin, "1MiB", cache=policy)
    assert plan.proxy_cache_background_update is not None
    assert plan.proxy_cache_background_update.value == "off"
    url = f"http://127.0.0.1:{listen}/big.bin"
    wanted = {"Range": "bytes=3000000-3001023"}
    with running_nginx(plan, tmp_path / "cache", nginx_binary, edit) as live:
        status, headers, _ = fetch(url, wanted)
        assert (status, headers["x-cache-status"]) == (206, "MISS")
        assert origin.settled(1) == ['/big.bin 206 1048576 "bytes=2097152-3145727"']
        _, path = entry_file(cache_target(live, "http127.0.0.1/big.bin").to_dict(), 3000000)
        stale_from = _valid_until(path) + 1  # nginx: stale once valid_sec < now (whole seconds)
        deadline = time.monotonic() + 10
        while time.time() < stale_from and time.monotonic() < deadline:
            time.sleep(0.1)
        status, headers, body = fetch(url, wanted)
        assert (status, body) == (206, (origin.root / "big.bin").read_bytes()[3000000:3001024])
        return headers["x-cache-status"], origin.settled(2)[1:]


@pytest.mark.parametrize(
    ("revalidate", "expected"),
    [
        (True, ("REVALIDATED", ['/big.bin 304 0 "bytes=2097152-3145727"'])),
        (False, ("EXPIRED", ['/big.bin 206 1048576 "bytes=2097152-3145727"'])),
    ],
    ids=["revalidate", "refetch"],
)
def test_an_expired_slice_costs_the_origin_that_slice_only(
    tmp_path: Path,
    nginx_binary: str,
    origin: Origin,
    revalidate: bool,
    expected: tuple[str, list[str]],
) -> None:
    """tpgen turns proxy_cache_background_update off with slices (nginx/nginx#911): the request
    that finds its slice expired asks the origin for that slice itself. Not STALE: no background
    update was started, so no later origin request can follow."""
    assert _expired_range(tmp_path, nginx_binary, origin, revalidate) == expected


def test_background_update_on_a_sliced_cache_refetches_the_whole_object(
    tmp_path: Path, nginx_binary: str, origin: Origin
) -> None:
    """The control for the test above, and why tpgen refuses the setting with slices
    (nginx/nginx#911): the same config with background update turned on by hand serves the stale
    slice, and its background update, a subrequest without the slice's $slice_range, asks the
    origin for the whole object. If this fails, the nginx under test fixed #911."""

    def background_update_on(text: str) -> str:
        assert text.count("proxy_cache_background_update off;") == 1
        return text.replace(
            "proxy_cache_background_update off;", "proxy_cache_background_update on;"
        )

    status, log = _expired_range(tmp_path, nginx_binary, origin, True, background_update_on)
    assert (status, log) == ("STALE", [f'/big.bin 200 {SLICED} "-"'])
