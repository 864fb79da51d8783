"""What a run leaves: the progress lines, table.txt, results.json and plot.png."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from bench.report import Goal, Trial, goals, noise, rounds_table, table
from bench.settings import Settings
from bench.throttle import Probe
from bench.trial import TrialResult

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


def progress_line(result: TrialResult) -> str:
    cold = result.cold.rps if result.cold else 0.0
    line = (
        f"round {result.round} {result.arm:<12} hot {result.hot.rps:8.1f} req/s "
        f"p99 {result.hot.latency_p99_ms:8.1f} ms | cold {cold:6.1f} req/s | disk "
        f"{result.disk_mbps:6.1f} MB/s {result.disk_iops:6.0f} IOPS"
    )
    if result.worker_spread is not None:
        line += f" | busiest worker {result.worker_spread:.2f}x the mean"
    if result.send_queue_mib is not None:
        line += f" | send queues ≤ {result.send_queue_mib:.0f} MiB"
    if result.problems:
        line += f" | {len(result.problems)} error-log lines"
    if stalled := result.stalled_loads():
        line += f" | STALLED: wrk of the {' and '.join(stalled)} load killed, nothing counted"
    return line


def _trial_json(result: TrialResult) -> dict[str, object]:
    data = asdict(result)
    data.update(
        disk_mbps=result.disk_mbps, disk_iops=result.disk_iops, total_mbps=result.total_mbps
    )
    return data


def write(
    out_dir: Path,
    header: str,
    settings: Settings,
    probes: Sequence[Probe],
    results: Sequence[TrialResult],
    candidates: Sequence[str],
) -> tuple[str, bool]:
    """Write the outputs; return the report text and whether tpgen's arm met every goal."""
    present = with_trials(candidates, results)
    lines = report_head(header, probes)
    lines += [table(results, present), "", "every trial:", rounds_table(results), ""]
    lines += [noise(results)]
    verdicts = {arm: goals(results, settings, arm) for arm in present}
    for arm, verdict in verdicts.items():
        lines += ["", f"goals ({arm}):", *goal_lines(verdict)]
    report = "\n".join(lines)
    save(out_dir, report, settings, probes, [_trial_json(r) for r in results])
    if settings.plot:
        from bench.plot import save_png

        budget = settings.disks * settings.disk_model.read_bps / 1e6
        save_png(results, out_dir / "plot.png", header.split(";")[0], budget)
    return report, tpgen_met(verdicts)


def with_trials(candidates: Sequence[str], results: Sequence[Trial]) -> list[str]:
    """The candidate arms that ran a trial."""
    return [c for c in candidates if any(r.arm == c for r in results)]


def report_head(header: str, probes: Sequence[Probe]) -> list[str]:
    """A report's first lines, in either workload: the run's header and the throttle check."""
    return [header, "", "throttle check:", *(p.line() for p in probes), ""]


def goal_lines(verdict: Sequence[Goal]) -> list[str]:
    return [f"  [{'ok' if g.ok else 'MISSED'}] {g.text}: {g.value}" for g in verdict]


def tpgen_met(verdicts: dict[str, list[Goal]]) -> bool:
    """Whether tpgen's arm ran and met every goal."""
    tpgen_goals = verdicts.get("tpgen", [])
    return bool(tpgen_goals) and all(g.ok for g in tpgen_goals)


def save(
    out_dir: Path,
    report: str,
    settings: DataclassInstance,
    probes: Sequence[Probe],
    trials: list[dict[str, object]],
) -> None:
    """table.txt and results.json, in either workload."""
    (out_dir / "table.txt").write_text(report + "\n")
    payload = {
        "settings": asdict(settings),
        "probes": [asdict(p) for p in probes],
        "trials": trials,
    }
    (out_dir / "results.json").write_text(json.dumps(payload, indent=1))


def keep_logs(workdir: Path, out_dir: Path) -> None:
    """The run's logs (workdir/logs) into out_dir, before the work dir goes."""
    logs = workdir / "logs"
    if logs.exists():
        shutil.copytree(logs, out_dir / "logs", dirs_exist_ok=True)
