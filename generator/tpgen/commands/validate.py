"""``tpgen validate``: the spec and its plan, silent when fine."""

from __future__ import annotations

from tpgen.api import check_tls_files, load_plan
from tpgen.errors import EXIT_OK


def validate(spec: str, *, tls_files: bool = False, extra_files: bool = False) -> int:
    """0 when ``spec`` and its plan are fine; a refusal raises SpecError (2). ``tls_files``:
    the certificate and key files it names must exist here and match. The extra snippets
    that are here are checked; ``extra_files``: each must be here."""
    load_plan(spec, "required" if extra_files else "present")
    if tls_files:
        check_tls_files(spec)
    return EXIT_OK
