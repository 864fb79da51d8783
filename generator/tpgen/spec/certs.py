"""The certificate files a spec names: do they exist, and does each key belong to its
certificate? What do they say that the plan needs (their OCSP responders: CertificateFacts)?
And, for the offline check, throwaway files of the same shape.

The node's files are checked where they are (``tpgen validate --tls-files`` on the node, or on a
controller that holds copies: ``locate`` maps a node path to the file to read).
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import AuthorityInformationAccessOID, NameOID

from tpgen.errors import FileRefused, Problem, problem
from tpgen.files import read_regular_file
from tpgen.spec.facts import UNREAD, CertificateFacts
from tpgen.spec.model import Certificate, NodeSpec

# A PEM chain or key is a few KiB; nothing a node serves comes near this.
PEM_LIMIT = 1 << 20
TRUSTED = ("tls", "trusted_certificate")
PEM_CERTIFICATE = b"-----BEGIN CERTIFICATE-----"
# nginx reads 80-byte ticket key files (AES-256) or 48-byte ones (AES-128).
TICKET_KEY_BYTES = 80
# The OCSP responder of the offline check's throwaway certificates. nginx resolves the
# responder's host when it loads the config (a name that does not resolve turns stapling off
# with a warning), so an address: loopback, which nginx -t never asks.
THROWAWAY_OCSP_URL = "http://127.0.0.1/"


def _public_der(key: object) -> bytes:
    public = key.public_key()  # type: ignore[attr-defined]
    return bytes(
        public.public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )


def shown_path(path: str, locate: Callable[[str], str]) -> str:
    """The node path, and where it was read when that is elsewhere (a controller's copy)."""
    located = locate(path)
    return path if located == path else f"{path} (read from {located})"


def _pair_problems(
    index: int, certificate: Certificate, locate: Callable[[str], str]
) -> Iterator[Problem]:
    where = ("tls", "certificates", index)
    loaded: dict[str, bytes] = {}
    for field in ("cert", "key"):
        path = getattr(certificate, field)
        try:
            loaded[field] = read_regular_file(locate(path), PEM_LIMIT)
        except FileRefused as err:
            yield problem(
                (*where, field),
                f"{shown_path(path, locate)}: {err.message}: put the file there or fix the path",
            )
    if len(loaded) < 2:
        return
    try:
        # Every block, as nginx reads the whole chain: a later one that does not parse fails it.
        cert = x509.load_pem_x509_certificates(loaded["cert"])[0]
    except ValueError:
        yield problem(
            (*where, "cert"),
            f"{certificate.cert} is not a PEM certificate chain (each CERTIFICATE block must "
            "parse): put the certificate, then its issuers, in PEM",
        )
        return
    try:
        key = serialization.load_pem_private_key(loaded["key"], password=None)
        mismatch = _public_der(key) != _public_der(cert)
    except UnsupportedAlgorithm as err:
        yield problem(
            (*where, "key"),
            f"{certificate.key}: a key type tpgen cannot check ({err}): use RSA, ECDSA "
            "P-256/P-384/P-521 or Ed25519",
        )
        return
    except TypeError:  # cryptography: "Password was not given but private key is encrypted"
        yield problem(
            (*where, "key"),
            f"{certificate.key} is an encrypted private key (nginx would ask for a passphrase at "
            "every start): store it unencrypted, readable by root only",
        )
        return
    except ValueError:
        yield problem(
            (*where, "key"),
            f"{certificate.key} is not a PEM private key: name the key file of {certificate.cert}",
        )
        return
    if mismatch:
        yield problem(
            (*where, "key"),
            f"{certificate.key} does not belong to {certificate.cert} (their public keys "
            "differ): name the key the certificate was issued for",
        )


def bundle_problems(
    path: str | None,
    where: tuple[str, ...],
    locate: Callable[[str], str] = lambda path: path,
    holds: str = "the issuers and the root",
    *,
    parse: bool = True,
) -> Iterator[Problem]:
    """A file of PEM certificates nginx verifies with (``holds`` them) that is not here,
    unreadable, or holds none. ``parse=False``: a system's CA bundle, only looked into for a
    certificate block (cryptography warns on stderr of some roots in Debian's, and says it
    will refuse them: nginx's OpenSSL takes them)."""
    if path is None:
        return
    try:
        data = read_regular_file(locate(path), PEM_LIMIT)
    except FileRefused as err:
        yield problem(
            where, f"{shown_path(path, locate)}: {err.message}: put the file there or fix the path"
        )
        return
    if not parse:
        if PEM_CERTIFICATE not in data:
            yield problem(where, f"{path} is not a PEM file of certificates ({holds})")
        return
    try:
        x509.load_pem_x509_certificates(data)
    except ValueError:
        yield problem(where, f"{path} is not a PEM file of certificates ({holds})")


def certificate_problems(
    spec: NodeSpec, locate: Callable[[str], str] = lambda path: path
) -> list[Problem]:
    """Every missing, unreadable or mismatched certificate and key file of the spec."""
    if spec.tls is None:
        return []
    problems: list[Problem] = []
    for index, certificate in enumerate(spec.tls.certificates):
        problems.extend(_pair_problems(index, certificate, locate))
    problems.extend(bundle_problems(spec.tls.trusted_certificate, TRUSTED, locate))
    for index, path in enumerate(spec.tls.ticket_keys):
        try:
            size = len(read_regular_file(locate(path), PEM_LIMIT))
        except FileRefused as err:
            problems.append(
                problem(("tls", "ticket_keys", index), f"{shown_path(path, locate)}: {err.message}")
            )
            continue
        if size not in (48, 80):
            problems.append(
                problem(
                    ("tls", "ticket_keys", index),
                    f"{path} holds {size} bytes; nginx takes 80 (or 48): "
                    "make one with `openssl rand 80 > FILE`",
                )
            )
    return problems


def ocsp_urls(cert: x509.Certificate) -> tuple[str, ...]:
    """The OCSP responders the certificate names (its Authority Information Access)."""
    try:
        access = cert.extensions.get_extension_for_class(x509.AuthorityInformationAccess).value
    except x509.ExtensionNotFound:
        return ()
    return tuple(
        str(item.access_location.value)
        for item in access
        if item.access_method == AuthorityInformationAccessOID.OCSP
        and isinstance(item.access_location, x509.UniformResourceIdentifier)
    )


def certificate_facts(
    spec: NodeSpec, locate: Callable[[str], str | None] = lambda path: path
) -> CertificateFacts:
    """What the plan needs to know of each certificate (its OCSP responders), read from where
    ``locate`` says the file is; None from ``locate``, or a file that cannot be read as a
    certificate (certificate_problems says why), leaves that certificate's facts unknown."""
    if spec.tls is None:
        return UNREAD
    found: list[tuple[str, ...] | None] = []
    for certificate in spec.tls.certificates:
        path = locate(certificate.cert)
        try:
            data = read_regular_file(path, PEM_LIMIT) if path is not None else None
            cert = x509.load_pem_x509_certificate(data) if data is not None else None
        except (FileRefused, ValueError):
            cert = None
        found.append(None if cert is None else ocsp_urls(cert))
    return CertificateFacts(tuple(found))


def _write_private(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _throwaway_key(path: Path) -> ec.EllipticCurvePrivateKey:
    """The key at ``path`` when an earlier certificate made it (two certificates may share a
    key), else a new one written there."""
    if path.exists():
        existing = serialization.load_pem_private_key(path.read_bytes(), password=None)
        if isinstance(existing, ec.EllipticCurvePrivateKey):
            return existing
    key = ec.generate_private_key(ec.SECP256R1())
    _write_private(path, _key_pem(key))
    return key


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


@dataclass(frozen=True)
class ThrowawayIssuer:
    """A CA made for one offline check: it signs the throwaway certificates, so nginx finds
    each one's issuer (in the chain, or in ssl_trusted_certificate) as it does on the node."""

    cert: x509.Certificate
    key: ec.EllipticCurvePrivateKey

    @property
    def pem(self) -> bytes:
        return self.cert.public_bytes(serialization.Encoding.PEM)


def _builder(
    subject: x509.Name, issuer: x509.Name, public: ec.EllipticCurvePublicKey
) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
    )


def throwaway_issuer() -> ThrowawayIssuer:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "tpgen offline check CA")])
    cert = (
        _builder(name, name, key.public_key())
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .sign(key, hashes.SHA256())
    )
    return ThrowawayIssuer(cert, key)


def write_throwaway_pair(
    cert_path: Path,
    key_path: Path,
    names: tuple[str, ...],
    *,
    issuer: ThrowawayIssuer | None = None,
    ocsp_url: str | None = None,
) -> None:
    """A certificate for ``names`` and its key, valid for a day: what nginx -t needs to load
    the config, made on the spot so no real key leaves the node. Self-signed, or signed by
    ``issuer`` and written as a chain (the certificate, then the issuer's); ``ocsp_url`` names
    an OCSP responder, so ssl_stapling has the URL it needs."""
    key = _throwaway_key(key_path)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "tpgen offline check")])
    sans = [x509.DNSName(name) for name in names] or [x509.DNSName("localhost")]
    builder = _builder(
        subject, issuer.cert.subject if issuer else subject, key.public_key()
    ).add_extension(x509.SubjectAlternativeName(sans), critical=False)
    if ocsp_url is not None:
        responder = x509.AccessDescription(
            AuthorityInformationAccessOID.OCSP, x509.UniformResourceIdentifier(ocsp_url)
        )
        builder = builder.add_extension(
            x509.AuthorityInformationAccess([responder]), critical=False
        )
    cert = builder.sign(issuer.key if issuer else key, hashes.SHA256())
    cert_path.parent.mkdir(parents=True, exist_ok=True)
    chain = issuer.pem if issuer else b""
    pem = cert.public_bytes(serialization.Encoding.PEM) + chain
    if cert_path == key_path:  # one PEM file with both, as nginx reads it for either
        _write_private(cert_path, pem + _key_pem(key))
    else:
        cert_path.write_bytes(pem)


def write_throwaway_issuer(path: Path, issuer: ThrowawayIssuer) -> None:
    """The throwaway CA where the config names its trusted certificates."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(issuer.pem)


def write_throwaway_ticket_key(path: Path) -> None:
    _write_private(path, os.urandom(TICKET_KEY_BYTES))
