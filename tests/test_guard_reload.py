"""A graceful reload never drops a request: 20 reloads of a real nginx under a bounded load.

guard takes a disk out with a reload (never a restart); this is what that costs clients.
"""

from __future__ import annotations

import http.client
import subprocess
import threading
import time
from pathlib import Path

from .live import free_ports, running_nginx, three_disk_cache
from .test_live_nginx import origin_port

__all__ = ["origin_port"]  # the fixture, used by name

RELOADS = 20
CLIENTS = 3
RATE = 150  # requests a second, all clients together: bounded, loopback only
RETRIES = 2  # sends of a request that got no response byte, on a new connection each
# Requests answered between two reloads, whatever the machine's pace: the load spans every reload
# (a fixed sleep alone did not: a busy CI machine once answered 120 requests in all).
BETWEEN = 10
STALL_S = 10.0  # waiting longer than this for BETWEEN answers fails the test: the load stalled


def _get(conn: http.client.HTTPConnection, path: str) -> int:
    conn.request("GET", path)
    response = conn.getresponse()
    response.read()
    return response.status


def _client(port: int, stop: threading.Event, seen: list[tuple[int, int]]) -> None:
    """Requests over one keepalive connection, as a browser or curl sends them.

    A reload's old workers close the connections they hold idle, and a connection they
    accepted but had not read yet, so a request sent on it just then gets no response at all
    (no status line). An HTTP client sends such an idempotent request again on a new
    connection (RFC 9112 9.3.1); this one does so up to RETRIES times. What fails after that
    counts. ``seen``: (status, retries) per request, status 0 for no response.
    """
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    n = 0
    while not stop.is_set():
        n += 1
        path = f"/objects/{n % 30}.bin"
        for attempt in range(RETRIES + 1):
            try:
                seen.append((_get(conn, path), attempt))
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        else:
            seen.append((0, RETRIES))
        time.sleep(CLIENTS / RATE)
    conn.close()


def _answered(seen: list[tuple[int, int]], count: int) -> bool:
    """Wait until ``seen`` holds ``count`` finished requests (answered or given up), at most
    STALL_S; False if it never does."""
    deadline = time.monotonic() + STALL_S
    while len(seen) < count:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_twenty_reloads_under_load_fail_no_request(
    tmp_path: Path, nginx_binary: str, origin_port: int
) -> None:
    listen, status = free_ports(2)
    plan = three_disk_cache(origin_port, listen, status, "reload.yaml")
    seen: list[tuple[int, int]] = []
    stop = threading.Event()
    with running_nginx(plan, tmp_path, nginx_binary):
        command = [
            nginx_binary,
            "-p",
            str(tmp_path),
            "-e",
            "stderr",
            "-c",
            str(tmp_path / "nginx.conf"),
        ]
        clients = [
            threading.Thread(target=_client, args=(listen, stop, seen)) for _ in range(CLIENTS)
        ]
        for client in clients:
            client.start()
        stalled = None
        try:
            for reload in range(RELOADS + 1):
                time.sleep(0.25)
                if not _answered(seen, len(seen) + BETWEEN):
                    stalled = reload
                    break
                if reload < RELOADS:
                    subprocess.run(
                        [*command, "-s", "reload"], check=True, capture_output=True, timeout=30
                    )
        finally:
            stop.set()
            for client in clients:
                client.join(timeout=30)
    assert stalled is None, (
        f"fewer than {BETWEEN} requests answered in {STALL_S:.0f} s after {stalled} reloads "
        f"({len(seen)} in all)"
    )
    failed = [item for item in seen if item[0] != 200]
    retried = [item for item in seen if item[1] > 0]
    assert len(seen) > 200, f"the load ran: {len(seen)} requests"
    # The reloads did close idle connections under the clients (else this proves nothing).
    assert retried, "no keepalive connection was closed by a reload"
    assert failed == [], f"{len(failed)} of {len(seen)} requests failed across {RELOADS} reloads"
    print(
        f"{len(seen)} requests across {RELOADS} reloads: 0 failed; {len(retried)} sent again "
        f"after a reload closed their connection, {sum(1 for s in seen if s[1] > 1)} twice"
    )
