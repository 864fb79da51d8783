"""``tpgen doctor SPEC``: doctor's inputs from a spec file, on a node where tpgen is installed.

The only module of the package that uses tpgen beyond ``spec.units``, and the only one the
Ansible module ``tpgen_doctor`` does not ship to nodes (plugins/module_utils/tpgen leaves it
out). It imports tpgen.api when a spec is read, so that importing the package (HostSystem, the
checks) does not load the model, the planner and the templates.
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from .errorlog import DEFAULT_SINCE
from .findings import DoctorError, Level
from .layout import DEFAULT_CONFIG, DoctorInputs, read_layout, with_endpoints
from .run import run_doctor

if TYPE_CHECKING:
    from tpgen.api import Plan


def inputs_from_spec(
    spec_path: str,
    *,
    config_path: str = DEFAULT_CONFIG,
    error_log: str | None = None,
    status_url: str | None = None,
    nginx_binary: str = "nginx",
    source: str | None = None,
) -> DoctorInputs:
    """Doctor's inputs from a spec file: the plan's NodeLayout and the rendered config.

    Node facts missing from the spec (name, cores, memory) are filled from this host, as the
    Ansible role does from facts. ``source`` is the label the config header names.
    """
    from tpgen import api

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
    )


def _plan(spec_path: str) -> Plan:
    """The plan of the spec file, completed from this host's facts."""
    from tpgen import api

    document = api.read_spec_document(spec_path)
    if not isinstance(document.data, dict):
        raise DoctorError(f"{spec_path}: the spec must be a mapping")
    try:  # os.cpu_count(), not the affinity: the facts the role uses count every CPU too
        data = api.fill_node_facts(
            document.data,
            name=socket.gethostname().split(".")[0],
            cores=os.cpu_count(),
            memory_mb=_local_memory_mb(),
        )
    except TypeError as err:
        raise DoctorError(f"{spec_path}: {err}") from None
    spec = api.spec_from_mapping(data, source=spec_path, lines=document.lines)
    return api.plan_for(spec, spec_path, lines=document.lines)


def _local_memory_mb() -> int | None:
    from tpgen.ops.discover import DiscoverError, parse_meminfo

    try:
        return parse_meminfo(Path("/proc/meminfo").read_text(encoding="utf-8")) >> 20
    except (OSError, DiscoverError):
        return None


def doctor_main(
    spec_path: str,
    *,
    since: str | None = DEFAULT_SINCE,
    as_json: bool = False,
    config_path: str = DEFAULT_CONFIG,
    error_log: str | None = None,
    status_url: str | None = None,
    nginx_binary: str = "nginx",
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """``tpgen doctor SPEC``: check this node against its spec; exit 0/1/2 (ok/warn/fail)."""
    stderr = err if err is not None else sys.stderr
    try:
        inputs = inputs_from_spec(
            spec_path,
            config_path=config_path,
            error_log=error_log,
            status_url=status_url,
            nginx_binary=nginx_binary,
        )
        return run_doctor(inputs, since=since, as_json=as_json, out=out)
    except DoctorError as error:
        print(f"tpgen doctor: {error}", file=stderr)
        return int(Level.FAIL)
