"""spec/handlers_charset_map.py: what nginx refuses of a charset_map, with the fix (the real
nginx's verdicts are tests/nginx_tables.py HANDLER_CASES')."""

from __future__ import annotations

import pytest

from .nginx_tables import reasons


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "charset_map koi8-r KOI8-R { }",
            "maps a charset to itself ('koi8-r' and 'KOI8-R': nginx compares them caseless) "
            '(nginx: "charset_map" between the same charsets "koi8-r" and "KOI8-R"): name two '
            "charsets",
        ),
        (
            "charset_map a b { }\ncharset_map B A { }",
            "a second charset_map 'a and b' in this block, which nginx refuses as a duplicate",
        ),
        (
            "charset_map a b {\n80 81;\n1 2 3;\n}",
            "line 3: the line '1 2 3' is not CODE VALUE; in hex (A8 B8;, towards utf-8 A8 "
            "D081;) (nginx: invalid parameters number)",
        ),
        (
            "charset_map a b { 100 1; }",
            "line 1: takes a code of 00 to FF in hex, not '100' (nginx: invalid value \"100\")",
        ),
        (
            "charset_map a b { 80 0x41; }",
            "takes a code of 00 to FF in hex after the code, not '0x41' (nginx: invalid value",
        ),
        (
            "charset_map a utf-8 { 80 E08080; }",
            "takes the UTF-8 bytes of a character up to U+FFFF in hex (D081) after the code, "
            "not 'E08080' (nginx: invalid value \"E08080\")",
        ),
        ("charset_map a utf-8 { 80 F0908080; }", "not 'F0908080' (nginx: invalid value"),
        ("charset_map a utf-8 { 80 ''; }", "not '' (nginx: invalid value \"\")"),
        ("charset_map a b { 80 { } }", 'not a block (nginx: unexpected "{")'),
    ],
)
def test_what_nginx_refuses_of_a_charset_map_is_said_with_the_fix(text: str, expected: str) -> None:
    (reason,) = reasons(text + "\n", "http")
    assert expected in reason


@pytest.mark.parametrize(
    "body",
    [
        # An empty value decodes what the table holds for the code: the line before's bytes.
        "80 D0B0; 80 '';",
        # ngx_utf8_decode takes any byte from 80 on after the first, and reads no further.
        "80 D0C1; 81 D0B041; 82 EDA080;",
    ],
)
def test_a_utf8_line_nginx_decodes_passes(body: str) -> None:
    assert reasons(f"charset_map windows-1251 Utf-8 {{ {body} }}\n", "http") == []
