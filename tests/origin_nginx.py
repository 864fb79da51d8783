"""A second real nginx as the origin of a live cache test: it serves files from a directory,
answers 502 under /fail/, and logs the bytes it sends for each request."""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .live import _wait_for


@dataclass
class Origin:
    port: int
    root: Path
    log: Path

    def bytes_sent(self) -> int:
        """Body bytes the origin has sent so far (its log is written line by line)."""
        return sum(int(line.split()[2]) for line in self.requests())

    def requests(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def settled(self, count: int, timeout: float = 30.0) -> list[str]:
        """The log once it holds ``count`` requests: the origin logs a request when its transfer
        ends, which can be after the cache already answered its client."""
        deadline = time.monotonic() + timeout
        while len(self.requests()) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.requests()


def _config(prefix: Path, port: int, failing: bool) -> str:
    user = "user root;\n" if os.geteuid() == 0 else ""
    return f"""{user}worker_processes 1;
pid {prefix}/origin.pid;
error_log {prefix}/origin-error.log warn;
events {{ worker_connections 64; }}
http {{
    log_format bytes '$request_uri $status $body_bytes_sent "$http_range"';
    access_log {prefix}/origin.log bytes;
    server {{
        listen 127.0.0.1:{port};
        root {prefix}/www;
        location /fail/ {{ return 502; }}
        {"location / { return 502; }" if failing else ""}
    }}
}}
"""


@contextlib.contextmanager
def origin_nginx(prefix: Path, nginx: str, port: int, *, failing: bool = False) -> Iterator[Origin]:
    """``failing``: every request is answered 502."""
    prefix.mkdir(parents=True, exist_ok=True)
    (prefix / "www").mkdir(exist_ok=True)
    conf = prefix / "origin.conf"
    conf.write_text(_config(prefix, port, failing), encoding="utf-8")
    command = [nginx, "-p", str(prefix), "-e", "stderr", "-c", str(conf)]
    subprocess.run(command, check=True, capture_output=True, timeout=30)
    try:
        _wait_for(port, time.monotonic() + 10)
        yield Origin(port, prefix / "www", prefix / "origin.log")
    finally:
        subprocess.run([*command, "-s", "stop"], check=False, capture_output=True, timeout=30)
        pid = prefix / "origin.pid"
        deadline = time.monotonic() + 10
        while pid.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
