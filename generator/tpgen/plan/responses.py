"""What every answer carries: media types and the server header."""

from __future__ import annotations

from typing import Any

from tpgen.plan.defaults import DEFAULT_TYPE, MIME_TYPES, MIME_TYPES_FILE, SERVER_TOKENS
from tpgen.plan.types import Decision


def response_fields() -> dict[str, Any]:
    return {
        "mime_types_file": Decision(
            MIME_TYPES_FILE,
            "the distribution's full map of media types (Debian: 112 extensions), so .svg, "
            ".woff2 or .avif are not served as bytes",
        ),
        "mime_types": Decision(
            MIME_TYPES,
            "streaming segments and manifests (m4s, mpd, CMAF), subtitles (vtt, ttml, srt) and "
            "audio the distribution's map lacks",
        ),
        "default_type": Decision(
            DEFAULT_TYPE, "any other file is bytes: the browser downloads it, never runs it"
        ),
        "server_tokens": Decision(SERVER_TOKENS, "no nginx version in headers and error pages"),
    }
