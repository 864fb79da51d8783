"""Run doctor on this machine: print the report (``tpgen doctor``) or return it (Ansible module)."""

from __future__ import annotations

import json
import socket
import sys
from typing import Any, TextIO

from .diagnose import diagnose
from .errorlog import DEFAULT_SINCE
from .findings import worst
from .layout import DEFAULT_CONFIG, DoctorInputs, read_layout, with_endpoints
from .report import report_json, report_text
from .system import HostSystem, System


def run_doctor(
    inputs: DoctorInputs,
    *,
    since: str | None,
    as_json: bool,
    system: System | None = None,
    out: TextIO | None = None,
) -> int:
    """Run the checks, print text or JSON, return the exit code (0 ok, 1 warn, 2 fail)."""
    stdout = out if out is not None else sys.stdout
    findings = diagnose(inputs, system or HostSystem(), since=since)
    host = socket.gethostname()
    if as_json:
        payload = report_json(findings, host=host, source=inputs.source, since=since)
        stdout.write(json.dumps(payload, indent=2) + "\n")
    else:
        stdout.write(report_text(findings, host=host))
    return int(worst(findings))


def node_report(
    layout: object,
    *,
    source: str = "<layout>",
    config_path: str = DEFAULT_CONFIG,
    error_log: str | None = None,
    since: str | None = DEFAULT_SINCE,
    nginx_binary: str = "nginx",
    system: System | None = None,
) -> dict[str, Any]:
    """The ``tpgen-doctor/1`` document of this node, checked against a NodeLayout dict.

    What the Ansible module ``tpgen_doctor`` returns; the drift check compares sha1s (the
    layout's ``config_sha1``), since the rendered text stays on the controller.
    """
    inputs = DoctorInputs(
        layout=with_endpoints(read_layout(layout, source), error_log=error_log),
        config_path=config_path,
        nginx_binary=nginx_binary,
        source=source,
    )
    findings = diagnose(inputs, system or HostSystem(), since=since)
    return report_json(findings, host=socket.gethostname(), source=source, since=since)
