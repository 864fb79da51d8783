"""What every answer carries: media types and the server header."""

from __future__ import annotations

from typing import Any

from tpgen.plan.defaults import DEFAULT_TYPE, MIME_TYPES, SERVER_TOKENS
from tpgen.plan.types import Decision


def response_fields() -> dict[str, Any]:
    return {
        "mime_types": Decision(
            MIME_TYPES, "the web and streaming formats a CDN node serves, by file extension"
        ),
        "default_type": Decision(
            DEFAULT_TYPE, "any other file is bytes: the browser downloads it, never runs it"
        ),
        "server_tokens": Decision(SERVER_TOKENS, "no nginx version in headers and error pages"),
    }
