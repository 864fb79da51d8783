"""The access log: where, in which format, and the format itself."""

from __future__ import annotations

from typing import Any

from tpgen.plan.defaults import (
    ACCESS_LOG_BUFFER,
    ACCESS_LOG_FLUSH,
    ACCESS_LOG_FORMAT,
    LOG_DIR,
    LOG_FIELDS,
)
from tpgen.plan.types import Decision, pick
from tpgen.spec.model import NodeSpec

# (name, escape, format text): one log_format line.
LogFormat = tuple[str, str, str]

# nginx's combined, then the fields the per-disk layout needs, as key=value: a tool that reads
# combined reads the first fields of every line unchanged.
_COMBINED = (
    '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent '
    '"$http_referer" "$http_user_agent"'
)
_TPGEN_EXTRA = (
    ("cache", "$upstream_cache_status"),
    ("disk", "$tpgen_disk"),
    ("range", '"$http_range"'),
    ("rt", "$request_time"),
    ("bytes", "$bytes_sent"),
    ("ua", '"$upstream_addr"'),
    ("us", '"$upstream_status"'),
    ("uct", '"$upstream_connect_time"'),
    ("uht", '"$upstream_header_time"'),
    ("urt", '"$upstream_response_time"'),
)


def _format(name: str) -> tuple[LogFormat, ...]:
    if name == "tpgen":
        extra = " ".join(f"{key}={value}" for key, value in _TPGEN_EXTRA)
        return (("tpgen", "default", f"{_COMBINED} {extra}"),)
    if name == "json":
        body = ",".join(f'"{key}":"{value}"' for key, value in LOG_FIELDS)
        return (("tpgen_json", "json", "{" + body + "}"),)
    return ()


def access_log_fields(spec: NodeSpec) -> dict[str, Any]:
    logging = spec.logging
    chosen = pick(
        logging.format,
        ACCESS_LOG_FORMAT,
        "combined's fields first (every log tool reads them), then the cache's verdict, the "
        "disk, the Range, the request's time and bytes, and the upstream's address, status "
        "and times: the per-disk layout seen request by request",
    )
    formats = _format(chosen.value)
    return {
        "access_log_file": (
            Decision(logging.path, "set in the spec (logging.path)", overridden=True)
            if logging.path
            else Decision(
                f"{LOG_DIR}/access.log", "where Debian's nginx package and its logrotate keep it"
            )
        ),
        "access_log_format": Decision(
            formats[0][0] if formats else "combined",
            chosen.because,
            overridden=chosen.overridden,
        ),
        "log_formats": Decision(
            formats,
            "escape=json: every value a JSON string, quotes and control characters escaped"
            if chosen.value == "json"
            else "the format's fields, defined once",
        ),
        "access_log_buffer": pick(
            logging.buffer,
            ACCESS_LOG_BUFFER,
            "lines are written 64k at a time: one write() per batch",
        ),
        "access_log_flush": Decision(
            ACCESS_LOG_FLUSH, "a batch waits at most 5 seconds, so the log stays current"
        ),
    }
