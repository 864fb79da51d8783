"""Bounded loopback load for the self-heal scenario, and the report of what clients saw.

    load.py run --port 28640 --objects 48 --rate 150 --seconds 30 --out load.jsonl
    load.py report --load load.jsonl --before before.json --disk d3 --killed-at EPOCH

``run`` requests /obj-1.bin ... /obj-N.bin round robin from a few threads at a fixed total
rate, and writes one JSON line per response: time, object, status (0: no response), the
X-Cache-Status and X-Cache-Disk headers. ``report`` prints the figures as one JSON object.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import threading
import time

THREADS = 4
RETRIES = 2


def _get(conn: http.client.HTTPConnection, number: int) -> dict:
    conn.request("GET", f"/obj-{number}.bin")
    response = conn.getresponse()
    body = response.read()
    return {
        "status": response.status,
        "cache": response.getheader("X-Cache-Status", ""),
        "disk": response.getheader("X-Cache-Disk", ""),
        "bytes": len(body),
    }


def _client(port: int, objects: int, seconds: float, rate: float, start: int) -> list[dict]:
    """One keepalive connection, as a browser or curl uses it: a request that got no response
    byte (a reload's old worker closed the connection under it) is sent again on a new
    connection, up to RETRIES times (RFC 9112 9.3.1). Anything else is a failure."""
    seen = []
    gap = THREADS / rate
    deadline = time.monotonic() + seconds
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    n = start
    next_at = time.monotonic()
    while time.monotonic() < deadline:
        number = n % objects + 1
        n += 1
        record = {"t": time.time(), "obj": number, "status": 0, "cache": "", "disk": ""}
        for attempt in range(RETRIES + 1):
            try:
                record.update(_get(conn, number), retries=attempt)
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as err:
                record["error"] = f"{type(err).__name__}: {err}"
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            except (OSError, http.client.HTTPException) as err:
                record["error"] = f"{type(err).__name__}: {err}"
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                break
        seen.append(record)
        next_at += gap
        time.sleep(max(0.0, next_at - time.monotonic()))
    return seen


def run(args: argparse.Namespace) -> int:
    results: list[list[dict]] = [[] for _ in range(THREADS)]

    def work(index: int) -> None:
        results[index] = _client(args.port, args.objects, args.seconds, args.rate, index * 7)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    records = sorted((r for part in results for r in part), key=lambda r: r["t"])
    with open(args.out, "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(r) + "\n" for r in records)
    return 0


def report(args: argparse.Namespace) -> int:
    with open(args.load, encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    with open(args.before, encoding="utf-8") as handle:
        before = {int(k): v["disk"] for k, v in json.load(handle).items()}
    bad = [r for r in records if r["status"] != 200 or r.get("bytes", 0) != 32768]
    first = bad[0]["t"] if bad else None
    last = bad[-1]["t"] if bad else None
    survivors = [r for r in records if before[r["obj"]] != args.disk]
    moved = [r for r in survivors if r["disk"] != before[r["obj"]] or r["cache"] != "HIT"]
    after = [r for r in records if last is None or r["t"] > last]
    dead_after = [r for r in after if before[r["obj"]] == args.disk]
    summary = {
        "requests": len(records),
        "failed": len(bad),
        "failed_statuses": sorted({r["status"] for r in bad}),
        "first_failure_after_kill_s": None if first is None else round(first - args.killed_at, 3),
        "recovery_s": 0.0 if first is None else round(last - first, 3),
        "last_failure_after_kill_s": None if last is None else round(last - args.killed_at, 3),
        "requests_after_recovery": len(after),
        "failed_after_recovery": sum(1 for r in after if r["status"] != 200),
        "survivor_requests": len(survivors),
        "survivors_not_hit_on_their_disk": len(moved),
        "survivor_examples": moved[:5],
        "dead_disk_objects_after_recovery_on": sorted({r["disk"] for r in dead_after}),
        "sent_again": sum(1 for r in records if r.get("retries", 0) > 0),
        "load_seconds": round(records[-1]["t"] - records[0]["t"], 1) if records else 0,
    }
    json.dump(summary, sys.stdout)
    sys.stdout.write("\n")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    go = sub.add_parser("run")
    go.add_argument("--port", type=int, required=True)
    go.add_argument("--objects", type=int, required=True)
    go.add_argument("--rate", type=float, default=150.0)
    go.add_argument("--seconds", type=float, required=True)
    go.add_argument("--out", required=True)
    rep = sub.add_parser("report")
    rep.add_argument("--load", required=True)
    rep.add_argument("--before", required=True)
    rep.add_argument("--disk", required=True)
    rep.add_argument("--killed-at", type=float, required=True)
    args = parser.parse_args()
    return run(args) if args.command == "run" else report(args)


if __name__ == "__main__":
    sys.exit(main())
