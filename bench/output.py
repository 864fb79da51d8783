"""What a run leaves: the progress lines, table.txt, results.json and plot.png."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from bench.report import goals, noise, rounds_table, table
from bench.settings import Settings
from bench.throttle import Probe
from bench.trial import TrialResult


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
    present = [c for c in candidates if any(r.arm == c for r in results)]
    lines = [header, "", "throttle check:", *(p.line() for p in probes), ""]
    lines += [table(results, present), "", "every trial:", rounds_table(results), ""]
    lines += [noise(results)]
    verdicts = {arm: goals(results, settings, arm) for arm in present}
    for arm, verdict in verdicts.items():
        lines += ["", f"goals ({arm}):"]
        lines += [f"  [{'ok' if g.ok else 'MISSED'}] {g.text}: {g.value}" for g in verdict]
    report = "\n".join(lines)
    (out_dir / "table.txt").write_text(report + "\n")
    payload = {
        "settings": asdict(settings),
        "probes": [asdict(p) for p in probes],
        "trials": [_trial_json(r) for r in results],
    }
    (out_dir / "results.json").write_text(json.dumps(payload, indent=1))
    if settings.plot:
        from bench.plot import save_png

        budget = settings.disks * settings.disk_model.read_bps / 1e6
        save_png(results, out_dir / "plot.png", header.split(";")[0], budget)
    tpgen_goals = verdicts.get("tpgen", [])
    return report, bool(tpgen_goals) and all(g.ok for g in tpgen_goals)
