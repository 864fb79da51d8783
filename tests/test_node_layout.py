"""tpgen.plan.layout: the node layout every consumer on the node side reads."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from tpgen.api import (
    DiskLayout,
    NodeLayout,
    load_spec_file,
    make_plan,
    node_layout,
    render_config,
    spec_from_mapping,
)
from tpgen.plan.layout import ExtraFile, TlsFile
from tpgen.plan.types import Sysctl

from tests.specs import disk, spec

CASES = Path(__file__).parent / "cases"


def layout_of(data: dict[str, Any], text: str | None = None) -> NodeLayout:
    return node_layout(make_plan(spec_from_mapping(data)), text)


@pytest.mark.parametrize(
    ("address", "url"),
    [
        ("0.0.0.0", "http://127.0.0.1:8080/"),
        ("::", "http://[::1]:8080/"),
        ("10.1.2.3", "http://10.1.2.3:8080/"),
        ("127.0.0.1", "http://127.0.0.1:8080/"),
        ("2001:db8::7", "http://[2001:db8::7]:8080/"),
        ("::1", "http://[::1]:8080/"),
    ],
)
def test_a_listen_is_reached_from_the_node_itself(address: str, url: str) -> None:
    layout = layout_of(spec(listen={"address": address, "port": 8080}))
    assert layout.listen_urls == (url,)


def test_the_default_listen_and_status_server() -> None:
    layout = layout_of(spec())
    assert layout.listen_urls == ("http://127.0.0.1:80/",)
    assert layout.status_url == "http://127.0.0.1:8081/nginx_status"


@pytest.mark.parametrize(
    ("address", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:9100/nginx_status"),
        ("127.0.0.2", "http://127.0.0.2:9100/nginx_status"),
        ("::1", "http://[::1]:9100/nginx_status"),
    ],
)
def test_the_status_url_is_the_plan_status_listen(address: str, url: str) -> None:
    assert layout_of(spec(status={"address": address, "port": 9100})).status_url == url


def test_the_status_url_is_where_the_config_serves_stub_status() -> None:
    plan = make_plan(spec_from_mapping(spec(status={"address": "::1", "port": 9100})))
    text = render_config(plan)
    server = text[text.index("listen [::1]:9100;") :]
    location = re.search(r"location = (\S+) \{\s*stub_status;", server)
    assert location is not None, server
    assert location.group(1) == "/nginx_status"
    assert layout_of(spec(status={"address": "::1", "port": 9100})).status_url == (
        "http://[::1]:9100/nginx_status"
    )


@pytest.mark.parametrize(
    ("tuning", "line", "owner"),
    [
        ({}, "user www-data;", ("www-data", "www-data")),
        # `user nginx;` names no group: nginx runs with the group named like the user.
        ({"user": "nginx"}, "user nginx;", ("nginx", "nginx")),
        # Debian has no group named nobody: nginx would fail to start.
        ({"user": "nobody"}, "user nobody nogroup;", ("nobody", "nogroup")),
        ({"user": "nobody", "group": "cdn"}, "user nobody cdn;", ("nobody", "cdn")),
        ({"group": "adm"}, "user www-data adm;", ("www-data", "adm")),
    ],
)
def test_the_directories_belong_to_the_user_and_group_the_config_runs_nginx_as(
    tuning: dict[str, str], line: str, owner: tuple[str, str]
) -> None:
    plan = make_plan(spec_from_mapping(spec(tuning=tuning)))
    layout = node_layout(plan)
    assert re.search(rf"^{re.escape(line)}$", render_config(plan), re.MULTILINE)
    assert (layout.nginx_user, layout.nginx_group) == owner
    assert {(d.owner, d.group, d.mode) for d in layout.disks} == {(*owner, "0700")}


@pytest.mark.parametrize(
    ("kind", "leaf"), [("cache", "cache"), ("origin", "data"), ("vod", "data")]
)
def test_each_disk_gives_nginx_the_directory_of_its_workload(kind: str, leaf: str) -> None:
    layout = layout_of(spec(kind, disks=2))
    assert [(d.mount, d.dir) for d in layout.disks] == [
        ("/srv/cache/d1", f"/srv/cache/d1/{leaf}"),
        ("/srv/cache/d2", f"/srv/cache/d2/{leaf}"),
    ]


def test_failed_and_draining_disks_keep_their_state_and_own_no_buckets() -> None:
    data = spec("origin")
    data["disks"] = [
        disk(1),
        disk(2, state="draining"),
        disk(3, state="failed", filesystem="ext4"),
        disk(4, media="ssd"),
    ]
    layout = layout_of(data)
    rows = [
        (d.name, d.state, d.filesystem, d.media, d.thread_pool, d.buckets) for d in layout.disks
    ]
    assert rows[1:3] == [
        ("d2", "draining", "xfs", "hdd", "pool_d2", 0),
        ("d3", "failed", "ext4", "hdd", None, 0),
    ]
    assert rows[0][:5] == ("d1", "active", "xfs", "hdd", "pool_d1")
    assert rows[3][:5] == ("d4", "active", "xfs", "ssd", None)
    assert rows[0][5] + rows[3][5] == make_plan(spec_from_mapping(data)).buckets.value
    assert {d.min_free_bytes for d in layout.disks} == {None}, "no cache: nothing to keep free"


def test_a_cache_disk_carries_what_its_cache_keeps_free() -> None:
    plan = make_plan(spec_from_mapping(spec("cache", disks=2)))
    layout = node_layout(plan)
    assert [d.min_free_bytes for d in layout.disks] == [
        d.cache.min_free.value for d in plan.disks if d.cache is not None
    ]
    assert all(isinstance(d.min_free_bytes, int) and d.min_free_bytes > 0 for d in layout.disks)


def test_logs_and_node_name_are_the_plan_s() -> None:
    plan = make_plan(spec_from_mapping(spec()))
    layout = node_layout(plan)
    assert (layout.node, layout.error_log, layout.access_log) == (
        "node-1",
        "/var/log/nginx/error.log",
        "/var/log/nginx/access.log",
    )
    text = render_config(plan)
    assert f"error_log {layout.error_log} warn;" in text
    assert f"access_log {layout.access_log} " in text


def test_the_config_sha1_is_the_rendered_text_s() -> None:
    plan = make_plan(spec_from_mapping(spec()))
    text = render_config(plan)
    assert node_layout(plan).config_sha1 is None
    assert node_layout(plan, text).config_sha1 == hashlib.sha1(text.encode()).hexdigest()


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.iterdir() if p.is_dir()))
def test_to_dict_is_json_with_the_contract_s_field_names(case: str) -> None:
    plan = make_plan(load_spec_file(CASES / case / "spec.yaml"))
    layout = node_layout(plan, render_config(plan))
    data = layout.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert list(data) == [
        "node",
        "nginx_user",
        "nginx_group",
        "listen_urls",
        "status_url",
        "error_log",
        "access_log",
        "disks",
        "config_sha1",
        "sysctls",
        "tls_files",
        "extra_files",
        "log_dirs",
    ]
    assert isinstance(data["listen_urls"], list)
    assert isinstance(data["disks"], list)
    assert [list(d) for d in data["disks"]] == [
        [
            "name",
            "device",
            "mount",
            "dir",
            "state",
            "media",
            "filesystem",
            "owner",
            "group",
            "mode",
            "thread_pool",
            "buckets",
            "min_free_bytes",
            "read_ahead_kb",
        ]
    ] * len(plan.disks)
    rebuilt = NodeLayout(
        **{
            **data,
            "listen_urls": tuple(data["listen_urls"]),
            "disks": tuple(DiskLayout(**d) for d in data["disks"]),
            "sysctls": tuple(Sysctl(**s) for s in data["sysctls"]),
            "tls_files": tuple(TlsFile(**f) for f in data["tls_files"]),
            "log_dirs": tuple(data["log_dirs"]),
            "extra_files": tuple(
                ExtraFile(**{**f, "contexts": tuple(f["contexts"])}) for f in data["extra_files"]
            ),
        }
    )
    assert rebuilt == layout
