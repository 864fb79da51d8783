"""How nginx reads files and writes sockets: sendfile, open_file_cache, directio, buffers."""

from __future__ import annotations

from typing import Any

from tpgen.plan.cache import object_size
from tpgen.plan.defaults import (
    CORK_MIN_OBJECT,
    DIRECTIO_VOD,
    KEEPALIVE_TIMEOUT,
    MP4_BUFFER,
    MP4_MAX_BUFFER,
    MP4_START_KEY_FRAME_SINCE,
    OPEN_FILE_CACHE_CAP,
    OPEN_FILE_CACHE_ERRORS,
    OPEN_FILE_CACHE_INACTIVE,
    OPEN_FILE_CACHE_MIN,
    OPEN_FILE_CACHE_MIN_USES,
    OPEN_FILE_CACHE_RAM_PERCENT,
    OPEN_FILE_CACHE_VALID,
    OPEN_FILE_SHARED_BYTES,
    OPEN_FILE_WORKER_BYTES,
    OUTPUT_BUFFER_COUNT,
    OUTPUT_BUFFER_VOD,
    SENDFILE,
    TCP_NODELAY,
    TCP_NOPUSH_BECAUSE,
    TCP_NOPUSH_SMALL_BECAUSE,
)
from tpgen.plan.reads import readable
from tpgen.plan.transfers import sendfile_max_chunk
from tpgen.plan.types import Decision, pick
from tpgen.plan.workers import worker_count
from tpgen.spec.edge import version_tuple
from tpgen.spec.model import NodeSpec
from tpgen.spec.units import human_size


def tcp_nopush(spec: NodeSpec) -> Decision[str]:
    """The cork for answers long enough to gain from it (the workload's object size)."""
    size = object_size(spec)
    if size >= CORK_MIN_OBJECT:
        return Decision("on", f"answers of about {human_size(size)}: {TCP_NOPUSH_BECAUSE}")
    return Decision(
        "off",
        f"answers of about {human_size(size)}, below {human_size(CORK_MIN_OBJECT)}: "
        f"{TCP_NOPUSH_SMALL_BECAUSE}",
    )


def socket_fields(spec: NodeSpec) -> dict[str, Any]:
    tuning = spec.tuning
    return {
        "sendfile": Decision(SENDFILE, "zero-copy from page cache to socket"),
        "sendfile_max_chunk": sendfile_max_chunk(spec),
        "tcp_nopush": tcp_nopush(spec),
        "tcp_nodelay": Decision(
            TCP_NODELAY,
            "answers nginx does not cork (over TLS, bodies from memory) send their last partial "
            "packet at once, no Nagle delay; on Linux nginx leaves it off on a connection after a "
            "corked answer (ngx_http_set_keepalive)",
        ),
        "keepalive_timeout": pick(
            tuning.keepalive_timeout,
            KEEPALIVE_TIMEOUT,
            "Debian's nginx.conf value, explicit (nginx's own default is 75s)",
        ),
    }


def open_file_cache_max(spec: NodeSpec) -> Decision[int] | None:
    """origin and vod: a descriptor for every file the readable disks hold, as many as the
    memory budget keeps (a cache node's files are its zones', opened by the cache itself)."""
    if spec.workload.type not in ("origin", "vod"):
        return None
    size = object_size(spec)
    files = sum(d.size for d in spec.disks if readable(spec, d)) // size
    workers = worker_count(spec)
    budget = spec.node.memory * OPEN_FILE_CACHE_RAM_PERCENT // 100
    fitting = budget // (workers * OPEN_FILE_WORKER_BYTES + OPEN_FILE_SHARED_BYTES)
    kept = max(1, min(max(files, OPEN_FILE_CACHE_MIN), fitting, OPEN_FILE_CACHE_CAP))
    return pick(
        spec.tuning.open_file_cache_max,
        kept,
        f"the readable disks hold about {files:,} files of {human_size(size)}; "
        f"{fitting:,} descriptors a worker fit {OPEN_FILE_CACHE_RAM_PERCENT}% of memory "
        f"({workers} × {OPEN_FILE_WORKER_BYTES} bytes a worker + {OPEN_FILE_SHARED_BYTES} for "
        f"the inode and dentry each pins); room for at least {OPEN_FILE_CACHE_MIN:,} files where "
        f"memory allows, at most {OPEN_FILE_CACHE_CAP:,}: a kept descriptor pins its dentry and "
        "inode, so a repeat open() never blocks the event loop on the disk",
    )


def open_file_cache_fields(open_files: Decision[int] | None) -> dict[str, Any]:
    """The timings of the open_file_cache (None where there is none)."""
    if open_files is None:
        return {}
    return {
        "open_file_cache_max": open_files,
        "open_file_cache_inactive": Decision(
            OPEN_FILE_CACHE_INACTIVE,
            "a descriptor unused for 10 minutes is closed: a deleted file's space is held at "
            "most that long",
        ),
        "open_file_cache_valid": Decision(
            OPEN_FILE_CACHE_VALID,
            "a kept descriptor is checked against the file once a minute: a replaced file is "
            "served at most a minute late",
        ),
        "open_file_cache_min_uses": Decision(
            OPEN_FILE_CACHE_MIN_USES,
            "every file opened is kept, up to max: on an HDD node the first repeat open is the "
            "one that would wait behind the disk's queue for its inode (bench, issue 10: "
            "min_uses 1 vs 2, ÷ the article's per-disk layout, fast-disk 2 workers hot p99 0.17 "
            "vs 0.28, 12 workers 1.25 vs 1.82; cold inodes cold MB/s 0.91 vs 0.75)",
        ),
        "open_file_cache_errors": Decision(
            OPEN_FILE_CACHE_ERRORS,
            "a missing file's error is kept too: repeated 404s cost no open()",
        ),
    }


def directio_fields(spec: NodeSpec) -> dict[str, Any]:
    """vod reads its large files around the page cache, in large reads."""
    if spec.workload.type != "vod":
        return {}
    tuning = spec.tuning
    fs = {d.filesystem for d in spec.disks if d.state != "failed"}
    return {
        "directio": pick(
            tuning.directio,
            DIRECTIO_VOD,
            "media files above 4 MiB bypass the page cache and are read through the pools",
        ),
        "directio_alignment": Decision(
            "4k" if "xfs" in fs else "512",
            "xfs needs 4k-aligned direct I/O" if "xfs" in fs else "ext4 accepts 512-byte alignment",
        ),
        "output_buffers": pick(
            tuning.output_buffers,
            OUTPUT_BUFFER_VOD,
            "directio reads go through output_buffers: 1 MiB reads keep an HDD streaming "
            "instead of seeking for every 32 KiB",
        ),
        "output_buffer_count": Decision(
            OUTPUT_BUFFER_COUNT, "one buffer is sent while the next is read from the disk"
        ),
        "mp4_buffer_size": Decision(
            MP4_BUFFER,
            ".mp4 files answer ?start= and ?end= (seeks in progressive download); the index is "
            "read in one 1 MiB read, an HDD's one seek",
        ),
        "mp4_max_buffer_size": Decision(
            MP4_MAX_BUFFER,
            "a long film's index reaches ~20 MB; past this nginx answers 500",
        ),
        "mp4_start_key_frame": _start_key_frame(spec),
    }


def _start_key_frame(spec: NodeSpec) -> Decision[bool]:
    if version_tuple(spec.nginx.version) < MP4_START_KEY_FRAME_SINCE:
        return Decision(
            False,
            f"nginx {spec.nginx.version} predates mp4_start_key_frame (1.21.4): a seek between "
            "key frames starts the clip without one",
        )
    return Decision(
        True,
        "a seek between two key frames starts the clip at the key frame before it, the lead-in "
        "hidden by an edit list; without it the clip has no key frame until the next one and "
        "players show nothing or artefacts (tests/test_live_mp4.py)",
    )
