"""The kernel settings of tpgen's node, around the trials of the arms built from tpgen's plan.

tpgen's plan decides a few host settings besides nginx.conf (`tpgen explain`, the `sysctl` rows;
the storage_disks role applies them on a node). The bench runs nginx on this host, so an arm
rendered by tpgen runs with them -- applied before its trial, the host's own values put back
after it: the other arms run on the host as it is. `--sysctl-arm` measures them
(`vm.vfs_cache_pressure=100`: tpgen's config without its node's setting).

A run killed with SIGKILL cannot put them back: each value is written to a journal
(/var/tmp/tpgen-bench/sysctls/<pid>-<ns>.json) before it is changed, and `python -m bench cleanup`
restores what a dead run's journal holds. `--readahead-arm` sets the disks' read-ahead the same
way (read_ahead_kb of each loop device, during that arm's trials only)."""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from tpgen.api import Plan

from bench.leftovers import JOURNAL_DIR
from bench.system import BenchError, private_dir

PROC_SYS = Path("/proc/sys")
SYS_BLOCK = Path("/sys/block")
# name, value, at_least (a floor: a host set higher keeps its value)
Setting = tuple[str, str, bool]
_NAME = re.compile(r"[a-z0-9_]+(\.[a-z0-9_-]+)+")


def plan_sysctls(plan: Plan) -> tuple[Setting, ...]:
    """The kernel settings tpgen's plan decides for the node."""
    return tuple((s.name, s.value, s.at_least) for s in plan.sysctls)


def overridden(settings: tuple[Setting, ...], values: Mapping[str, str]) -> tuple[Setting, ...]:
    """`settings` with `values` instead (exactly these values: no floor); new names appended."""
    kept = tuple((n, values.get(n, v), a and n not in values) for n, v, a in settings)
    known = {name for name, _, _ in settings}
    return kept + tuple((n, v, False) for n, v in values.items() if n not in known)


def _file(root: Path, name: str) -> Path:
    if not _NAME.fullmatch(name):
        raise BenchError(f"sysctl {name!r}: expected a dotted name such as vm.vfs_cache_pressure")
    path = root / name.replace(".", "/")
    if not path.is_file():
        raise BenchError(f"sysctl {name!r}: this kernel has no {path}")
    return path


def _above(current: str, value: str) -> bool:
    return current.isdigit() and value.isdigit() and int(current) >= int(value)


def _write_journal(journal: Path, before: list[tuple[Path, str]]) -> None:
    private_dir(journal.parent)
    partial = journal.with_suffix(".tmp")
    partial.write_text(json.dumps([[str(path), value] for path, value in before]))
    partial.replace(journal)  # a kill between the two leaves the previous whole journal


@contextmanager
def applied(
    settings: tuple[Setting, ...], root: Path = PROC_SYS, journal_dir: Path = JOURNAL_DIR
) -> Iterator[None]:
    """The settings in force for the block; the values found before it back after it (or, if
    the process is killed, by `leftovers.restore_journals`)."""
    files = [(_file(root, name), name, value, at_least) for name, value, at_least in settings]
    with _written(files, journal_dir):
        yield


# device (/dev/loopN), KiB, at_least (a disk set higher keeps its value)
ReadAhead = tuple[str, int, bool]


def plan_read_ahead(plan: Plan) -> tuple[ReadAhead, ...]:
    """The read-ahead tpgen's plan decides for each of its disks (a floor)."""
    return tuple(
        (disk.device, disk.read_ahead_kb.value, True)
        for disk in plan.disks
        if disk.read_ahead_kb is not None
    )


def every_disk(devices: Sequence[str], kib: int | None) -> tuple[ReadAhead, ...]:
    """Every device in `devices` reading ahead exactly `kib` KiB (None: none set)."""
    return tuple((device, kib, False) for device in devices) if kib is not None else ()


@contextmanager
def read_ahead(
    settings: Sequence[ReadAhead],
    root: Path = SYS_BLOCK,
    journal_dir: Path = JOURNAL_DIR,
) -> Iterator[None]:
    """Each device's read_ahead_kb as `settings` say for the block, put back and journaled as
    the sysctls are."""
    files = []
    for device, kib, at_least in settings:
        path = root / Path(device).name / "queue" / "read_ahead_kb"
        if not path.is_file():
            raise BenchError(f"{device}: no {path} to set its read-ahead")
        files.append((path, f"{device} read_ahead_kb", str(kib), at_least))
    with _written(files, journal_dir):
        yield


def describe_read_ahead(settings: Sequence[ReadAhead]) -> str:
    """One line: each distinct setting and how many disks get it."""
    counts = Counter((kib, at_least) for _, kib, at_least in settings)
    return ", ".join(
        f"{kib} KiB{' (at least)' if at_least else ''} on {n} disk{'s' * (n != 1)}"
        for (kib, at_least), n in counts.items()
    )


@contextmanager
def _written(files: list[tuple[Path, str, str, bool]], journal_dir: Path) -> Iterator[None]:
    """(file, what it is, value, at least) written for the block, the old values back after."""
    before: list[tuple[Path, str]] = []
    # the clock too: a later run that gets a dead run's pid must not overwrite its journal
    journal = journal_dir / f"{os.getpid()}-{time.time_ns()}.json"
    try:
        for path, name, value, at_least in files:
            current = " ".join(path.read_text().split())
            if current == value or (at_least and _above(current, value)):
                continue
            _write_journal(journal, [*before, (path, current)])
            try:
                path.write_text(value + "\n")
            except OSError as exc:
                raise BenchError(f"cannot set {name} = {value}: {exc.strerror}") from None
            before.append((path, current))
        yield
    finally:
        for path, value in reversed(before):
            path.write_text(value + "\n")
        journal.unlink(missing_ok=True)


def describe(settings: tuple[Setting, ...]) -> str:
    return ", ".join(f"{n}={v}" + (" (at least)" if a else "") for n, v, a in settings) or "none"
