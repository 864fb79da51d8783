"""A real nginx runs the rendered config: every key lands on the disk tpgen says it does."""

from __future__ import annotations

import hashlib
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from tpgen.api import disk_for_key
from tpgen.plan import make_plan
from tpgen.spec.load import load_spec_file, spec_from_mapping

from .conftest import ROOT
from .live import file_server_spec, free_ports, get, running_nginx, three_disk_cache
from .specs import disk, spec
from .test_cli import EXAMPLE, LOCATED


class _Origin(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"object {self.path}\n".encode() * 50
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=600")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def origin_port() -> Iterator[int]:
    (port,) = free_ports(1, start=27500)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), _Origin)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield port
    server.shutdown()
    server.server_close()


def test_cache_keys_land_on_the_disk_tpgen_names_and_hit_after(
    tmp_path: Path, nginx_binary: str, origin_port: int
) -> None:
    listen, status = free_ports(2)
    plan = three_disk_cache(origin_port, listen, status, "live.yaml")
    seen_disks = set()
    with running_nginx(plan, tmp_path, nginx_binary) as live:
        cache_dirs = {d.name: Path(d.cache.path) for d in live.disks if d.cache}
        for index in range(60):
            uri = f"/objects/{index}.bin?v={index * 7}"
            key = f"http127.0.0.1{uri}"
            expected = disk_for_key(plan, key)
            first = get(f"http://127.0.0.1:{listen}{uri}")
            assert first.status == 200
            assert first.headers["x-cache-disk"] == expected, key
            assert first.headers["x-cache-status"] == "MISS"
            second = get(f"http://127.0.0.1:{listen}{uri}")
            assert second.headers["x-cache-status"] == "HIT"
            digest = hashlib.md5(key.encode()).hexdigest()
            relative = Path(digest[-1], digest[-3:-1], digest)
            holders = [name for name, root in cache_dirs.items() if (root / relative).exists()]
            assert holders == [expected]
            seen_disks.add(expected)
        status_page = get(f"http://127.0.0.1:{status}/nginx_status")
        assert status_page.status == 200 and b"Active connections" in status_page.body
    assert seen_disks == {"d1", "d2", "d3"}


def test_a_long_split_table_picks_the_disk_tpgen_names(
    tmp_path: Path, nginx_binary: str, origin_port: int
) -> None:
    # 30 disks of mixed sizes, two of them out: hundreds of split_clients parts, whose
    # boundaries nginx sums with its own integer arithmetic
    listen, status = free_ports(2)
    data = spec(
        "cache",
        workload={"upstreams": [f"127.0.0.1:{origin_port}"], "avg_object_size": "64MiB"},
        listen={"address": "127.0.0.1", "port": listen},
        status={"port": status},
        node={"cores": 1, "memory": "4GiB"},
        tuning={"worker_connections": 256},
    )
    data["disks"] = [
        disk(i, size=("1GiB", "2GiB", "4GiB")[i % 3], media="ssd") for i in range(1, 31)
    ]
    data["disks"][4]["state"] = "failed"
    data["disks"][17]["state"] = "draining"
    plan = make_plan(spec_from_mapping(data, "live.yaml"), "live.yaml")
    assert plan.split.part_count > 200 and plan.split.regions
    with running_nginx(plan, tmp_path, nginx_binary):
        for index in range(150):
            uri = f"/long/{index}.bin"
            response = get(f"http://127.0.0.1:{listen}{uri}")
            assert response.headers["x-cache-disk"] == disk_for_key(plan, f"http127.0.0.1{uri}")


def test_origin_serves_files_placed_by_locate_and_falls_back_to_draining_disks(
    tmp_path: Path, nginx_binary: str
) -> None:
    listen, status = free_ports(2)
    data = file_server_spec("origin", (listen, status), disks=3, cores=2)
    data["disks"][2]["state"] = "draining"
    plan = make_plan(spec_from_mapping(data, "origin.yaml"), "origin.yaml")
    with running_nginx(plan, tmp_path, nginx_binary) as live:
        roots = {d.name: Path(d.dir) for d in live.disks}
        uris = [f"/media/file{i}.mp4" for i in range(40)]
        for uri in uris:
            target = roots[disk_for_key(plan, uri)] / uri.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(uri)
        legacy = roots["d3"] / "media" / "old.mp4"
        legacy.parent.mkdir(parents=True, exist_ok=True)
        legacy.write_text("still here")
        for uri in uris:
            reply = get(f"http://127.0.0.1:{listen}{uri}")
            assert (reply.status, reply.body.decode()) == (200, uri)
        assert get(f"http://127.0.0.1:{listen}/media/old.mp4").body == b"still here"
        assert get(f"http://127.0.0.1:{listen}/media/missing.mp4").status == 404


def test_nginx_puts_the_pinned_locate_keys_on_the_pinned_disks(
    tmp_path: Path, nginx_binary: str, origin_port: int
) -> None:
    # the example node on loopback: the same disks, so the same map as test_cli's LOCATED
    listen, status = free_ports(2)
    data = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    data["node"].update(cores=2, memory="4GiB")
    data["workload"] = {
        "type": "cache",
        "upstreams": [f"127.0.0.1:{origin_port}"],
        "avg_object_size": "64MiB",
        # whole objects: this origin answers a Range with all of it (200), which slices refuse
        "slice": "off",
    }
    data.update(
        listen={"address": "127.0.0.1", "port": listen},
        status={"port": status},
        tuning={"worker_connections": 256},
    )
    plan = make_plan(spec_from_mapping(data, "live.yaml"), "live.yaml")
    example = make_plan(load_spec_file(EXAMPLE), str(EXAMPLE.relative_to(ROOT)))
    assert plan.split == example.split
    with running_nginx(plan, tmp_path, nginx_binary):
        served = [
            get(
                f"http://127.0.0.1:{listen}{key.removeprefix('httpcdn.example.com')}",
                host="cdn.example.com",
            ).headers["x-cache-disk"]
            for key, _, _ in LOCATED
        ]
    assert served == [disk_name for _, _, disk_name in LOCATED]
