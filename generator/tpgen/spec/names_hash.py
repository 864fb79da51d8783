"""nginx's hashes of the server names of one listen address, ported from
ngx_http_server_names (src/http/ngx_http.c) and src/core/ngx_hash.c, alike in nginx 1.22 to
1.31. ngx_hash_add_key sorts each name into the exact keys or the head (*.example.com,
.example.com) and tail (www.example.*) wildcards, lowercase; it refuses a name with two *,
with "..", or with a * outside those forms ("invalid server name or wildcard"), and ignores
a name the address has already (.example.com is example.com and *.example.com too).
ngx_hash_init sizes each hash: a key too long for server_names_hash_bucket_size is refused;
where no size up to server_names_hash_max_size spreads the keys within the buckets, nginx
only warns, takes max_size buckets and refuses a bucket past its 16-bit length alone.
ngx_hash_wildcard_init builds a hash per label level of the wildcards, each sized alike.

nginx's sizes here are those of a 64-bit machine with 64-byte cache lines (x86-64, arm64).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

POINTER = 8
CACHE_LINE = 64
# A bucket's length is a u_short, less a cache line (ngx_hash_init).
LONGEST_BUCKET = 65536 - CACHE_LINE
_WORD = (1 << 64) - 1
# ngx_hash_init allocates a u_short per bucket of max_size first; no 64-bit machine maps its
# whole 47-bit user address space (a host may refuse less: its memory is not known here).
ADDRESS_SPACE = 1 << 47
# What ngx_hash_add_key says of a name it does not take (NameKeys.add).
INVALID = "invalid"
BUSY = "busy"


def aligned(value: int, to: int) -> int:
    return -(-value // to) * to


def bucket_share(key: str | bytes) -> int:
    """Bytes a key takes of a bucket (NGX_HASH_ELT_SIZE: a pointer, then the length and the
    name aligned to a pointer)."""
    return POINTER + aligned(len(key) + 2, POINTER)


def hash_entry(key: str | bytes) -> int:
    """The bucket size a key needs alone: its share and the pointer that ends the bucket
    (ngx_hash_init); valid_referers' check and the plan's server_names bucket read it."""
    return bucket_share(key) + POINTER


def _key_hash(key: bytes) -> int:
    """ngx_hash_key_lc, in a 64-bit ngx_uint_t."""
    value = 0
    for byte in key.lower():
        value = (value * 31 + byte) & _WORD
    return value


@dataclass(frozen=True)
class Key:
    """A key of one of the hashes, and the server name it comes from."""

    text: bytes
    name: str


@dataclass(frozen=True)
class Failure:
    """Why nginx cannot build the hashes: "invalid" (a malformed wildcard), "bucket" (a key
    longer than a bucket holds), "too large" (the bucket size), "memory" (max_size's test
    array past any address space), "max_size" (zero, or a bucket of max_size buckets past
    65472 bytes); the server name and key, where one is to blame."""

    kind: str
    name: str = ""
    key: bytes = b""


@dataclass
class NameKeys:
    """An address's ngx_hash_keys_arrays_t as ngx_hash_add_key fills it."""

    exact: list[Key] = field(default_factory=list)
    head: list[Key] = field(default_factory=list)
    tail: list[Key] = field(default_factory=list)
    _taken: set[tuple[str, bytes]] = field(default_factory=set)

    def add(self, name: str) -> str | None:
        """Takes a name in as ngx_hash_add_key does (NGX_HASH_WILDCARD_KEY): None, or
        INVALID (nginx refuses it: NGX_DECLINED) or BUSY (the keys have it already, caseless;
        .example.com is example.com and *.example.com too: NGX_BUSY), and it is not taken."""
        data = name.encode("utf-8")
        if data.count(b"*") > 1 or b".." in data or b"\0" in data:
            return INVALID
        if len(data) > 1 and data.startswith(b"."):
            return self._head(name, data[1:], dot=True)
        if len(data) > 2 and data.startswith(b"*."):
            return self._head(name, data[2:], dot=False)
        if len(data) > 2 and data.endswith(b".*"):
            return self._take(("tail", data[:-2].lower()), self.tail, Key(data[:-2].lower(), name))
        if b"*" in data:
            return INVALID
        return self._take(("exact", data.lower()), self.exact, Key(data.lower(), name))

    def _head(self, name: str, rest: bytes, *, dot: bool) -> str | None:
        rest = rest.lower()
        # "*.example.com" is "com.example.", ".example.com" "com.example".
        key = Key(b".".join(reversed(rest.split(b"."))) + (b"" if dot else b"."), name)
        if dot:
            # nginx enters the name among the exact ones (to find conflicts only: the exact
            # hash does not get it) before it looks among the wildcards.
            if ("exact", rest) in self._taken:
                return BUSY
            self._taken.add(("exact", rest))
        return self._take(("head", rest), self.head, key)

    def _take(self, taken: tuple[str, bytes], keys: list[Key], key: Key) -> str | None:
        if taken in self._taken:
            return BUSY
        self._taken.add(taken)
        keys.append(key)
        return None

    def every_key(self) -> list[Key]:
        """The keys of all the hashes: the exact names and the wildcards' labels."""
        labels = [
            Key(label, key.name)
            for key in (*self.head, *self.tail)
            for label in key.text.split(b".")
            if label
        ]
        return [*self.exact, *labels]


def names_failure(names: Sequence[str], bucket: int, max_size: int) -> Failure | None:
    """Why nginx refuses to hash these server names (in the order its servers have them) of
    one address with server_names_hash_bucket_size ``bucket`` (as set: nginx rounds it up to
    a cache line) and server_names_hash_max_size ``max_size``; None: it builds them."""
    keys = NameKeys()
    for name in names:
        if keys.add(name) == INVALID:
            return Failure("invalid", name)
    size = aligned(bucket, CACHE_LINE)
    found = hash_failure(keys.exact, size, max_size) if keys.exact else None
    for wildcards in (keys.head, keys.tail):
        if found is None and wildcards:
            found = wildcard_failure(sorted(wildcards, key=_dns_order), size, max_size)
    return found


def _dns_order(key: Key) -> bytes:
    """ngx_dns_strcmp's order: caseless, "." below every other character."""
    return key.text.lower().replace(b".", b" ")


def wildcard_failure(keys: Sequence[Key], bucket: int, max_size: int) -> Failure | None:
    """ngx_hash_wildcard_init: a hash of the first labels, each with a hash of what follows
    it, built before its own."""
    level: list[Key] = []
    start = 0
    while start < len(keys):
        first = keys[start].text
        dot = b"." in first
        length = first.index(b".") + 1 if dot else len(first)
        level.append(Key(first[: length - 1] if dot else first, keys[start].name))
        after = [Key(first[length:], keys[start].name)] if len(first) != length else []
        end = start + 1
        while end < len(keys) and _same_label(first, keys[end].text, length, dot=dot):
            rest = keys[end].text[length if dot else length + 1 :]
            after.append(Key(rest, keys[end].name))
            end += 1
        found = wildcard_failure(after, bucket, max_size) if after else None
        if found is not None:
            return found
        start = end
    return hash_failure(level, bucket, max_size)


def _same_label(first: bytes, other: bytes, length: int, *, dot: bool) -> bool:
    if other[:length] != first[:length]:
        return False
    return dot or len(other) <= length or other[length : length + 1] == b"."


def hash_failure(keys: Sequence[Key], bucket: int, max_size: int) -> Failure | None:
    """ngx_hash_init's refusals, in its order."""
    if max_size == 0:
        return Failure("max_size")
    if bucket > LONGEST_BUCKET:
        return Failure("too large")
    for key in keys:
        if bucket < bucket_share(key.text) + POINTER:
            return Failure("bucket", key.name, key.text)
    if max_size * 2 >= ADDRESS_SPACE:
        return Failure("memory")
    shares = [(_key_hash(key.text), bucket_share(key.text)) for key in keys]
    # Past max_size nginx takes max_size buckets, each its pointer and its keys.
    if _spread(shares, max_size, LONGEST_BUCKET - POINTER):
        return None
    first = len(keys) // ((bucket - POINTER) // (2 * POINTER)) or 1
    if max_size > 10000 and keys and max_size // len(keys) < 100:
        first = max_size - 1000
    fits = any(_spread(shares, size, bucket - POINTER) for size in range(first, max_size + 1))
    return None if fits else Failure("max_size")


def _spread(shares: Sequence[tuple[int, int]], size: int, room: int) -> bool:
    """Whether ``size`` buckets hold the keys' shares within ``room`` bytes each."""
    filled: dict[int, int] = {}
    for key_hash, share in shares:
        at = key_hash % size
        filled[at] = filled.get(at, 0) + share
        if filled[at] > room:
            return False
    return True


def longest_key(names: Sequence[str]) -> bytes:
    """The longest key nginx hashes of these names (a wildcard's labels each; b"": none)."""
    keys = NameKeys()
    for name in names:
        keys.add(name)
    return max((key.text for key in keys.every_key()), key=len, default=b"")


def bucket_for(key: bytes) -> int:
    """The smallest bucket size, a power of two of a cache line or more, that holds a key."""
    size = CACHE_LINE
    while size < hash_entry(key):
        size *= 2
    return size


def bucket_needed(names: Sequence[str]) -> int:
    """The smallest server_names_hash_bucket_size that holds every key of these names."""
    return bucket_for(longest_key(names))


def longest_key_in(bucket: int) -> int:
    """The longest key a bucket of this size holds: one of n bytes takes 8 + align(n + 2, 8)
    + 8 of it, rounded up to a cache line."""
    return aligned(bucket, CACHE_LINE) - 18


def max_size_needed(names: Sequence[str], bucket: int, max_size: int) -> int | None:
    """The smallest power of two above ``max_size`` (512 or more) with which nginx builds the
    hashes of these names; None: none up to a million does."""
    size = 512
    while size <= max_size:
        size *= 2
    while size <= 1 << 20:
        found = names_failure(names, bucket, size)
        if found is None or found.kind != "max_size":
            return size
        size *= 2
    return None
