"""A whole run: disks, spec, data, throttle proof, interleaved trials, report; then teardown."""

from __future__ import annotations

import contextlib
import itertools
import math
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tpgen.api import short_size

from bench import armset, dataset, output, runlock, sysctls, tpgencli
from bench.arms import Arm, whole_rounds
from bench.janitor import Janitor, cleaned_up
from bench.leftovers import CGROUP_PREFIX, new_run_id, work_dir
from bench.loopdisk import LoopDisk, make_disk
from bench.settings import Settings
from bench.system import BenchError, cpu_count, free_ports, missing_prerequisites
from bench.throttle import Probe, backing_slow, bites, log_check
from bench.trial import TrialResult, probe_first_disk, run_trial

Log = Callable[[str], None]
_RUN_NUMBERS = itertools.count(1)  # one process may run several (regimes)


@dataclass
class Outcome:
    results: list[TrialResult]
    probes: list[Probe]
    report: str
    goals_met: bool


@dataclass(frozen=True)
class Setup:
    """Everything the trials need, built once per run."""

    run_id: str
    workdir: Path
    disks: list[LoopDisk]
    data: dataset.Dataset
    where: dict[str, str]
    arms: list[Arm]
    port: int


def _header(settings: Settings) -> str:
    m = settings.disk_model
    return (
        f"tpgen bench: {settings.disks} HDD-like loop disks ({m.read_bps / 1e6:.1f} MB/s, "
        f"{m.read_iops} IOPS each), {settings.data_bytes / 2**30:.2f} GiB in "
        f"{short_size(settings.file_size)} files, nginx memory cgroup "
        f"{settings.nginx_memory // 2**20} MiB, {cpu_count()} CPUs, "
        f"{settings.workers or cpu_count()} nginx workers, inodes "
        f"{'cold' if settings.cold_metadata else 'warmed'}; "
        f"{settings.rounds} rounds x {settings.duration:g} s, arms interleaved; "
        f"cold {settings.cold_connections} conns, hot {settings.hot_connections} conns"
        + "".join(f"; {note}" for note in settings.client_notes)
    )


def _probe_files(
    data: dataset.Dataset, where: dict[str, str], disk: LoopDisk, settings: Settings, seconds: float
) -> list[Path]:
    per_group = max(1, math.ceil(settings.disk_model.read_bps * seconds / data.file_size))
    mine = [u for u in data.cold_uris if where[u] == disk.name][: 4 * per_group]
    if len(mine) < 4:
        raise BenchError(f"disk {disk.name} holds too few files for the throttle probe")
    return [dataset.data_dir(disk) / u.lstrip("/") for u in mine]


def _prepare(
    settings: Settings,
    run_id: str,
    workdir: Path,
    out_dir: Path,
    variants: list[armset.Variant],
    janitor: Janitor,
    log: Log,
) -> Setup:
    """Disks, the node spec, tpgen's placement of the files, the data, the arms' configs."""
    disks = _disks(settings, workdir, janitor, log)
    port, status_port = free_ports(2, settings.port_range)
    facts = tpgencli.NodeFacts(
        "bench",
        settings.workers or cpu_count(),
        settings.nginx_memory,
        settings.file_size,
        port,
        status_port,
    )
    spec = tpgencli.SpecFile(facts, tuple(disks), settings.disk_size)
    spec_path = workdir / "spec.yaml"
    spec_path.write_text(spec.text())
    shutil.copy(spec_path, out_dir / "spec.yaml")
    hot, cold = dataset.uris(settings.disks * settings.files_per_disk)
    where = tpgencli.locate(spec_path, [hot, *cold])
    started = time.monotonic()
    data = dataset.build(workdir, disks, where, hot, cold, settings.file_size)
    log(
        f"data: {len(cold) + 1} files in {time.monotonic() - started:.0f} s, per disk "
        + ", ".join(f"{k}={v}" for k, v in data.files_on.items())
        + f"; hot file {hot} on {where[hot]}"
    )
    ctx = armset.Context(
        workdir, out_dir, spec, data.storage, port, status_port, settings.workers or 0, where
    )
    arms = armset.build(settings.arms, variants, ctx)
    for arm in arms:
        _log_node_settings(arm, log)
    return Setup(run_id, workdir, disks, data, where, arms, port)


def _disks(settings: Settings, workdir: Path, janitor: Janitor, log: Log) -> list[LoopDisk]:
    """The run's loop disks, reading ahead as the run says until it ends."""
    disks = [
        make_disk(workdir, f"d{i + 1}", settings.disk_size, janitor) for i in range(settings.disks)
    ]
    host_read_ahead = disks[0].read_ahead_kb
    _pin_read_ahead(disks, settings.disk_model.read_ahead_kb, janitor)
    inode_blocks = settings.disk_model.inode_readahead_blks
    if inode_blocks is not None:
        for disk in disks:
            disk.set_inode_readahead(inode_blocks)
    log(
        "disks: "
        + ", ".join(f"{d.name}={d.device} ({d.majmin})" for d in disks)
        + f"; read-ahead {disks[0].read_ahead_kb} KiB ("
        + (
            f"the run's --disk-read-ahead; the host's {host_read_ahead}"
            if settings.disk_model.read_ahead_kb
            else "the host's"
        )
        + "): every arm but one whose plan or --readahead-arm sets its own"
        + (
            f"; ext4 inode read-ahead {inode_blocks} blocks (--inode-readahead)"
            if inode_blocks is not None
            else ""
        )
    )
    return disks


def _log_node_settings(arm: Arm, log: Log) -> None:
    if arm.sysctls:
        log(f"{arm.name}: during its trials the node's sysctls {sysctls.describe(arm.sysctls)}")
    if arm.read_ahead:
        ahead = sysctls.describe_read_ahead(arm.read_ahead)
        log(f"{arm.name}: during its trials the disks read ahead {ahead}")


def _pin_read_ahead(disks: list[LoopDisk], kib: int | None, janitor: Janitor) -> None:
    """Every disk reads ahead `kib` KiB until the run ends (None: as the host made it)."""
    pinned = contextlib.ExitStack()
    pinned.enter_context(sysctls.read_ahead(sysctls.every_disk([d.device for d in disks], kib)))
    janitor.push("put the disks' read-ahead back", pinned.close)


def _check_throttle(
    setup: Setup, settings: Settings, probe_seconds: float, strict: bool, log: Log
) -> list[Probe]:
    disk = setup.disks[0]
    files = _probe_files(setup.data, setup.where, disk, settings, probe_seconds)
    probes = probe_first_disk(f"{CGROUP_PREFIX}{setup.run_id}-probe", setup.disks, settings, files)
    slow = backing_slow(probes, settings.disk_model)
    problems = [p for p in bites(probes, settings.disk_model) if p != slow]
    if slow:
        log(f"  -> warning: {slow} (the host caps every arm alike)")
    title = f"{disk.name} (cold reads, measured at the block device)"
    log_check(title, probes, problems, strict=strict, log=log)
    return probes


def _rounds(
    setup: Setup, settings: Settings, log: Log, trial: Callable[..., TrialResult] = run_trial
) -> list[TrialResult]:
    def one(arm: Arm, round_no: int) -> TrialResult:
        return trial(
            arm,
            round_no,
            settings=settings,
            disks=setup.disks,
            data=setup.data,
            port=setup.port,
            workdir=setup.workdir,
            cgroup_name=f"{CGROUP_PREFIX}{setup.run_id}-{arm.name}",
        )

    return whole_rounds(setup.arms, settings.rounds, one, log, output.progress_line)


@runlock.holds_the_lock("run")
def run_bench(
    settings: Settings,
    out_dir: Path,
    *,
    variants: list[armset.Variant] | None = None,
    probe_seconds: float = 2.0,
    strict_throttle: bool = True,
    log: Log = print,
) -> Outcome:
    """Run the bench as `settings` say; write table.txt, results.json (and plot.png) to out_dir.

    Everything set up on the host is torn down before this returns or raises."""
    if problems := missing_prerequisites():
        raise BenchError("; ".join(problems))
    variants = variants or []
    out_dir.mkdir(parents=True, exist_ok=True)
    run_id = new_run_id(str(next(_RUN_NUMBERS)))
    header = _header(settings)
    log(header)
    with cleaned_up(log) as janitor:
        workdir = work_dir(run_id, janitor)
        janitor.push("keep the logs", lambda: output.keep_logs(workdir, out_dir))
        log(f"work dir {workdir}")
        setup = _prepare(settings, run_id, workdir, out_dir, variants, janitor, log)
        probes = _check_throttle(setup, settings, probe_seconds, strict_throttle, log)
        results = _rounds(setup, settings, log)
    candidates = ["tpgen", *(v.name for v in variants)]
    report, goals_met = output.write(out_dir, header, settings, probes, results, candidates)
    return Outcome(results, probes, report, goals_met)
