"""Command line: `python -m bench
run|smoke|balance|splitcost|cork|threads|metadata|summary|odds|check|cleanup` (`run|smoke --workload
cache`: bench.cache).

Exit codes: 0 done (run: every goal met), 1 run finished but a goal was missed, 2 the bench could
not run (missing tool, not root, throttle not biting...), 130 interrupted (cleanup still ran).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from tpgen.api import parse_size, short_size

from bench import leftovers, runlock
from bench.armset import Variant
from bench.janitor import Interrupted
from bench.regimes import load_pair, plan, run_regimes, write_summary
from bench.runner import run_bench
from bench.settings import (
    FULL,
    MAX_ROUNDS,
    REGIME_BASE,
    REGIME_WORKERS,
    REGIMES,
    SMOKE_REGIMES,
    MiB,
    Settings,
    smoke_regime,
    with_overrides,
)
from bench.system import BenchError, missing_prerequisites
from bench.threadcost import SHAPES, measure

# A variant's name: it names the arm's directory and its column in every table.
_ARM_NAME = re.compile(r"[a-z][a-z0-9_-]*")


def _log(line: str) -> None:
    print(line, flush=True)  # progress shows up at once, also when piped to a file


def _arm_file(text: str) -> Variant:
    name, sep, path = text.partition("=")
    if not sep or not _ARM_NAME.fullmatch(name) or not Path(path).is_file():
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected NAME=FILE, e.g. big=bench-results/tpgen.conf.template (edited)"
        )
    return Variant(name, template=Path(path))


def _shape(text: str) -> tuple[int, int, int]:
    parts = text.split(":")
    if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"{text!r}: expected WORKERS:POOLS:THREADS, e.g. 2:4:64")
    return int(parts[0]), int(parts[1]), int(parts[2])


def _whole(what: str, high: int, example: int, low: int = 1) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high`, else the usage in one line."""

    def parse(text: str) -> int:
        if not text.isdigit() or not low <= int(text) <= high:
            raise argparse.ArgumentTypeError(
                f"{text!r}: expected {what} from {low} to {high}, e.g. {example}"
            )
        return int(text)

    return parse


_think_ms = _whole("whole milliseconds", 10_000, 100)
_every = _whole("a whole count", 100_000, 10)
_connections = _whole("a whole count of connections", 10_000, 240)
_rounds = _whole("rounds", MAX_ROUNDS, 6)
_seed = _whole("a whole seed", 1_000_000, 7, low=0)
# wrk takes whole seconds
_seconds = _whole("whole seconds", 3600, 10)
_disks = _whole("a whole count of disks", 32, 6)
_files = _whole("a whole count of files", 100_000, 512)
_mib_per_s = _whole("whole MiB/s", 10_000, 150)
_iops = _whole("a whole count of reads a second", 100_000, 400)
READ_AHEAD_KIB = (4, 65_536)  # what the bench lets a disk read ahead
_read_ahead_kib = _whole("a read-ahead in whole KiB", READ_AHEAD_KIB[1], 128, low=READ_AHEAD_KIB[0])


def _inode_readahead(text: str) -> int:
    """ext4 takes 0 or a power of two (its default is 32 blocks)."""
    if not text.isdigit() or int(text) > 4096 or (int(text) & (int(text) - 1)):
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected 0 or a power of two up to 4096 blocks, e.g. 0"
        )
    return int(text)


def _size(low: int, high: int, example: str) -> Callable[[str], int]:
    """An argparse type: a size as a spec writes it (256KiB, 1MiB) from `low` to `high`, else
    the usage in one line."""

    def parse(text: str) -> int:
        try:
            size = parse_size(text)
        except ValueError:
            size = 0
        if not low <= size <= high:
            raise argparse.ArgumentTypeError(
                f"{text!r}: expected a size from {short_size(low)} to {short_size(high)}, "
                f"e.g. {example}"
            )
        return size

    return parse


_file_size = _size(4 << 10, 64 << 20, "256KiB")
# tpgen refuses a node.memory below 256 MiB, and the bench's specs state the cgroup's limit.
_nginx_memory = _size(256 << 20, 64 << 30, "384MiB")


def _mix_keys(text: str) -> tuple[str, ...]:
    """An argparse type: the mixes `corkcost.mixes` knows, comma-separated."""
    from bench.corkcost import mixes

    keys = tuple(part for part in text.split(",") if part)
    try:
        mixes(1, 1, keys)
    except BenchError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None
    return keys


def _named_parts(
    text: str, item_sep: str, pair_sep: str, usage: str, ok: Callable[[str, str], bool]
) -> tuple[str, list[tuple[str, str]]]:
    """NAME:LEFT<pair_sep>RIGHT[<item_sep>...], every pair `ok`; else the usage line."""
    name, sep, rest = text.partition(":")
    parts = [part.partition(pair_sep) for part in rest.split(item_sep)] if sep else []
    if (
        not _ARM_NAME.fullmatch(name)
        or not parts
        or not all(found and ok(left, right) for left, found, right in parts)
    ):
        raise argparse.ArgumentTypeError(f"{text!r}: expected {usage}")
    return name, [(left, right) for left, _, right in parts]


def _tuning_arm(text: str) -> Variant:
    usage = "NAME:KEY=VALUE[,KEY=VALUE], e.g. t64:threads_per_disk=64"
    name, pairs = _named_parts(text, ",", "=", usage, lambda key, value: True)
    return Variant(name, tuning=dict(pairs))


def _edit_arm(text: str) -> Variant:
    usage = "NAME:OLD=>NEW[|OLD=>NEW], e.g. 'norp: reuseport=>'"
    name, edits = _named_parts(text, "|", "=>", usage, lambda old, new: bool(old))
    return Variant(name, edits=tuple(edits))


def _sysctl_arm(text: str) -> Variant:
    usage = "NAME:SYSCTL=VALUE[,SYSCTL=VALUE], e.g. vcp100:vm.vfs_cache_pressure=100"
    name, pairs = _named_parts(
        text,
        ",",
        "=",
        usage,
        lambda key, value: bool(re.fullmatch(r"[a-z0-9_]+(\.[a-z0-9_-]+)+", key) and value),
    )
    return Variant(name, sysctls=dict(pairs))


def _readahead_arm(text: str) -> Variant:
    name, sep, kib = text.partition(":")
    usage = argparse.ArgumentTypeError(
        f"{text!r}: expected NAME:KIB, read-ahead from {READ_AHEAD_KIB[0]} to "
        f"{READ_AHEAD_KIB[1]} KiB, e.g. ra512:512"
    )
    if not sep or not _ARM_NAME.fullmatch(name):
        raise usage
    try:
        return Variant(name, read_ahead_kb=_read_ahead_kib(kib))
    except argparse.ArgumentTypeError:
        raise usage from None


def _variants(args: argparse.Namespace) -> list[Variant]:
    return [*args.arm_file, *args.tuning_arm, *args.edit_arm, *args.sysctl_arm, *args.readahead_arm]


def _add_cork(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cork = sub.add_parser(
        "cork", help="tcp_nopush on and off, no disk: kept and reconnecting clients (wrk)"
    )
    cork.add_argument("--workers", type=_whole("nginx workers", 64, 2), default=2, help="(2)")
    cork.add_argument("--rounds", type=_rounds, default=6, help="(6)")
    cork.add_argument(
        "--duration", type=_whole("whole seconds", 600, 6), default=6, help="per trial (6)"
    )
    cork.add_argument(
        "--reconnect-every", type=_every, default=10, metavar="N", help="closing mix's N (10)"
    )
    cork.add_argument(
        "--hot-think-ms", type=_think_ms, default=80, metavar="MS", help="paced mix's wait (80)"
    )
    cork.add_argument(
        "--file-size", type=_file_size, default="4MiB", metavar="SIZE", help="the answer (4MiB)"
    )
    cork.add_argument(
        "--mixes",
        type=_mix_keys,
        default="kept,built,closing,paced",
        help="client mixes to run (kept,built,closing,paced)",
    )
    cork.add_argument(
        "--on-loop",
        action="store_true",
        help="sendfile on the event loop (no thread pool), as on a node with no pooled disk",
    )


def _add_run(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = sub.add_parser("run", help="the full benchmark (needs root; minutes)")
    run.add_argument(
        "--workload",
        choices=("origin", "cache"),
        default="origin",
        help="origin: files served from the disks; cache: a proxy cache on them (bench.cache)",
    )
    run.add_argument("--rounds", type=_rounds, help=f"rounds of interleaved arms ({FULL.rounds})")
    run.add_argument(
        "--duration", type=_seconds, help=f"whole seconds per load, 1 to 3600 ({FULL.duration:g})"
    )
    run.add_argument(
        "--disks", type=_disks, metavar="N", help=f"emulated HDDs ({FULL.disks}; {_REPLACES})"
    )
    run.add_argument(
        "--files-per-disk",
        type=_files,
        metavar="N",
        help=f"about; tpgen's bucket map decides the split ({FULL.files_per_disk}; {_REPLACES})",
    )
    run.add_argument(
        "--disk-mbps",
        type=_mib_per_s,
        metavar="MIB_S",
        help=f"each disk's read throttle in MiB/s ({FULL.disk_model.read_bps >> 20}; {_REPLACES})",
    )
    run.add_argument(
        "--disk-iops",
        type=_iops,
        metavar="N",
        help=f"each disk's read IOPS throttle ({FULL.disk_model.read_iops}; {_REPLACES})",
    )
    run.add_argument(
        "--disk-read-ahead",
        type=_read_ahead_kib,
        metavar="KIB",
        help="every disk's read_ahead_kb for the whole run (the host's loop devices' own; a SATA "
        f"disk's default is 128; {_REPLACES}); tpgen's arms get their plan's read-ahead where it "
        "is larger",
    )
    run.add_argument(
        "--inode-readahead",
        type=_inode_readahead,
        metavar="BLOCKS",
        help="ext4's inode_readahead_blks on every disk for the whole run (ext4's 32); at 0 a "
        "cold inode costs what xfs's does on these disks (see `bench metadata`)",
    )
    run.add_argument(
        "--nginx-memory",
        type=_nginx_memory,
        metavar="SIZE",
        help=f"nginx's memory cgroup, page cache included, also the specs' node.memory "
        f"({short_size(FULL.nginx_memory)}; {_REPLACES})",
    )
    run.add_argument(
        "--file-size",
        type=_file_size,
        metavar="SIZE",
        help=f"every file, e.g. 1MiB ({short_size(FULL.file_size)}; a regime that sets its own "
        "keeps it)",
    )
    run.add_argument(
        "--cold-connections",
        type=_connections,
        metavar="N",
        help=f"connections of the cold load, all disks together ({FULL.cold_connections}; "
        f"{_REPLACES})",
    )
    run.add_argument(
        "--arms", help="comma-separated subset of stock,tpgen,perdisk,handwritten,floor"
    )
    run.add_argument(
        "--regimes",
        help=f"'all' or a comma-separated subset of {','.join(REGIMES)}: run each at every "
        f"--workers count (default then: {REGIME_BASE.rounds} rounds x "
        f"{REGIME_BASE.duration:g} s, arms {','.join(REGIME_BASE.arms)}; ~27 minutes)",
    )
    run.add_argument(
        "--workers",
        help="comma-separated nginx worker counts for every arm (with --regimes: "
        + ",".join(map(str, REGIME_WORKERS))
        + "; else one per CPU)",
    )
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
        "--edit-arm",
        type=_edit_arm,
        action="append",
        default=[],
        metavar="NAME:OLD=>NEW[|...]",
        help="also run tpgen's config with these literal replacements (each must match)",
    )
    run.add_argument(
        "--sysctl-arm",
        type=_sysctl_arm,
        action="append",
        default=[],
        metavar="NAME:SYSCTL=VALUE[,...]",
        help="also run tpgen's config with these kernel settings instead of its plan's "
        "(tpgen's arms run with the sysctls tpgen decides for the node, e.g. "
        "vm.vfs_cache_pressure; the host's values are back after each trial)",
    )
    run.add_argument(
        "--readahead-arm",
        type=_readahead_arm,
        action="append",
        default=[],
        metavar="NAME:KIB",
        help="also run tpgen's config with every disk reading ahead KIB KiB (read_ahead_kb) "
        "during its trials; every other arm reads ahead as the host's devices do (the run's "
        "`disks:` line says how much)",
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
        help="do not pre-read the inodes: open() then blocks the event loop (also in a regime "
        "that warms them)",
    )
    run.add_argument(
        "--hot-think-ms",
        type=_think_ms,
        metavar="MS",
        help="pace the hot load: each connection waits MS ms after an answer (default 0: asks "
        "at once, hot req/s is the capacity). Paced below every arm's capacity, the arms serve "
        "the same rate and their hot p99s compare at equal load",
    )
    run.add_argument(
        "--reconnect-every",
        type=_every,
        metavar="N",
        help="clients that come and go: every cold request and every N-th hot request of a wrk "
        "thread close their connection, so the kernel places the new one on a worker waiting "
        "then (default: wrk keeps every connection for the whole trial)",
    )
    run.add_argument(
        "--cold-seed",
        type=_seed,
        metavar="S",
        help=f"other cold loads: round N's random sequence is seeded S x {MAX_ROUNDS} + N "
        "(default 0: seeded N, the same loads in every run); each round's load is the same for "
        "every arm",
    )


_REPLACES = "replaces a regime's own"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    _add_run(sub)
    smoke = sub.add_parser("smoke", help="a few seconds, one tiny disk: does the harness work?")
    smoke.add_argument("--out", type=Path, default=Path("bench-results/smoke"))
    smoke.add_argument("--workload", choices=("origin", "cache"), default="origin")
    sub.add_parser("balance", help="the bucket map's balance and remap table (no root, seconds)")
    splitcost = sub.add_parser("splitcost", help="hot-path cost of split_clients (real nginx, wrk)")
    splitcost.add_argument("--rounds", type=int, default=7, help="interleaved rounds (7)")
    splitcost.add_argument("--duration", type=int, default=3, help="whole seconds per arm (3)")
    _add_cork(sub)
    threads = sub.add_parser("threads", help="nginx's RSS, virtual size, start and reload time")
    threads.add_argument(
        "--shape",
        type=_shape,
        action="append",
        metavar="WORKERS:POOLS:THREADS",
        help="measure this shape (repeatable); default: "
        + " ".join(":".join(map(str, s)) for s in SHAPES),
    )
    meta = sub.add_parser(
        "metadata",
        help="how long cold inodes take on an emulated disk, idle and behind data reads (root)",
    )
    meta.add_argument(
        "--files", type=_whole("a whole count of files", 1_000_000, 1536), default=1536
    )
    meta.add_argument(
        "--load-threads", type=_whole("a whole count of threads", 1000, 50), default=50
    )
    meta.add_argument("--rounds", type=_rounds, default=2)
    summ = sub.add_parser(
        "summary", help="the regimes summary again, from the <regime>-w<N>/ dirs of runs"
    )
    summ.add_argument("pairs", type=Path, nargs="+", metavar="PAIR_DIR")
    summ.add_argument("--out", type=Path, required=True, help="where summary.txt etc. go")
    summ.add_argument("--candidates", default="tpgen", help="arms to divide (tpgen)")
    odds = sub.add_parser(
        "odds",
        help="how often one full run would meet each goal: paired resampling of the "
        "<regime>-w<N>/ dirs of runs (no root, seconds)",
    )
    odds.add_argument("pairs", type=Path, nargs="+", metavar="PAIR_DIR")
    odds.add_argument(
        "--draws",
        type=_whole("a whole count of draws", 100_000, 2000),
        default=2000,
        help="simulated full runs (2000)",
    )
    odds.add_argument(
        "--seed", type=_seed, default=0, help="of the draws (0): the same dirs, the same figures"
    )
    sub.add_parser("check", help="list missing prerequisites")
    sub.add_parser("cleanup", help="remove what a killed run left behind")
    return parser


def _counts(text: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise BenchError(f"--workers {text!r}: expected positive counts, e.g. 2,12")
    return counts


def with_run_options(settings: Settings, args: argparse.Namespace) -> Settings:
    """`settings` with the disk and load options the command gives, each replacing the value of
    the run's defaults or of a regime."""
    model = settings.disk_model
    if args.disk_mbps:
        model = replace(model, read_bps=args.disk_mbps * MiB)
    if args.disk_iops:
        model = replace(model, read_iops=args.disk_iops)
    if args.disk_read_ahead:
        model = replace(model, read_ahead_kb=args.disk_read_ahead)
    if args.inode_readahead is not None:
        model = replace(model, inode_readahead_blks=args.inode_readahead)
    return with_overrides(
        settings,
        disks=args.disks,
        files_per_disk=args.files_per_disk,
        disk_model=model,
        nginx_memory=args.nginx_memory,
        cold_connections=args.cold_connections,
        cold_metadata=True if args.cold_metadata else None,
    )


def _client_and_rounds(base: Settings, args: argparse.Namespace) -> Settings:
    return with_overrides(
        base,
        rounds=args.rounds,
        duration=args.duration,
        arms=tuple(args.arms.split(",")) if args.arms else None,
        plot=False if args.no_plot else None,
        hot_think_ms=args.hot_think_ms,
        reconnect_every=args.reconnect_every,
        cold_seed=args.cold_seed,
        file_size=args.file_size,
    )


def single_settings(args: argparse.Namespace) -> Settings:
    """The one run `bench run` without `--regimes` measures."""
    base = _client_and_rounds(FULL, args)
    if args.workers:
        base = replace(base, workers=_counts(args.workers)[0])
    return with_run_options(base, args)


def regime_settings(args: argparse.Namespace) -> list[tuple[str, int, Settings]]:
    """Each (regime, workers) pair `bench run --regimes` measures, with the command's options:
    the regime's own values win over the run's defaults (a regime's file size over
    `--file-size`), the disk and load options over both."""
    names = list(REGIMES) if args.regimes == "all" else args.regimes.split(",")
    workers = _counts(args.workers) if args.workers else list(REGIME_WORKERS)
    try:
        pairs = plan(names, workers)
    except ValueError as exc:
        raise BenchError(f"--regimes: {exc}") from None
    base = _client_and_rounds(REGIME_BASE, args)
    return [
        (name, count, with_run_options(REGIMES[name].apply(base, count), args))
        for name, count in pairs
    ]


def _run_regimes(args: argparse.Namespace) -> int:
    text, ok = run_regimes(regime_settings(args), args.out, variants=_variants(args), log=_log)
    print(text)
    print(f"\nwritten to {args.out}/")
    return 0 if ok else 1


def _from_saved_runs(args: argparse.Namespace) -> int:
    """`summary` and `odds`: figures from the pairs runs left, nothing measured."""
    combos = [load_pair(p) for p in args.pairs]
    if args.command == "odds":
        from bench.odds import odds, report

        print(report(odds(combos, args.draws, args.seed)))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    text, ok = write_summary(combos, args.candidates.split(","), args.out)
    print(text)
    return 0 if ok else 1


def _balance(args: argparse.Namespace) -> int:
    from bench.balance import run_balance

    return run_balance(_log)


def _splitcost(args: argparse.Namespace) -> int:
    from bench.splitcost import run_splitcost

    return run_splitcost(_log, rounds=args.rounds, duration=args.duration)


def _cork(args: argparse.Namespace) -> int:
    from bench.corkcost import CorkRun, run_cork

    return run_cork(
        _log,
        CorkRun(
            workers=args.workers,
            rounds=args.rounds,
            duration=args.duration,
            reconnect_every=args.reconnect_every,
            think_ms=args.hot_think_ms,
            file_size=args.file_size,
            mix_keys=args.mixes,
            pooled=not args.on_loop,
        ),
    )


def _metadata(args: argparse.Namespace) -> int:
    from bench.metadata import MetadataRun, run_metadata

    return run_metadata(
        _log,
        MetadataRun(files=args.files, load_threads=args.load_threads, rounds=args.rounds),
    )


def _check(args: argparse.Namespace) -> int:
    problems = missing_prerequisites()
    for problem in problems:
        print(problem)
    return 2 if problems else 0


def _cleanup(args: argparse.Namespace) -> int:
    with runlock.exclusive("cleanup"):  # a live run's disks are not leftovers
        left = leftovers.remove()
    for kind, items in left.items():
        for item in items:
            print(f"still there: {kind} {item}")
    return 2 if any(left.values()) else 0


def _threads(args: argparse.Namespace) -> int:
    for shape in args.shape or SHAPES:
        print(measure(*shape).line(), flush=True)
    return 0


def _cache(args: argparse.Namespace) -> int:
    from bench.cache import cli as cache_cli

    if args.command == "smoke":
        return cache_cli.smoke(args.out, _log)
    return cache_cli.run(args, _log)


def _smoke(args: argparse.Namespace) -> int:
    pairs = [
        (name, count, smoke_regime(REGIMES[name], count))
        for name, counts in SMOKE_REGIMES.items()
        for count in counts
    ]
    text, _ = run_regimes(pairs, args.out, probe_seconds=1.0, log=_log)
    print(text)
    return 0


def _run_single(args: argparse.Namespace) -> int:
    outcome = run_bench(
        single_settings(args),
        args.out,
        variants=_variants(args),
        log=_log,
    )
    print(outcome.report)
    print(f"\nwritten to {args.out}/")
    return 0 if outcome.goals_met else 1


# The commands that neither measure a workload nor take --workload.
_OWN_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "balance": _balance,
    "splitcost": _splitcost,
    "cork": _cork,
    "metadata": _metadata,
    "check": _check,
    "cleanup": _cleanup,
    "summary": _from_saved_runs,
    "odds": _from_saved_runs,
    "threads": _threads,
}


def _dispatch(args: argparse.Namespace) -> int:
    if args.command in _OWN_COMMANDS:
        return _OWN_COMMANDS[args.command](args)
    if args.workload == "cache":
        return _cache(args)
    if args.command == "smoke":
        return _smoke(args)
    if args.regimes:
        return _run_regimes(args)
    return _run_single(args)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _dispatch(args)
    except Interrupted as exc:
        print(f"bench: {exc}; cleaned up", file=sys.stderr)
        return 130
    except BenchError as exc:
        print(f"bench: {exc}", file=sys.stderr)
        return 2
