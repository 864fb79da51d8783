"""The shape nginx checks of every snippet directive (name, place, argument count, block, flag,
duplicates), from nginx's command tables — and that the table says what a real nginx does."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from tpgen.api import make_plan, render_config
from tpgen.check import check_plan
from tpgen.spec import directive_values, nginx_addresses, pcre
from tpgen.spec.build import Build
from tpgen.spec.directives import (
    INNER_CONTEXTS,
    Site,
    Target,
    commands,
    defined_variables,
    directive_names,
    include_sites,
    module_variables,
    refusals,
)
from tpgen.spec.edge import OLDEST_NGINX
from tpgen.spec.load import spec_from_mapping
from tpgen.spec.nginx_syntax import Directive, parse
from tpgen.spec.snippets import REFUSED, Surroundings, check_snippet, snippet_problems

from .nginx_tables import (
    HANDLER_CASES,
    NO_PCRE,
    NO_PCRE_CASES,
    TAKEN,
    V122,
    configure_arguments,
    directive_disagreements,
    handler_disagreements,
    lacked_by_build,
    lacked_stream_variables,
    nginx_version,
    no_pcre_disagreements,
    on_host,
    quoted,
    reasons,
    unknown_variables,
    value_disagreements,
    write_configs,
)
from .specs import spec

V126 = (1, 26, 3)


@pytest.mark.parametrize(
    ("context", "text", "expected"),
    [
        ("http", "sendfil on;", "nginx has no such directive (unknown directive)"),
        ("main", "types { text/plain txt; }", "is not allowed in main: nginx allows it in http"),
        ("main", "worker_connections 10;", "nginx allows it in events only"),
        ("location", "expires 1h 2h 3h;", "takes 1 or 2 arguments, not 3"),
        ("location", "add_header X-A;", "takes 2 or 3 arguments, not 1"),
        ("http", "gzip;", "takes one argument (on or off), not 0"),
        ("http", "sendfile maybe;", "takes on or off, not 'maybe'"),
        ("http", "server;", 'takes a { … } block (nginx: has no opening "{")'),
        ("location", "root /srv { }", "takes no block"),
        ("location", "gzip on; gzip off;", "is set twice in this location block"),
        ("server", "location /a { } location ^~ /a { }", "a second prefix location '/a'"),
        ("http", "log_format a x; log_format a y;", "a second log_format 'a'"),
        ("location", "limit_req zone=z; limit_req zone=z burst=5;", "a second limit_req 'z'"),
        ("location", "limit_conn perip 10; limit_conn perip 20;", "a second limit_conn 'perip'"),
        # Inside the blocks a snippet opens, with their own contexts.
        ("http", "server { location / { worker_processes 2; } }", "is not allowed in location"),
        (
            "server",
            "location / { if ($uri) { proxy_buffering off; } }",
            "an if block of a location",
        ),
        ("http", "upstream u { keepalive; }", "takes 1 argument, not 0"),
    ],
)
def test_what_nginx_checks_before_the_values_is_refused(
    context: str, text: str, expected: str
) -> None:
    (reason,) = reasons(text, context)
    assert expected in reason


@pytest.mark.parametrize(
    ("context", "text"),
    [
        ("location", "gzip on; add_header A b; add_header C d always; expires 1h;"),
        ("server", "location /a { } location = /a { } location ~ /a { } location ~ /a { }"),
        ("server", "location @a { } location @a { } if ($uri) { return 404; }"),
        ("http", "map $uri $v { default 1; 'any thing' here; } types { a/b c d; }"),
        ("main", "env A; env B; stream { server { listen 1; proxy_pass a:1; } }"),
        ("http", "GZIP_STATIC on;".lower()),
    ],
)
def test_what_nginx_takes_passes(context: str, text: str) -> None:
    assert reasons(text, context) == []


@pytest.mark.parametrize(
    ("text", "milliseconds", "seconds"),
    [
        ("30", 30_000, 30),
        ("1m 30s", 90_000, 90),
        ("1s 500ms", 1_500, None),
        ("500ms", 500, None),
        ("1h30m", 5_400_000, 5_400),
        ("1y", None, 31_536_000),  # years and months only where nginx counts seconds
        ("1M", None, 2_592_000),
        ("30s 1m", None, None),  # largest first
        ("1d1d", None, None),
        ("1 2", 3_000, 3),
        ("ms", None, None),
        ("1x", None, None),
        ("", None, None),
        ("9223372036854775807", None, 9223372036854775807),
    ],
)
def test_times_are_read_as_ngx_parse_time_reads_them(
    text: str, milliseconds: int | None, seconds: int | None
) -> None:
    assert directive_values.time(text, seconds=False) == milliseconds
    assert directive_values.time(text, seconds=True) == seconds


def test_sizes_numbers_and_names_are_read_as_nginx_reads_them() -> None:
    assert directive_values.size("1M") == directive_values.offset("1m") == 1 << 20
    assert directive_values.size("1g") is None  # ngx_parse_size has no g
    assert directive_values.offset("2G") == 2 << 30
    assert directive_values.size("10\u212a") is None  # KELVIN SIGN is no k
    assert directive_values.number("+5") is None
    assert directive_values.number("9223372036854775808") is None
    for text, expected in [
        ("gzip_http_version 1.1;", None),
        ("server_tokens BUILD;", None),  # ASCII case is folded
        ("server_tokens maybe;", "takes one of off, on, build, not 'maybe'"),
        ("proxy_cache_methods get HEAD;", None),
        ("proxy_cache_methods GET PUT;", "takes any of GET, HEAD, POST, not 'PUT'"),
        ("output_buffers 0 32k;", "takes a number of buffers and the size of each"),
        ("client_max_body_size lots;", "takes a size: digits, then k, m or g, not 'lots'"),
        ("sendfile_max_chunk 1g;", "takes a size: digits, then k or m"),
        ("keepalive_timeout 1h 30m;", None),
        ("send_timeout 1y;", "takes a time"),
        ("max_ranges -1;", "takes a whole number (digits only), not '-1'"),
    ]:
        found = reasons(text, "location")
        if expected is None:
            assert found == [], text
        else:
            assert len(found) == 1 and expected in found[0], (text, found)


def test_the_target_version_decides_which_names_exist() -> None:
    (older,) = reasons("http2 on;", "server", V122)
    assert "nginx 1.22.1 has no such directive (it came in 1.25.1)" in older
    assert reasons("http2 on;", "server", V126) == []
    (dropped,) = reasons("ssl on;", "server", V126)
    assert "the last nginx with it is 1.25.0" in dropped
    assert reasons("ssl on;", "server", V122) == []


def test_a_directive_distributions_backport_passes_from_the_version_they_carry_it() -> None:
    # Debian's 1.22.1 and 1.26.3 carry max_headers (nginx 1.29.8): the real nginx test
    # below checks that against the host's nginx.
    assert reasons("max_headers 64;", "server", V122) == []
    (older,) = reasons("max_headers 64;", "server", (1, 21, 6))
    assert "it came in 1.29.8" in older


def test_a_loaded_module_lets_names_nginx_lacks_through() -> None:
    assert reasons("vhost_traffic_status on;", "http") != []
    loaded = Target(V122, unchecked_names=True)
    found = refusals(parse("vhost_traffic_status on;"), "http", loaded)
    assert list(found) == []
    # Its own names only: nginx's still get their checks.
    found = refusals(parse("gzip maybe;"), "http", loaded)
    assert [reason for _, reason in found] == ["takes on or off, not 'maybe'"]


def test_a_load_module_in_a_main_snippet_lifts_names_and_variables_for_every_snippet(
    tmp_path: Path,
) -> None:
    location = tmp_path / "location.conf"
    location.write_text("vhost_traffic_status_filter_by_host on;\nadd_header X $geoip2_city;\n")
    main = tmp_path / "main.conf"
    extra = {"location": [str(location)]}

    def refused() -> list[str]:
        node = spec_from_mapping(spec(extra=extra), "s.yaml")
        plan = make_plan(node, "s.yaml")
        found = snippet_problems(node, required=True, config=render_config(plan))
        return [p.message.split(" line ", 1)[1] for p in found]

    assert refused() == [
        "1: vhost_traffic_status_filter_by_host: nginx has no such directive (unknown "
        "directive): check the spelling; a third-party module's directive needs its "
        "load_module in an extra.main snippet",
        "2: add_header: uses $geoip2_city, which neither nginx 1.22.1 nor the config "
        'defines (nginx: unknown "geoip2_city" variable): check the spelling, or define it '
        "(set, map)",
    ]
    main.write_text("load_module modules/ngx_http_vhost_traffic_status_module.so;\n")
    extra["main"] = [str(main)]
    assert refused() == []


def test_beside_tpgen_s_own_directives_a_second_one_names_tpgen() -> None:
    (reason,) = _reasons_beside("sendfile on;", "http", frozenset({"sendfile"}))
    assert reason.startswith("tpgen's config sets it in this http block already")


def _reasons_beside(text: str, context: str, taken: frozenset[str]) -> list[str]:
    site = Site(context, taken)
    return [reason for _, reason in refusals(parse(text), context, Target(V122), site)]


def test_tpgen_s_refusal_comes_first_and_alone() -> None:
    # aio is refused by tpgen (one pool per disk) and would be a duplicate too: one line.
    around = Surroundings(site=None)
    assert [m for _, m in check_snippet("aio on;\naio on;\n", "location", around)] == [
        f"aio: {REFUSED['aio']}",
        f"aio: {REFUSED['aio']}",
    ]


def _variables(text: str, defined: str = "", version: tuple[int, ...] = V122) -> list[str]:
    tree = parse(defined + text)
    target = Target(version, defined=defined_variables(tree, "server"))
    return [reason for _, reason in refusals(parse(text), "server", target)]


@pytest.mark.parametrize(
    "text",
    [
        "return 200 $uri$request_id${host}x;",
        "add_header X-A $http_x_custom_thing; add_header X-B $cookie_Session;",
        "add_header X-C $upstream_http_etag$arg_q$sent_http_x;",
        "set $mine 1; return 200 $MINE;",  # case-insensitive, as nginx
        "location ~ ^/(?<rest>.*)$ { return 200 $rest$1; }",
        "if ($uri ~ ^/a$b) { return 404; }",  # a regex: $b is not a variable there
        "rewrite ^/x$y /z;",
        "location ~ ^/a$b { }",
        # Handlers that keep text as text never look a variable up.
        "server_name $not_a_variable; uwsgi_ssl_trusted_certificate $neither;",
        "ssl_certificate_key $compiled_only_beside_a_certificate.key;",
        "location / { perl 'sub { my $r = shift; $r->print($r->uri) }'; }",  # perl's code
    ],
)
def test_variables_nginx_or_the_config_defines_pass(text: str) -> None:
    assert _variables(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "return 200 $;",
            "'$' has a $ with no variable name after it (nginx: invalid variable name): write "
            "$name or ${name}, a name of letters, digits and _ (nginx has no escape for a $)",
        ),
        (
            'add_header X "${uri";',
            "'${uri' opens ${uri and never closes it (nginx: the closing bracket in \"uri\" "
            "variable is missing): write ${name}, a name of letters, digits and _",
        ),
        (
            'location / { if ($uri = "a$") { return 404; } }',
            "'a$' has a $ with no variable name after it (nginx: invalid variable name)",
        ),
        (
            "access_log /tmp/a.log combined if=a$;",
            "'a$' has a $ with no variable name after it (nginx: invalid variable name)",
        ),
        (
            "aio threads=a$;",
            "'a$' has a $ with no variable name after it (nginx: invalid variable name)",
        ),
        (
            "disable_symlinks on from=${x;",
            "'${x' opens ${x and never closes it (nginx: the closing bracket in \"x\" variable",
        ),
        (
            "location / { image_filter crop 100 a$; }",
            "'a$' has a $ with no variable name after it (nginx: invalid variable name)",
        ),
        (
            "location / { xslt_stylesheet /etc/nginx/a.xslt p=${v; }",
            "'p=${v' opens ${v and never closes it (nginx: the closing bracket in \"v\" variable",
        ),
    ],
)
def test_a_malformed_variable_where_nginx_compiles_a_script_is_refused(
    text: str, expected: str
) -> None:
    """Only the arguments nginx's handlers compile (the table's "script"): not a regex, a name."""
    (reason,) = _variables(text)
    assert expected in reason


def test_a_variable_nothing_defines_is_refused() -> None:
    (reason,) = _variables("add_header X-A $reqest_id;")
    assert reason.startswith("uses $reqest_id, which neither nginx 1.22.1 nor the config defines")
    assert 'unknown "reqest_id" variable' in reason
    assert _variables("add_header X-A $disk_of_key;", defined="map $uri $disk_of_key { }") == []
    # geo's address is all that follows its $; ${1} is no capture.
    geo_text = "geo ${uri} $g { }"
    tree = parse(geo_text)
    ((_, geo),) = refusals(tree, "http", Target(V122, defined=defined_variables(tree, geo_text)))
    assert geo.startswith('uses the variable named "{uri}", which neither nginx 1.22.1 nor')
    (braced,) = _variables("return 200 ${1};")
    assert braced.startswith('uses the variable named "1", which')
    # if's $ operand is all that follows its $, as nginx names it.
    (operand,) = _variables("if ($a$) { }")
    assert operand.startswith('uses the variable named "a$", which')
    assert 'unknown "a$" variable' in operand
    # In the blocks a snippet opens, too; named by the version that has it.
    (inner,) = _variables("location / { return 200 ${proxy_protocol_tlv_alpn}; }", "", (1, 22, 1))
    assert "proxy_protocol_tlv_alpn" in inner
    assert _variables("location / { return 200 ${proxy_protocol_tlv_alpn}; }", "", V126) == []


_NOPE = (
    'uses $nope, which neither nginx 1.22.1 nor the config defines (nginx: unknown "nope" '
    "variable): check the spelling, or define it (set, map)"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("fastcgi_param A $nope;", [_NOPE]),
        ("location / { scgi_param A x$nope if_not_empty; }", [_NOPE]),
        ("uwsgi_param $nope A;", []),  # the name is text
        ("proxy_set_body $nope;", [_NOPE]),
        ("ssl_certificate a$nope; ssl_certificate_key k;", [_NOPE]),
        ("ssl_certificate a.crt; ssl_certificate_key k$nope;", [_NOPE]),
        ("ssl_certificate a$host; ssl_certificate_key k; ssl_certificate_key k$nope;", []),
        ("ssl_certificate_key a$;", []),  # no certificate in force: never compiled
    ],
)
def test_a_value_nginx_compiles_when_it_merges_is_read_for_variables(
    text: str, expected: list[str]
) -> None:
    """*_param and proxy_set_body in every block, a server's certificate paths where it has
    certificates in force (ngx_http_ssl_compile_certificates)."""
    assert _variables(text) == expected


def test_a_server_s_key_pairs_with_the_certificate_it_inherits() -> None:
    tree = parse("ssl_certificate_key k$nope;")
    inherits = Target(V122, defined=frozenset(), http_ssl=frozenset({"ssl_certificate"}))
    assert [why for _, why in refusals(tree, "server", inherits)] == [_NOPE]
    beside = Site("server", frozenset({"ssl_certificate", "ssl_certificate_key"}))
    assert list(refusals(tree, "server", inherits, beside)) == []


def test_the_table_spans_every_nginx_tpgen_supports() -> None:
    table = commands()
    assert min(c.since for found in table.values() for c in found) == OLDEST_NGINX
    assert len(table) > 600
    names, prefixes = module_variables(V122)
    assert {"uri", "request_id", "upstream_cache_status", "gzip_ratio"} <= names
    assert {"http_", "arg_", "cookie_", "sent_http_", "upstream_http_"} <= set(prefixes)
    for name, found in table.items():
        assert re.fullmatch(r"[a-z0-9_]+", name), name
        for command in found:
            assert command.contexts, name
            assert re.fullmatch(r"any|flag|1\+|2\+|[0-7](,[0-7])*", command.args), name


def test_include_sites_read_the_including_block_of_tpgen_s_config() -> None:
    plan = make_plan(
        spec_from_mapping(
            spec(extra=_EVERYWHERE),
            "s.yaml",
        ),
        "s.yaml",
    )
    sites = include_sites(parse(render_config(plan)))
    assert {path: sites[path].context for path in _PATHS} == {
        "/etc/x/main.conf": "main",
        "/etc/x/http.conf": "http",
        "/etc/x/server.conf": "server",
        "/etc/x/location.conf": "location",
    }
    assert "sendfile" in sites["/etc/x/http.conf"].taken
    assert ("location", "prefix", "/") in sites["/etc/x/server.conf"].named
    assert ("log_format", "tpgen") in sites["/etc/x/http.conf"].named


_EVERYWHERE = {
    "main": ["/etc/x/main.conf"],
    "http": ["/etc/x/http.conf"],
    "server": ["/etc/x/server.conf"],
    "location": ["/etc/x/location.conf"],
}
_PATHS = [paths[0] for paths in _EVERYWHERE.values()]


def test_the_table_says_what_the_real_nginx_says(nginx_binary: str, tmp_path: Path) -> None:
    """Each directive this nginx has, in a block it allows and one it does not, with and without
    a block and with no argument: nginx's verdict is tpgen's (a module this build leaves out
    is "unknown" to nginx only; the values, past the count, are nginx's alone)."""
    version = nginx_version([nginx_binary])
    lacking, wrong = directive_disagreements(on_host(nginx_binary), tmp_path, version)
    assert wrong == []
    # Debian builds a few of nginx's modules dynamic (mail, stream, GeoIP, …), not in the core.
    assert len(lacking) < 100


def test_the_names_a_build_lacks_are_those_its_configure_arguments_say(
    nginx_binary: str, tmp_path: Path
) -> None:
    """From this nginx's configure arguments (nginx -V) alone, tpgen names every directive and
    variable the real nginx calls unknown, and no other: its dynamic modules (Debian: mail,
    stream, GeoIP, …) not loaded, those it leaves out, another system's event modules."""
    version = nginx_version([nginx_binary])
    build = Build(version, configure_arguments([nginx_binary]))
    names, variables = lacked_by_build(build)
    (tmp_path / "d").mkdir()
    (tmp_path / "v").mkdir()
    lacking, _ = directive_disagreements(on_host(nginx_binary), tmp_path / "d", version)
    assert names == lacking
    assert variables == set(unknown_variables(on_host(nginx_binary), tmp_path / "v", version))


def test_every_standard_value_is_parsed_as_the_real_nginx_parses_it(
    nginx_binary: str, tmp_path: Path
) -> None:
    """Each directive whose handler is a standard parser (a number, size, time, enum, …), with
    samples and random text: tpgen refuses exactly what nginx's parser refuses."""
    version = nginx_version([nginx_binary])
    assert value_disagreements(on_host(nginx_binary), tmp_path, version) == []


@pytest.mark.parametrize("context", ["location", "http"])
def test_a_word_or_comment_too_long_for_nginx_s_buffer_is_refused_where_nginx_refuses_it(
    nginx_binary: str, tmp_path: Path, context: str
) -> None:
    """nginx reads a word or # comment into 4096 bytes, counted from its quote or #."""
    texts = [
        f"add_header X {'b' * 4095};\n",
        f"add_header X {'b' * 4096};\n",
        f'add_header X "{"b" * 4094}";\n',
        f'add_header X "{"b" * 4095}";\n',
        f"#{'c' * 4094}\nadd_header X y;\n",
        f"#{'c' * 4095}\nadd_header X y;\n",
        f"add_header X {'é' * 2047}b;\n",  # bytes, not characters
        f"add_header X {'é' * 2048};\n",
    ]
    said = on_host(nginx_binary)(write_configs(tmp_path, [(context, text) for text in texts]))
    refused = [bool(check_snippet(text, context)) for text in texts]
    assert refused == [False, True] * 4
    assert [verdict != "taken" for verdict in said] == refused


RETURNS = [
    "200", "404 gone", "301 https://example.net/", "https://example.net/", "$scheme://$host/",
    "http://a", "999", "1000", "0", "00200", "-1", "abc", "abc def", "https://x y", "20x",
    "9223372036854775808", "ftp://x", "$host", "302 $scheme://$host",
]  # fmt: skip


def test_return_codes_are_read_as_nginx_reads_them(nginx_binary: str, tmp_path: Path) -> None:
    lines = [f"return {' '.join(map(quoted, value.split(' ')))};\n" for value in RETURNS]
    said = on_host(nginx_binary)(write_configs(tmp_path, [("location", line) for line in lines]))
    refused = [bool(reasons(line, "location")) for line in lines]
    assert refused.count(True) == 9
    assert [verdict == "invalid value" for verdict in said] == refused


def test_the_ported_handlers_take_and_refuse_what_the_real_nginx_does(
    nginx_binary: str, tmp_path: Path
) -> None:
    """Regexes (PCRE-only syntax included), location modifiers and nesting, if conditions, map
    bodies, rewrite flags, server names, referers: tpgen refuses a line exactly when nginx
    -t does."""
    version = nginx_version([nginx_binary])
    assert pcre.available()  # else no regex is compiled and the regexes below disagree
    assert handler_disagreements(on_host(nginx_binary), tmp_path, version) == []
    refused = [bool(reasons(text + "\n", context, version)) for context, text in HANDLER_CASES]
    assert refused.count(True) >= 35 and refused.count(False) >= 25


@pytest.mark.parametrize(
    ("context", "text", "expected"),
    [
        (
            "server",
            "location ~ ( {}",
            "the regex '(' does not compile: missing closing parenthesis",
        ),
        ("server", "location x /a {}", "takes one of the modifiers =, ^~, ~, ~* before the path"),
        (
            "server",
            "location = /a { location /a/b {} }",
            "cannot be inside the exact location '/a'",
        ),
        (
            "server",
            "location /a { location @b {} }",
            "named location is allowed on the server level",
        ),
        ("server", "location /a { location /b {} }", "the location '/b' is not under '/a'"),
        ("location", "if ($uri == x) { }", "'==' is no operator of a condition"),
        ("location", "if (-z $uri) { }", "the condition '-z' is not one nginx reads"),
        ("location", "if $uri { }", "the condition '$uri' is not one nginx reads"),
        ("location", "if ($uri ~* [) { }", "the regex '[' does not compile"),
        ("location", "rewrite ^ /x lst;", "takes a flag of last, break, redirect, permanent"),
        ("server", "server_name *x;", "'*x' is no server name nginx takes"),
        ("http", "map $uri $m { a b c; }", "line 1: the map entry 'a b c' is not key value;"),
        ("http", "map $uri $m {\n default 1;\n default 2;\n}", "line 3: a second default"),
        ("http", "map $uri m { a b; }", "its second argument starts with $, not 'm'"),
        (
            "http",
            "map $uri$ $m { }",
            "'$uri$' has a $ with no variable name after it (nginx: invalid variable name): "
            "write $name or ${name}, a name of letters, digits and _",
        ),
        (
            "http",
            "split_clients ${u-ri} $s { }",
            "'${u-ri}' opens ${u and never closes it (nginx: the closing bracket in \"u\" "
            "variable is missing): write ${name}, a name of letters, digits and _",
        ),
        ("http", "geo $ $g { }", 'reads the variable "$", which has no name (nginx: invalid'),
        (
            "server",
            'ssl_certificate ""; ssl_certificate_key a.key;',
            'is "", which nginx loads as the prefix directory, no certificate (nginx: cannot '
            'load certificate "…/"): name the file, or remove it',
        ),
        ("location", "fastcgi_split_path_info ^(.+)$;", "has 1 captures where nginx needs 2"),
        ("location", "gzip_comp_level 10;", "takes 1 to 9, not 10 (nginx: value must be between"),
        ("http", "connection_pool_size 100;", "at least 112 bytes, a multiple of 16, not 100"),
        ("http", "gzip_window 3k;", "takes one of 512, 1k, 2k, 4k, 8k, 16k, 32k, not 3072 bytes"),
        ("http", "http2_streams_index_size 33;", "takes a power of two, not 33"),
        ("location", "set $URI x;", "defines $URI, a variable of nginx's own that a config may"),
        (
            "location",
            "allow 10.0.0.0/33;",
            "takes all, unix: or an IPv4 or IPv6 address with /bits",
        ),
        ("location", "error_page 499 /x;", "takes status codes 300 to 599 (not 499), not '499'"),
        ("location", "error_page 200 /x;", "not 200 (nginx: must be between 300 and 599)"),
        ("location", "expires @25h;", "takes a time of day under 24h after @, not '@25h'"),
        ("location", "expires soon;", "takes a time (1h, 30d, -1, @15h30m), epoch, max or off"),
        ("location", "keepalive_timeout 65 500ms;", "a time in whole seconds (75s 60s)"),
        ("location", "limit_rate 1q;", "takes a size: digits, then k or m"),
        ("http", "limit_req_zone $uri zone=z:16k rate=1r/s;", "takes a zone of at least 32k"),
        (
            "http",
            "limit_req_zone $uri zone=z:1m rate=5r/h;",
            "takes rate=Nr/s or rate=Nr/m above 0",
        ),
        ("http", "limit_req_zone $uri rate=1r/s rate=2r/s;", '"limit_req_zone" must have "zone"'),
        ("location", "limit_req zone=z burst=0;", "takes burst= above 0, not 'burst=0'"),
        ("location", "limit_conn z 65536;", "takes 1 to 65535 connections, not '65536'"),
        (
            "location",
            "image_filter resize 100;",
            "takes off, test or size alone, rotate ANGLE, or resize or crop WIDTH HEIGHT, not "
            "'resize' (nginx: invalid parameter)",
        ),
        ("location", "image_filter rotate 45;", "rotates by 90, 180 or 270, not '45' (nginx:"),
        (
            "location",
            "image_filter crop 0 a$;",
            "takes a width and a height above 0 (or - for any), not '0' (nginx: invalid parameter)",
        ),
        ("location", "image_filter_webp_quality 0;", "takes a quality above 0, not '0' (nginx:"),
        ("location", "image_filter_sharpen -;", "takes a percentage of 0 or more, not '-' (nginx:"),
        (
            "server",
            "location ~ ^/(?<host>.+) {}",
            "the named capture (?<host>…) of '^/(?<host>.+)'",
        ),
        (
            "main",
            "worker_cpu_affinity 0101 01x1;",
            "takes auto, auto MASK, or one mask of 0 and 1 per worker (0101 1010), not '01x1' "
            '(nginx: invalid character "x" in "worker_cpu_affinity"): write each CPU as 0 or 1',
        ),
        (
            "main",
            "worker_cpu_affinity auto 01 10;",
            "not 2 masks after auto (nginx: invalid number of arguments in "
            '"worker_cpu_affinity" directive): keep one mask after auto',
        ),
        (
            "main",
            f"worker_cpu_affinity {'0' * 1025};",
            "takes masks of up to 1024 CPUs, not one of 1025 characters (nginx: "
            '"worker_cpu_affinity" supports up to 1024 CPUs only)',
        ),
        (
            "http",
            "modern_browser Unlisted;",
            "takes unlisted alone, or a browser (opera, msie, gecko, safari, konqueror) and its "
            "version, not 'Unlisted' (nginx refuses it without saying why)",
        ),
        (
            "http",
            "modern_browser chrome 1;",
            "takes a browser of nginx's list (opera, msie, gecko, safari, konqueror) before the "
            "version, not 'chrome' (nginx: unknown browser name \"chrome\")",
        ),
        (
            "server",
            "modern_browser gecko 1.9b;",
            "takes a version of digits and dots (9.0), not '1.9b' (nginx: invalid browser "
            'version "1.9b")',
        ),
        (
            "location",
            "sub_filter '' x;",
            "takes a string to search for before the replacement, not an empty one (nginx: "
            "empty search pattern)",
        ),
        (
            "http",
            "include conf.d/;",
            "includes 'conf.d/', which names a directory (nginx reads it as a file and fails: Is "
            "a directory): name a file, or a glob (dir/*.conf)",
        ),
        (
            "server",
            "proxy_redirect default;",
            "takes default only in a location after its proxy_pass, whose URL it rewrites "
            '(nginx: "proxy_redirect default" should be placed after the "proxy_pass" '
            "directive): move it into the location, or write the redirect out",
        ),
    ],
)
def test_what_a_ported_handler_refuses_is_said_with_the_fix(
    context: str, text: str, expected: str
) -> None:
    (reason,) = reasons(text, context)
    assert expected in reason


@pytest.mark.parametrize(
    ("body", "version", "expected"),
    [
        (
            "server { listen 127.0.0.1:1 udp ssl; return 1; }",
            V122,
            'beside udp, a datagram socket (nginx: "ssl" parameter is incompatible with "udp"): '
            "remove it, or udp",
        ),
        (
            "server { listen 1 udp fastopen=1 ssl; return 1; }",
            V126,
            '(nginx: "fastopen" parameter is incompatible with "udp")',
        ),
        (
            "server { listen 1 default_server; return 1; }",
            V122,
            'after the address (nginx: the invalid "default_server" parameter): fix or remove',
        ),
        ("server { listen 1 setfib=1; return 1; }", V126, '(nginx: invalid parameter "setfib=1")'),
        (
            "server { listen 1; return 1; } server { listen *:1; return 2; }",
            V122,
            "listens on 0.0.0.0:1 again, where a listen of this stream block has it already "
            '(nginx: duplicate "0.0.0.0:1" address and port pair): keep one',
        ),
        (
            "server { listen localhost:1; return 1; } server { listen 127.0.0.1:1; return 2; }",
            V122,
            "listens on 127.0.0.1:1 again, where a listen of this stream block has it already "
            '(nginx: duplicate "127.0.0.1:1" address and port pair): keep one',
        ),
        (
            "server { listen node-a:1; return 1; } server { listen NODE-A:1; return 2; }",
            V122,
            "listens on each address of node-a:1 again, where a listen of this stream block has "
            'it already (nginx: duplicate "<an address of node-a:1>" address and port pair)',
        ),
        (
            "server { listen 1 backlog=9; return 1; } server { listen 1 bind; return 2; }",
            V126,
            "(nginx: duplicate listen options for 0.0.0.0:1)",
        ),
        (
            "server { listen 1 ssl; return 1; }",
            V122,
            "makes the server an ssl one, where nginx needs a certificate in the server or the "
            'stream block (nginx: no "ssl_certificate" is defined for the "listen ... ssl" '
            "directive)",
        ),
    ],
)
def test_a_stream_listen_is_read_as_the_nginx_of_the_target_reads_it(
    body: str, version: tuple[int, ...], expected: str
) -> None:
    (reason,) = reasons(f"stream {{ {body} }}", "main", version)
    assert expected in reason


@pytest.mark.parametrize(
    ("body", "version", "expected"),
    [
        (
            "server { listen 1; ssl_preread on; }",
            V122,
            "has no return or proxy_pass, and nginx 1.22.1 needs one in every stream server "
            "(nginx: no handler for server; nginx 1.27.1 and later take it and close its "
            "connections): add proxy_pass (or return) to the server, or target nginx 1.27.1 or "
            "later",
        ),
        ("server { listen 1; }", (1, 27, 0), "has no return, proxy_pass or pass, and nginx 1.27.0"),
        ("server { listen 1; }", (1, 27, 1), None),
        ("server { listen 1; ssl_preread on; }", (1, 31, 4), None),
        (
            "server { return 1; }",
            (1, 31, 4),
            'has no listen, and nginx needs one in every stream server (nginx: no "listen" is '
            "defined for server): add listen with the address and port it serves",
        ),
    ],
)
def test_a_stream_server_needs_a_listen_and_before_1_27_1_a_content_handler(
    body: str, version: tuple[int, ...], expected: str | None
) -> None:
    found = reasons(f"stream {{ {body} }}", "main", version)
    assert [expected in reason for reason in found] == ([] if expected is None else [True])


@pytest.mark.parametrize(
    ("body", "version", "expected"),
    [
        ("server { listen 1; return 1; ssl_certificate a.crt; }", (1, 25, 4), None),
        (
            "ssl_certificate a.crt; server { listen 1; return 1; }",
            (1, 25, 5),
            "has no ssl_certificate_key of its own: nginx pairs the block's certificates and "
            'keys in order (1 certificates, 0 keys here) (nginx: no "ssl_certificate_key" is '
            "defined for certificate): add its key after it",
        ),
        (
            'ssl_certificate_key ""; server { listen 1 ssl; return 1; ssl_certificate a.crt; }',
            V122,
            "(a server without ssl_certificate of its own takes the stream block's)",
        ),
        (
            "server { listen 1; return 1; ssl_reject_handshake on; ssl_verify_client on; }",
            (1, 27, 2),
            "asks for client certificates in a TLS server without ssl_client_certificate or "
            "ssl_trusted_certificate to check them against",
        ),
        (
            "server { listen 1; return 1; ssl_reject_handshake on; ssl_verify_client on; "
            "ssl_trusted_certificate cas.pem; }",
            (1, 27, 2),
            None,
        ),
    ],
)
def test_a_stream_server_s_certificates_are_merged_as_the_nginx_of_the_target_merges_them(
    body: str, version: tuple[int, ...], expected: str | None
) -> None:
    found = reasons(f"stream {{ {body} }}", "main", version)
    assert [expected in reason for reason in found] == ([] if expected is None else [True])


@pytest.mark.parametrize(
    ("listen", "version", "expected"),
    [
        ("listen 80 multipath;", (1, 29, 6), '(nginx: invalid parameter "multipath")'),
        ("listen 80 multipath reuseport;", (1, 29, 7), None),
        ("listen 80 spdy;", (1, 19, 6), None),
        ("listen 80 spdy;", (1, 19, 7), '(nginx: invalid parameter "spdy")'),
        ("listen 80 quic backlog=5 so_keepalive=on;", (1, 25, 3), None),
        (
            "listen 80 quic backlog=5;",
            (1, 25, 4),
            "takes none of fastopen=, backlog=, deferred, ssl, http2, so_keepalive= and "
            'proxy_protocol beside quic, a datagram socket (nginx: "backlog" parameter is '
            'incompatible with "quic"): remove it, or quic',
        ),
        ("listen 80 quic multipath;", (1, 29, 6), '(nginx: invalid parameter "multipath")'),
        ("listen 80 quic multipath;", (1, 29, 7), '"multipath" parameter is incompatible with'),
        ("listen 80 quic ssl;", (1, 25, 0), "takes none of ssl, http2 and proxy_protocol beside"),
    ],
)
def test_an_http_listen_s_parameters_are_those_of_the_target_nginx(
    listen: str, version: tuple[int, ...], expected: str | None
) -> None:
    found = reasons(listen, "server", version)
    assert [expected in reason for reason in found] == ([] if expected is None else [True])


def test_multipath_sets_socket_options_from_1_29_7() -> None:
    text = "server { listen 80 multipath; } server { listen 80 backlog=9; }"
    (reason,) = reasons(text, "http", (1, 29, 7))
    assert "(nginx: duplicate listen options for 0.0.0.0:80)" in reason


@pytest.mark.parametrize(
    ("text", "context"),
    [
        ("server { listen 19990-19992; listen 19992; }", "http"),
        (
            "stream { server { listen 19990-19992; return 1; } "
            "server { listen 19992; return 2; } }",
            "main",
        ),
    ],
)
def test_nginx_1_23_3_listens_on_the_first_port_of_a_range_only(text: str, context: str) -> None:
    assert reasons(text, context, (1, 23, 3)) == []
    (reason,) = reasons(text, context, (1, 23, 4))
    assert "0.0.0.0:19992" in reason


def test_a_stream_variable_is_stream_s_own_or_the_stream_block_s() -> None:
    text = (
        "http { map $uri $h { } } "
        "stream { map $remote_addr $s { } server { listen 1; return $h$s$remote_port; } }"
    )
    tree = parse(text)
    ((_, reason),) = refusals(tree, "main", Target(V122, defined=defined_variables(tree)))
    assert reason == (
        "uses $h, which neither nginx 1.22.1's stream modules nor the stream block defines "
        '(nginx: unknown "h" variable): check the spelling (stream\'s variables are its own: no '
        "$uri, $arg_…), or define it in the stream block (set, map)"
    )


V131 = (1, 31, 4)


@pytest.mark.parametrize(
    ("body", "version", "expected"),
    [
        ("server { listen 1; return 1; ssl_certificate a$x; ssl_certificate_key k; }", V122, []),
        (
            "server { listen 1 ssl; return 1; ssl_certificate a$x; ssl_certificate_key k; }",
            V122,
            [
                "ssl_certificate: uses $x, which neither nginx 1.22.1's stream modules nor the "
                'stream block defines (nginx: unknown "x" variable): check the spelling '
                "(stream's variables are its own: no $uri, $arg_…), or define it in the stream "
                "block (set, map)"
            ],
        ),
        (
            "ssl_certificate a.crt; ssl_certificate_key k$; server { listen 1; return 1; }",
            (1, 25, 5),
            [
                "ssl_certificate_key: 'k$' has a $ with no variable name after it (nginx: "
                "invalid variable name): write $name or ${name}, a name of letters, digits and _ "
                "(nginx has no escape for a $)"
            ],
        ),
        ("ssl_certificate a.crt; ssl_certificate_key k$;", (1, 25, 5), []),
    ],
)
def test_a_stream_server_compiles_the_certificate_paths_it_checks(
    body: str, version: tuple[int, ...], expected: list[str]
) -> None:
    """Up to 1.25.4 a server with a listen ... ssl, from 1.25.5 any with a certificate:
    a stream block's path no such server takes is never compiled."""
    tree = parse(f"stream {{ {body} }}")
    found = refusals(tree, "main", Target(version, defined=defined_variables(tree)))
    assert [f"{directive.name}: {reason}" for directive, reason in found] == expected


_SERVED = "listen 1; return 1; ssl_certificate a$ssl_server_name; ssl_certificate_key k;"


@pytest.mark.parametrize(
    ("body", "version", "expected"),
    [
        (
            f"server {{ {_SERVED} ssl_ocsp on; ssl_verify_client optional_no_ca; }}",
            (1, 27, 2),
            [
                "ssl_ocsp: has ssl_ocsp check the clients' certificates where ssl_verify_client "
                'optional_no_ca checks none (nginx: "ssl_ocsp" is incompatible with '
                '"ssl_verify_client optional_no_ca"): set ssl_verify_client on or optional '
                "(with ssl_client_certificate), or ssl_ocsp off"
            ],
        ),
        ("ssl_ocsp on; ssl_verify_client optional_no_ca; server { listen 1; return 1; }", V131, []),
        (
            "ssl_ocsp leaf; server { listen 1; return 1; ssl_reject_handshake on; "
            "ssl_ocsp_responder https://127.0.0.1/; }",
            V131,
            [
                "ssl_ocsp_responder: has ssl_ocsp ask the OCSP responder 'https://127.0.0.1/', "
                "where nginx asks one over http:// only (nginx: invalid URL prefix in OCSP "
                'responder "…" in "ssl_ocsp_responder"): write http://HOST[:PORT][/PATH], or '
                "remove ssl_ocsp_responder (each certificate's own responder is asked)"
            ],
        ),
        (
            f"server {{ {_SERVED} ssl_ocsp on; ssl_ocsp_responder http://127.0.0.1:0/; }}",
            V131,
            [
                "ssl_ocsp_responder: has ssl_ocsp ask the OCSP responder "
                "'http://127.0.0.1:0/', an address nginx cannot read (nginx: invalid port in "
                'OCSP responder "…" in "ssl_ocsp_responder"): write http://HOST[:PORT][/PATH], '
                "a port from 1 to 65535"
            ],
        ),
        (f"server {{ {_SERVED} ssl_ocsp off; ssl_ocsp_responder https://x/; }}", V131, []),
        (f"server {{ {_SERVED} ssl_ocsp on; ssl_ocsp_responder http://[::1]:80/o; }}", V131, []),
        (
            f"ssl_stapling on; server {{ {_SERVED} ssl_certificate_compression on; }}",
            (1, 29, 3),
            [
                "ssl_stapling: has ssl_stapling staple OCSP answers to certificates "
                "ssl_certificate_compression compresses ahead of any answer (nginx: "
                '"ssl_stapling" is incompatible with "ssl_certificate_compression"): turn one '
                "of them off"
            ],
        ),
        (
            f"server {{ {_SERVED} ssl_stapling on; ssl_certificate_compression on; }}",
            (1, 29, 2),
            [],
        ),
        (f"server {{ {_SERVED} ssl_stapling off; ssl_certificate_compression on; }}", V131, []),
    ],
)
def test_a_stream_server_s_ocsp_settings_are_merged_as_nginx_merges_them(
    body: str, version: tuple[int, ...], expected: list[str]
) -> None:
    """Stream's ssl_ocsp and ssl_stapling came in 1.27.2, after the nginx builds the tests run
    (1.22.1, 1.26.3): each verdict here is nginx 1.31.4's -t, built from its source (the http
    ones, spec/handlers_ocsp.py's same reading: tests/test_merged.py OCSP_CASES)."""
    tree = parse(f"stream {{ {body} }}")
    found = refusals(tree, "main", Target(version))
    assert [f"{directive.name}: {reason}" for directive, reason in found] == expected


@pytest.mark.parametrize(
    ("text", "taken"),
    [
        ("1.2.3.4", True),
        ("1..2.3", True),  # an empty part is 0 to ngx_inet_addr
        ("01.2.3.4", True),
        ("255.255.255.255", False),  # INADDR_NONE: nginx cannot tell it from an error
        ("1.2.3", False),
        ("::", True),
        ("1::", True),
        ("::ffff:1.2.3.4", True),
        ("1:2:3:4:5:6:7:8", True),
        ("1:2:3:4:5:6:7:8:9", False),
        ("1:2:3:4:5:6:7::", False),  # :: stands for no word at all
        ("1:2:3:4:5:6:1.2.3.4", True),
        ("1:2:3:4:5:6:7:1.2.3.4", False),
        ("1::2::3", False),
        ("fe80::1%eth0", False),  # no zone index
        (":1", False),
        ("12345::", False),
        ("10.0.0.0/8", True),
        ("10.0.0.0/33", False),
        ("::/128", True),
        ("::/129", False),
        ("1.2.3.4/", False),
    ],
)
def test_addresses_are_read_as_ngx_ptocidr_reads_them(text: str, taken: bool) -> None:
    assert nginx_addresses.cidr_problem(text) is not taken


def test_a_certificate_without_its_key_is_refused_where_nginx_would_find_none(
    nginx_binary: str, tmp_path: Path
) -> None:
    """A block's certificates and keys pair in order; a block that sets no key inherits the
    keys around it, which tpgen counts only where none exists at all."""

    def refused(text: str, context: str, used: str = "", site: Site | None = None) -> bool:
        tree = parse(text)
        names = directive_names(tree) | frozenset(used.split())
        target = Target(V122, used=names)
        return any(refusals(tree, context, target, site))

    tls = Site("server", frozenset({"listen", "ssl_certificate", "ssl_certificate_key"}))
    assert refused("ssl_certificate b.crt;", "server", site=tls)  # beside tpgen's pair
    assert not refused("ssl_certificate b.crt; ssl_certificate_key b.key;", "server", site=tls)
    assert refused("ssl_certificate a.crt;", "server")  # no key anywhere
    assert not refused("ssl_certificate a.crt;", "server", used="ssl_certificate_key")
    assert not refused("server { ssl_certificate a.crt; } ssl_certificate_key a.key;", "http")
    # The real nginx takes that last one (with files to load): the key is inherited.
    key = tmp_path / "a.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=a", "-keyout",
         str(key), "-out", str(tmp_path / "a.crt"), "-days", "1"],
        check=True, capture_output=True,
    )  # fmt: skip
    text = f"server {{ ssl_certificate {tmp_path}/a.crt; }} ssl_certificate_key {key};\n"
    assert not refused(text, "http")
    (tmp_path / "c").mkdir()
    folders = write_configs(tmp_path / "c", [("http", text)])
    assert on_host(nginx_binary)(folders) == ["taken"]


def test_a_post_handler_that_changed_is_read_for_the_target_version() -> None:
    """http2_recv_buffer_size refused up to 2 × 16 bytes until nginx 1.25.2, up to 16 since."""
    assert reasons("http2_recv_buffer_size 17;", "http", V122)
    assert reasons("http2_recv_buffer_size 17;", "http", V126) == []
    assert reasons("http2_recv_buffer_size 16;", "http", V126)


def test_without_the_pcre2_library_a_regex_is_left_to_nginx(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A controller without libpcre2-8 compiles nothing: validate takes the regex and the
    node's nginx -t judges it; the handlers' other checks still run."""

    def missing(name: str) -> None:
        raise OSError(f"{name}: cannot open shared object file")

    pcre._library.cache_clear()
    monkeypatch.setattr("ctypes.CDLL", missing)
    try:
        assert not pcre.available()
        assert reasons("location ~ ( {}", "server") == []
        assert reasons("location x ( {}", "server")  # the modifier is not a regex
    finally:
        monkeypatch.undo()
        pcre._library.cache_clear()
    assert reasons("location ~ ( {}", "server")


@pytest.mark.parametrize("version", [V122, V126])
def test_a_build_without_pcre_refuses_a_regex_where_nginx_built_so_does(
    tmp_path: Path, version: tuple[int, int, int]
) -> None:
    """NO_PCRE_CASES hold what nginx 1.22.1 and 1.26.3 built from source with NO_PCRE said
    (their nginx -t, run when the cases were added): tpgen refuses exactly those, with the
    PCRE2 library here all the same; a map's ~ key is a plain string there."""

    def recorded(folders: list[Path]) -> list[str]:
        return ["refused" if refused else TAKEN for _, _, refused in NO_PCRE_CASES]

    assert pcre.available()
    assert no_pcre_disagreements(recorded, tmp_path, version) == []
    verdicts = [refused for _, _, refused in NO_PCRE_CASES]
    assert verdicts.count(True) >= 18 and verdicts.count(False) >= 8


_NO_PCRE_FIX = (
    "write no regex here, or build nginx with PCRE (the rewrite module brings it, as "
    "--with-pcre does) and correct nginx.configure"
)


@pytest.mark.parametrize(
    ("context", "text", "version", "expected"),
    [
        ("server", r"server_name a.net ~^(www)\.b$;", V122,
         r"uses the regex '~^(www)\\.b$', and nginx 1.22.1 as built here (nginx.configure) has "
         r'no PCRE library (--without-pcre) (nginx: using regex "~^(www)\.b$" requires PCRE '
         f"library): {_NO_PCRE_FIX}"),
        ("server", "location ~* ^/a {}", V126,
         "uses the regex '^/a', and nginx 1.26.3 as built here (nginx.configure) has no PCRE "
         'library (--without-pcre) (nginx: using regex "^/a" requires PCRE library): '
         f"{_NO_PCRE_FIX}"),
        ("location", "valid_referers none ~a;", V122,
         "uses the regex '~a', and nginx 1.22.1 as built here (nginx.configure) has no PCRE "
         'library (--without-pcre) (nginx: the using of the regex "~a" requires PCRE library): '
         f"{_NO_PCRE_FIX}"),
        ("location", "valid_referers none ~a;", V126,
         "uses the regex '~a', and nginx 1.26.3 as built here (nginx.configure) has no PCRE "
         'library (--without-pcre) (nginx: using regex "~a" requires PCRE library): '
         f"{_NO_PCRE_FIX}"),
        ("location", "gzip_disable msie6 MSIE;", V122,
         "uses the regex 'MSIE', and nginx 1.22.1 as built here (nginx.configure) has no PCRE "
         'library (--without-pcre) (nginx: without PCRE library "gzip_disable" supports builtin '
         '"msie6" and "degradation" mask only): keep to msie6 and degradation, or build nginx '
         "with PCRE (the rewrite module brings it, as --with-pcre does) and correct "
         "nginx.configure"),
        ("location", "fastcgi_split_path_info ^(.+)(/.*)$;", V122,
         "splits the path with a regex, and nginx 1.22.1 as built here (nginx.configure) has no "
         'PCRE library (--without-pcre) (nginx: "fastcgi_split_path_info" requires PCRE '
         "library): remove it, or build nginx with PCRE (the rewrite module brings it, as "
         "--with-pcre does) and correct nginx.configure"),
    ],
)  # fmt: skip
def test_a_regex_on_a_build_without_pcre_is_said_with_the_fix(
    context: str, text: str, version: tuple[int, int, int], expected: str
) -> None:
    target = Target(version, build=Build(version, NO_PCRE))
    assert [why for _, why in refusals(parse(text), context, target)] == [expected]


def test_a_build_without_the_rewrite_module_has_no_pcre_either() -> None:
    """configure links PCRE for the rewrite module, or with --with-pcre (auto/modules)."""
    build = Build(V122, "--without-http_rewrite_module")
    assert not build.pcre and Build(V122, "--without-http_rewrite_module --with-pcre").pcre
    target = Target(V122, build=build)
    (why,) = [why for _, why in refusals(parse("location ~ a {}"), "server", target)]
    assert "has no PCRE library (--without-http_rewrite_module, and no --with-pcre: the " in why


def test_a_regex_nginx_takes_and_python_does_not_is_taken() -> None:
    r"""PCRE's \p{L} and (?<name>…) are not Python's re: PCRE2 itself judges."""
    assert reasons('location ~ "^/\\p{L}+(?<word>[a-z]+)$" { return 200 $word; }', "server") == []


def test_every_variable_of_the_table_is_one_the_real_nginx_knows(
    nginx_binary: str, tmp_path: Path
) -> None:
    """nginx -t takes a reference to each HTTP variable the table gives this nginx's version,
    but those of a module this build leaves out (GeoIP, perl: dynamic in Debian)."""
    version = nginx_version([nginx_binary])
    unknown = unknown_variables(on_host(nginx_binary), tmp_path, version)
    assert [name for name in unknown if not name.startswith(("geoip_", "perl_"))] == []
    assert len(unknown) < 20


def test_every_stream_variable_of_the_table_is_one_the_real_nginx_knows(
    nginx_binary: str, tmp_path: Path
) -> None:
    """nginx -t takes a reference in a stream server to each stream variable the table gives
    this nginx's version, but stream GeoIP's (a module of its own in Debian); and those are
    the ones tpgen reads the build lacks from its configure arguments (nginx -V)."""
    version = nginx_version([nginx_binary])
    unknown = unknown_variables(on_host(nginx_binary), tmp_path, version, "stream")
    assert [name for name in unknown if not name.startswith("geoip_")] == []
    assert 0 < len(unknown) < 20
    build = Build(version, configure_arguments([nginx_binary]))
    assert lacked_stream_variables(build) == set(unknown)


def _line(directive: Directive) -> str:
    return " ".join([directive.name, *map(quoted, directive.args)]) + ";\n"


def _own_directives(text: str) -> dict[str, Directive]:
    """tpgen's one-line directives in each block that includes a snippet, keyed "PATH NAME"."""
    found: dict[str, Directive] = {}

    def walk(directives: tuple[Directive, ...], context: str) -> None:
        paths = {d.args[0] for d in directives if d.name == "include" and d.args}
        for path in paths & set(_PATHS):
            for directive in directives:
                if directive.block is None and directive.name not in ("include", *REFUSED):
                    found.setdefault(f"{path} {directive.name}", directive)
        for directive in directives:
            inner = INNER_CONTEXTS.get((context, directive.name))
            if inner is not None and directive.block is not None:
                walk(directive.block, inner)

    walk(parse(text), "main")
    return found


@pytest.mark.parametrize("workload", ["cache", "origin"])
def test_a_copy_of_tpgen_s_own_line_is_a_duplicate_exactly_when_nginx_says(
    nginx_binary: str, tmp_path: Path, workload: str
) -> None:
    """Each directive tpgen writes beside a snippet's include, copied into the snippet: tpgen
    refuses it as a duplicate exactly when the real nginx -t does."""
    data = spec(workload, extra=_EVERYWHERE)
    node = spec_from_mapping(data, "s.yaml")
    plan = make_plan(node, "s.yaml")
    copies = _own_directives(render_config(plan))
    assert len(copies) > 15
    wrong: list[tuple[str, list[str], list[str]]] = []
    verdicts: list[bool] = []
    sites = include_sites(parse(render_config(plan)))
    locate = {path: str(tmp_path / Path(path).name) for path in _PATHS}
    contexts = {paths[0]: context for context, paths in _EVERYWHERE.items()}
    for key, directive in sorted(copies.items()):
        path = key.split(" ")[0]
        for other in _PATHS:
            Path(locate[other]).write_text(_line(directive) if other == path else "")
        around = Surroundings(site=sites[path])
        found = [message for _, message in check_snippet(_line(directive), contexts[path], around)]
        result = check_plan(plan, nginx=nginx_binary, locate=lambda p: locate.get(p, p))
        emerg = [line for line in result.output.splitlines() if "[emerg]" in line]
        nginx_dup = any("duplicate" in line for line in emerg)
        # tpgen refusing what nginx takes, or taking a duplicate nginx refuses, is wrong; a
        # line tpgen refuses for its own reason (listen, add_header) may fail nginx too.
        tpgen_dup = any("duplicate" in message for message in found)
        if tpgen_dup != nginx_dup and not (found and not tpgen_dup):
            wrong.append((key, found, emerg))
        verdicts.append(tpgen_dup)
    assert wrong == []
    assert verdicts.count(True) >= 10 and verdicts.count(False) >= 3
