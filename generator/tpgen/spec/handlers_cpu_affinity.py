"""What nginx refuses of worker_cpu_affinity's masks, ported from ngx_set_cpu_affinity
(src/core/nginx.c, the same in nginx 1.19 to 1.31; Linux has CPU affinity): ``auto`` (as
written) first with at most one mask after it, each mask of 0, 1 and spaces only, read from
its last character, and at most CPU_SETSIZE (glibc's 1024) characters long. A count of masks
that is not worker_processes' is only warned about (ngx_core_module_init_conf).
"""

from __future__ import annotations

from collections.abc import Sequence

from tpgen.spec.nginx_table import Where

CPU_SETSIZE = 1024  # glibc's
_FORMS = "auto, auto MASK, or one mask of 0 and 1 per worker (0101 1010)"


def _mask_problem(mask: str) -> str | None:
    if len(mask) > CPU_SETSIZE:
        return (
            f"takes masks of up to {CPU_SETSIZE} CPUs, not one of {len(mask)} characters "
            f'(nginx: "worker_cpu_affinity" supports up to {CPU_SETSIZE} CPUs only)'
        )
    # nginx reads a mask from its last character: the first it refuses is the rightmost.
    wrong = next((char for char in reversed(mask) if char not in "01 "), None)
    if wrong is None:
        return None
    return (
        f'takes {_FORMS}, not {mask!r} (nginx: invalid character "{wrong}" in '
        '"worker_cpu_affinity"): write each CPU as 0 or 1'
    )


def cpu_affinity_problem(args: Sequence[str], place: Where) -> str | None:
    """ngx_set_cpu_affinity: ``auto`` and its mask, or the masks."""
    masks = list(args)
    if masks[0] == "auto":
        if len(masks) > 2:
            return (
                f"takes {_FORMS}, not {len(masks) - 1} masks after auto (nginx: invalid number "
                'of arguments in "worker_cpu_affinity" directive): keep one mask after auto'
            )
        masks = masks[1:]
    return next((found for found in map(_mask_problem, masks) if found), None)
