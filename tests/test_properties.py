"""Any valid spec renders a config real nginx accepts; any invalid one is a clean exit 2."""

from __future__ import annotations

import atexit
import contextlib
import io
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tpgen.check import check_plan
from tpgen.cli import main
from tpgen.errors import SpecError
from tpgen.plan import make_plan
from tpgen.plan.defaults import THREAD_BUDGET
from tpgen.spec.load import spec_from_mapping
from tpgen.spec.names_hash import names_failure

from .accepts import own_refusals, snippets_and_nginx
from .specs import spec

SIZES = ["64GiB", "500GB", "1TB", "4TB", "8TB", "16TB", "3.84TB", "960GB"]
# Places spec/paths.py lets a disk go, below the directories it must not hide.
MOUNT_ROOTS = ["/var/cache/nginx", "/var/lib/tpgen-disks", "/data", "/mnt", "/opt/cdn", "/home/cdn"]
# Files the log may be, and the groups the workers may run as (Debian's, present on any node).
LOG_PATHS = ["/var/log/nginx/access.log", "/var/log/edge/a.json", "/srv/logs/access.log"]
GROUPS = ["www-data", "adm", "nogroup"]
ERROR_LINE = re.compile(r"^\S+?(:\d+)?: [\w.()]+: \S.*$")


def _disks(draw: st.DrawFn, kind: str) -> list[dict[str, Any]]:
    count = draw(st.integers(1, 10))
    root = draw(st.sampled_from([f"/srv/{kind}", *MOUNT_ROOTS]))
    disks = []
    for index in range(count):
        item: dict[str, Any] = {
            "name": f"d{index}",
            "device": f"/dev/sd{chr(97 + index)}",
            "mount": f"{root}/d{index}",
            "size": draw(st.sampled_from(SIZES)),
            "media": draw(st.sampled_from(["hdd", "hdd", "ssd", "nvme"])),
            "state": draw(st.sampled_from(["active", "active", "draining", "failed"])),
            "filesystem": draw(st.sampled_from(["xfs", "ext4"])),
        }
        if draw(st.booleans()):
            item["weight"] = draw(st.floats(0.1, 10, allow_nan=False))
        if draw(st.integers(0, 5)) == 0:
            item["thread_pool"] = draw(st.booleans())
        disks.append(item)
    disks[draw(st.integers(0, count - 1))]["state"] = "active"
    return disks


@st.composite
def valid_specs(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["cache", "origin", "vod"]))
    disks = _disks(draw, kind)
    workload: dict[str, Any] = {"type": kind}
    if kind == "cache":
        workload["upstreams"] = draw(
            st.lists(
                st.sampled_from(["o1.example.net:80", "10.0.0.1:8080", "[2001:db8::1]:80"]),
                min_size=1,
                max_size=3,
                unique=True,
            )
        )
        if workload["upstreams"] == ["o1.example.net:80"] and draw(st.booleans()):
            workload["resolver"] = draw(
                st.lists(st.sampled_from(["192.0.2.53", "2001:db8::53"]), min_size=1, unique=True)
            )
        workload["avg_object_size"] = draw(st.sampled_from(["1MiB", "4MiB", "16MiB"]))
    data: dict[str, Any] = {
        "node": {
            "name": draw(st.from_regex(r"[a-z][a-z0-9-]{0,10}[a-z0-9]", fullmatch=True)),
            "cores": draw(st.integers(1, 64)),
            "memory": draw(st.sampled_from(["8GiB", "16GiB"])),
        },
        "workload": workload,
        "disks": disks,
        "listen": {"port": draw(st.integers(1, 60000))},
        "status": {"port": 65000},
    }
    tuning: dict[str, Any] = {}
    if draw(st.booleans()):
        tuning["buckets"] = draw(st.sampled_from([100, 1000, 2000]))
    if draw(st.booleans()):
        tuning["worker_processes"] = draw(st.sampled_from(["auto", 1, 4]))
    pools = sum(_gets_pool(kind, item) for item in disks)
    if pools and draw(st.booleans()):
        workers = tuning.get("worker_processes", "auto")
        workers = data["node"]["cores"] if workers == "auto" else workers
        tuning["threads_per_disk"] = draw(
            st.integers(1, min(64, THREAD_BUDGET // (workers * pools)))
        )
    if draw(st.integers(0, 3)) == 0:
        tuning["group"] = draw(st.sampled_from(GROUPS))
    if draw(st.integers(0, 3)) == 0:
        tuning["keepalive_timeout"] = draw(st.sampled_from(["0", "1s", "75", "1m30s500ms", "1h"]))
    if draw(st.integers(0, 3)) == 0:
        tuning["sendfile_max_chunk"] = draw(st.sampled_from(["4KiB", "2MiB", "1000KiB", "64MiB"]))
    if kind == "cache":
        _cache_keys(draw, workload)
    if kind == "vod" and draw(st.integers(0, 3)) == 0:
        tuning["output_buffers"] = draw(st.sampled_from(["4KiB", "1536KiB", "64MiB"]))
        tuning["directio"] = draw(st.sampled_from(["4KiB", "512KiB", "1TiB"]))
    if tuning:
        data["tuning"] = tuning
    return _extra(draw, _edge(draw, _issue13_sections(draw, data)))


def _cache_keys(draw: st.DrawFn, workload: dict[str, Any]) -> None:
    if draw(st.integers(0, 3)) == 0:
        workload["inactive"] = draw(st.sampled_from(["1m", "12h", "1y", "1M1w", 86400]))
    if draw(st.integers(0, 3)) == 0:
        workload["cache_key"] = draw(
            st.sampled_from(["$uri", "$host$request_uri", "$scheme://$http_host$uri$is_args$args"])
        )


# Snippets tpgen accepts in any node's config, per context, at made-up node paths; the check reads
# them from the test's copies (SNIPPET_ROOT + node path).
SNIPPETS = {
    "main": {"priority.conf": "worker_priority 0;\n", "env.conf": "pcre_jit on;\nenv TZ;\n"},
    "http": {
        "map.conf": 'map $http_origin $prop_cors {\n    default "";\n}\n',
        "hash.conf": "server_names_hash_bucket_size 128;\n",
    },
    "server": {
        "robots.conf": 'location = /prop-robots.txt { return 200 "no\\n"; }\n',
        "body.conf": "client_max_body_size 1m;\n",
    },
    "location": {"expires.conf": "expires 1h;\n", "header.conf": "add_header X-Prop $host;\n"},
}
SNIPPET_ROOT = Path(tempfile.mkdtemp(prefix="tpgen-prop-snippets-"))
atexit.register(shutil.rmtree, SNIPPET_ROOT, True)
for _context, _files in SNIPPETS.items():
    for _name, _text in _files.items():
        _path = SNIPPET_ROOT / "etc/nginx/prop" / _context / _name
        _path.parent.mkdir(parents=True, exist_ok=True)
        _path.write_text(_text)


def _snippet_copy(path: str) -> str:
    return str(SNIPPET_ROOT / path.lstrip("/"))


def _extra(draw: st.DrawFn, data: dict[str, Any]) -> dict[str, Any]:
    """A third of the time, some of the snippets in some of the four contexts."""
    if draw(st.integers(0, 2)):
        return data
    data["extra"] = {
        context: [
            f"/etc/nginx/prop/{context}/{name}"
            for name in draw(st.lists(st.sampled_from(sorted(files)), unique=True))
        ]
        for context, files in SNIPPETS.items()
    }
    return data


def _edge(draw: st.DrawFn, data: dict[str, Any]) -> dict[str, Any]:
    """Half the time, a list of listens on distinct ports (not 80: the redirect server's), some
    of them TLS with HTTP/2, and the certificates they need."""
    if draw(st.booleans()):
        return data
    ports = draw(st.lists(st.integers(81, 60000), min_size=1, max_size=3, unique=True))
    data["listen"] = []
    for port in ports:
        tls = draw(st.booleans())
        data["listen"].append(
            {
                # TEST-NET and documentation addresses: the node's, never the checking machine's.
                "address": draw(
                    st.sampled_from(
                        ["*", "0.0.0.0", "::", "127.0.0.1", "::1", "203.0.113.7", "2001:db8::7"]
                    )
                ),
                "port": port,
                "tls": tls,
                "http2": tls and draw(st.booleans()),
            }
        )
    if not any(listen["tls"] for listen in data["listen"]):
        return data
    certificates = [{"cert": "/etc/nginx/tls/a.crt", "key": "/etc/nginx/tls/a.key"}]
    if draw(st.booleans()):
        certificates.append(
            {
                "cert": "/etc/nginx/tls/b.crt",
                "key": "/etc/nginx/tls/a.key",
                "server_names": ["b.example"],
            }
        )
    data["tls"] = {"certificates": certificates, "redirect_http": draw(st.booleans())}
    # OCSP stapling with the one resolver; not where a resolver would then follow an origin
    # name next to others (refused) or an origin name with server parameters (refused).
    workload = data["workload"]
    names = [u for u in workload.get("upstreams", []) if u.startswith("o1.")]
    if draw(st.booleans()) and (workload.get("resolver") or not names):
        workload.setdefault("resolver", ["192.0.2.53"])
        data["tls"]["ocsp_stapling"] = "on"
        if draw(st.booleans()):
            data["tls"]["trusted_certificate"] = "/etc/nginx/tls/chain.pem"
    return data


def _issue13_sections(draw: st.DrawFn, data: dict[str, Any]) -> dict[str, Any]:
    """Issue 13's sections: the log; on a cache, slices, the policy, the origin's failover."""
    if draw(st.integers(0, 3)) == 0:
        data["logging"] = {
            "format": draw(st.sampled_from(["tpgen", "json", "combined"])),
            "buffer": draw(st.sampled_from(["4KiB", "1MiB", "16MiB"])),
            "path": draw(st.sampled_from(LOG_PATHS)),
        }
    if data["workload"]["type"] != "cache":
        return data
    workload = data["workload"]
    if draw(st.integers(0, 2)) == 0:
        workload["slice"] = draw(st.sampled_from(["auto", "off", "64KiB", "1MiB", "1GiB"]))
    if draw(st.booleans()):
        data["cache"] = {
            "valid": [
                {
                    "status": draw(st.sampled_from([[200, 206], ["any"], [206, 404]])),
                    "time": draw(st.sampled_from(["0", "1s", "365d"])),
                }
            ],
            "min_uses": draw(st.integers(1, 1000)),
            "lock_timeout": draw(st.sampled_from(["100ms", "1h"])),
            "use_stale": draw(st.sampled_from([[], ["error", "updating"]])),
            "ignore_headers": draw(st.sampled_from([[], ["Vary", "Set-Cookie"]])),
            "bypass": draw(st.sampled_from([{"header": "X-B"}, {"cookie": "nc"}])),
            "loader_files": draw(st.integers(1, 1_000_000)),
            "trusted_networks": draw(st.sampled_from([["10.0.0.0/8"], ["2001:db8::/32"]])),
        }
    if draw(st.booleans()) and not workload.get("resolver"):
        first = workload["upstreams"][0]
        data["origin"] = {
            "servers": {first: {"weight": draw(st.integers(1, 5)), "max_fails": 0}},
            "connect_timeout": draw(st.sampled_from(["100ms", "5s", "1h"])),
            "next_upstream": draw(st.sampled_from([[], ["error", "http_502"]])),
            "next_upstream_tries": draw(st.integers(1, 64)),
            "keepalive": draw(st.integers(1, 10_000)),
        }
        if draw(st.booleans()):
            data["origin"].update(tls=True, server_name="origin.example.net")
    return data


def _gets_pool(kind: str, disk: dict[str, Any]) -> bool:
    """docs/spec.md: active HDDs (and draining ones off cache nodes) unless thread_pool says."""
    readable = disk["state"] == "active" or (disk["state"] == "draining" and kind != "cache")
    return readable and disk.get("thread_pool", disk["media"] == "hdd")


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(valid_specs())
def test_valid_specs_render_configs_that_nginx_accepts(
    nginx_binary: str, data: dict[str, Any]
) -> None:
    try:
        spec = spec_from_mapping(data, "prop.yaml")
        plan = make_plan(spec, "prop.yaml")
    except SpecError as err:
        # The RAM budget for keys zones is the only plan-level refusal of a field-valid spec.
        assert "keys_zones need" in str(err), str(err)
        return
    config, found, result = snippets_and_nginx(spec, plan, _snippet_copy, nginx_binary)
    assert found == []
    assert result.ok, result.output
    # What nginx takes, tpgen's own reading of nginx (spec/directives.py) takes too.
    assert own_refusals(config, spec.nginx.version) == []


CORRUPTIONS = [
    ("node", "cores", -1),
    ("node", "memory", "lots"),
    ("node", "name", "Node One"),
    ("node", "frobnicate", 1),
    ("workload", "type", "proxy"),
    ("workload", "upstreams", ["no-port"]),
    ("workload", "avg_object_size", "1 furlong"),
    ("disks", 0, {"name": "x; }"}),
    ("disks", 0, {"size": -3}),
    ("disks", 0, {"media": "floppy"}),
    ("disks", 0, {"mount": "relative/path"}),
    ("disks", 0, {"device": "/dev/sdb $x"}),
    ("disks", 0, {"state": "broken"}),
    ("disks", 0, {"weight": 0}),
    ("disks", 0, {"weight": float("nan")}),
    ("disks", 0, {"device": "/dev/sdz/../sda"}),
    ("disks", 0, {"name": "default"}),
    ("node", "cores", True),
    ("node", "memory", 10**400),
    ("workload", "cache_key", "$host"),
    ("workload", "inactive", "1m1h"),
    ("tuning", "sendfile_max_chunk", 0),
    ("tuning", "keepalive_timeout", "1y"),
    ("tuning", "directio", 0),
    ("listen", "port", 70000),
    ("status", "address", "10.0.0.1"),
    ("tuning", "buckets", 333),
    ("tuning", "unknown_knob", 3),
    ("top", "extras", {"a": 1}),
    ("extra", "http", ["/etc/nginx/x.conf; user root"]),
    ("extra", "location", ["/etc/a.conf", "/etc/a.conf"]),
    ("extra", "server", "/etc/a.conf"),
    ("workload", "slice", "65000"),
    ("workload", "slice", "32KiB"),
    ("cache", "valid", [{"status": [299], "time": "1m"}]),
    ("cache", "lock_timeout", "-5s"),
    ("cache", "use_stale", ["sometimes"]),
    ("origin", "connect_timeout", "-1s"),
    ("logging", "format", "xml"),
]


@settings(max_examples=60, deadline=None)
@given(valid_specs(), st.lists(st.sampled_from(CORRUPTIONS), min_size=1, max_size=3))
def test_invalid_specs_exit_2_with_field_paths_and_no_traceback(
    data: dict[str, Any], corruptions: list[tuple[str, Any, Any]]
) -> None:
    for section, key, value in corruptions:
        if section == "top":
            data[key] = value
        elif section == "disks":
            data["disks"][0].update(value)
        elif isinstance(data.get(section), list):  # listen as a list: its first item
            data[section][0][key] = value
        else:
            data.setdefault(section, {})[key] = value
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "spec.yaml"
        path.write_text(yaml.safe_dump(data))
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["render", "--no-check", str(path), "-o", str(Path(tmp) / "out.conf")])
        assert code == 2, err.getvalue()
        assert not (Path(tmp) / "out.conf").exists()
    lines = err.getvalue().splitlines()
    assert lines and "Traceback" not in err.getvalue()
    for line in lines:
        assert ERROR_LINE.match(line), line


LONG_NAME = f"{'a' * 63}.{'b' * 63}.{'c' * 63}.{'d' * 61}"  # 253 characters, the most DNS takes


@pytest.mark.parametrize(
    ("name", "bucket"),
    [
        (f"{'a' * 34}.example.net", None),  # 46 characters: nginx's 64-byte default holds it
        (f"{'a' * 35}.example.net", 128),
        (f"*.{'a' * 63}.example.net", 128),  # a wildcard's label is a key of its own
        (f"{'a' * 63}.{'b' * 46}", 128),
        (f"{'a' * 63}.{'b' * 47}", 256),
        (LONG_NAME, 512),
        (f"*.{LONG_NAME[2:]}", 128),  # its labels: 63 characters at most
    ],
    ids=["46", "47", "wildcard-label-63", "110", "111", "253", "wildcard-253"],
)
def test_any_server_name_the_spec_takes_fits_nginx_s_hash(
    nginx_binary: str, name: str, bucket: int | None
) -> None:
    """A server name of 47 characters or more made nginx -t refuse the config validate took
    ("could not build server_names_hash, you should increase server_names_hash_bucket_size")."""
    certificates = [
        {"cert": "/etc/nginx/tls/a.crt", "key": "/etc/nginx/tls/a.key"},
        {"cert": "/etc/nginx/tls/b.crt", "key": "/etc/nginx/tls/b.key", "server_names": [name]},
    ]
    data = spec(
        listen=[{"address": "*", "port": 443, "tls": True}], tls={"certificates": certificates}
    )
    plan = make_plan(spec_from_mapping(data, "names.yaml"), "names.yaml")
    written = plan.server_names_hash_bucket_size
    assert (written.value if written else None) == bucket
    result = check_plan(plan, nginx=nginx_binary)
    assert result.ok, result.output


def test_the_most_names_a_spec_gives_an_address_fit_tpgen_s_bucket_and_nginx_s_max_size(
    nginx_binary: str,
) -> None:
    """All of tpgen's content servers share its listens, so nginx hashes their names together:
    16 certificates of 64 names of 253 characters (wildcards among them) fit the bucket the
    plan sets and nginx's default server_names_hash_max_size, 512."""
    certificates = [
        {
            "cert": f"/etc/nginx/tls/{index}.crt",
            "key": f"/etc/nginx/tls/{index}.key",
            "server_names": [
                f"*.{index:02}{name:02}{LONG_NAME[6:]}"
                if name % 2
                else f"{index:02}{name:02}{LONG_NAME[4:]}"
                for name in range(64)
            ],
        }
        for index in range(16)
    ]
    data = spec(
        listen=[{"address": "*", "port": 443, "tls": True}], tls={"certificates": certificates}
    )
    plan = make_plan(spec_from_mapping(data, "names.yaml"), "names.yaml")
    names = [name for server in plan.servers for name in server.names]
    assert len(set(names)) == 16 * 64
    bucket = plan.server_names_hash_bucket_size
    assert bucket is not None
    assert names_failure(names, bucket.value, 512) is None
    result = check_plan(plan, nginx=nginx_binary)
    assert result.ok, result.output
