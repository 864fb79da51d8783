"""One nginx instance in its own prefix, started inside the bench's cgroup."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterable
from pathlib import Path

from bench.cgroups import Cgroup
from bench.system import BenchError

NOFILE_HARD = 524288
WORKER_TITLE = b"nginx: worker process"
CACHE_LOADER_TITLE = b"nginx: cache loader process"
# error_log lines that say something about the bench host, not about the config under test.
IGNORED = ("setrlimit(RLIMIT_NOFILE",)


class Nginx:
    def __init__(self, conf: Path, prefix: Path, port: int, cgroup: Cgroup) -> None:
        self.conf = conf
        self.prefix = prefix
        self.port = port
        self.cgroup = cgroup
        self.log = prefix / "nginx.out"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 15.0) -> None:
        """Start the master in the foreground (daemon off) and wait until the port answers."""
        cmd = [
            "nginx",
            "-p",
            f"{self.prefix}/",
            "-c",
            str(self.conf),
            "-e",
            "stderr",
            "-g",
            "daemon off;",
        ]
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                # Workers inherit the group. The hard open-files limit a service manager gives
                # nginx (systemd: 524288), so that the config's worker_rlimit_nofile takes effect
                # in workers that run as www-data; containers without CAP_SYS_RESOURCE refuse:
                # nginx then logs an [alert] and keeps the lower limit, plenty here (IGNORED).
                self.cgroup.command(cmd, nofile_hard=NOFILE_HARD),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C to the bench does not reach nginx directly
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(f"nginx exited {self.proc.returncode}: {self.output()[-800:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise BenchError(f"nginx did not listen on 127.0.0.1:{self.port} in {timeout}s")

    def stop(self, timeout: float = 30.0) -> None:
        """Fast shutdown (SIGTERM); SIGKILL what is left in the cgroup after `timeout`."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        deadline = time.monotonic() + timeout
        while self.cgroup.pids() and time.monotonic() < deadline:
            time.sleep(0.05)  # workers finishing a blocked read
        for pid in self.cgroup.pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def problems(self) -> list[str]:
        """error_log lines at [error] or worse (queue overflows, failed reads...).

        Every arm's config logs to <prefix>/error.log (see arms.relocate)."""
        levels = ("[error]", "[crit]", "[alert]", "[emerg]")
        error_log = self.prefix / "error.log"
        text = self.output()
        if error_log.exists():
            text += error_log.read_text(errors="replace")
        return [
            line
            for line in text.splitlines()
            if any(x in line for x in levels) and not any(x in line for x in IGNORED)
        ]


def titled(pids: Iterable[int], title: bytes) -> set[int]:
    """The processes among `pids` whose title (nginx rewrites its argv: "nginx: worker process",
    "nginx: cache loader process", ...) starts with `title`."""
    found = set()
    for pid in pids:
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:  # exited between the listing and the read
            continue
        if argv.startswith(title):
            found.add(pid)
    return found
