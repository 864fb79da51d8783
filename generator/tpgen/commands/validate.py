"""``tpgen validate``: the spec and its plan, silent when fine."""

from __future__ import annotations

from tpgen.api import load_plan, render_config
from tpgen.errors import EXIT_OK


def validate(spec: str, *, tls_files: bool = False, extra_files: bool = False) -> int:
    """0 when ``spec`` and its plan are fine; a refusal raises SpecError (2). ``tls_files``:
    the certificate and key files it names must exist here and match, and the plan is made
    with what the certificates say (tls.ocsp_stapling: on needs an OCSP responder in each).
    The extra snippets that are here are checked; ``extra_files``: each must be here."""
    plan = load_plan(spec, "required" if extra_files else "present", tls_files=tls_files)
    # What render would refuse to write, validate refuses too (render's exit 3, not a silent 0).
    render_config(plan)
    return EXIT_OK
