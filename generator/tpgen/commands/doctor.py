"""``tpgen doctor``: this node checked against its spec (the checks live in tpgen.ops.doctor)."""

from __future__ import annotations

from typing import TypedDict, Unpack

from tpgen.commands import STANDARD, Console
from tpgen.ops.doctor import doctor_main


class DoctorOptions(TypedDict):
    since: str
    as_json: bool
    config_path: str
    error_log: str | None
    status_url: str | None
    nginx_binary: str


def doctor(spec: str, console: Console = STANDARD, **options: Unpack[DoctorOptions]) -> int:
    """0 healthy, 1 warnings, 2 failures (doctor reports its own input errors as failures)."""
    return doctor_main(spec, **options, out=console.out, err=console.err)
