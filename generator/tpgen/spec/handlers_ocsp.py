"""What nginx refuses of a TLS server's OCSP settings when it merges the server, ported from
ngx_http_ssl_merge_srv_conf (nginx 1.22 to 1.31 alike) and ngx_stream_ssl_merge_srv_conf
(which has them from 1.27.2, 581cf2267 and fb89d50ee), one reading for both: ssl_ocsp checks
the clients' certificates, so not beside ssl_verify_client optional_no_ca, and asks its
ssl_ocsp_responder, an http:// URL nginx reads when it loads the config (ngx_ssl_ocsp); from
1.29.3 (25b03d650) no ssl_stapling beside ssl_certificate_compression on.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from tpgen.spec.directive_values import flag_on
from tpgen.spec.nginx_table import Version
from tpgen.spec.nginx_urls import url_before_uri_problem

STAPLING_UNCOMPRESSED_SINCE = (1, 29, 3)
# Each refusal names the directives nginx names, the first the one it complains of.
Names = tuple[str, ...]


def ocsp_refusals(
    found: Mapping[str, tuple[str, ...]], version: Version
) -> Iterator[tuple[Names, str]]:
    """(the directives in the way, why) for each setting nginx ``version`` refuses of a server
    that has a certificate or rejects handshakes (``found``: the arguments of each directive
    the server has in force)."""
    if _word(found, "ssl_ocsp") not in ("", "off"):
        if _word(found, "ssl_verify_client") == "optional_no_ca":
            yield ("ssl_ocsp", "ssl_verify_client"), _UNVERIFIED
        else:
            responder = found.get("ssl_ocsp_responder", ("",))[0]
            reason = _responder_problem(responder) if responder else None
            if reason is not None:
                yield ("ssl_ocsp_responder", "ssl_ocsp"), reason
    both = ("ssl_stapling", "ssl_certificate_compression")
    if version >= STAPLING_UNCOMPRESSED_SINCE and all(flag_on(found.get(n, ())) for n in both):
        yield both, _COMPRESSED


def _word(found: Mapping[str, tuple[str, ...]], name: str) -> str:
    # An enum's values are caseless (ngx_conf_set_enum_slot), a flag's too.
    return " ".join(found.get(name, ())[:1]).lower()


_UNVERIFIED = (
    "has ssl_ocsp check the clients' certificates where ssl_verify_client optional_no_ca checks "
    'none (nginx: "ssl_ocsp" is incompatible with "ssl_verify_client optional_no_ca"): set '
    "ssl_verify_client on or optional (with ssl_client_certificate), or ssl_ocsp off"
)
_COMPRESSED = (
    "has ssl_stapling staple OCSP answers to certificates ssl_certificate_compression "
    'compresses ahead of any answer (nginx: "ssl_stapling" is incompatible with '
    '"ssl_certificate_compression"): turn one of them off'
)


def _responder_problem(url: str) -> str | None:
    """ngx_ssl_ocsp: http:// (caseless) and an address ngx_parse_url reads, a URI part after."""
    if len(url) <= 7 or url[:7].lower() != "http://":
        return (
            f"has ssl_ocsp ask the OCSP responder {url!r}, where nginx asks one over http:// "
            'only (nginx: invalid URL prefix in OCSP responder "…" in "ssl_ocsp_responder"): '
            "write http://HOST[:PORT][/PATH], or remove ssl_ocsp_responder (each certificate's "
            "own responder is asked)"
        )
    problem = url_before_uri_problem(url[7:])
    if problem is None:
        return None
    return (
        f"has ssl_ocsp ask the OCSP responder {url!r}, an address nginx cannot read (nginx: "
        f'{problem} in OCSP responder "…" in "ssl_ocsp_responder"): write '
        "http://HOST[:PORT][/PATH], a port from 1 to 65535"
    )
