"""The plan as a table: directive, value, because."""

from __future__ import annotations

from typing import Any

from tpgen.plan import Decision, Plan
from tpgen.spec.units import human_size, nginx_size

Row = tuple[str, str, str]


def _row(directive: str, decision: Decision[Any], shown: str | None = None) -> Row:
    value = shown if shown is not None else str(decision.value)
    because = decision.because + (" [override]" if decision.overridden else "")
    return directive, value, because


def explain_rows(plan: Plan) -> list[Row]:
    rows: list[Row] = [
        _row("user", plan.user),
        _row("worker_processes", plan.worker_processes),
        _row("worker_connections", plan.worker_connections),
        _row("worker_rlimit_nofile", plan.worker_rlimit_nofile),
        ("accept_mutex", "off", "every worker accepts at once; no lock hand-off latency"),
        ("sendfile", "on", "zero-copy from page cache to socket"),
        _row(
            "sendfile_max_chunk",
            plan.sendfile_max_chunk,
            nginx_size(plan.sendfile_max_chunk.value),
        ),
        ("tcp_nopush", "on", "full packets with sendfile"),
        _row("split_clients buckets", plan.buckets),
        _row("split key", plan.split_key),
    ]
    if plan.open_file_cache_max:
        rows.append(_row("open_file_cache max", plan.open_file_cache_max))
    if plan.directio and plan.directio_alignment and plan.output_buffers:
        rows.append(_row("directio", plan.directio, nginx_size(plan.directio.value)))
        rows.append(_row("directio_alignment", plan.directio_alignment))
        rows.append(
            _row(
                "output_buffers", plan.output_buffers, f"2 {nginx_size(plan.output_buffers.value)}"
            )
        )
    if plan.keys_zone_budget_mb:
        rows.append(_row("keys_zone RAM budget (MB)", plan.keys_zone_budget_mb))
    if plan.origin_name:
        rows.append(_row("proxy_pass (resolved per request)", plan.origin_name))
    elif plan.upstreams:
        rows.append(
            (
                "upstream tpgen_origin",
                ", ".join(f"{u.host}:{u.port}" for u in plan.upstreams),
                "IP addresses: one group with a keepalive pool; no DNS involved",
            )
        )
    for disk in plan.disks:
        label = f"disk {disk.name}"
        rows.append(
            (
                label,
                f"{disk.state}, {disk.media}, {disk.bucket_count} buckets",
                f"weight {disk.weight:g}" + ("" if disk.state == "active" else ": no new keys"),
            )
        )
        if disk.thread_pool:
            pool = disk.thread_pool
            rows.append(_row(f"  thread_pool {pool.name} threads", pool.threads))
            rows.append(_row(f"  thread_pool {pool.name} max_queue", pool.max_queue))
        rows.append(("  aio", "threads" if disk.thread_pool else "off", disk.pool_because))
        if disk.cache:
            cache = disk.cache
            rows.append(_row(f"  {cache.name} keys_zone (MB)", cache.keys_zone_mb))
            rows.append(
                _row(f"  {cache.name} max_size", cache.max_size, human_size(cache.max_size.value))
            )
            rows.append(
                _row(f"  {cache.name} min_free", cache.min_free, human_size(cache.min_free.value))
            )
            rows.append(_row(f"  {cache.name} inactive", cache.inactive))
    return rows


def format_table(rows: list[Row]) -> str:
    headers: Row = ("directive", "value", "because")
    widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(2)]
    lines = [f"{headers[0]:<{widths[0]}}  {headers[1]:<{widths[1]}}  {headers[2]}"]
    lines.append(f"{'-' * widths[0]}  {'-' * widths[1]}  {'-' * 7}")
    lines += [f"{a:<{widths[0]}}  {b:<{widths[1]}}  {c}" for a, b, c in rows]
    return "\n".join(lines)
