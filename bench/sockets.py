"""The loads' connections during a trial, sampled once a second with `ss`: how evenly nginx's
workers hold them, and how many bytes wait in their send queues.

Without reuseport (tpgen's HDD nodes, the article's layouts) every worker waits on the same
listening socket and whoever wakes first accepts, so one worker can hold several times its share
of a disk's cold transfers: what the pools' floor of threads a worker is for (issue 10). A send
queue holds page-cache pages that sendfile() handed to the socket: charged to nginx's memory
until the client takes them (session 14: the wide node's stall)."""

from __future__ import annotations

import re
import statistics
import subprocess
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from bench.nginxproc import WORKER_TITLE, titled

_OWNER = re.compile(r"\bpid=(\d+)")


def send_queue_bytes(ss_output: str) -> int:
    """The bytes in the send queues of `ss -tnH state established` lines (Recv-Q Send-Q ...)."""
    queued = [line.split()[1:2] for line in ss_output.splitlines()]
    return sum(int(field[0]) for field in queued if field and field[0].isdigit())


def connections_by_pid(ss_output: str) -> Counter[int]:
    """Connections per owning process, from `ss -tnpH` lines (a socket shared by several
    processes counts once for each)."""
    counts: Counter[int] = Counter()
    for line in ss_output.splitlines():
        for pid in set(_OWNER.findall(line)):
            counts[int(pid)] += 1
    return counts


def busiest_share(counts: Counter[int], workers: Iterable[int]) -> float | None:
    """The busiest worker's connections ÷ the workers' mean (a worker holding none counts);
    None while no worker holds any."""
    held = [counts.get(pid, 0) for pid in workers]
    total = sum(held)
    if not total:
        return None
    return max(held) / (total / len(held))


@dataclass(frozen=True)
class Sample:
    busiest_share: float | None  # None while no worker holds a connection
    send_queue: int


class SocketSampler:
    """Samples, every `interval` seconds until the block ends, the connections to `port`:
    `spread()` and `send_queue_peak()` summarize the trial."""

    def __init__(
        self, port: int, processes: Callable[[], Iterable[int]], interval: float = 1.0
    ) -> None:
        self.port = port
        self.processes = processes
        self.interval = interval
        self.samples: list[Sample] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> SocketSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self) -> Sample | None:
        """One look at the port's connections; None if `ss` failed."""
        try:
            listing = subprocess.run(
                ["ss", "-tnpH", "state", "established", f"( sport = :{self.port} )"],
                capture_output=True,
                text=True,
                check=False,
                timeout=max(self.interval, 5.0),  # a hung ss must not hold the trial's end
            )
        except (OSError, subprocess.TimeoutExpired):  # no ss: the figures are n/a, the trial stands
            return None
        if listing.returncode:
            return None
        workers = titled(self.processes(), WORKER_TITLE)  # not the master, not cache helpers
        return Sample(
            busiest_share(connections_by_pid(listing.stdout), workers),
            send_queue_bytes(listing.stdout),
        )

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            if (sample := self.sample()) is not None:
                self.samples.append(sample)

    def spread(self) -> float | None:
        """The median of the samples' busiest-worker shares."""
        shares = [s.busiest_share for s in self.samples if s.busiest_share is not None]
        return statistics.median(shares) if shares else None

    def send_queue_peak(self) -> int | None:
        """The most bytes the port's send queues held at once."""
        return max((s.send_queue for s in self.samples), default=None)
