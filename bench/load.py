"""The two wrk loads, bounded in time, loopback only, and their parsed summaries."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.system import BenchError

LUA_DIR = Path(__file__).resolve().parent / "lua"
MARKER = "TPGEN-WRK "
OVERSTAY_GRACE_S = 30


@dataclass(frozen=True)
class LoadResult:
    seconds: float
    requests: int
    bytes: int
    errors: int
    latency_mean_ms: float
    latency_p50_ms: float
    latency_p99_ms: float
    latency_max_ms: float
    # latency_* are wrk's, whose histogram counts time (see bench/lua/report.lua); this is the
    # p99 of the answers as measured, each counted once (None in runs made before it was read)
    answer_p99_ms: float | None = None
    # wrk did not stop within its grace and was killed: none of its answers are known, so the
    # load counts as none answered and its latencies as the time it was waited for
    stalled: bool = False

    @classmethod
    def stall(cls, waited: float) -> LoadResult:
        """A load whose wrk never reported: nothing answered in `waited` seconds."""
        waited_ms = waited * 1e3
        return cls(
            waited, 0, 0, 0, waited_ms, waited_ms, waited_ms, waited_ms, waited_ms, stalled=True
        )

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    @property
    def mbps(self) -> float:
        return self.bytes / self.seconds / 1e6 if self.seconds else 0.0


@dataclass(frozen=True)
class Load:
    """One wrk invocation: `url` on 127.0.0.1, `connections` kept busy for `duration` seconds."""

    url: str
    connections: int
    threads: int
    duration: float
    script: str  # a file of bench/lua: cold.lua, hot.lua, hot_paced.lua, hot_reconnect.lua
    script_args: tuple[str, ...] = ()

    def command(self) -> list[str]:
        if not self.url.startswith("http://127.0.0.1:"):
            raise BenchError(f"loads only target loopback, not {self.url}")
        # A request still open when the time is up is not counted; a latency above --timeout
        # would be counted as an error, so the timeout spans the whole run (the stock arm's hot
        # requests wait seconds).
        cmd = [
            "wrk",
            f"--threads={min(self.threads, self.connections)}",
            f"--connections={self.connections}",
            f"--duration={max(1, round(self.duration))}s",
            f"--timeout={max(2, round(self.duration))}s",
            f"--script={LUA_DIR / self.script}",
            self.url,
        ]
        if self.script_args:
            cmd += ["--", *self.script_args]
        return cmd

    def start(self, log: Path) -> subprocess.Popen[str]:
        out = log.open("w")
        # report.lua takes wrk's made-up answers back out, which needs the connections
        env = {**os.environ, "TPGEN_WRK_CONNECTIONS": str(self.connections)}
        try:
            return subprocess.Popen(
                self.command(), stdout=out, stderr=subprocess.STDOUT, text=True, env=env
            )
        finally:
            out.close()

    def finish(
        self, proc: subprocess.Popen[str], log: Path, grace: float = OVERSTAY_GRACE_S
    ) -> LoadResult:
        """Wait for wrk (it stops by itself after `duration`); one that overstays its grace is
        killed and recorded as a stall: a node so starved that even the client cannot stop (a
        memory cgroup reclaiming on every CPU) is a result of its arm, not a broken run."""
        waited = self.duration + grace
        try:
            proc.wait(timeout=waited)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            with log.open("a") as out:
                out.write(f"\nbench: wrk overstayed {self.duration:g}s by {grace:g}s: killed\n")
            return LoadResult.stall(waited)
        text = log.read_text()
        if proc.returncode != 0:
            raise BenchError(f"wrk exit {proc.returncode}: {text[-500:]}")
        return parse_summary(text)


def parse_summary(text: str) -> LoadResult:
    """Read the JSON line that lua/report.lua prints at the end of a wrk run."""
    for line in text.splitlines():
        if line.startswith(MARKER):
            data = json.loads(line[len(MARKER) :])
            lat = data["latency_us"]
            answers = _answers(data)
            return LoadResult(
                seconds=data["duration_us"] / 1e6,
                requests=data["requests"],
                bytes=data["bytes"],
                errors=sum(data["errors"].values()),
                latency_mean_ms=lat["mean"] / 1e3,
                latency_p50_ms=lat["p50"] / 1e3,
                latency_p99_ms=lat["p99"] / 1e3,
                latency_max_ms=lat["max"] / 1e3,
                answer_p99_ms=answers["p99"] / 1e3,
            )
    raise BenchError(f"no wrk summary in output: {text[-500:]}")


def _answers(data: dict[str, Any]) -> dict[str, Any]:
    """report.lua's answers, checked: one latency per answer wrk counted (but those past its
    --timeout, which it counts as timeouts and records no latency of)."""
    answers: dict[str, Any] = data["answers_us"]
    done, timeouts = data["requests"], data["errors"]["timeout"]
    if not done - timeouts <= answers["count"] <= done:
        raise BenchError(
            f"wrk's histogram gave back {answers['count']} answers of its {done} ({timeouts} "
            "timed out): it was not read as wrk 4.x corrects it"
        )
    return answers


def reap(procs: list[subprocess.Popen[str]]) -> None:
    """Kill the loads' wrk that still run: a trial that ends early leaves no client behind."""
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
