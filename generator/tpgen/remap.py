"""What a spec change does to the cache: which buckets, and so which keys, change disk."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from tpgen.buckets import moved_buckets
from tpgen.errors import Problem, SpecError
from tpgen.plan import Plan


@dataclass(frozen=True)
class Remap:
    buckets: int
    moved: tuple[int, ...]
    flows: tuple[tuple[str, str, int], ...]  # (from disk, to disk, buckets)

    @property
    def moved_fraction(self) -> float:
        return len(self.moved) / self.buckets

    def as_dict(self) -> dict[str, object]:
        return {
            "buckets": self.buckets,
            "moved_buckets": len(self.moved),
            "moved_fraction": round(self.moved_fraction, 6),
            "flows": [{"from": a, "to": b, "buckets": n} for a, b, n in self.flows],
            "moved": list(self.moved),
        }


def compare(old: Plan, new: Plan) -> Remap:
    if old.buckets.value != new.buckets.value:
        raise SpecError(
            [
                Problem(
                    ("tuning", "buckets"),
                    f"{old.buckets.value} buckets before, {new.buckets.value} after: "
                    "changing the bucket "
                    "count re-maps every key; keep it fixed for the life of a node",
                    new.source,
                )
            ]
        )
    moved = moved_buckets(old.owners, new.owners)
    flows = Counter((old.owners[i], new.owners[i]) for i in moved)
    return Remap(
        old.buckets.value,
        tuple(moved),
        tuple(sorted((a, b, n) for (a, b), n in flows.items())),
    )


def format_remap(remap: Remap) -> str:
    lines = [
        f"moved: {len(remap.moved)} of {remap.buckets} buckets "
        f"({remap.moved_fraction:.1%} of keys change disk)"
    ]
    lines += [f"  {a} -> {b}: {n} buckets" for a, b, n in remap.flows]
    return "\n".join(lines)
