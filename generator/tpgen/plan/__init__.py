"""The rules: every value of the config, derived from the spec, each with the reason it has.

Pure functions only: no I/O, no templates. One module per concern, each returning Decisions:
``types`` (Decision, Plan), ``defaults`` (every constant and where it comes from), ``workers``
(processes, connections, open files), ``reads`` (which disks are read, which pooled),
``pools`` (thread pools), ``limits`` (the node's thread,
file and memory limits), ``cache`` (zones, keys zones' RAM, proxy_cache policy), ``io``
(sendfile, open_file_cache, directio), ``split`` and ``buckets`` (which disk a key lives on),
``disks``, ``endpoints`` (status, origin), ``process`` (user, pid, logs), ``responses``,
``policy`` (proxy_cache policy, debug headers), ``slice`` (byte ranges), ``housekeeping`` (the
cache loader and manager), ``origins`` (failover, timeouts, TLS to the origin),
``listens`` (sockets, reuseport, backlog, HTTP/2 and HTTP/3), ``tls`` (protocols, session
cache, a server per certificate), ``sysctls`` (the kernel settings the storage role applies),
``extra`` (the operator's include files and where they go).
`make_plan` only puts them together; `tpgen explain` prints the reasons.
"""

from __future__ import annotations

from typing import Any

from tpgen.errors import SpecError
from tpgen.plan.cache import keys_zone_budget
from tpgen.plan.disks import disk_plans
from tpgen.plan.endpoints import origin_fields, resolver_fields, server_fields
from tpgen.plan.extra import extra_fields
from tpgen.plan.io import (
    directio_fields,
    open_file_cache_fields,
    open_file_cache_max,
    socket_fields,
)
from tpgen.plan.limits import NodeLimits, check_node_limits
from tpgen.plan.listens import listen_fields
from tpgen.plan.origins import origin_policy_fields
from tpgen.plan.policy import proxy_cache_fields
from tpgen.plan.process import process_fields
from tpgen.plan.reads import pool_count
from tpgen.plan.responses import response_fields
from tpgen.plan.slice import slice_fields
from tpgen.plan.split import split_fields
from tpgen.plan.sysctls import sysctl_fields
from tpgen.plan.tls import tls_fields
from tpgen.plan.types import CacheZone, Decision, DiskPlan, Plan, ThreadPool, Upstream
from tpgen.plan.workers import event_fields, worker_count
from tpgen.spec.facts import UNREAD, CertificateFacts
from tpgen.spec.load import LineMap, with_lines
from tpgen.spec.model import NodeSpec

__all__ = [
    "CacheZone",
    "Decision",
    "DiskPlan",
    "Plan",
    "ThreadPool",
    "Upstream",
    "check_node_limits",
    "make_plan",
]


def make_plan(
    spec: NodeSpec,
    source: str = "<spec>",
    lines: LineMap | None = None,
    certificates: CertificateFacts = UNREAD,
) -> Plan:
    """Apply every rule of DESIGN §4 to a validated spec. A refusal is a SpecError whose
    problems name ``source`` and, given the loader's ``lines``, the line of their field.
    ``certificates``: what was read of the spec's certificate files (spec/certs.py); the plan
    reads no file itself."""
    try:
        return _assemble(spec, source, certificates)
    except SpecError as err:
        raise with_lines(err, source, lines or {}) from None


def _assemble(spec: NodeSpec, source: str, certificates: CertificateFacts) -> Plan:
    open_files = open_file_cache_max(spec)
    limits = check_node_limits(spec, open_files, source)
    split = split_fields(spec)
    disks = disk_plans(spec, limits.threads, split["owners"])
    return Plan(
        source=source,
        node_name=spec.node.name,
        workload=spec.workload.type,
        worker_connections=limits.connections,
        worker_rlimit_nofile=limits.nofile,
        disks=disks,
        keys_zone_budget_mb=keys_zone_budget(spec, disks, source),
        **process_fields(spec),
        **event_fields(spec),
        **response_fields(),
        **socket_fields(spec),
        **open_file_cache_fields(open_files),
        **directio_fields(spec),
        **split,
        **proxy_cache_fields(spec, pool_count(spec)),
        **slice_fields(spec),
        **origin_fields(spec),
        **origin_policy_fields(spec),
        **server_fields(spec),
        **_edge_fields(spec, limits, certificates),
        **extra_fields(spec),
    )


def _edge_fields(
    spec: NodeSpec, limits: NodeLimits, certificates: CertificateFacts
) -> dict[str, Any]:
    """Listens, TLS, the resolver (origin names, OCSP) and the kernel settings (issue 12)."""
    workers = worker_count(spec)
    connections, nofile = limits.connections.value, limits.nofile.value
    listens = listen_fields(spec, workers, connections)
    tls = tls_fields(spec, workers, connections, certificates)
    return {
        **listens,
        **tls,
        **resolver_fields(spec, tls.get("servers", ())),
        **sysctl_fields(spec, workers, nofile, listens["backlog"].value),
    }
