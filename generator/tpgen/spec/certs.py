"""The certificate files a spec names: do they exist, and does each key belong to its
certificate? And, for the offline check, throwaway files of the same shape.

The node's files are checked where they are (``tpgen validate --tls-files`` on the node, or on a
controller that holds copies: ``locate`` maps a node path to the file to read).
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tpgen.errors import FileRefused, Problem, problem
from tpgen.files import read_regular_file
from tpgen.spec.model import Certificate, NodeSpec

# A PEM chain or key is a few KiB; nothing a node serves comes near this.
PEM_LIMIT = 1 << 20
# nginx reads 80-byte ticket key files (AES-256) or 48-byte ones (AES-128).
TICKET_KEY_BYTES = 80


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
        cert = x509.load_pem_x509_certificate(loaded["cert"])
    except ValueError:
        yield problem((*where, "cert"), f"{certificate.cert} is not a PEM certificate")
        return
    try:
        key = serialization.load_pem_private_key(loaded["key"], password=None)
    except (ValueError, TypeError):
        yield problem(
            (*where, "key"),
            f"{certificate.key} is not an unencrypted PEM private key (nginx would ask for a "
            "passphrase at every start)",
        )
        return
    if _public_der(key) != _public_der(cert):
        yield problem(
            (*where, "key"),
            f"{certificate.key} does not belong to {certificate.cert} (their public keys "
            "differ): name the key the certificate was issued for",
        )


def certificate_problems(
    spec: NodeSpec, locate: Callable[[str], str] = lambda path: path
) -> list[Problem]:
    """Every missing, unreadable or mismatched certificate and key file of the spec."""
    if spec.tls is None:
        return []
    problems: list[Problem] = []
    for index, certificate in enumerate(spec.tls.certificates):
        problems.extend(_pair_problems(index, certificate, locate))
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
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    _write_private(path, pem)
    return key


def write_throwaway_pair(cert_path: Path, key_path: Path, names: tuple[str, ...]) -> None:
    """A self-signed certificate for ``names`` and its key, valid for a day: what nginx -t
    needs to load the config, made on the spot so no real key leaves the node."""
    key = _throwaway_key(key_path)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "tpgen offline check")])
    now = datetime.datetime.now(datetime.UTC)
    sans = [x509.DNSName(name) for name in names] or [x509.DNSName("localhost")]
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path.parent.mkdir(parents=True, exist_ok=True)
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def write_throwaway_ticket_key(path: Path) -> None:
    _write_private(path, os.urandom(TICKET_KEY_BYTES))
