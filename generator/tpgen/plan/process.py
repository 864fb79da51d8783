"""What the nginx process runs as, and the files it writes: pid and logs."""

from __future__ import annotations

from typing import Any

from tpgen.plan.defaults import (
    ERROR_LOG_LEVEL,
    LOG_DIR,
    NGINX_USER,
    RUN_DIR,
)
from tpgen.plan.logs import access_log_fields
from tpgen.plan.types import Decision, pick
from tpgen.spec.model import NodeSpec

_DEBIAN = "where Debian's nginx package and its logrotate keep it"


def process_fields(spec: NodeSpec) -> dict[str, Any]:
    return {
        "user": pick(spec.tuning.user, NGINX_USER, "Debian's nginx user"),
        "pid_file": Decision(f"{RUN_DIR}/nginx.pid", _DEBIAN),
        "error_log_file": Decision(f"{LOG_DIR}/error.log", _DEBIAN),
        "error_log_level": Decision(
            ERROR_LOG_LEVEL,
            "warnings and worse: a full pool queue, a failed read, a disk gone; not every "
            "client that hangs up",
        ),
        **access_log_fields(spec),
    }
