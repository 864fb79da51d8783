"""What nginx refuses of a charset_map block, ported from ngx_http_charset_map_block and
ngx_http_charset_map (src/http/modules/ngx_http_charset_filter_module.c, the same in nginx 1.19
to 1.31): two charsets that differ (nginx compares the names caseless), then each line of the
body CODE VALUE; with CODE a hex number up to FF, VALUE one too, or towards utf-8 (any case)
the UTF-8 bytes of a character up to U+FFFF in hex (ngx_utf8_decode). nginx writes each line
into a table of four bytes per code as it reads, and an empty UTF-8 value decodes what the
table holds there: the table is kept here as nginx keeps it. A second map between the same
two charsets is a duplicate (directives.unique_key).
"""

from __future__ import annotations

import string

from tpgen.spec.nginx_syntax import Directive
from tpgen.spec.nginx_table import Where

_UTF_LEN = 4  # NGX_UTF_LEN: bytes per code in the table towards utf-8
_HEX = frozenset(string.hexdigits)
_FORM = "CODE VALUE; in hex (A8 B8;, towards utf-8 A8 D081;)"
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def _fold(name: str) -> str:
    """ngx_strcasecmp folds ASCII letters only."""
    return name.translate(_ASCII_LOWER)


def hex_value(text: str) -> int | None:
    """ngx_hextoi: hex digits of any case; None where nginx returns NGX_ERROR."""
    if not text or not set(text) <= _HEX:
        return None
    return int(text, 16)


def _utf8_table() -> bytearray:
    """ngx_http_charset_map_block's table towards utf-8 before the body: ASCII as itself,
    the other codes '?'."""
    table = bytearray(256 * _UTF_LEN)
    for code in range(256):
        table[code * _UTF_LEN] = 1
        table[code * _UTF_LEN + 1] = code if code < 128 else ord("?")
    return table


def _decoded(table: bytearray, at: int, length: int) -> int:
    """ngx_utf8_decode of ``length`` bytes of the table from ``at``: the code point, or above
    0xFFFF where nginx refuses it (invalid or incomplete)."""
    lead = table[at]
    if lead >= 0xF0:
        return 0xFFFFFFFF  # four bytes: above U+FFFF, or invalid
    if lead >= 0xE0:
        follow, valid = 2, 0x7FF
    elif lead >= 0xC2:
        follow, valid = 1, 0x7F
    else:
        return 0xFFFFFFFF
    # nginx's length is unsigned: none at all passes this test and reads on.
    if length and length - 1 < follow:
        return 0xFFFFFFFE
    point = _continued(table, at, lead & (0x0F if follow == 2 else 0x1F), follow)
    return point if point > valid else 0xFFFFFFFF


def _continued(table: bytearray, at: int, point: int, follow: int) -> int:
    for index in range(at + 1, at + 1 + follow):
        byte = table[index] if index < len(table) else 0
        if byte < 0x80:
            return 0xFFFFFFFF
        point = (point << 6) | (byte & 0x3F)
    return point


def _to_utf8(table: bytearray, code: int, value: str) -> bool:
    """Write one line into the table as ngx_http_charset_map does; whether nginx takes it."""
    start = code * _UTF_LEN
    written = [len(value) // 2]
    for index in range(0, len(value), 2):
        # nginx reads two characters, the string's terminating NUL after an odd last one.
        byte = hex_value(value[index : index + 2] if index + 1 < len(value) else "\0")
        if byte is None or byte > 255:
            return False
        written.append(byte)
    for offset, byte in enumerate(written):
        if start + offset < len(table):
            table[start + offset] = byte
    return _decoded(table, start + 1, len(written) - 1) <= 0xFFFF


def _entry_problem(entry: Directive, table: bytearray | None) -> str | None:
    words = (entry.name, *entry.args)
    if entry.block is not None:
        return f'a line of a charset_map is {_FORM}, not a block (nginx: unexpected "{{")'
    if len(words) != 2:
        return f"the line {' '.join(words)!r} is not {_FORM} (nginx: invalid parameters number)"
    code = hex_value(words[0])
    if code is None or code > 255:
        return (
            f'takes a code of 00 to FF in hex, not {words[0]!r} (nginx: invalid value "{words[0]}")'
        )
    if table is not None:
        taken = _to_utf8(table, code, words[1])
        what = "the UTF-8 bytes of a character up to U+FFFF in hex (D081)"
    else:
        value = hex_value(words[1])
        taken = value is not None and value <= 255
        what = "a code of 00 to FF in hex"
    if taken:
        return None
    return f'takes {what} after the code, not {words[1]!r} (nginx: invalid value "{words[1]}")'


def charset_map_check(directive: Directive, place: Where) -> str | None:
    """ngx_http_charset_map_block: the charsets, then each line of the body in order."""
    source, target = directive.args
    if _fold(source) == _fold(target):
        return (
            f"maps a charset to itself ({source!r} and {target!r}: nginx compares them "
            f'caseless) (nginx: "charset_map" between the same charsets "{source}" and '
            f'"{target}"): name two charsets'
        )
    table = _utf8_table() if _fold(target) == "utf-8" else None
    for entry in directive.block or ():
        found = _entry_problem(entry, table)
        if found:
            return f"line {entry.line}: {found}"
    return None


def charset_pair(args: tuple[str, ...]) -> str:
    """The two charsets of a charset_map as nginx tells a duplicate: caseless, either way."""
    return " and ".join(sorted(_fold(arg) for arg in args))
