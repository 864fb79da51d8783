"""What the nginx process runs as, and the files it writes: pid and logs."""

from __future__ import annotations

from typing import Any

from tpgen.plan.defaults import (
    ERROR_LOG_LEVEL,
    NGINX_GROUPS,
    NGINX_USER,
    WORKER_SHUTDOWN_BECAUSE,
    WORKER_SHUTDOWN_TIMEOUT,
)
from tpgen.plan.logs import access_log_fields
from tpgen.plan.types import Decision, pick
from tpgen.spec.model import NodeSpec
from tpgen.spec.paths import NGINX_ERROR_LOG, NGINX_PID

_DEBIAN = "where Debian's nginx package and its logrotate keep it"


def process_fields(spec: NodeSpec) -> dict[str, Any]:
    user = pick(spec.tuning.user, NGINX_USER, "Debian's nginx user")
    group = NGINX_GROUPS.get(user.value, user.value)
    return {
        "user": user,
        "group": pick(
            spec.tuning.group,
            group,
            "the user's name, as nginx takes it"
            if group == user.value
            else f"Debian's {user.value} has no group of that name, which nginx would look for",
        ),
        "pid_file": Decision(NGINX_PID, _DEBIAN),
        "error_log_file": Decision(NGINX_ERROR_LOG, _DEBIAN),
        "error_log_level": Decision(
            ERROR_LOG_LEVEL,
            "warnings and worse: a full pool queue, a failed read, a disk gone; not every "
            "client that hangs up",
        ),
        "worker_shutdown_timeout": Decision(
            WORKER_SHUTDOWN_TIMEOUT[spec.workload.type],
            WORKER_SHUTDOWN_BECAUSE[spec.workload.type],
        ),
        **access_log_fields(spec),
    }
