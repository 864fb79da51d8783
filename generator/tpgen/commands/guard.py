"""``tpgen guard SPEC``: the node agent. Watches each disk of the spec, fails a dying one.

The watching and deciding is tpgen.ops.guard (standard library only); this module gives it
the one thing that needs the planner: render the config with the disks' new states, run
``nginx -t`` on it, install it atomically and reload nginx, and put the running config back
when any step fails.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any

from tpgen import api
from tpgen.commands import STANDARD, Console
from tpgen.errors import EXIT_OK, as_tpgen_error
from tpgen.ops.guard.agent import Agent, Applied, Files
from tpgen.ops.guard.detect import GuardDisk, resolve_device
from tpgen.ops.guard.events import DEFAULT_EVENT_LOG
from tpgen.ops.guard.policy import Policy, policy_from
from tpgen.ops.guard.sources import Follower, KernelLog
from tpgen.ops.guard.state import DEFAULT_STATE_FILE, write_atomic
from tpgen.plan.guard import GuardPlan, guard_plan

# `nginx -t` and a reload take well under a second; a hung one must not hang the guard.
COMMAND_TIMEOUT = 60


@dataclass(frozen=True)
class GuardOptions:
    config_path: str = "/etc/nginx/nginx.conf"
    state_path: str = DEFAULT_STATE_FILE
    events_path: str = DEFAULT_EVENT_LOG
    nginx_binary: str = "nginx"
    reload_command: tuple[str, ...] = ("systemctl", "reload", "nginx")
    source: str | None = None
    interval: float = 1.0
    polls: int | None = None  # stop after this many polls (tests); None: until SIGTERM
    kernel_log: str | None = "/dev/kmsg"
    error_log: str | None = None


def guard(
    spec: str,
    options: GuardOptions = GuardOptions(),
    *,
    explain: bool = False,
    console: Console = STANDARD,
) -> int:
    """Run the guard until SIGTERM (or ``options.polls`` polls); 0 on a clean stop.

    A spec it cannot read or plan raises SpecError (exit 2) before anything on the node changes.
    """
    document = api.read_spec_document(spec)
    model = api.spec_from_mapping(document.data, spec, document.lines)
    plan = api.make_plan(model, spec, document.lines)
    thresholds = guard_plan(model)
    if explain:
        for name, value, because in thresholds.rows():
            console.say(f"{name:<16} {value:<8} {because}")
        return EXIT_OK
    renderer = Renderer(document.data, spec, options)
    agent = Agent(
        guard_disks(api.node_layout(plan)),
        policy_of(thresholds),
        Files(state=options.state_path, events=options.events_path),
        renderer.apply,
        error_log=Follower(options.error_log or plan.error_log),
        kernel_log=KernelLog(options.kernel_log) if options.kernel_log else None,
        log=console.err,
    )
    return run_agent(agent, options)


def policy_of(thresholds: GuardPlan) -> Policy:
    return policy_from(thresholds.values())


def guard_disks(layout: api.NodeLayout) -> list[GuardDisk]:
    """The layout's disks as the guard watches them, with their kernel names resolved."""
    disks = []
    for disk in layout.disks:
        names, number = resolve_device(disk.device)
        disks.append(
            GuardDisk(
                name=disk.name,
                device=disk.device,
                mount=disk.mount,
                state=disk.state,
                media=disk.media,
                kernel_names=names,
                device_id=number,
            )
        )
    return disks


# After a poll the node's files refused (disk full, EIO, a permission), wait this much longer
# each time, up to the cap: the agent keeps guarding, it does not spin on the error.
BACKOFF_CAP = 60.0


def run_agent(agent: Agent, options: GuardOptions) -> int:
    """Start, then poll until SIGTERM. An OSError of one start or poll is reported and retried
    with a back-off: a full disk or a rotated log must not end the agent (its unit does not
    restart it after exit 2, which is for a spec it cannot read)."""
    stop: list[int] = []

    def _stop(signum: int, _frame: FrameType | None) -> None:
        stop.append(signum)

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    started, polls, pause = False, 0, options.interval
    while not stop and (options.polls is None or polls < options.polls):
        try:
            if started:
                agent.poll(time.time())
            else:
                agent.start(time.time())
                started = True
            pause = options.interval
        except OSError as err:
            agent.warn(f"{'poll' if started else 'start'} failed: {as_tpgen_error(err).report()}")
            pause = min(max(pause, options.interval) * 2, BACKOFF_CAP)
        polls += 1
        if options.polls is None or polls < options.polls:
            time.sleep(pause)
    return EXIT_OK


class Renderer:
    """Render the spec with guard's states, check it with nginx -t, install it, reload."""

    def __init__(self, data: Any, spec_path: str, options: GuardOptions) -> None:
        self.data = data
        self.spec_path = spec_path
        self.options = options
        # The config text this process saw nginx reload: one found on disk but not yet seen
        # reloaded (a guard killed between install and reload) is reloaded once.
        self.reloaded: str | None = None

    def render(self, overrides: Mapping[str, str]) -> str:
        data = api.with_disk_states(self.data, overrides)
        model = api.spec_from_mapping(data, self.spec_path)
        plan = api.make_plan(model, self.spec_path)
        return api.render_config(plan, source=self.options.source or self.spec_path)

    def apply(self, overrides: Mapping[str, str]) -> Applied:
        states = ", ".join(f"{name} {state}" for name, state in sorted(overrides.items()))
        try:
            text = self.render(overrides)
        except api.TpgenError as err:
            return Applied(False, f"cannot render the config with {states}: {err.report()}")
        config = self.options.config_path
        described = states or "the spec states"
        try:
            if _read_or_none(config) != text:
                return self._install(text, states)
            if self.reloaded == text:
                return Applied(True, f"{config} already has {described}")
            failed = _run(self.options.reload_command)
            if failed is not None:
                return Applied(False, f"{config} has {described} but the reload failed: {failed}")
            self.reloaded = text
            return Applied(True, f"{config} already had {described}; nginx reloaded to run it")
        except OSError as err:
            return Applied(False, f"cannot install the config with {states}: {err}")

    def _install(self, text: str, states: str) -> Applied:
        config = self.options.config_path
        candidate, previous = f"{config}.tpgen-guard", f"{config}.tpgen-guard-prev"
        write_atomic(candidate, text, like=config)
        tested = _run([self.options.nginx_binary, "-t", "-q", "-c", candidate])
        if tested is not None:
            os.unlink(candidate)
            return Applied(False, f"nginx -t refused the config with {states}: {tested}")
        old = _read_or_none(config)
        if old is not None:
            write_atomic(previous, old, like=config)
        os.replace(candidate, config)
        failed = _run(self.options.reload_command)
        if failed is None:
            self.reloaded = text
            return Applied(True, f"{config} installed with {states}, nginx reloaded")
        if old is None:
            return Applied(False, f"reload failed ({failed}); {config} had no earlier version")
        os.replace(previous, config)
        again = _run(self.options.reload_command)
        restored = "restored" if again is None else f"restored, but its reload failed too ({again})"
        return Applied(False, f"reload failed ({failed}): {config} {restored}")


def _run(argv: Sequence[str]) -> str | None:
    """None when the command succeeded, else what it said (its last lines)."""
    if not argv:
        return "no command to run"
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"{argv[0]}: {err}"
    if done.returncode == 0:
        return None
    said = (done.stderr or done.stdout).strip().splitlines()[-3:]
    return f"exit {done.returncode}: " + " | ".join(said)


def _read_or_none(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            return handle.read()
    except OSError:
        return None
