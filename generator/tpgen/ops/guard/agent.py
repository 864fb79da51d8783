"""One guard: its disks, its files, and :meth:`Agent.poll`, one look at every source.

The agent decides and records; ``apply`` (given by tpgen.commands.guard, which has the planner)
renders the config with the disks' new states, runs ``nginx -t``, installs it and reloads
nginx, and keeps the running config when any step fails.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TextIO

from tpgen.errors import FileRefused
from tpgen.files import read_head

from ..doctor.mounts import parse_mountinfo
from .decide import Verdict, decide
from .detect import Evidence, GuardDisk, kernel_evidence, mount_evidence, nginx_evidence
from .diskstats import SlowWatch, parse_diskstats
from .events import append_event, event_record
from .policy import Policy
from .sources import MAX_LINE, Follower, KernelLog
from .state import GuardState, parse_utc, read_state, write_state

# How long a failed apply waits before the next try, and a report before it is repeated.
RETRY_SECONDS = 30.0
REPORT_EVERY = 600.0


@dataclass(frozen=True)
class Applied:
    ok: bool
    message: str


Apply = Callable[[Mapping[str, str]], Applied]


@dataclass(frozen=True)
class Files:
    """What guard reads and writes. ``inputs``: the other files it reads (the spec, the logs,
    the live config), none of which the state or the event log may be."""

    state: str
    events: str
    mountinfo: str = "/proc/self/mountinfo"
    diskstats: str = "/proc/diskstats"
    inputs: tuple[str, ...] = ()

    def not_state(self) -> tuple[str, ...]:
        return (*self.inputs, self.mountinfo, self.diskstats, self.events)

    def not_events(self) -> tuple[str, ...]:
        return (*self.inputs, self.mountinfo, self.diskstats, self.state)


class Agent:
    """The guard of one node."""

    def __init__(
        self,
        disks: Sequence[GuardDisk],
        policy: Policy,
        files: Files,
        apply: Apply,
        *,
        error_log: Follower,
        kernel_log: KernelLog | Follower | None = None,
        log: TextIO | None = None,
    ) -> None:
        self.spec_disks = tuple(disks)
        self.policy = policy
        self.files = files
        self.apply = apply
        self.error_log = error_log
        self.kernel_log = kernel_log
        self.log = log if log is not None else sys.stderr
        self.state = GuardState()
        self.evidence: dict[str, list[Evidence]] = {}
        self.slow = SlowWatch()
        self.pending_since: float | None = None
        self.last_try = 0.0
        self.reported: dict[tuple[str, tuple[str, ...]], float] = {}
        self.dropped = 0  # over-long error-log lines already reported
        self.state_lost: float | None = None  # when a corrupt state file was set aside

    # ------------------------------------------------------------------ start
    def start(self, now: float) -> None:
        """Read the state file (a corrupt one is set aside) and apply what it says."""
        self.state, warning = read_state(self.files.state, now, self.files.not_state())
        if warning is not None:
            self.state_lost = now
            self._event(now, "state_corrupt", warning, level="error")
        known = {disk.name for disk in self.spec_disks}
        stale = sorted(set(self.state.disks) - known)
        for name in stale:  # a disk no longer in the spec: nothing to guard
            self.state.disks.pop(name)
        self._save()
        for source in (self.error_log, self.kernel_log):
            if source is not None and source.error:
                self._say(f"warning: {source.error}")
        overrides = self.overrides()
        self._event(
            now,
            "started",
            f"guarding {len(self.watched())} disks; guard's own states: "
            + (", ".join(f"{d}={s}" for d, s in sorted(overrides.items())) or "none"),
        )
        if overrides:
            self._try_apply(now)

    # ------------------------------------------------------------- the disks
    def overrides(self) -> dict[str, str]:
        """Guard's own states that change the config: failed, or draining for a slow disk."""
        spec = {disk.name: disk.state for disk in self.spec_disks}
        return {
            name: item.state
            for name, item in self.state.disks.items()
            if item.state in ("failed", "draining")
            and spec.get(name) != item.state
            and spec.get(name) != "failed"
        }

    def disks(self) -> list[GuardDisk]:
        """The disks with their current states: the spec's, or guard's where it changed one."""
        overrides = self.overrides()
        return [
            replace(disk, state=overrides.get(disk.name, disk.state)) for disk in self.spec_disks
        ]

    def watched(self) -> list[GuardDisk]:
        return [disk for disk in self.disks() if disk.state in ("active", "draining")]

    def last_failure(self) -> float | None:
        times = [
            parse_utc(item.since) for item in self.state.disks.values() if item.state == "failed"
        ]
        known = [time for time in times if time is not None]
        return max(known) if known else None

    # ------------------------------------------------------------------ poll
    def poll(self, now: float) -> list[Verdict]:
        """Read every source once, decide, record, act. Returns the verdicts of this poll."""
        watched = self.watched()
        found = self.collect(now, watched)
        for item in found:
            self.evidence.setdefault(item.disk, []).append(item)
        for name, items in self.evidence.items():
            self.evidence[name] = [i for i in items if now - i.at <= self.policy.window]
        verdicts = decide(
            now,
            self.disks(),
            self.evidence,
            self.policy,
            self.last_failure(),
            state_lost=self.state_lost,
        )
        for verdict in verdicts:
            self._handle(now, verdict)
        self._check_slow(now, watched)
        if self.pending_since is not None and now - self.last_try >= RETRY_SECONDS:
            self._try_apply(now)
        return verdicts

    def collect(self, now: float, watched: Sequence[GuardDisk]) -> list[Evidence]:
        found = nginx_evidence(self.error_log.lines(), watched, now)
        if self.error_log.dropped > self.dropped:
            # Not silent: a dropped line could have been the evidence of a dying disk.
            self._say(
                f"warning: {self.error_log.path}: {self.error_log.dropped - self.dropped} line(s)"
                f" over {MAX_LINE} bytes with no newline dropped"
            )
            self.dropped = self.error_log.dropped
        if self.kernel_log is not None:
            found += kernel_evidence(self.kernel_log.lines(), watched, now)
        mountinfo = _read(self.files.mountinfo)
        if mountinfo is not None:
            found += mount_evidence([d for d in watched], parse_mountinfo(mountinfo), now)
        return found

    def _check_slow(self, now: float, watched: Sequence[GuardDisk]) -> None:
        stats = _read(self.files.diskstats)
        if stats is None:
            return
        self.slow.add(now, parse_diskstats(stats), watched)
        for name, (latency, median) in self.slow.slow_disks(now, watched, self.policy).items():
            current = self.state.disks.get(name)
            if current is not None and current.state in ("slow", "draining", "failed"):
                continue
            action = "draining" if self.policy.slow == "drain" else "slow"
            message = (
                f"{name} reads in {latency.ms_per_read:.1f} ms, {self.policy.slow_factor:g}x "
                f"or more its peers' {median:.1f} ms, for {self.policy.slow_for:g}s"
            )
            self.state = self.state.with_disk(name, action, now, message)
            self._save()
            self._event(
                now, "disk_slow" if action == "slow" else "disk_draining", message, disk=name
            )
            if action == "draining":
                self._try_apply(now)

    # ----------------------------------------------------------------- acting
    def _handle(self, now: float, verdict: Verdict) -> None:
        if not verdict.acts:
            key = (verdict.kind, verdict.disks)
            if now - self.reported.get(key, -REPORT_EVERY) < REPORT_EVERY:
                return
            self.reported[key] = now
            self._event(
                now,
                verdict.kind,
                verdict.message,
                evidence=verdict.evidence,
                disks=list(verdict.disks),
                level="error",
            )
            return
        name = verdict.disks[0]
        self.state = self.state.with_disk(name, "failed", now, verdict.message)
        self._save()
        self.evidence.pop(name, None)
        self._event(
            now, "disk_failed", verdict.message, disk=name, evidence=verdict.evidence, level="error"
        )
        self._try_apply(now)

    def _try_apply(self, now: float) -> None:
        self.last_try = now
        result = self.apply(self.overrides())
        if result.ok:
            self.pending_since = None
            self._event(now, "config_applied", result.message)
            return
        if self.pending_since is None:
            self.pending_since = now
        # The same failure every retry would fill the event log; a new one, or the same one
        # after REPORT_EVERY, is recorded.
        key = ("apply_failed", (result.message,))
        if now - self.reported.get(key, -REPORT_EVERY) < REPORT_EVERY:
            return
        self.reported[key] = now
        self._event(
            now,
            "apply_failed",
            f"{result.message}; the running config is kept, next try in {RETRY_SECONDS:g}s",
            level="error",
        )

    # ------------------------------------------------------------- recording
    def _save(self) -> None:
        write_state(self.files.state, self.state, self.files.not_state())

    def _event(
        self,
        now: float,
        event: str,
        message: str,
        *,
        level: str = "info",
        disk: str | None = None,
        evidence: Sequence[Evidence] = (),
        **extra: object,
    ) -> None:
        append_event(
            self.files.events,
            event_record(now, event, message, disk=disk, evidence=evidence, **extra),
            self.files.not_events(),
        )
        self._say(f"{'ERROR' if level == 'error' else 'info'}: {event}: {message}")

    def warn(self, text: str) -> None:
        """One error line on the agent's log that is not an event (the event log may be what
        cannot be written)."""
        self._say(f"ERROR: {text}")

    def _say(self, text: str) -> None:
        print(f"tpgen guard: {text}", file=self.log, flush=True)


def _read(path: str) -> str | None:
    try:
        return read_head(path, 8 << 20).decode("utf-8", errors="replace")
    except FileRefused:  # gone, unreadable or not a regular file: no evidence from it
        return None
