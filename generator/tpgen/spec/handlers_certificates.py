"""What nginx refuses of a server's certificates when it merges the server, ported from
ngx_http_ssl_merge_srv_conf and ngx_ssl_certificates (nginx 1.22 to 1.31 alike; stream's
ngx_stream_ssl_merge_srv_conf alike from 1.25.5, see handlers_stream_ssl): a certificate
needs its key, paired in order; the certificates and keys are loaded when nginx reads the
config, unless one of them has a variable (then all are loaded per handshake), and "" is the
prefix directory, which no certificate or key is; ssl_verify_client on or optional needs the
CAs to check the clients' certificates against. An http block's are loaded in each server
that sets none of its own: tpgen's status server. The paths with a $ are compiled there
(ngx_http_ssl_compile_certificates, stream's alike), never by ssl_certificate's handler: a
$ with no name, an unclosed ${ or a variable nothing defines is refused only in a server
that has certificates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

from tpgen.spec.nginx_syntax import Directive
from tpgen.spec.nginx_table import Version
from tpgen.spec.script_arguments import script_refusal

# Why a directive names a variable nginx does not know (directives' _unknown_variable), or None.
VariableCheck = Callable[[Directive], str | None]

_PATHS = ("ssl_certificate", "ssl_certificate_key")
# ssl_verify_client takes ssl_trusted_certificate's CAs as well since 1.27.2 (18afcda93).
TRUSTED_VERIFIES = (1, 27, 2)


def unpaired_certificate(
    certificates: Sequence[Directive], keys: int
) -> tuple[Directive, str] | None:
    """(the last certificate, why) where a server has fewer keys than certificates."""
    if len(certificates) <= keys:
        return None
    return (
        certificates[-1],
        (
            f"has no ssl_certificate_key of its own: nginx pairs the block's certificates "
            f"and keys in order ({len(certificates)} certificates, {keys} keys here) (nginx: "
            'no "ssl_certificate_key" is defined for certificate): add its key after it'
        ),
    )


def empty_certificate_paths(
    directives: Sequence[Directive], above: str = "http"
) -> Iterator[tuple[Directive, str]]:
    """(directive, why) for each ssl_certificate "" of a block, and each ssl_certificate_key ""
    beside a certificate, that nginx loads (no path of the block has a variable); ``above``:
    the block a server without certificates of its own takes them from."""
    paths = [d for d in directives if d.name in _PATHS]
    if any("$" in " ".join(d.args) for d in paths):
        return
    certificates = any(d.name == "ssl_certificate" for d in paths)
    for directive in paths:
        if directive.args == ("",) and certificates:
            yield directive, _loaded_empty(directive.name, above)


def _loaded_empty(name: str, above: str) -> str:
    what = "certificate key" if name.endswith("_key") else "certificate"
    return (
        f'is "", which nginx loads as the prefix directory, no {what} (nginx: cannot load '
        f'{what} "…/"): name the file, or remove it (a server without ssl_certificate of its '
        f"own takes the {above} block's)"
    )


def unchecked_clients(
    verify: Directive, authorities: Mapping[str, tuple[str, ...]], version: Version
) -> str | None:
    """Why a TLS server's ssl_verify_client asks for client certificates it has no CAs to
    check against (``authorities``: each directive the server has in force, its arguments),
    or None."""
    # An enum's values are caseless (ngx_conf_set_enum_slot).
    if " ".join(verify.args[:1]).lower() not in ("on", "optional"):
        return None
    needed = ["ssl_client_certificate"]
    if version >= TRUSTED_VERIFIES:
        needed.append("ssl_trusted_certificate")
    # "" is no file: nginx checks the path's length (ngx_http_ssl_merge_srv_conf).
    if any(authorities.get(name, ("",)) != ("",) for name in needed):
        return None
    return (
        f"asks for client certificates in a TLS server without {' or '.join(needed)} to check "
        "them against (nginx: no ssl_client_certificate for ssl_verify_client): add "
        "ssl_client_certificate with the CAs' certificates beside it, or use optional_no_ca"
    )


def compiled_paths(
    certificates: Sequence[Directive], keys: Sequence[Directive], count: int
) -> tuple[Directive, ...]:
    """The paths a server's merge compiles, of its ``count`` certificates (``certificates``
    those of them read here): each certificate and the key paired with it, all of them once
    one has a $. Keys after the certificates are never read."""
    paths = (*certificates, *keys[:count])
    return tuple(paths) if any("$" in " ".join(d.args) for d in paths) else ()


def path_script_refusals(compiled: Sequence[Directive]) -> Iterator[tuple[Directive, str]]:
    """(path, why) for each compiled path with a $ with no name or an unclosed ${."""
    for directive in compiled:
        reason = script_refusal(directive.args, "first")
        if reason is not None:
            yield directive, reason


def path_variable_refusals(
    compiled: Sequence[Directive], unknown: VariableCheck
) -> Iterator[tuple[Directive, str]]:
    """(path, why) for each compiled path that names a variable nothing defines: nginx looks
    them up once every block is read (ngx_http_variables_init_vars, stream's alike)."""
    for directive in compiled:
        reason = unknown(directive)
        if reason is not None:
            yield directive, reason
