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
from tpgen.errors import EXIT_OK
from tpgen.ops.guard.agent import Agent, Applied, Files
from tpgen.ops.guard.detect import GuardDisk, resolve_device
from tpgen.ops.guard.events import DEFAULT_EVENT_LOG
from tpgen.ops.guard.policy import Policy, policy_from
from tpgen.ops.guard.sources import Follower, KernelLog
from tpgen.ops.guard.state import DEFAULT_STATE_FILE
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


def run_agent(agent: Agent, options: GuardOptions) -> int:
    stop: list[int] = []

    def _stop(signum: int, _frame: FrameType | None) -> None:
        stop.append(signum)

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    agent.start(time.time())
    polls = 0
    while not stop and (options.polls is None or polls < options.polls):
        agent.poll(time.time())
        polls += 1
        if options.polls is None or polls < options.polls:
            time.sleep(options.interval)
    return EXIT_OK


class Renderer:
    """Render the spec with guard's states, check it with nginx -t, install it, reload."""

    def __init__(self, data: Any, spec_path: str, options: GuardOptions) -> None:
        self.data = data
        self.spec_path = spec_path
        self.options = options

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
        if _read_or_none(config) == text:
            return Applied(True, f"{config} already has {states or 'the spec states'}")
        return self._install(text, states)

    def _install(self, text: str, states: str) -> Applied:
        config = self.options.config_path
        candidate, previous = f"{config}.tpgen-guard", f"{config}.tpgen-guard-prev"
        _write(candidate, text)
        tested = _run([self.options.nginx_binary, "-t", "-q", "-c", candidate])
        if tested is not None:
            os.unlink(candidate)
            return Applied(False, f"nginx -t refused the config with {states}: {tested}")
        old = _read_or_none(config)
        if old is not None:
            _write(previous, old)
        os.replace(candidate, config)
        reloaded = _run(list(self.options.reload_command))
        if reloaded is None:
            return Applied(True, f"{config} installed with {states}, nginx reloaded")
        if old is not None:
            os.replace(previous, config)
            _run(list(self.options.reload_command))
        return Applied(False, f"reload failed ({reloaded}): {config} restored")


def _run(argv: Sequence[str]) -> str | None:
    """None when the command succeeded, else what it said (its last lines)."""
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


def _write(path: str, text: str) -> None:
    temp = f"{path}.tmp"
    with open(temp, "w", encoding="utf-8", errors="surrogateescape") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(temp, 0o644)
    os.replace(temp, path)
