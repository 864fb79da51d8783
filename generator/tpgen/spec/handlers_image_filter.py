"""What nginx refuses of image_filter's words and of image_filter_jpeg_quality's,
_webp_quality's and _sharpen's value, ported from ngx_http_image_filter,
ngx_http_image_filter_jpeg_quality (webp's alike) and ngx_http_image_filter_sharpen
(src/http/modules/ngx_http_image_filter_module.c, the same in nginx 1.19 to 1.31). A value with
a $ is compiled and read per request (spec/script_arguments.py refuses a malformed one); one
without is read as ngx_http_image_filter_value reads it: "-" is -1, a number above 0 itself,
anything else 0.
"""

from __future__ import annotations

from collections.abc import Sequence

from tpgen.spec.directive_values import number
from tpgen.spec.nginx_script import script_problem
from tpgen.spec.nginx_table import Where

_ALONE = ("off", "test", "size")
_SIZED = ("resize", "crop")
_ANGLES = (90, 180, 270)


def _literal(word: str) -> int:
    """ngx_http_image_filter_value, as its callers' signed integer holds it."""
    if word == "-":
        return -1
    found = number(word)
    return found if found is not None and found > 0 else 0


def _first_word(word: str) -> str:
    return (
        f"takes off, test or size alone, rotate ANGLE, or resize or crop WIDTH HEIGHT, not "
        f"{word!r} (nginx: invalid parameter)"
    )


def image_filter_problem(args: Sequence[str], place: Where) -> str | None:
    """ngx_http_image_filter: off, test, size; rotate 90, 180 or 270; resize or crop with a
    width and a height above 0 or "-". It stops at a value that does not compile, as nginx
    does before it reads the next."""
    head = args[0]
    if len(args) == 1:
        return None if head in _ALONE else _first_word(head)
    if head not in (("rotate",) if len(args) == 2 else _SIZED):
        return _first_word(head)
    for word in args[1:]:
        if "$" in word:
            if script_problem(word) is not None:
                return None
            continue
        if head == "rotate" and _literal(word) not in _ANGLES:
            return f"rotates by 90, 180 or 270, not {word!r} (nginx: invalid parameter)"
        if head != "rotate" and _literal(word) == 0:
            return (
                f"takes a width and a height above 0 (or - for any), not {word!r} (nginx: "
                "invalid parameter)"
            )
    return None


def image_quality_problem(args: Sequence[str], place: Where) -> str | None:
    """ngx_http_image_filter_jpeg_quality and _webp_quality: a quality above 0."""
    word = args[0]
    if "$" not in word and _literal(word) <= 0:
        return f"takes a quality above 0, not {word!r} (nginx: invalid value)"
    return None


def image_sharpen_problem(args: Sequence[str], place: Where) -> str | None:
    """ngx_http_image_filter_sharpen: 0 or more; only "-" is below (a word that is no number
    is 0)."""
    word = args[0]
    if "$" not in word and _literal(word) < 0:
        return f"takes a percentage of 0 or more, not {word!r} (nginx: invalid value)"
    return None
