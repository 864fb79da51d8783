"""The offline check: independent of the checking machine, and honest about whose line failed."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import pytest
import yaml
from tpgen.check import check_plan, rebased
from tpgen.cli import main
from tpgen.plan import make_plan
from tpgen.render import render_config
from tpgen.spec.load import spec_from_mapping

from .specs import disk, spec

# One zone alone larger than the RAM of any machine that runs these tests, yet inside the
# node's own budget (20% of 512 GiB): 40 TB of 128 KiB objects is about 33 GiB of keys.
HUGE_ZONE = {
    **spec(
        "cache",
        node={"memory": "512GiB"},
        workload={"upstreams": ["192.0.2.10:80"], "avg_object_size": "128KiB"},
    ),
    "disks": [disk(1, size="40TB"), disk(2, size="40TB")],
}


def _ram_bytes() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def test_keys_zones_larger_than_this_machine_still_pass_the_check(nginx_binary: str) -> None:
    plan = make_plan(spec_from_mapping(HUGE_ZONE, "huge.yaml"), "huge.yaml")
    zones = [d.cache.keys_zone_mb.value for d in plan.disks if d.cache]
    assert min(zones) << 20 > _ram_bytes()  # each zone alone would fail nginx's mmap here
    assert plan.keys_zone_budget_mb is not None and sum(zones) <= plan.keys_zone_budget_mb.value
    result = check_plan(plan, nginx=nginx_binary)
    assert result.ok, result.output


def test_the_rebased_plan_keeps_the_text_and_says_what_it_changed() -> None:
    plan = make_plan(spec_from_mapping(HUGE_ZONE, "huge.yaml"), "huge.yaml")
    moved = rebased(plan, "/tmp/prefix")
    original, checked = render_config(plan).splitlines(), render_config(moved).splitlines()
    assert len(original) == len(checked)
    changed = [(a, b) for a, b in zip(original, checked, strict=True) if a != b]
    assert all(a.split()[0] == b.split()[0] for a, b in changed)
    assert [line for _, line in changed if "keys_zone=" in line] == [
        f"    proxy_cache_path /tmp/prefix/srv/cache/d{i}/cache levels=1:2 keys_zone=cache_d{i}:1m "
        f"max_size=35156250000k min_free=381469m inactive=7d use_temp_path=off "
        f"loader_files=10000 loader_threshold=200ms manager_files=400;"
        for i in (1, 2)
    ]
    assert moved.notes[1] == (
        "keys zones shrunk to 1 MB each for the offline check: nginx -t maps every zone, "
        "and the node's RAM is not the checking machine's"
    )


def test_an_nginx_rejection_names_the_rendered_config_line_not_the_spec(
    rejecting_nginx: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = spec("cache", 2, workload={"upstreams": ["192.0.2.10:80"]}, tuning={"user": "cdn"})
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    monkeypatch.setenv("TPGEN_NGINX", rejecting_nginx)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        assert main(["render", str(path)]) == 1
    lines = err.getvalue().splitlines()
    assert lines == [
        f"{path}: nginx -t rejected the rendered config:",
        f'nginx: [emerg] getpwnam("cdn") failed in rendered config (from {path}) line 4: user cdn;',
    ]


def test_a_user_and_group_this_machine_lacks_pass_the_check_as_its_own(
    nginx_binary: str,
) -> None:
    """The node's accounts are the node's: the role's nginx -t there resolves them (as node-only
    listen addresses get loopback stand-ins); here the check runs as the checking user."""
    data = spec(
        "cache",
        1,
        workload={"upstreams": ["192.0.2.10:80"]},
        tuning={"user": "tpgen-node-user", "group": "tpgen-node-group"},
    )
    plan = make_plan(spec_from_mapping(data))
    assert render_config(plan).splitlines()[3] == "user tpgen-node-user tpgen-node-group;"
    result = check_plan(plan, nginx=nginx_binary)
    assert result.ok, result.output
    moved = rebased(plan, "/x")
    assert (moved.user.value, moved.group.value) == ("root", "root")
    assert moved.notes[-1] == (
        "user tpgen-node-user group tpgen-node-group, which this machine lacks, run as root "
        "root for the offline check"
    )


def test_nobody_as_the_user_passes_the_real_nginx_t(nginx_binary: str) -> None:
    # As root nginx -t resolves the user and its group; Debian's nobody has no group "nobody".
    data = spec("cache", 1, workload={"upstreams": ["192.0.2.10:80"]}, tuning={"user": "nobody"})
    result = check_plan(make_plan(spec_from_mapping(data)), nginx=nginx_binary)
    assert result.ok, result.output
    assert rebased(make_plan(spec_from_mapping(data)), "/x").user.value == "nobody"


@pytest.mark.parametrize("name", ["spec\n} user root; {.yaml"])
def test_the_rejection_shows_a_hostile_spec_name_escaped(
    rejecting_nginx: str, tmp_path: Path, name: str
) -> None:
    data = spec("cache", 1, workload={"upstreams": ["192.0.2.10:80"]}, tuning={"user": "cdn"})
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    result = check_plan(
        make_plan(spec_from_mapping(data, str(path)), str(path)),
        nginx=rejecting_nginx,
    )
    assert not result.ok
    assert f"(from {tmp_path}/spec\\n}} user root; {{.yaml) line 4: user" in result.output


# TEST-NET addresses and the documentation prefix: no machine running these tests has them.
NODE_LISTENS = [
    {"address": "203.0.113.5", "port": 80},
    {"address": "203.0.113.6", "port": 80},
    {"address": "2001:db8::5", "port": 443, "tls": True, "http2": True},
    {"address": "127.0.0.1", "port": 8443},
]


def test_node_addresses_this_machine_lacks_pass_the_check_on_loopback_stand_ins(
    nginx_binary: str,
) -> None:
    data = spec(
        "origin",
        1,
        listen=NODE_LISTENS,
        tls={"certificates": [{"cert": "/etc/nginx/tls/a.crt", "key": "/etc/nginx/tls/a.key"}]},
    )
    plan = make_plan(spec_from_mapping(data))
    result = check_plan(plan, nginx=nginx_binary)
    assert result.ok, result.output
    # The node's own config keeps its addresses; the check binds one stand-in for each.
    text = render_config(plan)
    for line in ("listen 203.0.113.5:80", "listen 203.0.113.6:80", "listen [2001:db8::5]:443 ssl"):
        assert line in text
    moved = rebased(plan, "/x")
    assert [s.address for s in moved.listens] == [
        "127.255.0.1:80",
        "127.255.0.2:80",
        "127.255.0.3:443",
        "127.0.0.1:8443",
    ]
    assert moved.status_listen == plan.status_listen
    assert moved.notes[-1] == (
        "listen addresses this machine lacks (203.0.113.5, 203.0.113.6, [2001:db8::5]) bound "
        "to loopback ones of 127.255.0.0/16 for the offline check"
    )
    assert len(render_config(moved).splitlines()) == len(text.splitlines())
