"""Find and remove what a killed run (SIGKILL, power loss) left behind: only things that carry
the bench's marks (paths under /var/tmp/tpgen-bench, cgroups named tpgen-bench-*), and never
those of a run that is still going (each run's name carries its bench's pid: `new_run_id`)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import time
from pathlib import Path

from bench.cgroups import CGROUP_ROOT
from bench.loopdisk import detach_own_loop, own_loops, own_mounts, unmount
from bench.system import BenchError

BENCH_ROOT = Path("/var/tmp/tpgen-bench")
CGROUP_PREFIX = "tpgen-bench-"
# The host's sysctl values a run changed, one file per run (bench.sysctls.applied writes them).
JOURNAL_DIR = BENCH_ROOT / "sysctls"
# A run id's time and pid, wherever it stands in a name (work dir, cgroup).
_RUN_ID = re.compile(r"(?:^|-)\d{8}-\d{6}-(\d+)-")


def new_run_id(kind: str) -> str:
    """The name of a run's work directory and the stem of its cgroups' names: the time, the
    bench's pid (so that `cleanup` can tell a live run's things from a dead one's) and `kind`."""
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{kind}"


def owner(name: str) -> int | None:
    """The pid of the bench whose run `name` (a work dir or cgroup name) belongs to, if it says."""
    found = _RUN_ID.search(name)
    return int(found.group(1)) if found else None


def live(name: str) -> bool:
    """Whether `name` belongs to a run whose bench is still running: not a leftover."""
    pid = owner(name)
    return pid is not None and _running_bench(pid)


def _run_of(path: Path, under: Path = BENCH_ROOT) -> str:
    """The run directory's name of a path under `under` ("" for `under` itself)."""
    parts = path.relative_to(under).parts
    return parts[0] if parts else ""


def nginx_pids(under: Path = BENCH_ROOT) -> list[int]:
    """nginx processes started with a prefix or config under `under` by runs that are over."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if not argv or not (argv[0].endswith(b"nginx") or argv[0].startswith(b"nginx: ")):
            continue
        paths = [Path(arg.decode(errors="replace")) for arg in argv if arg.startswith(b"/")]
        runs = [_run_of(path, under) for path in paths if path.is_relative_to(under)]
        if not runs and argv[0].startswith(b"nginx: "):
            runs = _bench_cgroups_of(int(proc.name))  # a worker: its title lost the prefix
        if runs and not any(live(run) for run in runs):
            found.append(int(proc.name))
    return found


def _bench_cgroups_of(pid: int) -> list[str]:
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return []
    names = (line.rpartition("/")[2] for line in lines)
    return [name for name in names if name.startswith(CGROUP_PREFIX)]


def bench_cgroups() -> list[Path]:
    """Every cgroup directory named tpgen-bench-* (any controller, any depth)."""
    found = []
    for dirpath, dirnames, _ in os.walk(CGROUP_ROOT):
        for name in dirnames:
            if name.startswith(CGROUP_PREFIX):
                found.append(Path(dirpath) / name)
    return found


def _dead_cgroups() -> list[Path]:
    return [cgroup for cgroup in bench_cgroups() if not live(cgroup.name)]


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
    found = []
    for journal in sorted(journal_dir.glob("*.json")) if journal_dir.is_dir() else []:
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


def find(under: Path = BENCH_ROOT) -> dict[str, list[str]]:
    """What runs that are over left behind (a live run's things are not leftovers)."""
    return {
        "sysctls": [f"{path}={value}" for _, entries in journals() for path, value in entries],
        "nginx": [str(pid) for pid in nginx_pids(under)],
        "mounts": [str(m) for m in _dead(own_mounts(under), under)],
        "loops": [dev for dev, image in own_loops(under) if _dead([image], under)],
        "cgroups": [str(c) for c in _dead_cgroups()],
    }


def live_runs(under: Path = BENCH_ROOT) -> list[int]:
    """The pids of the benches whose runs are still going (cleanup leaves their things alone)."""
    names = [entry.name for entry in under.iterdir()] if under.is_dir() else []
    return sorted({pid for name in names if live(name) and (pid := owner(name)) is not None})


def _dead(paths: list[Path], under: Path) -> list[Path]:
    return [path for path in paths if not live(_run_of(path, under))]


def remove(under: Path = BENCH_ROOT) -> dict[str, list[str]]:
    """Restore the host's sysctls, kill, unmount, detach, rmdir, in that order, what runs that are
    over left under `under`; return what is still there afterwards."""
    restore_journals()
    for pid in nginx_pids(under):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    for mount in _dead(own_mounts(under), under):
        unmount(mount)
    for device, image in own_loops(under):
        if _dead([image], under):
            detach_own_loop(device, image)
    _remove_cgroups()
    _remove_run_dirs(under)
    return find(under)


def _remove_cgroups() -> None:
    for cgroup in sorted(_dead_cgroups(), key=lambda p: len(p.parts), reverse=True):
        try:
            for line in (cgroup / "cgroup.procs").read_text().split():
                os.kill(int(line), signal.SIGKILL)
            time.sleep(0.1)
            cgroup.rmdir()
        except OSError:
            pass


def _remove_run_dirs(under: Path) -> None:
    """Every run directory but a live run's or one something is still mounted in (files, such as
    bench.runlock's, stay)."""
    mounted = {_run_of(mount, under) for mount in own_mounts(under)}
    for entry in under.glob("*") if under.exists() else []:
        if entry.name == JOURNAL_DIR.name:
            with contextlib.suppress(OSError):
                entry.rmdir()  # only when no live run keeps a journal there
        elif entry.is_dir() and entry.name not in mounted and not live(entry.name):
            shutil.rmtree(entry, ignore_errors=True)
