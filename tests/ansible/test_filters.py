"""The filter plugin against the real tpgen package (no Ansible run needed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from ansible.parsing.yaml.loader import AnsibleLoader
from tpgen.api import disk_for_key, make_plan, node_layout, spec_from_mapping
from tpgen.errors import SpecError
from tpgen.spec.load import load_spec_text, parse_spec_text

SPEC: dict[str, Any] = {
    "node": {"name": "edge-test-01"},
    "workload": {"type": "cache", "upstreams": ["127.0.0.1:28501"]},
    "listen": {"address": "127.0.0.1", "port": 28502},
    "status": {"address": "127.0.0.1", "port": 28503},
    "disks": [
        {
            "name": "d1",
            "device": "/dev/loop0",
            "mount": "/srv/cache/d1",
            "size": "1GiB",
            "media": "hdd",
        },
        {
            "name": "d2",
            "device": "/dev/loop1",
            "mount": "/srv/cache/d2",
            "size": "1GiB",
            "media": "hdd",
        },
        {
            "name": "d3",
            "device": "/dev/loop2",
            "mount": "/srv/cache/d3",
            "size": "2GiB",
            "media": "hdd",
        },
    ],
}
FULL = {**SPEC, "node": {"name": "edge-test-01", "cores": 2, "memory": "4GiB"}}
KEYS = [f"httplocalhost/objects/{n}.bin" for n in range(40)]


def test_node_spec_fills_only_what_the_spec_leaves_out(filters: ModuleType) -> None:
    merged = filters.tpgen_node_spec(SPEC, name="ignored-name", cores=8, memory_mb=32093)
    assert merged["node"] == {"name": "edge-test-01", "cores": 8, "memory": "32093MiB"}
    assert merged["disks"] == SPEC["disks"]
    assert "cores" not in SPEC["node"], "the input spec must not be modified"


def test_node_spec_keeps_values_the_spec_sets(filters: ModuleType) -> None:
    merged = filters.tpgen_node_spec(FULL, name="other", cores=64, memory_mb=1)
    assert merged["node"] == FULL["node"]


def test_node_spec_without_node_takes_everything_from_facts(filters: ModuleType) -> None:
    bare = {key: value for key, value in SPEC.items() if key != "node"}
    merged = filters.tpgen_node_spec(bare, name="n1.example.net", cores="4", memory_mb="2048")
    assert merged["node"] == {"name": "n1.example.net", "cores": 4, "memory": "2048MiB"}


def test_node_spec_skips_missing_facts(filters: ModuleType) -> None:
    merged = filters.tpgen_node_spec({"node": {}}, name="n1", cores=None, memory_mb=None)
    assert merged["node"] == {"name": "n1"}


def test_node_spec_rejects_a_non_mapping(filters: ModuleType) -> None:
    with pytest.raises(filters.AnsibleFilterError, match="expected a mapping, got list"):
        filters.tpgen_node_spec(["not", "a", "spec"])


def test_node_layout_is_the_plan_layout(filters: ModuleType) -> None:
    expected = node_layout(make_plan(spec_from_mapping(FULL))).to_dict()
    layout = filters.tpgen_node_layout(FULL)
    assert layout == expected
    assert layout["config_sha1"] is None, "the filter renders nothing"
    assert layout["listen_urls"] == ["http://127.0.0.1:28502/"]
    assert layout["status_url"] == "http://127.0.0.1:28503/nginx_status"
    assert [(d["dir"], d["owner"], d["group"], d["mode"]) for d in layout["disks"]] == [
        ("/srv/cache/d1/cache", "www-data", "www-data", "0700"),
        ("/srv/cache/d2/cache", "www-data", "www-data", "0700"),
        ("/srv/cache/d3/cache", "www-data", "www-data", "0700"),
    ]


def test_node_layout_gives_the_directories_to_tuning_user(filters: ModuleType) -> None:
    # storage_disks chowns the directories to the layout's owner: with `user nginx;` in the
    # config they must be nginx's, or nginx cannot write its cache into the 0700 directories.
    layout = filters.tpgen_node_layout({**FULL, "tuning": {"user": "nginx"}})
    assert (layout["nginx_user"], layout["nginx_group"]) == ("nginx", "nginx")
    assert {(d["owner"], d["group"], d["mode"]) for d in layout["disks"]} == {
        ("nginx", "nginx", "0700")
    }


def test_node_layout_of_a_spec_completed_from_facts(filters: ModuleType) -> None:
    bare = {key: value for key, value in SPEC.items() if key != "node"}
    completed = filters.tpgen_node_spec(bare, name="n1.example.net", cores=2, memory_mb=4096)
    layout = filters.tpgen_node_layout(completed, source="storage_disks_spec of n1")
    assert layout["node"] == "n1.example.net"


def test_node_spec_refuses_a_node_that_is_not_a_mapping(filters: ModuleType) -> None:
    with pytest.raises(filters.AnsibleFilterError) as caught:
        filters.tpgen_node_spec({**SPEC, "node": ["n1"]}, name="n1")
    assert str(caught.value) == "tpgen_node_spec: node must be a mapping, got list"


def test_disk_for_key_matches_the_library(filters: ModuleType) -> None:
    plan = make_plan(spec_from_mapping(FULL))
    expected = [disk_for_key(plan, key) for key in KEYS]
    assert filters.tpgen_disk_for_key(FULL, KEYS) == expected
    assert filters.tpgen_disk_for_key(FULL, KEYS[0]) == expected[0]
    assert set(expected) == {"d1", "d2", "d3"}, "40 keys over 3 disks should reach every disk"


def test_disk_for_key_matches_tpgen_locate(filters: ModuleType, tmp_path: Path) -> None:
    spec_file = tmp_path / "spec.yaml"
    spec_file.write_text(yaml.safe_dump(FULL))
    out = subprocess.run(
        [sys.executable, "-m", "tpgen", "locate", str(spec_file), *KEYS],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    located = {line.split("\t")[0]: line.split("\t")[2] for line in out.splitlines() if line}
    assert [located[key] for key in KEYS] == filters.tpgen_disk_for_key(FULL, KEYS)


def test_a_bad_spec_fails_with_tpgen_problems_and_no_traceback(filters: ModuleType) -> None:
    bad = {**FULL, "disks": [{**FULL["disks"][0], "size": "lots", "colour": "red"}]}
    with pytest.raises(filters.AnsibleFilterError) as caught:
        filters.tpgen_node_layout(bad, source="host_vars/x.yml")
    message = str(caught.value)
    assert message.startswith("tpgen rejected the spec:\n")
    problems = message.splitlines()[1:]
    assert any(line.startswith("host_vars/x.yml: disks.0.size: ") for line in problems), problems
    assert any(line.startswith("host_vars/x.yml: disks.0.colour: ") for line in problems), problems
    assert "Traceback" not in message


@pytest.mark.parametrize("filter_name", ["tpgen_node_spec", "tpgen_node_layout"])
def test_a_spec_that_contains_itself_is_a_clean_filter_error(
    filters: ModuleType, filter_name: str
) -> None:
    looped: dict[str, Any] = {**FULL, "node": {**FULL["node"]}}
    looped["node"]["again"] = looped
    with pytest.raises(filters.AnsibleFilterError) as caught:
        getattr(filters, filter_name)(looped)
    assert str(caught.value) == (
        "tpgen rejected the spec:\ntpgen_spec: node.again: contains itself (a recursive "
        "structure): remove the reference back to it"
    )


NGINX_V_126 = (
    "nginx version: nginx/1.26.3\nbuilt with OpenSSL 3.5.1\nTLS SNI support enabled\n"
    "configure arguments: --with-threads --with-http_v2_module --with-http_v3_module\n"
)


def test_nginx_facts_come_from_nginx_v_output(filters: ModuleType) -> None:
    filled = filters.tpgen_nginx_facts(FULL, NGINX_V_126)
    assert filled["nginx"] == {
        "version": "1.26.3",
        "http_v3": True,
        "configure": "--with-threads --with-http_v2_module --with-http_v3_module",
    }
    old = NGINX_V_126.replace("1.26.3", "1.22.1").replace(" --with-http_v3_module", "")
    assert filters.tpgen_nginx_facts(FULL, old)["nginx"] == {
        "version": "1.22.1",
        "http_v3": False,
        "configure": "--with-threads --with-http_v2_module",
    }
    # No nginx yet (before nginx_install): the spec as it is.
    assert filters.tpgen_nginx_facts(FULL, "") == FULL
    stated = {**FULL, "nginx": {"version": "1.24.0", "configure": ""}}
    assert filters.tpgen_nginx_facts(stated, NGINX_V_126)["nginx"] == {
        "version": "1.24.0",
        "http_v3": True,
        "configure": "",
    }
    # An nginx -V without the line (a build configured with no arguments prints none): the
    # build stays unknown.
    bare = "nginx version: nginx/1.26.3\nbuilt with OpenSSL 3.5.1\n"
    assert "configure" not in filters.tpgen_nginx_facts(FULL, bare)["nginx"]


def test_tls_problems_read_the_controller_copies(filters: ModuleType, tmp_path: Path) -> None:
    from tpgen.spec.certs import write_throwaway_pair

    cert, key = tmp_path / "a.crt", tmp_path / "a.key"
    write_throwaway_pair(cert, key, ("edge.example",))
    spec = {
        **FULL,
        "listen": [{"address": "127.0.0.1", "port": 28504, "tls": True}],
        "tls": {"certificates": [{"cert": "/etc/nginx/tls/a.crt", "key": "/etc/nginx/tls/a.key"}]},
    }
    files = {"/etc/nginx/tls/a.crt": str(cert), "/etc/nginx/tls/a.key": str(key)}
    assert filters.tpgen_tls_problems(spec, files) == []
    files["/etc/nginx/tls/a.key"] = str(tmp_path / "missing.key")
    assert filters.tpgen_tls_problems(spec, files, "tpgen_spec of edge") == [
        f"tpgen_spec of edge: tls.certificates.0.key: /etc/nginx/tls/a.key (read from "
        f"{tmp_path}/missing.key): No such file or directory: put the file there or fix the path"
    ]


def test_extra_problems_read_the_controller_copies(filters: ModuleType, tmp_path: Path) -> None:
    copy = tmp_path / "cors.conf"
    copy.write_text("add_header Vary Origin always;\n")
    spec = {**FULL, "extra": {"location": ["/etc/nginx/tpgen/cors.conf"]}}
    files = {"/etc/nginx/tpgen/cors.conf": str(copy)}
    assert filters.tpgen_extra_problems(spec, files) == []
    copy.write_text("# pools\nthread_pool more threads=4;\n")
    assert filters.tpgen_extra_problems(spec, files, "tpgen_spec of edge") == [
        f"tpgen_spec of edge: extra.location.0: /etc/nginx/tpgen/cors.conf (read from {copy}) "
        "line 2: thread_pool: tpgen writes one thread pool per disk that needs one, sized by its "
        "rule (tpgen explain): set tuning.threads_per_disk or disks.N.thread_pool instead"
    ]


def test_disk_states_fails_the_named_disks_and_leaves_the_rest(filters: ModuleType) -> None:
    names = [d["name"] for d in FULL["disks"]]
    guarded = filters.tpgen_disk_states(FULL, [names[1], "not-a-disk"])
    assert [d.get("state") for d in guarded["disks"]] == [
        "failed" if name == names[1] else d.get("state")
        for name, d in zip(names, FULL["disks"], strict=True)
    ]
    assert {k: v for k, v in guarded.items() if k != "disks"} == {
        k: v for k, v in FULL.items() if k != "disks"
    }
    assert "state" not in FULL["disks"][1]  # the input is not changed
    assert filters.tpgen_disk_states(FULL, []) == FULL
    with pytest.raises(filters.AnsibleFilterError, match="expected a mapping, got list"):
        filters.tpgen_disk_states(["not", "a", "spec"], [])


# Unquoted values YAML 1.1 (Ansible reading host_vars) and YAML 1.2 (tpgen) type apart, and
# values both read alike: a spec `tpgen validate` accepts is the same data to the role.
IMPLICIT = [
    "2024-01-01", "2024-01-01 10:00:00", "2024-01-01T10:00:00Z", "1:30", "1:30.5", "0755",
    "0o17", "0x1F", "1_000", "1_000.5", "yes", "no", "on", "off", "Yes", "OFF", "y", "n", "~",
    "null", "", ".inf", "-.inf", "1e3", "1.5e3", "1.5e+3", "1.", ".5", "+1", "true", "abc",
]  # fmt: skip


@pytest.mark.parametrize("value", IMPLICIT)
def test_what_validate_reads_the_role_reads_alike(value: str) -> None:
    text = f"a: {value}\n"
    try:
        tpgen = parse_spec_text(text).data
    except SpecError:
        return
    ansible = AnsibleLoader(text).get_single_data()
    assert tpgen == ansible or (tpgen["a"] != tpgen["a"] and ansible["a"] != ansible["a"])  # nan


HOST_VARS = yaml.safe_dump(FULL, sort_keys=False).replace("name: edge-test-01", "name: {name}")


@pytest.mark.parametrize(
    ("name", "message", "role"),
    [
        (
            "2024-01-01",
            "2024-01-01 unquoted is a date to YAML 1.1 readers (Ansible, PyYAML) and text to "
            "tpgen: quote it ('2024-01-01')",
            "node.name: a date or time (2024-01-01): a YAML 1.1 reader (Ansible, PyYAML) reads "
            "an unquoted 2024-01-01 as one; quote it to keep it text",
        ),
        (
            "on",
            "on unquoted is true to YAML 1.1 readers (Ansible, PyYAML) and text to tpgen: write "
            "true for a boolean, or quote it ('on') for text",
            "node.name: true is the wrong type: write text here (quote it if YAML reads it as "
            "something else)",
        ),
    ],
)
def test_validate_and_the_role_refuse_an_unquoted_name_yaml_11_types(
    filters: ModuleType, name: str, message: str, role: str
) -> None:
    text = HOST_VARS.format(name=name)
    with pytest.raises(SpecError) as validated:
        load_spec_text(text, "host_vars/x.yml")
    assert [(p.line, p.message) for p in validated.value.problems] == [(2, message)]
    with pytest.raises(filters.AnsibleFilterError) as caught:
        filters.tpgen_node_layout(AnsibleLoader(text).get_single_data(), source="host_vars/x.yml")
    assert str(caught.value).splitlines()[1:] == [f"host_vars/x.yml: {role}"]
    # quoted, it is the same text to both
    quoted = HOST_VARS.format(name=f"'{name}'")
    assert load_spec_text(quoted).node.name == name
    layout = filters.tpgen_node_layout(AnsibleLoader(quoted).get_single_data())
    assert layout["node"] == name
