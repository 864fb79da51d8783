"""scripts/nginx_directives.py's reading of nginx's configure scripts: the switches of
auto/options, and the ways auto/modules builds each source, on small scripts of that form."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest
from tpgen.spec.build import holds

from .conftest import ROOT


@pytest.fixture(scope="module")
def script() -> ModuleType:
    found = importlib.util.spec_from_file_location(
        "nginx_directives", ROOT / "scripts/nginx_directives.py"
    )
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    # dataclasses look the module of a class up by name.
    sys.modules["nginx_directives"] = module
    found.loader.exec_module(module)
    return module


OPTIONS = """
help=no
HTTP=YES
HTTP_GZIP=YES
STREAM=NO
NGX_PREFIX=

for option
do
    case "$option" in
        -*=*) value=`echo "$option" | sed -e 's/[-_a-zA-Z0-9]*=//'` ;;
           *) value="" ;;
    esac

    case "$option" in
        --prefix=*)                      NGX_PREFIX="$value"        ;;
        --without-http_gzip_module)      HTTP_GZIP=NO               ;;
        --with-stream)                   STREAM=YES                 ;;
        # STUB
        --with-stream=dynamic)
                                         STREAM=DYNAMIC             ;;
        --with-imap|--with-mail)
            MAIL=YES
            NGX_POST_CONF_MSG="$NGX_POST_CONF_MSG
$0: warning: the \\"--with-imap\\" option is deprecated"
        ;;
        *)
            echo "$0: error: invalid option \\"$option\\""
            exit 1
        ;;
    esac
done
"""


def test_auto_options_switches_and_what_each_option_sets(script: ModuleType) -> None:
    defaults, options = script.configure_switches(OPTIONS)
    assert defaults == {"HTTP": "YES", "HTTP_GZIP": "YES", "STREAM": "NO"}
    assert options == {
        "--without-http_gzip_module": "HTTP_GZIP=NO",
        "--with-stream": "STREAM=YES",
        "--with-stream=dynamic": "STREAM=DYNAMIC",
        "--with-imap": "MAIL=YES",
        "--with-mail": "MAIL=YES",
    }


MODULES = """
if [ $HTTP = YES ]; then
    ngx_module_type=HTTP
    if [ $HTTP_REWRITE = YES -a $USE_PCRE != DISABLED ]; then
        USE_PCRE=YES
        ngx_module_name=ngx_http_rewrite_module
        ngx_module_srcs=src/http/modules/ngx_http_rewrite_module.c
        ngx_module_link=$HTTP_REWRITE
        . auto/module
    fi
    if [ $HTTP_GEOIP != NO ]; then
        ngx_module_name=ngx_http_geoip_module
        ngx_module_srcs="src/http/modules/ngx_http_geoip_module.c"
        ngx_module_link=$HTTP_GEOIP
        . auto/module
    fi
fi
if [ $STREAM != NO ]; then
    ngx_module_type=STREAM
    ngx_module_link=YES
    ngx_module_name="ngx_stream_module \\
                     ngx_stream_core_module"
    ngx_module_srcs="src/stream/ngx_stream.c
                     src/stream/ngx_stream_core_module.c"
    . auto/module
    if [ $STREAM_SSL = YES ]; then
        ngx_module_name=ngx_stream_ssl_module
        ngx_module_srcs=src/stream/ngx_stream_ssl_module.c
        ngx_module_link=$STREAM_SSL
        . auto/module
    fi
fi
if [ $USE_PCRE = YES ]; then
    ngx_module_type=CORE
    ngx_module_name=ngx_regex_module
    ngx_module_srcs=src/core/ngx_regex.c
    ngx_module_link=YES
    . auto/module
fi
if [ $STREAM != NO ]; then
    if [ $STREAM = YES ]; then
        modules="$modules $STREAM_MODULES"
    elif [ $STREAM = DYNAMIC ]; then
        ngx_module_name=$STREAM_MODULES
        ngx_module_srcs=$STREAM_SRCS
        ngx_module_link=DYNAMIC
        . auto/module
    fi
fi
"""


def _decided(script: ModuleType, source: str, values: dict[str, str]) -> tuple[str, str] | None:
    walk = script.BuildWalk({})
    walk.read(MODULES)
    ways = [way for way in walk.ways.get(source, []) if holds(way["when"], values)]
    if not ways:
        return None
    link = ways[-1]["link"]
    return ways[-1]["module"], link if link in ("YES", "DYNAMIC") else values.get(link, "")


@pytest.mark.parametrize(
    ("source", "values", "decided"),
    [
        ("src/http/modules/ngx_http_geoip_module.c", {"HTTP": "YES", "HTTP_GEOIP": "NO"}, None),
        (
            "src/http/modules/ngx_http_geoip_module.c",
            {"HTTP": "YES", "HTTP_GEOIP": "DYNAMIC"},
            ("ngx_http_geoip_module", "DYNAMIC"),
        ),
        ("src/stream/ngx_stream_core_module.c", {"STREAM": "NO"}, None),
        ("src/stream/ngx_stream_core_module.c", {"STREAM": "YES"}, ("ngx_stream_module", "YES")),
        # A dynamic stream takes every stream module linked in along, under its first name.
        (
            "src/stream/ngx_stream_core_module.c",
            {"STREAM": "DYNAMIC"},
            ("ngx_stream_module", "DYNAMIC"),
        ),
        (
            "src/stream/ngx_stream_ssl_module.c",
            {"STREAM": "DYNAMIC", "STREAM_SSL": "YES"},
            ("ngx_stream_module", "DYNAMIC"),
        ),
        ("src/stream/ngx_stream_ssl_module.c", {"STREAM": "DYNAMIC"}, None),
        # USE_PCRE is set by the rewrite module's block, unless --without-pcre.
        (
            "src/core/ngx_regex.c",
            {"HTTP": "YES", "HTTP_REWRITE": "YES", "USE_PCRE": "NO"},
            ("ngx_regex_module", "YES"),
        ),
        (
            "src/core/ngx_regex.c",
            {"HTTP": "YES", "HTTP_REWRITE": "YES", "USE_PCRE": "DISABLED"},
            None,
        ),
        ("src/core/ngx_regex.c", {"HTTP": "YES", "USE_PCRE": "YES"}, ("ngx_regex_module", "YES")),
    ],
)
def test_auto_modules_is_read_as_the_shell_runs_it(
    script: ModuleType, source: str, values: dict[str, str], decided: tuple[str, str] | None
) -> None:
    assert _decided(script, source, values) == decided


def test_a_condition_the_script_cannot_read_stops_it_where_a_module_depends_on_it(
    script: ModuleType,
) -> None:
    walk = script.BuildWalk({})
    walk.read('if [ "$NGX_PLATFORM" -gt 3 ]; then\n    NOTHING=YES\nfi\n')
    with pytest.raises(SystemExit, match="a condition this script cannot read"):
        walk.read(
            "if [ $version -lt 132412 ]; then\n    ngx_module_srcs=src/x.c\n"
            "    ngx_module_link=YES\n    . auto/module\nfi\n"
        )
