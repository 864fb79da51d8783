"""What nginx refuses of modern_browser, ported from ngx_http_modern_browser
(src/http/modules/ngx_http_browser_module.c, the same in nginx 1.19 to 1.31): ``unlisted``
alone (as written), or a browser of nginx's list (any case) and a version of digits and dots.
ancient_browser and the _value directives take any words (their handlers refuse none).
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence

from tpgen.spec.nginx_table import Where

BROWSERS = ("opera", "msie", "gecko", "safari", "konqueror")  # ngx_http_modern_browser_masks
_VERSION = re.compile(r"[0-9.]*")
# ngx_strcasecmp folds ASCII letters only.
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def modern_browser_problem(args: Sequence[str], place: Where) -> str | None:
    """ngx_http_modern_browser: unlisted, or BROWSER VERSION."""
    names = ", ".join(BROWSERS)
    if len(args) == 1:
        if args[0] == "unlisted":
            return None
        # The handler refuses without a word of its own: nginx -t says only "test failed".
        return (
            f"takes unlisted alone, or a browser ({names}) and its version, not {args[0]!r} "
            "(nginx refuses it without saying why)"
        )
    if args[0].translate(_ASCII_LOWER) not in BROWSERS:
        return (
            f"takes a browser of nginx's list ({names}) before the version, not {args[0]!r} "
            f'(nginx: unknown browser name "{args[0]}")'
        )
    if _VERSION.fullmatch(args[1]) is None:
        return (
            f"takes a version of digits and dots (9.0), not {args[1]!r} (nginx: invalid "
            f'browser version "{args[1]}")'
        )
    return None
