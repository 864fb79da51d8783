"""What tpgen read from the files a spec names, handed to the plan as input: the plan itself
reads no file (DESIGN §2), so whoever reads the certificates (spec/certs.py, for `tpgen
validate --tls-files`, `tpgen render --tls-files` and the Ansible action plugin) passes this on.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CertificateFacts:
    """Per entry of tls.certificates, in order: the OCSP responder URLs its certificate names
    (empty: none), or None where the file was not read here."""

    ocsp_urls: tuple[tuple[str, ...] | None, ...] = ()

    def ocsp(self, index: int) -> tuple[str, ...] | None:
        return self.ocsp_urls[index] if index < len(self.ocsp_urls) else None


# Nothing was read: every certificate's facts are unknown.
UNREAD = CertificateFacts()
