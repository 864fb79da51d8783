"""Find and remove what a killed run (SIGKILL, power loss) left behind: only things that carry
the bench's marks (paths under /var/tmp/tpgen-bench, cgroups named tpgen-bench-*). Run only
while holding bench.runlock's lock: then no run is going, and whatever carries the marks is left
over."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import time
from pathlib import Path

from bench.cgroups import CGROUP_ROOT
from bench.janitor import Janitor
from bench.loopdisk import detach_own_loop, own_loops, own_mounts, unmount
from bench.system import BenchError, private_dir

BENCH_ROOT = Path("/var/tmp/tpgen-bench")
CGROUP_PREFIX = "tpgen-bench-"
# The host's sysctl values a run changed, one file per run (bench.sysctls.applied writes them).
JOURNAL_DIR = BENCH_ROOT / "sysctls"


def new_run_id(kind: str) -> str:
    """The name of a run's work directory under BENCH_ROOT and the stem of its cgroups' names."""
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{kind}"


def work_dir(run_id: str, janitor: Janitor) -> Path:
    """The run's own directory under BENCH_ROOT, removed when `janitor` cleans up."""
    workdir = private_dir(BENCH_ROOT) / run_id
    workdir.mkdir(mode=0o755)
    janitor.push(f"remove {workdir}", lambda: shutil.rmtree(workdir, ignore_errors=True))
    return workdir


def nginx_pids(under: Path = BENCH_ROOT) -> list[int]:
    """nginx processes started with a prefix or config under `under`."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if _is_bench_nginx(int(proc.name), argv, under):
            found.append(int(proc.name))
    return found


def _is_bench_nginx(pid: int, argv: list[bytes], under: Path) -> bool:
    if not argv:
        return False
    if argv[0].endswith(b"nginx") and any(arg.startswith(str(under).encode()) for arg in argv):
        return True
    # a worker: its title no longer shows the prefix
    return argv[0].startswith(b"nginx: ") and _in_bench_cgroup(pid)


def _in_bench_cgroup(pid: int) -> bool:
    try:
        return f"/{CGROUP_PREFIX}" in Path(f"/proc/{pid}/cgroup").read_text()
    except OSError:
        return False


def bench_cgroups() -> list[Path]:
    """Every cgroup directory named tpgen-bench-* (any controller, any depth)."""
    found = []
    for dirpath, dirnames, _ in os.walk(CGROUP_ROOT):
        for name in dirnames:
            if name.startswith(CGROUP_PREFIX):
                found.append(Path(dirpath) / name)
    return found


def _running_bench(pid: int) -> bool:
    """Whether `pid` is a live Python running the bench (a journal's writer still at work)."""
    if pid == os.getpid():
        return True
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"bench" in argv or any(arg.endswith(b"pytest") for arg in argv)


def journals(journal_dir: Path = JOURNAL_DIR) -> list[tuple[Path, list[tuple[Path, str]]]]:
    """The journals of runs that died: (journal, [(sysctl file, the host's value)])."""
    if not journal_dir.is_dir():
        return []
    private_dir(journal_dir)  # cleanup writes what a journal names, as root
    found = []
    for journal in sorted(journal_dir.glob("*.json")):
        pid = journal.stem.partition("-")[0]
        if pid.isdigit() and _running_bench(int(pid)):
            continue
        try:
            entries = [(Path(path), value) for path, value in json.loads(journal.read_text())]
        except (OSError, ValueError, TypeError) as exc:
            raise BenchError(f"{journal}: unreadable sysctl journal ({exc})") from None
        found.append((journal, entries))
    return found


def restore_journals(journal_dir: Path = JOURNAL_DIR) -> list[str]:
    """Put back what dead runs changed; return `file=value` of every setting restored."""
    restored = []
    for journal, entries in journals(journal_dir):
        for path, value in reversed(entries):
            if path.is_file():
                path.write_text(value + "\n")
                restored.append(f"{path}={value}")
        journal.unlink()
    return restored


def find() -> dict[str, list[str]]:
    return {
        "sysctls": [f"{path}={value}" for _, entries in journals() for path, value in entries],
        "nginx": [str(pid) for pid in nginx_pids()],
        "mounts": [str(m) for m in own_mounts(BENCH_ROOT)],
        "loops": [dev for dev, _ in own_loops(BENCH_ROOT)],
        "cgroups": [str(c) for c in bench_cgroups()],
    }


def remove() -> dict[str, list[str]]:
    """Restore the host's sysctls, kill, unmount, detach, rmdir, in that order; return what is
    still there afterwards."""
    restore_journals()
    for pid in nginx_pids():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    for mount in own_mounts(BENCH_ROOT):
        unmount(mount)
    for device, image in own_loops(BENCH_ROOT):
        detach_own_loop(device, image)
    for cgroup in sorted(bench_cgroups(), key=lambda p: len(p.parts), reverse=True):
        try:
            for line in (cgroup / "cgroup.procs").read_text().split():
                os.kill(int(line), signal.SIGKILL)
            time.sleep(0.1)
            cgroup.rmdir()
        except OSError:
            pass
    if not own_mounts(BENCH_ROOT):
        for entry in BENCH_ROOT.glob("*") if BENCH_ROOT.exists() else []:
            shutil.rmtree(entry, ignore_errors=True)
    return find()
