"""The configs of the cache bench: the origin, and the caches under test.

- stock:   Debian's nginx.conf plus what a user adds first to cache: one `proxy_cache_path` on the
           first disk with nginx's defaults (temp files under the prefix, no thread pools).
- article: the article's cache node ("Boosting NGINX Performance 9x with Thread Pools"): a pool
           of 16 threads, a cache and a `split_clients` share per disk, `use_temp_path=off`.
- tpgen:   what `tpgen render` makes of the bench's `cache` spec; runtime paths moved into the
           arm's prefix and each cache directory renamed after the arm (nothing else touched).

Every arm keeps its cache in `<mount>/<arm name>`, so the arms' copies of the warm set live side
by side on the same disks and each trial can count what its arm stored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.arms import ARTICLE_HEAD, STOCK_HEAD, relocate
from bench.loopdisk import LoopDisk
from bench.tpgencli import disks_and_tuning

TITLES = {
    "stock": "stock: Debian's nginx.conf + one proxy_cache_path on d1, nginx defaults",
    "article": "article: pool, cache and split_clients share per disk (16 threads)",
    "tpgen": "tpgen render (cache spec)",
}

OBJECT = "object.bin"  # the origin's one file: every URI is answered with it

_ORIGIN = """\
# the cache bench's origin: every URI answered from tmpfs, cacheable for a day; the fill load's
# misses at most {rps} objects a second (excess requests wait)
user www-data;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;

events {{
    worker_connections 4096;
}}

http {{
    default_type application/octet-stream;
    log_format uri $request_uri;
    access_log {prefix}/access.log uri;
    sendfile on;
    keepalive_requests 1000000;
    limit_req_zone $server_port zone=origin:1m rate={rps}r/s;
    limit_req_log_level info;

    server {{
        listen 127.0.0.1:{port};
        root {root};
        expires 1d;
        location / {{
            try_files /{obj} =404;
        }}
        location /fill/ {{
            limit_req zone=origin burst=100000;
            try_files /{obj} =404;
        }}
    }}
}}
"""

# Debian's /etc/nginx/nginx.conf, its default site turned into the first cache a user writes:
# `proxy_cache_path` + `proxy_cache`, nothing else. The origin's Cache-Control makes it cache.
_STOCK = (
    STOCK_HEAD
    + """
    # Debian's build puts temp files in /var/lib/nginx/proxy, on the system disk; the same
    # filesystem here (the host's), inside the arm's prefix so that no run touches the host's.
    proxy_temp_path {prefix}/proxy_temp;
    proxy_cache_path {cache_dir} keys_zone=stock:10m;

    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://127.0.0.1:{origin_port};
            proxy_cache stock;
        }}
    }}
}}
"""
)

# The article's cache node, with the tuned base config the bench's origin workload uses for the
# article's arms (docs/benchmark.md). Disks N=1..n instead of 1..3; shares as the article writes
# them (33.3% for three disks).
_ARTICLE = (
    ARTICLE_HEAD
    + """
{paths}
    split_clients $request_uri $disk {{
{shares}
    }}

    upstream backend {{
        server 127.0.0.1:{origin_port};
    }}

    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://backend;
            proxy_cache_key $request_uri;
            proxy_cache cache_$disk;
            aio threads=pool_$disk;
            sendfile on;
        }}
    }}
}}
"""
)


@dataclass(frozen=True)
class Ports:
    front: int  # the cache under test
    status: int  # tpgen's stub_status server
    origin: int


def cache_dir(disk: LoopDisk, arm: str) -> Path:
    return disk.mount / arm


def arm_dirs(arm: str, disks: Sequence[LoopDisk]) -> list[Path]:
    """Where `arm` keeps its cache: every disk, except stock's single cache on the first."""
    chosen = disks[:1] if arm == "stock" else disks
    return [cache_dir(d, arm) for d in chosen]


def origin_conf(prefix: Path, root: Path, port: int, rps: int) -> str:
    return _ORIGIN.format(prefix=prefix, root=root, port=port, obj=OBJECT, rps=rps)


def stock_conf(prefix: Path, disks: Sequence[LoopDisk], ports: Ports) -> str:
    return _STOCK.format(
        title=TITLES["stock"],
        workers="auto",
        prefix=prefix,
        cache_dir=cache_dir(disks[0], "stock"),
        port=ports.front,
        origin_port=ports.origin,
    )


def _shares(count: int) -> list[str]:
    share = f"{100 / count:.1f}%"
    return [f"        {share:<9} {n};" for n in range(1, count)] + [f"        {'*':<9} {count};"]


def article_conf(prefix: Path, disks: Sequence[LoopDisk], ports: Ports, workers: int) -> str:
    # a blank line apart from error_log: the cache node's config as it has always been written
    pools = "\n" + "".join(f"thread_pool pool_{n} threads=16;\n" for n in range(1, len(disks) + 1))
    paths = "".join(
        f"    proxy_cache_path {cache_dir(d, 'article')} levels=1:2 keys_zone=cache_{n}:256m "
        "max_size=1024G\n                     use_temp_path=off;\n"
        for n, d in enumerate(disks, start=1)
    )
    return _ARTICLE.format(
        name="article",
        title=TITLES["article"],
        workers=workers,
        prefix=prefix,
        pools=pools,
        paths=paths,
        shares="\n".join(_shares(len(disks))),
        port=ports.front,
        origin_port=ports.origin,
    )


def spec_text(
    disks: Sequence[LoopDisk],
    disk_size: int,
    *,
    cores: int,
    memory: int,
    object_size: int,
    ports: Ports,
    tuning: Mapping[str, str] | None = None,
) -> str:
    """The bench's node as a `cache` spec (docs/spec.md): every disk an HDD, the origin upstream."""
    lines = [
        "# written by `python -m bench run --workload cache`: the emulated cache node (loop-device",
        "# HDDs; memory is nginx's memory cgroup limit; the upstream is the bench's origin)",
        f"node: {{name: bench, cores: {cores}, memory: {memory}}}",
        f'workload: {{type: cache, upstreams: ["127.0.0.1:{ports.origin}"], '
        f"avg_object_size: {object_size}}}",
        f"listen: {{address: 127.0.0.1, port: {ports.front}}}",
        f"status: {{address: 127.0.0.1, port: {ports.status}}}",
        *disks_and_tuning(disks, disk_size, tuning),
    ]
    return "\n".join(lines) + "\n"


_CACHE_PATH = re.compile(r"^(\s*proxy_cache_path\s+)(\S+)/cache(\s)", re.MULTILINE)


def tpgen_arm_conf(rendered: str, prefix: Path, arm: str) -> str:
    """tpgen's config, runnable beside the other arms: pid and logs in `prefix`, and the cache of
    each disk in `<mount>/<arm>` instead of `<mount>/cache` (the same disk)."""
    return _CACHE_PATH.sub(rf"\g<1>\g<2>/{arm}\g<3>", relocate(rendered, prefix))
