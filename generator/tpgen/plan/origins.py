"""How a cache node talks to its origins: per-server failover, timeouts, keepalive, TLS."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeVar

from tpgen.plan.defaults import (
    ORIGIN_CA_FILE,
    ORIGIN_CONNECT_TIMEOUT,
    ORIGIN_FAIL_TIMEOUT,
    ORIGIN_IDLE_PER_NODE,
    ORIGIN_KEEPALIVE_MAX,
    ORIGIN_KEEPALIVE_MIN,
    ORIGIN_MAX_FAILS,
    ORIGIN_NEXT_TRIES_MAX,
    ORIGIN_NEXT_UPSTREAM,
    ORIGIN_READ_TIMEOUT,
    ORIGIN_SEND_TIMEOUT,
    ORIGIN_VERIFY_DEPTH,
)
from tpgen.plan.types import Decision, Upstream, pick
from tpgen.plan.workers import worker_count
from tpgen.spec.model import NodeSpec, OriginServer
from tpgen.spec.units import format_duration, parse_duration

_SET = "set in the spec (origin)"
T = TypeVar("T")


def _first(*values: T | None) -> T:
    """The first value that is set (0 and False are set)."""
    return next(v for v in values if v is not None)


def with_server_options(servers: tuple[Upstream, ...], spec: NodeSpec) -> tuple[Upstream, ...]:
    """Each server line's weight, max_fails, fail_timeout and backup: the spec's per-server
    options, else origin.max_fails / origin.fail_timeout, else nginx's defaults written out."""
    origin = spec.origin
    options = origin.servers or {}
    out = []
    for server in servers:
        own = options.get(str(server)) or OriginServer()
        out.append(
            replace(
                server,
                weight=own.weight,
                max_fails=_first(own.max_fails, origin.max_fails, ORIGIN_MAX_FAILS),
                fail_timeout=_first(own.fail_timeout, origin.fail_timeout, ORIGIN_FAIL_TIMEOUT),
                backup=bool(own.backup),
            )
        )
    return tuple(out)


def upstream_keepalive(spec: NodeSpec) -> Decision[int]:
    workers = worker_count(spec)
    share = max(ORIGIN_KEEPALIVE_MIN, min(ORIGIN_IDLE_PER_NODE // workers, ORIGIN_KEEPALIVE_MAX))
    return pick(
        spec.origin.keepalive,
        share,
        f"idle connections each of the {workers} workers keeps to the origin: "
        f"{ORIGIN_IDLE_PER_NODE} for the whole node (an origin serves many edge nodes), "
        f"{ORIGIN_KEEPALIVE_MIN} … {ORIGIN_KEEPALIVE_MAX} a worker; a miss skips the handshake",
    )


def _tries(spec: NodeSpec) -> Decision[int]:
    count = min(len(spec.workload.upstreams), ORIGIN_NEXT_TRIES_MAX)
    return pick(
        spec.origin.next_upstream_tries,
        count,
        f"each origin at most once, at most {ORIGIN_NEXT_TRIES_MAX}: past that the origin farm "
        "is down, and the client should hear it",
    )


def _timeouts(spec: NodeSpec, tries: int) -> dict[str, Any]:
    origin = spec.origin
    connect = pick(
        origin.connect_timeout,
        ORIGIN_CONNECT_TIMEOUT,
        "nginx's 60 s would hold a client a minute on a dead origin; 5 s covers two lost SYNs "
        "(Linux resends after 1 s and 3 s)",
    )
    total = parse_duration(connect.value, milliseconds=True) * tries
    return {
        "proxy_connect_timeout": connect,
        "proxy_send_timeout": pick(
            origin.send_timeout, ORIGIN_SEND_TIMEOUT, "nginx's default, written out"
        ),
        "proxy_read_timeout": pick(
            origin.read_timeout,
            ORIGIN_READ_TIMEOUT,
            "nginx's default, written out: between two reads, so a slow origin producing a "
            "large object is not taken for a dead one",
        ),
        "proxy_next_upstream_timeout": pick(
            origin.next_upstream_timeout,
            format_duration(total),
            f"{tries} tries × the connect timeout: failover never holds a client longer",
        ),
    }


def _tls(spec: NodeSpec) -> dict[str, Any]:
    origin = spec.origin
    if not origin.tls:
        return {"origin_scheme": Decision("http", "origin.tls is not set: plain HTTP")}
    name = origin.server_name or spec.workload.upstreams[0].rpartition(":")[0]
    return {
        "origin_scheme": Decision("https", _SET + ": the origin is reached over TLS", True),
        "proxy_ssl_name": Decision(
            name,
            "set in the spec (origin.server_name)"
            if origin.server_name
            else "the upstreams' host: sent as SNI and checked in the certificate (nginx would "
            "send the group's name, tpgen_origin)",
            overridden=origin.server_name is not None,
        ),
        "proxy_ssl_trusted_certificate": pick(
            origin.ca_file, ORIGIN_CA_FILE, "Debian's CA bundle (package ca-certificates)"
        ),
        "proxy_ssl_verify_depth": Decision(
            ORIGIN_VERIFY_DEPTH,
            "leaf, intermediate and root: nginx's default 1 refuses most real chains",
        ),
    }


def origin_policy_fields(spec: NodeSpec) -> dict[str, Any]:
    """Failover, timeouts and TLS of a cache node's origin (nothing on origin and vod)."""
    if spec.workload.type != "cache":
        return {}
    origin = spec.origin
    tries = _tries(spec)
    stale = origin.next_upstream
    return {
        "proxy_next_upstream": (
            Decision(tuple(stale) or ("off",), _SET, overridden=True)
            if stale is not None
            else Decision(
                ORIGIN_NEXT_UPSTREAM,
                "an origin that errs, times out or answers 502/503/504 hands the request to the "
                "next (a GET is safe to repeat; nginx never repeats a POST)",
            )
        ),
        "proxy_next_upstream_tries": tries,
        **_timeouts(spec, tries.value),
        **_tls(spec),
    }
