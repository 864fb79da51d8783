"""Run a real nginx from a rendered plan in a throwaway prefix, on loopback ports."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tpgen.check import copy_snippets, install_bundled_mime_types, rebased, write_tls_files
from tpgen.plan import Decision, Plan, make_plan
from tpgen.render import render_config
from tpgen.spec.load import spec_from_mapping

from . import specs

PORT_RANGE = range(27000, 28000)


def free_ports(count: int, start: int = PORT_RANGE.start, stop: int = PORT_RANGE.stop) -> list[int]:
    """``count`` loopback ports in [start, stop) that nothing listens on."""
    found: list[int] = []
    for port in range(start, stop):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        found.append(port)
        if len(found) == count:
            return found
    raise RuntimeError(f"no {count} free loopback ports in {start}-{stop - 1}")


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes


def get(url: str, timeout: float = 10.0, host: str | None = None) -> Response:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            return Response(
                reply.status, {k.lower(): v for k, v in reply.headers.items()}, reply.read()
            )
    except urllib.error.HTTPError as err:
        return Response(err.code, {k.lower(): v for k, v in err.headers.items()}, err.read())


def _wait_for(port: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


@contextlib.contextmanager
def running_nginx(
    plan: Plan, prefix: Path, nginx: str, edit: Callable[[str], str] | None = None
) -> Iterator[Plan]:
    """Start nginx on the rebased plan; always stop it. Yields the rebased plan.

    ``edit``: a hand edit of the rendered text (a control: what tpgen's config prevents)."""
    moved = rebased(plan, str(prefix / "root"))
    install_bundled_mime_types(moved)
    for path in (moved.pid_path, moved.error_log, moved.access_log):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        # pytest's tmp dirs are private to root: workers as www-data could not reach them.
        moved = replace(moved, user=Decision("root", "test prefix is private to root"))
    for disk in moved.serving_disks:
        Path(disk.dir).mkdir(parents=True, exist_ok=True)
    write_tls_files(moved)
    copy_snippets(plan, moved)
    conf = prefix / "nginx.conf"
    text = render_config(moved)
    conf.write_text(edit(text) if edit else text, encoding="utf-8")
    command = [nginx, "-p", str(prefix), "-e", "stderr", "-c", str(conf)]
    subprocess.run(command, check=True, capture_output=True, timeout=30)
    try:
        port = int(moved.listen.rsplit(":", 1)[1])
        _wait_for(port, time.monotonic() + 10)
        yield moved
    finally:
        subprocess.run([*command, "-s", "stop"], check=False, capture_output=True, timeout=30)
        pid = Path(moved.pid_path)
        deadline = time.monotonic() + 10
        while pid.exists() and time.monotonic() < deadline:
            time.sleep(0.05)


def file_server_spec(
    kind: str, ports: tuple[int, int], *, disks: int = 1, cores: int = 1
) -> dict[str, Any]:
    """An origin or vod node's spec on loopback ``ports`` (listen, stub_status): 4 GiB, 256
    connections a worker, 100 open files cached."""
    listen, status = ports
    return specs.spec(
        kind,
        disks=disks,
        listen={"address": "127.0.0.1", "port": listen},
        status={"port": status},
        node={"cores": cores, "memory": "4GiB"},
        tuning={"worker_connections": 256, "open_file_cache_max": 100},
    )


def three_disk_cache(origin_port: int, listen: int, status: int, source: str) -> Plan:
    """A cache node on loopback ports in front of `origin_port`: 3 HDDs of 1 GiB, 2 cores, 4 GiB."""
    data = specs.spec(
        "cache",
        disks=3,
        workload={"upstreams": [f"127.0.0.1:{origin_port}"]},
        listen={"address": "127.0.0.1", "port": listen},
        status={"port": status},
        node={"cores": 2, "memory": "4GiB"},
        tuning={"worker_connections": 256},
    )
    data["disks"] = [specs.disk(i, size="1GiB") for i in (1, 2, 3)]
    return make_plan(spec_from_mapping(data, source), source)
