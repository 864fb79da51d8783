"""The renderer is safe on its own: a Plan built by hand (plugins build plans) with hostile
strings is refused or rendered inert, whatever the model would have let through."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import crossplane
import pytest
from tpgen.plan import Plan, make_plan
from tpgen.render import _ENV, UnsafeValue, nginx_literal, render_config
from tpgen.spec.load import spec_from_mapping

from .specs import spec

PAYLOADS = [
    "\n",
    ";",
    " }",
    "{",
    '"',
    "'",
    "$y",
    "#",
    "\\",
    " y",
    "\0",
    "\u2028",
    "]",
    "%",
    "::%x]:80; } server { listen [::1",
    "/../../etc",
]
HOSTILE = [f"x{payload}" for payload in PAYLOADS]


@pytest.mark.parametrize("kind", ["name", "path", "address", "key", "number", "duration"])
@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_nginx_literal_refuses_what_the_tokenizer_would_split(kind: Any, value: str) -> None:
    if kind == "key" and value in ("x$y", "x/../../etc"):
        assert nginx_literal(value, kind) == value  # variables and / make cache keys
        return
    with pytest.raises(UnsafeValue, match=r"cannot be written into nginx.conf as a "):
        nginx_literal(value, kind)


def test_nginx_literal_passes_real_values_unchanged() -> None:
    assert nginx_literal("cache_d1", "name") == "cache_d1"
    assert nginx_literal("/srv/cache/d1/cache", "path") == "/srv/cache/d1/cache"
    assert nginx_literal("[2001:db8::1]:80", "address") == "[2001:db8::1]:80"
    assert nginx_literal("origin.example.net:8080", "address") == "origin.example.net:8080"
    assert nginx_literal("$scheme$host$request_uri", "key") == "$scheme$host$request_uri"
    assert nginx_literal("1h30m", "duration") == "1h30m"
    assert nginx_literal(65536, "number") == "65536"


def test_a_comment_escapes_instead_of_refusing() -> None:
    assert nginx_literal("a\nuser root;\\ \u2028\0\udcff", "comment") == (
        "a\\nuser root;\\\\ \\u2028\\x00\\udcff"
    )


def test_the_template_cannot_print_a_string_without_a_kind() -> None:
    with pytest.raises(UnsafeValue, match="without nginx_literal"):
        _ENV.from_string("user {{ value }};").render(value="www-data")
    with pytest.raises(UnsafeValue, match="without nginx_literal"):
        _ENV.from_string("user {{ value }};").render(value=True)


def _tree(text: str, tmp: Path) -> list[Any]:
    conf = tmp / "plan.conf"
    conf.write_text(text, encoding="utf-8")
    payload = crossplane.parse(str(conf), single=True, check_ctx=False, check_args=False)
    assert payload["status"] == "ok", payload["errors"]

    def shape(block: list[dict[str, Any]]) -> list[Any]:
        return [(d["directive"], len(d["args"]), shape(d.get("block") or [])) for d in block]

    return shape(payload["config"][0]["parsed"])


def _string_slots(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every str inside a Plan: its own fields, its Decisions, disks, pools, zones, upstreams."""
    if isinstance(value, str):
        yield path
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from _string_slots(getattr(value, field.name), (*path, field.name))
    elif isinstance(value, tuple):
        # The first two and the last item: every template loop treats the others alike.
        for index, item in enumerate(value):
            if index < 2 or index == len(value) - 1:
                yield from _string_slots(item, (*path, index))


def _replace(value: Any, path: tuple[Any, ...], new: str) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, tuple):
        return tuple(_replace(v, rest, new) if i == head else v for i, v in enumerate(value))
    return dataclasses.replace(value, **{head: _replace(getattr(value, head), rest, new)})


FEW_BUCKETS = {"buckets": 100}
PLANS = {
    "cache": spec("cache", 3, workload={"upstreams": ["192.0.2.1:80"]}, tuning=FEW_BUCKETS),
    "cache-name": spec("cache", 2, workload={"resolver": ["192.0.2.53"]}, tuning=FEW_BUCKETS),
    "vod": spec("vod", 3, tuning=FEW_BUCKETS),
}


@pytest.mark.parametrize("kind", list(PLANS))
def test_a_hand_built_plan_with_hostile_strings_is_refused_or_inert(
    kind: str, tmp_path: Path
) -> None:
    data = PLANS[kind]
    data["disks"][1]["state"] = "draining"
    plan: Plan = make_plan(spec_from_mapping(data, "p.yaml"), "p.yaml")
    slots = list(_string_slots(plan))
    assert ("source",) in slots and ("disks", 0, "dir") in slots
    refused = 0
    for slot in slots:
        # A bare word takes the same template branches as the hostile text built on it, so the
        # two configs must have one tree: a difference is text that became structure.
        try:
            control_text: str | None = render_config(_replace(plan, slot, "x"))
        except UnsafeValue:
            control_text = None
        for hostile in HOSTILE:
            try:
                text = render_config(_replace(plan, slot, hostile))
            except UnsafeValue:
                refused += 1
                continue
            assert control_text is not None, (slot, hostile)
            if text != control_text:
                assert _tree(text, tmp_path) == _tree(control_text, tmp_path), (slot, hostile)
    assert refused > len(HOSTILE) * 10  # most slots are printed, and every hostile one refused


def test_path_parts_cannot_climb() -> None:
    with pytest.raises(UnsafeValue):
        nginx_literal("/srv/../etc", "path")
