"""The command line: wires arguments to the library, maps errors to exit codes. Nothing else."""

from __future__ import annotations

import difflib
import json
import sys
import traceback
from collections.abc import Callable, Sequence
from functools import wraps
from typing import TYPE_CHECKING, Any, TypeVar

import click

from tpgen import __version__
from tpgen.errors import (
    EXIT_BAD_INPUT,
    EXIT_DIFFERS,
    EXIT_INTERNAL,
    EXIT_OK,
    FileRefused,
    NginxUnavailable,
    SpecError,
    printable,
)

if TYPE_CHECKING:
    from tpgen.plan import Plan

# The library (pydantic, Jinja2) loads inside each command, so --version and --help stay fast.

F = TypeVar("F", bound=Callable[..., int])


# The most a --diff FILE may hold: a rendered config is well under 1 MiB.
DIFF_LIMIT = 16 << 20


def _plan(spec_path: str) -> Plan:
    from tpgen.plan import make_plan
    from tpgen.spec.load import read_spec_document, spec_from_mapping, with_lines

    document = read_spec_document(spec_path)
    spec = spec_from_mapping(document.data, spec_path, document.lines)
    try:
        # The raw path: the renderer's one escaping rule (nginx_literal "comment") makes it
        # one printable line in the header; escaping here too would double the backslashes.
        return make_plan(spec, spec_path)
    except SpecError as err:
        raise with_lines(err, spec_path, document.lines) from None


def _guarded(command: F) -> F:
    """One place that turns errors into messages and exit codes."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> int:
        debug = click.get_current_context().find_root().params.get("debug", False)
        try:
            return command(*args, **kwargs)
        except SpecError as err:
            click.echo(str(err), err=True)
            return EXIT_BAD_INPUT
        except (FileRefused, NginxUnavailable) as err:
            click.echo(f"tpgen: {printable(str(err))}", err=True)
            return EXIT_BAD_INPUT
        except OSError as err:
            name = printable(str(err.filename or "file"))
            click.echo(f"tpgen: {name}: {printable(err.strerror or str(err))}", err=True)
            return EXIT_BAD_INPUT
        except Exception as err:
            if debug:
                traceback.print_exc()
            click.echo(
                f"tpgen: internal error: {type(err).__name__}: {printable(str(err))} (run with "
                "--debug and report it)",
                err=True,
            )
            return EXIT_INTERNAL

    return wrapper  # type: ignore[return-value]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tpgen")
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
def cli(debug: bool) -> None:
    """Turn a storage node's YAML spec into a thread-pool-per-disk nginx config.

    Exit codes: 0 ok, 1 differs (--diff) or nginx -t failed, 2 bad input, 3 internal error.
    """


@cli.command()
@click.argument("spec", type=click.Path())
@click.option(
    "-o",
    "--output",
    type=click.Path(),
    help="Write here, not stdout: a regular file (mode and owner kept) or a new path in an "
    "existing directory; never a link, a device or the spec.",
)
@click.option(
    "--check/--no-check",
    default=True,
    show_default=True,
    help="Run the real `nginx -t` on the config (paths moved into a throwaway prefix).",
)
@click.option(
    "--diff",
    "diff_against",
    type=click.Path(),
    help="Print a unified diff against FILE; exit 1 if it differs. Writes nothing.",
)
@_guarded
def render(spec: str, output: str | None, check: bool, diff_against: str | None) -> int:
    """Render SPEC to nginx.conf."""
    from tpgen.check import check_plan
    from tpgen.files import read_text_file, write_output
    from tpgen.render import render_config

    plan = _plan(spec)
    text = render_config(plan)
    if check:
        result = check_plan(plan)
        if not result.ok:
            click.echo(
                f"{printable(spec)}: nginx -t rejected the rendered config:\n{result.output}",
                err=True,
            )
            return EXIT_DIFFERS
    if diff_against is not None:
        current = read_text_file(diff_against, DIFF_LIMIT)
        diff = list(
            difflib.unified_diff(
                current.splitlines(keepends=True),
                text.splitlines(keepends=True),
                printable(diff_against),
                f"{printable(spec)} (rendered)",
            )
        )
        sys.stdout.writelines(diff)
        return EXIT_DIFFERS if diff else EXIT_OK
    if output is not None:
        write_output(output, text, inputs=[spec])
    else:
        click.echo(text, nl=False)
    return EXIT_OK


@cli.command()
@click.argument("spec", type=click.Path())
@_guarded
def validate(spec: str) -> int:
    """Check SPEC and its plan; print nothing but errors."""
    _plan(spec)
    return EXIT_OK


@cli.command()
@click.argument("spec", type=click.Path())
@_guarded
def explain(spec: str) -> int:
    """Print every derived value of SPEC and the rule behind it."""
    from tpgen.render.explain import explain_rows, format_table

    click.echo(format_table(explain_rows(_plan(spec))))
    return EXIT_OK


@cli.command()
@_guarded
def schema() -> int:
    """Print the spec's JSON Schema."""
    from tpgen.spec.schema import spec_schema_json

    click.echo(spec_schema_json(), nl=False)
    return EXIT_OK


@cli.command()
@click.argument("old_spec", type=click.Path())
@click.argument("new_spec", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object (moved_fraction, ...).")
@_guarded
def remap(old_spec: str, new_spec: str, as_json: bool) -> int:
    """How many cache keys change disk between OLD_SPEC and NEW_SPEC."""
    from tpgen.plan.remap import compare, format_remap

    result = compare(_plan(old_spec), _plan(new_spec))
    click.echo(json.dumps(result.as_dict(), indent=2) if as_json else format_remap(result))
    return EXIT_OK


@cli.command()
@click.argument("spec", type=click.Path())
@click.argument("keys", nargs=-1, required=True)
@_guarded
def locate(spec: str, keys: Sequence[str]) -> int:
    """Print KEY, bucket and disk for each cache key (or URI on origin/vod)."""
    from tpgen.api import bucket_for_key, disk_for_key

    plan = _plan(spec)
    for key in keys:
        # nginx hashes bytes: an argument that is not UTF-8 keeps its bytes (surrogateescape).
        click.echo(f"{printable(key)}\t{bucket_for_key(plan, key)}\t{disk_for_key(plan, key)}")
    return EXIT_OK


@cli.command()
@click.argument("spec", type=click.Path())
@click.option(
    "--since",
    default="1h",
    show_default=True,
    help="Count error-log events newer than this (1h, 30m, 2d or an ISO time).",
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
@click.option("--status-url", default=None, help="Default: the spec's loopback stub_status.")
@click.option("--nginx", "nginx_binary", default="nginx", show_default=True, help="nginx binary.")
@_guarded
def doctor(
    spec: str,
    since: str,
    as_json: bool,
    config_path: str,
    error_log: str | None,
    status_url: str | None,
    nginx_binary: str,
) -> int:
    """Check this node against SPEC: threads, mounts, space, drift, queue overflows, stub_status.

    Exit 0 healthy, 1 warnings, 2 failures.
    """
    from tpgen.ops.doctor import doctor_main

    return doctor_main(
        spec,
        since=since,
        as_json=as_json,
        config_path=config_path,
        error_log=error_log,
        status_url=status_url,
        nginx_binary=nginx_binary,
    )


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@click.option("--min-size", default="32GiB", show_default=True, help="Skip smaller disks.")
@click.option("--include-loop", is_flag=True, help="Consider loop devices (tests, benches).")
@click.option(
    "--mount-root",
    default="/srv/cache",
    show_default=True,
    help="Where the draft mounts the disks.",
)
@_guarded
def discover(as_json: bool, min_size: str, include_loop: bool, mount_root: str) -> int:
    """Probe this host and print a draft spec: the disks it would use, and why it skips others.

    Exit 0 disks found, 1 none usable, 2 bad input or probe failed.
    """
    from tpgen.ops.discover import run_discover

    return run_discover(
        as_json=as_json, min_size=min_size, include_loop=include_loop, mount_root=mount_root
    )


def main(argv: Sequence[str] | None = None) -> int:
    try:
        result = cli.main(
            args=list(argv) if argv is not None else None, prog_name="tpgen", standalone_mode=False
        )
    except click.exceptions.Exit as done:
        return int(done.exit_code)
    except click.ClickException as err:
        err.show()
        return EXIT_BAD_INPUT
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return EXIT_BAD_INPUT
    return int(result) if isinstance(result, int) else EXIT_OK
