"""What the smoke tests of both workloads share: starting `python -m bench smoke`, stopping it
with Ctrl-C at a given line, and finding what a run left on the host."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

from bench.system import missing_prerequisites
from tests.conftest import unavailable

ROOT = Path(__file__).resolve().parents[2]


def require_a_bench_host(what: str) -> None:
    """Skip `what` where the bench cannot run (CI fails it instead: tests.conftest.unavailable)."""
    if problems := missing_prerequisites():
        unavailable(f"{what} cannot run: " + "; ".join(problems))


def start(out: Path, *options: str) -> subprocess.Popen[str]:
    """`python -m bench smoke OPTIONS --out OUT`, its stdout and stderr one text stream."""
    return subprocess.Popen(
        [sys.executable, "-m", "bench", "smoke", *options, "--out", str(out)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def interrupted(proc: subprocess.Popen[str], at: str, timeout: float) -> str:
    """SIGINT to `proc` at its first line starting with `at`; all it printed until it ended (a
    watchdog kills it after `timeout` seconds)."""
    watchdog = threading.Timer(timeout, proc.kill)
    watchdog.start()
    lines = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if line.startswith(at):
                proc.send_signal(signal.SIGINT)
                break
        lines.append(proc.stdout.read())
        proc.wait()
    finally:
        watchdog.cancel()
    return "".join(lines)


def workdirs(output: str) -> list[Path]:
    found = re.findall(r"^work dir (\S+)$", output, re.MULTILINE)
    assert found, output
    return [Path(p) for p in found]


def leftovers(workdirs: list[Path]) -> list[str]:
    """Anything of this run still on the host: the bench must leave nothing behind."""
    return [item for workdir in workdirs for item in _leftovers_of(workdir)]


def _leftovers_of(workdir: Path) -> list[str]:
    found = []
    mounts = Path("/proc/self/mounts").read_text()
    found += [f"mount {line.split()[1]}" for line in mounts.splitlines() if str(workdir) in line]
    loops = subprocess.run(
        ["losetup", "-l", "-n", "-O", "NAME,BACK-FILE"], capture_output=True, text=True, check=True
    ).stdout
    found += [f"loop {line}" for line in loops.splitlines() if str(workdir) in line]
    run_id = workdir.name
    for dirpath, dirnames, _ in os.walk("/sys/fs/cgroup"):
        found += [f"cgroup {dirpath}/{d}" for d in dirnames if run_id in d]
    for proc in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if str(workdir).encode() in proc.read_bytes():
                found.append(f"process {proc.parent.name}")
        except OSError:
            pass
    if workdir.exists():
        found.append(f"directory {workdir}")
    return found
