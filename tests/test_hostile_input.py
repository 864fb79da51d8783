"""Hostile and careless input: exit 2 with one line per problem, never exit 3, never a hang.

Covers reading (file kinds, size, encoding, YAML structure), writing (`render -o`) and the shape
of every message. A hang must fail, not stall the suite: the file-kind cases that could block run
in a subprocess with a timeout, the in-process ones under an alarm.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import stat
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tpgen.api import bucket_for_key, disk_for_key, make_plan, spec_from_mapping
from tpgen.cli import main
from tpgen.errors import SpecError, format_path, printable
from tpgen.spec.load import load_spec_text, plain_data
from tpgen.spec.yaml11 import yaml11_kind

from .conftest import ROOT
from .specs import disk, write_spec
from .specs import spec as node_spec

EXAMPLE = ROOT / "examples" / "cache-3hdd.yaml"
GOOD = textwrap.dedent("""\
    node: {name: n1, cores: 4, memory: 8GiB}
    workload: {type: cache, upstreams: ["o.example.net:80"]}
    disks:
      - {name: d1, device: /dev/sdb, mount: /srv/cache/d1, size: 1TB, media: hdd}
    """)
ENV = {**os.environ, "PYTHONPATH": f"{ROOT / 'generator'}{os.pathsep}{ROOT}"}


@pytest.fixture(autouse=True)
def _no_hang() -> Iterator[None]:
    # A regression to minutes (alias bomb, reading /dev/zero) fails here instead of stalling CI.
    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError("tpgen did not finish within 60 s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code = main(args)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err.splitlines()


def validate(path: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    code, lines = run(["validate", str(path)], capsys)
    assert code == 2, lines
    return lines


def spec_file(tmp_path: Path, content: str | bytes, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def in_subprocess(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tpgen", *args],
        cwd=cwd,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


# ------------------------------------------------------------------------------------ reading

FLATTEN = ": write the keys of docs/spec.md at their own level"
RANGES = "; write a value in the field's range (docs/spec.md, Values and limits)"
CONTAINS_ITSELF = "contains itself (a recursive structure): remove the reference back to it"
ALIAS_LOOP = "an alias refers to a collection that contains it: point it at an anchor outside"
MERGE_FIX = (
    "<< merges a mapping or a list of them: write <<: *name, where &name marks a mapping, or "
    "<<: [*first, *second]"
)
FIX_YAML = "fix the YAML there (a value holding ': ' or ' #' needs quotes)"


@pytest.mark.parametrize(
    ("char", "shown"),
    [("\x00", "U+0000"), ("\x07", "U+0007"), ("\x1b", "U+001B"), ("\x7f", "U+007F"),
     ("\x9b", "U+009B"), ("\ufffe", "U+FFFE")],
)  # fmt: skip
def test_control_characters_name_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], char: str, shown: str
) -> None:
    path = spec_file(tmp_path, GOOD.replace("name: d1", f"name: d{char}1"))
    assert validate(path, capsys) == [
        f"{path}:4: disks.0.name: control character {shown} at column 13: YAML text cannot "
        "hold it; remove it (write it as an escape in a quoted string)"
    ]


@pytest.mark.parametrize("char", ["\x85", "\u2028", "\u2029"])
def test_line_breaks_yaml_readers_disagree_on_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], char: str
) -> None:
    """YAML 1.1 readers (PyYAML, Ansible's) end a line at NEL, LS and PS; YAML 1.2 readers keep
    them in the value: one text, two specs."""
    path = spec_file(tmp_path, GOOD.replace("name: d1", f"name: d1{char}x"))
    assert validate(path, capsys) == [
        f"{path}:4: disks.0.name: control character U+{ord(char):04X} at column 14: a line "
        "break only some YAML readers see; remove it (write it as an escape in a quoted string)"
    ]


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("node:\n  name: n\x851\n", "node.name"),
        ('tuning:\n  user: "a\u2028b"\n', "tuning.user"),
        ("origin:\n  serv\x01ers: {}\n", "origin"),  # in a key: the key's mapping
        ("cache: {trusted_networks: [10.0.0.0/8, 10.1.0.0/16\x7f]}\n", "cache.trusted_networks.1"),
        ("# a comment\x85\nnode: {}\n", "(top)"),
        ("node: [\x85\n", "(top)"),  # not YAML even without it
    ],
)
def test_a_control_character_names_the_field_it_is_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, field: str
) -> None:
    path = spec_file(tmp_path, text)
    (line,) = validate(path, capsys)
    assert line.startswith(f"{path}:") and f": {field}: control character U+" in line


@pytest.mark.parametrize(
    ("content", "line"),
    [
        ("[" * 100_000 + "]" * 100_000, 1),
        ("{a: " * 100_000 + "1" + "}" * 100_000, 1),
        ("- " * 100_000 + "1", 1),
        ("".join(f"{' ' * i}a{i}:\n" for i in range(40)), 32),
    ],
    ids=["flow-lists", "flow-maps", "block-lists", "indented-maps"],
)
def test_deep_nesting_is_refused_not_a_recursion_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, line: int
) -> None:
    path = spec_file(tmp_path, content)
    assert validate(path, capsys) == [
        f"{path}:{line}: (top): nested deeper than 32 levels (a spec needs 4): write the keys of "
        "docs/spec.md at their own level"
    ]


def test_aliases_cannot_nest_deeper_than_the_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chain = "a0: &a0 [1]\n" + "".join(f"a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, 40))
    (line,) = validate(spec_file(tmp_path, chain), capsys)
    assert line.endswith(f": nested deeper than 32 levels (a spec needs 4){FLATTEN}")
    assert ": a31.0.0." in line


def test_alias_bomb_is_refused_quickly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10)
    )
    path = spec_file(tmp_path, bomb)
    (line,) = validate(path, capsys)
    assert line.startswith(f"{path}:1: a3.7.8.8.9: ")
    assert line.endswith(
        ": the document expands to more than 10,000 values (each alias repeats its anchor): "
        "a spec needs a few hundred; write values out instead of nesting aliases"
    )


def test_too_many_values_are_refused_while_parsing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = spec_file(tmp_path, "x:\n" + "  - 1\n" * 12_000)
    assert validate(path, capsys) == [
        f"{path}:9999: (top): more than 10,000 keys and values: a spec needs a few hundred; "
        "remove the rest"
    ]


def test_at_most_100_problems_of_the_text_are_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = spec_file(tmp_path, "{" + "a: 1, " * 500 + "}\n")
    lines = validate(path, capsys)
    assert len(lines) == 101
    assert lines[0] == f"{path}:1: a: duplicate key: already set on line 1; keep one"
    assert lines[-1] == f"{path}: (top): more than 100 problems: fix these first"


def test_plain_data_refuses_a_shared_reference_bomb() -> None:
    node: Any = ["x"] * 10
    for _ in range(9):
        node = [node] * 10
    with pytest.raises(SpecError) as caught:
        plain_data({"node": node}, "facts")
    assert str(caught.value).endswith(
        ": the data holds more than 10,000 values: a spec needs a few hundred; remove the rest"
    )


@pytest.mark.parametrize("kind", ["dict", "list"])
def test_self_referencing_data_from_a_plugin_is_a_spec_error(kind: str) -> None:
    data: dict[str, Any] = {"node": {"name": "n1"}, "workload": {"type": "origin"}}
    if kind == "dict":
        data["node"]["self"] = data
        expected = f"host_vars: node.self: {CONTAINS_ITSELF}"
    else:
        disks: list[Any] = []
        disks.append(disks)
        data["disks"] = disks
        expected = f"host_vars: disks.0: {CONTAINS_ITSELF}"
    with pytest.raises(SpecError) as caught:
        spec_from_mapping(data, "host_vars")
    assert str(caught.value) == expected


def test_plain_data_refuses_deep_nesting_and_huge_numbers() -> None:
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(10_000):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(
        SpecError, match=r"nested deeper than 32 levels \(a spec needs 4\): write the keys"
    ):
        plain_data(deep)
    with pytest.raises(SpecError) as caught:
        spec_from_mapping({"node": {"cores": 10**5000}}, "vars")
    assert str(caught.value) == (
        f"vars: node.cores: number too large: no value in a spec comes near it{RANGES}"
    )
    with pytest.raises(SpecError) as caught:
        plain_data({"node": {1: "x"}}, "vars")
    assert (
        str(caught.value)
        == "vars: node: key 1 is not a name: every key in a spec is text; quote it"
    )


@pytest.mark.parametrize(
    "value",
    ["9" * 5000, "0x" + "f" * 900, "-" + "1" * 1001],
    ids=["5000-digits", "huge-hex", "negative"],
)
def test_numbers_too_large_to_read_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    path = spec_file(tmp_path, GOOD.replace("cores: 4", f"cores: {value}"))
    assert validate(path, capsys) == [
        f"{path}:1: node.cores: a number of {len(value):,} characters: no value in a spec "
        f"comes near that size{RANGES}"
    ]


@pytest.mark.parametrize(
    ("value", "read"), [("030", 30), ("0x18", 24), ("0o10", 8), ("0b11", 3), ("2_4", 24)]
)
def test_numbers_yaml_readers_disagree_on_are_refused_with_the_decimal_form(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, read: int
) -> None:
    # YAML 1.1 (PyYAML, Ansible) reads 030 as 24 and 2_4 as 24; YAML 1.2 reads 30 and a string.
    path = spec_file(tmp_path, GOOD.replace("cores: 4", f"cores: {value}"))
    assert validate(path, capsys) == [
        f"{path}:1: node.cores: {value!r}: write it in plain decimal digits; YAML readers "
        f"disagree on numbers with a leading 0, 0x, 0o, 0b or _ (tpgen would read {read})"
    ]


_YAML11 = "unquoted is {} to YAML 1.1 readers (Ansible, PyYAML) and {} to tpgen: {}"


@pytest.mark.parametrize(
    ("old", "new", "where", "message"),
    [
        ("name: n1", "name: 2024-01-01", "1: node.name",
         "2024-01-01 " + _YAML11.format("a date", "text", "quote it ('2024-01-01')")),
        ("name: n1", "name: 2024-01-01 10:00:00", "1: node.name",
         "2024-01-01 10:00:00 "
         + _YAML11.format("a date", "text", "quote it ('2024-01-01 10:00:00')")),
        ("name: n1", "name: !!timestamp 2024-01-01", "1: node.name",
         "2024-01-01 " + _YAML11.format("a date", "text", "quote it ('2024-01-01')")),
        ("cores: 4", "cores: 1:30", "1: node.cores",
         "1:30 " + _YAML11.format("a number", "text", "quote it ('1:30')")),
        ("name: n1", "name: off", "1: node.name",
         "off " + _YAML11.format(
             "false", "text", "write false for a boolean, or quote it ('off') for text")),
        ("name: n1", "name: n1, 2024-01-01: x", "1: node",
         "2024-01-01 " + _YAML11.format("a date", "text", "quote it ('2024-01-01')")),
        ("cores: 4", "cores: 4e0", "1: node.cores",
         "4e0 " + _YAML11.format(
             "text", "a number",
             "write it with a dot and a signed exponent (1.0e+3), or quote it for text")),
    ],
)  # fmt: skip
def test_unquoted_values_yaml_11_types_apart_are_refused_with_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str, where: str, message: str
) -> None:
    # The role reads the spec through Ansible (YAML 1.1): a date where tpgen read text.
    path = spec_file(tmp_path, GOOD.replace(old, new))
    assert validate(path, capsys) == [f"{path}:{where}: {message}"]


@pytest.mark.parametrize(
    "value",
    ["2024-01-01", "2024-1-1 1:02:03.5 +01:00", "2024-01-01t10:00:00Z", "1:30", "-1:30.5",
     "0755", "0b1_0", "0x_F", "1_0", "1_0.5", "1.", ".5e+3", "1e3", "1.5E+3", "+.INF", ".NaN",
     ".nan", "yes", "NO", "On", "oFF", "y", "~", "null", "NULL", "", "<<", "=", "==", "abc",
     "2024-01-01x", "12:60", "0:30", "0999"],
)  # fmt: skip
def test_yaml11_kinds_are_pyyaml_own(value: str) -> None:
    import yaml

    tag = yaml.resolver.Resolver().resolve(yaml.ScalarNode, value, (True, False))
    assert yaml11_kind(value) == tag.removeprefix("tag:yaml.org,2002:")


@pytest.mark.parametrize("value", ["+4", "4"])
def test_plain_decimal_numbers_read_as_written(value: str) -> None:
    assert load_spec_text(GOOD.replace("cores: 4", f"cores: {value}")).node.cores == int(value)


@pytest.mark.parametrize(
    ("field", "value"),
    [("cores", str(10**400)), ("cores", "1e400"), ("size", str(10**400)), ("size", "1e400"),
     ("size", ".nan"),
     ("size", "-.inf")],
)  # fmt: skip
def test_out_of_range_numbers_are_bad_input_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, value: str
) -> None:
    old = {"cores": "cores: 4", "size": "size: 1TB"}[field]
    path = spec_file(tmp_path, GOOD.replace(old, f"{field}: {value}"))
    (line,) = validate(path, capsys)
    where = {"cores": "1: node.cores", "size": "4: disks.0.size"}[field]
    assert line.startswith(f"{path}:{where}: ")


def test_not_utf8_names_line_column_and_offset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = spec_file(tmp_path, GOOD.encode().replace(b"name: d1", b"name: d\xe91"))
    assert validate(path, capsys) == [
        f"{path}:4: (top): not UTF-8 text: byte 0xe9 at column 13 (byte offset 117): "
        "save the spec as UTF-8"
    ]


def test_utf16_spec_is_refused_at_its_first_byte(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = spec_file(tmp_path, GOOD.encode("utf-16"))
    assert validate(path, capsys) == [
        f"{path}:1: (top): not UTF-8 text: byte 0xff at column 1 (byte offset 0): "
        "save the spec as UTF-8"
    ]


def test_a_utf8_byte_order_mark_is_fine(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = spec_file(tmp_path, "\ufeff" + GOOD)
    assert run(["validate", str(path)], capsys) == (0, [])


def test_spec_larger_than_1mib_is_refused_before_parsing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = spec_file(tmp_path, GOOD + "#" * (1 << 20) + "\n")
    assert validate(path, capsys) == [
        f"{path}: (top): cannot read the spec: is larger than 1 MiB, the most tpgen reads"
    ]


def test_a_50mb_spec_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "big.yaml"
    with path.open("wb") as handle:
        handle.truncate(50 << 20)
    (line,) = validate(path, capsys)
    assert line.endswith("cannot read the spec: is larger than 1 MiB, the most tpgen reads")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (GOOD + "---\nnode: {}\n", "6: (top): a second YAML document: a spec file holds one; "
         "remove it and the --- before it"),
        (GOOD + "node: {name: n2}\n", "5: node: duplicate key: already set on line 1; keep one"),
        (GOOD.replace("cores: 4", "cores: 4, cores: 5"),
         "1: node.cores: duplicate key: already set on line 1; keep one"),
        (GOOD + "1: x\n", "5: (top): key '1' is a number, not a name: quote it if it is meant "
         "as text"),
        (GOOD + "null: x\n", "5: (top): key 'null' is YAML's null, not a name: quote it if it "
         "is meant as text"),
        (GOOD + "[a]: b\n", "5: (top): a list cannot be a key: every key in a spec is a name "
         "(see `tpgen schema`)"),
        (GOOD + "? {a: 1}\n: b\n", "5: (top): a mapping cannot be a key: every key in a spec "
         "is a name (see `tpgen schema`)"),
        (GOOD.replace("cores: 4", "cores: !!python/object:os.system {}"),
         "1: node.cores: YAML tag !!python/object:os.system is not allowed in a spec: remove it"),
        (GOOD.replace("name: d1", "name: !!binary ZDE="),
         "4: disks.0.name: YAML tag !!binary is not allowed in a spec: remove it"),
        (GOOD.replace("type: cache", "type: !custom cache"),
         "2: workload.type: YAML tag !custom is not allowed in a spec: remove it"),
        (GOOD.replace("upstreams:", "upstreams: !!set").replace('["o.example.net:80"]',
                                                                '{"o.example.net:80"}'),
         "2: workload.upstreams: YAML tag !!set is not allowed in a spec: remove it"),
        ("a: {<<: 1}\n", f"1: a: {MERGE_FIX}"),
        ("x: &x [1]\na:\n  <<: [*x]\n", f"1: a: {MERGE_FIX}"),
        ("x: &x {b: 1}\na:\n  <<: [*x, \n    c]\n", f"4: a: {MERGE_FIX}"),
        ("a: &a [*a]\n", f"1: a.0: {ALIAS_LOOP}"),
        ("a: &a {b: *a}\n", f"1: a.b: {ALIAS_LOOP}"),
        ("a: {b: 1\n", "2: (top): not valid YAML: expected ',' or '}', but got '<stream end>' "
         f"at column 1: {FIX_YAML}"),
        ("a: *nowhere\n", "1: (top): not valid YAML: found undefined alias 'nowhere': mark the "
         "value it stands for with &nowhere, before the alias"),
        (GOOD.replace("cores: 4", "cores: !!bool maybe"),
         "1: node.cores: 'maybe' is not true or false: write e.g. true or remove the tag"),
        (GOOD.replace("cores: 4", "cores: !!int 4.5"),
         "1: node.cores: '4.5' is not a whole number: write e.g. 4 or remove the tag"),
        (GOOD.replace("cores: 4", "cores: !!int ''"),
         "1: node.cores: '' is not a whole number: write e.g. 4 or remove the tag"),
        (GOOD.replace("cores: 4", "cores: !!float abc"),
         "1: node.cores: 'abc' is not a number: write e.g. 1.5 or remove the tag"),
        (GOOD.replace("cores: 4", "cores: !!null 4"),
         "1: node.cores: '4' is not null: write e.g. ~ or remove the tag"),
        (GOOD.replace("name: n1", 'name: "\\U00110000"'),
         " (top): not valid YAML: a \\U escape in a double-quoted string names no character "
         "(U+0000 … U+10FFFF); fix it"),
        (GOOD.replace("name: n1", 'name: "\\ud800"'),
         "1: node.name: the escape for U+D800 (a UTF-16 surrogate) is not a character: write "
         "the character itself, or \\U and its 8 hex digits"),
        (GOOD.replace("cores: 4", "cores: !%ff 4"),
         "1: (top): not valid YAML: a tag's %-escapes are not UTF-8; remove the tag"),
        ("%YAML 1.3\n---\n" + GOOD,
         "1: (top): not valid YAML: %YAML 1.3: tpgen reads YAML 1.1 and 1.2; write %YAML 1.2, "
         "or remove the line"),
        ("%YAML 1.2\n---\n" + GOOD + "...\n%YAML 1.0\n---\na: 1\n",
         "8: (top): not valid YAML: %YAML 1.0: tpgen reads YAML 1.1 and 1.2; write %YAML 1.2, "
         "or remove the line"),
    ],
    ids=["two-documents", "duplicate-section", "duplicate-field", "int-key", "null-key",
         "list-key", "mapping-key", "python-tag", "binary-tag", "custom-tag", "set-tag",
         "merge-scalar", "merge-list-of-lists", "merge-list-with-text", "recursive-list",
         "recursive-map", "syntax", "undefined-alias", "bool-tag-on-text",
         "int-tag-on-float", "int-tag-on-empty", "float-tag-on-text", "null-tag-on-number",
         "escape-past-unicode", "escaped-surrogate", "tag-escape-not-utf8", "yaml-1.3-directive",
         "yaml-1.0-directive-of-a-second-document"],
)  # fmt: skip
def test_yaml_structure_a_spec_does_not_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    path = spec_file(tmp_path, text)
    assert validate(path, capsys) == [f"{path}:{expected}"]


def _disk_items(text: str) -> str:
    """Items of the spec's disks list, written flush left."""
    return textwrap.indent(textwrap.dedent(text), "  ")


# A spec whose first disk is an anchor, &hdd, for the disks a test appends.
ANCHORED = textwrap.dedent("""\
    node: {name: n1, cores: 4, memory: 8GiB}
    workload: {type: cache, upstreams: ["o.example.net:80"]}
    disks:
      - &hdd {name: d1, device: /dev/sdb, mount: /srv/cache/d1, size: 1TB, media: hdd}
    """)


def test_two_merge_keys_in_one_mapping_are_refused_with_the_one_key_form(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = ANCHORED + _disk_items("""\
          - &ssd {name: d2, device: /dev/sdc, mount: /srv/cache/d2, size: 1TB, media: ssd}
          - <<: *hdd
            <<: *ssd
            name: d3
            device: /dev/sdd
            mount: /srv/cache/d3
        """)
    path = spec_file(tmp_path, text)
    assert validate(path, capsys) == [
        f"{path}:7: disks.2: duplicate key <<: already set on line 6; merge several sources "
        "with one: <<: [*first, *second]"
    ]
    # The one-key form: the first source wins, as YAML's merge says.
    one_key = text.replace("<<: *hdd\n    <<: *ssd", "<<: [*hdd, *ssd]")
    spec_file(tmp_path, one_key)
    assert run(["validate", str(path)], capsys) == (0, [])
    assert load_spec_text(one_key).disks[2].media == "hdd"


def test_anchors_and_merge_keys_work_and_point_at_the_anchor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = ANCHORED + _disk_items("""\
          - <<: *hdd
            name: d2
            device: /dev/sdc
            mount: /srv/cache/d2
        """)
    path = spec_file(tmp_path, text)
    assert run(["validate", str(path)], capsys) == (0, [])
    spec_file(tmp_path, text.replace("media: hdd", "media: tape"))
    assert validate(path, capsys) == [
        f"{path}:4: disks.0.media: 'tape' is not allowed here: write 'hdd', 'ssd' or 'nvme'",
        f"{path}:4: disks.1.media: 'tape' is not allowed here: write 'hdd', 'ssd' or 'nvme'",
    ]


@pytest.mark.parametrize("kind", ["directory", "fifo", "socket", "dev-zero", "dev-null"])
def test_spec_that_is_not_a_regular_file_is_refused_without_reading(
    tmp_path: Path, kind: str
) -> None:
    path, shown = _special_file(tmp_path, kind)
    result = in_subprocess(["validate", str(path)], tmp_path)
    assert (result.returncode, result.stderr) == (
        2,
        f"{path}: (top): cannot read the spec: is {shown}, not a regular file\n",
    )


DASH = "tpgen reads no stdin: save the input to a file and name that file (./- for one named -)"


@pytest.mark.parametrize(
    ("args", "refused"),
    [
        (["validate", "-"], f"-: (top): cannot read the spec: {DASH}"),
        (["explain", "-"], f"-: (top): cannot read the spec: {DASH}"),
        (["locate", "-", "k"], f"-: (top): cannot read the spec: {DASH}"),
        (["remap", str(EXAMPLE), "-"], f"-: (top): cannot read the spec: {DASH}"),
        (["doctor", "-"], f"tpgen doctor: -: (top): cannot read the spec: {DASH}"),
        (["render", "--no-check", "--diff", "-", str(EXAMPLE)], f"tpgen: -: {DASH}"),
    ],
    ids=["validate", "explain", "locate", "remap", "doctor", "diff"],
)
def test_a_dash_for_stdin_says_tpgen_reads_files(
    tmp_path: Path, args: list[str], refused: str
) -> None:
    """'-' is stdin to many tools (and stdout to -o): read as a file's name, a missing one
    said only "No such file or directory"."""
    result = subprocess.run(
        [sys.executable, "-m", "tpgen", *args],
        cwd=tmp_path,
        env=ENV,
        input=EXAMPLE.read_text(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (result.returncode, result.stdout, result.stderr) == (2, "", refused + "\n")
    # A file that is named -, named so, is a spec like any other.
    (tmp_path / "-").write_text(EXAMPLE.read_text())
    assert in_subprocess(["validate", "./-"], tmp_path).returncode == 0


@pytest.mark.parametrize("kind", ["directory", "fifo", "socket", "dev-zero"])
def test_diff_against_a_file_that_is_not_regular_is_refused(tmp_path: Path, kind: str) -> None:
    path, shown = _special_file(tmp_path, kind)
    result = in_subprocess(["render", str(EXAMPLE), "--no-check", "--diff", str(path)], tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        f"tpgen: {path}: is {shown}, not a regular file\n",
    )


def _special_file(tmp_path: Path, kind: str) -> tuple[Path, str]:
    if kind == "directory":
        return tmp_path, "a directory"
    if kind == "fifo":
        os.mkfifo(tmp_path / "fifo")
        return tmp_path / "fifo", "a FIFO (named pipe)"
    if kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(tmp_path / "sock"))
        return tmp_path / "sock", "a socket"
    if kind == "chardev":  # /dev/zero's twin outside /dev, which spec paths never name
        os.mknod(tmp_path / "zero", stat.S_IFCHR | 0o600, os.makedev(1, 5))
        return tmp_path / "zero", "a character device"
    return Path(f"/dev/{kind.removeprefix('dev-')}"), "a character device"


@pytest.mark.parametrize("kind", ["directory", "fifo", "socket", "chardev"])
def test_an_extra_snippet_that_is_not_a_regular_file_is_refused_without_reading(
    tmp_path: Path, kind: str
) -> None:
    # /dev/zero never ends and a FIFO blocks on open: the snippet is refused from its stat.
    path, shown = _special_file(tmp_path, kind)
    spec = tmp_path / "spec.yaml"
    spec.write_text(EXAMPLE.read_text() + f"extra:\n  location:\n    - {path}\n")
    line = len(spec.read_text().splitlines())
    result = in_subprocess(["validate", str(spec)], tmp_path)
    assert (result.returncode, result.stderr) == (
        2,
        f"{spec}:{line}: extra.location.0: {path}: is {shown}, not a regular file: put the "
        "snippet there or fix the path (`tpgen validate` and `tpgen render --no-check` skip a "
        "snippet that is not here; the check needs it)\n",
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b"\x7fELF\x02\x01\x01\n\xff\xfe",
            "not UTF-8 text: byte 0xff at line 2, column 1 (byte offset 8)",
        ),
        (b"events {}\nhttp {\x00}\n", "a NUL byte at line 2, column 7: not a text file"),
    ],
    ids=["not-utf8", "nul"],
)
def test_binary_diff_file_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    binary = spec_file(tmp_path, content, "nginx.conf")
    code, lines = run(["render", str(EXAMPLE), "--no-check", "--diff", str(binary)], capsys)
    assert (code, lines) == (2, [f"tpgen: {binary}: {message}"])


@pytest.mark.parametrize("option", ["-o", "--diff"])
def test_an_empty_file_argument_is_refused_not_ignored(
    capsys: pytest.CaptureFixture[str], option: str
) -> None:
    code, lines = run(["render", str(EXAMPLE), "--no-check", option, ""], capsys)
    assert (code, lines) == (2, ["tpgen: '': an empty file name: name a file"])


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_doctor_reads_no_config_that_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    path, _shown = _special_file(tmp_path, kind)
    script = (
        "from tpgen.ops.doctor import HostSystem\n"
        f"try:\n    HostSystem().read_text({str(path)!r})\n"
        "except OSError as err:\n    print(err.strerror, err.filename)\n"
        f"try:\n    list(HostSystem().read_lines({str(path)!r}))\n"
        "except OSError as err:\n    print(err.strerror, err.filename)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], env=ENV, capture_output=True, text=True, timeout=60
    )
    assert result.stdout == f"not a regular file {path}\n" * 2


def test_undecodable_spec_file_name_is_escaped_in_every_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = os.fsdecode(b"sp\xffec\n.yaml")
    path = spec_file(tmp_path, GOOD.replace("cores: 4", "cores: 0"), name)
    assert validate(path, capsys) == [
        f"{tmp_path}/sp\\xffec\\n.yaml:1: node.cores: 0 is too small: write 1 or more"
    ]
    spec_file(tmp_path, GOOD, name)
    assert run(["validate", str(path)], capsys) == (0, [])


def test_render_with_a_hostile_file_name_adds_no_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = spec_file(tmp_path, EXAMPLE.read_text(), "plain.yaml")
    hostile = spec_file(tmp_path, EXAMPLE.read_text(), os.fsdecode(b"x\xff\nworker_processes 1;"))
    assert main(["render", str(plain), "--no-check"]) == 0
    expected = capsys.readouterr().out.splitlines()
    assert main(["render", str(hostile), "--no-check"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(expected) and out[1:] == expected[1:]


def test_locate_hashes_the_bytes_of_a_key_that_is_not_utf8(
    capsys: pytest.CaptureFixture[str],
) -> None:
    key, tab = os.fsdecode(b"/video/\xff\xfe.mp4"), "/a\tb"
    assert main(["locate", str(EXAMPLE), key, tab]) == 0
    plan = make_plan(spec_from_mapping(_example()))
    assert capsys.readouterr().out.splitlines() == [
        f"/video/\\xff\\xfe.mp4\t{bucket_for_key(plan, key)}\t{disk_for_key(plan, key)}",
        f"/a\\tb\t{bucket_for_key(plan, tab)}\t{disk_for_key(plan, tab)}",
    ]
    assert bucket_for_key(plan, key) != bucket_for_key(plan, "/video/\ufffd\ufffd.mp4")


def _example() -> Any:
    from tpgen.spec.load import read_spec_document

    return read_spec_document(EXAMPLE).data


# ------------------------------------------------------------------------------------ writing


def _render_to(target: Path | str, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    return run(["render", str(EXAMPLE), "--no-check", "-o", str(target)], capsys)


def test_output_onto_dev_full_keeps_the_device(capsys: pytest.CaptureFixture[str]) -> None:
    before = os.stat("/dev/full")
    assert _render_to("/dev/full", capsys) == (
        2,
        ["tpgen: /dev/full: is a character device: -o writes only a regular file or a new path"],
    )
    after = os.stat("/dev/full")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


def test_output_onto_a_symlink_is_refused_and_the_link_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = spec_file(tmp_path, "old config\n", "real.conf")
    link = tmp_path / "nginx.conf"
    link.symlink_to(real)
    assert _render_to(link, capsys) == (
        2,
        [
            f"tpgen: {link}: is a symbolic link (to {real}): -o replaces only a regular file, "
            "name the file the link points to"
        ],
    )
    assert os.readlink(link) == str(real) and real.read_text() == "old config\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nginx.conf", "real.conf"]


@pytest.mark.parametrize("how", ["same-path", "dotdot-path", "hard-link", "symlinked-spec"])
def test_output_onto_the_spec_itself_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    spec = spec_file(tmp_path, EXAMPLE.read_text())
    (tmp_path / "sub").mkdir()
    spec_arg, target = str(spec), str(spec)
    if how == "dotdot-path":
        target = f"{tmp_path}/sub/../spec.yaml"
    elif how == "hard-link":
        target = str(tmp_path / "hard.conf")
        os.link(spec, target)
    elif how == "symlinked-spec":
        spec_arg = str(tmp_path / "sub" / "link.yaml")
        os.symlink(spec, spec_arg)
    before = os.stat(spec)
    code, lines = run(["render", spec_arg, "--no-check", "-o", target], capsys)
    assert (code, lines) == (
        2,
        [f"tpgen: {target}: is the input {spec_arg} itself: write the config elsewhere"],
    )
    after = os.stat(spec)
    assert spec.read_text() == EXAMPLE.read_text() and after.st_ino == before.st_ino


@pytest.mark.parametrize("kind", ["directory", "fifo", "socket"])
def test_output_onto_a_special_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    path, shown = _special_file(tmp_path, kind)
    mode = os.lstat(path).st_mode
    assert _render_to(path, capsys) == (
        2,
        [f"tpgen: {path}: is {shown}: -o writes only a regular file or a new path"],
    )
    assert os.lstat(path).st_mode == mode


def test_output_into_a_missing_directory_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "etc" / "nginx.conf"
    assert _render_to(target, capsys) == (
        2,
        [f"tpgen: {target}: directory {tmp_path}/etc does not exist: create it first"],
    )
    assert list(tmp_path.iterdir()) == []


def test_output_keeps_mode_and_owner_and_replaces_atomically(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = spec_file(tmp_path, "old\n", "nginx.conf")
    target.chmod(0o640)
    if os.geteuid() == 0:
        os.chown(target, 4321, 8765)
    before = os.stat(target)
    assert _render_to(target, capsys) == (0, [])
    after = os.stat(target)
    assert target.read_text().startswith("# generated by tpgen from ")
    assert stat.S_IMODE(after.st_mode) == 0o640
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)
    assert after.st_ino != before.st_ino  # a rename, not a rewrite in place
    assert [p.name for p in tmp_path.iterdir()] == ["nginx.conf"]


def test_new_output_file_is_0644(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "nginx.conf"
    assert _render_to(target, capsys) == (0, [])
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o644


def test_a_failed_write_names_the_target_and_leaves_it_unchanged(tmp_path: Path) -> None:
    target = spec_file(tmp_path, "old\n", "nginx.conf")
    script = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))\n"
        "from tpgen.cli import main\n"
        f"sys.exit(main(['render', {str(EXAMPLE)!r}, '--no-check', '-o', {str(target)!r}]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], env=ENV, capture_output=True, text=True, timeout=60
    )
    assert (result.returncode, result.stderr) == (
        2,
        f"tpgen: {target}: cannot write: File too large\n",
    )
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["nginx.conf"]


# ----------------------------------------------------------------------- the node's commands
# guard, doctor --prometheus and purge name files too: the same rule as -o, and no open() that
# a FIFO could block (each run in a subprocess with a timeout: a hang fails, it cannot stall).

GUARD_FILES = {"--state": "the state", "--events": "the events", "--config": "the config"}


def _guard_args(tmp_path: Path, spec: Path, **paths: Path) -> list[str]:
    named = {
        "--state": tmp_path / "state.json",
        "--events": tmp_path / "events.jsonl",
        "--config": tmp_path / "nginx.conf",
        "--error-log": tmp_path / "error.log",
        **{f"--{key.replace('_', '-')}": path for key, path in paths.items()},
    }
    return [
        *("guard", str(spec), "--polls", "2", "--interval", "0.1", "--kernel-log", ""),
        *("--reload", "true", "--nginx", "true"),
        *(word for option, path in named.items() for word in (option, str(path))),
    ]


def _node_target(tmp_path: Path, kind: str, spec: Path) -> tuple[Path, str]:
    """A file a node command must not write: what it is, and how the refusal words it."""
    if kind == "spec":
        return spec, f"is the input {spec} itself: write {{holds}} elsewhere"
    if kind == "symlink":
        real = spec_file(tmp_path, "someone else's\n", "real.txt")
        (tmp_path / "link").symlink_to(real)
        return tmp_path / "link", (
            f"is a symbolic link (to {real}): {{option}} replaces only a regular file, name the "
            "file the link points to"
        )
    path, shown = _special_file(tmp_path, kind)
    return path, f"is {shown}: {{option}} writes only a regular file or a new path"


def _fingerprint(directory: Path) -> dict[str, tuple[int, int, int]]:
    # What "nothing changed" means: the same names, each the same kind of the same inode.
    return {
        p.name: (p.lstat().st_mode, p.lstat().st_ino, p.lstat().st_size)
        for p in directory.iterdir()
    }


@pytest.mark.parametrize("kind", ["symlink", "fifo", "chardev", "spec"])
@pytest.mark.parametrize("option", list(GUARD_FILES))
def test_guard_refuses_a_file_it_writes_that_is_not_its_own_regular_file(
    tmp_path: Path, option: str, kind: str
) -> None:
    spec = spec_file(tmp_path, EXAMPLE.read_text())
    target, message = _node_target(tmp_path, kind, spec)
    before = _fingerprint(tmp_path)
    args = _guard_args(tmp_path, spec, **{option.removeprefix("--"): target})
    result = in_subprocess(args, tmp_path)
    shown = message.format(option=option, holds=GUARD_FILES[option])
    assert (result.returncode, result.stderr) == (2, f"tpgen: {target}: {shown}\n")
    assert _fingerprint(tmp_path) == before
    assert spec.read_text() == EXAMPLE.read_text()


@pytest.mark.parametrize(
    ("paths", "refused"),
    [
        ({"state": "x", "events": "x"},
         "x: is --state's file too: give the events a file of its own"),
        ({"state": "s", "config": "./s"},
         "s: is --state's file too: give the config a file of its own"),
        ({"events": "e", "config": "sub/../e"},
         "sub/../e: is --events's file too: give the config a file of its own"),
        ({"events": "-"},
         "-: --events is a file guard writes (the events), not stdout: name a file "
         "(./- for one named -)"),
    ],
    ids=["state-events", "state-config", "events-config-dotdot", "dash"],
)  # fmt: skip
def test_guard_refuses_two_of_its_files_that_are_one_before_writing_either(
    tmp_path: Path, paths: dict[str, str], refused: str
) -> None:
    """Only existing files were compared: --state x --events x wrote the state to a new x, then
    refused the events there ("start failed") and exited 0; --config s --state s was taken."""
    (tmp_path / "sub").mkdir()
    spec = spec_file(tmp_path, EXAMPLE.read_text())
    before = _fingerprint(tmp_path)
    args = _guard_args(tmp_path, spec, **{k: Path(v) for k, v in paths.items()})
    result = in_subprocess(args, tmp_path)
    assert (result.returncode, result.stderr) == (2, f"tpgen: {refused}\n")
    assert _fingerprint(tmp_path) == before


def test_guard_reads_no_error_log_that_is_a_fifo(tmp_path: Path) -> None:
    fifo, shown = _special_file(tmp_path, "fifo")
    result = in_subprocess(_guard_args(tmp_path, EXAMPLE, error_log=fifo), tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"tpgen guard: warning: cannot read {fifo}: is {shown}, not a regular file\n" in (
        result.stderr
    )


@pytest.mark.parametrize("kind", ["symlink", "fifo", "chardev", "spec", "config"])
def test_doctor_writes_no_metrics_onto_a_link_a_device_or_a_file_it_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    spec = spec_file(tmp_path, EXAMPLE.read_text())
    config = spec_file(tmp_path, "the live config\n", "nginx.conf")
    if kind == "config":
        target, message = config, f"is the input {config} itself: write {{holds}} elsewhere"
    else:
        target, message = _node_target(tmp_path, kind, spec)
    before = _fingerprint(tmp_path)
    args = ["doctor", str(spec), "--config", str(config), "--prometheus", str(target)]
    code, lines = run(args, capsys)
    shown = message.format(option="--prometheus", holds="the metrics")
    assert (code, lines) == (2, [f"tpgen doctor: {target}: {shown}"])
    assert _fingerprint(tmp_path) == before
    assert spec.read_text() == EXAMPLE.read_text()


def test_purge_refuses_a_cache_file_that_is_a_fifo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mounts = [disk(i, mount=f"{tmp_path}/mnt/d{i}") for i in (1, 2)]
    spec = write_spec(
        tmp_path / "spec.yaml",
        node_spec("cache", disks=2, workload={"avg_object_size": "64MiB"}) | {"disks": mounts},
    )
    code = main(["locate", str(spec), "httpx/a.mp4", "--offset", "0"])
    out = capsys.readouterr().out
    assert code == 0
    first = Path(out.rstrip("\n").split("\t")[-1])  # the first slice's file
    first.parent.mkdir(parents=True)
    os.mkfifo(first)
    result = in_subprocess(["purge", "--dry-run", str(spec), "httpx/a.mp4"], tmp_path)
    assert (result.returncode, result.stderr) == (
        2,
        f"tpgen: {first}: is not a regular file, not what nginx writes in its cache: purge "
        "removes nothing; move it away by hand\n",
    )
    assert stat.S_ISFIFO(first.lstat().st_mode)


# ----------------------------------------------------------------------------------- messages


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        (("node", "cores"), "node.cores"),
        (("node.cores",), '"node.cores"'),
        (("disks", 0, "size"), "disks.0.size"),
        (("disks", "0"), 'disks."0"'),
        (("",), '""'),
        (("a b",), '"a b"'),
        (('say "hi"\\',), '"say \\"hi\\"\\\\"'),
        (("a\nb\x1b\u2028",), '"a\\nb\\x1b\\u2028"'),
        ((), "(top)"),
    ],
)
def test_path_parts_that_could_be_misread_are_quoted(
    path: tuple[str | int, ...], shown: str
) -> None:
    assert format_path(path) == shown


def test_printable_keeps_one_line_whatever_the_input() -> None:
    assert printable("a\nb\r\x00\x85\u2028é") == "a\\nb\\r\\x00\\x85\\u2028é"
    assert printable(os.fsdecode(b"\xff")) == "\\xff"


def test_a_top_level_key_with_a_dot_is_quoted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = spec_file(tmp_path, GOOD + '"node.cores": 4\n"x\\ny": 1\n')
    assert validate(path, capsys) == [
        f'{path}:5: "node.cores": unknown key: remove it or check its spelling '
        "(see `tpgen schema`)",
        f'{path}:6: "x\\ny": unknown key: remove it or check its spelling (see `tpgen schema`)',
    ]


def test_values_with_newlines_cannot_forge_extra_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    forged = "n1\\n/etc/passwd:1: node.name: fine\\u2028x\\x85y"
    path = spec_file(tmp_path, GOOD.replace("name: n1", f'name: "{forged}"'))
    (line,) = validate(path, capsys)
    assert line.startswith(
        f"{path}:1: node.name: 'n1\\n/etc/passwd:1: node.name: fine\\u2028x\\x85y' is not a "
        "lowercase host name"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            GOOD.replace("size: 1TB", "size: 500TB").replace(
                '"o.example.net:80"]', '"o.example.net:80"],\n  avg_object_size: 4KiB'
            ),
            ":3: workload.avg_object_size: keys_zones need ",
        ),
        (
            GOOD + "tuning:\n  worker_rlimit_nofile: 10\n",
            ":6: tuning.worker_rlimit_nofile: ",
        ),
    ],
    ids=["keys-zone-budget", "rlimit-nofile"],
)
def test_plan_stage_refusals_carry_the_line_of_their_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    path = spec_file(tmp_path, text)
    (line,) = validate(path, capsys)
    assert line.startswith(f"{path}{expected}"), line


def test_debug_shows_the_traceback_of_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr("tpgen.plan.make_plan", broken)
    assert main(["validate", str(EXAMPLE)]) == 3
    err = capsys.readouterr().err
    assert err == (
        "tpgen: internal error: RuntimeError: boom\\nsecond line (run with --debug and report it)\n"
    )
    assert main(["--debug", "validate", str(EXAMPLE)]) == 3
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):\n")
    assert "\nRuntimeError: boom\nsecond line\ntpgen: internal error: RuntimeError: boom" in err


def test_version_does_not_import_the_library() -> None:
    script = (
        "import sys\nfrom tpgen.cli import main\nmain(['--version'])\n"
        "print(sorted(m for m in ('pydantic', 'ruamel.yaml', 'jinja2', 'tpgen.spec.load') "
        "if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], env=ENV, capture_output=True, text=True, timeout=60
    )
    assert result.stdout.splitlines()[-1] == "[]"


# ------------------------------------------------------------------------------ property test

# One problem line: file[:line]: path: message, where a path is (top) or dotted parts, each a
# bare name, an index or a quoted string; nothing non-printable anywhere.
_PART = r'(?:[A-Za-z_][A-Za-z0-9_-]*|\d+|"(?:[^"\\]|\\.)*")'
PROBLEM_LINE = re.compile(rf"^(?P<file>.+?)(?::\d+)?: (?:\(top\)|{_PART}(?:\.{_PART})*): \S.*$")

_FRAGMENTS = [
    GOOD, "node:", "workload:", "disks:", "  - ", "{", "}", "[", "]", ", ", ": ", "\n", "  ",
    "&a ", "*a", "&b ", "*b", "<<: ", "? ", "---\n", "...\n", "!!python/object:os.system ",
    "!tag ", "!!set ", "!!binary ", "%YAML 1.1\n", "'", '"', "\\n", "\\x00", "#", "|\n", ">-\n",
    "cores", "size", "name", "media: hdd", "1TB", "9" * 50, "0x" + "f" * 40, "1e400", ".nan",
    "null", "true", "~", "2024-01-01", "1:2:3", "node.cores", "\x00", "\x07", "\x1b", "\t",
    "\r", "\u2028", "\x85", "\ufeff", "é",
]  # fmt: skip


def _junk() -> Any:
    from hypothesis import strategies as st

    text = st.lists(st.sampled_from(_FRAGMENTS) | st.text(max_size=8), max_size=40).map("".join)
    raw = st.binary(max_size=200)
    return st.one_of(
        text.map(lambda t: t.encode("utf-8", "surrogatepass")),
        raw,
        st.tuples(text, raw).map(lambda p: p[0].encode("utf-8", "surrogatepass") + p[1]),
    )


def test_any_input_exits_0_or_2_with_one_problem_per_line(tmp_path: Path) -> None:
    import contextlib
    import io

    from hypothesis import HealthCheck, given, settings

    path = tmp_path / "junk.yaml"

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(_junk())
    def check(data: bytes) -> None:
        path.write_bytes(data)
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main(["validate", str(path)])
        lines = err.getvalue().splitlines()
        assert code in (0, 2), lines
        assert (code == 0) == (lines == []), lines
        for line in lines:
            assert PROBLEM_LINE.match(line) and line.isprintable(), line
            assert line.startswith(f"{path}"), line

    check()


@pytest.mark.parametrize(
    ("ca_file", "why"),
    [
        ("missing.pem", "{path}: No such file or directory: put the file there or fix the path"),
        ("not-pem.txt", "{path} is not a PEM file of certificates (the origins' CAs)"),
        ("", "{path}: is a directory, not a regular file: put the file there or fix the path"),
    ],
    ids=["missing", "not-pem", "directory"],
)
def test_an_origin_ca_bundle_the_check_cannot_read_is_one_line_not_nginx_s_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ca_file: str, why: str
) -> None:
    """nginx -t reads origin.ca_file at its path (the offline check too): render's check and
    validate --tls-files refuse a bundle that is not there or holds no certificate with exit 2
    and the field, where nginx -t's SSL_CTX_load_verify_locations error was exit 1."""
    (tmp_path / "not-pem.txt").write_text("root:x:0:0:root:/root:/bin/bash\n")
    path = str(tmp_path / ca_file).rstrip("/")
    data = node_spec(
        workload={"upstreams": ["192.0.2.1:443"]},
        origin={"tls": True, "server_name": "o.example.net", "ca_file": path},
    )
    spec = write_spec(tmp_path / "spec.yaml", data)
    line = spec.read_text().splitlines().index(f"  ca_file: {path}") + 1
    for args in (["render", str(spec)], ["validate", "--tls-files", str(spec)]):
        code, lines = run(args, capsys)
        assert (code, lines) == (2, [f"{spec}:{line}: origin.ca_file: {why.format(path=path)}"])
    assert run(["validate", str(spec)], capsys) == (0, [])
    assert run(["render", "--no-check", str(spec)], capsys)[0] == 0


@pytest.mark.parametrize(
    ("section", "field"),
    [
        ("disks", "name"),
        ("nginx", "version"),
        ("tuning", "user"),
        ("tuning", "group"),
        ("cache", "bypass"),
        ("tuning", "worker_rlimit_nofile"),
    ],
)
def test_a_huge_value_is_not_echoed_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], section: str, field: str
) -> None:
    """A 5,000-character name made a 5 KB line, and 10**200 descriptors 436 characters of
    digits: what is wrong by its size is shown cut, with its length."""
    data = node_spec()
    value: object = 10**200 if field == "worker_rlimit_nofile" else "a" * 5000 + ";"
    if section == "disks":
        data["disks"][0][field] = value
    elif field == "bypass":
        data["cache"] = {"bypass": {"header": value}}
    else:
        data[section] = {field: value}
    (line,) = validate(write_spec(tmp_path / "spec.yaml", data), capsys)
    assert len(line) < 400, line
