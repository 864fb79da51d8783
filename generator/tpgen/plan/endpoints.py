"""Where the node listens, the status server, and how a cache node reaches its origin."""

from __future__ import annotations

import ipaddress
from typing import Any

from tpgen.plan.defaults import (
    STATUS_ACCESS_LOG,
    STATUS_ALLOW,
    STATUS_LOCATION,
)
from tpgen.plan.origins import upstream_keepalive, with_server_options
from tpgen.plan.types import Decision, ServerPlan, Upstream
from tpgen.spec.model import NodeSpec, is_ip_host
from tpgen.spec.validate import origin_follows_dns


def _address(address: str, port: int) -> str:
    ip = ipaddress.ip_address(address)
    return f"[{address}]:{port}" if ip.version == 6 else f"{address}:{port}"


def server_fields(spec: NodeSpec) -> dict[str, Any]:
    return {
        "status_address": Decision(
            _address(spec.status.address, spec.status.port),
            "status.address and status.port in the spec: its own server, apart from client traffic",
        ),
        "status_location": Decision(
            STATUS_LOCATION, "stub_status: connections and requests, for monitoring and doctor"
        ),
        "status_allow": Decision(
            STATUS_ALLOW, "only the node itself reads the counters; everyone else gets 403"
        ),
        "status_access_log": Decision(
            STATUS_ACCESS_LOG, "monitoring polls stay out of the access log"
        ),
    }


def _origin_name(spec: NodeSpec) -> Decision[str] | None:
    """With a resolver, a host-name origin goes through a variable: nginx resolves it while it
    runs. Without one, names stay in the upstream group, resolved at start (docs/spec.md)."""
    if not origin_follows_dns(spec):
        return None
    return Decision(
        spec.workload.upstreams[0],
        "a host name in an upstream block is resolved once, at start; through a variable "
        "and workload.resolver nginx follows the name's DNS records (their TTL) while it runs",
    )


def _upstream(text: str) -> Upstream:
    host, _, port = text.rpartition(":")
    return Upstream(host, int(port))


def _resolver(address: str) -> str:
    return f"[{address}]" if ipaddress.ip_address(address).version == 6 else address


def origin_fields(spec: NodeSpec) -> dict[str, Any]:
    """A cache node's origin: a resolved name, or an upstream group with idle connections."""
    if spec.workload.type != "cache":
        return {}
    name = _origin_name(spec)
    if name is not None:
        return {"origin_name": name}
    servers = with_server_options(tuple(_upstream(u) for u in spec.workload.upstreams), spec)
    named = not all(is_ip_host(s.host) for s in servers)
    return {
        "origin_servers": Decision(
            servers,
            "host names without workload.resolver: resolved once, when nginx starts"
            if named
            else "IP addresses: one group with a keepalive pool; no DNS involved",
        ),
        "upstream_keepalive": upstream_keepalive(spec),
    }


def resolver_fields(spec: NodeSpec, servers: tuple[ServerPlan, ...]) -> dict[str, Any]:
    """The one resolver, for whatever asks DNS while nginx runs; none when nothing does."""
    uses = []
    if origin_follows_dns(spec):
        uses.append("the origin's host name, followed while nginx runs")
    if any(server.staples for server in servers):
        uses.append("the OCSP responders' names (ssl_stapling)")
    if not uses:
        return {}
    resolver = tuple(_resolver(a) for a in spec.workload.resolver)
    return {
        "resolver_addresses": Decision(
            resolver, f"workload.resolver in the spec, asked for {' and '.join(uses)}"
        )
    }
