"""A cache node's proxy_cache policy: freshness, locks, stale answers, bypass, debug headers.

Each value is the spec's `cache:` key where it sets one, else tpgen's rule (plan/defaults.py).
"""

from __future__ import annotations

from typing import Any

from tpgen.plan.defaults import (
    AIO_WRITE,
    CACHE_BACKGROUND_UPDATE,
    CACHE_HEADERS,
    CACHE_LOCK,
    CACHE_LOCK_AGE,
    CACHE_LOCK_TIMEOUT,
    CACHE_MIN_USES,
    CACHE_REVALIDATE,
    CACHE_USE_STALE,
    CACHE_VALID,
    ORIGIN_HOST_HEADER,
    TRUSTED_NETWORKS,
)
from tpgen.plan.slice import slice_size, with_slice_range
from tpgen.plan.split import cache_key
from tpgen.plan.types import CacheValid, Decision, pick
from tpgen.spec.model import CachePolicy, NodeSpec

_SET = "set in the spec (cache)"


def _on(value: bool) -> str:
    return "on" if value else "off"


def _switch(setting: bool | None, default: str, because: str) -> Decision[str]:
    if setting is not None:
        return Decision(_on(setting), _SET, overridden=True)
    return Decision(default, because)


def _valid(policy: CachePolicy) -> Decision[CacheValid]:
    if policy.valid is None:
        return Decision(
            CACHE_VALID,
            "an answer is served from the cache for 10 minutes before it is revalidated; a 404 "
            "only a minute, so a new object appears soon (206: the slices of a sliced object)",
        )
    lines = tuple((tuple(v.status), v.time) for v in policy.valid)
    return Decision(lines, _SET, overridden=True)  # type: ignore[arg-type]


def _background_update(spec: NodeSpec) -> Decision[str]:
    if slice_size(spec) is not None:
        return Decision(
            "off",
            "slices are cached: a background update of a slice refetches the whole object from "
            "the origin (nginx/nginx#911), so an expired slice is revalidated in the request",
        )
    return _switch(
        spec.cache.background_update,
        CACHE_BACKGROUND_UPDATE,
        "the stale copy is served while the update runs in the background",
    )


def _lock_fields(policy: CachePolicy) -> dict[str, Any]:
    return {
        "proxy_cache_lock": _switch(
            policy.lock,
            CACHE_LOCK,
            "one fill per key: concurrent misses wait for the first instead of all going to "
            "the origin",
        ),
        "proxy_cache_lock_timeout": pick(
            policy.lock_timeout,
            CACHE_LOCK_TIMEOUT,
            "nginx's default, written out: a request waits at most 5 s for another's fill, then "
            "asks the origin itself (its answer is not cached)",
        ),
        "proxy_cache_lock_age": pick(
            policy.lock_age,
            CACHE_LOCK_AGE,
            "nginx's default, written out: a fill still running after 5 s lets one more "
            "request go to the origin",
        ),
    }


def _stale(policy: CachePolicy) -> Decision[tuple[str, ...]]:
    if policy.use_stale is not None:
        return Decision(tuple(policy.use_stale) or ("off",), _SET, overridden=True)
    return Decision(
        CACHE_USE_STALE,
        "while the origin errs, times out or is being asked, clients get the stale copy",
    )


def _bypass(policy: CachePolicy) -> dict[str, Any]:
    bypass = policy.bypass
    if bypass is None or (bypass.header is None and bypass.cookie is None):
        return {}
    variables = []
    if bypass.header is not None:
        variables.append("$http_" + bypass.header.lower().replace("-", "_"))
    if bypass.cookie is not None:
        variables.append("$cookie_" + bypass.cookie)
    because = (
        "set in the spec (cache.bypass): a request with this header or cookie (not empty, "
        "not 0) is answered by the origin, and its answer is not stored"
    )
    return {
        "proxy_cache_bypass": Decision(tuple(variables), because, overridden=True),
    }


def _optional(policy: CachePolicy) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if policy.ignore_headers:
        fields["proxy_cache_ignore_headers"] = Decision(
            tuple(policy.ignore_headers), _SET, overridden=True
        )
    return fields | _bypass(policy)


def debug_header_fields(spec: NodeSpec) -> dict[str, Any]:
    """X-Cache-Status and X-Cache-Disk: to every client, or to trusted networks only."""
    policy = spec.cache
    if policy.debug_headers:
        return {
            "cache_headers": Decision(
                CACHE_HEADERS,
                "set in the spec (cache.debug_headers): every answer says whether it was a hit "
                "and which disk holds it (always: errors too)",
                overridden=True,
            )
        }
    networks = TRUSTED_NETWORKS + tuple(policy.trusted_networks or ())
    return {
        "cache_headers": Decision(
            tuple(
                (name, f"$tpgen_{name[2:].lower().replace('-', '_')}") for name, _ in CACHE_HEADERS
            ),
            "only trusted clients learn whether an answer was a hit and which disk holds it: "
            "the disk tells an outsider how to aim a load at one spindle",
        ),
        "debug_header_values": Decision(CACHE_HEADERS, "the values trusted clients get"),
        "trusted_networks": Decision(
            networks,
            "loopback (the node's own checks)"
            + (" and cache.trusted_networks in the spec" if policy.trusted_networks else ""),
            overridden=bool(policy.trusted_networks),
        ),
    }


def proxy_cache_fields(spec: NodeSpec, pools: int) -> dict[str, Any]:
    """How a cache node serves from and fills its zones (nothing on origin and vod)."""
    if spec.workload.type != "cache":
        return {}
    policy = spec.cache
    return {
        "proxy_cache_key": with_slice_range(cache_key(spec), spec),
        "origin_host_header": Decision(
            ORIGIN_HOST_HEADER,
            "the origin sees the Host the client asked for, not the upstream's name: one origin "
            "may serve several sites",
        ),
        "proxy_cache_valid": _valid(policy),
        "proxy_cache_min_uses": pick(
            policy.min_uses,
            CACHE_MIN_USES,
            "an object is written to its disk on its first miss: a cache node's clients come "
            "back; 2 spares the disk a write for every one-hit object, at the cost of a second "
            "origin fetch for every object that is asked for again",
        ),
        **_lock_fields(policy),
        "proxy_cache_revalidate": _switch(
            policy.revalidate,
            CACHE_REVALIDATE,
            "an expired object is revalidated with a conditional request: a 304 keeps the copy",
        ),
        "proxy_cache_background_update": _background_update(spec),
        "proxy_cache_use_stale": _stale(policy),
        **_optional(policy),
        "aio_write": (
            Decision(AIO_WRITE, "fills are written through the disk's pool too (nginx 1.9.13+)")
            if pools
            else None
        ),
        **debug_header_fields(spec),
    }
