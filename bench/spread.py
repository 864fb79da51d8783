"""How evenly nginx's workers hold the loads' connections, sampled during a trial.

Without reuseport (tpgen's HDD nodes, the article's layouts) every worker waits on the same
listening socket and whoever wakes first accepts, so one worker can hold several times its share
of a disk's cold transfers: what the pools' floor of threads a worker is for (issue 10)."""

from __future__ import annotations

import re
import statistics
import subprocess
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from types import TracebackType

_OWNER = re.compile(r"\bpid=(\d+)")
WORKER_TITLE = b"nginx: worker process"


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


def worker_pids(pids: Iterable[int]) -> set[int]:
    """The nginx workers among `pids` (by process title: the master and the cache processes
    hold no client connection)."""
    found = set()
    for pid in pids:
        try:
            title = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:  # exited between the listing and the read
            continue
        if title.startswith(WORKER_TITLE):
            found.add(pid)
    return found


class SpreadSampler:
    """Samples, every `interval` seconds until the block ends, the busiest worker's share of the
    connections to `port`; `median()` summarizes the trial."""

    def __init__(
        self, port: int, processes: Callable[[], Iterable[int]], interval: float = 1.0
    ) -> None:
        self.port = port
        self.processes = processes
        self.interval = interval
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> SpreadSampler:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self) -> float | None:
        listing = subprocess.run(
            ["ss", "-tnpH", "state", "established", f"( sport = :{self.port} )"],
            capture_output=True,
            text=True,
            check=False,
        )
        if listing.returncode:
            return None
        return busiest_share(connections_by_pid(listing.stdout), worker_pids(self.processes()))

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            share = self.sample()
            if share is not None:
                self.samples.append(share)

    def median(self) -> float | None:
        return statistics.median(self.samples) if self.samples else None
