"""A process starts inside the bench's cgroup through a shell that joins it, then execs."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bench.cgroups import Cgroup


class FileCgroup(Cgroup):
    """cgroup.procs as plain files: what the shell writes is what the kernel would be told."""

    def limit_reads(self, device: str, bps: int, iops: int) -> None:
        raise NotImplementedError

    def limit_memory(self, limit: int) -> None:
        raise NotImplementedError

    def memory_peak(self) -> int | None:
        return None


def _group(tmp_path: Path) -> FileCgroup:
    dirs = [tmp_path / "blkio", tmp_path / "memory name with spaces"]
    for d in dirs:
        d.mkdir()
    return FileCgroup("t", dirs)


def test_the_command_joins_every_controller_with_the_pid_that_then_runs_argv(
    tmp_path: Path,
) -> None:
    group = _group(tmp_path)
    out = subprocess.run(
        group.command(["sh", "-c", 'echo "$$ $1"', "sh", "an argument"]),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split(maxsplit=1)
    assert out[1] == "an argument\n"
    assert [p.read_text() for p in group.join_paths()] == [f"{out[0]}\n"] * 2


def test_the_open_files_hard_limit_is_never_lowered_and_a_refused_raise_is_no_error(
    tmp_path: Path,
) -> None:
    group = _group(tmp_path)
    hard = subprocess.run(["sh", "-c", "ulimit -Hn"], capture_output=True, text=True).stdout
    shown = subprocess.run(
        group.command(["sh", "-c", "ulimit -Hn"], nofile_hard=64),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert shown == hard
    # Raising it needs CAP_SYS_RESOURCE, which this machine's root lacks: a refusal is not an
    # error (nginx then logs an [alert] and keeps the lower limit).
    show = ["sh", "-c", "ulimit -Hn"]
    kept = subprocess.run(
        ["sh", "-c", 'ulimit -n 1000 && exec "$@"', "sh", *group.command(show, nofile_hard=2000)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert kept in ("1000\n", "2000\n")


def test_a_group_the_shell_cannot_join_fails_the_command(tmp_path: Path) -> None:
    group = _group(tmp_path)
    group.dirs[1].rmdir()
    result = subprocess.run(group.command(["true"]), capture_output=True, text=True)
    assert result.returncode != 0 and "cgroup.procs" in result.stderr
