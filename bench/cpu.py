"""How much CPU the rest of the machine took during a trial: the noise the interleaving fights."""

from __future__ import annotations

import os
import resource
from pathlib import Path

_HZ = os.sysconf("SC_CLK_TCK")


def _busy_and_total() -> tuple[float, float]:
    """CPU seconds spent in processes (user, nice, system, steal) and in total, all CPUs.

    irq and softirq time is left out: loopback networking of the loads lands there."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, _irq, _softirq, steal = fields[:8]
    return (user + nice + system + steal) / _HZ, sum(fields[:8]) / _HZ


def _kernel_threads_cpu() -> float:
    """CPU seconds of kernel threads (loop workers, kswapd...): the bench's disks cause most."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ppid, flags = int(fields[1]), int(fields[6])
        if flags & 0x00200000 or ppid == 2:  # PF_KTHREAD
            total += int(fields[11]) + int(fields[12])
    return total / _HZ


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class CpuMeter:
    """Started before nginx and the loads; read after every one of them has been reaped.

    The bench's children (nginx with its workers, wrk) count in RUSAGE_CHILDREN once reaped.
    What else kept the CPUs busy, kernel threads aside, was someone else's work."""

    def __init__(self) -> None:
        self._busy, self._total = _busy_and_total()
        self._ours = _children_cpu() + _kernel_threads_cpu()

    def others_share(self) -> float:
        busy, total = _busy_and_total()
        ours = _children_cpu() + _kernel_threads_cpu() - self._ours
        elapsed = total - self._total
        return max(0.0, (busy - self._busy - ours) / elapsed) if elapsed > 0 else 0.0
