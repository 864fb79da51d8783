"""Which of nginx's modules a build has, read from its configure arguments (spec/build.py), and
the refusals of snippet directives and variables of a module it lacks."""

from __future__ import annotations

from pathlib import Path

import pytest
from tpgen.api import extra_file_problems, fill_nginx_facts
from tpgen.cli import main
from tpgen.spec.build import (
    Build,
    Built,
    build_options,
    built_sources,
    configure_options,
    configured_prefix,
    switches,
    third_party,
)
from tpgen.spec.directives import Target, refusals
from tpgen.spec.load import spec_from_mapping
from tpgen.spec.nginx_syntax import parse
from tpgen.spec.snippets import snippet_problems

from .specs import spec, write_spec

V122 = (1, 22, 1)
# Debian 12's nginx -V, its module options (the paths and the --with-http_* tpgen's own config
# does not need left out).
DEBIAN_12 = (
    "--with-cc-opt='-g -O2 -fPIC' --with-ld-opt='-Wl,-z,relro' --prefix=/usr/share/nginx "
    "--modules-path=/usr/lib/nginx/modules --with-compat --with-pcre-jit --with-http_ssl_module "
    "--with-http_stub_status_module --with-http_v2_module --with-http_slice_module "
    "--with-threads --with-http_mp4_module --with-mail_ssl_module "
    "--with-stream_ssl_module --with-http_geoip_module=dynamic "
    "--with-http_image_filter_module=dynamic --with-http_perl_module=dynamic "
    "--with-http_xslt_module=dynamic --with-mail=dynamic --with-stream=dynamic "
    "--with-stream_geoip_module=dynamic"
)
STREAM_PROXY = "src/stream/ngx_stream_proxy_module.c"
GEOIP = "src/http/modules/ngx_http_geoip_module.c"
MP4 = "src/http/modules/ngx_http_mp4_module.c"
GZIP = "src/http/modules/ngx_http_gzip_filter_module.c"
STREAM_SNIPPET = (
    "stream {\n    server {\n        listen 1234;\n        proxy_pass 127.0.0.1:1;\n    }\n}\n"
)
LOAD_STREAM = "load_module modules/ngx_stream_module.so;\n"


def test_switches_start_from_the_defaults_of_auto_options() -> None:
    found = switches(V122, "")
    assert (found["HTTP"], found["HTTP_GZIP"], found["HTTP_MP4"], found["STREAM"]) == (
        "YES",
        "YES",
        "NO",
        "NO",
    )


@pytest.mark.parametrize(
    ("configure", "switch", "value"),
    [
        ("--with-stream", "STREAM", "YES"),
        ("--with-stream=dynamic", "STREAM", "DYNAMIC"),
        ("--without-http_gzip_module", "HTTP_GZIP", "NO"),
        # The later option wins, as in configure's loop.
        ("--with-stream --with-stream=dynamic", "STREAM", "DYNAMIC"),
        ("--with-stream=dynamic --with-stream", "STREAM", "YES"),
        # An option configure does not know, or one inside another's quoted value, sets nothing.
        ("--with-no_such_module --with-stream=static", "STREAM", "NO"),
        ("--with-cc-opt='-O2 --with-stream'", "STREAM", "NO"),
        # A deprecated spelling sets what configure sets for it.
        ("--with-imap", "MAIL", "YES"),
    ],
)
def test_each_option_sets_what_configure_sets(configure: str, switch: str, value: str) -> None:
    assert switches(V122, configure)[switch] == value


def test_configure_arguments_are_split_as_the_shell_splits_them() -> None:
    assert configure_options("--with-cc-opt='-g -O2' --prefix=/usr x --with-threads") == [
        "--with-cc-opt=-g -O2",
        "--prefix=/usr",
        "--with-threads",
    ]
    # An unbalanced quote (a line written by hand): split at the spaces.
    assert configure_options("--with-cc-opt='-g --with-threads") == [
        "--with-cc-opt='-g",
        "--with-threads",
    ]


def test_debian_builds_stream_and_geoip_dynamic_and_the_rest_in() -> None:
    built = built_sources(V122, DEBIAN_12)
    # A dynamic stream takes its submodules along: one .so, named after its first module.
    assert built[STREAM_PROXY] == Built("ngx_stream_module", dynamic=True)
    assert built[GEOIP] == Built("ngx_http_geoip_module", dynamic=True)
    assert built[MP4] == Built("ngx_http_mp4_module", dynamic=False)
    assert built[GZIP] == Built("ngx_http_gzip_filter_module", dynamic=False)
    # Linux has epoll, not kqueue; PCRE comes with the rewrite module.
    assert "src/event/modules/ngx_epoll_module.c" in built
    assert "src/event/modules/ngx_kqueue_module.c" not in built
    assert built["src/core/ngx_regex.c"].dynamic is False
    assert STREAM_PROXY not in built_sources(V122, "--with-http_ssl_module")
    assert built_sources(V122, "--with-stream")[STREAM_PROXY].dynamic is False


@pytest.mark.parametrize(
    "path",
    [
        "modules/ngx_stream_module.so",
        "/usr/lib/nginx/modules/ngx_stream_module.so",
        "ngx_stream_module.so",
    ],
)
def test_a_load_module_of_the_so_makes_its_modules_present(path: str) -> None:
    build = Build(V122, DEBIAN_12)
    assert not build.has(STREAM_PROXY)
    assert build.with_loaded([path]).has(STREAM_PROXY)
    assert not build.with_loaded(["modules/ngx_stream_geoip_module.so"]).has(STREAM_PROXY)
    assert build.has(MP4)


def test_what_a_build_lacks_is_said_with_the_fix() -> None:
    said = "nginx 1.22.1 as built here (nginx.configure) has no"
    assert Build(V122, DEBIAN_12).lacks(GEOIP) == (
        f"{said} ngx_http_geoip_module: it is a dynamic module of this build; add load_module "
        "modules/ngx_http_geoip_module.so; at the top of an extra.main snippet"
    )
    assert Build(V122, "--with-threads").lacks(MP4) == (
        f"{said} ngx_http_mp4_module: it is not built (--with-http_mp4_module): remove it or "
        "rebuild nginx"
    )
    assert Build(V122, "--without-http_gzip_module").lacks(GZIP) == (
        f"{said} ngx_http_gzip_filter_module: it is not built (--without-http_gzip_module): "
        "remove it or rebuild nginx"
    )


def _reasons(text: str, context: str, build: Build | None) -> list[str]:
    target = Target(V122, defined=frozenset(), build=build)
    return [reason for _, reason in refusals(parse(text), context, target)]


def test_a_directive_or_variable_of_a_module_the_build_lacks_is_refused() -> None:
    debian = Build(V122, DEBIAN_12)
    (country,) = _reasons("geoip_country /usr/share/GeoIP/GeoIP.dat;", "http", debian)
    assert country == debian.lacks(GEOIP)
    (variable,) = _reasons("add_header X-Country $geoip_country_code;", "location", debian)
    assert variable == f"uses $geoip_country_code: {debian.lacks(GEOIP)}"
    (stream,) = _reasons(STREAM_SNIPPET, "main", debian)
    assert "has no ngx_stream_module: it is a dynamic module of this build" in stream
    (mp4,) = _reasons("mp4;", "location", Build(V122, "--with-threads"))
    assert "ngx_http_mp4_module: it is not built (--with-http_mp4_module)" in mp4
    # Loaded, or the build unknown: as before.
    loaded = debian.with_loaded(["modules/ngx_http_geoip_module.so"])
    assert _reasons("add_header X-Country $geoip_country_code;", "location", loaded) == []
    assert _reasons("geoip_country /usr/share/GeoIP/GeoIP.dat;", "http", None) == []
    # A name in a module the build has and one it lacks (stream's and http's proxy_pass).
    assert _reasons("server { location / { proxy_pass http://a; } }", "http", debian) == []


def test_a_variable_of_a_lacked_module_may_be_defined_by_the_config() -> None:
    # nginx without GeoIP has no $geoip_country_code of its own: set may define one.
    assert _reasons("set $geoip_country_code x;", "location", Build(V122, DEBIAN_12)) == []
    assert _reasons("set $geoip_country_code x;", "location", None) != []


def _problems(tmp_path: Path, main_text: str, configure: str | None = DEBIAN_12) -> list[str]:
    main_conf = tmp_path / "main.conf"
    main_conf.write_text(main_text)
    nginx = {"version": "1.22.1"} | ({"configure": configure} if configure is not None else {})
    node = spec_from_mapping(spec(nginx=nginx, extra={"main": [str(main_conf)]}), "s.yaml")
    return [problem.message for problem in snippet_problems(node, required=True)]


def test_a_main_snippet_s_load_module_brings_the_dynamic_module(tmp_path: Path) -> None:
    (refused,) = _problems(tmp_path, STREAM_SNIPPET)
    assert refused == (
        f"{tmp_path}/main.conf line 1: stream: nginx 1.22.1 as built here (nginx.configure) has "
        "no ngx_stream_module: it is a dynamic module of this build; add load_module "
        "modules/ngx_stream_module.so; at the top of an extra.main snippet"
    )
    assert _problems(tmp_path, LOAD_STREAM + STREAM_SNIPPET) == []
    # Without nginx.configure the build is unknown: nginx -t on the node says.
    assert _problems(tmp_path, STREAM_SNIPPET, configure=None) == []


def test_a_third_party_module_lifts_unknown_names_but_not_nginx_s_own(tmp_path: Path) -> None:
    third = "load_module modules/ngx_http_vhost_traffic_status_module.so;\n"
    text = third + "http { vhost_traffic_status_zone; }\n" + STREAM_SNIPPET
    (refused,) = _problems(tmp_path, text)
    assert "line 3: stream: nginx 1.22.1 as built here (nginx.configure) has no" in refused


def test_the_options_that_choose_modules_and_the_prefix_are_kept_from_nginx_v() -> None:
    """Compiler flags and other paths say nothing tpgen reads and can outgrow a spec text; a
    third-party module is kept as a bare flag, which lifts unknown names; --prefix is where
    nginx takes a snippet's relative paths from."""
    line = (
        "--with-cc-opt='-g -O2 " + "-D X=1 " * 600 + "' --prefix=/usr/share/nginx "
        "--with-http_ssl_module --with-stream=dynamic --without-http_gzip_module "
        "--add-module=/src/echo --add-dynamic-module=/src/headers-more --with-openssl=/src/ssl "
        "--with-é_module --WITH-X"
    )
    kept = build_options(line)
    assert kept == (
        "--prefix=/usr/share/nginx --with-http_ssl_module --with-stream=dynamic "
        "--without-http_gzip_module --add-module --add-dynamic-module"
    )
    assert switches((1, 22, 1), kept) == switches((1, 22, 1), line)
    assert third_party(kept) and not third_party("--with-stream")
    assert fill_nginx_facts({}, version="1.22.1", configure=line)["nginx"]["configure"] == kept
    debian = build_options(DEBIAN_12)
    assert len(debian) < len(DEBIAN_12) and switches((1, 22, 1), debian) == switches(
        (1, 22, 1), DEBIAN_12
    )


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        ("--prefix=/a --prefix='/opt/my nginx' --with-threads",
         "--prefix='/opt/my nginx' --with-threads"),
        ("--prefix=/opt/é --with-threads", "--with-threads"),
        ("--prefix= --with-threads", "--with-threads"),
    ],
)  # fmt: skip
def test_the_last_prefix_is_kept_quoted_and_one_a_spec_cannot_hold_left_unknown(
    line: str, kept: str
) -> None:
    assert build_options(line) == kept
    assert configured_prefix(kept) == ("/opt/my nginx" if "my nginx" in kept else None)
    spec_from_mapping(fill_nginx_facts(spec(), version="1.22.1", configure=line), "s.yaml")


def test_a_discovered_node_s_prefix_reaches_the_check(tmp_path: Path) -> None:
    """nginx.configure filled from the node's nginx -V brings its --prefix: a snippet's
    relative log path is that file under it (ngx_conf_full_name), as on the node."""
    http = tmp_path / "http.conf"
    http.write_text(
        "access_log logs/a.log combined buffer=32k;\n"
        "access_log /usr/share/nginx/logs/a.log combined buffer=64k;\n"
    )
    filled = fill_nginx_facts(
        spec(extra={"http": [str(http)]}), version="1.22.1", configure=DEBIAN_12
    )
    assert configured_prefix(filled["nginx"]["configure"]) == "/usr/share/nginx"
    node = spec_from_mapping(filled, "s.yaml")
    paths = {str(http): str(http)}
    (found,) = extra_file_problems(node, paths)
    assert found.message == (
        f"{http} line 2: access_log: buffers '/usr/share/nginx/logs/a.log' (buffer=64k, no "
        "flush, no gzip) where another access_log buffers it (buffer=32k, no flush, no gzip) "
        '(nginx: access_log "/usr/share/nginx/logs/a.log" already defined with conflicting '
        "parameters): give both the same buffer=, flush= and gzip, or log to another file"
    )


def test_validate_refuses_a_dynamic_module_not_loaded_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main_conf = tmp_path / "main.conf"
    main_conf.write_text(STREAM_SNIPPET)
    nginx = {"version": "1.22.1", "configure": DEBIAN_12}
    path = write_spec(tmp_path / "s.yaml", spec(nginx=nginx, extra={"main": [str(main_conf)]}))
    assert main(["validate", str(path)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.endswith(
        f"extra.main.0: {main_conf} line 1: stream: nginx 1.22.1 as built here "
        "(nginx.configure) has no ngx_stream_module: it is a dynamic module of this build; add "
        "load_module modules/ngx_stream_module.so; at the top of an extra.main snippet"
    )


def test_render_takes_a_dynamic_module_the_snippet_loads(
    tmp_path: Path, nginx_binary: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The check runs the real nginx -t: relative to its prefix, modules/ is the nginx's own."""
    main_conf = tmp_path / "main.conf"
    main_conf.write_text(LOAD_STREAM + STREAM_SNIPPET)
    nginx = {"version": "1.22.1", "configure": DEBIAN_12}
    path = write_spec(tmp_path / "s.yaml", spec(nginx=nginx, extra={"main": [str(main_conf)]}))
    assert main(["validate", str(path)]) == 0
    out = tmp_path / "nginx.conf"
    assert main(["render", str(path), "-o", str(out)]) == 0, capsys.readouterr().err
    assert f"include {main_conf};" in out.read_text()


def test_validate_reads_an_image_filter_s_sizes_where_the_build_loads_its_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Debian builds image_filter dynamic: not loaded, the directive is refused for its module;
    loaded, its sizes are compiled as scripts (a $ with no name refused)."""
    location = tmp_path / "location.conf"
    location.write_text("image_filter resize 100 a$;\n")
    main_conf = tmp_path / "main.conf"
    main_conf.write_text("\n")
    nginx = {"version": "1.22.1", "configure": DEBIAN_12}
    extra = {"main": [str(main_conf)], "location": [str(location)]}
    path = write_spec(tmp_path / "s.yaml", spec(nginx=nginx, extra=extra))
    assert main(["validate", str(path)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.endswith(
        f"extra.location.0: {location} line 1: image_filter: nginx 1.22.1 as built here "
        "(nginx.configure) has no ngx_http_image_filter_module: it is a dynamic module of this "
        "build; add load_module modules/ngx_http_image_filter_module.so; at the top of an "
        "extra.main snippet"
    )
    main_conf.write_text("load_module modules/ngx_http_image_filter_module.so;\n")
    assert main(["validate", str(path)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.endswith(
        f"extra.location.0: {location} line 1: image_filter: 'a$' has a $ with no variable "
        "name after it (nginx: invalid variable name): write $name or ${name}, a name of "
        "letters, digits and _ (nginx has no escape for a $)"
    )
    location.write_text("image_filter resize 100 $arg_h;\n")
    assert main(["validate", str(path)]) == 0


@pytest.mark.parametrize(
    ("kind", "configure", "expected"),
    [
        ("cache", DEBIAN_12 + " --without-http_proxy_module",
         "proxy_cache_path, and nginx 1.22.1 as built here (nginx.configure) has no "
         "ngx_http_proxy_module: it is not built (--without-http_proxy_module)"),
        ("cache", DEBIAN_12.replace(" --with-threads", ""),
         "thread_pool, and nginx 1.22.1 as built here (nginx.configure) has no ngx_thread_pool: "
         "it is not built (--with-threads)"),
        ("origin", DEBIAN_12 + " --without-http_split_clients_module",
         "split_clients, and nginx 1.22.1 as built here (nginx.configure) has no "
         "ngx_http_split_clients_module: it is not built (--without-http_split_clients_module)"),
        ("edge", DEBIAN_12.replace(" --with-http_v2_module", ""),
         "listen … http2, and nginx 1.22.1 as built here (nginx.configure) has no "
         "ngx_http_v2_module: it is not built (--with-http_v2_module)"),
        # The status server's return is the rewrite module's, which needs PCRE.
        ("cache", DEBIAN_12 + " --without-pcre",
         "return, and nginx 1.22.1 as built here (nginx.configure) has no "
         "ngx_http_rewrite_module: it is not built (--without-pcre)"),
    ],
    ids=["proxy", "threads", "split-clients", "http2-listen", "no-pcre"],
)  # fmt: skip
def test_a_module_tpgen_s_own_config_needs_is_in_the_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, configure: str, expected: str
) -> None:
    """The offline check runs another nginx than the node's: a build nginx.configure says lacks
    a module of tpgen's own directives is refused, not found by the node's nginx -t."""
    nginx = {"version": "1.22.1", "configure": configure}
    data = spec("cache" if kind == "edge" else kind, nginx=nginx)
    if kind == "edge":
        data["listen"] = [{"address": "*", "port": 443, "tls": True, "http2": True}]
        data["tls"] = {"certificates": [{"cert": "/etc/nginx/e.crt", "key": "/etc/nginx/e.key"}]}
    path = write_spec(tmp_path / "s.yaml", data)
    for command in ("validate", "render"):
        assert main([command, str(path)]) == 2
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith(f"{path}:"), line
        assert f": nginx.configure: tpgen's config uses {expected}: build nginx with it, " in line


def test_the_build_of_a_whole_nginx_v_line_takes_tpgen_s_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nginx = {"version": "1.22.1", "configure": DEBIAN_12}
    for kind in ("cache", "origin", "vod"):
        path = write_spec(tmp_path / f"{kind}.yaml", spec(kind, nginx=nginx))
        assert main(["validate", str(path)]) == 0, capsys.readouterr().err


@pytest.mark.parametrize(
    ("configure", "stray"),
    [("aaaa", "'aaaa'"), (DEBIAN_12 + " x", "'x'"), ("-with-threads", "'-with-threads'"),
     ('" --with-threads', "'\"'")],
)  # fmt: skip
def test_configure_arguments_are_options_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], configure: str, stray: str
) -> None:
    """A word that is no option was dropped and left a build of no modules: a stray word made
    two lines on modules the node has (thread_pool, stub_status); one line says what it is."""
    path = write_spec(
        tmp_path / "s.yaml", spec(nginx={"version": "1.22.1", "configure": configure})
    )
    assert main(["validate", str(path)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.split(": ", 1)[1] == (
        f"nginx.configure: {stray} is not a configure option (each starts with --): copy what "
        "`nginx -V` prints after 'configure arguments: '"
    )


def test_debian_12s_configure_line_is_options_only() -> None:
    # Debian 13's: tests/test_nginx_versions.py, from its nginx -V.
    assert spec_from_mapping(spec(nginx={"version": "1.22.1", "configure": DEBIAN_12}), "s.yaml")
