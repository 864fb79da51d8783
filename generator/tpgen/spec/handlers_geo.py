"""What nginx refuses of a ``geo`` block, ported from ngx_http_geo_block and ngx_http_geo
(src/http/modules/ngx_http_geo_module.c; stream's ngx_stream_geo_module.c reads the same body
without proxy and proxy_recursive): the variables' $, an entry's word count, ``ranges`` only
first, a network ngx_ptocidr does not read (low bits set past the mask are only warned about, a
duplicate network too: the later value wins), and in ranges mode a range that is not
ADDR-ADDR with the lower first, or that overlaps a range before it partly
(ngx_http_geo_add_range: a range inside another splits it, one across two is refused).
"""

from __future__ import annotations

from collections.abc import Sequence

from tpgen.spec.nginx_addresses import cidr_problem, inet_addr
from tpgen.spec.nginx_syntax import Directive
from tpgen.spec.nginx_table import Where

_FORMS = "NETWORK VALUE;, default VALUE;, delete NETWORK;, proxy NETWORK;, ranges;"


def _network(word: str) -> str | None:
    """ngx_http_geo_cidr_value: 255.255.255.255, or what ngx_ptocidr reads."""
    if word == "255.255.255.255" or not cidr_problem(word):
        return None
    return (
        f"{word!r} is no network nginx reads (nginx: invalid network): write an address, "
        "IPv4 or IPv6, with an optional /bits (10.0.0.0/8)"
    )


def _range(word: str) -> tuple[int, int] | None:
    """ngx_http_geo_range: ADDR-ADDR, each read by ngx_inet_addr, the lower first."""
    first, dash, last = word.partition("-")
    start, end = inet_addr(first), inet_addr(last)
    if not dash or start is None or end is None or start > end:
        return None
    return start, end


class _Ranges:
    """The pieces ngx_http_geo_add_range keeps per 64K block of addresses."""

    def __init__(self) -> None:
        self.blocks: dict[int, list[tuple[int, int]]] = {}

    def _parts(self, start: int, end: int) -> list[tuple[int, int, int]]:
        return [
            (
                block,
                start & 0xFFFF if block == start >> 16 else 0,
                end & 0xFFFF if block == end >> 16 else 0xFFFF,
            )
            for block in range(start >> 16, (end >> 16) + 1)
        ]

    def add(self, start: int, end: int) -> bool:
        """Whether nginx takes the range after those before it (False: it overlaps)."""
        for block, low, high in self._parts(start, end):
            pieces = self.blocks.setdefault(block, [])
            inside = [p for p in pieces if not (high < p[0] or low > p[1])]
            if not inside:
                pieces.append((low, high))
                pieces.sort()
                continue
            if len(inside) > 1 or not (inside[0][0] <= low and high <= inside[0][1]):
                return False
            old = inside[0]
            pieces.remove(old)
            around = [(old[0], low - 1), (low, high), (high + 1, old[1])]
            pieces.extend(p for p in around if p[0] <= p[1])
            pieces.sort()
        return True

    def delete(self, start: int, end: int) -> None:
        for block, low, high in self._parts(start, end):
            pieces = self.blocks.get(block, [])
            if (low, high) in pieces:
                pieces.remove((low, high))


def _entry(words: Sequence[str], ranges: _Ranges | None, stream: bool) -> str | None:
    """One two-word entry of the body (ranges: None in cidr mode)."""
    key, value = words
    if key == "proxy" and not stream:
        return _network(value)
    if key == "default":
        return None
    net = value if key == "delete" else key
    if ranges is None:
        return _network(net)
    found = _range(net)
    if found is None:
        return (
            f"{net!r} is no range nginx reads (nginx: invalid range): write "
            "FIRST-LAST, two IPv4 addresses, the lower first"
        )
    if key == "delete":
        ranges.delete(*found)
    elif not ranges.add(*found):
        return (
            f"the range {net!r} overlaps a range before it partly (nginx: range … overlaps): "
            "split it, or put it wholly inside the other"
        )
    return None


def _word_count(entry: Directive, stream: bool) -> str | None:
    if entry.block is not None:
        return 'an entry of a geo is NETWORK VALUE; not a block (nginx: unexpected "{")'
    words = (entry.name, *entry.args)
    singles = ("ranges",) if stream else ("ranges", "proxy_recursive")
    if (len(words) == 1 and words[0] in singles) or len(words) == 2:
        return None
    return (
        f"the geo entry {' '.join(words)!r} is none of {_FORMS} (nginx: invalid number of the "
        "geo parameters): quote a value with spaces"
    )


def _variables(args: Sequence[str]) -> str | None:
    wrong = next((arg for arg in args if not arg.startswith("$")), None)
    if wrong is not None:
        return (
            f"takes variables, starting with $, not {wrong!r} (nginx: invalid variable name): "
            "geo [$address] $variable { … }"
        )
    if len(args) == 2 and args[0] == "$":
        # ngx_http_get_variable_index; the defined one's "$" is directives._redefined's.
        return (
            'reads the variable "$", which has no name (nginx: invalid variable name "$"): '
            "name it, $remote_addr or another: all that follows the $, with no braces"
        )
    return None


def geo_check(directive: Directive, place: Where) -> str | None:
    """The handler of the table's kind "geo" (ngx_http_geo_block, ngx_stream_geo_block)."""
    refused = _variables(directive.args)
    stream = place.context.startswith("stream")
    ranges: _Ranges | None = None
    started = False
    for entry in directive.block or ():
        if entry.name == "include" and len(entry.args) == 1:
            continue  # ngx_http_geo_include: tpgen refuses any include in a snippet (snippets.py)
        found = refused or _word_count(entry, stream)
        if found is None and entry.name == "ranges" and not entry.args:
            if started:
                found = (
                    'ranges comes after an entry (nginx: the "ranges" directive must be the '
                    'first directive inside "geo" block): move it first'
                )
            ranges = ranges or _Ranges()
        elif found is None and entry.args:
            started = started or (ranges is None and entry.name != "proxy")
            found = _entry((entry.name, entry.args[0]), ranges, stream)
        if found:
            return f"line {entry.line}: {found}"
    return refused
