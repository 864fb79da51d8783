"""The command line: click wiring only. Each command is a function in tpgen.commands; errors
become messages and exit codes in one place, tpgen.commands.run."""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Any

import click

from tpgen import __version__
from tpgen.commands import Console, run, stdout_gone, unwritable, writing
from tpgen.errors import EXIT_BAD_INPUT, EXIT_CODES, EXIT_INTERRUPTED, EXIT_OK
from tpgen.ops.doctor.layout import GUARD_STATE_FILE
from tpgen.ops.guard.events import DEFAULT_EVENT_LOG
from tpgen.ops.purge import MAX_OBJECT_BYTES  # standard library only: --version stays fast

# The library (pydantic, Jinja2) and each tpgen.commands module load inside their command, so
# --version and --help stay fast.

if TYPE_CHECKING:
    SizeParam = click.ParamType[int]
    TextParam = click.ParamType[str]
else:
    # click 8.1 (Debian 12's, which pyproject allows) has no generic ParamType.
    SizeParam = TextParam = click.ParamType


class OptionRefused(click.BadParameter):
    """An option value that does not parse: one line, ``PROG CMD: --option: what to write``."""

    def show(self, file: IO[Any] | None = None) -> None:
        option = self.param.opts[0] if self.param is not None else "option"
        where = self.ctx.command_path if self.ctx is not None else "tpgen"
        click.echo(f"{where}: {option}: {self.message}", file=file, err=True)


class SizeType(SizeParam):
    """A size as the spec writes it (32GiB, 4TB, 512k), read by the one parser: bytes."""

    name = "size"

    def __init__(self, maximum: int | None = None) -> None:
        self.maximum = maximum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        from tpgen.spec.units import parse_size, short_size

        try:
            size = parse_size(value)
        except ValueError as err:
            raise OptionRefused(str(err), ctx, param) from None
        if self.maximum is not None and size > self.maximum:
            raise OptionRefused(f"{value!r}: at most {short_size(self.maximum)}", ctx, param)
        return size


# A file argument click only names: tpgen's own file rules answer for it in one line (click's
# readable check refused a write-only -o target as "not readable").
A_PATH = click.Path(readable=False)

SINCE_HINT = "use a duration (30m, 2h, 1d) or a local time (2026-11-21 18:00)"


class SinceType(TextParam):
    """A duration back from now (30m, 2h, 1d: the one duration parser) or a local time.

    Checked here, handed on as written: doctor reads it and echoes it in its report.
    """

    name = "duration|time"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from datetime import datetime

        from tpgen.ops.doctor.errorlog import parse_since
        from tpgen.ops.doctor.findings import DoctorError

        text = str(value)
        try:
            parse_since(text, datetime.now())  # doctor's own grammar: what passes here, it reads
        except DoctorError:
            raise OptionRefused(f"{text!r}: {SINCE_HINT}", ctx, param) from None
        return text


def _command_words(ctx: click.Context, param: click.Parameter, value: str) -> tuple[str, ...]:
    import shlex

    try:
        words = tuple(shlex.split(value))
    except ValueError as err:
        raise OptionRefused(f"{value!r}: {err}", ctx, param) from None
    if not words:
        raise OptionRefused(
            f"{value!r}: give the command that reloads nginx, e.g. 'systemctl reload nginx'",
            ctx,
            param,
        )
    return words


def _mount_root(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A root whose ROOT/dN the spec's own mount rule takes: the draft must pass validate."""
    from pydantic import TypeAdapter, ValidationError

    from tpgen.spec.load import field_message
    from tpgen.spec.model import MountPath

    root = value.rstrip("/")
    if not value.startswith("/"):
        raise OptionRefused(f"{value!r}: an absolute path, e.g. /srv/cache", ctx, param)
    try:
        TypeAdapter(MountPath).validate_python(f"{root}/d1")
    except ValidationError as exc:
        # validate's own words for the draft's first mount
        raise OptionRefused(f"{value!r}: {field_message(exc.errors()[0])}", ctx, param) from None
    return root


STATUS_URL_HINT = (
    "write the stub_status page's http:// URL, e.g. http://127.0.0.1:8081/nginx_status"
)


def _status_url(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """An http(s) URL with a host and a valid port: urllib also opened file:///etc/passwd (as
    root, on the node) and reported an unparsable URL as nginx not answering."""
    from urllib.parse import urlsplit

    if value is None:
        return value
    try:
        parts = urlsplit(value)
        fits = parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
    except ValueError:  # a bad [IPv6] or a port outside 0..65535
        fits = False
    if not fits:
        raise OptionRefused(f"{value!r}: {STATUS_URL_HINT}", ctx, param)
    return value


def _finite(ctx: click.Context, param: click.Parameter, value: float) -> float:
    # FloatRange lets nan through: every comparison with it is false.
    if not math.isfinite(value):
        raise OptionRefused(f"{value!r}: a number of seconds, e.g. 1", ctx, param)
    return value


class EchoConsole(Console):
    """Lines through click.echo, as the command line has always written them; a stdout that
    is closed, full or cannot encode the text is refused in one line, as Console refuses it."""

    def say(self, text: str, end: str = "\n") -> None:
        # click.echo drops the text without a word when stdout is closed: out refuses that.
        with writing("stdout"):
            click.echo(text + end, file=self.out, nl=False)

    def warn(self, text: str) -> None:
        click.echo(text, err=True)


def _run(command: Callable[[Console], int]) -> int:
    """Run a command function through tpgen.commands.run, the one place errors become
    messages and exit codes."""
    debug = bool(click.get_current_context().find_root().params.get("debug", False))
    console = EchoConsole()
    return run(lambda: command(console), console, debug=debug)


@click.group(
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Turn a storage node's YAML spec into a thread-pool-per-disk nginx config.\n\n"
    "Exit codes: " + ", ".join(f"{code} {meaning}" for code, meaning in EXIT_CODES.items()) + ".",
)
@click.version_option(__version__, prog_name="tpgen")
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
def cli(debug: bool) -> None:
    pass


@cli.command()
@click.argument("spec", type=A_PATH)
@click.option(
    "-o",
    "--output",
    type=click.Path(allow_dash=True, readable=False),
    callback=lambda _ctx, _param, value: None if value == "-" else value,
    help="Write here, not stdout: a regular file (mode and owner kept) or a new path in an "
    "existing directory; never a link, a device or the spec. '-' is stdout.",
)
@click.option(
    "--check/--no-check",
    default=True,
    show_default=True,
    help="Run the real `nginx -t` on the config (paths moved into a throwaway prefix, the "
    "spec's extra snippets copied there: each must be here at its path).",
)
@click.option(
    "--diff",
    "diff_against",
    type=A_PATH,
    help="Print a unified diff against FILE; exit 1 if it differs. Writes nothing (not with -o).",
)
@click.option(
    "--tls-files",
    is_flag=True,
    help="Read the certificate and key files SPEC names (on the node): refuse missing or "
    "mismatched ones, and staple OCSP where a certificate names a responder "
    "(tls.ocsp_stapling: auto).",
)
def render(
    spec: str, output: str | None, check: bool, diff_against: str | None, tls_files: bool
) -> int:
    """Render SPEC to nginx.conf."""
    from tpgen.commands.render import render as command

    if output is not None and diff_against is not None:
        # --diff writes nothing: taking -o too would leave the user believing it wrote FILE.
        raise click.UsageError("--diff writes nothing: use either -o/--output or --diff")

    return _run(
        lambda console: command(
            spec,
            output=output,
            check=check,
            diff_against=diff_against,
            tls_files=tls_files,
            console=console,
        )
    )


@cli.command()
@click.argument("spec", type=A_PATH)
@click.option(
    "--tls-files",
    is_flag=True,
    help="Also read the certificate and key files SPEC names (on the node): each must exist, "
    "each key must belong to its certificate, and tls.ocsp_stapling: on needs an OCSP "
    "responder in each certificate.",
)
@click.option(
    "--extra-files",
    is_flag=True,
    help="Every extra snippet SPEC names must be here (on the node); without it, only those "
    "that are here are read and checked.",
)
def validate(spec: str, tls_files: bool, extra_files: bool) -> int:
    """Check SPEC and its plan (and its extra snippets); print nothing but errors."""
    from tpgen.commands.validate import validate as command

    return _run(lambda console: command(spec, tls_files=tls_files, extra_files=extra_files))


@cli.command()
@click.argument("spec", type=A_PATH)
def explain(spec: str) -> int:
    """Print every derived value of SPEC and the rule behind it."""
    from tpgen.commands.explain import explain as command

    return _run(lambda console: command(spec, console=console))


@cli.command()
def schema() -> int:
    """Print the spec's JSON Schema."""
    from tpgen.commands.schema import schema as command

    return _run(lambda console: command(console=console))


@cli.command()
@click.argument("old_spec", type=A_PATH)
@click.argument("new_spec", type=A_PATH)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object (moved_fraction, ...).")
def remap(old_spec: str, new_spec: str, as_json: bool) -> int:
    """How many cache keys change disk between OLD_SPEC and NEW_SPEC."""
    from tpgen.commands.remap import remap as command

    return _run(lambda console: command(old_spec, new_spec, as_json=as_json, console=console))


@cli.command()
@click.argument("spec", type=A_PATH)
@click.argument("keys", nargs=-1, required=True)
@click.option(
    "--offset",
    type=SizeType(),
    default=None,
    help="A byte of the object (cache nodes): also print its slice's range and cache file.",
)
def locate(spec: str, keys: Sequence[str], offset: int | None) -> int:
    """Print KEY, bucket and disk for each cache key (or URI on origin/vod)."""
    from tpgen.commands.locate import locate as command

    return _run(lambda console: command(spec, keys, offset=offset, console=console))


@cli.command()
@click.argument("spec", type=A_PATH)
@click.argument("keys", nargs=-1, required=True)
@click.option("--dry-run", is_flag=True, help="Print the files; remove nothing.")
@click.option(
    "--probe-size",
    type=SizeType(maximum=MAX_OBJECT_BYTES),  # each slice of it is one look on the disks
    default="64GiB",
    show_default=True,
    help="A sliced object whose first slice is not cached: look for slices up to this size.",
)
def purge(spec: str, keys: Sequence[str], dry_run: bool, probe_size: int) -> int:
    """Remove the cached files of each cache KEY from this node's disks.

    KEY is the evaluated cache key (default $scheme$host$request_uri, e.g.
    httpcdn.example.net/video/a.mp4): nginx OSS has no purge of its own.
    """
    from tpgen.commands.purge import purge as command

    return _run(
        lambda console: command(
            spec, keys, dry_run=dry_run, probe_bytes=probe_size, console=console
        )
    )


@cli.command()
@click.argument("spec", type=A_PATH)
@click.option(
    "--since",
    type=SinceType(),
    default="1h",
    show_default=True,
    help="Count error-log events newer than this: a duration (1h, 30m, 2d) or a local time "
    "(2026-11-21 18:00, 2026-11-21T18:00, 2026/11/21 18:00:00).",
)
@click.option("--json", "as_json", is_flag=True, help="Print findings as JSON.")
@click.option(
    "--config",
    "config_path",
    default="/etc/nginx/nginx.conf",
    show_default=True,
    help="The live config to compare with what tpgen renders.",
)
@click.option("--error-log", default=None, help="Default: the error_log of the rendered config.")
@click.option(
    "--status-url",
    default=None,
    callback=_status_url,
    help="Default: the spec's loopback stub_status.",
)
@click.option("--nginx", "nginx_binary", default="nginx", show_default=True, help="nginx binary.")
@click.option(
    "--prometheus",
    metavar="FILE",
    default=None,
    help="Write the checks as Prometheus series to FILE (- for stdout) instead of the report.",
)
@click.option(
    "--guard-state",
    default=GUARD_STATE_FILE,
    show_default=True,
    help="tpgen guard's disk states, checked against the spec (and exported with --prometheus) "
    "when the file exists.",
)
def doctor(spec: str, **options: Any) -> int:
    """Check this node against SPEC: threads, mounts, space, drift, queue overflows, stub_status.

    Exit 0 healthy, 1 warnings, 2 failures. With --prometheus FILE: 0 once FILE is written.
    """
    from tpgen.commands.doctor import doctor as command

    return _run(lambda console: command(spec, **options, console=console))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@click.option(
    "--min-size", type=SizeType(), default="32GiB", show_default=True, help="Skip smaller disks."
)
@click.option("--include-loop", is_flag=True, help="Consider loop devices (tests, benches).")
@click.option(
    "--mount-root",
    default="/srv/cache",
    show_default=True,
    callback=_mount_root,
    help="Where the draft mounts the disks (ROOT/d1, ...): an absolute path.",
)
def discover(**options: Any) -> int:
    """Probe this host and print a draft spec: the disks it would use, and why it skips others.

    Exit 0 disks found, 1 none usable, 2 bad input or probe failed.
    """
    from tpgen.commands.discover import discover as command

    return _run(lambda console: command(**options, console=console))


@cli.command()
@click.argument("spec", type=A_PATH)
@click.option(
    "--config",
    "config_path",
    default="/etc/nginx/nginx.conf",
    show_default=True,
    help="The live config guard replaces.",
)
@click.option(
    "--state",
    "state_path",
    default=GUARD_STATE_FILE,
    show_default=True,
    help="Guard's local state (disks it failed, drained, found slow).",
)
@click.option(
    "--events",
    "events_path",
    default=DEFAULT_EVENT_LOG,
    show_default=True,
    help="The event log: one JSON line per decision.",
)
@click.option("--nginx", "nginx_binary", default="nginx", show_default=True, help="nginx binary.")
@click.option(
    "--reload",
    "reload_command",
    default="systemctl reload nginx",
    show_default=True,
    callback=_command_words,
    help="The command that reloads nginx (split as a shell would, without running one).",
)
@click.option("--source", default=None, help="The label the config header names (the role's).")
@click.option(
    "--interval",
    type=click.FloatRange(0.1, 60),
    callback=_finite,
    default=1.0,
    show_default=True,
    help="Seconds between polls.",
)
@click.option("--polls", type=click.IntRange(1), default=None, help="Stop after N polls.")
@click.option(
    "--kernel-log",
    default="/dev/kmsg",
    show_default=True,
    help="The kernel log; empty: do not read it.",
)
@click.option("--error-log", default=None, help="Default: the error_log of the rendered config.")
@click.option("--explain", is_flag=True, help="Print the thresholds and why, then exit.")
def guard(spec: str, explain: bool, reload_command: tuple[str, ...], **options: Any) -> int:
    """Watch each disk of SPEC on this node; take a failing one out of service by itself.

    Runs until SIGTERM (the systemd unit tpgen-guard). Exit 2: SPEC cannot be read or planned.
    """
    from tpgen.commands.guard import GuardOptions
    from tpgen.commands.guard import guard as command

    options["kernel_log"] = options["kernel_log"] or None
    settings = GuardOptions(reload_command=reload_command, **options)
    return _run(lambda console: command(spec, settings, explain=explain, console=console))


def _ended_by_click(ended: Exception) -> int:
    """The exit code of a run click ended itself: --help or --version, a usage error, Ctrl-C."""
    if isinstance(ended, click.exceptions.Exit):
        return int(ended.exit_code)
    # Reported where stderr can take it; the exit code says it either way.
    with contextlib.suppress(OSError):
        if isinstance(ended, click.ClickException):
            ended.show()
        else:
            click.echo("tpgen: interrupted", err=True)
    return EXIT_BAD_INPUT if isinstance(ended, click.ClickException) else EXIT_INTERRUPTED


def main(argv: Sequence[str] | None = None) -> int:
    try:
        result = cli.main(
            args=list(argv) if argv is not None else None, prog_name="tpgen", standalone_mode=False
        )
    except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort) as ended:
        return _ended_by_click(ended)
    except SystemExit:
        # click's own answer to --help into a closed pipe: exit 1 with stdout "pacified".
        if "PacifyFlushWrapper" in type(sys.stdout).__name__:
            return stdout_gone()
        raise
    except BrokenPipeError:
        return stdout_gone()
    except (OSError, UnicodeEncodeError) as err:  # click's --help or --version, stdout full
        refusal = unwritable("stdout", err)
        with contextlib.suppress(OSError):
            click.echo(refusal.report(), err=True)
        return refusal.exit_code
    return int(result) if isinstance(result, int) else EXIT_OK
