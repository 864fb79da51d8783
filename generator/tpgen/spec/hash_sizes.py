"""What nginx says when ngx_hash_init (spec/names_hash.py) cannot build one of the hashes the
config's keys fill, beside the server names' (spec/merged_names.py): the refusal, on the
snippet's directive that sets the size at fault or that adds the key nginx has no room for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tpgen.spec.names_hash import (
    ADDRESS_SPACE,
    CACHE_LINE,
    LONGEST_BUCKET,
    Key,
    aligned,
    bucket_for,
    hash_entry,
    hash_failure,
    longest_key_in,
)
from tpgen.spec.nginx_syntax import Directive

_WORD = 1 << 64


@dataclass(frozen=True)
class Size:
    """A hash size in force: its directive's name, value, and the directive that sets it
    (None: nginx's default) with whether a snippet wrote it."""

    name: str
    value: int
    directive: Directive | None = None
    from_snippet: bool = False


@dataclass(frozen=True)
class HashKey:
    """A key nginx hashes, and the directive that adds it (None: nginx's own)."""

    text: bytes
    directive: Directive | None = None
    from_snippet: bool = False


@dataclass(frozen=True)
class Build:
    """One ngx_hash_init: nginx's name of the hash, what its keys are (for the message), the
    keys read (an include not read may add more: a hash that cannot take the keys known
    cannot take more), and its sizes."""

    hash: str
    keys_are: str
    keys: tuple[HashKey, ...]
    bucket: Size
    max_size: Size
    # Whether a snippet can still set the bucket size (not a map's after tpgen's maps), and
    # whether nginx sets the sizes itself (no directive does).
    settable: bool = True
    fixed: bool = False
    set_in: str = "in the block's snippet"  # where a snippet sets the bucket size


def build_refusal(build: Build) -> tuple[Directive, str] | None:
    """The refusal of a snippet's directive where nginx cannot build the hash; None: it can,
    or only tpgen's own directives are to blame."""
    keys = [Key(key.text, str(index)) for index, key in enumerate(build.keys)]
    bucket = aligned(build.bucket.value, CACHE_LINE)
    failure = hash_failure(keys, bucket, build.max_size.value)
    if failure is None:
        return None
    if failure.kind == "bucket":
        return _long_key(build, build.keys[int(failure.name)], bucket)
    if failure.kind == "too large":
        return too_large(build.bucket, build.hash)
    if failure.kind == "memory":
        return unallocatable(build.max_size, build.hash)
    return _too_few_buckets(build)


def _mine(size: Size) -> Directive | None:
    return size.directive if size.from_snippet else None


def shown_int(value: int) -> str:
    """An ngx_uint_t as nginx's %i shows it (signed)."""
    value %= _WORD
    return str(value - _WORD if value >= _WORD // 2 else value)


def too_large(bucket: Size, hash_name: str) -> tuple[Directive, str] | None:
    """A snippet's bucket size past the largest nginx builds, once rounded up to a cache line."""
    directive = _mine(bucket)
    if directive is None:
        return None
    rounded = aligned(bucket.value, CACHE_LINE)
    return directive, (
        f"is larger than a bucket nginx can build, {LONGEST_BUCKET} bytes, once rounded up to "
        f"a cache line ({rounded}) (nginx: could not build {hash_name}, too large "
        f"{bucket.name}: {shown_int(rounded)}): set it to {LONGEST_BUCKET} or less"
    )


def unallocatable(max_size: Size, hash_name: str) -> tuple[Directive, str] | None:
    """A snippet's max_size whose test array (a u_short a bucket) no machine can allocate."""
    directive = _mine(max_size)
    if directive is None:
        return None
    wanted = max_size.value * 2 % _WORD
    return directive, (
        f"makes nginx allocate {wanted} bytes (two per bucket) to size the {hash_name}, no "
        f"less than a 64-bit machine's whole address space, {ADDRESS_SPACE} bytes (nginx: "
        f"malloc({wanted}) failed (12: Cannot allocate memory)): set it to a few thousand"
    )


def _long_key(build: Build, key: HashKey, bucket: int) -> tuple[Directive, str] | None:
    shown = key.text.decode("utf-8", "replace")
    said = (
        f"takes {hash_entry(key.text)} bytes of a hash bucket with the pointer that ends it, "
        f"more than {build.bucket.name} {bucket} holds (nginx: could not build {build.hash}, "
        f"you should increase {build.bucket.name}: {shown_int(bucket)})"
    )
    needed = bucket_for(key.text)
    if key.from_snippet and key.directive is not None:
        count = f"{len(shown)} character{'s' if len(shown) != 1 else ''}"
        said = f"adds {build.keys_are} {shown!r} ({count}), which {said}"
        return key.directive, f"{said}: {_key_fix(build, needed)}"
    directive = _mine(build.bucket)
    if directive is None:
        return None
    fix = f"raise it to {needed}" if needed <= LONGEST_BUCKET else "remove it"
    return directive, f"is too small for {build.keys_are} {shown!r}, which {said}: {fix}"


def _key_fix(build: Build, needed: int) -> str:
    if build.fixed:
        return "shorten it to 46 characters or fewer: no directive sets this bucket"
    if not build.settable:
        return _shorten(build.bucket)
    return _bucket_fix(build.bucket, needed, build.set_in)


def _bucket_fix(size: Size, needed: int, set_in: str) -> str:
    if needed > LONGEST_BUCKET:
        return f"shorten it: no bucket holds it ({size.name} is at most {LONGEST_BUCKET})"
    if size.directive is None:
        return f"set {size.name} {needed} {set_in}"
    if size.from_snippet:
        return f"raise {size.name} to {needed}"
    return _shorten(size)


def _shorten(size: Size) -> str:
    longest = longest_key_in(size.value)
    return f"shorten it to {longest} characters or fewer ({size.name} is set before the snippet)"


def _too_few_buckets(build: Build) -> tuple[Directive, str] | None:
    size = build.max_size
    said = f"(nginx: could not build {build.hash}, you should increase {size.name}: {size.value})"
    directive = _mine(size)
    if size.value == 0:
        why = f"is 0, which leaves nginx no bucket for the {build.keys_are}s {said}"
        return None if directive is None else (directive, f"{why}: remove it, or set it above 0")
    spread = (
        f"nginx spreads the {len(build.keys)} {build.keys_are}s over at most {size.value} "
        f"buckets, and a bucket would pass {LONGEST_BUCKET} bytes {said}"
    )
    if directive is not None:
        return directive, f"is too small: {spread}: raise it"
    mine = [key.directive for key in build.keys if key.from_snippet and key.directive is not None]
    return None if not mine else (mine[-1], f"adds a key where {spread}: set {size.name} higher")


def keys_of(texts: Sequence[tuple[str, Directive | None, bool]]) -> tuple[HashKey, ...]:
    """Keys as nginx stores them (lowercase), each once, in the order they are added."""
    seen: set[bytes] = set()
    found: list[HashKey] = []
    for text, directive, mine in texts:
        data = text.lower().encode("utf-8")
        if data not in seen:
            seen.add(data)
            found.append(HashKey(data, directive, mine))
    return tuple(found)
