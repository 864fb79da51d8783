"""ngx_thread_pool (thread_pool): a name, then threads= (required, above 0) and max_queue=;
other words nginx passes over. ngx_http_core_set_aio (aio): off, on, threads or threads=POOL,
as written; a POOL without variables must be a thread_pool's (spec/directives.py reads which)."""

from __future__ import annotations

from collections.abc import Sequence

from tpgen.spec.directive_values import number
from tpgen.spec.nginx_table import Where


def thread_pool_problem(args: Sequence[str], place: Where) -> str | None:
    threads = 0
    for word in args[1:]:
        if word.startswith("threads="):
            threads = number(word.removeprefix("threads=")) or 0
            if not threads:
                return (
                    f"takes threads= above 0 (threads=32), not {word!r} (nginx: invalid "
                    "threads value)"
                )
        elif word.startswith("max_queue=") and number(word.removeprefix("max_queue=")) is None:
            return (
                f"takes max_queue= a whole number (max_queue=65536), not {word!r} (nginx: "
                "invalid max_queue value)"
            )
    if not threads:
        return 'takes a threads= parameter (threads=32) (nginx: must have "threads" parameter)'
    return None


def aio_problem(args: Sequence[str], place: Where) -> str | None:
    value = args[0]
    if value in ("off", "on", "threads") or value.startswith("threads="):
        return None
    return f"takes off, on, threads or threads=POOL, not {value!r} (nginx: invalid value)"


def aio_pool(args: Sequence[str]) -> str | None:
    """The thread pool aio names as written (None: the default pool, or one per request)."""
    pool = args[0].removeprefix("threads=") if args and args[0].startswith("threads=") else None
    # The default pool is nginx's own (32 threads) unless the config sizes it.
    return None if pool is None or pool == "default" or "$" in pool else pool
