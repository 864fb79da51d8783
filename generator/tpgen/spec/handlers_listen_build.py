"""The listen parameters nginx reads only where a module is built: ngx_http_core_listen's ssl,
http2 and quic (#if NGX_HTTP_SSL, NGX_HTTP_V2, NGX_HTTP_V3) and ngx_stream_core_listen's ssl
(NGX_STREAM_SSL); a build without the module refuses the word (nginx 1.19 to 1.31 alike)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

from tpgen.spec.build import Build

# Each parameter's module, by its source file (the define goes with compiling it: auto/modules).
_HTTP_MODULES = {
    "ssl": "src/http/modules/ngx_http_ssl_module.c",
    "http2": "src/http/v2/ngx_http_v2_module.c",
    "quic": "src/http/v3/ngx_http_v3_module.c",
}
_STREAM_MODULES = {"ssl": "src/stream/ngx_stream_ssl_module.c"}


def unbuilt_parameter(args: Sequence[str], build: Build | None, stream: bool) -> str | None:
    """Why a listen's parameter needs a module the build lacks (None: the build is not
    known, or has each); ``args``: a listen nginx takes otherwise."""
    if build is None:
        return None
    modules = _STREAM_MODULES if stream else _HTTP_MODULES
    for word in args[1:]:  # compared exactly, in order (ngx_strcmp)
        source = modules.get(word)
        if source is not None and not build.has(source):
            module = PurePosixPath(source).stem
            return (
                f"{build.lacks(source, 'remove the parameter or rebuild nginx')} (nginx: the "
                f'"{word}" parameter requires {module})'
            )
    return None
