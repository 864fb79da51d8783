"""Byte ranges on a cache node: whether objects are fetched and cached in slices, and how large.

nginx drops a client's Range when it caches, so a seek into a cold object waits for the whole
object from the origin. The slice module turns one request into requests of one slice each, each
cached under the key plus ``$slice_range``. Every slice of an object stays on the disk the
object's key picks: the split key leaves ``$slice_range`` out (docs/spec.md, "Byte ranges":
nginx evaluates the disk once per client request, so a split key with the range would put the
same slice on different disks for different client ranges).
"""

from __future__ import annotations

from typing import Any

from tpgen.plan.capacity import keys_budget_mb, keys_needed_mb
from tpgen.plan.defaults import (
    DEFAULT_OBJECT_SIZE,
    SLICE_AUTO_MIN_OBJECT,
    SLICE_RANGE,
    SLICE_SIZE,
)
from tpgen.plan.types import Decision
from tpgen.spec.model import NodeSpec
from tpgen.spec.units import human_size

_ONE_DISK = (
    "; every slice of an object lives on the disk its key picks (the split key leaves "
    "$slice_range out), so locate, remap and purge answer per object"
)


def slice_size(spec: NodeSpec) -> Decision[int] | None:
    """The slice size, or None where objects are fetched whole."""
    if spec.workload.type != "cache":
        return None
    setting = spec.workload.slice
    if setting == "off":
        return None
    if isinstance(setting, int):
        return Decision(setting, "set in the spec (workload.slice)" + _ONE_DISK, overridden=True)
    size = spec.workload.avg_object_size or DEFAULT_OBJECT_SIZE["cache"]
    if size < SLICE_AUTO_MIN_OBJECT:
        return None
    chosen = SLICE_SIZE
    # one key per slice: a slice as small as the keys zones' RAM budget allows, from 1 MiB up
    while chosen < size and keys_needed_mb(spec, chosen) > keys_budget_mb(spec):
        chosen *= 2
    if chosen >= size:
        return None  # objects fetched whole; the budget check says what to change
    fit = (
        ""
        if chosen == SLICE_SIZE
        else f" ({human_size(SLICE_SIZE)} slices would need {keys_needed_mb(spec, SLICE_SIZE):,} "
        f"MB of keys zones, over the {keys_budget_mb(spec):,} MB budget)"
    )
    return Decision(
        chosen,
        f"objects average {human_size(size)} (at least {human_size(SLICE_AUTO_MIN_OBJECT)}): a "
        f"seek into a cold object fetches {human_size(chosen)} slices from the origin, not the "
        f"whole object{fit}; 206 answers are cached per slice" + _ONE_DISK,
    )


def stored_object_size(spec: NodeSpec, average: int) -> int:
    """The size of one cached file: a slice where objects are sliced and larger than one."""
    sliced = slice_size(spec)
    return min(average, sliced.value) if sliced is not None else average


def slice_fields(spec: NodeSpec) -> dict[str, Any]:
    size = slice_size(spec)
    if size is None:
        return {}
    return {
        "slice_size": size,
        "slice_range_header": Decision(
            SLICE_RANGE, "the origin is asked for one slice at a time, by its byte range"
        ),
    }


def with_slice_range(key: Decision[str], spec: NodeSpec) -> Decision[str]:
    """The proxy_cache_key: one cached entry per slice of an object."""
    if slice_size(spec) is None:
        return key
    return Decision(
        key.value + SLICE_RANGE,
        key.because + "; + $slice_range: each slice of an object is cached as its own entry",
        overridden=key.overridden,
    )
