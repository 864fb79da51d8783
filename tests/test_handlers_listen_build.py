"""A listen's ssl, http2 and quic (http) and ssl (stream) against the build nginx.configure
names (spec/handlers_listen_build): nginx reads each only where its module is built."""

from __future__ import annotations

import pytest
from tpgen.spec.build import Build
from tpgen.spec.handlers_listen_build import unbuilt_parameter

from .nginx_tables import configure_arguments, nginx_version

V126 = (1, 26, 3)
STREAM_SO = "modules/ngx_stream_module.so"


@pytest.mark.parametrize(
    ("configure", "words", "stream", "expected"),
    [
        (
            "--with-http_v2_module",
            ("80", "ssl"),
            False,
            "nginx 1.26.3 as built here (nginx.configure) has no ngx_http_ssl_module: it is not "
            "built (--with-http_ssl_module or --with-http_v3_module): remove the parameter or "
            'rebuild nginx (nginx: the "ssl" parameter requires ngx_http_ssl_module)',
        ),
        (
            "--with-http_ssl_module",
            ("80", "ssl", "http2"),
            False,
            "nginx 1.26.3 as built here (nginx.configure) has no ngx_http_v2_module: it is not "
            "built (--with-http_v2_module): remove the parameter or rebuild nginx (nginx: the "
            '"http2" parameter requires ngx_http_v2_module)',
        ),
        (
            "--with-http_ssl_module --with-http_v2_module",
            ("443", "quic"),
            False,
            "nginx 1.26.3 as built here (nginx.configure) has no ngx_http_v3_module: it is not "
            "built (--with-http_v3_module): remove the parameter or rebuild nginx (nginx: the "
            '"quic" parameter requires ngx_http_v3_module)',
        ),
        (
            "--with-stream=dynamic",
            ("5000", "ssl"),
            True,
            "nginx 1.26.3 as built here (nginx.configure) has no ngx_stream_ssl_module: it is "
            "not built (--with-stream or --with-stream=dynamic or --with-stream_ssl_module): "
            'remove the parameter or rebuild nginx (nginx: the "ssl" parameter requires '
            "ngx_stream_ssl_module)",
        ),
    ],
)
def test_a_parameter_whose_module_the_build_lacks_is_refused(
    configure: str, words: tuple[str, ...], stream: bool, expected: str
) -> None:
    build = Build(V126, configure).with_loaded([STREAM_SO])
    assert unbuilt_parameter(words, build, stream) == expected


def test_a_parameter_whose_module_is_built_is_taken() -> None:
    http = Build(V126, "--with-http_ssl_module --with-http_v2_module --with-http_v3_module")
    assert unbuilt_parameter(("443", "ssl", "http2"), http, stream=False) is None
    assert unbuilt_parameter(("443", "quic", "reuseport"), http, stream=False) is None
    # http's modules are not stream's, and an unknown build refuses nothing.
    assert unbuilt_parameter(("443", "ssl"), http, stream=True) is not None
    assert unbuilt_parameter(("443", "ssl", "quic"), None, stream=False) is None
    stream = Build(V126, "--with-stream=dynamic --with-stream_ssl_module")
    assert unbuilt_parameter(("5000", "ssl"), stream.with_loaded([STREAM_SO]), True) is None


def test_the_real_nginx_build_has_each_listen_module(nginx_binary: str) -> None:
    """Debian's build (nginx -V) has them all, and its nginx -t takes listen ... ssl, http2 and
    stream's ssl (tests/nginx_tables.py HANDLER_CASES): tpgen refuses none of them."""
    version = nginx_version([nginx_binary])
    build = Build(version, configure_arguments([nginx_binary])).with_loaded([STREAM_SO])
    assert unbuilt_parameter(("80", "ssl", "http2"), build, stream=False) is None
    assert unbuilt_parameter(("5000", "ssl"), build, stream=True) is None
