"""Values a spec may hold: whatever validate accepts, real nginx and a real node accept too.

Each class of hostile or careless value has its refusals (exact messages) and its accepted
forms, which go through the real `nginx -t`.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from tpgen.check import check_plan
from tpgen.errors import SpecError
from tpgen.plan import Plan, make_plan
from tpgen.plan.defaults import NR_OPEN, THREAD_BUDGET
from tpgen.render import render_config
from tpgen.spec.load import load_spec_text, spec_from_mapping
from tpgen.spec.model import (
    CACHE_KEY_PREFIXES,
    CACHE_KEY_VARIABLES,
    RESERVED_DISK_NAMES,
    CachePolicy,
    Origin,
    Tuning,
    Workload,
)
from tpgen.spec.units import parse_size
from tpgen.spec.validate import SCOPES

from .specs import disk, spec

ALLOWED = (
    "$scheme, $https, $host, $server_name, $server_addr, $server_port, $server_protocol, "
    "$request_method, $request_uri, $uri, $args, $query_string, $is_args, $arg_NAME, "
    "$http_NAME, $cookie_NAME"
)
_ONE_NAME = (
    " (nginx reads $%s as one name: a letter, digit or _ right after $%s continues it; put "
    "another character between them)"
)


def plan_of(data: dict[str, Any]) -> Plan:
    return make_plan(spec_from_mapping(data, "t.yaml"), "t.yaml")


def refusal(data: dict[str, Any]) -> list[str]:
    with pytest.raises(SpecError) as caught:
        plan_of(data)
    return str(caught.value).splitlines()


def assert_nginx_accepts(plan: Plan, nginx: str) -> None:
    result = check_plan(plan, nginx=nginx)
    assert result.ok, result.output


# ----------------------------------------------------------------------------- 1. cache_key


@pytest.mark.parametrize(
    "key", ["$uri$http_X_Forwarded_Proto", "$Scheme$Host$Request_Uri", "$uri$arg_1"]
)
def test_cache_key_variables_are_read_as_nginx_reads_them(nginx_binary: str, key: str) -> None:
    """nginx takes a name's letters in either case and lowers it (ngx_http_get_variable_index):
    each of these keys passes nginx -t, so validate takes it too."""
    assert_nginx_accepts(plan_of(spec(workload={"cache_key": key})), nginx_binary)


@pytest.mark.parametrize(
    ("key", "message"),
    [
        (
            "$tpgen_disk",
            "$tpgen_disk is tpgen's own variable, chosen by the cache key itself: build the key "
            f"from request variables ({ALLOWED})",
        ),
        (
            "$tpgen_root$uri",
            "$tpgen_root is tpgen's own variable, chosen by the cache key itself: build the key "
            f"from request variables ({ALLOWED})",
        ),
        (
            "$host",
            "'$host' has neither $request_uri nor $uri, so every URL would share one cached "
            "object: write e.g. $scheme$host$request_uri",
        ),
        (
            "$scheme$host$args",
            "'$scheme$host$args' has neither $request_uri nor $uri, so every URL would share one "
            "cached object: write e.g. $scheme$host$request_uri",
        ),
        (
            "static-key",
            "'static-key' has neither $request_uri nor $uri, so every URL would share one cached "
            "object: write e.g. $scheme$host$request_uri",
        ),
        ("$host$request_uri$foo", f"$foo cannot be used in a cache key: use {ALLOWED}"),
        (
            "$urix",
            f"$urix cannot be used in a cache key{_ONE_NAME % ('urix', 'uri')}: use {ALLOWED}",
        ),
        (
            "$request_uriX",
            "$request_uriX cannot be used in a cache key"
            + _ONE_NAME % ("request_uriX", "request_uri")
            + f": use {ALLOWED}",
        ),
        (
            "$uri$is_args9",
            f"$is_args9 cannot be used in a cache key{_ONE_NAME % ('is_args9', 'is_args')}"
            f": use {ALLOWED}",
        ),
        ("$uri$http_", f"$http_ cannot be used in a cache key: use {ALLOWED}"),
        ("$uri$remote_addr", f"$remote_addr cannot be used in a cache key: use {ALLOWED}"),
        (
            "$uri$upstream_cache_status",
            f"$upstream_cache_status cannot be used in a cache key: use {ALLOWED}",
        ),
    ],
)
def test_cache_keys_without_the_uri_or_with_unknown_variables_are_refused(
    key: str, message: str
) -> None:
    assert refusal(spec(workload={"cache_key": key})) == [f"t.yaml: workload.cache_key: {message}"]


KEY_VARIABLES = [*CACHE_KEY_VARIABLES, *(f"{prefix}x_y1" for prefix in CACHE_KEY_PREFIXES)]


@pytest.mark.parametrize("variable", KEY_VARIABLES)
def test_every_allowed_cache_key_variable_passes_nginx(nginx_binary: str, variable: str) -> None:
    uri = "uri" if variable == "request_uri" else "request_uri"
    key = f"${variable}:${uri}"
    plan = plan_of(spec(workload={"cache_key": key}))
    assert plan.split_key.value == key
    assert_nginx_accepts(plan, nginx_binary)


# ----------------------------------------------------------------------------- 2. disk names


@pytest.mark.parametrize("name", RESERVED_DISK_NAMES)
def test_map_keywords_are_refused_as_disk_names(name: str) -> None:
    data = spec("origin")
    data["disks"][1]["name"] = name
    assert refusal(data) == [
        f"t.yaml: disks.1.name: {name!r} is a keyword of nginx's map block, where disk names are "
        "keys (default, hostnames, include, volatile are reserved): pick another name, e.g. "
        f"{name}1"
    ]


def test_names_near_keywords_and_the_longest_names_pass_nginx(nginx_binary: str) -> None:
    # 256 disks of 32-character names fill nginx's map hash; mixed media build both maps.
    names = ["defaults", "include1", "hostnames_", "volatile9"]
    names += [f"d{i:03d}_{'x' * 27}" for i in range(len(names), 256)]
    data = spec("origin", disks=0, node={"cores": 1, "memory": "64GiB"})
    data["disks"] = [
        disk(i, name=name, device=f"/dev/disk{i}", mount=f"/srv/d{i}", media=["hdd", "ssd"][i % 2])
        for i, name in enumerate(names)
    ]
    data["disks"][0]["state"] = "draining"  # the drain locations name the disk too
    plan = plan_of(data)
    assert plan.mixed_pools and max(len(d.name) for d in plan.disks) == 32
    assert_nginx_accepts(plan, nginx_binary)


def test_longest_names_make_pool_and_zone_names_nginx_accepts(nginx_binary: str) -> None:
    data = spec(workload={"avg_object_size": "1GiB"})
    for index, item in enumerate(data["disks"]):
        item["name"] = f"{'abcdefghij' * 3}_{index}"
    plan = plan_of(data)
    assert {len(d.name) for d in plan.disks} == {32}
    assert len({d.thread_pool.name for d in plan.disks if d.thread_pool}) == 3
    assert_nginx_accepts(plan, nginx_binary)


# ----------------------------------------------------------------------------- 3. durations


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (
            ("workload", "inactive"),
            "1m1h",
            "'1m1h' is not an nginx duration: units go from the largest to the smallest, each at "
            "most once (y M w d h m s), e.g. 12h, 7d, 1h30m",
        ),
        (
            ("workload", "inactive"),
            "1d1d",
            "'1d1d' is not an nginx duration: units go from the largest to the smallest, each at "
            "most once (y M w d h m s), e.g. 12h, 7d, 1h30m",
        ),
        (
            ("workload", "inactive"),
            "500ms",
            "'500ms': nginx reads this directive in whole seconds and does not take 'ms' there: "
            "write e.g. 1s",
        ),
        (("workload", "inactive"), "0", "'0' is outside 1m … 365d"),
        (("workload", "inactive"), 59, "'59s' is outside 1m … 365d"),
        (("workload", "inactive"), "1y1s", "'1y1s' is outside 1m … 365d"),
        (("workload", "inactive"), "13M", "'13M' is outside 1m … 365d"),
        (
            ("workload", "inactive"),
            "7 d",
            "'7 d' is not an nginx duration: write a number and a unit (y M w d h m s), e.g. "
            "12h, 7d, 1h30m",
        ),
        (
            ("workload", "inactive"),
            True,
            "a duration is text like 10m, 12h or 7d, or whole seconds",
        ),
        (
            ("tuning", "keepalive_timeout"),
            "1y",
            "'1y': nginx reads this directive in milliseconds and does not take 'y' there: "
            "write days, e.g. 30d",
        ),
        (
            ("tuning", "keepalive_timeout"),
            "1M",
            "'1M': nginx reads this directive in milliseconds and does not take 'M' there: "
            "write days, e.g. 30d",
        ),
        (
            ("tuning", "keepalive_timeout"),
            "500ms",
            "'500ms' is outside 1s … 1h (or 0 to turn it off)",
        ),
        (
            ("tuning", "keepalive_timeout"),
            "1h1s",
            "'1h1s' is outside 1s … 1h (or 0 to turn it off)",
        ),
        (
            ("tuning", "keepalive_timeout"),
            "30s1m",
            "'30s1m' is not an nginx duration: units go from the largest to the smallest, each "
            "at most once (w d h m s ms), e.g. 1h30m, 500ms",
        ),
    ],
)
def test_durations_nginx_refuses_or_that_are_absurd_are_refused(
    field: tuple[str, str], value: object, message: str
) -> None:
    section, key = field
    data = spec(**{section: {key: value}})
    assert refusal(data) == [f"t.yaml: {section}.{key}: {message}"]


@pytest.mark.parametrize(
    ("inactive", "keepalive"),
    [
        ("1y", "0"),
        ("12M", 0),
        ("1M1w1d1h1m1s", "1h"),
        ("2w", "1m30s500ms"),
        ("1m", "1s"),
        (86400, 75),
        ("365d", "59m59s999ms"),
    ],
)
def test_every_accepted_duration_form_passes_nginx(
    nginx_binary: str, inactive: object, keepalive: object
) -> None:
    plan = plan_of(spec(workload={"inactive": inactive}, tuning={"keepalive_timeout": keepalive}))
    assert plan.disks[0].cache is not None
    assert plan.disks[0].cache.inactive.value == str(inactive)
    assert plan.keepalive_timeout.value == str(keepalive)
    assert_nginx_accepts(plan, nginx_binary)


# ----------------------------------------------------------------------------- 4. sizes

RANGE = "write a size in that range (k = 1000, KiB = 1024)"
NOT_A_SIZE = "is not a size: write whole bytes or a number with a unit, like 4TB or 1MiB"


@pytest.mark.parametrize(
    ("kind", "path", "value", "message"),
    [
        ("cache", ("tuning", "sendfile_max_chunk"), 0, f"0 bytes is outside 4KiB … 64MiB: {RANGE}"),
        (
            "cache",
            ("tuning", "sendfile_max_chunk"),
            "1GiB",
            f"1,073,741,824 bytes is outside 4KiB … 64MiB: {RANGE}",
        ),
        (
            "cache",
            ("tuning", "sendfile_max_chunk"),
            "1MB",
            "1,000,000 bytes is not a whole number of KiB, and nginx takes this size in k or m: "
            "write e.g. 512KiB or 1MiB",
        ),
        ("vod", ("tuning", "output_buffers"), 0, f"0 bytes is outside 4KiB … 64MiB: {RANGE}"),
        (
            "vod",
            ("tuning", "output_buffers"),
            "100GB",
            f"100,000,000,000 bytes is outside 4KiB … 64MiB: {RANGE}",
        ),
        ("vod", ("tuning", "directio"), 0, f"0 bytes is outside 4KiB … 1TiB: {RANGE}"),
        (
            "vod",
            ("tuning", "directio"),
            "2TiB",
            f"2,199,023,255,552 bytes is outside 4KiB … 1TiB: {RANGE}",
        ),
        (
            "cache",
            ("node", "memory"),
            "65TiB",
            f"71,468,255,805,440 bytes is outside 256MiB … 64TiB: {RANGE}",
        ),
        (
            "cache",
            ("node", "memory"),
            "255MiB",
            f"267,386,880 bytes is outside 256MiB … 64TiB: {RANGE}",
        ),
        (
            "cache",
            ("node", "memory"),
            10**400,
            "this number is larger than any disk or file nginx can address (8 EiB)",
        ),
        (
            "cache",
            ("node", "memory"),
            "9" * 5000,
            "'99999999999999999999'… is not a size: write a number with a unit, like 4TB, "
            "48GiB, 1MiB",
        ),
        ("cache", ("node", "memory"), float("inf"), f"inf {NOT_A_SIZE}"),
        ("cache", ("node", "memory"), float("nan"), f"nan {NOT_A_SIZE}"),
        ("cache", ("node", "memory"), 4.5e10, f"45000000000.0 {NOT_A_SIZE}"),
        ("cache", ("node", "memory"), -1, "a size cannot be negative"),
        (
            "cache",
            ("workload", "avg_object_size"),
            100,
            f"100 bytes is outside 512B … 1TiB: {RANGE}",
        ),
        (
            "cache",
            ("workload", "avg_object_size"),
            "512.5",
            "'512.5' is 512.5 bytes, and a size is whole bytes: write 512 or 513",
        ),
        (
            "cache",
            ("node", "memory"),
            "0.1GiB",
            "'0.1GiB' is 107374182.4 bytes, and a size is whole bytes: write 107374182 or "
            "107374183, or a unit smaller than GiB",
        ),
    ],
)
def test_zero_huge_and_non_finite_sizes_are_refused(
    kind: str, path: tuple[str, str], value: object, message: str
) -> None:
    section, key = path
    assert refusal(spec(kind, **{section: {key: value}})) == [f"t.yaml: {section}.{key}: {message}"]


@pytest.mark.parametrize(
    ("size", "message"),
    [
        ("63MiB", f"66,060,288 bytes is outside 64MiB … 1PiB: {RANGE}"),
        ("1.5PiB", f"1,688,849,860,263,936 bytes is outside 64MiB … 1PiB: {RANGE}"),
        (2**63, "9223372036854775808 is larger than any disk or file nginx can address (8 EiB)"),
        ("4.0e12", "'4.0e12' is not a size: write a number with a unit, like 4TB, 48GiB, 1MiB"),
    ],
)
def test_disk_sizes_outside_a_real_disk_are_refused(size: object, message: str) -> None:
    data = spec()
    data["disks"][2]["size"] = size
    assert refusal(data) == [f"t.yaml: disks.2.size: {message}"]


@pytest.mark.parametrize(
    "tuning",
    [
        {"sendfile_max_chunk": "4KiB", "output_buffers": "4KiB", "directio": "4KiB"},
        {"sendfile_max_chunk": "64MiB", "output_buffers": "64MiB", "directio": "1TiB"},
        {"sendfile_max_chunk": "1000KiB", "output_buffers": "1536KiB", "directio": "1023MiB"},
    ],
)
def test_size_bounds_render_sizes_nginx_accepts(nginx_binary: str, tuning: dict[str, str]) -> None:
    plan = plan_of(spec("vod", tuning=tuning))
    assert_nginx_accepts(plan, nginx_binary)


def test_the_largest_node_and_disk_pass_nginx(nginx_binary: str) -> None:
    data = spec(node={"memory": "64TiB"}, workload={"avg_object_size": "1TiB"}, disks=1)
    data["disks"][0]["size"] = "1PiB"
    plan = plan_of(data)
    assert " max_size=966367641m " in render_config(plan)  # 90 % of 1 PiB
    assert_nginx_accepts(plan, nginx_binary)


# ----------------------------------------------------------------------------- 5. device paths


@pytest.mark.parametrize(
    ("device", "message"),
    [
        (
            "/dev/loop1/../loop2",
            "'/dev/loop1/../loop2' is not a canonical device path (no . or .. parts, no // or "
            "trailing /): write '/dev/loop2'",
        ),
        (
            "/dev/mapper/./vg-a",
            "'/dev/mapper/./vg-a' is not a canonical device path (no . or .. parts, no // or "
            "trailing /): write '/dev/mapper/vg-a'",
        ),
        (
            "/dev/mapper//vg-a",
            "'/dev/mapper//vg-a' is not a canonical device path (no . or .. parts, no // or "
            "trailing /): write '/dev/mapper/vg-a'",
        ),
        (
            "/dev/loop2/",
            "'/dev/loop2/' is not a canonical device path (no . or .. parts, no // or trailing "
            "/): write '/dev/loop2'",
        ),
        (
            "/dev/loop2/../../etc/passwd",
            "'/dev/loop2/../../etc/passwd' is not a canonical device path (no . or .. parts, no "
            "// or trailing /): it must name a device under /dev/",
        ),
    ],
)
def test_device_paths_must_be_canonical_so_duplicates_cannot_hide(
    device: str, message: str
) -> None:
    data = spec()
    data["disks"][1]["device"] = device
    assert refusal(data) == [f"t.yaml: disks.1.device: {message}"]


@pytest.mark.parametrize("mount", ["/srv/cache/d1/", "/srv//cache/d1", "/srv/cache/./d1"])
def test_mount_paths_must_be_canonical_too(mount: str) -> None:
    data = spec()
    data["disks"][1]["mount"] = mount
    (line,) = refusal(data)
    assert line.startswith("t.yaml: disks.1.mount: "), line


# ----------------------------------------------------------------------------- 6. types


@pytest.mark.parametrize(
    ("section", "key", "value", "message"),
    [
        ("node", "cores", True, "true is a boolean, not a whole number: write e.g. 4"),
        ("node", "cores", "4", "'4' is not a whole number: write e.g. 4"),
        ("node", "cores", 4.0, "4.0 is not a whole number: write e.g. 4"),
        ("listen", "port", "80", "'80' is not a whole number: write e.g. 4"),
        ("tuning", "buckets", 1000.0, "1000.0 is not a whole number: write e.g. 4"),
        (
            "tuning",
            "threads_per_disk",
            False,
            "false is a boolean, not a whole number: write e.g. 4",
        ),
        ("tuning", "worker_connections", "4096", "'4096' is not a whole number: write e.g. 4"),
        (
            "tuning",
            "worker_processes",
            "4",
            "'4' is neither a whole number nor auto: write e.g. 24",
        ),
        (
            "tuning",
            "headroom_percent",
            float("nan"),
            "nan is not a finite number: write e.g. 10 or 2.5",
        ),
        ("tuning", "min_free_percent", "5", "'5' is not a number: write e.g. 10 or 2.5"),
        (
            "tuning",
            "keys_zone_ram_percent",
            10**400,
            "10000000000000000000… is not a finite number: write e.g. 10 or 2.5",
        ),
        ("tuning", "headroom_percent", True, "true is not a number: write e.g. 10 or 2.5"),
    ],
)
def test_numbers_are_strict_no_booleans_text_or_non_finite(
    section: str, key: str, value: object, message: str
) -> None:
    assert refusal(spec(**{section: {key: value}})) == [f"t.yaml: {section}.{key}: {message}"]


WEIGHT_RULE = "a weight must be a finite number from 0.000001 to 1000000, e.g. 1.5"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("weight", float("nan"), f"nan: {WEIGHT_RULE}"),
        ("weight", float("inf"), f"inf: {WEIGHT_RULE}"),
        ("weight", 0, f"0: {WEIGHT_RULE}"),
        ("weight", -2.5, f"-2.5: {WEIGHT_RULE}"),
        ("weight", True, f"true: {WEIGHT_RULE}"),
        ("weight", "2", f"'2': {WEIGHT_RULE}"),
        ("weight", 5e-324, f"5e-324: {WEIGHT_RULE}"),  # a quota the bucket map divides by
        ("weight", 2e6, "2000000.0 is too large: write 1000000 or less"),
        ("thread_pool", "yes", "'yes' is not a boolean: write true or false"),
        ("thread_pool", 1, "1 is not a boolean: write true or false"),
    ],
)
def test_disk_weights_and_switches_are_strict(field: str, value: object, message: str) -> None:
    data = spec()
    data["disks"][0][field] = value
    assert refusal(data) == [f"t.yaml: disks.0.{field}: {message}"]


def test_yaml_nan_weight_and_boolean_cores_name_the_line() -> None:
    text = (
        "node: {name: n1, cores: true, memory: 8GiB}\n"
        "workload: {type: origin}\n"
        "disks:\n"
        "  - {name: d1, device: /dev/sdb, mount: /srv/d1, size: 1TB, media: hdd, weight: .nan}\n"
    )
    with pytest.raises(SpecError) as caught:
        load_spec_text(text, "spec.yaml")
    assert str(caught.value).splitlines() == [
        "spec.yaml:1: node.cores: true is a boolean, not a whole number: write e.g. 4",
        f"spec.yaml:4: disks.0.weight: nan: {WEIGHT_RULE}",
    ]


# ----------------------------------------------------------------------------- 7. applicability

# A value each optional key accepts, for the table-driven tests below.
SAMPLES: dict[tuple[str | int, ...], object] = {
    ("workload", "upstreams"): ["o.example.net:80"],
    ("workload", "cache_key"): "$host$uri",
    ("workload", "inactive"): "1d",
    ("tuning", "user"): "nginx",
    ("tuning", "group"): "nginx",
    ("tuning", "worker_processes"): 2,
    ("tuning", "worker_connections"): 1024,
    ("tuning", "worker_rlimit_nofile"): 100_000,
    ("tuning", "sendfile_max_chunk"): "1MiB",
    ("tuning", "keepalive_timeout"): "30s",
    ("tuning", "buckets"): 100,
    ("tuning", "threads_per_disk"): 4,
    ("tuning", "max_queue"): 1024,
    ("tuning", "headroom_percent"): 5,
    ("tuning", "min_free_percent"): 2,
    ("tuning", "keys_zone_ram_percent"): 30,
    ("tuning", "directio"): "8MiB",
    ("tuning", "output_buffers"): "2MiB",
    ("tuning", "open_file_cache_max"): 1000,
    ("workload", "slice"): "2MiB",
    ("cache", "valid"): [{"status": [200, 206], "time": "1h"}],
    ("cache", "min_uses"): 2,
    ("cache", "lock"): False,
    ("cache", "lock_timeout"): "10s",
    ("cache", "lock_age"): "500ms",
    ("cache", "use_stale"): ["error"],
    ("cache", "ignore_headers"): ["Vary"],
    ("cache", "bypass"): {"cookie": "nocache"},
    ("cache", "revalidate"): False,
    ("cache", "background_update"): False,
    ("cache", "loader_files"): 5000,
    ("cache", "manager_files"): 500,
    ("cache", "loader_threshold"): "300ms",
    ("cache", "debug_headers"): True,
    ("cache", "trusted_networks"): ["10.0.0.0/8"],
    ("origin", "servers"): {"origin.example.net:8080": {"weight": 2}},
    ("origin", "max_fails"): 3,
    ("origin", "fail_timeout"): "30s",
    ("origin", "connect_timeout"): "2s",
    ("origin", "send_timeout"): "30s",
    ("origin", "read_timeout"): "30s",
    ("origin", "next_upstream"): ["error"],
    ("origin", "next_upstream_tries"): 2,
    ("origin", "next_upstream_timeout"): "4s",
    ("origin", "keepalive"): 16,
    ("origin", "tls"): True,
    ("origin", "ca_file"): "/etc/ssl/certs/ca-certificates.crt",
    ("origin", "server_name"): "origin.example.net",
}


def test_every_optional_key_has_a_scope() -> None:
    optional = {("tuning", name) for name in Tuning.model_fields}
    optional |= {
        ("workload", name)
        # resolver applies by a rule of its own (a host-name origin, or OCSP stapling):
        # tests/test_addresses.py and tests/test_ocsp.py
        for name in Workload.model_fields
        if name not in {"type", "avg_object_size", "resolver"}
    }
    optional |= {("cache", name) for name in CachePolicy.model_fields}
    optional |= {("origin", name) for name in Origin.model_fields}
    assert set(SCOPES) == optional == set(SAMPLES)


# Keys that take effect only with another: set together (origin.tls alone applies anywhere it
# applies, so the scope test stays about the key itself).
NEEDS = {("origin", "ca_file"): ("tls", True), ("origin", "server_name"): ("tls", True)}


def _with(data: dict[str, Any], path: tuple[str | int, ...]) -> dict[str, Any]:
    section, key = path
    data.setdefault(str(section), {})[str(key)] = SAMPLES[path]
    if path in NEEDS and data["workload"]["type"] == "cache":
        other, value = NEEDS[path]
        data[str(section)][other] = value
    return data


@pytest.mark.parametrize("kind", ["cache", "origin", "vod"])
@pytest.mark.parametrize("path", list(SCOPES), ids=lambda p: ".".join(map(str, p)))
def test_keys_apply_only_where_the_table_says(kind: str, path: tuple[str | int, ...]) -> None:
    data = _with(spec(kind), path)
    scope = SCOPES[path]
    if kind in scope.workloads:
        plan_of(data)
        return
    users = " and ".join(scope.workloads)
    verb = "uses" if len(scope.workloads) == 1 else "use"
    article = "an" if kind == "origin" else "a"
    expected = (
        f"t.yaml: {'.'.join(map(str, path))}: has no effect on {article} {kind} node "
        f"(only {users} {verb} it): remove it"
    )
    assert expected in refusal(data)


@pytest.mark.parametrize("key", ["threads_per_disk", "max_queue"])
def test_pool_keys_are_refused_when_no_disk_gets_a_pool(key: str) -> None:
    data = spec("origin", tuning={key: SAMPLES[("tuning", key)]})
    data["disks"] = [disk(1, media="ssd"), disk(2, media="hdd", thread_pool=False)]
    data["disks"].append(disk(3, media="hdd", state="failed"))
    assert refusal(data) == [
        f"t.yaml: tuning.{key}: has no effect: no disk gets a thread pool (active HDDs do; an ssd "
        "or nvme disk needs thread_pool: true): remove it"
    ]
    data["disks"][0]["thread_pool"] = True
    assert plan_of(data).pooled_disks[0].name == "d1"


def test_cache_draining_hdd_has_no_pool_so_pool_keys_do_not_apply() -> None:
    data = spec("cache", disks=2, tuning={"max_queue": 100})
    data["disks"][0]["media"] = "nvme"
    data["disks"][1]["state"] = "draining"
    assert refusal(data) == [
        "t.yaml: tuning.max_queue: has no effect: no disk gets a thread pool (active HDDs do; an "
        "ssd or nvme disk needs thread_pool: true): remove it"
    ]


# ----------------------------------------------------------------------------- 8. node limits


def test_the_thread_budget_wins_over_any_floor() -> None:
    plan = plan_of(spec("origin", disks=64, node={"cores": 64, "memory": "1TiB"}))
    pools = plan.pooled_disks
    assert len(pools) == 64
    threads = pools[0].thread_pool.threads.value if pools[0].thread_pool else 0
    assert threads == 2 and threads * 64 * 64 == THREAD_BUDGET


def test_workers_set_past_one_thread_a_pool_are_refused_with_the_fix() -> None:
    data = spec("origin", disks=256, node={"cores": 1024, "memory": "4TiB"})
    data["tuning"] = {"worker_processes": "auto"}
    assert refusal(data) == [
        "t.yaml: tuning.worker_processes: 1024 workers × 256 thread pools need 262,144 threads "
        "even at 1 thread a pool, above the node's budget of 8,192: set tuning.worker_processes "
        "to at most 32, or thread_pool: false on some disks"
    ]
    # The plan's own count is that fix.
    del data["tuning"]
    plan = plan_of(data)
    assert plan.worker_processes.value == 32
    assert plan.pooled_disks[0].thread_pool is not None
    assert plan.pooled_disks[0].thread_pool.threads.value == 1


def test_a_threads_override_over_the_budget_is_refused_with_the_fix() -> None:
    data = spec("vod", disks=16, node={"cores": 64, "memory": "256GiB"})
    data["tuning"] = {"threads_per_disk": 32}
    assert refusal(data) == [
        "t.yaml: tuning.threads_per_disk: 32 threads × 16 pools × 64 workers = 32,768 threads, "
        "above the node's budget of 8,192: lower threads_per_disk to at most 8"
    ]
    data["tuning"] = {"threads_per_disk": 8}
    assert plan_of(data).pooled_disks[0].thread_pool is not None


@pytest.mark.parametrize(
    ("kind", "tuning", "message"),
    [
        (
            "cache",
            {"worker_rlimit_nofile": 2_000_000},
            "tuning.worker_rlimit_nofile: 2,000,000 is above the kernel's fs.nr_open (1,048,576): "
            "nginx cannot raise its open-file limit that far; lower it to at most 1,048,576",
        ),
        (
            "cache",
            {"worker_connections": 600_000},
            "tuning.worker_connections: needs worker_rlimit_nofile = 2 × 600,000 connections + "
            "64 (open_file_cache, logs, listeners) = 1,200,064, above the kernel's fs.nr_open "
            "(1,048,576): lower worker_connections to at most 524,256",
        ),
        (
            "origin",
            {"open_file_cache_max": 2_000_000},
            "tuning.open_file_cache_max: needs worker_rlimit_nofile = 2 × 8,192 connections + "
            "2,000,064 (open_file_cache, logs, listeners) = 2,016,448, above the kernel's "
            "fs.nr_open (1,048,576): lower open_file_cache_max to at most 1,032,128",
        ),
        (
            "vod",
            {"worker_connections": 400_000, "open_file_cache_max": 300_000},
            "tuning.worker_connections: needs worker_rlimit_nofile = 2 × 400,000 connections + "
            "300,064 (open_file_cache, logs, listeners) = 1,100,064, above the kernel's "
            "fs.nr_open (1,048,576): lower worker_connections to at most 374,256 or lower "
            "open_file_cache_max",
        ),
        (
            "cache",
            {"worker_connections": 100_000, "worker_rlimit_nofile": 150_000},
            "tuning.worker_rlimit_nofile: 150000 is below 2 × worker_connections = 200000: a "
            "proxied connection needs two descriptors; raise it or remove it",
        ),
    ],
)
def test_open_files_stay_within_the_kernels_nr_open(
    kind: str, tuning: dict[str, int], message: str
) -> None:
    data = spec(kind, node={"cores": 1, "memory": "64GiB"}, tuning=tuning)
    assert refusal(data) == [f"t.yaml: {message}"]


def test_the_largest_open_file_limit_passes_nginx(nginx_binary: str) -> None:
    plan = plan_of(
        spec(
            "origin",
            node={"cores": 1, "memory": "64GiB"},
            tuning={"worker_connections": 491_488, "open_file_cache_max": 65_536},
        )
    )
    assert plan.worker_rlimit_nofile.value == NR_OPEN
    assert_nginx_accepts(plan, nginx_binary)


def test_connection_slots_must_fit_the_nodes_memory() -> None:
    # The derived count never goes below 1,024 a worker: only this many workers can trip it.
    assert refusal(spec("origin", node={"cores": 510, "memory": "512MiB"})) == [
        "t.yaml: node.memory: 510 workers × 1,024 worker_connections allocate 255.0 MiB of "
        "connection slots at start (512 bytes each), above 25% of node.memory (128.0 MiB): set "
        "tuning.worker_connections to at most 514, or add memory"
    ]
    assert refusal(
        spec("origin", node={"cores": 510, "memory": "256MiB"}, tuning={"worker_connections": 512})
    ) == [
        "t.yaml: tuning.worker_connections: 510 workers × 512 worker_connections allocate "
        "127.5 MiB of connection slots at start (512 bytes each), above 25% of node.memory "
        "(64.0 MiB): set tuning.worker_connections to at most 257, or add memory"
    ]


def test_the_default_workers_stay_within_what_a_reload_can_spawn() -> None:
    """nginx's master keeps 1,024 children (NGX_MAX_PROCESSES); a reload runs two generations
    of workers, each with a cache manager and loader: 2 × 510 + 4."""
    plan = plan_of(spec("origin", node={"cores": 1024, "memory": "1TiB"}))
    assert plan.worker_processes.value == 510
    assert "so a reload can spawn them all at 510 workers" in plan.worker_processes.because


@pytest.mark.parametrize("tuning", [{"worker_processes": 511}, {"worker_processes": "auto"}])
def test_more_workers_than_a_reload_can_spawn_are_refused(tuning: dict[str, Any]) -> None:
    data = spec("origin", node={"cores": 511, "memory": "1TiB"}, tuning=tuning)
    assert refusal(data) == [
        "t.yaml: tuning.worker_processes: 511 workers: nginx keeps at most 1,024 processes, and "
        "a reload runs the old workers beside the new ones, each with a cache manager and "
        "loader; set at most 510"
    ]


@pytest.mark.parametrize(
    ("kind", "cores", "memory", "expected"),
    [
        ("origin", 32, "64GiB", 8192),  # a real node: the workload's default
        ("cache", 2, "64GiB", 16384),
        ("origin", 2, "256MiB", 5120),  # 2% of 256 MiB ÷ 2 workers ÷ 512 bytes, in 1024s
        ("origin", 12, "512MiB", 1024),
        ("origin", 12, "256MiB", 1024),  # the floor
        ("vod", 64, "256MiB", 1024),
    ],
)
def test_worker_connections_fit_a_small_share_of_memory(
    kind: str, cores: int, memory: str, expected: int
) -> None:
    workers = {"worker_processes": cores}  # the rule under test divides by the workers
    plan = plan_of(spec(kind, node={"cores": cores, "memory": memory}, tuning=workers))
    assert plan.worker_connections.value == expected
    slots = cores * expected * 512
    assert slots <= max(parse_size(memory) * 2 // 100, cores * 1024 * 512)
    assert plan.worker_rlimit_nofile.value >= 2 * expected


def test_an_overridden_worker_connections_is_kept_on_a_small_node() -> None:
    plan = plan_of(
        spec("origin", node={"cores": 12, "memory": "512MiB"}, tuning={"worker_connections": 4096})
    )
    assert plan.worker_connections.value == 4096
    assert plan.worker_connections.overridden


LIMIT_REFUSALS = (
    "above the node's budget of 8,192",
    "above the kernel's fs.nr_open (1,048,576)",
    "of connection slots at start",
    "is below 2 × worker_connections",
    "has no effect",
    "keys_zones need",
    "nginx keeps at most 1,024 processes",
)


@st.composite
def node_loads(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["cache", "origin", "vod"]))
    count = draw(st.integers(1, 256))
    media = draw(st.lists(st.sampled_from(["hdd", "ssd", "nvme"]), min_size=1, max_size=4))
    data = spec(kind, disks=0)
    data["node"] = {
        "name": "n1",
        "cores": draw(st.integers(1, 1024)),
        "memory": draw(st.sampled_from(["256MiB", "1GiB", "8GiB", "64GiB", "1TiB", "64TiB"])),
    }
    data["disks"] = [
        disk(i, device=f"/dev/disk{i}", media=media[i % len(media)], size="64GiB")
        for i in range(count)
    ]
    data["workload"]["avg_object_size"] = "1GiB" if kind == "cache" else None
    if kind != "cache":
        del data["workload"]["avg_object_size"]
    tuning: dict[str, Any] = {"buckets": 100}  # fewer buckets: 256 disks plan quickly
    optional = {
        "worker_processes": st.one_of(st.just("auto"), st.integers(1, 1024)),
        "threads_per_disk": st.integers(1, 512),
        "worker_connections": st.integers(16, 1_048_576),
        "worker_rlimit_nofile": st.integers(64, 2_000_000),
    }
    if kind != "cache":
        optional["open_file_cache_max"] = st.integers(1, 10_000_000)
    for key, values in optional.items():
        if draw(st.booleans()):
            tuning[key] = draw(values)
    data["tuning"] = tuning
    return data


@settings(max_examples=150, deadline=None)
@given(node_loads())
def test_every_plan_stays_within_the_nodes_limits(data: dict[str, Any]) -> None:
    try:
        plan = plan_of(data)
    except SpecError as err:
        lines = str(err).splitlines()
        assert all(any(known in line for known in LIMIT_REFUSALS) for line in lines), lines
        event("refused")
        return
    event("planned")
    workers = plan.worker_processes.value
    workers = data["node"]["cores"] if workers == "auto" else workers
    assert isinstance(workers, int)
    threads = sum(d.thread_pool.threads.value for d in plan.disks if d.thread_pool) * workers
    assert threads <= THREAD_BUDGET
    assert 2 * plan.worker_connections.value <= plan.worker_rlimit_nofile.value <= NR_OPEN
    memory = spec_from_mapping(data).node.memory
    assert workers * plan.worker_connections.value * 512 <= memory // 4


def test_an_object_larger_than_disks_is_one_line_naming_the_smallest() -> None:
    data = spec("origin", disks=3, workload={"avg_object_size": "512MiB"})
    for item, size in zip(data["disks"], ["128MiB", "64MiB", "1GiB"], strict=True):
        item["size"] = size
    assert refusal(data) == [
        "t.yaml: workload.avg_object_size: 512.0 MiB is larger than disk d2 (64.0 MiB) and 1 "
        "more: lower avg_object_size below the smallest disk"
    ]


@pytest.mark.parametrize("version", ["1.18.0", "1.19", "1.0"])
def test_an_nginx_older_than_tpgens_configs_is_refused(version: str) -> None:
    """proxy_cache_path's min_free (1.19.1) is in every cache zone tpgen writes."""
    assert refusal(spec(nginx={"version": version})) == [
        f"t.yaml: nginx.version: nginx {version} predates directives every config of tpgen's may "
        "use (proxy_cache_path min_free, 1.19.1): upgrade nginx to 1.19.1 or later (Debian 12 "
        "has 1.22.1; role nginx_install)"
    ]


def test_the_oldest_nginx_tpgen_renders_for_is_accepted() -> None:
    assert plan_of(spec(nginx={"version": "1.19.1"})).workload == "cache"
