"""The node's limits: pool threads, open files and connection slots, derived or overridden,
held within what a real node allows; anything past a limit is refused with the fix."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from tpgen.errors import Problem, SpecError
from tpgen.plan.pools import thread_limit
from tpgen.plan.reads import pool_count
from tpgen.plan.transfers import pool_threads
from tpgen.plan.types import Decision
from tpgen.plan.workers import (
    connections,
    nofile_limit,
    rlimit_nofile,
    slot_limit,
    worker_limit,
)
from tpgen.spec.model import NodeSpec
from tpgen.spec.validate import pool_scope_problems


@dataclass(frozen=True)
class NodeLimits:
    threads: Decision[int]
    connections: Decision[int]
    nofile: Decision[int]


def _refuse(problems: Iterable[Problem], source: str) -> None:
    found = [replace(p, file=source) for p in problems]
    if found:
        raise SpecError(found)


def check_node_limits(spec: NodeSpec, open_files: Decision[int] | None, source: str) -> NodeLimits:
    """Hold the plan within a real node's limits, whatever computed or overrode the values.

    A derived thread count shrinks to the budget; anything else past a limit is a SpecError
    with the numbers and the fix.
    """
    slots = connections(spec)
    nofile = rlimit_nofile(spec, slots, open_files)
    pools = pool_count(spec)
    _refuse(pool_scope_problems(spec, pools), source)
    threads, problems = thread_limit(spec, pool_threads(spec), pools)
    # The thread budget's refusal of the worker count, where there is one, names the lower bound.
    workers_refused = any(p.path == ("tuning", "worker_processes") for p in problems)
    _refuse(
        [
            *([] if workers_refused else worker_limit(spec)),
            *problems,
            *nofile_limit(spec, slots, nofile),
            *slot_limit(spec, slots),
        ],
        source,
    )
    return NodeLimits(threads, slots, nofile)
