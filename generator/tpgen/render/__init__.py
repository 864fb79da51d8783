"""Plan → nginx.conf text. Pure: the templates lay out what the plan decided.

Every value reaches the text through ``nginx_literal``: a token nginx's tokenizer reads as one
argument (strict allow-list per kind), or a comment that cannot end early. The environment's
``finalize`` refuses any other string, so a template line that forgets the filter fails at
render time instead of writing what a plugin or a spec put in a Plan.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from jinja2 import Environment, PackageLoader, StrictUndefined

from tpgen.plan import Plan
from tpgen.spec.units import nginx_size

Kind = Literal[
    "name",
    "path",
    "address",
    "ip",
    "network",
    "mime",
    "key",
    "number",
    "duration",
    "levels",
    "quoted",
    "number_param",
    "parameter",
    "server_name",
    "ciphers",
    "comment",
]

# What each kind may hold. None of them holds whitespace, ; { } # quotes or backslash, so a
# token is one argument wherever the template puts it; only ``key`` holds $ (variables).
_ALLOWED: dict[str, re.Pattern[str]] = {
    "name": re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,252}"),
    "path": re.compile(r"(/[A-Za-z0-9_.+:-]+)+|/"),
    "address": re.compile(r"(\[[0-9a-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?"),
    "ip": re.compile(r"[0-9A-Fa-f:.]+"),
    "mime": re.compile(r"[a-z]+/[A-Za-z0-9.+-]+"),
    "key": re.compile(r"(\$[A-Za-z_][A-Za-z0-9_]*|[A-Za-z0-9/:._-])+"),
    "number": re.compile(r"[0-9]+(\.[0-9]+)?[A-Za-z%]{0,2}"),
    "duration": re.compile(r"([0-9]+[A-Za-z]{0,2})+"),
    "levels": re.compile(r"[12](:[12]){0,2}"),
    "network": re.compile(r"[0-9A-Fa-f:.]+/[0-9]{1,3}"),
    # a server line's parameter: weight=2, fail_timeout=10s, backup
    # nginx times in any form the spec takes: 1m30s, 1M (a month)
    "number_param": re.compile(r"[a-z_]+(=([0-9]+[A-Za-z]{0,2})+)?"),
    # The inside of a '...' string (a log format): printable ASCII without ' and backslash, so
    # the string cannot end early or escape; $variables are the point of it.
    "quoted": re.compile(r"[ -&(-\[\]-~]+"),
    "parameter": re.compile(r"[a-z0-9_]+(=[a-z0-9]+)?"),
    "server_name": re.compile(r"(\*\.)?[a-z0-9][a-z0-9.-]{0,252}"),
    "ciphers": re.compile(r"[A-Z0-9-]+(:[A-Z0-9-]+)*"),
}
_WHAT = {
    "name": "letters, digits and _ . - (a name)",
    "path": "an absolute path of letters, digits and _ . + : -",
    "address": "an address: host, IPv4 or [IPv6], then an optional :port",
    "ip": "an IPv4 or IPv6 address",
    "mime": "a media type like text/html",
    "key": "$variables and letters, digits and / : . _ -",
    "number": "a number with an optional unit",
    "duration": "an nginx duration like 7d or 1h30m",
    "levels": "cache levels like 1:2",
    "network": "a network in CIDR form like 10.0.0.0/8",
    "number_param": "a parameter like weight=2, fail_timeout=10s or backup",
    "quoted": "printable ASCII without quotes ' or backslashes",
    "parameter": "a listen parameter like reuseport or backlog=511",
    "server_name": "a host name, or *. and a host name",
    "ciphers": "OpenSSL cipher names separated by colons",
}
# nginx reads a token (and a # comment) into its 4096-byte NGX_CONF_BUFFER: one of 4096 bytes
# or more, counted from its opening quote or #, fails nginx -t ("too long parameter"). 4094
# leaves room for the quote of a quoted one.
TOKEN_MAX = 4094
# A value shown in a comment, escaped: the header line holds two (the spec's path and the
# node's name) within nginx's limit for the whole line.
COMMENT_VALUE_MAX = 1024
_CUT = "..."


class UnsafeValue(ValueError):
    """A Plan value that cannot be written into nginx.conf as the token its place needs."""


class Token(str):
    """Text that passed ``nginx_literal``: the only strings the templates may print."""

    __slots__ = ()


def _comment(value: str) -> str:
    # Printable ASCII stays; everything else (newlines, NUL, U+2028, undecodable bytes that
    # Python carries as surrogates) is shown as a Python escape, so the comment stays one line.
    # Cut after escaping (an escape is up to 10 characters), never inside an escape.
    out: list[str] = []
    length = 0
    for ch in value:
        if ch == "\\":
            shown = "\\\\"
        elif " " <= ch <= "~":
            shown = ch
        else:
            shown = ch.encode("unicode_escape").decode("ascii")
        if length + len(shown) > COMMENT_VALUE_MAX - len(_CUT):
            out.append(_CUT)
            break
        out.append(shown)
        length += len(shown)
    return "".join(out)


def nginx_literal(value: object, kind: Kind) -> Token:
    """``value`` as one safe nginx token of ``kind``, or raise UnsafeValue.

    ``comment`` never refuses: it escapes, so any file name can be shown in the header.
    """
    if kind == "comment":
        return Token(_comment(str(value)))
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise UnsafeValue(f"{value!r} is a {type(value).__name__}, not a {kind}")
    text = str(value)
    pattern = _ALLOWED[kind]
    if len(text) > TOKEN_MAX or not pattern.fullmatch(text) or (kind == "path" and ".." in text):
        raise UnsafeValue(
            f"{text!r} cannot be written into nginx.conf as a {kind}: it must be {_WHAT[kind]}"
        )
    return Token(text)


def _finalize(value: object) -> object:
    if isinstance(value, Token | _Layout) or (
        isinstance(value, int | float) and not isinstance(value, bool)
    ):
        return value
    raise UnsafeValue(
        f"the template prints {value!r} without nginx_literal: every value needs a kind"
    )


class _Layout(str):
    """Text the template itself produced (a macro's output), already made of tokens."""

    __slots__ = ()


def _words(values: Iterable[object], kind: Kind) -> _Layout:
    """Several arguments of one kind, each a token, separated by spaces."""
    return _Layout(" ".join(nginx_literal(value, kind) for value in values))


def _column(token: object, width: int) -> _Layout:
    """A token padded to ``width`` (at least two spaces), so a table's next column lines up."""
    if not isinstance(token, Token):
        raise UnsafeValue(f"{token!r} is padded without nginx_literal")
    return _Layout(token + " " * max(2, width - len(token)))


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("tpgen.render", "templates"),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=_finalize,
    )
    env.filters["nginx_literal"] = nginx_literal
    env.filters["nginx_size"] = lambda num, units="gmk": nginx_literal(
        nginx_size(num, units), "number"
    )
    env.filters["layout"] = _Layout
    env.filters["words"] = _words
    env.filters["column"] = _column
    return env


_ENV = _environment()


def render_config(plan: Plan) -> str:
    """The complete nginx.conf for a plan; the same plan always gives the same bytes.

    Raises UnsafeValue when a value (from a hand-built Plan) is not a safe token.
    """
    return _ENV.get_template("nginx.conf.j2").render(plan=plan)
