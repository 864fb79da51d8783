"""Hostile text in any string field of the spec, or in the spec's file name, never changes the
directive tree of the config: either validate refuses it (exit 2, one `file:line: field: message`
line per problem) or the config parses back (crossplane) to the benign spec's tree."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import crossplane
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from tpgen.cli import main
from tpgen.errors import SpecError
from tpgen.plan import make_plan
from tpgen.render import render_config
from tpgen.spec.load import spec_from_mapping
from tpgen.spec.model import DUAL_STACK, NodeSpec

FieldPath = tuple[str | int, ...]

PAYLOADS = [
    "\n",
    "\r",
    "\t",
    ";",
    "{",
    "}",
    '"',
    "'",
    "$",
    "#",
    "\\",
    " ",
    "\0",
    "\u2028",
    "\u0085",
    "]",
    "%",
    "%x]:80; } server { listen [::1",
    "; } server { listen 9999; } #",
    "\nuser root;\n",
    '" ; include /etc/passwd; "',
]

DISK = {
    "device": "/dev/sdb",
    "size": "4TB",
    "media": "hdd",
    "state": "active",
    "filesystem": "xfs",
    "weight": 1.5,
    "thread_pool": True,
}
TUNING = {
    "user": "www-data",
    "group": "www-data",
    "worker_processes": "auto",
    "worker_connections": 4096,
    "sendfile_max_chunk": "512KiB",
    "threads_per_disk": 32,
    "max_queue": 1024,
    "buckets": 100,
    "keepalive_timeout": "65s",
}


def _disks(kind: str) -> list[dict[str, Any]]:
    return [
        {**DISK, "name": "d1", "mount": f"/srv/{kind}/d1"},
        {**DISK, "name": "d2", "device": "/dev/sdc", "mount": f"/srv/{kind}/d2"},
        {
            **DISK,
            "name": "d3",
            "device": "/dev/sdd",
            "mount": f"/srv/{kind}/d3",
            "state": "draining",
        },
    ]


BASES: dict[str, dict[str, Any]] = {
    "cache-name": {
        "node": {"name": "node-1", "cores": 4, "memory": "32GiB"},
        "workload": {
            "type": "cache",
            "upstreams": ["origin.example.net:8080"],
            "resolver": ["192.0.2.53"],
            "avg_object_size": "1MiB",
            "cache_key": "$scheme$host$request_uri",
            "inactive": "7d",
            "slice": "1MiB",
        },
        "cache": {
            "valid": [{"status": [200, 206, "any"], "time": "10m"}],
            "lock_timeout": "5s",
            "lock_age": "5s",
            "use_stale": ["error", "updating"],
            "ignore_headers": ["Vary"],
            "bypass": {"header": "X-Bypass", "cookie": "nocache"},
            "loader_threshold": "200ms",
            "trusted_networks": ["10.0.0.0/8"],
        },
        "logging": {"format": "json", "path": "/var/log/nginx/cache.log", "buffer": "64KiB"},
        "extra": {
            "main": ["/etc/nginx/tpgen/main.conf"],
            "http": ["/etc/nginx/tpgen/http.conf"],
            "server": ["/etc/nginx/tpgen/server.conf"],
            "location": ["/etc/nginx/tpgen/location.conf"],
        },
        "listen": {"address": "0.0.0.0", "port": 80},
        "status": {"address": "127.0.0.1", "port": 8081},
        "tuning": TUNING,
        "disks": _disks("cache"),
    },
    "cache-ip": {
        "node": {"name": "node-2", "cores": 4, "memory": "32GiB"},
        "workload": {"type": "cache", "upstreams": ["192.0.2.10:8080", "[2001:db8::10]:80"]},
        "origin": {
            "servers": {"192.0.2.10:8080": {"weight": 2, "fail_timeout": "10s"}},
            "fail_timeout": "10s",
            "connect_timeout": "5s",
            "send_timeout": "60s",
            "read_timeout": "60s",
            "next_upstream": ["error", "http_502"],
            "next_upstream_timeout": "10s",
            "tls": True,
            "ca_file": "/etc/ssl/certs/ca-certificates.crt",
            "server_name": "origin.example.net",
        },
        "listen": {"address": "::", "port": 80},
        "status": {"address": "::1", "port": 8081},
        "tuning": TUNING,
        "disks": _disks("cache"),
    },
    "edge": {
        "node": {"name": "node-4", "cores": 4, "memory": "32GiB"},
        "workload": {"type": "origin"},
        "listen": [
            {"address": "*", "port": 443, "tls": True, "http2": True, "http3": True},
            {"address": "::1", "port": 8443, "tls": True, "http2": True},
        ],
        "tls": {
            "certificates": [
                {"cert": "/etc/nginx/tls/a.crt", "key": "/etc/nginx/tls/a.key"},
                {
                    "cert": "/etc/nginx/tls/b.crt",
                    "key": "/etc/nginx/tls/b.key",
                    "server_names": ["b.example.net"],
                },
            ],
            "ticket_keys": ["/etc/nginx/tls/ticket.key"],
            "redirect_http": True,
        },
        "nginx": {"version": "1.26.3", "http_v3": True},
        "disks": _disks("data"),
    },
    "vod": {
        "node": {"name": "node-3", "cores": 4, "memory": "32GiB"},
        "workload": {"type": "vod", "avg_object_size": "64MiB"},
        "tuning": {**TUNING, "directio": "4MiB", "output_buffers": "1MiB"},
        "disks": _disks("vod"),
    },
}


def _schema_string_fields() -> list[FieldPath]:
    """Every place in the spec's JSON Schema that takes a string (lists and unions too), so
    a new field is covered without editing this test."""
    schema = NodeSpec.model_json_schema()
    defs = schema.get("$defs", {})
    found: list[FieldPath] = []

    def takes_string(node: dict[str, Any]) -> bool:
        if "$ref" in node:
            return False
        options = node.get("anyOf", []) + node.get("oneOf", [])
        return (
            node.get("type") == "string"
            or isinstance(node.get("const"), str)
            or any(isinstance(v, str) for v in node.get("enum", []))
            or any(takes_string(o) for o in options)
        )

    def walk(node: dict[str, Any], path: FieldPath) -> None:
        if "$ref" in node:
            walk(defs[node["$ref"].rsplit("/", 1)[-1]], path)
            return
        for option in node.get("anyOf", []) + node.get("oneOf", []):
            if "$ref" in option or option.get("type") in ("object", "array"):
                walk(option, path)
        if node.get("type") == "array":
            walk(node["items"], (*path, 0))
        for name, sub in node.get("properties", {}).items():
            walk(sub, (*path, name))
        if path and takes_string(node) and path not in found:
            found.append(path)

    walk(schema, ())
    return found


STRING_FIELDS = _schema_string_fields()


def test_the_schema_walk_finds_the_string_fields() -> None:
    # Guards the walk itself: if it found nothing the injection test would prove nothing.
    for expected in [
        ("node", "name"),
        ("workload", "upstreams", 0),
        ("workload", "resolver", 0),
        ("workload", "cache_key"),
        ("listen", "address"),
        ("status", "address"),
        ("disks", 0, "name"),
        ("disks", 0, "mount"),
        ("disks", 0, "size"),
        ("tuning", "user"),
        ("tuning", "worker_processes"),
        ("tuning", "keepalive_timeout"),
        ("workload", "slice"),
        ("cache", "bypass", "header"),
        ("cache", "trusted_networks", 0),
        ("cache", "valid", 0, "time"),
        ("origin", "ca_file"),
        ("origin", "server_name"),
        ("logging", "path"),
        ("listen", 0, "address"),
        ("tls", "certificates", 0, "cert"),
        ("tls", "certificates", 0, "key"),
        ("tls", "certificates", 0, "server_names", 0),
        ("tls", "ticket_keys", 0),
        ("nginx", "version"),
        ("extra", "main", 0),
        ("extra", "http", 0),
        ("extra", "server", 0),
        ("extra", "location", 0),
    ]:
        assert expected in STRING_FIELDS


def _set(data: Any, path: FieldPath, value: Any) -> None:
    for part, after in itertools.pairwise(path):
        if isinstance(part, int) and isinstance(data, dict):
            continue  # a list field written as one mapping (listen): that mapping is item 0
        if isinstance(part, str) and isinstance(data, list):
            data = data[0]  # and a list where the schema also takes one mapping
        if isinstance(part, str):
            data = data.setdefault(part, [] if isinstance(after, int) else {})
        else:
            while len(data) <= part:  # a list the base leaves out or empty
                data.append([] if isinstance(after, int) else {})
            data = data[part]
    last = path[-1]
    if isinstance(last, str) and isinstance(data, list):
        data = data[0]
    if isinstance(last, int):
        if not data:
            data.append(value)
        data[last] = value
    else:
        data[last] = value


def _get(data: Any, path: FieldPath) -> Any:
    for part in path:
        if isinstance(part, int) and isinstance(data, dict):
            continue
        if isinstance(part, str) and isinstance(data, list) and data:
            data = data[0]
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _yaml(data: Any, indent: str = "") -> str:
    """Block YAML with every scalar JSON-quoted: any text, escapes and all, survives."""
    lines = []
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, dict | list) and value:
                lines.append(f"{indent}{key}:\n{_yaml(value, indent + '  ')}")
            else:
                lines.append(f"{indent}{key}: {json.dumps(value)}")
    else:
        for value in data:
            if isinstance(value, dict):
                body = _yaml(value, indent + "  ")
                lines.append(f"{indent}- {body.lstrip()}")
            else:
                lines.append(f"{indent}- {json.dumps(value)}")
    return "\n".join(lines)


SHAPELESS_BLOCKS = {
    "map",
    "split_clients",
    "types",
    "geo",
}  # their entries are data, not directives


def _tree(text: str, tmp: Path) -> tuple[Any, ...]:
    """Directive names, argument counts and nesting; entries of map-like blocks count only."""
    conf = tmp / "parsed.conf"
    conf.write_text(text, encoding="utf-8")
    payload = crossplane.parse(str(conf), single=True, check_ctx=False, check_args=False)
    assert payload["status"] == "ok", payload["errors"]

    def shape(block: list[dict[str, Any]], entries: bool) -> tuple[Any, ...]:
        items = tuple(
            (
                "<entry>" if entries else item["directive"],
                len(item["args"]),
                shape(item.get("block") or [], item["directive"] in SHAPELESS_BLOCKS),
            )
            for item in block
        )
        # A valid new disk name moves buckets, so the number of entries may change; the
        # forms of the entries may not.
        return tuple(sorted(set(items), key=repr)) if entries else items

    return shape(payload["config"][0]["parsed"], False)


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def benign_trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, ...]]:
    tmp = tmp_path_factory.mktemp("benign")
    trees = {}
    for name, data in BASES.items():
        spec = tmp / f"{name}.yaml"
        spec.write_text(_yaml(data), encoding="utf-8")
        code, out, err = _run(["render", "--no-check", str(spec)])
        assert code == 0, err
        trees[name] = _tree(out, tmp)
    return trees


def _cases() -> Iterator[Any]:
    for base in BASES:
        for path in STRING_FIELDS:
            yield pytest.param(base, path, id=f"{base}-{'.'.join(map(str, path))}")


def _render_or_problems(data: dict[str, Any]) -> str | list[str]:
    try:
        spec = spec_from_mapping(data, "h.yaml")
    except SpecError as err:
        return [str(problem) for problem in err.problems]
    return render_config(make_plan(spec, "h.yaml"))


@pytest.mark.parametrize(("base", "path"), list(_cases()))
def test_hostile_text_in_a_string_field_is_refused_or_inert(
    base: str, path: FieldPath, benign_trees: dict[str, tuple[Any, ...]], tmp_path: Path
) -> None:
    benign = _get(BASES[base], path)
    for payload in PAYLOADS:
        for value in (payload, f"{benign}{payload}", f"{payload}{benign}"):
            data = json.loads(json.dumps(BASES[base]))
            _set(data, path, value)
            result = _render_or_problems(data)
            shown = f"{path} = {value!r}"
            if isinstance(result, str):
                assert _tree(result, tmp_path) == benign_trees[base], shown
            else:
                assert result, shown
                for message in result:
                    assert re.fullmatch(r"h\.yaml: [\w.]+: \S.*", message), shown


# The CLI path (YAML file, line numbers, exit codes) for the payloads that broke out before.
CLI_PAYLOADS = ["\n", ";", "}", "\0", "%x]:80; } server { listen [::1"]


@pytest.mark.parametrize("path", STRING_FIELDS, ids=[".".join(map(str, p)) for p in STRING_FIELDS])
def test_the_cli_refuses_hostile_text_with_file_line_and_field(
    path: FieldPath, benign_trees: dict[str, tuple[Any, ...]], tmp_path: Path
) -> None:
    spec = tmp_path / "spec.yaml"
    line = re.compile(rf"{re.escape(str(spec))}:\d+: [\w.]+: \S.*")
    benign = _get(BASES["cache-name"], path)
    for payload in CLI_PAYLOADS:
        data = json.loads(json.dumps(BASES["cache-name"]))
        _set(data, path, f"{benign}{payload}")
        spec.write_text(_yaml(data), encoding="utf-8")
        code, out, err = _run(["render", "--no-check", str(spec)])
        shown = f"{path} + {payload!r}"
        if code == 0:
            assert _tree(out, tmp_path) == benign_trees["cache-name"], shown
            continue
        assert code == 2, f"{shown}: exit {code}: {err}"
        assert err.splitlines(), shown
        for message in err.splitlines():
            assert line.fullmatch(message), f"{shown}: {message!r}"


HOSTILE_NAMES = [
    "spec\nuser root;\n.yaml",
    "a;b{c}d.yaml",
    "q\"'$#\\ %].yaml",
    "x\u2028y\u0085z\r.yaml",
    "\x07bell\x1b[31m.yaml",
]


@pytest.mark.parametrize("name", [*HOSTILE_NAMES, os.fsdecode(b"undecodable-\xff\xfe.yaml")])
def test_a_hostile_spec_file_name_stays_inside_the_header_comment(
    name: str, benign_trees: dict[str, tuple[Any, ...]], tmp_path: Path
) -> None:
    spec = tmp_path / name
    spec.write_text(_yaml(BASES["cache-name"]), encoding="utf-8")
    assert _run(["validate", str(spec)])[0] == 0
    code, out, err = _run(["render", "--no-check", str(spec)])
    assert code == 0, err
    assert _tree(out, tmp_path) == benign_trees["cache-name"]
    first, second = out.splitlines()[:2]
    assert first.startswith("# generated by tpgen from ")
    assert first.isprintable()
    assert second.startswith("# change the spec")


def test_a_long_non_ascii_spec_path_is_cut_in_the_header_not_past_nginx_s_buffer(
    tmp_path: Path, nginx_binary: str
) -> None:
    # 9 folders of 120 "é": 2,200 bytes of path, 4 characters each once escaped — a header
    # line nginx read as one 9,000-byte comment and refused (too long parameter).
    folder = tmp_path.joinpath(*["é" * 120] * 9)
    folder.mkdir(parents=True)
    spec = folder / "spec.yaml"
    spec.write_text(_yaml(BASES["vod"]), encoding="utf-8")
    code, out, err = _run(["render", str(spec)])
    assert code == 0, err
    first = out.splitlines()[0]
    assert len(first.encode()) < 4096 - 1
    assert first.endswith("... for node-3 — do not edit:")
    assert "\\xe9" in first


def test_a_newline_in_the_file_name_is_shown_escaped(tmp_path: Path) -> None:
    spec = tmp_path / "spec\nuser root;.yaml"
    spec.write_text(_yaml(BASES["vod"]), encoding="utf-8")
    code, out, _ = _run(["render", "--no-check", str(spec)])
    assert code == 0
    assert out.splitlines()[0] == (
        f"# generated by tpgen from {tmp_path}/spec\\nuser root;.yaml for node-3 — do not edit:"
    )


def test_a_hostile_file_name_passes_the_real_check(nginx_binary: str, tmp_path: Path) -> None:
    spec = tmp_path / "spec\n} user root; {.yaml"
    # The check needs every extra snippet on this machine: the base's are the node's.
    base = {key: value for key, value in BASES["cache-name"].items() if key != "extra"}
    spec.write_text(_yaml(base), encoding="utf-8")
    code, _, err = _run(["render", str(spec)])
    assert code == 0, err


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    field=st.sampled_from(
        [
            ("node", "name"),
            ("workload", "upstreams", 0),
            ("workload", "resolver", 0),
            ("workload", "cache_key"),
            ("workload", "inactive"),
            ("listen", "address"),
            ("status", "address"),
            ("disks", 0, "name"),
            ("disks", 0, "mount"),
            ("tuning", "user"),
            ("tuning", "keepalive_timeout"),
            ("extra", "http", 0),
            ("extra", "location", 0),
        ]
    ),
    text=st.text(max_size=40),
)
def test_any_text_in_a_field_is_refused_or_inert(field: FieldPath, text: str) -> None:
    # `*` is the documented dual-stack wildcard (spec/edge.py): one more listen, by design
    assume(not (field[-1] == "address" and text == DUAL_STACK))
    data = json.loads(json.dumps(BASES["cache-name"]))
    benign_text = render_config(make_plan(spec_from_mapping(data, "h.yaml"), "h.yaml"))
    _set(data, field, text)
    try:
        spec = spec_from_mapping(data, "h.yaml")
    except SpecError as err:
        for problem in err.problems:
            assert problem.path, problem
            assert len(str(problem).splitlines()) == 1, problem
        return
    text_out = render_config(make_plan(spec, "h.yaml"))
    with tempfile.TemporaryDirectory() as tmp:
        assert _tree(text_out, Path(tmp)) == _tree(benign_text, Path(tmp))
