"""Spec extra: nginx's tokenizer rules, the refusals with the exact line a user sees, where the
includes go, and the check that puts the snippets into nginx -t."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import crossplane
import pytest
import yaml
from tpgen.api import extra_file_problems, make_plan, node_layout, render_config
from tpgen.check import check_plan
from tpgen.cli import main
from tpgen.errors import SpecError
from tpgen.ops.doctor.drift import check_extra_files
from tpgen.ops.doctor.findings import Level
from tpgen.spec.load import spec_from_mapping
from tpgen.spec.model import FILE_RE, PATTERN_FIXES
from tpgen.spec.nginx_syntax import Directive, SyntaxProblem, parse
from tpgen.spec.snippets import check_snippet

from .live import free_ports, get, running_nginx
from .specs import spec

# ---------------------------------------------------------------------------- the tokenizer


def test_comments_quotes_and_braces_are_read_as_nginx_reads_them() -> None:
    text = (
        "# a comment; with { braces }\n"
        'add_header X-A "a ; { } # b" always;  # trailing\n'
        "set $x ${host}a}b;\n"
        "return 200 'it\"s';\n"
        "location ~ ^/a\\{2\\}$ {\n"
        '    if ($x = "y") { return 204; }\n'
        "}\n"
    )
    assert parse(text) == (
        Directive("add_header", ("X-A", "a ; { } # b", "always"), 2),
        Directive("set", ("$x", "${host}a}b"), 3),
        Directive("return", ("200", 'it"s'), 4),
        Directive(
            "location",
            ("~", "^/a\\{2\\}$"),
            5,
            (Directive("if", ("($x", "=", "y", ")"), 6, (Directive("return", ("204",), 6),)),),
        ),
    )


def test_escapes_keep_what_nginx_keeps() -> None:
    # \" \' \\ lose the backslash, \t \n become the character, any other stays: "ai\o" is not aio.
    (one,) = parse('return 200 "a\\"b\\\\c\\td\\qe";')
    assert one.args == ("200", 'a"b\\c\td\\qe')
    (two,) = parse("ai\\o on;")
    assert two.name == "ai\\o"
    (three,) = parse('"aio" on;')
    assert three.name == "aio"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('add_header X "never closed;\n', 1, 'a " quote is never closed'),
        ("server {\n  listen 80;\n", 1, 'the block of "server" is never closed by "}"'),
        ("}\n", 1, 'unexpected "}": a snippet cannot close a block it did not open'),
        ("a 1;\n}\nb 2;\n", 2, 'unexpected "}": a snippet cannot close a block it did not open'),
        ("a 1\n", 1, '"a" is not ended by ";" or a block'),
        ("a {\n b 1\n}\n", 3, 'unexpected "}": the directive before it has no ";"'),
        (";\n", 1, 'unexpected ";"'),
        ("\n{ }\n", 2, 'unexpected "{"'),
        ('a "b"c;\n', 1, "unexpected 'c' right after a quoted word"),
    ],
)
def test_what_nginx_would_not_parse_is_a_syntax_problem(text: str, line: int, message: str) -> None:
    with pytest.raises(SyntaxProblem) as caught:
        parse(text)
    assert (caught.value.line, caught.value.message) == (line, message)


def _tree(directives: tuple[Directive, ...]) -> list[Any]:
    # crossplane keeps an escape as written where nginx (and tpgen) makes \n a newline.
    return [
        [
            d.name,
            [arg.replace("\n", "\\n") for arg in d.args],
            d.line,
            None if d.block is None else _tree(d.block),
        ]
        for d in directives
    ]


def _crossplane_tree(block: list[dict[str, Any]]) -> list[Any]:
    return [
        [
            d["directive"],
            d["args"],
            d["line"],
            None if "block" not in d else _crossplane_tree(d["block"]),
        ]
        for d in block
        if d["directive"] != "#"
    ]


@pytest.mark.parametrize("name", ["main.conf", "http.conf", "server.conf", "cors.conf"])
def test_the_golden_snippets_parse_as_crossplane_parses_them(name: str) -> None:
    path = Path(__file__).parent / "cases" / "cache-extra" / "files" / "etc/nginx/tpgen" / name
    parsed = crossplane.parse(str(path), single=True, check_ctx=False, check_args=False)
    assert parsed["status"] == "ok", parsed["errors"]
    expected = _crossplane_tree(parsed["config"][0]["parsed"])
    assert _tree(parse(path.read_text())) == expected


# ------------------------------------------------------------------------------ refusals


@pytest.mark.parametrize(
    ("context", "text", "expected"),
    [
        (
            "http",
            "proxy_cache_path /srv/x keys_zone=x:1m;",
            "proxy_cache_path: tpgen writes one cache per disk, sized from the disk; a cache it "
            "does not plan is on no bucket map (locate, purge and doctor miss it) and fills a "
            "disk unsized: remove it",
        ),
        (
            "main",
            "thread_pool extra threads=4;",
            "thread_pool: tpgen writes one thread pool per disk that needs one, sized by its rule "
            "(tpgen explain): set tuning.threads_per_disk or disks.N.thread_pool instead",
        ),
        (
            "location",
            "aio on;",
            "aio: tpgen sets aio per disk (threads=pool_$tpgen_disk), so a slow disk never blocks "
            "another: remove it",
        ),
        (
            "location",
            "proxy_cache off;",
            "proxy_cache: tpgen picks the cache of each key (proxy_cache cache_$tpgen_disk): to "
            "keep requests out of the cache set cache.bypass",
        ),
        (
            "server",
            "include /etc/nginx/more.conf;",
            "include: tpgen cannot check what a nested include brings in: write its directives "
            "into this snippet, or list that file in extra itself",
        ),
        (
            "main",
            "worker_processes 2;",
            "worker_processes: worker_connections and the open-files limit are sized from it: "
            "set tuning.worker_processes",
        ),
        (
            "http",
            "load_module modules/x.so;",
            "load_module: nginx loads modules in the main context only: list this snippet in "
            "extra.main",
        ),
        (
            "http",
            "split_clients $uri $tpgen_disk { * a; }",
            "split_clients: defines $tpgen_disk: $tpgen_ names are tpgen's own (the disk of a "
            "key, its cache and pool follow from them): name yours otherwise",
        ),
        (
            "server",
            "listen 8080;",
            "listen: the health check, doctor and the exporters read the listens of spec "
            "listen: add the address there",
        ),
        (
            "location",
            "location /x { return 204; }",
            "location: a nested location takes its requests out of tpgen's content location "
            "(its disk choice, cache and thread pool): put the location in an extra.server "
            "snippet",
        ),
    ],
)
def test_each_refusal_names_the_directive_its_line_and_the_fix(
    context: str, text: str, expected: str
) -> None:
    assert check_snippet(f"# first line\n{text}\n", context) == [(2, expected)]


def test_refusals_reach_inside_blocks_and_variables_in_any_case() -> None:
    text = "server {\n  location / {\n    aio threads;\n  }\n}\nmap $a $TPGEN_X { }\n"
    assert [line for line, _ in check_snippet(text, "http")] == [3, 6]


def test_what_is_only_refused_at_the_snippets_own_level_is_fine_deeper() -> None:
    # A server an http snippet adds has its own listen; a main snippet loads a module.
    assert check_snippet("server {\n listen 8080;\n location /x { }\n}\n", "http") == []
    assert check_snippet("load_module modules/ngx_stream_module.so;\n", "main") == []
    assert [m for _, m in check_snippet("stream { load_module a.so; }", "main")] == [
        "load_module: nginx loads modules in the main context only: list this snippet in extra.main"
    ]


def test_a_byte_order_mark_nginx_would_read_as_a_directive_is_refused() -> None:
    (refusal,) = check_snippet("\ufeffadd_header X-A b;\n", "http")
    assert refusal[0] == 1 and "starts with a byte order mark (U+FEFF)" in refusal[1]
    assert check_snippet("add_header X-A \ufeff;\n", "http") == []  # inside a value: nginx's


def test_deep_nesting_is_refused_not_a_recursion_error() -> None:
    text = "a {\n" * 2000 + "}\n" * 2000
    assert check_snippet(text, "http") == [
        (33, "blocks nest more than 32 deep: tpgen reads no deeper: nginx -t would refuse it")
    ]
    assert check_snippet("location /a {\n" * 32 + "}\n" * 32, "server") == []


def test_a_snippet_with_thousands_of_refusals_lists_ten_and_the_count(tmp_path: Path) -> None:
    snippet = tmp_path / "gen.conf"
    snippet.write_text("aio on;\n" * 5000)
    node = spec_from_mapping(spec(extra={"location": [str(snippet)]}), "s.yaml")
    found = [p.message for p in extra_file_problems(node, {str(snippet): str(snippet)})]
    assert len(found) == 11
    assert found[9].startswith(f"{snippet} line 10: aio: ")
    assert found[10] == f"{snippet}: 4990 more refusals like these"


def test_a_syntax_problem_is_reported_at_its_line() -> None:
    assert check_snippet("a 1;\nb {\n", "http") == [
        (2, 'the block of "b" is never closed by "}": nginx -t would refuse it')
    ]


# ------------------------------------------------------------- through the CLI, with files


def _spec_file(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _extra(tmp_path: Path, **contexts: str) -> dict[str, list[str]]:
    """Snippet files in tmp_path, one per context, and the spec's extra section naming them."""
    section: dict[str, list[str]] = {}
    for context, text in contexts.items():
        path = tmp_path / f"{context}.conf"
        path.write_text(text, encoding="utf-8")
        section[context] = [str(path)]
    return section


def _line_of(spec_path: Path, key: str) -> int:
    """The line of the first list item under ``key``: where the field extra.KEY.0 is."""
    lines = spec_path.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.strip().startswith(key)) + 1


def test_validate_refuses_a_snippet_with_file_line_field_snippet_line_and_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = _extra(tmp_path, http="# zones\nproxy_cache_path /srv/x keys_zone=x:1m;\n")
    path = _spec_file(tmp_path, spec(extra=extra))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    line = _line_of(path, "http:")
    assert err.splitlines() == [
        f"{path}:{line}: extra.http.0: {tmp_path}/http.conf line 2: proxy_cache_path: tpgen "
        "writes one cache per disk, sized from the disk; a cache it does not plan is on no "
        "bucket map (locate, purge and doctor miss it) and fills a disk unsized: remove it"
    ]
    # Nothing written: render refuses the same way before any output.
    assert main(["render", "--no-check", str(path), "-o", str(tmp_path / "out.conf")]) == 2
    assert not (tmp_path / "out.conf").exists()


def test_validate_refuses_what_nginx_t_would_in_each_context_and_render_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], nginx_binary: str
) -> None:
    extra = _extra(
        tmp_path,
        main="types { text/plain txt; }\n",
        http="gzip on;\nsendfile on;\n",  # tpgen's http block sets sendfile
        server="location / { }\n",  # and has location /
        location="add_header X-Disk $tpgen_disk;\nadd_header X-Id $reqest_id;\nexpires;\n",
    )
    path = _spec_file(tmp_path, spec(extra=extra))
    assert main(["validate", str(path)]) == 2
    found = [line.split(": ", 2)[2] for line in capsys.readouterr().err.splitlines()]
    assert [line.split(": ", 2)[0] for line in found] == [
        f"{tmp_path}/main.conf line 1",
        f"{tmp_path}/http.conf line 2",
        f"{tmp_path}/server.conf line 1",
        f"{tmp_path}/location.conf line 2",
        f"{tmp_path}/location.conf line 3",
    ]
    assert "types: is not allowed in main" in found[0]
    assert "sendfile: tpgen's config sets it in this http block already" in found[1]
    assert "location: tpgen's config already has a prefix location '/'" in found[2]
    assert "add_header: uses $reqest_id" in found[3]
    assert "expires: takes 1 or 2 arguments, not 0" in found[4]
    out = tmp_path / "out.conf"
    assert main(["render", "--no-check", str(path), "-o", str(out)]) == 2
    assert not out.exists()
    # Mended, validate takes it and so does the real nginx -t.
    for context, text in {
        "main": "env TZ;\n",
        "http": "gzip on;\n",
        "server": "location /x/ { }\n",
        "location": "add_header X-Disk $tpgen_disk;\nadd_header X-Id $request_id;\nexpires 1h;\n",
    }.items():
        (tmp_path / f"{context}.conf").write_text(text)
    capsys.readouterr()
    assert main(["validate", str(path)]) == 0
    assert main(["render", str(path), "-o", str(out)]) == 0, capsys.readouterr().err


def test_a_missing_snippet_is_skipped_by_validate_and_needed_by_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "gone.conf")
    path = _spec_file(tmp_path, spec(extra={"server": [missing]}))
    assert main(["validate", str(path)]) == 0
    assert main(["render", "--no-check", str(path)]) == 0
    assert f"include {missing};" in capsys.readouterr().out
    expected = (
        f"{path}:{_line_of(path, 'server:')}: extra.server.0: {missing}: No such file or "
        "directory: put the snippet there or fix the path (`tpgen validate` and `tpgen render "
        "--no-check` skip a snippet that is not here; the check needs it)"
    )
    assert main(["validate", "--extra-files", str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == [expected]
    assert main(["render", str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == [expected]


def test_what_a_snippet_uses_is_not_refused_while_another_snippet_is_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A controller validates without the node's files: a variable, log format or zone the
    missing http snippet may define is not "unknown"; with every snippet there, it is."""
    http = tmp_path / "http.conf"
    location = tmp_path / "location.conf"
    location.write_text("add_header X-Y $my_var;\naccess_log x.log mine;\nlimit_req zone=z;\n")
    path = _spec_file(tmp_path, spec(extra={"http": [str(http)], "location": [str(location)]}))
    assert main(["validate", str(path)]) == 0
    http.write_text("map $uri $my_var { default 1; }\n")
    assert main(["validate", str(path)]) == 2
    found = capsys.readouterr().err.splitlines()
    assert [line.split(": ", 3)[3].split(":")[0] for line in found] == [
        "access_log",
        "limit_req",
    ]
    assert "uses the log format 'mine', which the config does not define" in found[0]
    assert "uses the zone 'z', which no limit_req_zone of the config defines" in found[1]
    http.write_text(
        "map $uri $my_var { default 1; }\nlog_format mine $uri;\n"
        "limit_req_zone $uri zone=z:1m rate=1r/s;\n"
    )
    assert main(["validate", str(path)]) == 0


def test_the_role_s_check_of_some_snippets_does_not_call_the_others_names_unknown(
    tmp_path: Path,
) -> None:
    """The role checks the snippets it copies; one already on the node may define what they
    use. With every snippet given, what none defines is refused."""
    location = tmp_path / "location.conf"
    location.write_text("add_header X-Y $my_var;\naccess_log x.log mine;\n")
    http = tmp_path / "http.conf"
    http.write_text("gzip on;\n")
    data = spec(extra={"http": ["/etc/x/http.conf"], "location": ["/etc/x/location.conf"]})
    node = spec_from_mapping(data, "s.yaml")
    assert extra_file_problems(node, {"/etc/x/location.conf": str(location)}) == []
    both = {"/etc/x/location.conf": str(location), "/etc/x/http.conf": str(http)}
    found = [item.message for item in extra_file_problems(node, both)]
    assert len(found) == 2 and "uses $my_var" in found[0] and "log format 'mine'" in found[1]


def test_a_snippet_that_is_there_but_unreadable_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "snippet.conf"
    folder.mkdir()
    binary = tmp_path / "binary.conf"
    binary.write_bytes(b"add_header X \xff;\n")
    path = _spec_file(tmp_path, spec(extra={"http": [str(folder)], "location": [str(binary)]}))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert [line.split(": ", 2)[1] for line in err] == ["extra.http.0", "extra.location.0"]
    assert "is a directory, not a regular file" in err[0]
    assert "not UTF-8 text: byte 0xff at line 1, column 14" in err[1]


def test_add_header_above_a_location_that_sets_its_own_is_refused(tmp_path: Path) -> None:
    text = "add_header X-Frame-Options DENY always;\n"
    cache = spec_from_mapping(spec(extra=_extra(tmp_path, server=text)), "s.yaml")
    plan = make_plan(cache, "s.yaml")
    files = {p: p for p in cache.extra.server}
    assert [p.message for p in extra_file_problems(cache, files, "s.yaml")] == [
        f"{tmp_path}/server.conf line 1: add_header: is not inherited by tpgen's content "
        "location, which sets its own add_header (nginx inherits add_header only into a block "
        "that sets none): put it in extra.location"
    ]
    assert "proxy_set_header" in plan.shadowed_by_tpgen["http"]
    # An origin node's location sets no header: there the server's reaches every answer.
    origin = spec_from_mapping(spec("origin", extra=_extra(tmp_path, server=text)), "s.yaml")
    assert extra_file_problems(origin, {p: p for p in origin.extra.server}) == []


def test_controller_copies_are_read_in_place_of_the_node_paths(tmp_path: Path) -> None:
    copy = tmp_path / "copy.conf"
    copy.write_text("thread_pool x threads=1;\n")
    node = spec_from_mapping(spec(extra={"main": ["/etc/nginx/tpgen/main.conf"]}), "s.yaml")
    (found,) = extra_file_problems(node, {"/etc/nginx/tpgen/main.conf": str(copy)}, "spec of a")
    assert str(found).startswith(
        f"spec of a: extra.main.0: /etc/nginx/tpgen/main.conf (read from {copy}) line 1: "
        "thread_pool: "
    )
    # A snippet the mapping leaves out is the node's: not read on the controller.
    assert extra_file_problems(node, {}) == []


# --------------------------------------------------------------------------- the spec


PATTERN = "is not " + PATTERN_FIXES[FILE_RE]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (
            ["/etc/a.conf", "/etc/a.conf"],
            "s.yaml: extra.http: /etc/a.conf is listed twice: nginx would read it twice; list it "
            "once",
        ),
        (
            ["/etc/a..conf"],
            "s.yaml: extra.http.0: '/etc/a..conf': a path nginx.conf names holds no '..': rename "
            "the file",
        ),
        (["etc/a.conf"], f"s.yaml: extra.http.0: 'etc/a.conf' {PATTERN}"),
        (["/etc/*.conf"], f"s.yaml: extra.http.0: '/etc/*.conf' {PATTERN}"),
        (["/etc/a.conf;user"], f"s.yaml: extra.http.0: '/etc/a.conf;user' {PATTERN}"),
    ],
)
def test_bad_paths_are_refused_with_the_field(value: list[str], expected: str) -> None:
    # A glob would make nginx include every match; ; or a space would end the directive.
    with pytest.raises(SpecError) as caught:
        spec_from_mapping(spec(extra={"http": value}), "s.yaml")
    assert str(caught.value) == expected


def test_a_tls_path_with_dotdot_is_bad_input_not_an_internal_error() -> None:
    # The renderer's one escaping rule takes no ".." in a path: the spec refuses it first.
    data = spec(
        "origin",
        listen=[{"port": 443, "tls": True}],
        tls={"certificates": [{"cert": "/etc/nginx/a..crt", "key": "/etc/nginx/a.key"}]},
    )
    with pytest.raises(SpecError) as caught:
        spec_from_mapping(data, "s.yaml")
    assert str(caught.value) == (
        "s.yaml: tls.certificates.0.cert: '/etc/nginx/a..crt': a path nginx.conf names holds "
        "no '..': rename the file"
    )


# ------------------------------------------------------- the config, the check, the layout


def _plan(**extra: list[str]) -> Any:
    return make_plan(spec_from_mapping(spec(extra=extra), "s.yaml"), "s.yaml")


def test_server_snippets_go_into_content_servers_only() -> None:
    data = spec(
        listen=[{"port": 443, "tls": True}],
        tls={
            "certificates": [{"cert": "/etc/t/a.crt", "key": "/etc/t/a.key"}],
            "redirect_http": True,
        },
        extra={"server": ["/etc/x/s.conf"], "location": ["/etc/x/l.conf"]},
    )
    text = render_config(make_plan(spec_from_mapping(data, "s.yaml"), "s.yaml"))
    servers = text.split("\n    server {")[1:]
    assert len(servers) == 3  # the content server, the redirect server, the status server
    assert "include /etc/x/s.conf;" in servers[0]
    assert "include /etc/x/l.conf;" in servers[0]
    assert "include /etc/x" not in servers[1] + servers[2]


def test_the_layout_lists_each_snippet_once_with_its_contexts() -> None:
    plan = _plan(http=["/etc/x/a.conf"], server=["/etc/x/a.conf", "/etc/x/b.conf"])
    assert node_layout(plan).to_dict()["extra_files"] == [
        {
            "path": "/etc/x/a.conf",
            "contexts": ["http", "server"],
            "mode": "0644",
            "kind": "snippet",
        },
        {"path": "/etc/x/b.conf", "contexts": ["server"], "mode": "0644", "kind": "snippet"},
    ]


def test_the_check_puts_the_snippets_into_nginx_t(nginx_binary: str, tmp_path: Path) -> None:
    snippet = tmp_path / "loc.conf"
    # A value nginx refuses and tpgen cannot know offline (a host name the node does not
    # resolve; .invalid never does, RFC 2606): only nginx -t sees it.
    snippet.write_text("resolver nosuch.invalid;\n")
    plan = _plan(location=[str(snippet)])
    assert check_snippet(snippet.read_text(), "location") == []
    result = check_plan(plan, nginx=nginx_binary)
    assert not result.ok
    # nginx's message names the snippet at its node path, not the throwaway prefix.
    assert f'host not found in resolver "nosuch.invalid" in {snippet}:1' in result.output
    snippet.write_text("resolver 127.0.0.1;\n")
    assert check_plan(plan, nginx=nginx_binary).ok


def test_doctor_fails_a_missing_snippet_and_calls_present_ones_not_drift() -> None:
    assert check_extra_files({}, 0) is None
    ok = check_extra_files({}, 2)
    assert ok is not None and ok.level is Level.OK
    assert ok.message == "2 include file(s) of spec extra in place (tpgen's: not drift)"
    gone = check_extra_files({"/etc/x/a.conf": "No such file or directory"}, 1)
    assert gone is not None and gone.level is Level.FAIL
    assert gone.message.startswith("the config includes what is not readable here (/etc/x/a.conf")


def test_the_layout_lists_the_log_directories_once() -> None:
    plain = node_layout(_plan())
    assert plain.log_dirs == ("/var/log/nginx",)
    data = spec(logging={"path": "/srv/logs/edge/access.log"})
    moved = node_layout(make_plan(spec_from_mapping(data, "s.yaml"), "s.yaml"))
    assert moved.log_dirs == ("/var/log/nginx", "/srv/logs/edge")


def test_a_live_nginx_serves_what_the_snippets_add(nginx_binary: str, tmp_path: Path) -> None:
    listen, status, extra_port = free_ports(3)
    snippets = {
        "main": "env TZ;\n",
        "http": f"server {{\n  listen 127.0.0.1:{extra_port};\n  return 204;\n}}\n",
        "server": 'location = /from-snippet {\n  return 200 "server snippet\\n";\n}\n',
        "location": "add_header X-Extra location-snippet always;\n",
    }
    extra = _extra(tmp_path, **snippets)
    data = spec(
        "origin",
        disks=1,
        listen={"address": "127.0.0.1", "port": listen},
        status={"port": status},
        node={"cores": 1, "memory": "1GiB"},
        tuning={"worker_connections": 64},
        extra=extra,
    )
    plan = make_plan(spec_from_mapping(data, "live.yaml"), "live.yaml")
    with running_nginx(plan, tmp_path / "prefix", nginx_binary):
        base = f"http://127.0.0.1:{listen}"
        answer = get(f"{base}/from-snippet")
        assert (answer.status, answer.body) == (200, b"server snippet\n")
        missing = get(f"{base}/not-on-any-disk")
        assert (missing.status, missing.headers.get("x-extra")) == (404, "location-snippet")
        assert get(f"http://127.0.0.1:{extra_port}/").status == 204
        # The status server stays tpgen's: no location snippet there.
        assert "x-extra" not in get(f"http://127.0.0.1:{status}/nginx_status").headers


_SSL_8081 = (
    "listen: makes 127.0.0.1:8081 an ssl address, where nginx needs a certificate in "
    "the default server (the first on it, or default_server) and, if that one only "
    'rejects handshakes, in every server on it (nginx: no "ssl_certificate" is defined '
    'for the "listen ... ssl" directive): add ssl_certificate and ssl_certificate_key '
    "(or ssl_reject_handshake on) to the server, or listen on another address"
)


def _http_snippet_problems(tmp_path: Path, text: str) -> list[str]:
    cache = spec_from_mapping(spec(extra=_extra(tmp_path, http=text)), "s.yaml")
    files = {p: p for p in cache.extra.http}
    return [p.message.split(": ", 1)[1] for p in extra_file_problems(cache, files, "s.yaml")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # tpgen's content server listens on 0.0.0.0:80 with backlog=: options nginx takes
        # once per address (ngx_http_add_addresses).
        (
            "server { listen 80 reuseport; }\n",
            "listen: sets socket options (reuseport) on 0.0.0.0:80, where tpgen's config has a "
            "listen with options as well (nginx: duplicate listen options for 0.0.0.0:80): set "
            "them on one listen of the address only",
        ),
        ("server { listen 80; }\nserver { listen *:80 default_server; }\n", None),
        # The status server's listen has no options and is no default server.
        ("server { listen 127.0.0.1:8081 bind default_server; }\n", None),
        (
            "server { listen 127.0.0.1:8081 default_server; }\n"
            "server { listen 127.0.0.1:8081 default; }\n",
            "listen: makes a second default server for 127.0.0.1:8081, where the snippet has one "
            "as well (nginx: a duplicate default server for 127.0.0.1:8081): keep one "
            "default_server",
        ),
        # The snippet's servers come before tpgen's: the first on an address is its default.
        (
            "server { listen 127.0.0.1:8081 ssl; }\n",
            _SSL_8081,
        ),
        # One that only rejects handshakes makes nginx check every server on the address:
        # tpgen's status server has no certificate.
        ("server { listen 127.0.0.1:8081 ssl; ssl_reject_handshake on; }\n", _SSL_8081),
        ("server { listen 127.0.0.1:8082 ssl; ssl_reject_handshake on; }\n", None),
        # A host name resolves on the node: tpgen takes it and compares it with nothing.
        ("server { listen localhost:80 reuseport; }\n", None),
    ],
)
def test_an_http_snippet_s_listens_meet_tpgen_s_own_as_nginx_merges_them(
    tmp_path: Path, text: str, expected: str | None
) -> None:
    assert _http_snippet_problems(tmp_path, text) == ([] if expected is None else [expected])
