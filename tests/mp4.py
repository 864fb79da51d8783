"""A small but valid MP4 (ISO BMFF) written in Python, and a reader for what nginx's mp4 module
sends back: one video track whose samples are numbered byte patterns, so a cut can be checked
sample by sample (no ffmpeg, no codec: nginx reads the index, never the samples).

Layout: ftyp, moov (mvhd, trak: tkhd, mdia: mdhd, hdlr, minf: vmhd, dinf, stbl: stsd, stts,
stss, stsc, stsz, stco), mdat; one sample per chunk. Boxes as in ISO/IEC 14496-12, version 0.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field

MATRIX = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
CONTAINERS = {"moov", "trak", "mdia", "minf", "stbl"}


def box(name: str, *payload: bytes) -> bytes:
    body = b"".join(payload)
    return struct.pack(">I4s", 8 + len(body), name.encode("ascii")) + body


def full_box(name: str, *payload: bytes, flags: int = 0) -> bytes:
    return box(name, struct.pack(">I", flags), *payload)  # version 0


def sample(number: int, size: int) -> bytes:
    """Sample ``number``'s bytes: a pattern no other sample of the movie repeats."""
    return bytes((number * 31 + i) % 251 for i in range(size))


@dataclass(frozen=True)
class Movie:
    data: bytes = field(repr=False)
    timescale: int
    delta: int  # every sample lasts `delta` ticks
    samples: list[bytes] = field(repr=False)
    sync: list[int]  # 1-based numbers of the key frames

    @property
    def duration(self) -> int:
        return self.delta * len(self.samples)


def _stbl(sizes: list[int], offsets: list[int], delta: int, sync: list[int]) -> bytes:
    entry = box(
        "mp4v",
        bytes(6),
        struct.pack(">H", 1),  # data reference index
        bytes(16),
        struct.pack(">HHIIIH", 64, 48, 0x480000, 0x480000, 0, 1),  # 64x48, 72 dpi, 1 frame
        bytes(32),  # compressor name
        struct.pack(">Hh", 0x18, -1),
    )
    count = len(sizes)
    return box(
        "stbl",
        full_box("stsd", struct.pack(">I", 1), entry),
        full_box("stts", struct.pack(">III", 1, count, delta)),
        full_box("stss", struct.pack(f">I{len(sync)}I", len(sync), *sync)),
        full_box("stsc", struct.pack(">IIII", 1, 1, 1, 1)),  # one sample per chunk
        full_box("stsz", struct.pack(f">II{count}I", 0, count, *sizes)),
        full_box("stco", struct.pack(f">I{count}I", count, *offsets)),
    )


def _moov(
    sizes: list[int], offsets: list[int], timescale: int, delta: int, sync: list[int]
) -> bytes:
    duration = delta * len(sizes)
    mvhd = full_box(
        "mvhd",
        struct.pack(">IIIIIH", 0, 0, timescale, duration, 0x10000, 0x100),
        bytes(10),
        MATRIX,
        bytes(24),
        struct.pack(">I", 2),  # next track id
    )
    tkhd = full_box(
        "tkhd",
        struct.pack(">IIIII", 0, 0, 1, 0, duration),
        bytes(8),
        struct.pack(">hhhH", 0, 0, 0, 0),
        MATRIX,
        struct.pack(">II", 64 << 16, 48 << 16),
        flags=3,  # enabled, in movie
    )
    mdhd = full_box("mdhd", struct.pack(">IIIIHH", 0, 0, timescale, duration, 0x55C4, 0))
    hdlr = full_box("hdlr", struct.pack(">I4s", 0, b"vide"), bytes(12), b"video\0")
    dinf = box("dinf", full_box("dref", struct.pack(">I", 1), full_box("url ", flags=1)))
    minf = box(
        "minf", full_box("vmhd", bytes(8), flags=1), dinf, _stbl(sizes, offsets, delta, sync)
    )
    trak = box("trak", tkhd, box("mdia", mdhd, hdlr, minf))
    return box("moov", mvhd, trak)


def movie(count: int = 10, timescale: int = 1000, delta: int = 1000, key_every: int = 5) -> Movie:
    """``count`` samples of ``delta`` ticks each (1 s by default), a key frame every
    ``key_every`` samples; moov before mdat, as a file made for progressive download is."""
    samples = [sample(n, 1000 + 37 * n) for n in range(1, count + 1)]
    sizes = [len(s) for s in samples]
    sync = list(range(1, count + 1, key_every))
    ftyp = box("ftyp", b"isom", struct.pack(">I", 0x200), b"isomiso2mp41")
    # the index's size does not depend on the offsets it holds: place mdat, then write them
    moov_size = len(_moov(sizes, [0] * count, timescale, delta, sync))
    offset = len(ftyp) + moov_size + 8
    offsets = []
    for size in sizes:
        offsets.append(offset)
        offset += size
    moov = _moov(sizes, offsets, timescale, delta, sync)
    data = ftyp + moov + box("mdat", *samples)
    return Movie(data, timescale, delta, samples, sync)


def boxes(data: bytes, start: int = 0, end: int | None = None) -> Iterator[tuple[str, int, int]]:
    """(name, payload start, payload end) of each box in data[start:end]; raises on a box that
    runs past its parent."""
    end = len(data) if end is None else end
    while start < end:
        size, name = struct.unpack_from(">I4s", data, start)
        header = 8
        if size == 1:
            (size,) = struct.unpack_from(">Q", data, start + 8)
            header = 16
        if size < header or start + size > end:
            raise ValueError(f"box {name!r} at {start}: size {size} runs past {end}")
        yield name.decode("ascii"), start + header, start + size
        start += size


def find(data: bytes, path: str) -> tuple[int, int]:
    """The payload (start, end) of the box at ``path`` ("moov/trak/mdia/mdhd")."""
    start, end = 0, len(data)
    for name in path.split("/"):
        found = [(s, e) for n, s, e in boxes(data, start, end) if n == name]
        if len(found) != 1:
            raise ValueError(f"{path}: {len(found)} {name!r} boxes")
        start, end = found[0]
    return start, end


@dataclass(frozen=True)
class Track:
    """What a player reads from a file's index: the movie's and the track's durations, each
    sample's duration, size, file offset and bytes, and the key frames."""

    movie_duration: int
    media_duration: int
    deltas: list[int]
    sync: list[int]
    samples: list[bytes]


def _table(data: bytes, path: str, skip: int, width: int) -> list[tuple[int, ...]]:
    start, _ = find(data, f"moov/trak/mdia/minf/stbl/{path}")
    (count,) = struct.unpack_from(">I", data, start + 4 + skip)
    fmt = f">{width}I"
    first = start + 8 + skip
    return [struct.unpack_from(fmt, data, first + 4 * width * i) for i in range(count)]


def read(data: bytes) -> Track:
    """The one track of an MP4 made like movie(): the index checked against the file."""
    if [name for name, _, _ in boxes(data)] != ["ftyp", "moov", "mdat"]:
        raise ValueError(f"top-level boxes {[name for name, _, _ in boxes(data)]}")
    mvhd, _ = find(data, "moov/mvhd")
    mdhd, _ = find(data, "moov/trak/mdia/mdhd")
    deltas = [d for n, d in _table(data, "stts", 0, 2) for _ in range(n)]
    sizes = [s for (s,) in _table(data, "stsz", 4, 1)]
    offsets = [o for (o,) in _table(data, "stco", 0, 1)]
    chunks = _table(data, "stsc", 0, 3)
    if len(chunks) != 1 or chunks[0][:2] != (1, 1) or not len(deltas) == len(sizes) == len(offsets):
        raise ValueError(
            f"stsc {chunks}, {len(deltas)} stts, {len(sizes)} stsz, {len(offsets)} stco"
        )
    mdat_start, mdat_end = find(data, "mdat")
    for offset, size in zip(offsets, sizes, strict=True):
        if not mdat_start <= offset <= offset + size <= mdat_end:
            raise ValueError(f"a sample at {offset}+{size} is outside mdat {mdat_start}-{mdat_end}")
    return Track(
        movie_duration=struct.unpack_from(">I", data, mvhd + 16)[0],
        media_duration=struct.unpack_from(">I", data, mdhd + 16)[0],
        deltas=deltas,
        sync=[n for (n,) in _table(data, "stss", 0, 1)],
        samples=[data[o : o + s] for o, s in zip(offsets, sizes, strict=True)],
    )
