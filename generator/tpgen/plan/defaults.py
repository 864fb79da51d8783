"""Every constant the plan starts from, and where its number comes from.

A rule in the other plan modules turns these into Decisions for one spec; the reasons it writes
repeat the figures below, so an operator reads them in `tpgen explain`.
"""

from __future__ import annotations

import math

from tpgen.plan.buckets import SPLIT_STEPS
from tpgen.spec.model import LOOPBACK_NETWORKS
from tpgen.spec.paths import NGINX_LOGS, NGINX_MIME_TYPES

# ---------------------------------------------------------------------- limits of a real node
# Limits of a real Linux node with a stock kernel; limits.check_node_limits holds every derived
# and every overridden value within them.
# Every worker starts every pool, and a reload runs the old and the new workers at once: the
# node's pool threads stay within a quarter of a default pid_max of 32768, so a reload needs half.
THREAD_BUDGET = 8192
# nginx's master keeps at most NGX_MAX_PROCESSES (1024) children, and a reload runs the old
# workers (until they finish, worker_shutdown_timeout) beside the new ones, each generation with a
# cache manager and loader: 2 × 510 + 4 = 1024. More workers and a reload cannot spawn them all.
MAX_WORKERS = 510
# fs.nr_open: setrlimit(RLIMIT_NOFILE) above it fails, so worker_rlimit_nofile cannot pass it.
NR_OPEN = 1_048_576

# ------------------------------------------------------------------------ workers, connections
# Each worker allocates a connection and two events per worker_connections slot at start
# (measured: 442 bytes a slot, nginx 1.22 x86_64); all workers' slots must fit this share of RAM.
CONNECTION_SLOT_BYTES = 512
CONNECTION_RAM_PERCENT = 25
# The derived worker_connections keeps all workers' slots within this smaller share (bench, 12
# workers, 512 MiB, cold inodes: 8,192 a worker hot p99 2.0x the article's per-disk layout, 1,024
# 0.53x), in steps of 1024, never below MIN_WORKER_CONNECTIONS.
CONNECTION_DEFAULT_RAM_PERCENT = 2
MIN_WORKER_CONNECTIONS = 1024
# Per workload, before the RAM cap (tpgen's choice): many short connections on a cache; fewer,
# longer transfers on origin and vod.
DEFAULT_CONNECTIONS = {"cache": 16384, "origin": 8192, "vod": 4096}
CONNECTIONS_BECAUSE = {
    "cache": "many short client and upstream connections",
    "origin": "a client connection each, files opened from the disks",
    "vod": "long-lived large transfers, fewer at a time",
}
# Descriptors beyond the connections' two each: logs, listeners, the status server (an
# allowance, not counted: a node writes two logs and listens on two sockets).
EXTRA_FDS = 64
# The article's config (seeds/thread-pools-boost-performance-9x.txt) and nginx's default since
# 1.11.3: every worker wakes and the first accepts, without the lock's hand-off delay.
ACCEPT_MUTEX = "off"

# ----------------------------------------------------------------------------- thread pools
# Reads one HDD may have in flight across ALL workers: each pool thread holds at most one, and
# every worker starts every pool, so the per-worker count is this budget's share, not a constant
# that multiplies with the cores. A cold transfer in flight pins about one sendfile chunk of page
# cache (read-ahead, socket buffer): all of them together stay within a share of memory, or they
# evict the hot files, inodes and dentries that keep open() off the disk (bench, fast-disk: 64
# threads a worker 35-72 hot req/s, 16: 91-273).
HDD_INFLIGHT = 128
INFLIGHT_MEMORY_PERCENT = 12
HDD_THREADS_BECAUSE = (
    "with aio threads every send, even of a cached file, queues in the pool FIFO, so a pool "
    "must hold its worker's cold reads on the disk (bench, warm inodes: hot p99 4.5 s at 16, "
    "146 ms at 64 a worker); beyond the budget reads only queue in the kernel, where open() on "
    "the event loop waits behind them for the inode (bench, 3 disks, 256 MiB, cold inodes: 64 a "
    "worker 0.34x the article's hot req/s, 16 1.14x; 1 GiB, warm inodes: 31 a worker 3.0x); "
    "at least 16 because nginx spreads connections unevenly over workers (12 workers at 8 a "
    "worker: hot p99 12x the article's, at 16: 0.88x)"
)
# nginx does not spread connections evenly over workers (accept_mutex off: whoever wakes first
# accepts), so one worker may hold many times its 1/workers share of a disk's cold transfers: its
# pool never gets fewer than the article's 16 (bench, 12 workers: 8 a worker, hot p99 2.4-2.9 s;
# 16, 0.18-0.20 s; the busiest of 12 workers held 2.35x the mean, of 4 loops 1.22x). Not even
# to fit memory, but per core: loops the plan adds beyond one a core share it (below).
HDD_WORKER_THREADS = 16
# Every busy pool thread holds a transfer whose pages (a sendfile chunk's read-ahead and socket
# queue, or the whole answer if smaller) stay in memory until its socket drains: past the node's
# memory the transfers evict each other's read-ahead before it is sent, the disks read far more
# than they deliver and the hot file is evicted with it. Where the plan added event loops beyond
# one a core (HDD_MIN_EVENT_LOOPS), those loops share the cores' floor instead of each adding 16
# reads a disk, so the pools fit that memory down to the article's 16 a core. Bench (issue 10,
# session 18, 2 cores, 4 loops, ÷ the article's per-disk layout, hot req/s / hot p99 / cold MB/s):
# 4 disks of 150 MiB/s, 256 MiB, 200 cold conns: 16 a worker 0.03-0.29x, the hot file stalled in
# 5 of 9 rounds; 8 a worker 0.81-0.98x / 0.36-0.76x / 1.35x, no stall in 6. 6 disks, 384 MiB,
# 360 conns: 16 stalled in both rounds; 8 0.66x / 1.25x / 1.25x. 3 disks of 100 MiB/s, 256 MiB,
# 120 conns: 10 a worker 1.09x / 0.59x / 1.17x (16: 1.03x / 0.17x / 1.15x). Not below the
# cores' floor: at 12 workers a pool sized for a fair share of memory queued the hot file behind
# the busiest worker's cold reads (3-5 a worker: hot p99 2.3-6.2 s, bench session 16).
# What the busy transfers may take: an eighth of memory stays for what open() and the hot files
# need in it (inodes, dentries, the hot files' pages) and nginx itself. At the whole memory the
# hot file still stalled (bench, sessions 19-20: 6 disks of 150 MiB/s, 384 MiB, 360 cold conns,
# 8 a pool of 2m chunks, 100 % of memory: 6 of 15 rounds). The regimes it moves, at 2 workers
# (÷ the article's layout, hot req/s / hot p99 / total / cold MB/s, the old count in the same
# run): fast-disk 9 a pool, 1.05 / 0.68 / 1.07 / 1.30 and 1.00 / 0.74 / 1.03 / 1.25 (10: 1.07 /
# 0.49 / 1.09 / 1.30 and 0.97 / 1.25 / 0.99 / 1.25); cold-metadata 13, 1.57 / 0.24 / 1.55 /
# 1.20 (16: 1.57 / 1.01 / 1.56 / 1.18).
TRANSFER_MEMORY_PERCENT = 87
POOL_MEMORY_BECAUSE = (
    "every busy pool thread holds a transfer's pages until its socket drains: beyond memory the "
    "transfers evict each other's read-ahead before it is sent and the hot file with it (bench, "
    "2 cores, 4 disks, 256 MiB, 200 cold conns: 16 a worker stalled the hot file in 5 of 9 "
    "rounds, 0.03-0.29x the article's hot req/s; 8 a worker never, 0.81-0.98x, with 0.36-0.76x "
    "its hot p99 and 1.35x its cold MB/s)"
)
# nginx opens every file on the event loop (no version offloads open()), so an HDD whose inode or
# directory block is not in memory holds a whole worker while the read waits behind the disk's
# queue. The hot file stalls only when EVERY event loop waits at once: with a share b of each
# loop's time blocked, about b^W of the time for W loops. Sampling the workers' main threads put
# b at 26-32 % with 2 workers on 2 CPUs under cold load (8-14 % at 12 workers), so a node with
# pooled HDDs runs at least HDD_MIN_EVENT_LOOPS loops (0.30^4 = 0.8 % of the time all blocked,
# 0.30^2 = 9 % at 2): one more per pooled HDD, at most one more per core, within THREAD_BUDGET
# at HDD_WORKER_THREADS a pool. nginx's docs name "the number of hard disk drives that store
# data" as a factor of worker_processes. Bench (issue 10, 2 cores, ÷ the article's per-disk
# layout, hot req/s / hot p99 / cold MB/s; regimes run 6, the rule as an arm: 4 workers against
# 2): cold inodes 16.5 / 0.31 / 1.20 (one worker a core: 5.08 / 1.45 / 1.04, the hot file
# collapsed in 1 of 3 rounds), fast-disk 0.97 / 0.44 / 1.21 (0.84 / 0.88 / 0.94, collapsed 1 of
# 3), warm inodes 1.35 / 0.06 / 1.14 (1.45 / 0.17 / 1.14). Past that floor more loops only cost:
# 16 workers where the article ran 12 (run 7, 12 "cores" on 2 CPUs) gave hot p99 5.2x and 1.1x
# the article's, 12 workers 0.8x-2.0x (runs 4, 6).
HDD_BLOCKED_SHARE = 0.30
HDD_ALL_BLOCKED_TARGET = 0.01
HDD_MIN_EVENT_LOOPS = math.ceil(math.log(HDD_ALL_BLOCKED_TARGET) / math.log(HDD_BLOCKED_SHARE))
EXTRA_WORKERS_BECAUSE = (
    "nginx opens files on the event loop, so each HDD can hold a worker while an inode read "
    "waits behind its queue, and the hot file stalls when every loop waits at once (each loop "
    f"blocked {HDD_BLOCKED_SHARE:.0%} of the time under cold load, bench): at least "
    f"{HDD_MIN_EVENT_LOOPS} loops keep that under {HDD_ALL_BLOCKED_TARGET:.0%} of the time "
    "(one more per pooled HDD, at most one per core, within the thread budget; bench, 2 cores, "
    "cold inodes: 4 workers 16.5x the article's hot req/s and 0.31x its hot p99, 2 workers 5.1x "
    "and 1.45x with the hot file collapsing in a third of the rounds)"
)
# nginx's default max_queue (the article; DESIGN §4): bursts wait in the queue; past it a request
# fails (error log).
HDD_MAX_QUEUE = 65536

# ---------------------------------------------------------------------------------------- I/O
# The article's sendfile_max_chunk: one call moves at most 512 KiB, so one fast client cannot
# hold a worker's event loop; it is also the page cache one transfer in flight pins (above).
# Kept where sendfile() runs on the event loop: a disk nginx reads without a pool.
SENDFILE_MAX_CHUNK = 512 << 10
# With a pool on every disk nginx reads, each chunk is a pool task (ngx_linux_sendfile_thread),
# queued FIFO behind the disk's cold reads: a 4 MiB answer of a cached file queues 8 times at
# 512k, twice at 2m, and nothing runs on the event loop to bound. nginx's default since 1.21.4.
SENDFILE_MAX_CHUNK_POOLED = 2 << 20
SENDFILE_POOLED_BECAUSE = (
    "every disk nginx reads has a pool, so each sendfile() chunk is a pool task queued behind "
    "the disk's cold reads, even for a cached file: fewer, larger chunks queue fewer times, and "
    "none runs on the event loop (bench, 6 regime pairs, 2m against 512k in the same run, two "
    "runs: hot p99 at 12 workers 0.27-0.98x, with cold inodes 0.27x and 0.33x; hot req/s "
    "0.95-1.06x; cold MB/s 0.94-1.22x; 256k lost 0.62x hot req/s)"
)
# Where the cores' floor keeps the pools above what the memory holds at 2m, the chunk halves
# instead, down to the article's 512k: a hot answer queues a few more times in its pool and the
# disks read shorter runs, where evicting the hot file would stall it for whole seconds. Bench
# (issue 10, sessions 19-20, 2 cores, 4 loops, 8 a pool, ÷ the article's per-disk layout):
# 6 disks of 150 MiB/s, 384 MiB, 360 cold conns: at 2m the hot file stalled (< 100 req/s) in 6
# of 15 rounds, at 1m in none of 12, 1m's medians 0.93-1.20x the hot req/s in four runs (2m
# 0.08-1.20x); 1m costs 2m's hot p99 (0.60-1.50x against 0.23-0.56x where 2m did not stall)
# and ~30 % of its cold MB/s (1.00-1.14x against 1.38-1.54x). 4 disks, 256 MiB, 200 cold
# conns: both stalled in 1 of 9 rounds, every arm's hot rate swings there.
CHUNK_MEMORY_BECAUSE = (
    "a transfer in flight holds about a chunk of read-ahead until its socket drains (bench, 2 "
    "cores, 4 loops, 6 disks, 384 MiB, 360 cold conns, 8 a pool: at 2m the hot file stalled in "
    "6 of 15 rounds, at 1m in none of 12, with 0.93-1.20x the article's hot req/s and "
    "1.00-1.14x its cold MB/s)"
)
SENDFILE_LOOP_BECAUSE = (
    "a disk without a pool is read by sendfile() on the event loop: one call moves at most "
    "512k, so a fast client cannot hold the loop"
)
# vod: files above this size skip the page cache (seeds/nginx-thread-pools-debian.txt:
# directio 4m).
DIRECTIO_VOD = 4 << 20
# vod: directio reads go through output_buffers: tpgen's 1 MiB (nginx's default is 2 × 32k) keeps
# an HDD streaming instead of seeking for every 32 KiB; not benchmarked against other sizes. The
# count stays nginx's default 2: one buffer is sent while the other is read.
OUTPUT_BUFFER_VOD = 1 << 20
OUTPUT_BUFFER_COUNT = 2
# origin and vod: every file opened is kept open (min_uses 1), as many as fit a memory budget.
# open() is the one call of a request that still blocks the event loop on an HDD (no nginx
# version offloads it): a kept descriptor pins the file's dentry and inode, so a repeat open never
# waits behind the disk's queued reads for a directory or inode-table block, however hard the
# page cache is churned (bench, issue 10, regimes run 3, ÷ the article's per-disk layout, min_uses
# 1 vs 2 in the same runs, hot req/s / hot p99 / cold MB/s: fast-disk 2 workers 2.41 / 0.17 /
# 0.97 vs 1.83 / 0.28 / 0.95; 12 workers 1.22 / 1.25 / 1.06 vs 1.10 / 1.82 / 1.02; cold inodes,
# 512 MiB, 2 workers 2.53 / 0.93 / 0.91 vs 2.63 / 0.80 / 0.75; 12 workers 1.14 / 0.76 / 1.06 vs
# 1.04 / 0.70 / 0.98; open_file_cache off: hot p99 1.73 vs 0.66 with it).
# A kept descriptor costs each worker its own node and struct file (~512 bytes) and the node one
# inode and dentry (~1.5 KiB, shared): all of it within OPEN_FILE_CACHE_RAM_PERCENT of memory.
OPEN_FILE_CACHE_RAM_PERCENT = 2
OPEN_FILE_WORKER_BYTES = 512
OPEN_FILE_SHARED_BYTES = 1536
# Room for at least the seeds' 1,000 (nginx's docs example) where memory allows, never so many
# that worker_rlimit_nofile nears fs.nr_open.
OPEN_FILE_CACHE_MIN = 1000
OPEN_FILE_CACHE_CAP = NR_OPEN // 4
# Unused for 10 minutes, a descriptor is closed (a deleted file's space is held at most that
# long); a kept one is checked against the file once a minute, so a replaced file is served at
# most a minute late.
OPEN_FILE_CACHE_INACTIVE = "10m"
OPEN_FILE_CACHE_VALID = "60s"
OPEN_FILE_CACHE_MIN_USES = 1
OPEN_FILE_CACHE_ERRORS = "on"
# Debian's nginx.conf (nginx's own default is 75s), written out so the config says it.
KEEPALIVE_TIMEOUT = "65s"
# DESIGN §4: sendfile on (the article's too); tcp_nodelay is nginx's default, written out.
# tcp_nopush (TCP_CORK from an answer's header to its end) pays only for long answers.
# `python -m bench cork` (no disk, 50 kept connections, off ÷ on hot req/s at 2 / 12 workers,
# session 9), sendfile in a thread pool: 64 KiB 1.36 / 1.13, 256 KiB 1.59 / 1.51, 1 MiB 1.44 /
# 1.49, 2 MiB 1.05 / 1.02 (p99 76 / 50 ms corked, 30 / 23 uncorked), 4 MiB 0.98 / 0.99 (session
# 8: 0.88-0.97); sendfile on the event loop: 256 KiB 1.56 / 1.18, 64 KiB 1.05 / 0.96 with a p99
# of 26 / 17 ms corked against 8 / 4 — so not the pool's doing. The IOPS-bound small-files
# regime (256 KiB files, 12 workers): 1.30x the hot req/s without the cork; the slow-disk
# regimes (4 MiB): 1.22-1.41x with it in all six pairs (session 11). Why a corked short answer
# waits (its p50 doubles) was not found; the threshold is the smallest size measured where the
# cork wins.
SENDFILE = "on"
CORK_MIN_OBJECT = 4 << 20
TCP_NOPUSH_BECAUSE = (
    "full packets with sendfile: fewer, larger segments per answer (issue 10, 4 MiB files, off "
    "÷ on in all six slow-disk bench pairs, 6 rounds: hot req/s 0.71-0.82, so uncorked tpgen "
    "falls below the article's layout at fast-disk with 2 workers, 0.72x; hot p99 0.67-1.08x at "
    "12 workers and at fast-disk, 7-9x at 2 workers in baseline and cold-metadata; with no disk, "
    "bench cork at 2 and 12 workers, 0.88-0.99 for a p99 1.05-1.17x the uncorked one; 1.08-1.12 "
    "when every 10th answer closes its connection. Kept: media clients and edge caches keep "
    "theirs, and TLS answers are never corked)"
)
TCP_NOPUSH_SMALL_BECAUSE = (
    "a corked answer this short waits longer for its last segment than the cork saves (bench "
    "cork, no disk, off ÷ on hot req/s at 2 and 12 workers: 256 KiB 1.59 and 1.51, 1 MiB 1.44 "
    "and 1.49, 2 MiB 1.05 and 1.02 with a p99 less than half the corked one; 64 KiB: p99 2-8 ms "
    "against 17-30; with sendfile on the event loop too, 256 KiB 1.56 and 1.18; the IOPS-bound "
    "small-files regime, 256 KiB files, 1.30)"
)
TCP_NODELAY = "on"

# ----------------------------------------------------------------------- cache zones, RAM
KEYS_PER_MB = 8000  # nginx docs: one megabyte of keys_zone stores about 8 thousand keys
# max_size leaves room for the filesystem's own use and the temp files of fills in flight
# (DESIGN §4: 10 %).
HEADROOM_PERCENT = 10.0
# min_free (nginx 1.19.1+): the cache manager evicts before the filesystem fills; tpgen's 1 %,
# at least 1 MiB.
MIN_FREE_PERCENT = 1.0
MIN_FREE_FLOOR = 1 << 20
# The keys zones' share of RAM (tpgen's choice); the rest is page cache and connection buffers.
KEYS_ZONE_RAM_PERCENT = 20.0
# Per workload, the mean object size the keys zone is sized for unless workload.avg_object_size
# says (tpgen's choice: web objects ~1 MiB, video files far larger).
DEFAULT_OBJECT_SIZE = {"cache": 1 << 20, "origin": 1 << 20, "vod": 64 << 20}
DEFAULT_INACTIVE = "7d"  # tpgen's choice: max_size evicts first on a busy node anyway
# DESIGN §4 and the article: 16 × 256 directories, so no directory grows slow to search.
CACHE_LEVELS = "1:2"
# DESIGN §1 and the article: temp files are written in the cache directory itself, so storing a
# fill is a rename on its disk, not a copy across disks.
USE_TEMP_PATH = "off"
# proxy_cache policy below is tpgen's choice, not benchmarked (the bench measures reads, not
# freshness). 10 minutes for the cacheable answers, 1 minute for a 404 so a new object appears.
CACHE_VALID: tuple[tuple[tuple[int, ...], str], ...] = (
    ((200, 206, 301, 302), "10m"),
    ((404,), "1m"),
)
# One fill per key: concurrent misses wait for the first instead of all going to the origin.
CACHE_LOCK = "on"
# Expired entries are revalidated with If-Modified-Since / If-None-Match, updated in the
# background while the stale copy is served (seeds/nginx-thread-pools-debian.txt: use_stale
# updating), and served stale while the origin errs.
CACHE_REVALIDATE = "on"
CACHE_BACKGROUND_UPDATE = "on"
CACHE_USE_STALE = ("error", "timeout", "updating", "http_500", "http_502", "http_503", "http_504")
# The article: aio_write (nginx 1.9.13+) sends the cache's temp-file writes through the pool too.
AIO_WRITE = "on"
# The origin sees the Host the client asked for (nginx's default sends the upstream's name): one
# origin may serve several sites, and the cache key holds the same $host.
ORIGIN_HOST_HEADER = "$host"
# Headers that show where an answer came from: the cache's verdict and the disk.
CACHE_HEADERS = (("X-Cache-Status", "$upstream_cache_status"), ("X-Cache-Disk", "$tpgen_disk"))

# --------------------------------------------------------------------------- origin, status
# The status server: stub_status at this location, for the node itself only (doctor and the
# health check read it).
STATUS_LOCATION = "/nginx_status"
STATUS_ALLOW = ("127.0.0.1", "::1")  # loopback, IPv4 and IPv6

# ------------------------------------------------------------------- listens, TLS, edge sysctls
# The accept queue of a listen holds one worker's worth of new connections (worker_connections)
# through a burst; nginx's own default is 511 (NGX_LISTEN_BACKLOG). Linux truncates it to
# net.core.somaxconn without a word, so the plan raises that sysctl to match. 65535: the largest
# backlog every kernel in use keeps (somaxconn was 16 bits wide before Linux 4.1).
BACKLOG_CAP = 65535
# reuseport gives each worker its own accept queue and the kernel hashes a new connection to one
# of them, whether or not that worker is free. On an HDD node a worker is often not: nginx opens
# files on the event loop (HDD_BLOCKED_SHARE), and a connection queued on a blocked worker's socket
# waits with it, while one shared socket (EPOLLEXCLUSIVE) hands it to a loop that is free — the
# very thing HDD_MIN_EVENT_LOOPS counts on. Bench (issue 10, ÷ the same config with reuseport, hot
# req/s without it): session 3 r3, the four cold-inode pairs, 1.38x / 1.04x / 2.39x / 1.24x;
# session 5 run rp1, all six pairs (baseline, fast-disk, cold-metadata at 2 and 12 workers), 1.54x /
# 1.18x / 1.09x / 1.18x / 3.88x / 1.30x. With no HDD, the spreading is all upside.
REUSEPORT_HDD_BECAUSE = (
    "nginx opens files on the event loop, so a worker often waits for an inode read; with "
    "reuseport a new connection is queued on one worker's own socket even while it waits, "
    "while one shared socket hands it to a free worker (bench, all six regime pairs: hot "
    "req/s 1.09-3.88x the same config with reuseport)"
)
SOMAXCONN_DEFAULT = 4096  # Linux ≥ 5.4's default net.core.somaxconn
# Mozilla's "intermediate" TLS configuration (ssl-config.mozilla.org, guideline 5.7): TLS 1.2 and
# 1.3, ECDHE with AEAD ciphers only; the client's order wins, all of them are strong. The DHE
# suites are left out: nginx offers none without ssl_dhparam, which tpgen does not write.
TLS_PROTOCOLS = ("TLSv1.2", "TLSv1.3")
TLS_CIPHERS = (
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"
)
TLS_PREFER_SERVER_CIPHERS = "off"
# nginx docs (ssl_session_cache): "one megabyte of the cache contains about 4000 sessions".
TLS_SESSIONS_PER_MB = 4000
# The session cache never takes more than this share of RAM (tpgen's choice), at least 1 MB.
TLS_SESSION_CACHE_RAM_PERCENT = 1
TLS_SESSION_TIMEOUT = "1d"  # Mozilla intermediate
# Mozilla intermediate's HSTS: browsers keep to https for two years. No includeSubDomains: the
# domain's other hosts are not this node's to decide.
HSTS = "max-age=63072000"
TLS_EARLY_DATA = "off"  # 0-RTT data can be replayed by an attacker (RFC 8446 §8)
# The files nginx reads at start as root: certificates world-readable, keys root only.
TLS_CERT_MODE = "0644"
TLS_KEY_MODE = "0600"
# HTTP/3: clients learn of the QUIC port from Alt-Svc and keep it for a day (RFC 7838 ma=).
ALT_SVC_MAX_AGE = 86400
QUIC_RETRY = "on"  # address validation before the server spends state on a handshake
# Edge sysctls (plan/sysctls.py): origin connections of a cache node each take a local port;
# Linux's default 32768-60999 gives 28,232 per origin address, this range 64,512.
LOCAL_PORT_RANGE = "1024 65535"
# Files the rest of the system opens besides nginx's workers.
FILE_MAX_RESERVE = 65536
# The kernel's default 100 reclaims inodes and dentries as readily as page cache; 50 keeps them
# twice as long: the bench found cold inodes block the event loop (open() runs on it).
VFS_CACHE_PRESSURE_HDD = 50
# An HDD's read-ahead sets the size of each read an interleaved stream costs a seek for: the
# kernel's default 128 KiB (VM_READAHEAD_PAGES, what a SATA or SAS disk gets) lets a 7200 rpm
# disk deliver ~150 seeks x 128 KiB = 19 MB/s of its ~180 MB/s when many files are read at once;
# 1 MiB reaches most of it. Each read in flight keeps up to two windows in the page cache (the
# one being read and the one the kernel starts ahead of it), so the windows of every read the
# pools can have in flight must fit a share of memory, or pages are evicted before they are
# sent and read again (bench, 6 disks, 384 MiB: the disks read 5-20x what nginx sent at 2,560 KiB).
READ_AHEAD_MIN_KIB = 128
READ_AHEAD_MAX_KIB = 1024
READ_AHEAD_STEP_KIB = 128
READ_AHEAD_MEMORY_PERCENT = 25
READ_AHEAD_WINDOWS = 2
READ_AHEAD_BECAUSE = (
    "a read of 128 KiB costs an HDD a seek as one of 1 MiB does when many files are read at once "
    "(~19 against ~150 MB/s at 150 seeks a second), and windows that do not fit memory are "
    "evicted before they are sent and read again (bench, every disk at a SATA disk's 128 KiB, "
    "÷ the article's per-disk layout: where this floor rose to 512 and 256 KiB, cold MB/s 3.2x "
    "and 1.9x, hot p99 0.39x and 0.67x; 512 or 1 MiB where it stays at 128: cold MB/s 2.0-3.3x "
    "but hot p99 1.0-3.7x at 12 workers and hot req/s 0.86x on 6 disks in 384 MiB)"
)

# ----------------------------------------------------------------------- buckets, split key
# nginx's full split_clients resolution: at 96 disks a fair share is ~104 buckets (4 TB among
# 16 TB disks ~45), so ±1 bucket is ≤ 1-2 %; at 1000 buckets it is ~10 %.
DEFAULT_BUCKETS = SPLIT_STEPS
# nginx's default proxy_cache_key ($scheme$proxy_host$request_uri) with the client's Host for the
# upstream's name: one object per URL the clients ask for.
DEFAULT_CACHE_KEY = "$scheme$host$request_uri"
ORIGIN_KEY = "$uri"  # origin and vod: the file's path, whatever the query string
# The root map's default: split_clients always names a disk, so only a bug reaches it; a root
# that does not exist answers 404 and logs the path, where a real disk would serve silently.
UNMAPPED_ROOT = "/nonexistent/tpgen-unmapped-disk"

# ------------------------------------------------------------------------ files and logs
# The directory under each disk's mount that nginx uses, a cache zone or the files it serves
# (docs/spec.md): nginx's own below the mount point, which the storage_disks role creates 0700
# for the nginx user.
DISK_DIR = {"cache": "cache", "origin": "data", "vod": "data"}
# Debian's nginx package: its user, pid file and log directory.
NGINX_USER = "www-data"
# nginx takes a group named like the user where `user` names none; Debian's nobody has no such
# group (its own is nogroup), and `user nobody;` fails nginx -t there.
NGINX_GROUPS = {"nobody": "nogroup"}
LOG_DIR = NGINX_LOGS
# tpgen's choice: warnings (a full pool queue, a failed read) but not a client's hang-up (info).
ERROR_LOG_LEVEL = "warn"
# tpgen's own (plan/logs.py): combined, then the cache's verdict, the disk and the upstream's times.
ACCESS_LOG_FORMAT = "tpgen"
# Access log lines are written in 64 KiB batches, at the latest after 5 s: one write() per
# batch instead of one per request (tpgen's choice; the bench: the log off is only 1.04x).
ACCESS_LOG_BUFFER = 64 << 10
ACCESS_LOG_FLUSH = "5s"
# The status server's requests (monitoring polls) stay out of the access log.
STATUS_ACCESS_LOG = "off"

# --------------------------------------------------------------------------- responses
SERVER_TOKENS = "off"  # tpgen's choice: no nginx version in headers and error pages
DEFAULT_TYPE = "application/octet-stream"  # nginx's and Debian's default_type
# The distribution's full map of media types (Debian's nginx-common; nginx.org's packages and a
# source build install one at the same place), included on the node; the offline check includes
# tpgen's bundled copy of Debian 12's (tpgen/data/mime.types) instead.
MIME_TYPES_FILE = NGINX_MIME_TYPES
# What a CDN node serves that Debian 12's map lacks (anything else is DEFAULT_TYPE): streaming
# segments and manifests, subtitles, audio, and a few web formats. None of these extensions is in
# the bundled copy (a test holds it), so nginx never warns of a duplicate.
MIME_TYPES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("video/iso.segment", ("m4s",)),
    ("application/dash+xml", ("mpd",)),
    ("video/mp4", ("cmfv",)),
    ("audio/mp4", ("cmfa",)),
    ("text/vtt", ("vtt",)),
    ("application/ttml+xml", ("ttml",)),
    ("application/x-subrip", ("srt",)),
    ("audio/aac", ("aac",)),
    ("audio/opus", ("opus",)),
    ("audio/flac", ("flac",)),
    ("audio/wav", ("wav",)),
    ("video/x-matroska", ("mkv",)),
    ("text/javascript", ("mjs",)),
    ("image/heic", ("heic",)),
    ("image/jxl", ("jxl",)),
)

# ------------------------------------------------------------- slices (issue 13: byte ranges)
# nginx drops a client's Range when it caches: a 1 KiB seek into a cold 64 MiB object fetched all
# 64 MiB from the origin (measured, docs/operations.md). The slice module fetches and caches an
# object in fixed slices instead. nginx's docs example and tpgen's choice: 1 MiB, so a cold seek
# costs the origin at most two slices, and an HDD reads a slice in one seek plus ~5 ms of transfer.
SLICE_SIZE = 1 << 20
# `slice: auto` slices a cache whose objects average at least this much: smaller objects are a few
# slices long, and each slice costs a keys-zone entry, a file and an origin request of its own.
SLICE_AUTO_MIN_OBJECT = 8 << 20
SLICE_RANGE = "$slice_range"

# ---------------------------------------------------------- cache policy (issue 13: defaults)
# nginx's own defaults, written out so `tpgen explain` shows them: a waiting request goes to the
# origin itself after 5 s; a fill older than 5 s lets one more request try.
CACHE_LOCK_TIMEOUT = "5s"
CACHE_LOCK_AGE = "5s"
# Every object is written on its first miss (nginx's default): a cache node's clients come back.
CACHE_MIN_USES = 1
# The cache loader and manager (proxy_cache_path). nginx's defaults: 100 files an iteration,
# 200 ms an iteration at most, 50 ms between. A 4 TB disk of 1 MiB objects holds 3.8 million
# files: at 100 an iteration the loader needs 38,000 iterations (at least half an hour of sleeps
# alone) before the zone knows the disk, while every miss on an unknown key refetches. tpgen
# sizes an iteration so the whole disk is indexed in LOADER_TARGET_ITERATIONS iterations.
LOADER_FILES_DEFAULT = 100
LOADER_TARGET_ITERATIONS = 3600
LOADER_FILES_MAX = 10_000
LOADER_THRESHOLD = "200ms"
# The manager evicts at least what a disk can write in one iteration (nginx: 200 ms + 50 ms):
# an HDD streams about 200 MB/s, so 50 MB an iteration; at 100 files of 32 KiB it would fall
# behind the fills and the filesystem would fill to min_free.
DISK_WRITE_BYTES_PER_ITERATION = {"hdd": 50 << 20, "ssd": 125 << 20, "nvme": 500 << 20}
MANAGER_FILES_DEFAULT = 100
MANAGER_FILES_MAX = 10_000
# Debug headers (X-Cache-Status, X-Cache-Disk) go to these clients only, unless
# cache.debug_headers: true: which disk holds a key tells an outsider how to aim a load at one
# spindle.
TRUSTED_NETWORKS = LOOPBACK_NETWORKS

# ---------------------------------------------------------------- access log (issue 13)
# One line per request with what the per-disk layout needs to be seen: the cache's verdict, the
# disk, the upstream's address, status and times, the request's time, bytes and Range.
LOG_FIELDS: tuple[tuple[str, str], ...] = (
    ("time", "$time_iso8601"),
    ("remote_addr", "$remote_addr"),
    ("request", "$request"),
    ("status", "$status"),
    ("bytes_sent", "$bytes_sent"),
    ("body_bytes_sent", "$body_bytes_sent"),
    ("range", "$http_range"),
    ("request_time", "$request_time"),
    ("cache", "$upstream_cache_status"),
    ("disk", "$tpgen_disk"),
    ("upstream_addr", "$upstream_addr"),
    ("upstream_status", "$upstream_status"),
    ("upstream_connect_time", "$upstream_connect_time"),
    ("upstream_header_time", "$upstream_header_time"),
    ("upstream_response_time", "$upstream_response_time"),
    ("user_agent", "$http_user_agent"),
)

# ----------------------------------------------------------------- origins (issue 13)
# nginx's 60 s connect timeout holds a client a minute on a dead origin before the next one is
# tried. An origin in a data centre answers a SYN in milliseconds; 5 s still covers two lost SYNs
# (Linux retransmits after 1 s and 3 s). Sending and reading keep nginx's 60 s between two
# operations, written out: a slow origin producing a large object is not a dead one.
ORIGIN_CONNECT_TIMEOUT = "5s"
ORIGIN_SEND_TIMEOUT = "60s"
ORIGIN_READ_TIMEOUT = "60s"
# nginx's default passes a request on after error and timeout only; an origin that answers
# 502/503/504 is failing too, and a GET is safe to repeat (nginx never repeats a POST).
ORIGIN_NEXT_UPSTREAM = ("error", "timeout", "http_502", "http_503", "http_504")
# At most this many origins a request: past three the origin farm is down, not one server.
ORIGIN_NEXT_TRIES_MAX = 3
# nginx's defaults, written on every server line: one failure takes a server out for 10 s.
ORIGIN_MAX_FAILS = 1
ORIGIN_FAIL_TIMEOUT = "10s"
# Idle connections to the origin from the whole node (all workers together): an origin serves
# many edge nodes, each keeping this many at most, at least ORIGIN_KEEPALIVE_MIN a worker so a
# burst of misses reuses connections instead of handshaking.
ORIGIN_IDLE_PER_NODE = 512
ORIGIN_KEEPALIVE_MIN = 8
ORIGIN_KEEPALIVE_MAX = 64
# TLS to the origin: Debian's CA bundle (package ca-certificates); a chain of leaf, intermediate
# and root needs depth 2 (nginx's default 1 accepts only a leaf signed by the root itself).
ORIGIN_CA_FILE = "/etc/ssl/certs/ca-certificates.crt"
ORIGIN_VERIFY_DEPTH = 3

# ------------------------------------------------------------------------- vod: mp4 (issue 13)
# The mp4 module reads a file's index (moov) to answer ?start=/?end=: in one 1 MiB read (an HDD's
# one seek, the vod output_buffers size) rather than nginx's 512k; an index may grow to 32 MiB (a
# long film's sample table reaches ~20 MB; past the limit nginx answers 500). tpgen's choice, not
# benchmarked.
MP4_BUFFER = 1 << 20
MP4_MAX_BUFFER = 32 << 20
# ?start= between two key frames: by default nginx cuts at the sample holding that time, and the
# clip starts without a key frame (players show nothing or artefacts until the next one; measured
# in tests/test_live_mp4.py). mp4_start_key_frame (nginx 1.21.4) starts it at the key frame before
# and hides the lead-in with an edit list.
MP4_START_KEY_FRAME_SINCE = (1, 21, 4)

# ------------------------------------------------------------------ guard (the node agent)
# `tpgen guard` fails a disk after this many I/O errors within GUARD_WINDOW: Apache Traffic
# Server's proxy.config.cache.max_disk_errors is 5 (its docs, records.config), and one
# request for a dead disk already logs one or two errors, so five are a few requests, not one
# bad sector that a retry read around.
GUARD_ERRORS = 5
# Long enough to count a burst of requests for a dead disk, short enough that errors spread
# over an hour (a bad sector read now and then) never add up to a failure.
GUARD_WINDOW = "30s"
# At most one disk failed per this span without an operator: a second disk crossing the
# threshold soon after the first points at the controller, a cable or the kernel (DESIGN §7).
GUARD_RATE_WINDOW = "10m"
# A slow disk is reported (doctor shows it), not drained: draining moves its keys to the
# other disks, which is an operator's call unless the spec says drain.
GUARD_SLOW = "report"
# A dying HDD's reads take 10x its peers' (issue 14): a seek-bound HDD varies 2-3x under load.
GUARD_SLOW_FACTOR = 10.0
# Minutes, not seconds: a burst of reads queued behind a scrub or a rebuild is not a sick disk.
GUARD_SLOW_FOR = "5m"
# Below these a latency figure is noise: a few reads, or reads from a disk's own cache.
GUARD_SLOW_MIN_READS = 50
GUARD_SLOW_MIN_MS = 20.0

# ------------------------------------------------------------------------ graceful reloads
# worker_shutdown_timeout: how long a reload's old workers may finish what they send. Long
# enough that no download in flight is cut (a reload is how tpgen guard and the playbooks take
# a disk out), short enough that old workers - each with its thread pools, which THREAD_BUDGET
# counts twice for a reload - and the files they hold open on a failed disk do not linger.
# cache: objects around avg_object_size take seconds even to a slow client; origin: whole
# files; vod: a progressive download of a feature film lasts as long as it plays (~3 h).
WORKER_SHUTDOWN_TIMEOUT = {"cache": "10m", "origin": "30m", "vod": "4h"}
WORKER_SHUTDOWN_BECAUSE = {
    "cache": "a reload lets old workers finish downloads of cached objects (seconds each), "
    "then frees their pools and a failed disk's files",
    "origin": "a reload lets old workers finish whole-file downloads, then frees their pools",
    "vod": "a reload never cuts a video download: a progressive download lasts as long as the "
    "film plays (~3 h)",
}
