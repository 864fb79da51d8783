"""TLS: the protocols, ciphers and session reuse every server shares, and one server per
certificate."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from tpgen.errors import Problem, SpecError, problem
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
from tpgen.spec.facts import UNREAD, CertificateFacts
from tpgen.spec.model import Certificate, NodeSpec, Tls
from tpgen.spec.names_hash import hash_entry, longest_key

MIB = 1 << 20
# nginx's server_names_hash_bucket_size: its default (ngx_cacheline_size on x86-64 and arm64),
# and the sizes tpgen writes, each a multiple of the cache line (nginx rounds up to one).
HASH_BUCKET_DEFAULT = 64
HASH_BUCKET_SIZES = (128, 256, 512)


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


Stapling = tuple[Decision[str], Decision[str] | None]


def _verify(tls: Tls) -> Decision[str]:
    if tls.trusted_certificate is not None:
        return Decision(
            "on",
            "tls.trusted_certificate holds the issuers and root: nginx checks the CA's "
            "answer before it staples it",
        )
    return Decision(
        "off",
        "no tls.trusted_certificate: nginx cannot verify the answer without the issuers and "
        "root as trusted certificates, and would staple nothing; the client verifies the "
        "stapled answer itself",
    )


def stapling_for(
    spec: NodeSpec, tls: Tls, index: int, facts: CertificateFacts
) -> Stapling | Problem:
    """ssl_stapling of the server of tls.certificates.INDEX, from tls.ocsp_stapling, the
    resolver and what its certificate says (when it was read), or why ``on`` cannot be."""
    cert = tls.certificates[index].cert
    urls = facts.ocsp(index)
    mode = tls.ocsp_stapling
    if mode == "off":
        return Decision("off", "tls.ocsp_stapling: off in the spec"), None
    if not spec.workload.resolver:  # `on` without one is refused with the spec
        return (
            Decision(
                "off",
                "no workload.resolver: nginx could not look up the OCSP responder while it "
                "runs; clients ask the CA themselves",
            ),
            None,
        )
    if urls == () and mode == "on":
        return problem(
            ("tls", "certificates", index, "cert"),
            f"{cert} names no OCSP responder (no OCSP URL in its Authority Information "
            "Access), so nginx has nothing to staple: set tls.ocsp_stapling: auto or off",
        )
    if urls == ():
        return (
            Decision("off", f"{cert} names no OCSP responder (no OCSP URL): nothing to staple"),
            None,
        )
    if urls is None and mode == "auto":
        return (
            Decision(
                "off",
                f"auto, and {cert} was not read here, so whether it names an OCSP responder "
                "is unknown: `tpgen render --tls-files` on the node (or the nginx_tpconfig "
                "role, from nginx_tpconfig_tls_files) reads it",
            ),
            None,
        )
    because = (
        f"{cert} names its OCSP responder ({urls[0]})"
        if urls
        else f"tls.ocsp_stapling: on ({cert} was not read here; `--tls-files` refuses it if "
        "it names no OCSP responder)"
    )
    return (
        Decision(
            "on",
            f"{because} and workload.resolver is set: nginx fetches the CA's answer and "
            "staples it to the handshake, so a client need not ask the CA (one round trip "
            "less, and the CA does not learn who visits)",
        ),
        _verify(tls),
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


def _server(index: int, certificate: Certificate, stapling: Stapling) -> ServerPlan:
    return ServerPlan(
        index=index,
        names=tuple(certificate.server_names),
        certificate=Decision(certificate.cert, f"tls.certificates.{index}.cert in the spec"),
        certificate_key=Decision(certificate.key, f"tls.certificates.{index}.key in the spec"),
        ocsp_stapling=stapling[0],
        ocsp_stapling_verify=stapling[1],
    )


def _with_trusted(policy: TlsPolicy, tls: Tls) -> TlsPolicy:
    """The policy with the spec's trusted certificates, where it names them."""
    if tls.trusted_certificate is None:
        return policy
    return replace(
        policy,
        trusted_certificate=Decision(
            tls.trusted_certificate,
            "tls.trusted_certificate in the spec: the issuers and root nginx verifies "
            "the OCSP answers with",
        ),
    )


def tls_fields(
    spec: NodeSpec, workers: int, connections: int, facts: CertificateFacts = UNREAD
) -> dict[str, Any]:
    """The TLS policy and one server block per certificate (the first is the default).
    ``facts``: what was read of the certificate files (their OCSP responders), if anything."""
    if spec.tls is None:
        return {}
    found = [stapling_for(spec, spec.tls, i, facts) for i in range(len(spec.tls.certificates))]
    refused = [item for item in found if isinstance(item, Problem)]
    if refused:
        raise SpecError(refused)
    stapling = [item for item in found if not isinstance(item, Problem)]
    servers = tuple(
        _server(index, certificate, stapling[index])
        for index, certificate in enumerate(spec.tls.certificates)
    )
    policy = _with_trusted(tls_policy(spec, spec.tls, workers, connections), spec.tls)
    bucket = server_names_bucket(servers)
    return {
        "tls": policy,
        "servers": servers,
        **({"server_names_hash_bucket_size": bucket} if bucket is not None else {}),
        "hsts": Decision(
            HSTS,
            "browsers that once reached the node over TLS keep to https for two years "
            "(Mozilla intermediate); other hosts of the domain are not included",
        ),
    }


def server_names_bucket(servers: tuple[ServerPlan, ...]) -> Decision[int] | None:
    """The server_names hash bucket the longest key needs, where nginx's default (one CPU
    cache line, 64 bytes) is too small: nginx -t refuses a name of 47 characters or more
    ("could not build server_names_hash"). A wildcard's labels are keys of their own."""
    key = longest_key([name for server in servers for name in server.names])
    need = hash_entry(key)
    if not key or need <= HASH_BUCKET_DEFAULT:
        return None
    size = next(size for size in HASH_BUCKET_SIZES if size >= need)
    return Decision(
        size,
        f"the longest key of the server names (a wildcard's labels each), {key.decode()} "
        f"({len(key)} bytes), takes {need} bytes of a hash bucket; nginx's default "
        f"({HASH_BUCKET_DEFAULT}, a cache line) holds keys of up to 46 and nginx -t refuses a "
        "longer one",
    )
