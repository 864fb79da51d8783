"""What an nginx built without the PCRE library (no NGX_PCRE: --without-pcre, or no rewrite
module and no --with-pcre) refuses of a regex, ported from the #else branches of its handlers
(src/http/ngx_http_core_module.c, src/http/modules/ngx_http_proxy_module.c,
ngx_http_referer_module.c, ngx_http_fastcgi_module.c, src/stream/ngx_stream_core_module.c):
a regex server name or location, proxy_redirect's and the proxy_cookie_*'s regexes,
valid_referers', fastcgi_split_path_info, and gzip_disable's past msie6 and degradation. A
map's ~ key is a plain string there (ngx_http_map compiles it only with NGX_PCRE).
"""

from __future__ import annotations

from tpgen.spec.build import Build
from tpgen.spec.nginx_table import Version

FIX = (
    "write no regex here, or build nginx with PCRE (the rewrite module brings it, as "
    "--with-pcre does) and correct nginx.configure"
)
# nginx 1.25.5 reworded valid_referers' message as the others' (ae1948aa4).
_REFERERS_REWORDED = (1, 25, 5)


def regex_unbuilt(build: Build, shown: str) -> str:
    """A regex (``shown`` as nginx prints it) an nginx without PCRE refuses."""
    return (
        f'uses the regex {shown!r}, and {build.lacks_pcre()} (nginx: using regex "{shown}" '
        f"requires PCRE library): {FIX}"
    )


def referer_unbuilt(build: Build, referer: str, version: Version) -> str:
    """valid_referers' regex (~ and all) on an nginx without PCRE."""
    using = "using" if version >= _REFERERS_REWORDED else "the using of the"
    return (
        f"uses the regex {referer!r}, and {build.lacks_pcre()} (nginx: {using} regex "
        f'"{referer}" requires PCRE library): {FIX}'
    )


def split_path_info_unbuilt(build: Build) -> str:
    return (
        f"splits the path with a regex, and {build.lacks_pcre()} (nginx: "
        f'"fastcgi_split_path_info" requires PCRE library): remove it, or build nginx with '
        "PCRE (the rewrite module brings it, as --with-pcre does) and correct nginx.configure"
    )


def gzip_disable_unbuilt(build: Build, pattern: str) -> str:
    return (
        f"uses the regex {pattern!r}, and {build.lacks_pcre()} (nginx: without PCRE library "
        '"gzip_disable" supports builtin "msie6" and "degradation" mask only): keep to msie6 '
        "and degradation, or build nginx with PCRE (the rewrite module brings it, as "
        "--with-pcre does) and correct nginx.configure"
    )
