"""``tpgen doctor SPEC``: the spec's NodeLayout and rendered config, checked on this node.

The checks live in tpgen.ops.doctor, which imports only the standard library (the Ansible module
``tpgen_doctor`` ships it to nodes that have nothing else); turning a spec into its layout needs
the planner and the templates, so it lives here, above ops.
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import TextIO, TypedDict, Unpack

from tpgen import api
from tpgen.commands import STANDARD, Console
from tpgen.errors import FileRefused
from tpgen.files import Target, write_output
from tpgen.ops.discover import DiscoverError, parse_meminfo
from tpgen.ops.doctor import (
    DEFAULT_CONFIG,
    DEFAULT_SINCE,
    GUARD_STATE_FILE,
    DoctorError,
    DoctorInputs,
    HostSystem,
    Level,
    metrics_text,
    read_layout,
    run_doctor,
    with_endpoints,
)

# How a refusal names the file: the option that chose it.
PROMETHEUS = Target("--prometheus", "the metrics")


class DoctorOptions(TypedDict, total=False):
    since: str
    as_json: bool
    config_path: str
    error_log: str | None
    status_url: str | None
    nginx_binary: str
    prometheus: str | None
    guard_state: str


def doctor(spec: str, console: Console = STANDARD, **options: Unpack[DoctorOptions]) -> int:
    """0 healthy, 1 warnings, 2 failures (doctor reports its own input errors as failures)."""
    return doctor_main(spec, **options, out=console.out, err=console.err)


def inputs_from_spec(
    spec_path: str,
    *,
    config_path: str = DEFAULT_CONFIG,
    error_log: str | None = None,
    status_url: str | None = None,
    nginx_binary: str = "nginx",
    source: str | None = None,
    guard_state: str = GUARD_STATE_FILE,
) -> DoctorInputs:
    """Doctor's inputs from a spec file: the plan's NodeLayout and the rendered config.

    Node facts missing from the spec (name, cores, memory) are filled from this host, as the
    Ansible role does from facts. ``source`` is the label the config header names.
    """
    try:
        plan = _plan(spec_path)
    except api.SpecError as err:
        raise DoctorError(str(err)) from err
    rendered = api.render_config(plan, source=source or spec_path)
    layout = read_layout(api.node_layout(plan, rendered).to_dict(), spec_path)
    return DoctorInputs(
        layout=with_endpoints(layout, error_log=error_log, status_url=status_url),
        config_path=config_path,
        expected_config=rendered,
        nginx_binary=nginx_binary,
        source=spec_path,
        guard_state=guard_state,
    )


def _plan(spec_path: str) -> api.Plan:
    """The plan of the spec file, completed from this host's facts."""
    document = api.read_spec_document(spec_path)
    data = document.data
    # A spec or node that is not a mapping gets no facts: validate's own line, field and fix
    # name the problem, as for any other spec.
    if isinstance(data, dict) and isinstance(data.get("node"), dict | None):
        data = api.fill_node_facts(  # os.cpu_count(), not the affinity: the role counts all
            data,
            name=socket.gethostname().split(".")[0],
            cores=os.cpu_count(),
            memory_mb=_local_memory_mb(),
        )
    spec = api.spec_from_mapping(data, source=spec_path, lines=document.lines)
    return api.make_plan(spec, spec_path, lines=document.lines)


def _local_memory_mb() -> int | None:
    try:
        return parse_meminfo(Path("/proc/meminfo").read_text(encoding="utf-8")) >> 20
    except (OSError, DiscoverError):
        return None


def doctor_main(
    spec_path: str,
    *,
    out: TextIO | None = None,
    err: TextIO | None = None,
    **options: Unpack[DoctorOptions],
) -> int:
    """``tpgen doctor SPEC``: check this node against its spec; exit 0/1/2 (ok/warn/fail)."""
    stderr = err if err is not None else sys.stderr
    try:
        inputs = inputs_from_spec(
            spec_path,
            config_path=options.get("config_path", DEFAULT_CONFIG),
            error_log=options.get("error_log"),
            status_url=options.get("status_url"),
            nginx_binary=options.get("nginx_binary", "nginx"),
            # the file the report checks is the one --prometheus exports
            guard_state=options.get("guard_state", GUARD_STATE_FILE),
        )
        since = options.get("since", DEFAULT_SINCE)
        prometheus = options.get("prometheus")
        if prometheus is not None:
            return _write_metrics(inputs, prometheus, since, options, out)
        return run_doctor(inputs, since=since, as_json=options.get("as_json", False), out=out)
    except (DoctorError, FileRefused) as error:
        print(f"tpgen doctor: {error}", file=stderr)
        return int(Level.FAIL)


def _write_metrics(
    inputs: DoctorInputs, path: str, since: str, options: DoctorOptions, out: TextIO | None
) -> int:
    """``--prometheus FILE``: the series instead of the report; 0 once written.

    The findings' worst level is a series (tpgen_doctor_status), not the exit code, so that a
    timer's unit fails only when no file could be written. FILE is written by the one rule of
    tpgen.files (FileRefused: never a link, a device or a file doctor reads); ``-`` is stdout,
    whose reader going away is a BrokenPipeError for tpgen.commands.run (exit 141).
    """
    guard_state = options.get("guard_state", GUARD_STATE_FILE) or None
    text = metrics_text(inputs, HostSystem(), since=since, guard_state=guard_state)
    if path == "-":
        stdout = out if out is not None else sys.stdout
        stdout.write(text)
        stdout.flush()
    else:
        write_output(path, text, _doctor_reads(inputs, guard_state), target=PROMETHEUS)
    return 0


def _doctor_reads(inputs: DoctorInputs, guard_state: str | None) -> list[str]:
    """The files doctor reads: none of them may be the one it writes."""
    layout = inputs.layout
    named = [inputs.source, inputs.config_path, layout["error_log"], guard_state]
    return [path for path in [*named, *layout["extra_files"]] if path]
