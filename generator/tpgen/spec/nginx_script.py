"""How nginx's script compiler reads the variables of a value, ported from
ngx_http_script_compile (src/http/ngx_http_script.c; stream's ngx_stream_script_compile reads
the same): after a $, a digit 1–9 is a regex capture, else a name of letters, digits and _,
or such a name in braces. A $ with no name after it, or an open brace never closed, is refused.
"""

from __future__ import annotations

import string

_NAME_CHARACTERS = frozenset(string.ascii_letters + string.digits + "_")
_CAPTURES = "123456789"
_NO_NAME = "no name"


def _after_dollar(value: str, start: int) -> tuple[str, int]:
    """(the name nginx reads after the $ before ``start``, "" for a capture; where reading
    goes on), or (_NO_NAME or the unclosed name, -1) for what nginx refuses."""
    if start == len(value):
        return _NO_NAME, -1
    if value[start] in _CAPTURES:
        return "", start + 1
    braced = value[start] == "{"
    begin = start + braced
    if braced and begin == len(value):
        return _NO_NAME, -1
    end = begin
    while end < len(value) and value[end] in _NAME_CHARACTERS:
        end += 1
    name = value[begin:end]
    if braced and value[end : end + 1] != "}":
        return name, -1
    return (name, end + braced) if name else (_NO_NAME, -1)


def _read(value: str, said: str = "invalid variable name") -> tuple[list[str], str | None]:
    """The variable names ``value`` uses up to what nginx refuses, and why it refuses it
    (``said``: what nginx says of a $ with no name)."""
    names: list[str] = []
    at = value.find("$")
    while at != -1:
        name, after = _after_dollar(value, at + 1)
        if after == -1:
            return names, _refused(value, name, said)
        if name:
            names.append(name)
        at = value.find("$", after)
    return names, None


def _refused(value: str, name: str, said: str) -> str:
    if name == _NO_NAME:
        return (
            f"{value!r} has a $ with no variable name after it (nginx: {said}): write $name "
            "or ${name}, a name of letters, digits and _ (nginx has no escape for a $)"
        )
    return (
        f"{value!r} opens ${{{name} and never closes it (nginx: the closing bracket in "
        f'"{name}" variable is missing): write ${{name}}, a name of letters, digits and _'
    )


def script_problem(value: str, said: str = "invalid variable name") -> str | None:
    """Why nginx's script compiler refuses ``value``, or None (``said``: what nginx says of a
    $ with no name)."""
    return _read(value, said)[1]


def script_variables(value: str) -> list[str]:
    """The names of the variables ``value`` uses, as written (regex captures $1…$9 left out;
    ${1} and $0 are names), up to what nginx refuses."""
    return _read(value)[0]
