"""Bad specs give one line per problem: file:line: field.path: message, naming the fix."""

from __future__ import annotations

import textwrap

import pytest
from tpgen.errors import SpecError
from tpgen.spec.load import load_spec_text, plain_data, spec_from_mapping

GOOD = textwrap.dedent("""\
    node: {name: n1, cores: 4, memory: 8GiB}
    workload: {type: cache, upstreams: ["o.example.net:80"]}
    disks:
      - {name: d1, device: /dev/sdb, mount: /srv/cache/d1, size: 1TB, media: hdd}
      - {name: d2, device: /dev/sdc, mount: /srv/cache/d2, size: 1TB, media: hdd}
    """)


def _errors(text: str) -> list[str]:
    with pytest.raises(SpecError) as caught:
        load_spec_text(text, "spec.yaml")
    return str(caught.value).splitlines()


def test_good_spec_loads_with_defaults() -> None:
    spec = load_spec_text(GOOD)
    assert spec.listen[0].port == 80
    assert spec.status.address == "127.0.0.1"
    assert [d.state for d in spec.disks] == ["active", "active"]
    assert spec.disks[0].size == 10**12


def test_unknown_key_names_file_line_and_path() -> None:
    text = GOOD.replace("media: hdd}", "media: hdd, speed: fast}", 1)
    assert _errors(text) == [
        "spec.yaml:4: disks.0.speed: unknown key: remove it or check its spelling "
        "(see `tpgen schema`)"
    ]


def test_bad_size_points_at_the_disk_line() -> None:
    text = GOOD.replace("size: 1TB", "size: lots", 1)
    (line,) = _errors(text)
    assert line.startswith("spec.yaml:4: disks.0.size: 'lots' is not a size")


def test_missing_section_is_reported() -> None:
    text = "node: {name: n1, cores: 4, memory: 8GiB}\nworkload: {type: origin}\n"
    assert _errors(text) == ["spec.yaml: disks: required: add this key"]


def test_every_problem_is_listed_not_just_the_first() -> None:
    text = GOOD.replace("cores: 4", "cores: 0").replace("media: hdd}", "media: tape}", 1)
    lines = _errors(text)
    assert len(lines) == 2
    assert lines[0].startswith("spec.yaml:1: node.cores:")
    assert lines[1].startswith("spec.yaml:4: disks.0.media:")


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "device: /dev/sdc",
            "device: /dev/sdb",
            "spec.yaml:5: disks.1.device: '/dev/sdb' is already used by disks.0",
        ),
        ("name: d2", "name: d1", "spec.yaml:5: disks.1.name: 'd1' is already used by disks.0"),
        (
            "mount: /srv/cache/d2",
            "mount: /srv/cache/d1/x",
            "spec.yaml:5: disks.1.mount: /srv/cache/d1/x is inside disks.0.mount /srv/cache/d1",
        ),
        (
            'upstreams: ["o.example.net:80"]',
            "upstreams: []",
            "spec.yaml:2: workload.upstreams: a cache node needs at least one upstream",
        ),
        ("media: hdd}", "media: hdd, state: failed}", None),
    ],
)
def test_cross_field_rules(old: str, new: str, expected: str | None) -> None:
    text = GOOD.replace(old, new, 1)
    if expected is None:
        load_spec_text(text)  # one failed disk of two is fine
        return
    (line,) = _errors(text)
    assert line.startswith(expected), line


def test_no_active_disk_is_an_error() -> None:
    text = GOOD.replace("media: hdd}", "media: hdd, state: draining}")
    assert _errors(text) == [
        "spec.yaml:3: disks: no disk is active: at least one disk must have state: active"
    ]


@pytest.mark.parametrize(
    ("old", "new", "path"),
    [
        ("name: d1", 'name: "d1; } server { listen 1"', "disks.0.name"),
        ("device: /dev/sdb", 'device: "/dev/sdb;"', "disks.0.device"),
        ("mount: /srv/cache/d1", 'mount: "/srv/cache/d1 x"', "disks.0.mount"),
        ("name: n1", 'name: "n1;evil"', "node.name"),
        ('"o.example.net:80"', '"o.example.net:80; include /etc/passwd"', "workload.upstreams.0"),
        ("type: cache,", 'type: cache, cache_key: "$host;}",', "workload.cache_key"),
        ("mount: /srv/cache/d1", "mount: /srv/../etc", "disks.0.mount"),
    ],
)
def test_nothing_can_inject_nginx_directives(old: str, new: str, path: str) -> None:
    lines = _errors(GOOD.replace(old, new, 1))
    assert any(f": {path}: " in line for line in lines), lines


def test_status_must_stay_on_loopback() -> None:
    lines = _errors(GOOD + "status: {address: 0.0.0.0, port: 9000}\n")
    assert lines == [
        "spec.yaml:6: status.address: stub_status must stay on loopback: use 127.0.0.1 or ::1"
    ]


def test_invalid_yaml_is_one_clean_line() -> None:
    (line,) = _errors("node: {name: n1\n  cores: [\n")
    assert line.startswith("spec.yaml:")
    assert "not valid YAML" in line


def test_top_level_must_be_a_mapping() -> None:
    assert _errors("- 1\n- 2\n") == [
        "spec.yaml:1: (top): a spec is a mapping with node, workload and disks"
    ]


def test_tagged_scalar_subclasses_are_read_as_plain_values() -> None:
    class Tagged(str):
        pass

    class TaggedInt(int):
        pass

    data = {
        Tagged("node"): {"name": Tagged("n1"), "cores": TaggedInt(4), "memory": Tagged("8GiB")},
        "workload": {"type": Tagged("origin")},
        "disks": (
            {"name": "d1", "device": "/dev/sdb", "mount": "/srv/d1", "size": "1TB", "media": "hdd"},
        ),
    }
    spec = spec_from_mapping(data, "tagged")
    assert spec.node.name == "n1" and type(spec.node.name) is str
    assert spec.node.cores == 4 and type(spec.node.cores) is int
    assert plain_data(data)["disks"][0]["media"] == "hdd"
