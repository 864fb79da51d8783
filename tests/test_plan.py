"""The rules of DESIGN §4, one by one, without nginx or templates."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from tpgen.cli import main
from tpgen.errors import EXIT_BAD_INPUT, SpecError
from tpgen.plan import CacheZone, DiskPlan, Plan, ThreadPool, make_plan
from tpgen.spec.load import parse_spec_text, spec_from_mapping

from .specs import disk, spec


def plan_of(data: dict[str, object]) -> Plan:
    return make_plan(spec_from_mapping(data, "t.yaml"), "t.yaml")


def test_workers_follow_cores_and_files_cover_two_per_connection() -> None:
    plan = plan_of(spec())
    # 8 cores and 3 HDDs: 8 loops are enough that not all of them wait in open() at once.
    assert plan.worker_processes.value == 8
    assert "8 loops already make it unlikely" in plan.worker_processes.because
    assert plan.worker_connections.value == 16384
    assert plan.worker_rlimit_nofile.value >= 2 * plan.worker_connections.value
    assert "2 × worker_connections" in plan.worker_rlimit_nofile.because


@pytest.mark.parametrize(
    ("kind", "cores", "hdds", "ssds", "workers"),
    [
        ("origin", 1, 3, 0, 2),  # one more event loop per HDD, at most one per core
        ("origin", 2, 4, 0, 4),  # up to the 4 loops that rarely all wait in open() at once
        ("origin", 2, 1, 0, 3),  # one more per pooled HDD, no more
        ("origin", 3, 4, 0, 4),
        ("origin", 4, 12, 0, 4),  # 4 cores are 4 loops already
        ("origin", 32, 12, 0, 32),
        ("origin", 2, 0, 3, 2),  # SSDs have no pool: sendfile does not block on them
        ("cache", 2, 3, 2, 4),
    ],
)
def test_hdd_nodes_run_enough_event_loops(
    kind: str, cores: int, hdds: int, ssds: int, workers: int
) -> None:
    data = spec(kind, hdds + ssds, node={"cores": cores})
    disks: list[dict[str, object]] = data["disks"]
    for disk_entry in disks[hdds:]:
        disk_entry["media"] = "ssd"
    assert plan_of(data).worker_processes.value == workers


def test_only_disks_nginx_reads_through_a_pool_add_a_worker() -> None:
    data = spec("cache", 4, node={"cores": 2})
    data["disks"][1]["state"] = "draining"  # a cache node no longer reads a draining disk
    data["disks"][2]["state"] = "failed"
    data["disks"][3]["state"] = "failed"
    assert plan_of(data).worker_processes.value == 2 + 1


@pytest.mark.parametrize(("setting", "workers"), [("auto", "auto"), (3, 3)])
def test_worker_processes_in_the_spec_win(setting: object, workers: object) -> None:
    plan = plan_of(spec(tuning={"worker_processes": setting}))
    assert plan.worker_processes.value == workers and plan.worker_processes.overridden


def test_rlimit_override_below_two_per_connection_is_refused() -> None:
    data = spec(tuning={"worker_connections": 1000, "worker_rlimit_nofile": 1500})
    with pytest.raises(SpecError, match=r"tuning.worker_rlimit_nofile: 1500 is below 2 × "):
        plan_of(data)


def test_every_active_hdd_gets_its_own_pool_and_ssd_none() -> None:
    data = spec(disks=2)
    data["disks"].append(disk(3, media="ssd"))
    data["disks"].append(disk(4, media="nvme", thread_pool=True))
    plan = plan_of(data)
    pools = {d.name: d.thread_pool for d in plan.disks}
    assert pools["d1"] is not None and pools["d1"].name == "pool_d1"
    assert (pools["d1"].threads.value, pools["d1"].max_queue.value) == (16, 65536)
    assert pools["d3"] is None
    assert pools["d4"] is not None
    assert plan.mixed_pools


def _threads(data: dict[str, object]) -> tuple[int, str]:
    pool = plan_of(data).disks[0].thread_pool
    assert pool is not None
    return pool.threads.value, pool.threads.because


def test_pool_threads_are_a_workers_share_of_the_disks_reads_in_flight() -> None:
    threads, because = _threads(spec(disks=3, node={"cores": 8}, tuning={"worker_processes": 8}))
    assert threads == 128 // 8 == 16
    assert because.startswith("128 reads in flight per HDD across all workers (≤ 128, and ")
    assert "÷ 8 workers, at least 16: with aio threads every send" in because
    # 2 workers: more threads each, the same reads in flight per disk.
    assert _threads(spec(disks=3, tuning={"worker_processes": 2}))[0] == 64


def test_small_memory_lowers_the_reads_in_flight() -> None:
    # 4 disks x 61 reads x 512 KiB <= 12% of 1 GiB: each transfer pins about a chunk of cache.
    small = {"cores": 2, "memory": "1GiB"}
    tuning = {"worker_processes": 2, "sendfile_max_chunk": "512KiB"}
    threads, because = _threads(spec("origin", 4, node=small, tuning=tuning))
    assert threads == 31
    assert because.startswith("61 reads in flight per HDD across all workers (≤ 128, and 4 disks")
    # the default chunk on an all-pool node, 2 MiB: 15 reads fit, the pool keeps its floor
    threads, because = _threads(spec("origin", 4, node=small, tuning={"worker_processes": 2}))
    assert threads == 16
    assert because.startswith("15 reads in flight per HDD across all workers (≤ 128, and 4 disks")
    assert "4 disks × 15 × 2.0 MiB ≤ 12% of memory" in because
    # 20 reads fit 256 MiB, but a worker's pool keeps the 16 that uneven connection spread needs.
    assert _threads(spec("origin", disks=3, node={"cores": 2, "memory": "256MiB"}))[0] == 16


@pytest.mark.parametrize("cores", [1, 2, 3, 8, 12, 24, 32, 64])
@pytest.mark.parametrize("memory", ["1GiB", "4GiB", "256GiB"])
def test_reads_in_flight_per_disk_do_not_grow_with_the_cores(cores: int, memory: str) -> None:
    threads, _ = _threads(spec("origin", disks=4, node={"cores": cores, "memory": memory}))
    assert threads >= 16
    assert threads * cores <= max(128 + cores, 16 * cores)


def _small_node(disks: int, memory: str, cores: int = 2, **sections: Any) -> dict[str, Any]:
    """A 4 MiB-object origin node, as the bench's regimes describe theirs."""
    sections.setdefault("workload", {"type": "origin", "avg_object_size": "4MiB"})
    return spec("origin", disks=disks, node={"cores": cores, "memory": memory}, **sections)


def test_busy_pool_threads_fit_the_memory_down_to_the_cores_floor() -> None:
    # 4 loops on 2 cores x 4 pools x 16 threads x a 2 MiB chunk = 512 MiB: twice the memory
    threads, because = _threads(_small_node(4, "256MiB"))
    assert threads == 8
    assert because.startswith(
        "6 a worker fit 87% of memory (256.0 MiB) with 4 workers × 4 pools × 2.0 MiB a busy "
        "thread (a sendfile chunk, or an answer if smaller); at least 8: 16 a core shared by the "
        "4 loops of 2 cores: every busy pool thread holds a transfer's pages"
    )
    # 87% of 256 MiB is 222.7 MiB: 9 a worker x 4 x 3 x 2 MiB = 216 MiB
    assert _threads(_small_node(3, "256MiB"))[0] == 9
    assert _threads(_small_node(6, "384MiB"))[0] == 8
    # fitting would be 6, but 3 cores' floor shared by 4 loops is 12
    assert _threads(_small_node(4, "256MiB", cores=3))[0] == 12
    # 445 MiB hold 13 a worker of 4 x 4 x 2 MiB, not 16
    assert _threads(_small_node(4, "512MiB"))[0] == 13
    # where memory holds 16 a worker, or answers are smaller than a chunk, the floor stays
    assert _threads(_small_node(4, "1GiB"))[0] == 16
    smaller = _small_node(4, "256MiB", workload={"type": "origin", "avg_object_size": "256KiB"})
    assert _threads(smaller)[0] == 16


def _chunk(data: dict[str, Any]) -> tuple[int, str]:
    chunk = plan_of(data).sendfile_max_chunk
    return chunk.value, chunk.because


def test_the_chunk_halves_where_the_cores_floor_holds_more_threads_than_memory() -> None:
    # 8 a worker x 4 workers x 4 pools = 128 busy threads: 256 MiB at 2m, 128 MiB at 1m
    chunk, because = _chunk(_small_node(4, "256MiB"))
    assert chunk == 1 << 20
    assert because.startswith(
        "128 busy pool threads × 1.0 MiB = 128.0 MiB, ≤ 87% of memory: the cores' floor keeps "
        "the pools from fitting the memory with fewer threads, so each sends less at a time: "
        "a transfer in flight holds"
    )
    assert _chunk(_small_node(6, "384MiB"))[0] == 1 << 20
    # 12 disks: 384 threads x 1 MiB = 384 MiB does not fit, x 512 KiB does
    assert _chunk(_small_node(12, "256MiB"))[0] == 512 << 10
    # 24 disks: nothing down to the article's 512k fits; it keeps that, the least it holds
    chunk, because = _chunk(_small_node(24, "256MiB"))
    assert chunk == 512 << 10
    assert because.startswith(
        "768 busy pool threads × 512.0 KiB = 384.0 MiB, the least a chunk of at least 512.0 KiB "
        "holds"
    )
    # 1 MiB answers: a 1m chunk holds what a 2m one does, so 12 disks go down to 512k
    mib = _small_node(12, "256MiB", workload={"type": "origin", "avg_object_size": "1MiB"})
    assert _chunk(mib)[0] == 512 << 10


def test_the_chunk_stays_where_the_threads_fit_or_the_operator_chose() -> None:
    # 9 a worker of 2 MiB fit (216 MiB of 256): the pooled 2m stays, its own reason
    chunk, because = _chunk(_small_node(3, "256MiB"))
    assert chunk == 2 << 20
    assert because.startswith("every disk nginx reads has a pool")
    # answers smaller than the 512k floor: a smaller chunk would hold no less
    small = _small_node(24, "256MiB", workload={"type": "origin", "avg_object_size": "256KiB"})
    assert _chunk(small)[0] == 2 << 20
    # one loop a core: each pool keeps the article's 16, and the chunk its 2m
    assert _chunk(_small_node(4, "256MiB", cores=12))[0] == 2 << 20
    # the operator's chunk is kept; the operator's threads are fitted with a smaller chunk
    chosen = plan_of(_small_node(4, "256MiB", tuning={"sendfile_max_chunk": "2MiB"}))
    assert (chosen.sendfile_max_chunk.value, chosen.sendfile_max_chunk.overridden) == (
        2 << 20,
        True,
    )
    chunk, because = _chunk(_small_node(4, "256MiB", tuning={"threads_per_disk": 16}))
    assert chunk == 512 << 10
    assert "128.0 MiB, ≤ 87% of memory: the threads set in tuning keep the pools" in because


def test_loops_that_are_not_the_plans_keep_the_whole_floor() -> None:
    # one loop a core (12 cores) or loops the operator set: each pool keeps 16, memory or not
    assert _threads(_small_node(3, "256MiB", cores=12))[0] == 16
    assert _threads(_small_node(4, "256MiB", tuning={"worker_processes": 4}))[0] == 16
    assert _threads(_small_node(4, "256MiB", tuning={"worker_processes": "auto"}))[0] == 16
    # and the operator's own count of threads wins over the memory's
    chosen = plan_of(_small_node(4, "256MiB", tuning={"threads_per_disk": 16})).disks[0]
    assert chosen.thread_pool is not None
    assert (chosen.thread_pool.threads.value, chosen.thread_pool.threads.overridden) == (16, True)


@pytest.mark.parametrize("cores", [1, 2, 3, 4])
@pytest.mark.parametrize("disks", [1, 3, 6, 12])
@pytest.mark.parametrize("memory", ["256MiB", "384MiB", "1GiB", "8GiB"])
def test_pool_threads_fit_memory_or_sit_at_the_cores_floor(
    cores: int, disks: int, memory: str
) -> None:
    data = _small_node(disks, memory, cores=cores)
    threads, _ = _threads(data)
    workers = plan_of(data).worker_processes.value
    assert isinstance(workers, int)
    floor = -(-16 * min(cores, workers) // workers)
    budget = spec_from_mapping(data).node.memory * 87 // 100
    chunk = plan_of(data).sendfile_max_chunk.value
    fits = workers * disks * threads * (2 << 20) <= budget
    assert threads >= floor
    assert fits or threads == floor
    # where the plan's loops share the floor and it holds the threads, their chunks fit
    # instead, down to the article's 512k
    fits_in_chunks = workers * disks * threads * chunk <= budget
    assert fits_in_chunks or chunk == 512 << 10 or workers == cores
    assert chunk in (512 << 10, 1 << 20, 2 << 20)
    assert threads <= max(16, -(-128 // workers))


def test_pool_threads_shrink_to_keep_the_node_within_its_thread_budget() -> None:
    huge = spec("origin", disks=24, node={"cores": 256}, tuning={"worker_processes": 128})
    threads, because = _threads(huge)
    assert threads == 8192 // (128 * 24) == 2
    assert because == (
        "128 workers × 24 pools share the node's 8,192 threads (each worker starts every "
        "pool): 2 a pool"
    )


@pytest.mark.parametrize(
    ("cores", "disks", "workers"), [(64, 256, 32), (1024, 24, 341), (64, 128, 64)]
)
def test_the_plans_own_worker_count_fits_the_thread_budget_at_one_thread_a_pool(
    cores: int, disks: int, workers: int
) -> None:
    # Every worker starts every pool: a 256-HDD JBOD on 64 cores was refused with its defaults.
    plan = plan_of(spec("origin", disks=disks, node={"cores": cores, "memory": "512GiB"}))
    pool = plan.disks[0].thread_pool
    assert pool is not None
    assert plan.worker_processes.value == workers
    assert workers * disks * pool.threads.value <= 8192 < (workers + 1) * disks
    if workers < cores:
        assert plan.worker_processes.because.startswith(f"fewer than the {cores} cores: ")
    else:
        assert "thread pools" not in plan.worker_processes.because


def test_pool_overrides_are_marked_as_overrides() -> None:
    plan = plan_of(spec(tuning={"threads_per_disk": 8, "max_queue": 1024}))
    pool = plan.disks[0].thread_pool
    assert pool is not None
    assert (pool.threads.value, pool.max_queue.value) == (8, 1024)
    assert pool.threads.overridden and pool.max_queue.overridden


def test_cache_zone_sizes_follow_the_disk_and_object_size() -> None:
    data = spec(disks=1, workload={"avg_object_size": "1MiB"})
    cache = plan_of(data).disks[0].cache
    assert cache is not None
    assert cache.path == "/srv/cache/d1/cache"
    assert cache.max_size.value == 3_600_000_000_000  # 4 TB minus 10 % headroom
    objects = 3_600_000_000_000 // (1 << 20)
    assert cache.keys_zone_mb.value == -(-objects // 8000)
    assert cache.min_free.value == 40_000_000_000 >> 20 << 20
    assert cache.inactive.value == "7d"
    assert cache.levels.value == "1:2"


def test_keys_zones_over_the_ram_budget_fail_with_numbers_and_fix() -> None:
    data = spec(disks=3, node={"memory": "4GiB"}, workload={"avg_object_size": "16KiB"})
    with pytest.raises(SpecError) as caught:
        plan_of(data)
    message = str(caught.value)
    assert "workload.avg_object_size: keys_zones need" in message
    assert "RAM budget is 819 MB" in message
    assert "raise avg_object_size" in message


def test_draining_disk_gets_no_buckets_but_keeps_its_cache_path() -> None:
    data = spec(disks=3)
    data["disks"][1]["state"] = "draining"
    plan = plan_of(data)
    d2 = plan.disks[1]
    assert d2.bucket_count == 0 and "d2" not in plan.owners
    assert d2.cache is not None and d2.thread_pool is None
    assert sum(d.bucket_count for d in plan.disks) == 10000


def test_failed_disk_vanishes_from_the_config() -> None:
    data = spec(disks=3)
    data["disks"][2]["state"] = "failed"
    plan = plan_of(data)
    assert [d.name for d in plan.serving_disks] == ["d1", "d2"]
    assert plan.disks[2].cache is None and plan.disks[2].thread_pool is None


def test_origin_draining_hdd_keeps_its_pool_for_fallback_reads() -> None:
    data = spec("origin", disks=2)
    data["disks"][1]["state"] = "draining"
    plan = plan_of(data)
    assert plan.disks[1].thread_pool is not None
    assert plan.draining_disks[0].dir == "/srv/cache/d2/data"


def test_weights_follow_size_by_default() -> None:
    data = spec(disks=2)
    data["disks"][1]["size"] = "12TB"
    plan = plan_of(data)
    small, large = plan.disks
    assert large.bucket_count > 2.5 * small.bucket_count


def test_vod_reads_large_files_with_directio_aligned_for_xfs() -> None:
    plan = plan_of(spec("vod"))
    assert plan.directio is not None and plan.directio.value == 4 << 20
    assert plan.directio_alignment is not None and plan.directio_alignment.value == "4k"
    assert plan.output_buffers is not None and plan.output_buffers.value == 1 << 20
    assert plan.open_file_cache_max is not None


def test_origin_uses_open_file_cache_and_the_uri_as_key() -> None:
    plan = plan_of(spec("origin"))
    assert plan.open_file_cache_max is not None and plan.directio is None
    assert plan.split_key.value == "$uri"
    assert all(d.cache is None for d in plan.disks)


def _open_files(disks: int = 3, **sections: object) -> tuple[int, str, int]:
    plan = plan_of(spec("origin", disks, **sections))
    assert plan.open_file_cache_max is not None and plan.open_file_cache_min_uses is not None
    return (
        plan.open_file_cache_max.value,
        plan.open_file_cache_max.because,
        plan.open_file_cache_min_uses.value,
    )


def test_open_file_cache_keeps_every_file_the_disks_hold_when_memory_allows() -> None:
    # 3 × 4 TB of 1 GiB objects: 11,175 files; 2% of 32 GiB fits 122,016 a worker (8 workers).
    kept, because, min_uses = _open_files(workload={"avg_object_size": "1GiB"})
    assert (kept, min_uses) == (11_175, 1)
    assert "about 11,175 files of 1.0 GiB" in because
    assert "pins its dentry and inode" in because


def test_open_file_cache_stays_within_its_share_of_memory() -> None:
    # 3 × 4 TB of 1 MiB objects: millions of files; 2% of 1 GiB / (16 × 512 + 1536 bytes).
    node = {"name": "n", "cores": 16, "memory": "1GiB"}
    kept, because, _ = _open_files(node=node, tuning={"worker_processes": 16})
    assert kept == (1 << 30) * 2 // 100 // (16 * 512 + 1536) == 2_207
    assert "2,207 descriptors a worker fit 2% of memory" in because


def test_open_file_cache_has_room_for_a_thousand_files_even_on_a_near_empty_node() -> None:
    kept, because, _ = _open_files(1, workload={"type": "origin", "avg_object_size": "1TiB"})
    assert "about 3 files of 1.0 TiB" in because
    assert kept == 1000


def test_open_file_cache_never_nears_the_kernels_file_limit() -> None:
    kept, _, _ = _open_files(
        node={"name": "n", "cores": 1, "memory": "1TiB"}, workload={"avg_object_size": "4KiB"}
    )
    assert kept == 1_048_576 // 4


def test_cache_nodes_have_no_open_file_cache() -> None:
    plan = plan_of(spec("cache"))
    assert plan.open_file_cache_max is None and plan.open_file_cache_min_uses is None


def test_cache_key_is_also_the_split_key() -> None:
    plan = plan_of(spec(workload={"cache_key": "$host$uri"}))
    assert plan.split_key.value == "$host$uri"


def _with_disks(data: dict[str, Any], *disks: dict[str, Any]) -> dict[str, Any]:
    return {**data, "disks": list(disks)}


def test_sendfile_chunk_is_2m_where_every_read_disk_has_a_pool_else_512k() -> None:
    pooled = plan_of(spec("origin")).sendfile_max_chunk
    assert pooled.value == 2 << 20
    assert pooled.because.startswith("every disk nginx reads has a pool, so each sendfile() chunk")
    # one disk read by sendfile() on the event loop: the article's bound on one call
    mixed = _with_disks(spec("origin"), disk(1), disk(2, media="nvme"))
    on_loop = plan_of(mixed).sendfile_max_chunk
    assert on_loop.value == 512 << 10
    assert "a disk without a pool is read by sendfile() on the event loop" in on_loop.because
    # a failed disk is not read: it does not count
    failed = _with_disks(spec("origin"), disk(1), disk(2, media="nvme", state="failed"))
    assert plan_of(failed).sendfile_max_chunk.value == 2 << 20
    chosen = plan_of(spec(disks=1, tuning={"sendfile_max_chunk": "1MiB"})).sendfile_max_chunk
    assert (chosen.value, chosen.overridden) == (1 << 20, True)


@pytest.mark.parametrize(
    ("kind", "size", "corked"),
    [
        ("origin", None, "off"),  # origin's default object: 1 MiB
        ("cache", None, "off"),
        ("vod", None, "on"),  # vod's default object: 64 MiB
        ("origin", "256KiB", "off"),
        ("origin", "4194303", "off"),
        ("origin", "4MiB", "on"),
        ("cache", "64MiB", "on"),
    ],
)
def test_answers_are_corked_only_from_four_mebibytes(
    kind: str, size: str | None, corked: str
) -> None:
    data = spec(kind)
    if size is not None:
        data["workload"]["avg_object_size"] = size
    decision = plan_of(data).tcp_nopush
    assert decision.value == corked
    assert decision.because.startswith("answers of about ")
    if corked == "off":
        assert ", below 4.0 MiB: a corked answer this short waits" in decision.because


def test_the_cork_follows_the_object_size_whether_or_not_a_disk_has_a_pool() -> None:
    for media in ("hdd", "ssd"):
        for size, corked in (("1MiB", "off"), ("8MiB", "on")):
            data = _with_disks(
                spec("origin", workload={"avg_object_size": size}), disk(1, media=media)
            )
            assert plan_of(data).tcp_nopush.value == corked, (media, size)


def test_sendfile_chunk_and_listen_addresses() -> None:
    plan = plan_of(
        _with_disks(
            spec(listen={"address": "::", "port": 8080}, status={"address": "::1"}),
            disk(1, media="ssd"),
        )
    )
    assert plan.sendfile_max_chunk.value == 512 << 10
    assert plan.listen == "[::]:8080"
    assert plan.status_listen == "[::1]:8081"


# ------------------------------------------------ refusals name the file and line of their field


def spec_yaml(
    kind: str = "origin",
    disks: int = 2,
    *,
    cores: int = 8,
    memory: str = "32GiB",
    media: str = "hdd",
    workload: tuple[str, ...] = (),
    tuning: tuple[str, ...] = (),
) -> str:
    """A spec with every key on a known line: node.cores 3, node.memory 4, workload 5, its
    type 6, the ``workload`` lines (indented) from 7, then the disks, then ``tuning``."""
    if kind == "cache":
        workload = ('  upstreams: ["192.0.2.1:80"]', *workload)
    lines = [
        "node:",
        "  name: n1",
        f"  cores: {cores}",
        f"  memory: {memory}",
        "workload:",
        f"  type: {kind}",
        *workload,
        "disks:",
        *(
            f"  - {{name: d{i}, device: /dev/disk{i}, mount: /srv/d{i}, size: 4TB, media: {media}}}"
            for i in range(1, disks + 1)
        ),
    ]
    if tuning:
        lines += ["tuning:", *(f"  {line}" for line in tuning)]
    return "\n".join(lines) + "\n"


REFUSALS = {
    "pools-unused": (
        spec_yaml(media="ssd", tuning=("threads_per_disk: 8",)),
        "spec.yaml:11: tuning.threads_per_disk: has no effect: no disk gets a thread pool (active "
        "HDDs do; an ssd or nvme disk needs thread_pool: true): remove it",
    ),
    "threads-workers": (
        spec_yaml(disks=24, tuning=("worker_processes: 1024",)),
        "spec.yaml:33: tuning.worker_processes: 1024 workers × 24 thread pools need 24,576 "
        "threads even at 1 thread a pool, above the node's budget of 8,192: set "
        "tuning.worker_processes to at most 341, or thread_pool: false on some disks",
    ),
    "threads-auto": (
        spec_yaml(disks=24, cores=1024, tuning=("worker_processes: auto",)),
        "spec.yaml:33: tuning.worker_processes: 1024 workers × 24 thread pools need 24,576 "
        "threads even at 1 thread a pool, above the node's budget of 8,192: set "
        "tuning.worker_processes to at most 341, or thread_pool: false on some disks",
    ),
    "threads-per-disk": (
        spec_yaml(disks=24, tuning=("threads_per_disk: 512",)),
        "spec.yaml:33: tuning.threads_per_disk: 512 threads × 24 pools × 8 workers = 98,304 "
        "threads, above the node's budget of 8,192: lower threads_per_disk to at most 42",
    ),
    "nofile-below": (
        spec_yaml(tuning=("worker_connections: 1000", "worker_rlimit_nofile: 1500")),
        "spec.yaml:12: tuning.worker_rlimit_nofile: 1500 is below 2 × worker_connections = "
        "2000: a proxied connection needs two descriptors; raise it or remove it",
    ),
    "nofile-nr-open": (
        spec_yaml(tuning=("worker_rlimit_nofile: 2000000",)),
        "spec.yaml:11: tuning.worker_rlimit_nofile: 2,000,000 is above the kernel's fs.nr_open "
        "(1,048,576): nginx cannot raise its open-file limit that far; lower it to at most "
        "1,048,576",
    ),
    "nofile-connections": (
        spec_yaml(tuning=("worker_connections: 600000",)),
        "spec.yaml:11: tuning.worker_connections: needs worker_rlimit_nofile = 2 × 600,000 "
        "connections + 122,080 (open_file_cache, logs, listeners) = 1,322,080, above the kernel's "
        "fs.nr_open (1,048,576): lower worker_connections to at most 463,248",
    ),
    "nofile-open-files": (
        spec_yaml(tuning=("open_file_cache_max: 1048000",)),
        "spec.yaml:11: tuning.open_file_cache_max: needs worker_rlimit_nofile = 2 × 8,192 "
        "connections + 1,048,064 (open_file_cache, logs, listeners) = 1,064,448, above the "
        "kernel's fs.nr_open (1,048,576): lower open_file_cache_max to at most 1,032,128",
    ),
    "slots-connections": (
        spec_yaml(memory="256MiB", tuning=("worker_connections: 200000",)),
        "spec.yaml:11: tuning.worker_connections: 8 workers × 200,000 worker_connections "
        "allocate 781.2 MiB of connection slots at start (512 bytes each), above 25% of "
        "node.memory (64.0 MiB): set tuning.worker_connections to at most 16,384, or add memory",
    ),
    "slots-memory": (
        spec_yaml(disks=1, cores=1024, memory="256MiB", media="ssd"),
        "spec.yaml:4: node.memory: 510 workers × 1,024 worker_connections allocate 255.0 MiB "
        "of connection slots at start (512 bytes each), above 25% of node.memory (64.0 MiB): set "
        "tuning.worker_connections to at most 257, or add memory",
    ),
    "keys-zones": (
        spec_yaml("cache", 3, memory="4GiB", workload=("  avg_object_size: 16KiB",)),
        "spec.yaml:8: workload.avg_object_size: keys_zones need 82398 MB but the RAM budget is "
        "819 MB (20% of node.memory): raise avg_object_size, add memory, raise "
        "tuning.headroom_percent, or raise tuning.keys_zone_ram_percent",
    ),
    "keys-zones-default-size": (
        spec_yaml("cache", 3, memory="1GiB"),
        "spec.yaml:5: workload.avg_object_size: keys_zones need 1290 MB but the RAM budget is "
        "204 MB (20% of node.memory): raise avg_object_size, add memory, raise "
        "tuning.headroom_percent, or raise tuning.keys_zone_ram_percent",
    ),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_a_plan_refusal_names_the_line_of_its_field(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text, message = REFUSALS[case]
    (tmp_path / "spec.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "spec.yaml"]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == message + "\n"


def test_make_plan_gives_the_line_when_the_loader_gives_the_lines() -> None:
    text, message = REFUSALS["threads-per-disk"]
    document = parse_spec_text(text, "spec.yaml")
    spec = spec_from_mapping(document.data, "spec.yaml", document.lines)
    with pytest.raises(SpecError) as caught:
        make_plan(spec, "spec.yaml", document.lines)
    assert str(caught.value) == message
    with pytest.raises(SpecError) as unlined:
        make_plan(spec, "spec.yaml")
    assert str(unlined.value) == message.replace("spec.yaml:33:", "spec.yaml:")


@pytest.mark.parametrize("part", [Plan, DiskPlan, ThreadPool, CacheZone])
def test_every_decision_names_the_directive_it_feeds(part: type) -> None:
    """explain lists what the fields register: a Decision without a directive would be silent."""
    decisions = [f for f in fields(part) if "Decision[" in str(f.type)]
    assert decisions
    assert [f.name for f in decisions if "directive" not in f.metadata] == []


def _read_ahead(data: dict[str, Any]) -> list[int | None]:
    return [d.read_ahead_kb.value if d.read_ahead_kb else None for d in plan_of(data).disks]


def test_each_hdd_read_ahead_is_what_memory_holds_for_two_windows_of_every_read_in_flight() -> None:
    # 3 HDDs x 16 threads x 2 workers = 96 reads; a quarter of 1 GiB / (2 x 96) = 1,365 KiB
    data = spec("origin", 3, node={"cores": 2, "memory": "1GiB"}, tuning={"worker_processes": 2})
    assert _read_ahead(data) == [1024, 1024, 1024]  # capped: 1 MiB reaches an HDD's bandwidth
    # 12 workers: 576 reads, 227 KiB each -> the 128 KiB step below
    data["tuning"] = {"worker_processes": 12}
    (disk_plan, *_) = plan_of(data).disks
    assert disk_plan.read_ahead_kb is not None
    assert disk_plan.read_ahead_kb.value == 128
    because = disk_plan.read_ahead_kb.because
    assert because.startswith("at least (a disk set higher keeps its value): 576 reads in flight")
    assert "576 reads in flight on the node's 3 HDDs, 2 windows each within 25% of memory " in (
        because
    )
    assert "(256.0 MiB): 227 KiB each, in steps of 128 KiB from the kernel's default 128" in because
    # never below the kernel's own default, however many reads
    data["node"] = {**data["node"], "memory": "256MiB"}
    assert _read_ahead(data) == [128, 128, 128]


def test_only_hdds_the_config_reads_get_a_read_ahead_and_their_reads_count() -> None:
    disks = [
        disk(1),
        disk(2, media="ssd"),
        disk(3, state="failed"),
        disk(4, state="draining"),
        disk(5, thread_pool=False),
    ]
    tuning = {"worker_processes": 2}
    origin = {**spec("origin", node={"cores": 2, "memory": "1GiB"}, tuning=tuning), "disks": disks}
    # read: d1 and d4 (origin reads a draining disk) with pools of 61 a worker, d5 on the event
    # loops: 61 x 2 + 61 x 2 + 2 = 246 reads; 256 MiB / (2 x 246) = 532 KiB each
    assert _read_ahead(origin) == [512, None, None, 512, 512]
    # a cache node does not read its draining disk: d1's pool of 64 a worker and d5 on the
    # event loops, 130 reads; 4 GiB / (2 x 130) is far above the 1 MiB cap
    cache = {**spec("cache", node={"cores": 2, "memory": "16GiB"}, tuning=tuning), "disks": disks}
    (d1, *_) = plan_of(cache).disks
    assert d1.read_ahead_kb is not None
    assert d1.read_ahead_kb.because.startswith("at least (a disk set higher keeps its value): ")
    assert _read_ahead(cache) == [1024, None, None, None, 1024]


def test_the_layout_carries_each_disks_read_ahead_floor() -> None:
    from tpgen.api import node_layout

    data = spec("origin", 2, node={"cores": 2, "memory": "1GiB"}, tuning={"worker_processes": 12})
    data["disks"].append(disk(3, media="nvme"))
    layout = node_layout(plan_of(data))
    assert [d.read_ahead_kb for d in layout.disks] == [256, 256, None]
    assert layout.to_dict()["disks"][0]["read_ahead_kb"] == 256
