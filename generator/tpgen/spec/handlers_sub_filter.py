"""What nginx refuses of sub_filter's search string, ported from ngx_http_sub_filter
(src/http/modules/ngx_http_sub_filter_module.c, the same in nginx 1.19 to 1.31): an empty one.
Its $variables are compiled as scripts (spec/script_arguments.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from tpgen.spec.nginx_table import Where


def sub_filter_problem(args: Sequence[str], place: Where) -> str | None:
    """ngx_http_sub_filter: a search string."""
    if args[0]:
        return None
    return (
        "takes a string to search for before the replacement, not an empty one (nginx: empty "
        "search pattern)"
    )
