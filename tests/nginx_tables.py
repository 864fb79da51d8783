"""Configs that put tpgen's copy of nginx's command and variable tables (spec/directives.py)
to a real nginx — on the host or in a container — and what each verdict means."""

from __future__ import annotations

import random
import re
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tpgen.spec.build import Build
from tpgen.spec.directive_handlers import KINDS as HANDLER_KINDS
from tpgen.spec.directives import (
    Target,
    commands,
    defined_names,
    defined_variables,
    directive_names,
    module_variables,
    refusals,
)
from tpgen.spec.directives import present as directive_present
from tpgen.spec.nginx_syntax import parse

Version = tuple[int, ...]
V122 = (1, 22, 1)


def reasons(text: str, context: str, version: Version = V122) -> list[str]:
    """Why tpgen refuses each directive of ``text`` in a block of ``context``, alone."""
    return [reason for _, reason in refusals(parse(text), context, Target(version))]


# Debian builds stream as a dynamic module (in 1.22 and 1.26 alike).
STREAM = "load_module /usr/lib/nginx/modules/ngx_stream_module.so;"
# A block of each context a directive can be put in, around it.
AROUND = {
    "main": ("", "events {}\n"),
    "events": ("events {\n", "}\n"),
    "http": ("events {}\nhttp {\n", "}\n"),
    "server": ("events {}\nhttp {\nserver {\n", "}\n}\n"),
    "location": ("events {}\nhttp {\nserver {\nlocation / {\n", "}\n}\n}\n"),
    "location_if": ("events {}\nhttp {\nserver {\nlocation / {\nif ($uri) {\n", "}\n}\n}\n}\n"),
    "server_if": ("events {}\nhttp {\nserver {\nif ($uri) {\n", "}\n}\n}\n"),
    "upstream": ("events {}\nhttp {\nupstream u {\nserver 127.0.0.1;\n", "}\n}\n"),
    "limit_except": (
        "events {}\nhttp {\nserver {\nlocation / {\nlimit_except GET {\n",
        "}\n}\n}\n}\n",
    ),
}
_NGINX_SAYS = (
    "unknown directive",
    "is not allowed here",
    "has no opening",
    "is not terminated",
    "invalid number of arguments",
)
_TPGEN_SAYS = {
    "no such directive": "unknown directive",
    "is not allowed in": "is not allowed here",
    "takes a {": "has no opening",
    "takes no block": "is not terminated",
    "invalid number of arguments": "invalid number of arguments",
    "(nginx: invalid value)": "taken or a value",
}
TAKEN = "taken"
Runner = Callable[[list[Path]], list[str]]


def nginx_version(run: list[str]) -> Version:
    out = subprocess.run([*run, "-v"], capture_output=True, text=True, check=True).stderr
    match = re.search(r"nginx/(\d+)\.(\d+)\.(\d+)", out)
    assert match, out
    return tuple(int(part) for part in match.groups())


def configure_arguments(run: list[str]) -> str:
    """What ``nginx -V`` prints after "configure arguments: " (spec nginx.configure)."""
    out = subprocess.run([*run, "-V"], capture_output=True, text=True, check=True).stderr
    match = re.search(r"^configure arguments: (.*)$", out, re.M)
    assert match, out
    return match[1]


# What tpgen says of a name or variable whose module the build lacks.
_LACKED = "as built here (nginx.configure) has no "


def lacked_by_build(build: Build) -> tuple[set[str], set[str]]:
    """The directive names, and the variables (as :func:`variable_cases` writes them), of the
    build's version that tpgen refuses for a module the build lacks."""
    target = Target(build.version, defined=frozenset(), build=build)
    names = {
        name
        for name in commands()
        if directive_present(name, build.version)
        and any(_LACKED in why for _, why in refusals(parse(f"{name};\n"), "main", target))
    }
    variables = {
        name
        for name in variable_cases(build.version)
        if any(
            _LACKED in why
            for _, why in refusals(parse(f"return 200 ${name};\n"), "location", target)
        )
    }
    return names, variables


def directive_cases(version: Version) -> list[tuple[str, str, str]]:
    """(name, context, line) of each directive ``version`` has, in a block that allows it and
    one that does not, with no argument and ended by ``;``, and with an empty block."""
    cases: list[tuple[str, str, str]] = []
    for name in sorted(commands()):
        present = directive_present(name, version)
        if not present:
            continue
        allowed = sorted(set(present[0].contexts) & set(AROUND))
        refused = sorted(set(AROUND) - {c for command in present for c in command.contexts})
        for context in allowed[:1] + refused[:1]:
            cases += [(name, context, f"{name};\n"), (name, context, f"{name} {{ }}\n")]
    return cases


def variable_cases(version: Version, family: str = "http") -> list[str]:
    """Each variable of ``family`` (http, stream) the table gives ``version`` (a prefix one
    with a name after it)."""
    names, prefixes = module_variables(version, family)
    return sorted(names) + [f"{prefix}x" for prefix in prefixes]


def _variable_use(name: str, family: str) -> tuple[str, str]:
    """(context, line) of a reference to the variable where ``family``'s modules read it."""
    if family == "stream":
        return (
            "main",
            f"{STREAM} stream {{ server {{ listen 127.0.0.1:19999; return ${name}; }} }}\n",
        )
    return "location", f"return 200 ${name};\n"


def lacked_stream_variables(build: Build) -> set[str]:
    """The stream variables tpgen refuses for a module the build lacks, its stream loaded."""
    target = Target(
        build.version, defined=frozenset(), build=build.with_loaded([STREAM.split()[1][:-1]])
    )
    return {
        name
        for name in variable_cases(build.version, "stream")
        if any(
            _LACKED in why
            for _, why in refusals(parse(_variable_use(name, "stream")[1]), "main", target)
        )
    }


def write_configs(root: Path, configs: list[tuple[str, str]]) -> list[Path]:
    """One folder per (context, text) under root, its nginx.conf the text in that context."""
    folders = []
    for index, (context, text) in enumerate(configs):
        folder = root / f"{index:05}"
        folder.mkdir()
        before, after = AROUND[context]
        (folder / "nginx.conf").write_text(
            f"pid {folder}/pid;\nerror_log stderr;\n{before}{text}{after}"
        )
        folders.append(folder)
    return folders


# What a standard parser or a post handler after it says (ngx_conf_file.c, the modules).
_PARSERS = (
    "directive invalid number",
    "invalid value",
    "invalid return code",
    "value must be",
    "the pool size must be",
    "must be 512",
    "must be a power of two",
    "value is too small",
    "the maximum body preread",
    "cannot be zero",
)


def verdict(returncode: int, output: str) -> str:
    if returncode == 0:
        return TAKEN
    found = next((said for said in _NGINX_SAYS if said in output), None)
    if found is None and any(said in output for said in _PARSERS):
        return "invalid value"  # what a handler's parser says
    return found or "a value"


def on_host(nginx: str) -> Runner:
    """nginx -t of each folder's config, four at a time."""

    def one(folder: Path) -> str:
        result = subprocess.run(
            [nginx, "-t", "-q", "-p", f"{folder}/", "-c", str(folder / "nginx.conf")],
            capture_output=True,
            text=True,
            check=False,
        )
        return verdict(result.returncode, result.stderr)

    def run(folders: list[Path]) -> list[str]:
        with ThreadPoolExecutor(max_workers=4) as pool:
            return list(pool.map(one, folders))

    return run


def in_container(image: str) -> Runner:
    """nginx -t of each folder's config in one container of ``image`` (folders under /tmp)."""
    loop = (
        'for d in "$@"; do nginx -t -q -p "$d/" -c "$d/nginx.conf" >"$d/out" 2>&1; '
        'echo $? >"$d/rc"; done'
    )

    def run(folders: list[Path]) -> list[str]:
        # The listen cases bind ::1 (nginx -t binds), which Docker leaves off in a container.
        ipv6 = ["--sysctl", "net.ipv6.conf.lo.disable_ipv6=0"]
        command = ["docker", "run", "--rm", "--network", "none", *ipv6, "-v", "/tmp:/tmp", image]
        subprocess.run([*command, "sh", "-c", loop, "sh", *map(str, folders)], check=True)
        return [
            verdict(int((f / "rc").read_text()), (f / "out").read_text(errors="replace"))
            for f in folders
        ]

    return run


def _tpgen_verdict(text: str, context: str, version: Version) -> str:
    found = [reason for _, reason in refusals(parse(text), context, Target(version))]
    if not found:
        return "taken or a value"
    return next((said for key, said in _TPGEN_SAYS.items() if key in found[0]), found[0])


def directive_disagreements(
    run: Runner, root: Path, version: Version
) -> tuple[set[str], list[tuple[str, str, str, str]]]:
    """The names this nginx build lacks, and each case where nginx's verdict is not tpgen's
    (a build's missing module aside; past the argument count the values are nginx's)."""
    cases = directive_cases(version)
    assert len(cases) > 1000
    said = run(write_configs(root, [(context, text) for _, context, text in cases]))
    lacking = {
        name
        for (name, _, _), nginx_said in zip(cases, said, strict=True)
        if nginx_said == "unknown directive"
    }
    wrong = []
    for (name, context, text), nginx_said in zip(cases, said, strict=True):
        if name in lacking:
            continue
        if nginx_said in (TAKEN, "a value", "invalid value"):
            nginx_said = "taken or a value"
        tpgen_said = _tpgen_verdict(text, context, version)
        if nginx_said != tpgen_said:
            wrong.append((context, text.strip(), nginx_said, tpgen_said))
    return lacking, wrong


def unknown_variables(run: Runner, root: Path, version: Version, family: str = "http") -> list[str]:
    """The table's variables of ``family`` this nginx refuses a reference to."""
    used = variable_cases(version, family)
    said = run(write_configs(root, [_variable_use(name, family) for name in used]))
    return [name for name, nginx_said in zip(used, said, strict=True) if nginx_said != TAKEN]


_VALUE_ALPHABET = [*"0123456789", *"0123456789", *"yMwdhmsKkGg .-+x", "ms", "1" * 19]
_SAMPLES = {
    "number": ["0", "8", "1024"],
    "size": ["0", "4k", "1M", "512"],
    "offset": ["1g", "10m", "0"],
    "msec": ["500ms", "1s 500ms", "1m 30s", "30"],
    "sec": ["1h", "30", "1d 12h"],
    "bufs": ["8 16k", "0 16k", "8 0", "x 1k", "8 16g", "4 1m"],
}
# Around the bounds of the post handlers (1–9, 400–599, 0–255, pool sizes, gzip's sizes, …).
_POST_SAMPLES = [
    "0", "1", "9", "10", "16", "17", "32", "33", "100", "112", "128", "255", "256", "399",
    "400", "599", "600", "1k", "3k", "32k", "64k", "128k", "256k", "2147483648",
]  # fmt: skip


def _values(kind: str, choices: tuple[str, ...], rng: random.Random, post: bool) -> list[str]:
    if kind in ("enum", "bitmask"):
        mutated = [choices[0].upper(), choices[-1] + "x", "x" + choices[0], ""]
        joined = [" ".join(rng.sample(choices, min(2, len(choices))))] if kind == "bitmask" else []
        return [*choices, *mutated, *joined]

    # bufs: two words, each without the space that separates them.
    alphabet = [c for c in _VALUE_ALPHABET if c != " "] if kind == "bufs" else _VALUE_ALPHABET

    def word() -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 5)))

    made = [" ".join(word() for _ in range(2 if kind == "bufs" else 1)) for _ in range(6)]
    return [*_SAMPLES.get(kind, []), *(_POST_SAMPLES if post else []), *made]


def quoted(value: str) -> str:
    """``value`` as one single-quoted nginx word."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def value_cases(version: Version, seed: int = 0) -> list[tuple[str, str, str]]:
    """(name, context, line) with sample and random values for each directive whose handler
    parses a standard value (spec/directive_values.py), and values around the bounds of its
    post handler, in a block that allows it."""
    rng = random.Random(seed)
    cases = []
    for name in sorted(commands()):
        for command in directive_present(name, version):
            contexts = sorted(set(command.contexts) & set(AROUND))
            # A block directive's value (limit_except's methods) is a HANDLER_CASES line's.
            if command.value in (None, *HANDLER_KINDS) or command.block or not contexts:
                continue
            post = command.post is not None
            for value in _values(command.value, command.choices, rng, post):
                words = value.split(" ") if command.value in ("bufs", "bitmask") else [value]
                cases.append((name, contexts[0], f"{name} {' '.join(map(quoted, words))};\n"))
    return cases


def value_disagreements(run: Runner, root: Path, version: Version) -> list[tuple[str, str, str]]:
    """Each value tpgen refuses that nginx takes, or takes that nginx's parser or the post
    handler after it refuses (invalid value/number, value must be between, …)."""
    cases = value_cases(version)
    assert len(cases) > 1000
    said = run(write_configs(root, [(context, text) for _, context, text in cases]))
    wrong = []
    for (_, context, text), nginx_said in zip(cases, said, strict=True):
        refused = [why for _, why in refusals(parse(text), context, Target(version))]
        if nginx_said == "unknown directive":
            continue  # a module this build leaves out
        parser_refused = nginx_said == "invalid value"
        if bool(refused) != parser_refused and not (not refused and nginx_said == "a value"):
            wrong.append((context, text.strip(), nginx_said))
    return wrong


# Lines for each handler spec/directive_handlers.py ports, taken and refused: regexes that do
# and do not compile (PCRE-only syntax too), location modifiers and nesting, if's conditions,
# map bodies, rewrite's flags, server names, referers.
# A certificate and key nginx loads per handshake, and CAs both nginx builds can read.
_PAIR = "ssl_certificate a$ssl_server_name.crt; ssl_certificate_key a$ssl_server_name.key;"
_CAS = "/etc/ssl/certs/ca-certificates.crt"
# Debian builds image_filter and xslt as dynamic modules; xslt_stylesheet loads its file as
# it reads (handler_disagreements writes SHEET beside the cases' folders).
_IMAGE = "load_module /usr/lib/nginx/modules/ngx_http_image_filter_module.so;"
_XSLT = "load_module /usr/lib/nginx/modules/ngx_http_xslt_filter_module.so;"
SHEET = "sheet.xslt"


def _in_location(load: str, body: str) -> tuple[str, str]:
    return "main", f"{load} http {{ server {{ location / {{ {body} }} }} }}"


HANDLER_CASES = [
    ("server", "location ~ ( {}"),
    ("server", r"location ~* \.(jpg|png)$ {}"),
    ("server", r'location ~ "\p{L}+" {}'),
    ("server", "location ~*[ {}"),
    ("server", "location ~(?<name>.+) {}"),
    ("server", "location ~ (?<1x>a) {}"),
    ("server", "location x /a {}"),
    ("server", "location ^~ /a {}"),
    ("server", "location = /a {}"),
    ("server", "location = /a { location /a/b {} }"),
    ("server", "location /a { location /b {} }"),
    ("server", "location /a { location /a/b {} }"),
    ("server", "location /a { location @x {} }"),
    ("server", "location /a { location ~ ( {} }"),
    ("server", "location @n { location /x {} }"),
    ("server", "location ~ ^/a { location /b {} }"),
    ("server", "location /a { location ~ x {} }"),
    ("server", "location /a { location ^~ /a/c {} location =/a/d {} }"),
    ("location", 'if ($uri ~ "(") { return 404; }'),
    ("location", "if ($uri ~* ^/ok) { return 404; }"),
    ("location", "if ($uri !~ [) { return 404; }"),
    ("location", "if ($uri !~* ^a) { return 404; }"),
    ("location", "if ($uri) { return 404; }"),
    ("location", "if ($uri = x) { return 404; }"),
    ("location", "if ($uri != x) { return 404; }"),
    ("location", "if ($uri == x) { return 404; }"),
    ("location", "if (-f $uri) { return 404; }"),
    ("location", "if (!-d $uri) { return 404; }"),
    ("location", "if (-z $uri) { return 404; }"),
    ("location", "if $uri { return 404; }"),
    ("location", "if ($uri x) { return 404; }"),
    ("location", "if ( $uri ) { return 404; }"),
    ("location", "if ( $uri ~ a ) { return 404; }"),
    ("location", "if (() { return 404; }"),
    ("location", "if (a) { return 404; }"),
    ("location", "if ($uri ~ a b) { return 404; }"),
    ("location", "if (-f) { return 404; }"),
    ("location", "if ($) { return 404; }"),
    ("location", "if (-e $uri x) { return 404; }"),
    ("server", "if ($host ~ ^(www)$) { return 404; }"),
    ("location", "rewrite ( /x;"),
    ("location", "rewrite ^/(.*)$ /x/$1 last;"),
    ("location", "rewrite ^ /x lst;"),
    ("location", "rewrite ^ '';"),
    ("server", "rewrite ^ /x permanent;"),
    ("server", "server_name ~(;"),
    ("server", r"server_name ~^(?<sub>.+)\.ex$;"),
    ("server", "server_name ~^[A-;"),
    ("server", "server_name *x;"),
    ("server", "server_name .;"),
    ("server", "server_name ~;"),
    ("server", "server_name *.a.b .a.b a;"),
    ("http", "map $uri $m { ~( 1; }"),
    ("http", "map $uri $m { default 1; default 2; }"),
    ("http", "map $uri $m { a b c; }"),
    ("http", "map $uri m { a b; }"),
    ("http", "map $uri $m { x; }"),
    ("location", "valid_referers none ~x;"),
    ("location", "valid_referers none;"),
    ("location", r"valid_referers none blocked ~\.a;"),
    ("location", "valid_referers blocked a.example.com;"),
    ("location", "valid_referers none *.a.com;"),
    ("location", "valid_referers none server_names;"),
    ("location", "valid_referers ~x;"),
    # The names' hash (ngx_hash_add_key): wildcards, conflicts, the default bucket.
    ("location", "valid_referers a.com A.COM;"),
    ("location", "valid_referers .a.com *.a.com;"),
    ("location", "valid_referers www.a.* none NONE;"),
    ("location", "valid_referers a.com/x; valid_referers a.com/y;"),
    ("server", "valid_referers a.com; location / { valid_referers a.com; }"),
    ("location", "valid_referers *.;"),
    ("location", "valid_referers a.*.b;"),
    ("location", "valid_referers ..a;"),
    ("location", "valid_referers .*;"),
    ("location", f"valid_referers {'a' * 47};"),
    ("location", f"valid_referers {'a' * 46};"),
    ("location", f"valid_referers *.{'a' * 47}.com;"),
    ("location", f"valid_referers .{'a' * 22}.{'a' * 27};"),
    ("location", f"referer_hash_bucket_size 128; valid_referers {'a' * 47};"),
    ("http", "upstream u { }"),
    ("http", "upstream u { zone z 64k; }"),
    ("http", "upstream u { server 127.0.0.1 weight=0; }"),
    ("http", "upstream u { server 127.0.0.1 weight=3 max_conns=0 max_fails=0 fail_timeout=1m; }"),
    ("http", "upstream u { server 127.0.0.1 bogus; }"),
    ("http", "upstream u { server 127.0.0.1 max_fails=x; }"),
    ("http", "upstream u { server 127.0.0.1 fail_timeout=1x; }"),
    ("http", "upstream u { server 127.0.0.1 fail_timeout=10ms; }"),
    ("http", "upstream u { server 127.0.0.1 weight=; }"),
    ("http", "upstream u { server 127.0.0.1 Backup; }"),
    ("http", "upstream u { hash $uri; server 127.0.0.1 backup; }"),
    ("http", "upstream u { server 127.0.0.1; server 127.0.0.2 backup; hash $uri; }"),
    ("http", "upstream u { least_conn; server 127.0.0.1; server 127.0.0.2 backup; }"),
    ("http", "upstream u { ip_hash; server 127.0.0.1 down; server 127.0.0.2 weight=2; }"),
    ("http", "upstream u { random two least_conn; server 127.0.0.1 backup; }"),
    ("http", "upstream u { random two least_conn; server 127.0.0.1; }"),
    ("http", "upstream u { random least_conn; server 127.0.0.1; }"),
    ("http", "upstream u { random two least_time; server 127.0.0.1; }"),
    ("http", "upstream u { hash $uri consistent; server 127.0.0.1; }"),
    ("http", "upstream u { hash $uri Consistent; server 127.0.0.1; }"),
    ("http", "upstream u { server 127.0.0.1 down backup; }"),
    ("http", "upstream u { server 127.0.0.1 backup; server 127.0.0.2 backup; }"),
    ("http", "upstream u { server 127.0.0.1 down; }"),
    ("http", "upstream u { server 127.0.0.1; keepalive 0; }"),
    ("http", "upstream u { server 127.0.0.1; keepalive 16; keepalive_requests 100; }"),
    ("http", "upstream u { server 127.0.0.1; zone z 1k; }"),
    ("http", "upstream u { server 127.0.0.1; zone z 32k; }"),
    ("http", "upstream u { server 127.0.0.1; zone z lots; }"),
    ("http", "upstream u { server 127.0.0.1 resolve; zone z 64k; }"),
    ("http", "upstream u { server 127.0.0.1 service=http; }"),
    ("http", "upstream u { server 127.0.0.1:99999; }"),
    ("http", "upstream u { server 127.0.0.1:0; }"),
    ("http", "upstream u { server unix:; }"),
    ("http", "upstream u { server unix:/tmp/tpgen-u.sock; }"),
    ("http", "upstream u { server [::1]:8080; }"),
    ("http", "upstream u { server [::1; }"),
    ("http", "upstream u { server 127.0.0.1/x; }"),
    ("http", "upstream u { server 127.0.0.1; }"),
    ("main", f"{STREAM} stream {{ upstream u {{ server 127.0.0.1; }} }}"),
    ("main", f"{STREAM} stream {{ upstream u {{ server 127.0.0.1:8080 weight=2 backup; }} }}"),
    (
        "main",
        f"{STREAM} stream {{ upstream u {{ hash $remote_addr; server 127.0.0.1:8080 backup; }} }}",
    ),
    (
        "main",
        f"{STREAM} stream {{ upstream u {{ server [::1]:8080; server unix:/tmp/tpgen-u.sock; }} }}",
    ),
    ("main", f"{STREAM} stream {{ upstream u {{ server [::1]; }} }}"),
    ("main", f"{STREAM} stream {{ upstream u {{ }} }}"),
    ("main", f"{STREAM} stream {{ upstream u {{ server 127.0.0.1:8080 backup; }} }}"),
    # Stream's variables are its own (ngx_stream_variables.c and its modules'): a name http
    # has, or one a newer nginx brings ($server_name 1.25.5, $proxy_protocol_tlv_ 1.23.2).
    *(
        ("main", f"{STREAM} stream {{ {body} }}")
        for body in (
            "server { listen 127.0.0.1:19999; return $remote_addr:$remote_port; }",
            "server { listen 127.0.0.1:19999; return $uri; }",
            "server { listen 127.0.0.1:19999; return $arg_x; }",
            "server { listen 127.0.0.1:19999; return $server_name; }",
            "server { listen 127.0.0.1:19999; return $proxy_protocol_tlv_alpn; }",
            "server { listen 127.0.0.1:19999; return $Upstream_Addr$ssl_preread_server_name; }",
            "server { listen 127.0.0.1:19999; proxy_pass $upstream; }",
            "server { listen 127.0.0.1:19999; proxy_pass $m; } map $remote_addr $m { }",
            "server { listen 127.0.0.1:19999; set $x 1; return $x; }",
            "server { listen 127.0.0.1:19999; set $x $request_uri; return 1; }",
            "server { listen 127.0.0.1:19999; set $remote_addr 1; return 1; }",
            "server { listen 127.0.0.1:19999; set $ssl_cipher 1; return 1; }",
            "map $nothing $m { }",
            "map $remote_addr $bytes_sent { }",
            "map $remote_addr $m { ~^(?<first>[0-9]+) $first; } "
            "server { listen 127.0.0.1:19999; return $first$m; }",
            "geo $g { default 1; } split_clients $remote_addr $s { * a; } "
            "server { listen 127.0.0.1:19999; return $g$s; }",
            "log_format f '$remote_addr $status $request';",
            "log_format f '$remote_addr $status $session_time';",
            "server { listen 127.0.0.1:19999; server_name $x; return 1; }",
        )
    ),
    (
        "main",
        f"{STREAM} http {{ map $uri $h {{ }} }} "
        "stream { server { listen 127.0.0.1:19999; return $h; } }",
    ),
    (
        "main",
        f"{STREAM} stream {{ map $remote_addr $s {{ }} }} http {{ server {{ return 200 $s; }} }}",
    ),
    # Stream's listen (ngx_stream_core_listen): its parameters, udp's conflicts, and the same
    # address twice in the stream block (up to 1.25.4 in any listen; from 1.25.5 as http's).
    *(
        ("main", f"{STREAM} stream {{ {body} }}")
        for body in (
            "server { listen 127.0.0.1:19999; return 1; }",
            "server { listen 127.0.0.1; return 1; }",
            "server { listen 19999 udp; return 1; }",
            "server { listen 127.0.0.1:19999 default_server; return 1; }",
            "server { listen 127.0.0.1:19999 deferred; return 1; }",
            "server { listen 127.0.0.1:19999 accept_filter=dataready; return 1; }",
            "server { listen 127.0.0.1:19999 setfib=1; return 1; }",
            "server { listen 127.0.0.1:19999 multipath; return 1; }",
            "server { listen 127.0.0.1:19999 http2; return 1; }",
            "server { listen 127.0.0.1:19999 Udp; return 1; }",
            "server { listen 127.0.0.1:19999 bind backlog=10 rcvbuf=8k sndbuf=8k fastopen=5 "
            "reuseport so_keepalive=1m:10:3 proxy_protocol; return 1; }",
            "server { listen [::1]:19999 ipv6only=on; return 1; }",
            "server { listen [::1]:19999 ipv6only=ok; return 1; }",
            "server { listen 127.0.0.1:19999 backlog=0; return 1; }",
            "server { listen 127.0.0.1:19999 rcvbuf=1x; return 1; }",
            "server { listen 127.0.0.1:19999 fastopen=x; return 1; }",
            "server { listen 127.0.0.1:19999 so_keepalive=::; return 1; }",
            "server { listen 127.0.0.1:19999 udp backlog=5; return 1; }",
            "server { listen 127.0.0.1:19999 udp ssl; return 1; }",
            "server { listen 127.0.0.1:19999 udp proxy_protocol; return 1; }",
            "server { listen 127.0.0.1:19999 udp so_keepalive=off; return 1; }",
            "server { listen 127.0.0.1:19999 udp fastopen=1; return 1; }",
            "server { listen 127.0.0.1:19999 udp fastopen=1 ssl; return 1; }",
            "server { listen 127.0.0.1:19999 udp reuseport bind rcvbuf=8k; return 1; }",
            "server { listen 127.0.0.1:99999; return 1; }",
            "server { listen 127.0.0.1:19999/x; return 1; }",
            "server { listen 19999-19997; return 1; }",
            "server { listen 127.0.0.1:19999; listen 127.0.0.1:19999; return 1; }",
            "server { listen 127.0.0.1:19999; return 1; } "
            "server { listen 127.0.0.1:19999; return 2; }",
            "server { listen 19999; return 1; } server { listen *:19999; return 2; }",
            "server { listen 19999; return 1; } server { listen 127.0.0.1:19999; return 2; }",
            "server { listen 127.0.0.1:19999; return 1; } "
            "server { listen 127.0.0.1:19999 udp; return 2; }",
            "server { listen 127.0.0.1:19999 udp; return 1; } "
            "server { listen 127.0.0.1:19999 udp; return 2; }",
            "server { listen 19990-19992; return 1; } server { listen 19992; return 2; }",
            "server { listen 127.0.0.1:19999 default_server; return 1; } "
            "server { listen 127.0.0.1:19999 default_server; return 2; }",
            "server { listen 127.0.0.1:19999 backlog=10; return 1; } "
            "server { listen 127.0.0.1:19999 reuseport; return 2; }",
            "server { listen 127.0.0.1:19999 backlog=10; return 1; } "
            "server { listen 127.0.0.1:19999; return 2; }",
            "server { listen 127.0.0.1:19999 ssl; return 1; }",
            "server { listen 127.0.0.1:19999 ssl; ssl_reject_handshake on; return 1; }",
            "server { listen 127.0.0.1:19999; return 1; } "
            "server { listen 127.0.0.1:19999 ssl; return 2; }",
            "server { listen 127.0.0.1:19999; listen 127.0.0.1:19998 ssl; return 1; }",
            "server { listen 127.0.0.1:19999 proxy_protocol; return 1; } "
            "server { listen 127.0.0.1:19999; return 2; }",
            "server { listen 127.0.0.1:19999 udp; listen 127.0.0.1:19999; return 1; }",
        )
    ),
    # A stream server needs a listen, and up to 1.27.0 a content handler: return, proxy_pass,
    # pass from 1.25.5 (ngx_stream_core_merge_srv_conf); ssl_preread sets none.
    *(
        ("main", f"{STREAM} stream {{ {body} }}")
        for body in (
            "server { listen 127.0.0.1:19999; }",
            "server { listen 127.0.0.1:19999; ssl_preread on; }",
            "server { listen 127.0.0.1:19999; ssl_preread on; "
            "proxy_pass $ssl_preread_server_name; }",
            "server { listen 127.0.0.1:19999; proxy_pass 127.0.0.1:1; }",
            "server { listen 127.0.0.1:19999; pass 127.0.0.1:1; }",
            "server { listen 127.0.0.1:19999 ssl; ssl_reject_handshake on; }",
            "server { return 1; }",
            "server { }",
            "server { listen 127.0.0.1:19999; return 1; } "
            "server { listen 127.0.0.1:19998; proxy_timeout 1s; }",
            "ssl_preread on; server { listen 127.0.0.1:19999; proxy_pass 127.0.0.1:1; }",
        )
    ),
    # A stream server's certificates and keys, its own or the stream block's: up to 1.25.4
    # checked in a server with a listen ... ssl only, from 1.25.5 in any with a certificate
    # (ngx_stream_ssl_merge_srv_conf). A path with a variable is loaded per handshake.
    *(
        ("main", f"{STREAM} stream {{ {body} }}")
        for body in (
            "server { listen 127.0.0.1:19999; return 1; ssl_certificate a.crt; }",
            "ssl_certificate a.crt; server { listen 127.0.0.1:19999; return 1; }",
            "ssl_certificate a.crt;",
            "server { listen 127.0.0.1:19999 ssl; return 1; ssl_certificate a.crt; }",
            f"server {{ listen 127.0.0.1:19999 ssl; return 1; {_PAIR} }}",
            f"server {{ listen 127.0.0.1:19999 ssl; return 1; {_PAIR} ssl_certificate b.crt; }}",
            f"{_PAIR} server {{ listen 127.0.0.1:19999 ssl; return 1; "
            "ssl_certificate_key b$ssl_server_name.key; }",
            "ssl_certificate_key a$ssl_server_name.key; server { listen 127.0.0.1:19999 ssl; "
            "return 1; ssl_certificate a$ssl_server_name.crt; ssl_certificate b.crt; }",
            f"server {{ listen 127.0.0.1:19999 ssl; return 1; {_PAIR} ssl_verify_client on; }}",
            f"server {{ listen 127.0.0.1:19999; return 1; {_PAIR} ssl_verify_client on; }}",
            f"server {{ listen 127.0.0.1:19999 ssl; return 1; {_PAIR} "
            "ssl_verify_client optional_no_ca; }",
            f"ssl_verify_client ON; server {{ listen 127.0.0.1:19999 ssl; return 1; {_PAIR} }}",
            f"ssl_client_certificate {_CAS}; server {{ listen 127.0.0.1:19999 ssl; return 1; "
            f"{_PAIR} ssl_verify_client optional; }}",
            "server { listen 127.0.0.1:19999; return 1; ssl_certificate a.crt; "
            'ssl_certificate_key ""; }',
            'ssl_certificate_key ""; server { listen 127.0.0.1:19999 ssl; return 1; '
            "ssl_certificate a.crt; }",
            'server { listen 127.0.0.1:19999; return 1; ssl_certificate ""; '
            "ssl_certificate_key $ssl_server_name.key; }",
            "server { listen 127.0.0.1:19999; return 1; ssl_reject_handshake on; "
            "ssl_verify_client on; }",
            f'ssl_client_certificate ""; server {{ listen 127.0.0.1:19999 ssl; return 1; '
            f"{_PAIR} ssl_verify_client on; }}",
            f"ssl_client_certificate {_CAS}; server {{ listen 127.0.0.1:19999 ssl; return 1; "
            f'{_PAIR} ssl_client_certificate ""; ssl_verify_client on; }}',
            f'ssl_client_certificate ""; server {{ listen 127.0.0.1:19999 ssl; return 1; '
            f"{_PAIR} ssl_client_certificate {_CAS}; ssl_verify_client on; }}",
        )
    ),
    # Only the servers that check their certificates compile the paths with a $ (a $ with no
    # name, an unclosed ${, a variable stream lacks): up to 1.25.4 those with a listen ... ssl;
    # a stream block's path no such server takes, and a key past the certificates, never.
    *(
        ("main", f"{STREAM} stream {{ {body} }}")
        for body in (
            "server { listen 127.0.0.1:19999 ssl; return 1; ssl_certificate a$x; "
            "ssl_certificate_key a$x; }",
            "server { listen 127.0.0.1:19999; return 1; ssl_certificate a$x; "
            "ssl_certificate_key a$x; }",
            "ssl_certificate a$x; ssl_certificate_key a$x; "
            "server { listen 127.0.0.1:19999 ssl; return 1; }",
            "ssl_certificate a$x; ssl_certificate_key a$x; "
            "server { listen 127.0.0.1:19999; return 1; }",
            "ssl_certificate a$; ssl_certificate_key a$;",
            f"ssl_certificate a$; ssl_certificate_key a$; server {{ listen 127.0.0.1:19999; "
            f"return 1; {_PAIR} }}",
            "server { listen 127.0.0.1:19999 ssl; return 1; ssl_certificate a.crt; "
            "ssl_certificate_key a$; }",
            "server { listen 127.0.0.1:19999; return 1; ssl_certificate a.crt; "
            "ssl_certificate_key a${ssl_server_name; }",
            f"server {{ listen 127.0.0.1:19999 ssl; return 1; {_PAIR} ssl_certificate_key b$; }}",
            "server { listen 127.0.0.1:19999 ssl; return 1; ssl_certificate a$ssl_server_name; "
            "ssl_certificate_key a$uri; }",
            'server { listen 127.0.0.1:19999 ssl; return 1; ssl_certificate ""; '
            "ssl_certificate_key a$x; }",
            "map $remote_addr $x { default 1; } server { listen 127.0.0.1:19999 ssl; return 1; "
            "ssl_certificate a$x; ssl_certificate_key a$X; }",
        )
    ),
    ("http", "split_clients $uri $sc { 50% a; * b; }"),
    ("http", "split_clients $uri $sc { 50% a b; * c; }"),
    ("http", "split_clients $uri $sc { * a; 10% b; }"),
    ("http", "split_clients $uri $sc { * a; * b; }"),
    ("http", "split_clients $uri $sc { 0% a; }"),
    ("http", "split_clients $uri $sc { 100.009% a; }"),
    ("http", "split_clients $uri $sc { 100.01% a; }"),
    ("http", "split_clients $uri $sc { 100.00% a; }"),
    ("http", "split_clients $uri $sc { .5% a; }"),
    ("http", "split_clients $uri $sc { .% a; }"),
    ("http", "split_clients $uri $sc { 1.2.3% a; }"),
    ("http", "split_clients $uri $sc { 5 a; }"),
    ("http", "split_clients $uri $sc { 42949.67296% a; }"),
    ("http", "split_clients $uri $sc { 4294967396% a; }"),
    ("http", "split_clients $uri $sc { 50% a; 50.01% b; }"),
    ("http", "split_clients $uri $sc { 33.33% a; 33.33% b; 33.34% c; }"),
    ("http", "split_clients $uri $sc { 1e2% a; }"),
    ("http", "split_clients $uri $sc { +5% a; }"),
    ("http", "split_clients $uri $sc { 5% { } }"),
    ("http", "split_clients $uri sc { 5% a; }"),
    ("http", "split_clients $uri $ { 5% a; }"),
    ("http", r"map $uri $m { hostnames; volatile; ~*^/A 1; \~x 2; default 0; }"),
    ("http", "map $uri $m { a { } }"),
    ("http", "map $uri $m { ~*[ 1; }"),
    ("location", "proxy_redirect ~( /;"),
    ("location", "proxy_redirect ~*^/a /b;"),
    ("location", "proxy_redirect ~^(/a) $1;"),
    ("location", "proxy_cookie_path ~( /;"),
    ("location", "proxy_cookie_path ~*^/(a) /$1;"),
    ("location", "proxy_cookie_domain ~( x;"),
    ("location", "proxy_cookie_domain ~a(.*) x;"),
    ("location", "proxy_cookie_flags ~( secure;"),
    ("location", "proxy_cookie_flags ~^a secure;"),
    ("server", "valid_referers none ~(;"),
    ("server", r"valid_referers none blocked ~\.example\. example.com;"),
    ("server", "valid_referers ~;"),
    ("http", r'gzip_disable msie6 "MSIE [1-6]\.";'),
    ("http", 'gzip_disable "(";'),
    ("location", r"fastcgi_split_path_info ^(.+\.php)(/.+)$;"),
    ("location", r"fastcgi_split_path_info ^(.+\.php)$;"),
    ("location", "fastcgi_split_path_info ([;"),
    # Variables nginx's own modules define and let no config define again, and those they do.
    ("server", "location ~ (?<uri>.*) {}"),
    ("server", "location ~ (?<URI>.*) {}"),
    ("server", "location ~ (?<args>.*) {}"),
    ("location", "rewrite ^(?<host>.*)$ /x;"),
    ("server", "valid_referers ~(?<uri>x) example.com;"),
    ("location", "set $uri x;"),
    ("location", "set $Request_Uri x;"),
    ("location", "set $args x;"),
    ("location", "set $http_x 1;"),
    ("location", "auth_request_set $uri x;"),
    ("http", "map $uri $host { }"),
    ("http", "map $uri $limit_rate { }"),
    ("http", "split_clients $uri $request { 50% a; * b; }"),
    ("http", "geo $remote_addr { }"),
    ("http", "geo $remote_addr $geo_x { }"),
    ("http", "geo $uri $ { }"),
    ("http", "map $uri $ { }"),
    ("location", "set $ 1;"),
    # The variables of map, geo and split_clients: the value nginx compiles (its script
    # compiler: $1…$9 are captures, ${1} and $0 names), geo's address (all after its $), the
    # name defined (all after its $, braces too).
    ("http", "map $ $m { }"),
    ("http", "map $uri$ $m { }"),
    ("http", "map ${uri $m { }"),
    ("http", "map ${uri}x $m { }"),
    ("http", "map ${} $m { }"),
    ("http", "map ${u-ri} $m { }"),
    ("http", "map $$uri $m { }"),
    ("http", "map x$-y $m { }"),
    ("http", "map $uri-$host $m { }"),
    ("http", "map $1$2 $m { }"),
    ("http", "map ${1} $m { }"),
    ("http", "map $0abc $m { }"),
    ("http", "map plain $m { }"),
    ("http", "map $uri ${m} { }"),
    ("http", "map $uri $m$x { }"),
    ("http", "map $uri ${m} { } server { location / { return 200 ${m}; } }"),
    ("http", "map $uri $$m { } server { location / { return 200 $m; } }"),
    ("http", "map $uri $m { } server { location / { return 200 ${m}; } }"),
    ("http", "geo $ $g { }"),
    ("http", "geo $uri$ $g { }"),
    ("http", "geo ${uri} $g { }"),
    ("http", "geo $1 $g { }"),
    ("http", "geo $http_x-y $g { }"),
    ("http", "geo $Remote_Addr $g { }"),
    ("http", "geo $uri ${g} { }"),
    ("http", "split_clients $ $s { }"),
    ("http", "split_clients $uri$ $s { }"),
    ("http", "split_clients ${uri $s { }"),
    ("http", "split_clients ${uri}x $s { }"),
    ("http", "split_clients $nosuch $s { }"),
    ("http", "split_clients $uri ${s} { }"),
    ("main", f"{STREAM} stream {{ map $ $m {{ }} }}"),
    ("main", f"{STREAM} stream {{ map $remote_addr$ $m {{ }} }}"),
    ("main", f"{STREAM} stream {{ map ${{remote_addr}} ${{m}} {{ }} }}"),
    ("main", f"{STREAM} stream {{ geo $ $g {{ }} }}"),
    ("main", f"{STREAM} stream {{ geo $remote_addr $g {{ }} }}"),
    ("main", f"{STREAM} stream {{ split_clients ${{remote_addr $s {{ }} }}"),
    ("main", f"{STREAM} stream {{ split_clients $remote_addr ${{s}} {{ }} }}"),
    ("location", "return 200 ${1};"),
    ("location", "set $a $0;"),
    ("location", "rewrite ^(.*)$ /x$1y;"),
    # Handlers of addresses, error pages, expiry, keepalive and limits.
    ("location", "allow 1.2.3.4;"),
    ("location", "allow 1.2.3.4/33;"),
    ("location", "allow 1..2.3;"),
    ("location", "allow 255.255.255.255;"),
    ("location", "allow 01.2.3.4;"),
    ("location", "allow 1.2.3;"),
    ("location", "allow 1.2.3.256;"),
    ("location", "deny 10.1.2.3/8;"),
    ("location", "deny all;"),
    ("location", "deny unix:;"),
    ("location", "allow x;"),
    ("location", "allow ::1;"),
    ("location", "allow ::/0;"),
    ("location", "allow 2001:db8::/129;"),
    ("location", "allow fe80::1%eth0;"),
    ("location", "allow ::ffff:1.2.3.4;"),
    ("location", "allow 1:2:3:4:5:6:7:8;"),
    ("location", "allow 1:2:3:4:5:6:7:8:9;"),
    ("location", "allow 1:2:3:4:5:6:1.2.3.4;"),
    ("location", "allow 1:2:3:4:5:6:7:1.2.3.4;"),
    ("location", "allow 1::2::3;"),
    ("location", "allow 12345::1;"),
    ("location", "allow :1;"),
    ("location", "allow 1::;"),
    ("location", "allow 1.2.3.4/;"),
    ("location", "error_page 404 /x;"),
    ("location", "error_page 404 500 =200 /x;"),
    ("location", "error_page 404 = /x;"),
    ("location", "error_page 499 /x;"),
    ("location", "error_page 200 /x;"),
    ("location", "error_page 600 /x;"),
    ("location", "error_page =200 /x;"),
    ("location", "error_page 404 =x /x;"),
    ("location", "error_page 3o1 /x;"),
    ("location", "expires 1h;"),
    ("location", "expires modified 1h;"),
    ("location", "expires epoch;"),
    ("location", "expires max;"),
    ("location", "expires off;"),
    ("location", "expires @15h30m;"),
    ("location", "expires @25h;"),
    ("location", "expires modified @1h;"),
    ("location", "expires modified epoch;"),
    ("location", "expires -1;"),
    ("location", "expires +1d;"),
    ("location", "expires 1x;"),
    ("location", "expires 500ms;"),
    ("location", "expires abc 1h;"),
    ("location", "expires $uri;"),
    ("location", "keepalive_timeout 65;"),
    ("location", "keepalive_timeout 65 60;"),
    ("location", "keepalive_timeout 65 500ms;"),
    ("location", "keepalive_timeout 1x;"),
    ("location", "keepalive_timeout 0;"),
    ("http", "limit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;"),
    ("http", "limit_req_zone $uri zone=one:16k rate=1r/s;"),
    ("http", "limit_req_zone $uri zone=one rate=1r/s;"),
    ("http", "limit_req_zone $uri zone=one:1m rate=0r/s;"),
    ("http", "limit_req_zone $uri zone=one:1m rate=5r/h;"),
    ("http", "limit_req_zone $uri zone=one:1m rate=5;"),
    ("http", "limit_req_zone $uri zone=one:1m rate=30r/m;"),
    ("http", "limit_req_zone $uri rate=1r/s;"),
    ("http", "limit_req_zone $uri zone=one:1m foo=bar;"),
    ("http", "limit_conn_zone $binary_remote_addr zone=c:10m;"),
    ("http", "limit_conn_zone $uri zone=c:10x;"),
    ("http", "limit_conn_zone $uri c;"),
    (
        "http",
        "limit_req_zone $uri zone=r:1m rate=1r/s; server { limit_req zone=r burst=5 nodelay; }",
    ),
    ("http", "limit_req_zone $uri zone=r:1m rate=1r/s; server { limit_req zone=r burst=0; }"),
    ("http", "limit_req_zone $uri zone=r:1m rate=1r/s; server { limit_req zone=r delay=x; }"),
    ("http", "limit_req_zone $uri zone=r:1m rate=1r/s; server { limit_req zone=r fast; }"),
    ("http", "limit_req_zone $uri zone=r:1m rate=1r/s; server { limit_req burst=5; }"),
    ("http", "limit_conn_zone $uri zone=c:1m; server { limit_conn c 100; }"),
    ("http", "limit_conn_zone $uri zone=c:1m; server { limit_conn c 0; }"),
    ("http", "limit_conn_zone $uri zone=c:1m; server { limit_conn c 65536; }"),
    # Names used that the config must define: log formats, limit zones.
    ("http", "server { access_log x.log nosuch; }"),
    ("http", "log_format f x; server { access_log x.log f; }"),
    ("http", "server { access_log x.log combined; access_log off; }"),
    ("http", "server { limit_req zone=nosuch; }"),
    ("http", "server { limit_conn nosuch 1; }"),
    ("http", "server { location / { limit_conn c 1; } } limit_conn_zone $uri zone=c:1m;"),
    ("http", "fastcgi_cache_path f keys_zone=f1:1m; server { fastcgi_cache f1; }"),
    ("http", "fastcgi_cache_path f keys_zone=f1:1m; server { fastcgi_cache f2; }"),
    ("http", "server { uwsgi_cache $uri; scgi_cache off; }"),
    ("http", "server { scgi_cache nosuch; }"),
    ("location", "add_header X y always;"),
    ("location", "add_header X y 1k;"),
    ("http", "ssl_session_cache off;"),
    ("http", "ssl_session_cache builtin:1000 shared:SSL:10m;"),
    ("http", "ssl_session_cache builtin:x;"),
    ("http", "ssl_session_cache builtin:;"),
    ("http", "ssl_session_cache shared:SSL:16k;"),
    ("http", "ssl_session_cache shared::10m;"),
    ("http", "ssl_session_cache shared:SSL;"),
    ("http", "ssl_session_cache '1h 30m';"),
    ("location", "proxy_pass http://127.0.0.1:8080;"),
    ("location", "proxy_pass htp://127.0.0.1;"),
    ("location", "proxy_pass HTTP://127.0.0.1/x;"),
    ("location", "proxy_pass http://127.0.0.1:99999;"),
    ("location", "proxy_pass http://127.0.0.1:;"),
    ("location", "proxy_pass http://127.0.0.1:0/;"),
    ("location", "proxy_pass http:///x;"),
    ("location", "proxy_pass http://127.0.0.1/x?y=1;"),
    ("location", "proxy_pass http://127.0.0.1?x;"),
    ("location", "proxy_pass http://127.0.0.1/a:b;"),
    ("location", "proxy_pass http://$host;"),
    ("location", "proxy_pass http://[::1]:8080/;"),
    ("location", "proxy_pass http://unix:/tmp/x.sock:/;"),
    ("server", "location ~ \\.php$ { proxy_pass http://127.0.0.1/; }"),
    ("server", "location ~ \\.php$ { proxy_pass http://127.0.0.1; }"),
    ("server", "location @n { proxy_pass http://127.0.0.1/x; }"),
    ("server", "location = /a { proxy_pass http://127.0.0.1/x; }"),
    ("location", "if ($uri) { proxy_pass http://127.0.0.1/x; }"),
    ("location", "if ($uri) { proxy_pass http://127.0.0.1; }"),
    ("location", "limit_except GET { proxy_pass http://127.0.0.1/x; }"),
    ("location", "location ~ x { proxy_pass http://$host/x; }"),
    ("location", "root /srv; alias /srv/x/;"),
    ("location", "alias /srv/x/; root /srv;"),
    ("location", "root /srv/$document_root;"),
    ("location", "alias ${realpath_root}/x;"),
    ("location", "root /srv/$uri;"),
    ("server", "location @n { alias /srv/; }"),
    ("server", "location @n { root /srv/; }"),
    ("location", "try_files $uri =404;"),
    ("location", "try_files $uri =4040;"),
    ("location", "try_files $uri =x;"),
    ("location", "try_files $uri /index.html;"),
    ("location", "index index.html /abs/index.html;"),
    ("location", "index '' index.html;"),
    ("location", "error_log err.log warn;"),
    ("location", "error_log err.log loud;"),
    ("location", "error_log err.log warn error;"),
    ("location", "error_log err.log debug_http debug_core;"),
    ("location", "error_log err.log debug_http warn;"),
    ("location", "error_log err.log warn debug_http;"),
    ("http", "log_format j escape=json $uri;"),
    ("http", "log_format j escape=xml $uri;"),
    ("http", "log_format j escape=none $uri;"),
    ("main", "error_log err.log crit;"),
    ("main", "error_log err.log critical;"),
    # listen (ngx_parse_url, ngx_http_core_listen) in an http snippet's own server; nginx -t
    # binds each address (a port in use is let through), so addresses are the host's own.
    ("http", "server { listen 127.0.0.1:19999; }"),
    ("http", "server { listen 127.0.0.1:99999; }"),
    ("http", "server { listen 127.0.0.1:0; }"),
    ("http", "server { listen 127.0.0.1:; }"),
    ("http", "server { listen :19999; }"),
    ("http", "server { listen 19999; }"),
    ("http", "server { listen 99999; }"),
    ("http", "server { listen *:19999; }"),
    ("http", "server { listen 19990-19992; }"),
    ("http", "server { listen 127.0.0.1:19992-19990; }"),
    ("http", "server { listen 127.0.0.1:19990-99999; }"),
    ("http", "server { listen [::1]:19999; }"),
    ("http", "server { listen [::1]:99999; }"),
    ("http", "server { listen [::1]x; }"),
    ("http", "server { listen [::1; }"),
    ("http", "server { listen []:19999; }"),
    ("http", "server { listen [1::2::3]:19999; }"),
    ("http", "server { listen 127.0.0.1:19999/x; }"),
    ("http", "server { listen 127.0.0.1?x; }"),
    ("http", "server { listen localhost:19999; }"),
    ("http", "server { listen 127.1:19999; }"),
    ("http", "server { listen 300.1.1.1:19999; }"),
    ("http", "server { listen a..b:19999; }"),
    ("http", "server { listen 'a b:19999'; }"),
    ("http", "server { listen unix:/tmp/tpgen-listen-case.sock; }"),
    ("http", "server { listen unix:; }"),
    ("http", f"server {{ listen unix:/tmp/{'x' * 120}; }}"),
    ("http", "server { listen 127.0.0.1:19999 bogus; }"),
    ("http", "server { listen 127.0.0.1:19999 default_server bind reuseport deferred; }"),
    ("http", "server { listen 127.0.0.1:19999 default proxy_protocol; }"),
    ("http", "server { listen 127.0.0.1:19999 backlog=1024 rcvbuf=64k sndbuf=1m fastopen=0; }"),
    ("http", "server { listen 127.0.0.1:19999 backlog=0; }"),
    ("http", "server { listen 127.0.0.1:19999 backlog=-1; }"),
    ("http", "server { listen 127.0.0.1:19999 rcvbuf=1g; }"),
    ("http", "server { listen 127.0.0.1:19999 sndbuf=x; }"),
    ("http", "server { listen 127.0.0.1:19999 fastopen=; }"),
    ("http", "server { listen 127.0.0.1:19999 setfib=1; }"),
    ("http", "server { listen 127.0.0.1:19999 accept_filter=dataready; }"),
    ("http", "server { listen [::1]:19999 ipv6only=on; }"),
    ("http", "server { listen [::]:19999 ipv6only=off; }"),
    ("http", "server { listen [::1]:19999 ipv6only=yes; }"),
    ("http", "server { listen [::1]:19999 ipv6only=of; }"),
    ("http", "server { listen 127.0.0.1:19999 so_keepalive=on; }"),
    ("http", "server { listen 127.0.0.1:19999 so_keepalive=30m::10; }"),
    ("http", "server { listen 127.0.0.1:19999 so_keepalive=0; }"),
    ("http", "server { listen 127.0.0.1:19999 so_keepalive=::; }"),
    ("http", "server { listen 127.0.0.1:19999 so_keepalive=1x; }"),
    ("http", "server { listen 127.0.0.1:19999 so_keepalive=1:2:3:4; }"),
    ("http", "server { listen 127.0.0.1:19999 SSL; }"),
    ("http", "server { listen 127.0.0.1:19999 http2; }"),
    ("http", "server { listen 127.0.0.1:19999 quic; ssl_reject_handshake on; }"),
    # Parameters by version: multipath from 1.29.7, spdy (only warned about) up to 1.19.6,
    # and what quic refuses beside it (from 1.25.4 fastopen=, backlog=, deferred, so_keepalive=).
    ("http", "server { listen 127.0.0.1:19999 multipath; }"),
    ("http", "server { listen 127.0.0.1:19999 spdy; }"),
    *(
        ("http", f"server {{ listen 127.0.0.1:19999 quic {word}; ssl_reject_handshake on; }}")
        for word in (
            "backlog=5",
            "fastopen=1",
            "deferred",
            "so_keepalive=off",
            "ssl",
            "http2",
            "proxy_protocol",
            "multipath",
            "reuseport rcvbuf=64k",
        )
    ),
    # What nginx refuses when it merges the servers' listens of one address.
    ("http", "server { listen 127.0.0.1:19999; listen 127.0.0.1:19999; }"),
    ("http", "server { listen 19999; listen *:19999; }"),
    ("http", "server { listen 127.0.0.1:19999; listen 127.0.0.1:19998; }"),
    (
        "http",
        "server { listen 127.0.0.1:19999 default_server; } "
        "server { listen 127.0.0.1:19999 default; }",
    ),
    (
        "http",
        "server { listen 127.0.0.1:19999 default_server; } server { listen 19999 default_server; }",
    ),
    (
        "http",
        "server { listen 127.0.0.1:19999 backlog=10; } "
        "server { listen 127.0.0.1:19999 reuseport; }",
    ),
    ("http", "server { listen 127.0.0.1:19999 backlog=10; } server { listen 127.0.0.1:19999; }"),
    ("http", "server { listen [::1]:19999 bind; } server { listen [::1]:19999 bind; }"),
    ("http", "server { listen 19990-19992 bind; } server { listen 19992 bind; }"),
    (
        "http",
        "server { listen 127.0.0.1:19999 proxy_protocol; } "
        "server { listen 127.0.0.1:19999 http2; }",
    ),
    # A listen of localhost is on 127.0.0.1 (and on some nodes ::1 as well): it merges with
    # 127.0.0.1's listens, and those of the same name, there.
    (
        "http",
        "server { listen localhost:19999 default_server; } "
        "server { listen 127.0.0.1:19999 default_server; }",
    ),
    (
        "http",
        "server { listen localhost:19999 default_server; } "
        "server { listen LocalHost:19999 default; }",
    ),
    ("http", "server { listen localhost:19999; listen 127.0.0.1:19999; }"),
    ("http", "server { listen localhost; listen localhost:80; }"),
    (
        "http",
        "server { listen localhost:19999 backlog=10; } "
        "server { listen 127.0.0.1:19999 reuseport; }",
    ),
    ("http", "server { listen localhost:19999 ssl; }"),
    (
        "http",
        "server { listen localhost:19999 default_server; } "
        "server { listen 127.0.0.1:19998 default_server; }",
    ),
    ("http", "server { listen localhost:19999; } server { listen 127.0.0.1:19999 backlog=10; }"),
    ("http", "server { listen localhost:19999 ssl; ssl_reject_handshake on; }"),
    # stream's listens of localhost too (no default port): up to 1.25.4 each address and port
    # once in the block, from 1.25.5 merged as http's.
    (
        "main",
        f"{STREAM} stream {{ server {{ listen localhost:19999; return a; }} "
        "server { listen 127.0.0.1:19999; return b; } }",
    ),
    (
        "main",
        f"{STREAM} stream {{ server {{ listen localhost:19999; listen LOCALHOST:19999; "
        "return a; } }",
    ),
    (
        "main",
        f"{STREAM} stream {{ server {{ listen localhost:19999 backlog=9; return a; }} "
        "server { listen 127.0.0.1:19999 bind; return b; } }",
    ),
    (
        "main",
        f"{STREAM} stream {{ server {{ listen localhost:19999; return a; }} "
        "server { listen 127.0.0.1:19998; return b; } }",
    ),
    (
        "main",
        f"{STREAM} stream {{ server {{ listen localhost:19999 udp; listen 127.0.0.1:19999; "
        "return a; } }",
    ),
    # A listen ... ssl address whose default server has no certificate.
    ("http", "server { listen 127.0.0.1:19999 ssl; }"),
    ("http", "server { listen 127.0.0.1:19999 ssl; ssl_reject_handshake on; }"),
    ("http", "server { listen 127.0.0.1:19999 ssl; ssl_reject_handshake ON; }"),
    (
        "http",
        "server { listen 127.0.0.1:19999; } "
        "server { listen 127.0.0.1:19999 ssl; ssl_reject_handshake on; }",
    ),
    (
        "http",
        "server { listen 127.0.0.1:19999 ssl; ssl_reject_handshake on; } "
        "server { listen 127.0.0.1:19999; }",
    ),
    (
        "http",
        "ssl_reject_handshake on; server { listen 127.0.0.1:19999 ssl; } "
        "server { listen 127.0.0.1:19999; }",
    ),
    (
        "http",
        "server { listen 127.0.0.1:19999; } server { listen 127.0.0.1:19999 ssl default_server; }",
    ),
    # geo bodies (ngx_http_geo_block, ngx_http_geo).
    ("http", "geo $g { default 1; 10.0.0.0/8 2; 10.0.0.0/33 3; }"),
    ("http", "geo $g { default 1; 10.0.0.0/8 2; 2001:db8::/32 3; 10.1.2.3/8 4; }"),
    ("http", "geo $g { 10.0.0.0/8 2; 10.0.0.0/8 3; delete 10.0.0.0/8; delete 10.9.0.0/16; }"),
    ("http", "geo $g { 255.255.255.255 1; 1.2.3.4 2; }"),
    ("http", "geo $g { x 1; }"),
    ("http", "geo $g { delete x; }"),
    ("http", "geo $g { 1.2.3.4 a b; }"),
    ("http", "geo $g { 1.2.3.4; }"),
    ("http", "geo $g { 1.2.3.4 { } }"),
    ("http", "geo $g { proxy 10.0.0.0/8; proxy_recursive; proxy ::1; default 1; }"),
    ("http", "geo $g { proxy 10.0.0.0/33; }"),
    ("http", "geo $g { proxy_recursive x; }"),
    ("http", "geo $g { ranges; default 0; 10.0.0.0-10.0.0.255 1; 10.0.0.10-10.0.0.20 2; }"),
    ("http", "geo $g { ranges; 10.0.0.0-10.0.0.255 1; 10.0.0.128-10.0.1.10 2; }"),
    ("http", "geo $g { ranges; 10.0.0.10-10.0.0.20 1; 10.0.0.0-10.0.0.255 2; }"),
    ("http", "geo $g { ranges; 10.0.0.0-10.0.0.255 1; 10.0.0.0-10.0.0.255 2; ranges; }"),
    ("http", "geo $g { ranges; 10.0.0.0-10.1.0.255 1; 10.0.255.0-10.1.0.10 2; }"),
    (
        "http",
        "geo $g { ranges; 10.0.0.0-10.0.0.255 1; "
        "delete 10.0.0.0-10.0.0.255; 10.0.0.5-10.0.1.0 2; }",
    ),
    ("http", "geo $g { ranges; 10.0.0.9-10.0.0.1 1; }"),
    ("http", "geo $g { ranges; 10.0.0.0/8 1; }"),
    ("http", "geo $g { ranges; 10.0.0.0-255.255.255.255 1; }"),
    ("http", "geo $g { default 1; ranges; }"),
    ("http", "geo $g { proxy 10.0.0.0/8; ranges; 10.0.0.0-10.0.0.1 1; }"),
    ("http", "geo g { }"),
    ("http", "geo $remote_addr g { }"),
    ("http", "geo $remote_addr $g { default 1; }"),
    # Log targets: syslog:… of access_log and error_log (ngx_syslog_process_conf), access_log's
    # own parameters (ngx_http_log_set_log); resolvers (ngx_resolver_create, ngx_parse_url).
    ("http", "access_log syslog:server=[::1 combined;"),
    ("http", "access_log syslog:server=[::1]:514,facility=local0,severity=warn combined;"),
    ("http", "access_log syslog:server=127.0.0.1,facility=bogus combined;"),
    ("http", "access_log syslog:server=127.0.0.1,facility=LOCAL0;"),
    ("http", "access_log syslog:server=127.0.0.1,severity=warning;"),
    ("http", "access_log syslog:server=unix:/dev/log,nohostname,tag=ab_C9 combined;"),
    ("http", "access_log syslog:server=127.0.0.1,tag=;"),
    ("http", f"access_log syslog:server=127.0.0.1,tag={'a' * 33};"),
    ("http", f"access_log syslog:server=127.0.0.1,tag={'a' * 32};"),
    ("http", "access_log syslog:server=127.0.0.1,Nohostname;"),
    ("http", "access_log syslog: combined;"),
    ("http", "access_log syslog:server=127.0.0.1, combined;"),
    ("http", "access_log syslog:tag=x;"),
    ("http", "access_log syslog:server=127.0.0.1,server=127.0.0.2;"),
    ("http", "access_log syslog:server=127.0.0.1:0;"),
    ("http", "access_log syslog:server=127.0.0.1:514;"),
    ("http", "access_log syslog:server=unix: combined;"),
    ("http", f"access_log syslog:server=unix:/{'s' * 107};"),
    ("http", f"access_log syslog:server=unix:/{'s' * 106};"),
    ("http", "access_log syslog:server=[::1]x;"),
    ("http", "access_log syslog:server=[1::2::3];"),
    ("http", "access_log syslog:server=localhost;"),
    ("http", "access_log syslog:server=127.0.0.1 combined buffer=4k;"),
    ("http", "access_log syslog:server=127.0.0.1 combined if=$uri;"),
    ("main", "error_log syslog:server=1.2.3.4,tag=bad-tag;"),
    ("main", "error_log syslog:server=1.2.3.4,tag=good_tag warn;"),
    ("location", "error_log syslog:server=1.2.3.4:99999 warn;"),
    ("location", "error_log syslog:severity=info;"),
    # error_log memory: (Debian builds --with-debug): at least 2099 bytes and the file's path.
    ("main", "error_log memory:2k;"),
    ("main", "error_log memory:2099;"),
    ("main", "error_log memory:4k debug;"),
    ("main", "error_log memory:0;"),
    ("main", "error_log memory:1g;"),
    ("main", "error_log memory:1x;"),
    ("main", "error_log memory:;"),
    ("main", "error_log memory:32M;"),
    ("main", "error_log memory:1m bogus;"),
    ("location", "error_log memory:1k;"),
    ("location", "error_log memory:1m info;"),
    ("main", f"{STREAM} stream {{ error_log memory:1k; }}"),
    ("main", f"{STREAM} stream {{ error_log memory:1m; }}"),
    ("http", "access_log off x;"),
    ("http", "access_log x.log COMBINED;"),
    ("http", "log_format f x; access_log x.log F;"),
    ("http", "access_log x.log combined buffer=64k flush=5s gzip=9 if=$uri;"),
    ("http", "access_log x.log combined buffer=0;"),
    ("http", "access_log x.log combined buffer=1x;"),
    ("http", "access_log x.log combined flush=1m;"),
    ("http", "access_log x.log combined flush=0;"),
    ("http", "access_log x.log combined gzip flush=1m;"),
    ("http", "access_log x.log combined gzip=0;"),
    ("http", "access_log x.log combined gzip=10;"),
    ("http", "access_log x.log combined gzipx;"),
    ("http", "access_log x.log combined foo=1;"),
    ("http", "access_log x$uri.log combined buffer=4k;"),
    ("http", "access_log x$uri.log combined;"),
    ("http", "resolver 127.0.0.1:99999;"),
    ("http", "resolver 127.0.0.1:53 [::1]:53 valid=30s ipv6=off;"),
    ("http", "resolver [::1;"),
    ("http", "resolver ::1;"),
    ("http", "resolver [::1]:0;"),
    ("http", "resolver [fe80::1%eth0];"),
    ("http", "resolver 127.1 0x7f.0.0.1;"),
    ("http", "resolver 1.2.3.256;"),
    ("http", "resolver localhost:5353;"),
    ("http", "resolver unix:/tmp/dns.sock;"),
    ("http", "resolver 127.0.0.1/x;"),
    ("http", "resolver 127.0.0.1:53:1;"),
    ("http", "resolver :53;"),
    ("http", "resolver 127.0.0.1 valid=;"),
    ("http", "resolver 127.0.0.1 valid=500ms;"),
    ("http", "resolver 127.0.0.1 valid=0;"),
    ("http", "resolver valid=1s;"),
    ("http", "resolver 127.0.0.1 ipv6=OFF;"),
    ("http", "resolver 127.0.0.1 ipv4=off;"),
    ("http", "resolver 127.0.0.1 ipv4=off ipv6=off;"),
    ("http", "resolver 127.0.0.1 status_zone=z;"),
    ("location", "resolver 127.0.0.1 Valid=1s;"),
    # A certificate needs its key: in the block, or (none there) inherited. nginx pairs them
    # where it merges a server (tpgen's config always has one).
    ("http", "ssl_certificate a.crt; server { }"),
    ("http", "server { ssl_certificate a.crt; }"),
    ("http", "ssl_certificate a.crt; ssl_certificate b.crt; ssl_certificate_key a.key; server { }"),
    # "" is the prefix directory (ngx_ssl_certificates), unless a path has a variable.
    ("server", 'ssl_certificate ""; ssl_certificate_key "";'),
    ("server", 'listen 127.0.0.1:19443 ssl; ssl_certificate ""; ssl_certificate_key "";'),
    ("http", 'ssl_certificate ""; ssl_certificate_key ""; server { }'),
    ("server", 'ssl_certificate ""; ssl_certificate_key $host.key;'),
    ("server", 'ssl_certificate $host.crt; ssl_certificate_key "";'),
    ("http", 'ssl_certificate_key ""; server { }'),
    ("server", 'ssl_certificate /etc/ssl/certs/ssl-cert-snakeoil.pem; ssl_certificate_key "";'),
    # A $ with no name, or ${ unclosed, where a handler compiles the argument as a script
    # (the table's "script"); a regex, a name or plain text may hold one.
    ("location", "return 200 a$;"),
    ("location", "return 200 a$$;"),
    ("location", 'return 200 "a$-b";'),
    ("location", 'return 200 "${}";'),
    ("location", 'return 200 "a$1 ${uri} $uri";'),
    ("location", "add_header X $uri$;"),
    ("location", "add_header X$ a;"),
    ("location", 'set $a "x$";'),
    ("location", 'set $a "${uri";'),
    ("location", "set $a $;"),
    ("location", "proxy_pass http://x/$;"),
    ("location", "proxy_set_header X a$;"),
    ("location", "grpc_set_header X a$;"),
    ("location", "fastcgi_param X a$;"),
    ("location", "uwsgi_param X a$;"),
    ("location", "fastcgi_split_path_info ^(.+)(/.*)$;"),
    ("location", "rewrite ^ /a$;"),
    ("location", "rewrite ^a$ /a;"),
    ("location", "root /a$;"),
    ("location", "alias /a$;"),
    ("location", "index a$;"),
    ("location", "try_files a$ /b;"),
    ("location", "try_files /b =40$;"),
    ("location", "error_page 404 /a$;"),
    ("location", "access_log /tmp/a$;"),
    ("location", "access_log /tmp/a.log combined if=$uri;"),
    ("location", "access_log /tmp/a.log combined if=a$;"),
    ("http", 'log_format f "a$";'),
    ("http", 'log_format f "${uri";'),
    ("http", 'log_format f "$1" "a$";'),
    ("http", 'log_format f escape=json "$uri";'),
    ("location", "proxy_cache_key a$;"),
    ("location", "auth_basic a$;"),
    ("location", "limit_rate a$;"),
    ("location", "proxy_no_cache $a $;"),
    ("location", "proxy_bind a$;"),
    ("location", "sub_filter a$ b;"),
    ("location", "sub_filter a b$;"),
    ("http", "limit_req_zone a$ zone=z:1m rate=1r/s;"),
    ("location", "if ($uri = a$) { }"),
    ("location", "if ($uri ~ a$) { }"),
    ("location", "if (-f a$) { }"),
    ("location", "auth_request_set $a b$;"),
    ("location", "proxy_cache a$;"),
    ("location", "auth_basic_user_file a$;"),
    ("location", "proxy_ssl_certificate a$;"),
    ("server", "ssl_certificate a$; ssl_certificate_key a;"),
    ("location", "charset a$;"),
    ("http", "upstream u { hash a$; server 127.0.0.1:1; }"),
    ("main", f"{STREAM} stream {{ server {{ listen 127.0.0.1:19001; return a$; }} }}"),
    ("main", f"{STREAM} stream {{ server {{ listen 127.0.0.1:19001; set $x a$; return x; }} }}"),
    ("main", f"{STREAM} stream {{ server {{ listen 127.0.0.1:19001; proxy_pass a$; }} }}"),
    ("main", f'{STREAM} stream {{ log_format f "a$"; }}'),
    ("main", f"{STREAM} stream {{ upstream u {{ hash a$; server 127.0.0.1:1; }} }}"),
    ("main", f"{STREAM} stream {{ map a$ $x {{ }} }}"),
    ("main", f"{STREAM} stream {{ server {{ listen 127.0.0.1:19001; pass a$; }} }}"),
    ("location", "expires a$;"),
    ("location", "expires modified $;"),
    ("location", "proxy_redirect a$ b;"),
    ("location", "proxy_redirect ~*^a$ /b;"),
    ("location", "proxy_redirect /a b$;"),
    ("location", "proxy_cookie_domain ~a$ b;"),
    ("location", "proxy_cookie_domain a b$;"),
    ("location", "proxy_cookie_path ~*a$ b;"),
    ("location", "proxy_cookie_path a$ b;"),
    ("location", "proxy_cookie_flags ~a$ secure;"),
    ("location", "proxy_cookie_flags a samesite=$;"),
    # stream compiles a server's certificates where a listen has ssl until 1.25.4, in every
    # server from 1.25.5 (taken by 1.22, refused by 1.26).
    (
        "main",
        f"{STREAM} stream {{ server {{ listen 127.0.0.1:19001; ssl_certificate a$; "
        "ssl_certificate_key a; return x; } }",
    ),
    # Obsolete directives nginx keeps a handler for that only warns: taken in both versions
    # (http2_push's argument compiled as a script until 1.25.0, ignored from 1.25.1).
    ("location", "http2_push /x;"),
    ("location", "http2_push ${x;"),
    ("location", "http2_push_preload on;"),
    ("server", "http2_max_field_size 4k;"),
    ("server", "http2_max_header_size 4k;"),
    ("server", "http2_idle_timeout 3s;"),
    ("server", "http2_recv_timeout 3s;"),
    ("server", "http2_max_requests 3;"),
    ("location", "spdy_chunk_size 4k;"),
    # aio's pool after threads= and disable_symlinks' from= are compiled (a pool with no $ must
    # be one thread_pool defines: not these cases).
    ("location", "aio threads;"),
    ("location", "aio threads=$uri;"),
    ("location", "aio threads=a$;"),
    ("location", "aio threads=${uri;"),
    ("location", "disable_symlinks on from=$document_root;"),
    ("location", "disable_symlinks on from=a$;"),
    ("location", "disable_symlinks if_not_owner from=${x;"),
    ("location", "disable_symlinks on from=/a;"),
    # image_filter compiles rotate's angle and resize's and crop's sizes, its _quality and
    # _sharpen their value; xslt_stylesheet its parameters after the file, xslt_param and
    # xslt_string_param their value (not the name).
    _in_location(_IMAGE, "image_filter resize a$ 10;"),
    _in_location(_IMAGE, "image_filter resize 10 ${h;"),
    _in_location(_IMAGE, "image_filter crop $ 10;"),
    _in_location(_IMAGE, "image_filter rotate a$;"),
    _in_location(_IMAGE, "image_filter resize $w 10;"),
    _in_location(_IMAGE, "image_filter_jpeg_quality a$;"),
    _in_location(_IMAGE, "image_filter_webp_quality ${q;"),
    _in_location(_IMAGE, "image_filter_sharpen $;"),
    _in_location(_IMAGE, "image_filter_sharpen $s;"),
    _in_location(_IMAGE, "image_filter resize $arg_w ${arg_h};"),
    _in_location(_IMAGE, "image_filter crop 100 $arg_h;"),
    _in_location(_IMAGE, "image_filter rotate $arg_r;"),
    _in_location(_IMAGE, "image_filter size;"),
    _in_location(_IMAGE, "set $w 10; image_filter resize $w -;"),
    _in_location(_IMAGE, "image_filter_jpeg_quality $arg_q;"),
    _in_location(_IMAGE, "image_filter_webp_quality 80;"),
    _in_location(_IMAGE, "image_filter_sharpen ${arg_s};"),
    # Without a $: image_filter's words, its angle and sizes, a quality above 0, a sharpen of
    # 0 or more ("-" is -1; a word that is no number 0).
    _in_location(_IMAGE, "image_filter foo;"),
    _in_location(_IMAGE, "image_filter $arg_x;"),
    _in_location(_IMAGE, "image_filter resize 100;"),
    _in_location(_IMAGE, "image_filter rotate 45;"),
    _in_location(_IMAGE, "image_filter rotate -;"),
    _in_location(_IMAGE, "image_filter resize 0 10;"),
    _in_location(_IMAGE, "image_filter crop 10 abc;"),
    _in_location(_IMAGE, "image_filter crop abc a$;"),
    _in_location(_IMAGE, "image_filter_jpeg_quality 0;"),
    _in_location(_IMAGE, "image_filter_webp_quality abc;"),
    _in_location(_IMAGE, "image_filter_sharpen -;"),
    _in_location(_IMAGE, "image_filter off;"),
    _in_location(_IMAGE, "image_filter test;"),
    _in_location(_IMAGE, "image_filter rotate 270;"),
    _in_location(_IMAGE, "image_filter resize - 100;"),
    _in_location(_IMAGE, "image_filter crop 010 20;"),
    _in_location(_IMAGE, "image_filter_jpeg_quality 95;"),
    _in_location(_IMAGE, "image_filter_sharpen abc;"),
    _in_location(_IMAGE, "image_filter_sharpen 0;"),
    ("main", f"{_IMAGE} http {{ image_filter_jpeg_quality a$; }}"),
    ("main", f"{_IMAGE} http {{ image_filter_jpeg_quality $arg_q; }}"),
    _in_location(_XSLT, f"xslt_stylesheet ../{SHEET} a=$;"),
    _in_location(_XSLT, f"xslt_stylesheet ../{SHEET} a=1 b=${{c;"),
    _in_location(_XSLT, f"xslt_stylesheet ../{SHEET} a=$nope;"),
    _in_location(_XSLT, f"xslt_stylesheet ../{SHEET} a=$arg_a b='1';"),
    _in_location(_XSLT, f"xslt_stylesheet ../{SHEET};"),
    _in_location(_XSLT, "xslt_param a $;"),
    _in_location(_XSLT, "xslt_string_param a ${b;"),
    _in_location(_XSLT, "xslt_param a $nope;"),
    _in_location(_XSLT, "xslt_param a $arg_a;"),
    _in_location(_XSLT, "xslt_param a$ 1;"),
    _in_location(_XSLT, "xslt_string_param a 'x y';"),
    ("main", f"{_XSLT} http {{ xslt_param a a$; }}"),
    ("main", f"{_XSLT} http {{ server {{ xslt_string_param a $host; }} }}"),
    # if's $ operand is one variable named by all after its $ (ngx_http_rewrite_variable).
    ("location", "if ($uri$) { return 404; }"),
    ("location", "if ($uri$ = x) { return 404; }"),
    ("location", "set $x$ 1; if ($x$) { return 404; }"),
    ("location", "if ( $uri ) { return 404; }"),
    # Only the arguments a handler compiles name variables: a header's name, a zone's and a
    # log format's are text (the table's "script").
    ("location", "add_header X-$nope b;"),
    ("location", "add_header X-A $nope;"),
    ("location", "add_trailer X-$nope b;"),
    ("location", "proxy_set_header X-$nope $host;"),
    ("location", "proxy_set_header X-A $nope;"),
    ("server", "proxy_set_header X-A $nope;"),
    ("http", "grpc_set_header X-A $nope; server { }"),
    # ssl_conf_command's slot (keyval, as proxy_set_header's) keeps text nothing compiles.
    ("server", "ssl_conf_command Options $nope;"),
    ("location", "proxy_ssl_conf_command Options$nope $nope;"),
    ("location", "grpc_ssl_conf_command Options a$;"),
    ("location", "grpc_set_header X-$nope $host;"),
    ("location", "auth_request_set $a X$nope;"),
    ("location", "error_page 404 /x$nope;"),
    ("location", "error_page 404 =200 /x;"),
    ("location", "sub_filter a$nope b;"),
    ("location", "try_files $uri $nope =404;"),
    ("location", "expires $nope;"),
    ("http", "limit_conn_zone $binary_remote_addr zone=z$nope:1m;"),
    ("http", "limit_conn_zone $nope zone=z:1m;"),
    ("http", "limit_req_zone $binary_remote_addr zone=z$nope:1m rate=1r/s;"),
    ("http", "log_format f$nope $uri;"),
    ("http", "log_format f $nope;"),
    # Values the module's merge compiles, in every block that has them or inherits them
    # (ngx_http_fastcgi_init_params and scgi's and uwsgi's, ngx_http_proxy_merge_loc_conf).
    ("location", "fastcgi_param A $nope;"),
    ("server", "fastcgi_param A $nope;"),
    ("http", "fastcgi_param A $nope; server { }"),
    ("location", "fastcgi_param A x$nope if_not_empty;"),
    ("location", "fastcgi_param $nope A;"),
    ("location", "fastcgi_param A $uri$http_x_a$arg_b;"),
    ("server", "set $mine 1; fastcgi_param A $MINE;"),
    ("location", "scgi_param A $nope;"),
    ("server", "scgi_param A $nope if_not_empty;"),
    ("location", "scgi_param A $request_uri;"),
    ("location", "uwsgi_param A $nope;"),
    ("http", "uwsgi_param A ${nope}; server { }"),
    ("location", "uwsgi_param A $document_root;"),
    ("location", "proxy_set_body $nope;"),
    ("server", "proxy_set_body a$nope;"),
    ("http", "proxy_set_body $nope; server { }"),
    ("location", "proxy_set_body a$;"),
    ("location", "proxy_set_body ${request_body;"),
    ("location", "proxy_set_body $request_body$uri;"),
    ("location", "proxy_set_body a;"),
    # A server's certificate paths are compiled where it merges with certificates in force,
    # its own or its http block's (ngx_http_ssl_compile_certificates), once one of them or the
    # key paired with it has a $; a key past the certificates, or with none in force, never.
    ("server", "ssl_certificate a$nope; ssl_certificate_key k;"),
    ("server", "ssl_certificate a.crt; ssl_certificate_key k$nope;"),
    ("server", "ssl_certificate a$; ssl_certificate_key k;"),
    ("server", "ssl_certificate a.crt; ssl_certificate_key ${ssl_server_name;"),
    ("server", "ssl_certificate_key a$;"),
    ("server", "ssl_certificate_key k$nope;"),
    (
        "server",
        "ssl_certificate a$ssl_server_name; ssl_certificate_key k; ssl_certificate_key k$nope;",
    ),
    ("server", "ssl_certificate a$ssl_server_name; ssl_certificate_key k; ssl_certificate_key k$;"),
    ("server", "set $mine 1; ssl_certificate a$MINE; ssl_certificate_key k;"),
    ("server", "ssl_certificate a$uri; ssl_certificate_key k$ssl_server_name;"),
    ("http", "ssl_certificate a$nope; ssl_certificate_key k; server { }"),
    ("http", "ssl_certificate a.crt; ssl_certificate_key k$nope; server { }"),
    ("http", "ssl_certificate_key k$nope; server { }"),
    ("http", "server { ssl_certificate a$nope; ssl_certificate_key k; }"),
    ("http", "server { ssl_certificate_key a$nope; }"),
    (
        "http",
        "ssl_certificate a$host; ssl_certificate_key k; server { ssl_certificate_key k$nope; }",
    ),
    (
        "http",
        "ssl_certificate a$host; ssl_certificate_key k; server { ssl_certificate_key k$; }",
    ),
    (
        "http",
        "ssl_certificate a.crt; ssl_certificate_key k; server { ssl_certificate_key k$nope; }",
    ),
    (
        "http",
        "ssl_certificate_key k$nope; server { ssl_certificate a$host; ssl_certificate_key k; }",
    ),
    (
        "http",
        "map $uri $m { default a; } ssl_certificate $m.crt; ssl_certificate_key $M.key; server { }",
    ),
    # ngx_conf_set_path_slot: levels above 0 (ngx_atoi: digits only), their lengths and the
    # slashes before them at most 10 more than the path (a size_t, wrapping as nginx's does).
    ("http", "proxy_temp_path t 1 2 3;"),
    ("http", "client_body_temp_path t 4 4 2;"),
    ("http", "fastcgi_temp_path t 4 4 3;"),
    ("http", "scgi_temp_path t 10;"),
    ("http", "uwsgi_temp_path t 11;"),
    ("location", "proxy_temp_path t 0;"),
    ("location", "proxy_temp_path t 01;"),
    ("location", "proxy_temp_path t +1;"),
    ("location", "proxy_temp_path t 1k;"),
    ("location", "proxy_temp_path t 9223372036854775807 9223372036854775807 2;"),
    ("location", "proxy_temp_path t 9223372036854775807;"),
    # ngx_conf_set_access_slot: user:, group: or all:, then rw or r, as written.
    ("location", "dav_access user:rw group:r all:r;"),
    ("location", "dav_access group:rw all:rw user:r;"),
    ("location", "proxy_store_access user:RW;"),
    ("location", "fastcgi_store_access user:;"),
    ("location", "scgi_store_access users:r;"),
    ("location", "uwsgi_store_access all:w;"),
    ("server", "dav_access all:rw group:x;"),
    # ssl_ocsp_cache: off or shared:NAME:SIZE; stream's ssl_session_cache (and mail's) as http's.
    ("http", "ssl_ocsp_cache off;"),
    ("http", "ssl_ocsp_cache OFF;"),
    ("server", "ssl_ocsp_cache shared:OCSP:10m;"),
    ("server", "ssl_ocsp_cache shared:OCSP:16k;"),
    ("server", "ssl_ocsp_cache shared::1m;"),
    ("server", "ssl_ocsp_cache builtin;"),
    ("server", "ssl_ocsp_cache shared:a:1g;"),
    ("main", f"{STREAM} stream {{ ssl_session_cache builtin:1000 shared:S:1m; }}"),
    ("main", f"{STREAM} stream {{ ssl_session_cache shared:S:16k; }}"),
    (
        "main",
        f"{STREAM} stream {{ server {{ listen 127.0.0.1:19002; ssl_session_cache none nonex; "
        "return x; } }",
    ),
    # proxy_bind and the other upstreams' binds (http's and stream's): off alone, or an address
    # (ngx_parse_addr_port: a port of 1-65535 after the first colon, IPv6 in brackets) or a
    # value with variables, then transparent.
    ("location", "proxy_bind off;"),
    ("location", "proxy_bind OFF;"),
    ("location", "proxy_bind off transparent;"),
    ("location", "proxy_bind 127.0.0.1:65535;"),
    ("location", "proxy_bind 127.0.0.1:65536;"),
    ("location", "proxy_bind 127.0.0.1:;"),
    ("location", "proxy_bind [::1]:8000;"),
    ("location", "proxy_bind [127.0.0.1]:8000;"),
    ("location", "proxy_bind [::1];"),
    ("location", "proxy_bind ::1;"),
    ("location", "proxy_bind 255.255.255.255;"),
    ("location", "proxy_bind localhost;"),
    ("location", "proxy_bind 127.0.0.1 Transparent;"),
    ("location", "proxy_bind $remote_addr transparent;"),
    ("location", "fastcgi_bind 1.2.3.4:+80;"),
    ("location", "uwsgi_bind 1.2.3.4:080;"),
    ("server", "grpc_bind 1.2.3;"),
    ("http", "scgi_bind ''; server { }"),
    ("main", f"{STREAM} stream {{ proxy_bind 127.0.0.1:1 transparent; }}"),
    ("main", f"{STREAM} stream {{ proxy_bind 127.0.0.1:x; }}"),
    ("main", f"{STREAM} stream {{ proxy_bind 1:2:3::4 trans; }}"),
    # proxy_cache_path and the other caches' paths: each parameter's value, keys_zone required
    # (at least 3 pages: the handler takes 2, the cache's own structures need a third).
    ("http", "proxy_cache_path c levels=1:2 keys_zone=a:10m inactive=1d max_size=10g min_free=1g;"),
    ("http", "proxy_cache_path c levels= keys_zone=a:1m use_temp_path=off;"),
    ("http", "proxy_cache_path c levels=1: keys_zone=a:1m;"),
    ("http", "proxy_cache_path c levels=1:2:2:1 keys_zone=a:1m;"),
    ("http", "proxy_cache_path c levels=3 keys_zone=a:1m;"),
    ("http", "proxy_cache_path c keys_zone=a:4k;"),
    ("http", "proxy_cache_path c keys_zone=a:12287;"),
    ("http", "proxy_cache_path c keys_zone=a:12k;"),
    ("http", "proxy_cache_path c keys_zone=a;"),
    ("http", "proxy_cache_path c keys_zone=a:1g;"),
    ("http", "proxy_cache_path c;"),
    ("http", "fastcgi_cache_path c keys_zone=a:1m keys_zone=:1m;"),
    ("http", "scgi_cache_path c keys_zone=a:1m inactive=10ms;"),
    ("http", "uwsgi_cache_path c keys_zone=a:1m use_temp_path=ON;"),
    ("http", "proxy_cache_path c keys_zone=a:1m max_size=1t;"),
    ("http", "proxy_cache_path c keys_zone=a:1m loader_files=0 manager_files=99;"),
    ("http", "proxy_cache_path c keys_zone=a:1m loader_files=-1;"),
    ("http", "proxy_cache_path c keys_zone=a:1m manager_threshold=1s500ms loader_sleep=1y;"),
    ("http", "proxy_cache_path c keys_zone=a:1m purger=on;"),
    # proxy_cache_valid and the others': codes of 100-599 or any, then whole seconds.
    ("location", "proxy_cache_valid 10m;"),
    ("location", "proxy_cache_valid 200 302 10m;"),
    ("location", "proxy_cache_valid any 599 0;"),
    ("location", "fastcgi_cache_valid ANY 1m;"),
    ("location", "scgi_cache_valid 99 1m;"),
    ("location", "uwsgi_cache_valid 600 1m;"),
    ("location", "proxy_cache_valid 200 1ms;"),
    ("location", "proxy_cache_valid any;"),
    # Stream's complex sizes and limit_conn and its zone: the handlers of http's, copied.
    ("main", f"{STREAM} stream {{ proxy_download_rate 1g; }}"),
    ("main", f"{STREAM} stream {{ proxy_download_rate 1m; }}"),
    ("main", f"{STREAM} stream {{ proxy_upload_rate 127.0.0.1; }}"),
    ("main", f"{STREAM} stream {{ proxy_upload_rate $remote_addr; }}"),
    ("main", f"{STREAM} stream {{ limit_conn_zone $binary_remote_addr zone=a:1k; }}"),
    ("main", f"{STREAM} stream {{ limit_conn_zone $binary_remote_addr zone=a; }}"),
    ("main", f"{STREAM} stream {{ limit_conn_zone $binary_remote_addr zone=a:1m x=1; }}"),
    (
        "main",
        f"{STREAM} stream {{ limit_conn_zone $binary_remote_addr zone=a:1m; limit_conn a 65535; }}",
    ),
    (
        "main",
        f"{STREAM} stream {{ limit_conn_zone $binary_remote_addr zone=a:1m; limit_conn a 65536; }}",
    ),
    (
        "main",
        f"{STREAM} stream {{ limit_conn_zone $binary_remote_addr zone=a:1m; limit_conn a x; }}",
    ),
    # set, auth_request_set and stream's set: the variable first, with its $.
    ("location", "set a 1;"),
    ("location", "set '' 1;"),
    ("server", "set 1.5 1K;"),
    ("location", "auth_request_set a $uri;"),
    ("location", "auth_request_set $a $upstream_http_x;"),
    ("main", f"{STREAM} stream {{ server {{ listen 127.0.0.1:19002; set $a 1; return $a; }} }}"),
    ("main", f"{STREAM} stream {{ server {{ listen 127.0.0.1:19002; set a 1; return x; }} }}"),
    # fastcgi_pass and the other passes: an address ngx_parse_url reads, and one without a
    # port only where an upstream block has that name (caseless).
    ("location", "fastcgi_pass unix:/tmp/fastcgi.sock;"),
    ("location", "fastcgi_pass '';"),
    ("location", "fastcgi_pass 127.0.0.1;"),
    ("location", "fastcgi_pass [::1];"),
    ("location", "fastcgi_pass [::1]:9000;"),
    ("location", "fastcgi_pass LOCALHOST:9000;"),
    ("location", "fastcgi_pass 127.0.0.1:9000/x;"),
    ("location", "fastcgi_pass http://127.0.0.1:9000;"),
    ("location", "grpc_pass GRPC://127.0.0.1:9000;"),
    ("location", "grpc_pass grpcs://;"),
    ("location", "uwsgi_pass suwsgi://127.0.0.1:1;"),
    ("location", "uwsgi_pass uwsgi://u;"),
    ("location", "memcached_pass 127.0.0.1:0;"),
    # proxy_redirect and the proxy_cookie_*: one argument is off (or proxy_redirect's default).
    ("location", "proxy_redirect OFF;"),
    ("location", "proxy_redirect ~;"),
    ("location", "proxy_pass http://127.0.0.1:1; proxy_redirect default;"),
    ("location", "proxy_cookie_domain default;"),
    ("location", "proxy_cookie_path x;"),
    ("location", "proxy_cookie_path off;"),
    ("location", "proxy_cookie_flags ~;"),
    ("location", "proxy_cookie_flags ~ secure;"),
    # Stream's log formats, upstreams and zones are its own list; it has no combined format.
    (
        "main",
        f"{STREAM} stream {{ server {{ listen 127.0.0.1:19002; return 1; "
        "access_log /tmp/s.log combined; } }",
    ),
    (
        "main",
        f"{STREAM} stream {{ log_format x $remote_addr; server {{ listen 127.0.0.1:19002; "
        "return 1; access_log /tmp/s.log X; } }",
    ),
    (
        "main",
        f"{STREAM} stream {{ upstream a {{ zone z; server 127.0.0.1:1; }} "
        "server { listen 127.0.0.1:19002; proxy_pass a; } }",
    ),
    (
        "main",
        f"{STREAM} stream {{ upstream a {{ zone z 64k; server 127.0.0.1:1; }} "
        "upstream b { zone z; server 127.0.0.1:2; } "
        "server { listen 127.0.0.1:19002; proxy_pass b; } }",
    ),
    ("main", f"{STREAM} stream {{ server {{ listen 127.0.0.1:19002; proxy_pass foo; }} }}"),
    (
        "main",
        f"{STREAM} stream {{ upstream foo {{ server 127.0.0.1:1; }} "
        "server { listen 127.0.0.1:19002; proxy_pass FOO; } }",
    ),
    (
        "main",
        f"{STREAM} http {{ limit_conn_zone $binary_remote_addr zone=z:1m; }} "
        "stream { server { listen 127.0.0.1:19002; limit_conn z 1; return 1; } }",
    ),
    # aio: off, on, threads or threads=POOL as written; a POOL without variables is a
    # thread_pool's, wherever the config defines it (or nginx's default).
    ("location", "aio Threads;"),
    ("location", "aio threadsx;"),
    ("location", "aio threads=default;"),
    ("location", "aio threads=$uri;"),
    ("location", "aio threads=p;"),
    (
        "main",
        "http { server { listen 127.0.0.1:19008; location / { aio threads=p; } } } "
        "thread_pool p threads=2;",
    ),
    (
        "main",
        "thread_pool P threads=2; "
        "http { server { listen 127.0.0.1:19008; location / { aio threads=p; } } }",
    ),
    # memcached_pass compiles no variable: a $ is the address's own; it needs $memcached_key.
    ("location", "set $memcached_key $uri; memcached_pass unix:/tmp/$nothere.sock;"),
    ("location", "set $memcached_key $uri; memcached_pass unix:/tmp/a$.sock;"),
    ("location", "set $memcached_key $uri; memcached_pass 127.0.0.1:$x;"),
    ("location", "set $memcached_key $uri; memcached_pass a$b;"),
    ("location", "memcached_pass unix:/tmp/m.sock;"),
    (
        "http",
        "map $uri $memcached_key { default a; } "
        "server { listen 127.0.0.1:19007; location / { memcached_pass unix:/tmp/m.sock; } }",
    ),
    ("location", "scgi_pass $uri;"),
    (
        "http",
        "upstream U { server 127.0.0.1:9000; } "
        "server { listen 127.0.0.1:19004; location / { scgi_pass u; } }",
    ),
    ("main", f"{STREAM} stream {{ server {{ listen 127.0.0.1:19002; proxy_pass unix:; }} }}"),
    ("main", f"{STREAM} stream {{ server {{ listen 127.0.0.1:19002; proxy_pass [::1]:0; }} }}"),
    # ssl (up to 1.25.0): ngx_http_ssl_enable reads its flag with the flag slot.
    ("http", "ssl OFF;"),
    ("http", "ssl 1;"),
    ("server", "ssl off;"),
    # open_file_cache (max= above 0) and open_log_file_cache (any max=; stream's too): off, or
    # max= and the others' times and counts.
    ("http", "open_file_cache max=1000 inactive=20s;"),
    ("http", "open_file_cache max=0;"),
    ("http", "open_file_cache inactive=20s;"),
    ("http", "open_file_cache max=10 off;"),
    ("http", "open_file_cache OFF;"),
    ("location", "open_file_cache max=10 inactive=1ms;"),
    ("http", "open_log_file_cache max=0;"),
    ("http", "open_log_file_cache max=0 off;"),
    ("server", "open_log_file_cache max=10 min_uses=0 valid=1m;"),
    ("location", "open_log_file_cache max=10 min_uses=x;"),
    ("location", "open_log_file_cache max=10 max=0;"),
    ("main", f"{STREAM} stream {{ open_log_file_cache max=10 inactive=1y; }}"),
    ("main", f"{STREAM} stream {{ open_log_file_cache valid=2; }}"),
    # proxy_cache names a zone a proxy_cache_path of the config declares, as written.
    ("location", "proxy_cache 0;"),
    ("location", "proxy_cache off;"),
    # limit_except: methods of nginx's table, caseless.
    ("location", "limit_except get Head PROPPATCH { }"),
    ("location", "limit_except GET TRACE { }"),
    ("location", "limit_except 2 { }"),
    # An upstream's zone: a name, a size of at least 32k, or none where another upstream's zone
    # of that name (as written) has one.
    ("upstream", "zone a 64k;"),
    ("upstream", "zone a;"),
    ("upstream", "zone a 16k;"),
    ("upstream", "zone a 1g;"),
    ("upstream", "zone '' 64k;"),
    (
        "http",
        "upstream b { server 127.0.0.1:9; zone A 64k; } upstream c { server 127.0.0.1:9; zone A; }",
    ),
    (
        "http",
        "upstream b { server 127.0.0.1:9; zone A 64k; } upstream c { server 127.0.0.1:9; zone a; }",
    ),
    ("main", f"{STREAM} stream {{ upstream u {{ server 127.0.0.1:9; zone a 1k; }} }}"),
    # A keyword (as written) or one standard value: worker_processes, worker_priority, directio,
    # userid_expires, userid_mark.
    ("main", "worker_processes AUTO;"),
    ("main", "worker_processes 0;"),
    ("main", "worker_priority +5;"),
    ("main", "worker_priority --5;"),
    ("location", "directio 1g;"),
    ("location", "directio OFF;"),
    ("http", "userid_expires 365d;"),
    ("http", "userid_expires 1ms;"),
    ("http", "userid_mark =;"),
    ("http", "userid_mark ab;"),
    # thread_pool: threads= (required, above 0), max_queue=, other words passed over.
    ("main", "thread_pool p threads=4 x;"),
    ("main", "thread_pool p threads=0;"),
    ("main", "thread_pool p max_queue=1;"),
    ("main", "thread_pool p threads=4 max_queue=-1;"),
    # fastcgi_param and the others': if_not_empty as written, or nothing, after the value.
    ("location", "fastcgi_param A b if_not_empty;"),
    ("location", "scgi_param A b IF_NOT_EMPTY;"),
    ("location", "uwsgi_param A b c;"),
    # disable_symlinks: off, on or if_not_owner, and from= with the last two.
    ("location", "disable_symlinks if_not_owner from=$document_root;"),
    ("location", "disable_symlinks from=/a on;"),
    ("location", "disable_symlinks on off;"),
    ("location", "disable_symlinks off from=/a;"),
    ("location", "disable_symlinks from=/a;"),
    ("location", "disable_symlinks ON;"),
    (
        "http",
        "proxy_cache_path c keys_zone=A:1m; proxy_cache A; server { listen 127.0.0.1:19005; }",
    ),
    (
        "http",
        "proxy_cache_path c keys_zone=A:1m; proxy_cache a; server { listen 127.0.0.1:19006; }",
    ),
    # worker_cpu_affinity: auto (as written) and at most one mask after it, or masks of 0, 1
    # and spaces of up to 1024 characters (CPU_SETSIZE).
    ("main", "worker_cpu_affinity auto;"),
    ("main", "worker_cpu_affinity auto 0101;"),
    ("main", "worker_cpu_affinity 01 10;"),
    ("main", "worker_cpu_affinity '0 1' '';"),
    ("main", "worker_cpu_affinity auto auto;"),
    ("main", "worker_cpu_affinity auto 01 10;"),
    ("main", "worker_cpu_affinity 012;"),
    ("main", "worker_cpu_affinity AUTO;"),
    ("main", f"worker_cpu_affinity 1{'0' * 1023};"),
    ("main", f"worker_cpu_affinity 1{'0' * 1024};"),
    # modern_browser: unlisted alone (as written), or a browser of nginx's list (any case) and
    # a version of digits and dots; ancient_browser and the _value directives take any word.
    ("http", "modern_browser unlisted;"),
    ("http", "modern_browser UNLISTED;"),
    ("location", "modern_browser Opera 9.0;"),
    ("server", "modern_browser msie '';"),
    ("server", "modern_browser KONQUEROR 3..5.;"),
    ("http", "modern_browser gecko 1.9b;"),
    ("http", "modern_browser chrome 1;"),
    ("http", "modern_browser unlisted 1;"),
    ("http", "ancient_browser netscape4 '' x;"),
    ("http", "modern_browser_value '';"),
    # charset_map: two charsets (caseless), each pair once; lines of hex codes, towards utf-8
    # the UTF-8 bytes of a character up to U+FFFF (an empty one decodes what the table holds).
    ("http", "charset_map koi8-r utf-8 { C0 D18E; c1 d0b0; 0c1 D0B1; 9a C2A0; A4 E282AC; }"),
    ("http", "charset_map koi8-r windows-1251 { 80 FF; ff 00; }"),
    ("http", "charset_map a b { 100 1; }"),
    ("http", "charset_map a b { 1 100; }"),
    ("http", "charset_map a b { 1 ''; }"),
    ("http", "charset_map a b { g 1; }"),
    ("http", "charset_map a b { 1 2 3; }"),
    ("http", "charset_map a b { 1 { } }"),
    ("http", "charset_map a utf-8 { 80 41; }"),
    ("http", "charset_map a utf-8 { 80 D0; }"),
    ("http", "charset_map a utf-8 { 80 D08; }"),
    ("http", "charset_map a utf-8 { 80 E08080; }"),
    ("http", "charset_map a utf-8 { 80 E0A080; }"),
    ("http", "charset_map a utf-8 { 80 EDA080; }"),
    ("http", "charset_map a utf-8 { 80 F0908080; }"),
    ("http", "charset_map a utf-8 { 80 C080; }"),
    ("http", "charset_map a utf-8 { 80 D0C1; }"),
    ("http", "charset_map a utf-8 { 80 D0B041; }"),
    ("http", "charset_map a utf-8 { 80 ''; }"),
    ("http", "charset_map a utf-8 { 80 D0B0; 80 ''; }"),
    ("http", "charset_map a utf-8 { 7F E0A0; 80 ''; }"),
    ("http", "charset_map A UTF-8 { 80 d0b0; }"),
    ("http", "charset_map utf-8 a { 80 d0; }"),
    ("http", "charset_map ab AB { }"),
    ("http", "charset_map a b { } charset_map B A { }"),
    ("http", "charset_map a b { } charset_map a c { }"),
    # sub_filter: a search string that is not empty.
    ("http", "sub_filter '' x;"),
    ("location", "sub_filter a '';"),
    # include: a path that names a directory by its shape; a glob that matches nothing.
    ("http", "include '';"),
    ("http", "include ./;"),
    ("http", "include ..;"),
    ("server", "include x/.;"),
    ("http", "include nonexistent/*.conf;"),
    # proxy_redirect default: an http or server block has no proxy_pass before it.
    ("server", "proxy_redirect default;"),
    ("http", "proxy_redirect default;"),
    ("location", "proxy_pass http://127.0.0.1:9; proxy_redirect default;"),
]
# Mail servers, in the main context: Debian 12 ships the mail module, the trixie image of
# tests/test_nginx_versions.py does not (tests/test_handlers_mail.py puts them to the host's).
MAIL = "load_module /usr/lib/nginx/modules/ngx_mail_module.so;"


def _mail(server: str) -> tuple[str, str]:
    return ("main", f"{MAIL} mail {{ auth_http 127.0.0.1:9; server {{ {server} }} }}")


MAIL_CASES = [
    _mail("listen 127.0.0.1:29571; protocol imap;"),
    _mail("listen 127.0.0.1:29572; protocol IMAP;"),
    _mail("listen 127.0.0.1:29573; protocol pop3;"),
    _mail("listen 127.0.0.1:29574; protocol smtp;"),
    _mail(
        "listen 127.0.0.1:29575 bind backlog=5 rcvbuf=8k sndbuf=8k so_keepalive=30s::3 "
        "proxy_protocol; protocol imap;"
    ),
    _mail("listen 127.0.0.1:29576 fastopen=1; protocol imap;"),
    _mail("listen 127.0.0.1:29577 default_server; protocol imap;"),
    _mail("listen 127.0.0.1:29578 backlog=0; protocol imap;"),
    _mail("listen 127.0.0.1:29579 ipv6only=of; protocol imap;"),
    _mail("protocol imap;"),
    _mail("protocol IMAP;"),
]


_STYLESHEET = (
    '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">'
    '<xsl:param name="a"/><xsl:template match="/"><xsl:copy-of select="."/></xsl:template>'
    "</xsl:stylesheet>\n"
)


def handler_disagreements(
    run: Runner, root: Path, version: Version, cases: list[tuple[str, str]] = HANDLER_CASES
) -> list[tuple[str, str, str]]:
    """Each line of ``cases`` nginx takes and tpgen refuses, or the other way round; and
    the counts each refused (both must refuse some and take some)."""
    (root / SHEET).write_text(_STYLESHEET)
    said = run(write_configs(root, [(context, text + "\n") for context, text in cases]))
    wrong = []
    for (context, text), nginx_said in zip(cases, said, strict=True):
        tree = parse(text + "\n")
        target = Target(
            version,
            defined=defined_variables(tree, context),
            names=frozenset(defined_names(tree, context)),
            used=directive_names(tree),
        )
        refused = [why for _, why in refusals(tree, context, target)]
        if bool(refused) != (nginx_said != TAKEN):
            wrong.append((context, text, f"nginx: {nginx_said}; tpgen: {refused[:1]}"))
    return wrong


# A build without the PCRE library (nginx.configure): configure refuses the rewrite module
# without it. (context, text, whether such an nginx -t refuses it): what nginx 1.22.1 and
# 1.26.3, configured with NO_PCRE from their source, said when the cases were added; no such
# binary is at hand here, so the tests hold tpgen to the verdicts recorded.
NO_PCRE = "--without-pcre --without-http_rewrite_module --with-stream --with-http_ssl_module"
NO_PCRE_CASES: list[tuple[str, str, bool]] = [
    ("server", r"server_name ~^(www)\.a\.net$;", True),
    ("server", r"server_name a.net ~^b\.net$;", True),
    ("server", "server_name ~;", True),
    ("server", r"server_name ~\d;", True),
    ("server", "server_name a.net *.b.net .c.net www.d.*;", False),
    ("server", r"location ~ \.php$ {}", True),
    ("server", r"location ~* \.PHP$ {}", True),
    ("server", r"location ~\.php$ {}", True),
    ("server", "location = /a {} location ^~ /b {} location @c {}", False),
    ("location", "proxy_redirect ~^http://a/(.*)$ /$1;", True),
    ("location", "proxy_redirect ~*^http://a/ /;", True),
    ("location", "proxy_redirect http://a/ /;", False),
    ("location", r"proxy_cookie_domain ~\.a\.net$ b.net;", True),
    ("location", "proxy_cookie_path ~*^/a /b;", True),
    ("location", "proxy_cookie_path /a /b;", False),
    ("location", "proxy_cookie_flags ~^a secure;", True),
    ("location", "proxy_cookie_flags a secure;", False),
    ("location", r"valid_referers none ~\.a\.net;", True),
    ("location", "valid_referers ~;", True),
    ("location", "valid_referers none blocked a.net *.b.net;", False),
    ("location", r"fastcgi_split_path_info ^(.+\.php)(/.+)$;", True),
    ("location", "fastcgi_split_path_info (;", True),
    ("location", "gzip_disable msie6;", False),
    ("location", r'gzip_disable "MSIE [1-6]\.";', True),
    # A map's ~ key is a plain string: not compiled, nor a regex that fails to.
    ("http", "map $uri $x { ~( 1; ~*^/a 2; default 0; }", False),
    ("http", "map $uri $x { ~^/(?<y>a) 1; }", False),
    # ... so its named captures define no variable.
    ("http", "map $uri $x { ~^/(?<y>a) 1; } map $y $z { default 0; }", True),
    ("http", "map $uri $x { ~^/(?<y>a) 1; } map $x $z { default 0; }", False),
    ("http", "map $uri $y { ~^/(?<y>a) 1; } map $y $z { default 0; }", False),
    ("server", "add_header X $y; location ~ ^/(?<y>a) { }", True),
    ("server", r"add_header X $y; server_name ~^(?<y>a)\.net$;", True),
    (
        "main",
        "stream { map $remote_addr $x { ~^(?<y>1) 1; } "
        "server { listen 127.0.0.1:19002; proxy_pass $y:80; } }",
        True,
    ),
    (
        "main",
        "stream { map $remote_addr $x { ~^(?<y>1) 1; } "
        "server { listen 127.0.0.1:19002; proxy_pass $x:80; } }",
        False,
    ),
    ("location", "rewrite ^ /a;", True),
    ("location", "if ($uri) {}", True),
    # stream's server_name came in 1.25.5: unknown to 1.22, a regex refused by 1.26.
    ("main", "stream { server { listen 127.0.0.1:19002; server_name ~^a; return x; } }", True),
    ("main", "stream { map $remote_addr $x { ~( 1; } }", False),
]


def no_pcre_disagreements(run: Runner, root: Path, version: Version) -> list[tuple[str, str, str]]:
    """Each NO_PCRE_CASES line whose recorded verdict (or, with ``run`` an nginx built so,
    its nginx -t) tpgen does not share for a build of NO_PCRE."""
    said = run(write_configs(root, [(context, text + "\n") for context, text, _ in NO_PCRE_CASES]))
    wrong = []
    for (context, text, refused_by_nginx), nginx_said in zip(NO_PCRE_CASES, said, strict=True):
        tree = parse(text + "\n")
        target = Target(
            version,
            defined=defined_variables(tree, context, pcre=False),
            names=frozenset(defined_names(tree, context)),
            used=directive_names(tree),
            build=Build(version, NO_PCRE),
        )
        refused = [why for _, why in refusals(tree, context, target)]
        if bool(refused) != refused_by_nginx or (nginx_said != TAKEN) != refused_by_nginx:
            wrong.append((context, text, f"nginx: {nginx_said}; tpgen: {refused[:1]}"))
    return wrong
