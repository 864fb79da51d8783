"""stub_status: nginx answers on the status URL and drops no accepted connection."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from .findings import DoctorError, Finding, Level

CHECK = "nginx.status"


@dataclass(frozen=True)
class StubStatus:
    active: int
    accepts: int
    handled: int
    requests: int
    reading: int
    writing: int
    waiting: int


# nginx prints its counters in ASCII digits, twenty at most (a 64-bit atomic): int() refused a
# number of 5000, which doctor reported as no answer at all.
_COUNT = r"([0-9]{1,20})(?![0-9])"


def parse_stub_status(text: str) -> StubStatus:
    """Parse the ``stub_status`` page."""
    active = re.search(rf"Active connections:\s*{_COUNT}", text)
    totals = re.search(rf"server accepts handled requests\s+{_COUNT}\s+{_COUNT}\s+{_COUNT}", text)
    rww = re.search(rf"Reading:\s*{_COUNT}\s+Writing:\s*{_COUNT}\s+Waiting:\s*{_COUNT}", text)
    if not (active and totals and rww):
        raise DoctorError("not a stub_status page")
    return StubStatus(
        int(active.group(1)), *(int(g) for g in totals.groups()), *(int(g) for g in rww.groups())
    )


def check_status(url: str | None, page: str | None, error: str | None = None) -> Finding:
    """nginx answers on its stub_status URL; accepted == handled (no dropped connections)."""
    if url is None:
        return Finding(CHECK, Level.OK, "not checked (no status URL)", data={"skipped": True})
    fix = "is nginx running? systemctl status nginx; journalctl -u nginx"
    if page is None:
        return Finding(CHECK, Level.FAIL, f"no answer from {url}: {error}", fix=fix)
    try:
        stub = parse_stub_status(page)
    except DoctorError:
        return Finding(CHECK, Level.FAIL, f"{url} is not a stub_status page", fix=fix)
    data = asdict(stub)
    text = (
        f"active {stub.active} (reading {stub.reading}, writing {stub.writing}, waiting "
        f"{stub.waiting}); accepts {stub.accepts}, handled {stub.handled}, "
        f"requests {stub.requests}"
    )
    dropped = stub.accepts - stub.handled
    if dropped > 0:
        return Finding(
            CHECK,
            Level.WARN,
            f"{text}: {dropped} connections dropped",
            data=data,
            fix="worker_connections or worker_rlimit_nofile reached: raise them (tuning)",
        )
    return Finding(CHECK, Level.OK, text, data=data)
