"""A whole cache run: disks, origin, the arms' configs, warm sets, throttle proof, interleaved
trials, report; then teardown (every step registered with the janitor as it is made)."""

from __future__ import annotations

import math
import os
import re
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from bench import output, runlock, tpgencli
from bench.arms import Arm, substitute, whole_rounds
from bench.armset import Variant, as_template, edited
from bench.cache import configs, store
from bench.cache.report import goals, per_disk, rounds_table, table
from bench.cache.settings import CacheSettings
from bench.cache.trial import (
    HOT_URI,
    CacheTrial,
    LiveArm,
    Origin,
    fetch,
    run_cache_trial,
    warm_uris,
)
from bench.cgroups import Cgroup, new_cgroup
from bench.janitor import Janitor, cleaned_up
from bench.leftovers import CGROUP_PREFIX, new_run_id, work_dir
from bench.loopdisk import LoopDisk, make_disk, unmount
from bench.nginxproc import CACHE_LOADER_TITLE, Nginx, titled
from bench.report import other_cpu_line
from bench.system import BenchError, cpu_count, free_ports, missing_prerequisites, run
from bench.throttle import Probe, bites, log_check
from bench.trial import limited_cgroup, probe_first_disk

Log = Callable[[str], None]


@dataclass
class CacheOutcome:
    results: list[CacheTrial]
    probes: list[Probe]
    report: str
    goals_met: bool


@dataclass(frozen=True)
class _Setup:
    run_id: str
    workdir: Path
    disks: list[LoopDisk]
    live: list[LiveArm]
    origin: Origin
    ours: list[Cgroup]  # the cgroups of every nginx the bench runs (origin and arms)
    warm_list: Path


def header(settings: CacheSettings) -> str:
    m = settings.disk_model
    warm = settings.warm_objects * settings.object_size
    return (
        f"tpgen cache bench: {settings.disks} HDD-like loop disks ({m.read_bps / 1e6:.1f} MB/s, "
        f"{m.read_iops} IOPS each, writes unthrottled), {settings.object_size >> 20} MiB "
        f"objects, warm set {warm / 2**30:.2f} GiB, nginx memory cgroup "
        f"{settings.nginx_memory >> 20} MiB, {cpu_count()} CPUs; {settings.rounds} rounds x "
        f"{settings.duration:g} s, arms interleaved; conns: fill {settings.fill_connections}, "
        f"HIT {settings.warm_connections}, hot {settings.hot_connections}; origin "
        f"{settings.origin_rps} objects/s"
    )


def _start_origin(
    workdir: Path, run_id: str, settings: CacheSettings, port: int, janitor: Janitor
) -> tuple[Origin, Cgroup]:
    """The origin nginx: one object on tmpfs, answered for every URI, outside any throttle."""
    data = workdir / "origin-data"
    data.mkdir()
    size_mib = math.ceil(settings.object_size / 2**20) + 4
    run(["mount", "-t", "tmpfs", "-o", f"size={size_mib}m,mode=0755", "tpgen-bench", str(data)])
    janitor.push(f"unmount {data}", lambda: unmount(data))
    (data / configs.OBJECT).write_bytes(os.urandom(settings.object_size))
    (data / configs.OBJECT).chmod(0o644)
    prefix = workdir / "origin"
    prefix.mkdir()
    conf = prefix / "nginx.conf"
    conf.write_text(configs.origin_conf(prefix, data, port, settings.origin_rps))
    cgroup = new_cgroup(f"{CGROUP_PREFIX}{run_id}-origin")
    cgroup.create()
    janitor.push("remove the origin's cgroup", cgroup.destroy)
    nginx = Nginx(conf, prefix, port, cgroup)
    janitor.push("stop the origin", nginx.stop)
    nginx.start()
    return Origin(prefix / "access.log"), cgroup


def _placeholders(workdir: Path, ports: configs.Ports, prefix: Path, arm: str) -> dict[str, str]:
    return {
        "PORT": str(ports.front),
        "STATUS_PORT": str(ports.status),
        "ORIGIN_PORT": str(ports.origin),
        "MNT": str(workdir / "mnt"),
        "PREFIX": str(prefix),
        "ARM": arm,
    }


def _as_template(conf: str, values: dict[str, str]) -> str:
    """The arm's config with its paths and ports as placeholders; the arm's name only where it
    names the cache directories (`$tpgen_disk` and the like stay)."""
    arm = values["ARM"]
    conf = as_template(conf, {key: value for key, value in values.items() if key != "ARM"})
    return re.sub(rf"(proxy_cache_path @MNT@/\w+/){arm}(\s)", r"\g<1>@ARM@\g<2>", conf)


def _tpgen(
    name: str,
    tuning: dict[str, str],
    workdir: Path,
    disks: Sequence[LoopDisk],
    disk_size: int,
    ports: configs.Ports,
    settings: CacheSettings,
    prefix: Path,
) -> str:
    spec = workdir / f"spec-{name}.yaml"
    spec.write_text(
        configs.spec_text(
            disks,
            disk_size,
            cores=cpu_count(),
            memory=settings.nginx_memory,
            object_size=settings.object_size,
            ports=ports,
            tuning=tuning,
        )
    )
    rendered = tpgencli.render(spec, workdir / f"{name}-rendered.conf")
    return configs.tpgen_arm_conf(rendered, prefix, name)


def _arm_conf(
    name: str,
    variant: Variant | None,
    settings: CacheSettings,
    workdir: Path,
    out_dir: Path,
    disks: Sequence[LoopDisk],
    disk_size: int,
    ports: configs.Ports,
) -> Arm:
    prefix = workdir / "arms" / name
    prefix.mkdir(parents=True)
    values = _placeholders(workdir, ports, prefix, name)
    if variant is not None and variant.template is not None:
        conf = substitute(variant.template.read_text(), values)
    elif variant is not None:
        conf = _tpgen(name, variant.tuning, workdir, disks, disk_size, ports, settings, prefix)
        conf = edited(conf, variant.edits)
    elif name == "stock":
        conf = configs.stock_conf(prefix, disks, ports)
    elif name == "article":
        conf = configs.article_conf(prefix, disks, ports, cpu_count())
    elif name == "tpgen":
        conf = _tpgen(name, {}, workdir, disks, disk_size, ports, settings, prefix)
        shutil.copy(workdir / "spec-tpgen.yaml", out_dir / "spec-cache.yaml")
        (out_dir / "tpgen-cache.conf.template").write_text(_as_template(conf, values))
    else:
        raise BenchError(f"unknown arm {name!r}: built-in arms are {sorted(configs.TITLES)}")
    (prefix / "nginx.conf").write_text(conf)
    return Arm(
        name, prefix / "nginx.conf", True, variant.title if variant else configs.TITLES[name]
    )


def _start_arms(
    settings: CacheSettings,
    variants: Sequence[Variant],
    run_id: str,
    workdir: Path,
    out_dir: Path,
    disks: Sequence[LoopDisk],
    disk_size: int,
    free: Sequence[int],
    origin_port: int,
    janitor: Janitor,
) -> list[LiveArm]:
    """Every arm's nginx, each on its own port in its own throttled cgroup, for the whole run."""
    by_name = {v.name: v for v in variants}
    if clash := set(by_name) & {*configs.TITLES, *settings.arms}:
        raise BenchError(f"variant names clash with built-in arms: {sorted(clash)}")
    if with_sysctls := sorted(v.name for v in variants if v.sysctls):
        # every arm's nginx runs for the whole run, and a sysctl is the host's: no arm can have one
        raise BenchError(
            f"--sysctl-arm {', '.join(with_sysctls)}: the cache workload runs all arms at once, "
            "so kernel settings cannot differ between them; run it with the origin workload"
        )
    names = [*settings.arms, *by_name]
    live = []
    for i, name in enumerate(names):
        ports = configs.Ports(free[2 * i], free[2 * i + 1], origin_port)
        arm = _arm_conf(
            name, by_name.get(name), settings, workdir, out_dir, disks, disk_size, ports
        )
        cgroup = limited_cgroup(f"{CGROUP_PREFIX}{run_id}-{name}", disks, settings)
        janitor.push(f"remove the cgroup of {name}", cgroup.destroy)
        nginx = Nginx(arm.conf, arm.prefix, ports.front, cgroup)
        janitor.push(f"stop {name}", nginx.stop)
        nginx.start()
        live.append(LiveArm(arm, nginx, cgroup, ports.front, tuple(configs.arm_dirs(name, disks))))
    return live


# nginx renames a response into its cache after the client has the last byte: on a busy
# machine the scan right after the fetch can miss the newest files for a moment.
CACHE_SETTLE_SECONDS = 10.0


def _cached_per_disk(setup: _Setup, live: LiveArm, expected: int) -> dict[str, int]:
    """Cache files per disk of an arm, once all ``expected`` are there or the settle time is up."""
    deadline = time.monotonic() + CACHE_SETTLE_SECONDS
    while True:
        files = store.scan(live.dirs)
        per_disk = {
            d.name: sum(1 for p in files if p.is_relative_to(d.mount) and len(p.name) == 32)
            for d in setup.disks
        }
        if sum(per_disk.values()) >= expected or time.monotonic() > deadline:
            return per_disk
        time.sleep(0.1)


def _populate(setup: _Setup, settings: CacheSettings, log: Log) -> None:
    """Cache the warm set and the hot object through each arm itself: its own layout."""
    uris = [HOT_URI, *warm_uris(settings.warm_objects)]
    for live in setup.live:
        started = time.monotonic()
        fetch(live.port, uris, settings.object_size, settings.populate_concurrency)
        seconds = time.monotonic() - started
        per_disk = _cached_per_disk(setup, live, len(uris))
        cached = sum(per_disk.values())
        log(
            f"warm set via {live.arm.name}: {len(uris)} objects in {seconds:.1f} s "
            f"({len(uris) * settings.object_size / seconds / 1e6:.0f} MB/s), cached per disk "
            + ", ".join(f"{k}={v}" for k, v in per_disk.items())
        )
        if cached != len(uris):
            raise BenchError(
                f"arm {live.arm.name} cached {cached} of {len(uris)} objects: check "
                f"{live.error_log} and its proxy_cache settings"
            )


def _wait_for_loaders(setup: _Setup, log: Log, timeout: float = 180.0) -> None:
    """nginx's cache loader walks the cache a minute after start: let it finish before the
    trials, so that it does not read directories from a throttled disk in the middle of one."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        busy = [live.arm.name for live in setup.live if _has_loader(live.cgroup)]
        if not busy:
            log(f"cache loaders done ({time.monotonic() - started:.0f} s wait)")
            return
        time.sleep(1.0)
    raise BenchError(f"the cache loaders of {busy} still run after {timeout:.0f} s")


def _has_loader(cgroup: Cgroup) -> bool:
    return bool(titled(cgroup.pids(), CACHE_LOADER_TITLE))


def _check_throttle(
    setup: _Setup, settings: CacheSettings, seconds: float, strict: bool, log: Log
) -> list[Probe]:
    disk = setup.disks[0]
    files = sorted(p for p in store.scan([disk.mount]) if len(p.name) == 32)
    per_group = max(1, math.ceil(settings.disk_model.read_bps * seconds / settings.object_size))
    files = files[: 4 * per_group]
    probes = probe_first_disk(f"{CGROUP_PREFIX}{setup.run_id}-probe", setup.disks, settings, files)
    title = f"{disk.name} (cold reads of cached objects, at the block device)"
    log_check(title, probes, bites(probes, settings.disk_model), strict=strict, log=log)
    return probes


def progress_line(t: CacheTrial) -> str:
    line = (
        f"round {t.round} {t.arm:<10} hot {t.hot.rps:7.1f} req/s p99 "
        f"{t.hot.latency_p99_ms:7.1f} ms | HIT {t.warm.rps:5.1f} req/s {100 * t.hit_ratio:5.1f}% "
        f"| fill {t.fill_mbps:6.1f} MB/s | disk read "
        + " ".join(f"{v:5.1f}" for v in t.disk_read_mbps().values())
        + " MB/s"
    )
    if t.problems:
        line += f" | {len(t.problems)} error-log lines"
    return line


def _prepare(
    settings: CacheSettings,
    run_id: str,
    workdir: Path,
    out_dir: Path,
    variants: Sequence[Variant],
    janitor: Janitor,
    log: Log,
) -> _Setup:
    disk_size = settings.disk_size(len(settings.arms) + len(variants))
    disks = [make_disk(workdir, f"d{i + 1}", disk_size, janitor) for i in range(settings.disks)]
    log("disks: " + ", ".join(f"{d.name}={d.device} ({d.majmin})" for d in disks))
    origin_port, *free = free_ports(
        1 + 2 * (len(settings.arms) + len(variants)), settings.port_range
    )
    origin, origin_cgroup = _start_origin(workdir, run_id, settings, origin_port, janitor)
    live = _start_arms(
        settings, variants, run_id, workdir, out_dir, disks, disk_size, free, origin_port, janitor
    )
    log(
        f"origin on 127.0.0.1:{origin_port}; arms on "
        + ", ".join(f"{a.arm.name}=127.0.0.1:{a.port}" for a in live)
    )
    warm_list = workdir / "warm-uris.txt"
    warm_list.write_text("".join(f"{u}\n" for u in warm_uris(settings.warm_objects)))
    ours = [origin_cgroup, *(a.cgroup for a in live)]
    return _Setup(run_id, workdir, disks, live, origin, ours, warm_list)


def _rounds(setup: _Setup, settings: CacheSettings, log: Log) -> list[CacheTrial]:
    logs = setup.workdir / "logs"
    logs.mkdir(exist_ok=True)

    def one(live: LiveArm, round_no: int) -> CacheTrial:
        return run_cache_trial(
            live,
            round_no,
            settings=settings,
            disks=setup.disks,
            origin=setup.origin,
            ours=setup.ours,
            warm_list=setup.warm_list,
            logs=logs,
        )

    return whole_rounds(setup.live, settings.rounds, one, log, progress_line)


def _write(
    out_dir: Path,
    head: str,
    settings: CacheSettings,
    probes: Sequence[Probe],
    results: Sequence[CacheTrial],
    candidates: Sequence[str],
) -> tuple[str, bool]:
    present = output.with_trials(candidates, results)
    lines = output.report_head(head, probes)
    lines += [table(results, present), "", per_disk(results), "", "every trial:"]
    lines += [rounds_table(results), "", other_cpu_line(results)]
    verdicts = {arm: goals(results, arm) for arm in present}
    for arm, verdict in verdicts.items():
        if verdict:
            lines += ["", f"goals ({arm} vs the article's layout):", *output.goal_lines(verdict)]
    report = "\n".join(lines)
    trials = [
        {**asdict(r), "hit_ratio": r.hit_ratio, "fill_mbps": r.fill_mbps, "read_mbps": r.read_mbps}
        for r in results
    ]
    output.save(out_dir, report, settings, probes, trials)
    return report, output.tpgen_met(verdicts)


@runlock.holds_the_lock("run --workload cache")
def run_cache_bench(
    settings: CacheSettings,
    out_dir: Path,
    *,
    variants: Sequence[Variant] = (),
    probe_seconds: float = 2.0,
    strict_throttle: bool = True,
    log: Log = print,
) -> CacheOutcome:
    """Run the cache bench as `settings` say; write table.txt and results.json to out_dir.

    Everything set up on the host is torn down before this returns or raises."""
    if problems := missing_prerequisites():
        raise BenchError("; ".join(problems))
    out_dir.mkdir(parents=True, exist_ok=True)
    run_id = new_run_id("cache")
    head = header(settings)
    log(head)
    with cleaned_up(log) as janitor:
        workdir = work_dir(run_id, janitor)
        janitor.push("keep the logs", lambda: _keep_logs(workdir, out_dir))
        log(f"work dir {workdir}")
        setup = _prepare(settings, run_id, workdir, out_dir, variants, janitor, log)
        _populate(setup, settings, log)
        if settings.wait_for_loaders:
            _wait_for_loaders(setup, log)
        probes = _check_throttle(setup, settings, probe_seconds, strict_throttle, log)
        results = _rounds(setup, settings, log)
    candidates = ["tpgen", *(v.name for v in variants)]
    report, goals_met = _write(out_dir, head, settings, probes, results, candidates)
    return CacheOutcome(results, probes, report, goals_met)


def _keep_logs(workdir: Path, out_dir: Path) -> None:
    output.keep_logs(workdir, out_dir)
    for error_log in [*workdir.glob("arms/*/error.log"), workdir / "origin" / "error.log"]:
        if error_log.exists():
            (out_dir / "logs").mkdir(parents=True, exist_ok=True)
            shutil.copy(error_log, out_dir / "logs" / f"{error_log.parent.name}-error.log")
