"""The values of ngx_file.c's two standard slots, as nginx parses them: a temp path's levels
(ngx_conf_set_path_slot: proxy_temp_path, client_body_temp_path, …) and the access rights of
stored files (ngx_conf_set_access_slot: dav_access, proxy_store_access, …)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tpgen.spec.directive_values import number

# path->len is a size_t: the sum of level + 1 wraps as nginx's does.
_SIZE_T = 1 << 64
_LEVELS_EXAMPLE = "e.g. /var/cache/nginx/temp 1 2"
_RIGHTS = {"rw", "r"}
_WHOSE = ("user:", "group:", "all:")


def path_levels_problem(args: Sequence[str]) -> str | None:
    """After the path, each level a number above 0; together (each counted with its slash)
    they may make the name at most 10 characters longer."""
    length = 0
    for word in args[1:]:
        level = number(word)
        if not level:
            return (
                f"takes levels after the path, each a whole number above 0 ({_LEVELS_EXAMPLE}), "
                f"not {word!r} (nginx: invalid value)"
            )
        length = (length + level + 1) % _SIZE_T
    if length > 10 + len(args[1:]):
        return (
            f"takes levels that add up to 10 or less ({_LEVELS_EXAMPLE}), not "
            f"{' '.join(args[1:])!r} (nginx: invalid value)"
        )
    return None


def access_rights_problem(args: Sequence[str]) -> str | None:
    """Each argument user:, group: or all:, then rw or r (as written: no other case)."""
    for word in args:
        whose = next((prefix for prefix in _WHOSE if word.startswith(prefix)), None)
        if whose is None or word.removeprefix(whose) not in _RIGHTS:
            return (
                "takes user:, group: or all: each followed by rw or r (e.g. user:rw group:r), "
                f"not {word!r} (nginx: invalid value)"
            )
    return None


# The table's value of each slot (scripts/nginx_directives.py SLOTS).
FILE_SLOTS: dict[str, Callable[[Sequence[str]], str | None]] = {
    "path_levels": path_levels_problem,
    "access_rights": access_rights_problem,
}
