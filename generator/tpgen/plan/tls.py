"""TLS: the protocols, ciphers and session reuse every server shares, and one server per
certificate."""

from __future__ import annotations

import math
from typing import Any

from tpgen.plan.defaults import (
    HSTS,
    TLS_CIPHERS,
    TLS_EARLY_DATA,
    TLS_PREFER_SERVER_CIPHERS,
    TLS_PROTOCOLS,
    TLS_SESSION_CACHE_RAM_PERCENT,
    TLS_SESSION_TIMEOUT,
    TLS_SESSIONS_PER_MB,
)
from tpgen.plan.types import Decision, ServerPlan, TlsPolicy
from tpgen.spec.model import NodeSpec, Tls

MIB = 1 << 20


def session_cache_mb(memory: int, workers: int, connections: int) -> Decision[int]:
    """Room for a session per connection slot of every worker, within a share of RAM."""
    sessions = workers * connections
    wanted = max(1, math.ceil(sessions / TLS_SESSIONS_PER_MB))
    ceiling = max(1, memory * TLS_SESSION_CACHE_RAM_PERCENT // 100 // MIB)
    because = (
        f"{workers} workers × {connections:,} connections = {sessions:,} sessions that may "
        f"resume without a full handshake, {TLS_SESSIONS_PER_MB:,} a megabyte (nginx docs)"
    )
    if wanted > ceiling:
        because += f"; held to {TLS_SESSION_CACHE_RAM_PERCENT}% of node.memory"
    return Decision(min(wanted, ceiling), because)


def _tickets(tls: Tls) -> tuple[Decision[str], Decision[tuple[str, ...]] | None]:
    if tls.ticket_keys:
        return (
            Decision("on", "tls.ticket_keys: keys you rotate, so a stolen key opens little"),
            Decision(
                tuple(tls.ticket_keys),
                "tls.ticket_keys in the spec: the first encrypts, all decrypt",
            ),
        )
    return (
        Decision(
            "off",
            "no tls.ticket_keys: nginx's own ticket key lives as long as the process and "
            "breaks forward secrecy; the shared session cache resumes instead",
        ),
        None,
    )


def tls_policy(spec: NodeSpec, tls: Tls, workers: int, connections: int) -> TlsPolicy:
    tickets, keys = _tickets(tls)
    return TlsPolicy(
        protocols=Decision(
            TLS_PROTOCOLS,
            "TLS 1.0 and 1.1 are deprecated (RFC 8996); every client of the last decade has 1.2",
        ),
        ciphers=Decision(
            TLS_CIPHERS,
            "Mozilla intermediate: ECDHE key exchange with AEAD ciphers only (TLS 1.3's own "
            "suites are always on)",
        ),
        prefer_server_ciphers=Decision(
            TLS_PREFER_SERVER_CIPHERS,
            "all listed ciphers are strong: the client picks what is fastest on its hardware",
        ),
        session_cache_mb=session_cache_mb(spec.node.memory, workers, connections),
        session_timeout=Decision(TLS_SESSION_TIMEOUT, "Mozilla intermediate: a day"),
        session_tickets=tickets,
        ticket_keys=keys,
        early_data=Decision(
            TLS_EARLY_DATA, "0-RTT data can be replayed by an attacker (RFC 8446 §8)"
        ),
    )


def _server(index: int, names: tuple[str, ...], cert: str, key: str) -> ServerPlan:
    return ServerPlan(
        index=index,
        names=names,
        certificate=Decision(cert, f"tls.certificates.{index}.cert in the spec"),
        certificate_key=Decision(key, f"tls.certificates.{index}.key in the spec"),
    )


def tls_fields(spec: NodeSpec, workers: int, connections: int) -> dict[str, Any]:
    """The TLS policy and one server block per certificate (the first is the default)."""
    if spec.tls is None:
        return {}
    servers = tuple(
        _server(index, tuple(c.server_names), c.cert, c.key)
        for index, c in enumerate(spec.tls.certificates)
    )
    return {
        "tls": tls_policy(spec, spec.tls, workers, connections),
        "servers": servers,
        "hsts": Decision(
            HSTS,
            "browsers that once reached the node over TLS keep to https for two years "
            "(Mozilla intermediate); other hosts of the domain are not included",
        ),
    }
