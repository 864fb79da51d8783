"""What ngx_stream_ssl_merge_srv_conf refuses of each stream server's certificates, those it
sets or (setting none) takes from the stream block: up to 1.25.4 only in a server with a
listen ... ssl (its keys, "" loaded, clients verified without CAs; one without a certificate:
handlers_stream_listen), from 1.25.5 (d21675228, stream's virtual servers) in every server
as ngx_http_ssl_merge_srv_conf does (handlers_certificates; from 1.27.2 the OCSP settings,
handlers_ocsp). Only there does
ngx_stream_ssl_compile_certificates compile the paths with a $ (a $ with no name, an unclosed
${, a variable nothing defines), so a stream block's certificate that no checked server takes
is never compiled. The stream block is a snippet's whole (nginx takes one), so each server's
inherited settings are all here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from tpgen.spec.directive_values import flag_on
from tpgen.spec.handlers_certificates import (
    VariableCheck,
    compiled_paths,
    empty_certificate_paths,
    path_script_refusals,
    path_variable_refusals,
    unchecked_clients,
    unpaired_certificate,
)
from tpgen.spec.handlers_ocsp import ocsp_refusals
from tpgen.spec.handlers_stream_listen import VIRTUAL_SERVERS_SINCE
from tpgen.spec.nginx_syntax import Directive
from tpgen.spec.nginx_table import Version

# A list each block sets whole or takes whole from the stream block (ngx_conf_merge_ptr_value).
_LISTS = ("ssl_certificate", "ssl_certificate_key")
_ONCE = (
    "ssl_verify_client",
    "ssl_client_certificate",
    "ssl_trusted_certificate",
    "ssl_reject_handshake",
    "ssl_ocsp",
    "ssl_ocsp_responder",
    "ssl_stapling",
    "ssl_certificate_compression",
)


@dataclass(frozen=True)
class _Merged:
    """A stream server's TLS settings after the merge: each name's directives in force."""

    found: dict[str, tuple[Directive, ...]]

    def of(self, name: str) -> tuple[Directive, ...]:
        return self.found.get(name, ())

    def on(self, name: str) -> bool:
        return any(flag_on(d.args) for d in self.of(name)[-1:])


def _own(directives: tuple[Directive, ...]) -> dict[str, tuple[Directive, ...]]:
    return {
        name: found
        for name in (*_LISTS, *_ONCE)
        if (found := tuple(d for d in directives if d.name == name))
    }


def stream_ssl_refusals(
    directives: tuple[Directive, ...], version: Version, unknown: VariableCheck
) -> Iterator[tuple[Directive, str]]:
    """(directive, why) of what nginx refuses of the certificates of a stream block's
    (``directives``) servers when it merges each; each directive once."""
    block = _own(directives)
    seen: set[int] = set()
    for server in directives:
        if server.name != "server" or server.block is None:
            continue
        merged = _Merged(block | _own(server.block))
        if not _checked(server.block, merged, version):
            continue
        for directive, why in _server_refusals(merged, version, unknown):
            if id(directive) not in seen:
                seen.add(id(directive))
                yield directive, why


def _checked(server: tuple[Directive, ...], merged: _Merged, version: Version) -> bool:
    """Whether nginx checks the server's certificates: before 1.25.5 in a server with a
    listen ... ssl that has certificates; from then in one with certificates or rejecting
    handshakes."""
    if version >= VIRTUAL_SERVERS_SINCE:
        return bool(merged.of("ssl_certificate")) or merged.on("ssl_reject_handshake")
    ssl = any(d.name == "listen" and "ssl" in d.args[1:] for d in server)
    return ssl and bool(merged.of("ssl_certificate"))


def _server_refusals(
    merged: _Merged, version: Version, unknown: VariableCheck
) -> Iterator[tuple[Directive, str]]:
    certificates = merged.of("ssl_certificate")
    unpaired = unpaired_certificate(certificates, len(merged.of("ssl_certificate_key")))
    if unpaired is not None:
        yield unpaired
        return
    # nginx pairs a key with each certificate; keys after those are never read.
    paths = (*certificates, *merged.of("ssl_certificate_key")[: len(certificates)])
    compiled = compiled_paths(certificates, merged.of("ssl_certificate_key"), len(certificates))
    yield from path_script_refusals(compiled)
    if certificates:
        yield from empty_certificate_paths(paths, above="stream")
    in_force = {name: found[-1].args for name, found in merged.found.items()}
    for verify in merged.of("ssl_verify_client")[-1:]:
        reason = unchecked_clients(verify, in_force, version)
        if reason is not None:
            yield verify, reason
    for names, reason in ocsp_refusals(in_force, version):
        yield merged.of(names[0])[-1], reason
    yield from path_variable_refusals(compiled, unknown)
