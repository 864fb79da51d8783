"""What nginx refuses of an include's path whatever the disk holds, ported from
ngx_conf_include and ngx_conf_parse (src/core/ngx_conf_file.c): a path without a glob (*, ?
or [) that names a directory by its shape (empty: the prefix itself; ending in /, . or ..)
is opened and its read fails (pread() failed: Is a directory), or its open does. Other paths,
and what a glob matches, are the disk's: nginx -t judges them on the node.
"""

from __future__ import annotations

from collections.abc import Sequence

from tpgen.spec.nginx_table import Where

_GLOB = frozenset("*?[")


def include_problem(args: Sequence[str], place: Where) -> str | None:
    """ngx_conf_include: a file, not a directory."""
    path = args[0]
    if _GLOB & set(path):
        return None
    last = path.rsplit("/", 1)[-1]
    if last not in ("", ".", ".."):
        return None
    return (
        f"includes {path!r}, which names a directory (nginx reads it as a file and fails: "
        "Is a directory): name a file, or a glob (dir/*.conf)"
    )
