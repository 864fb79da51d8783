"""ngx_http_core_open_file_cache (open_file_cache) and ngx_http_log_open_file_cache
(open_log_file_cache, and stream's copy): off, or the cache's parameters, max= required."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tpgen.spec.directive_values import number, time
from tpgen.spec.nginx_table import Where


def _seconds(text: str) -> bool:
    return time(text, seconds=True) is not None


def _above_zero(text: str) -> bool:
    return bool(number(text))


def _count(text: str) -> bool:
    return number(text) is not None


Parameters = dict[str, Callable[[str], bool]]
# open_file_cache's max= is above 0; open_log_file_cache's any whole number (0 is no max).
_FILES: Parameters = {"max=": _above_zero, "inactive=": _seconds}
_LOGS: Parameters = {"max=": _count, "inactive=": _seconds, "min_uses=": _count, "valid=": _seconds}


def _problem(name: str, parameters: Parameters) -> Callable[[Sequence[str], Where], str | None]:
    taken = ", ".join(f"{prefix}…" for prefix in parameters)

    def check(args: Sequence[str], place: Where) -> str | None:
        most = 0
        for word in args:
            prefix = next((p for p in parameters if word.startswith(p)), None)
            if prefix is not None and parameters[prefix](word.removeprefix(prefix)):
                if prefix == "max=":
                    most = number(word.removeprefix(prefix)) or 0
                continue
            if word != "off":
                return (
                    f"takes off or {taken} (max=1000 inactive=20s), not {word!r} (nginx: "
                    f'invalid "{name}" parameter)'
                )
        if "off" in args or most:
            return None
        return f'takes max= above 0 (max=1000), or off (nginx: "{name}" must have "max" parameter)'

    return check


open_file_cache_problem = _problem("open_file_cache", _FILES)
open_log_file_cache_problem = _problem("open_log_file_cache", _LOGS)
