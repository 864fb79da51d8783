"""The configs under test. All listen on the same loopback port and log into their own prefix.

- stock:       Debian's stock nginx.conf: sendfile, no thread pools, nginx's defaults.
- tpgen:       what `tpgen render` makes of the bench's node spec (runtime paths moved, see
               `relocate`; nothing else is touched).
- handwritten: the article's first layout, one pool of 32 threads for everything (`aio threads`).
- perdisk:     the article's per-disk layout: `thread_pool pool_dN threads=16` per disk and
               `aio threads=pool_$disk`, the disk picked per URI (as its split_clients does).
- floor:       the tpgen config with the hot load alone: the best the hot file can do here.
- article-nopool (optional): the article's tuned config before it added `aio threads`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from bench.sysctls import ReadAhead, Setting
from bench.system import BenchError

T = TypeVar("T")
R = TypeVar("R")


def round_order(arms: list[T], round_no: int) -> list[T]:
    """Every arm once per round, each round starting one arm later: noise that follows a place in
    the round (the first trial after setup, the one after a given arm) visits every arm alike."""
    shift = (round_no - 1) % len(arms) if arms else 0
    return arms[shift:] + arms[:shift]


def whole_rounds(
    arms: list[T],
    rounds: int,
    trial: Callable[[T, int], R],
    log: Callable[[str], None],
    line: Callable[[R], str],
) -> list[R]:
    """Every round's trials, in `round_order`. A trial that cannot run (nginx cannot bind the port
    another process took meanwhile, the hot file does not answer) ends the run after the last
    whole round: each arm keeps the same rounds, so the ratios stay paired. With no whole round,
    the run fails."""
    results: list[R] = []
    for round_no in range(1, rounds + 1):
        this_round: list[R] = []
        try:
            for arm in round_order(arms, round_no):
                this_round.append(trial(arm, round_no))
                log(line(this_round[-1]))
        except BenchError as exc:
            if not results:
                raise
            log(
                f"round {round_no} lost: {exc}; the report uses rounds 1-{round_no - 1} "
                f"of {rounds}, every arm alike"
            )
            break
        results.extend(this_round)
    return results


@dataclass(frozen=True)
class Arm:
    name: str
    conf: Path
    cold_load: bool
    title: str
    # kernel settings in force during this arm's trials (bench.sysctls): tpgen's node's
    sysctls: tuple[Setting, ...] = ()
    # disks' read_ahead_kb during this arm's trials (bench.sysctls; none: the run's, as for the
    # others): tpgen's plan's floors, or a --readahead-arm's value
    read_ahead: tuple[ReadAhead, ...] = ()

    @property
    def prefix(self) -> Path:
        """nginx's -p: the directory of the config, which also holds its pid and logs."""
        return self.conf.parent


TITLES = {
    "stock": "stock: Debian's nginx.conf (sendfile, no thread pools)",
    "tpgen": "tpgen render (origin spec)",
    "handwritten": "article: one pool, 32 threads",
    "perdisk": "article: a 16-thread pool per disk",
    "floor": "tpgen, hot load only",
    "article-nopool": "article's tuned config before thread pools",
}

# Debian's /etc/nginx/nginx.conf up to its site, which the stock arm of each workload adds inside
# http. nginx's own defaults fill the rest (sendfile_max_chunk 2m since 1.21.4).
STOCK_HEAD = """\
# bench arm "stock": {title}
user www-data;
worker_processes {workers};
pid {prefix}/nginx.pid;
error_log {prefix}/error.log;

events {{
    worker_connections 768;
}}

http {{
    sendfile on;
    tcp_nopush on;
    types_hash_max_size 2048;
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {prefix}/access.log;
    gzip on;
"""

# The article's tuned base config, each of its layouts adding its own inside http; `{pools}` are
# the layout's thread_pool lines (none before the article added `aio threads`).
ARTICLE_HEAD = """\
# bench arm "{name}": {title}
user www-data;
worker_processes {workers};
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
{pools}
events {{
    accept_mutex off;
}}

http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;

    access_log off;
    sendfile on;
    sendfile_max_chunk 512k;
"""

# Debian's default site as the server: what `apt-get install nginx` serves (`worker_processes
# auto` written as the count it means on the emulated node).
_STOCK = (
    STOCK_HEAD
    + """
    server {{
        listen 127.0.0.1:{port};
        root {storage};
    }}
}}
"""
)

# The article's benchmark config: tuned, then (handwritten) with `aio threads`, whose implicit
# pool is "thread_pool default threads=32 max_queue=65536" - written out here.
_ARTICLE = (
    ARTICLE_HEAD
    + """
    server {{
        listen 127.0.0.1:{port};
        location / {{
            root {storage};
{aio}        }}
    }}
}}
"""
)


def single_root_conf(name: str, *, workers: int, prefix: Path, port: int, storage: Path) -> str:
    """The configs that serve every disk through one root (the symlink tree)."""
    if name == "stock":
        return _STOCK.format(
            title=TITLES[name], workers=workers, prefix=prefix, port=port, storage=storage
        )
    pools = name == "handwritten"
    return _ARTICLE.format(
        name=name,
        title=TITLES[name],
        workers=workers,
        prefix=prefix,
        port=port,
        storage=storage,
        pools="thread_pool default threads=32 max_queue=65536;\n" if pools else "",
        aio="            aio threads;\n" if pools else "",
    )


SINGLE_ROOT = ("stock", "handwritten", "article-nopool")

# The article's multi-disk layout ("thread_pool pool_1 threads=16; ... aio threads=pool_$disk"),
# serving files instead of a cache: the map plays its split_clients, with the bench's placement.
_PERDISK = (
    ARTICLE_HEAD
    + """    map_hash_max_size 65536;

    map $uri $disk {{
        default {default};
{entries}    }}

    server {{
        listen 127.0.0.1:{port};
        location / {{
            root {mnt}/$disk/data;
            aio threads=pool_$disk;
        }}
    }}
}}
"""
)


def perdisk_conf(*, workers: int, prefix: Path, port: int, mnt: Path, where: dict[str, str]) -> str:
    """The article's per-disk layout over the disks `where` (URI -> disk name) uses."""
    disks = sorted(set(where.values()))
    return _PERDISK.format(
        name="perdisk",
        title=TITLES["perdisk"],
        workers=workers,
        prefix=prefix,
        port=port,
        mnt=mnt,
        pools="".join(f"thread_pool pool_{d} threads=16 max_queue=65536;\n" for d in disks),
        default=disks[0],
        entries="".join(f"        {uri} {disk};\n" for uri, disk in sorted(where.items())),
    )


_PID = re.compile(r"^(\s*)pid\s+[^;]+;", re.MULTILINE)
_ERROR_LOG = re.compile(r"^(\s*)error_log\s+[^;\s]+", re.MULTILINE)
_ACCESS_LOG = re.compile(r"^(\s*)access_log\s+(?!off\b)[^;\s]+", re.MULTILINE)


def relocate(conf: str, prefix: Path) -> str:
    """Move a rendered config's runtime files (pid, logs) into `prefix`, so that it runs beside
    the host's own nginx. Nothing that shapes performance is changed."""
    if _PID.search(conf):
        conf = _PID.sub(rf"\1pid {prefix}/nginx.pid;", conf)
    else:
        conf = f"pid {prefix}/nginx.pid;\n" + conf
    if _ERROR_LOG.search(conf):
        conf = _ERROR_LOG.sub(rf"\1error_log {prefix}/error.log", conf)
    else:
        conf = f"error_log {prefix}/error.log warn;\n" + conf
    return _ACCESS_LOG.sub(rf"\1access_log {prefix}/access.log", conf)


def substitute(template: str, values: dict[str, str]) -> str:
    """Fill `@NAME@` placeholders of an extra arm's config file (see `bench run --arm-file`)."""
    for key, value in values.items():
        template = template.replace(f"@{key}@", value)
    if leftover := re.findall(r"@[A-Z_]+@", template):
        raise ValueError(f"unknown placeholders {sorted(set(leftover))}")
    return template
