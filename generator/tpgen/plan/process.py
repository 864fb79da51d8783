"""What the nginx process runs as, and the files it writes: pid and logs."""

from __future__ import annotations

from typing import Any

from tpgen.plan.defaults import (
    ACCESS_LOG_BUFFER,
    ACCESS_LOG_FLUSH,
    ACCESS_LOG_FORMAT,
    ERROR_LOG_LEVEL,
    LOG_DIR,
    NGINX_USER,
    RUN_DIR,
)
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
        "access_log_file": Decision(f"{LOG_DIR}/access.log", _DEBIAN),
        "access_log_format": Decision(
            ACCESS_LOG_FORMAT, "nginx's predefined format: every log tool reads it"
        ),
        "access_log_buffer": Decision(
            ACCESS_LOG_BUFFER, "lines are written 64k at a time: one write() per batch"
        ),
        "access_log_flush": Decision(
            ACCESS_LOG_FLUSH, "a batch waits at most 5 seconds, so the log stays current"
        ),
    }
