"""``tpgen doctor``: this node checked against its spec (the checks live in tpgen.ops.doctor)."""

from __future__ import annotations

from tpgen.commands import STANDARD, Console
from tpgen.ops.doctor import doctor_main


def doctor(
    spec: str,
    *,
    since: str,
    as_json: bool,
    config_path: str,
    error_log: str | None,
    status_url: str | None,
    nginx_binary: str,
    console: Console = STANDARD,
) -> int:
    """0 healthy, 1 warnings, 2 failures (doctor reports its own input errors as failures)."""
    return doctor_main(
        spec,
        since=since,
        as_json=as_json,
        config_path=config_path,
        error_log=error_log,
        status_url=status_url,
        nginx_binary=nginx_binary,
        out=console.out,
        err=console.err,
    )
