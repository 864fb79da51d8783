"""Command line: `python -m bench run|smoke|balance|splitcost|check|cleanup`.

Exit codes: 0 done (run: every goal met), 1 run finished but a goal was missed, 2 the bench could
not run (missing tool, not root, throttle not biting...), 130 interrupted (cleanup still ran).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from bench import leftovers
from bench.armset import Variant
from bench.janitor import Interrupted
from bench.runner import run_bench
from bench.settings import FULL, SMOKE, with_overrides
from bench.system import BenchError, missing_prerequisites


def _log(line: str) -> None:
    print(line, flush=True)  # progress shows up at once, also when piped to a file


def _arm_file(text: str) -> Variant:
    name, sep, path = text.partition("=")
    if not sep or not re.fullmatch(r"[a-z][a-z0-9_-]*", name) or not Path(path).is_file():
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected NAME=FILE, e.g. big=bench-results/tpgen.conf.template (edited)"
        )
    return Variant(name, template=Path(path))


def _tuning_arm(text: str) -> Variant:
    name, sep, rest = text.partition(":")
    pairs = [pair.partition("=") for pair in rest.split(",")] if sep else []
    if not re.fullmatch(r"[a-z][a-z0-9_-]*", name) or not pairs or not all(p[1] for p in pairs):
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected NAME:KEY=VALUE[,KEY=VALUE], e.g. t64:threads_per_disk=64"
        )
    return Variant(name, tuning={key: value for key, _, value in pairs})


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="the full benchmark (needs root; minutes)")
    run.add_argument("--rounds", type=int, help=f"rounds of interleaved arms ({FULL.rounds})")
    run.add_argument("--duration", type=float, help=f"seconds per load ({FULL.duration:g})")
    run.add_argument("--disks", type=int, help=f"emulated HDDs ({FULL.disks})")
    run.add_argument("--files-per-disk", type=int, help=f"({FULL.files_per_disk})")
    run.add_argument("--arms", help="comma-separated subset of stock,tpgen,handwritten,floor")
    run.add_argument(
        "--arm-file",
        type=_arm_file,
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="also run this config; placeholders @PORT@ @PREFIX@ @STORAGE@ @MNT@ @STATUS_PORT@ "
        "(start from the tpgen.conf.template a run leaves in --out)",
    )
    run.add_argument(
        "--tuning-arm",
        type=_tuning_arm,
        action="append",
        default=[],
        metavar="NAME:KEY=VALUE[,...]",
        help="also run tpgen's config for the spec with these `tuning:` overrides",
    )
    run.add_argument(
        "--out",
        type=Path,
        default=Path("bench-results"),
        help="where table.txt, results.json, plot.png and logs go",
    )
    run.add_argument("--no-plot", action="store_true")
    run.add_argument(
        "--cold-metadata",
        action="store_true",
        help="do not pre-read the inodes: open() then blocks the event loop",
    )
    smoke = sub.add_parser("smoke", help="a few seconds, one tiny disk: does the harness work?")
    smoke.add_argument("--out", type=Path, default=Path("bench-results/smoke"))
    sub.add_parser("balance", help="the bucket map's balance and remap table (no root, seconds)")
    splitcost = sub.add_parser("splitcost", help="hot-path cost of split_clients (real nginx, wrk)")
    splitcost.add_argument("--rounds", type=int, default=7, help="interleaved rounds (7)")
    splitcost.add_argument("--duration", type=int, default=3, help="whole seconds per arm (3)")
    sub.add_parser("check", help="list missing prerequisites")
    sub.add_parser("cleanup", help="remove what a killed run left behind")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "balance":
            from bench.balance import run_balance

            return run_balance(_log)
        if args.command == "splitcost":
            from bench.splitcost import run_splitcost

            return run_splitcost(_log, rounds=args.rounds, duration=args.duration)
        if args.command == "check":
            problems = missing_prerequisites()
            for problem in problems:
                print(problem)
            return 2 if problems else 0
        if args.command == "cleanup":
            left = leftovers.remove()
            for kind, items in left.items():
                for item in items:
                    print(f"still there: {kind} {item}")
            return 2 if any(left.values()) else 0
        if args.command == "smoke":
            outcome = run_bench(SMOKE, args.out, probe_seconds=1.0, log=_log)
            print(outcome.report)
            return 0
        settings = with_overrides(
            FULL,
            rounds=args.rounds,
            duration=args.duration,
            disks=args.disks,
            files_per_disk=args.files_per_disk,
            arms=tuple(args.arms.split(",")) if args.arms else None,
            plot=False if args.no_plot else None,
            cold_metadata=True if args.cold_metadata else None,
        )
        outcome = run_bench(
            settings, args.out, variants=[*args.arm_file, *args.tuning_arm], log=_log
        )
        print(outcome.report)
        print(f"\nwritten to {args.out}/")
        return 0 if outcome.goals_met else 1
    except Interrupted as exc:
        print(f"bench: {exc}; cleaned up", file=sys.stderr)
        return 130
    except BenchError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 2
