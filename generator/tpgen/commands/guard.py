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
from tpgen.errors import EXIT_OK, FileRefused, as_tpgen_error
from tpgen.files import Target, check_target, existing_target, read_regular_file, write_output
from tpgen.ops.doctor.layout import GUARD_STATE_FILE
from tpgen.ops.guard.agent import Agent, Applied, Files
from tpgen.ops.guard.detect import GuardDisk, resolve_device
from tpgen.ops.guard.events import DEFAULT_EVENT_LOG, EVENTS
from tpgen.ops.guard.policy import Policy, policy_from
from tpgen.ops.guard.sources import Follower, KernelLog
from tpgen.ops.guard.state import STATE
from tpgen.plan.guard import GuardPlan, guard_plan

# `nginx -t` and a reload take well under a second; a hung one must not hang the guard.
COMMAND_TIMEOUT = 60
# How a refusal names the live config: the option that chose it.
CONFIG = Target("--config", "the config")
# The most guard reads of the live config: a rendered one is well under 1 MiB.
CONFIG_LIMIT = 16 << 20


@dataclass(frozen=True)
class GuardOptions:
    config_path: str = "/etc/nginx/nginx.conf"
    state_path: str = GUARD_STATE_FILE
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
    error_log = options.error_log or plan.error_log
    reads = tuple(path for path in (spec, error_log, options.kernel_log) if path)
    files = Files(
        state=options.state_path, events=options.events_path, inputs=(*reads, options.config_path)
    )
    renderer = Renderer(
        document.data,
        spec,
        options,
        inputs=(*reads, files.mountinfo, files.diskstats, files.state, files.events),
    )
    written = [
        (files.state, files.not_state(), STATE),
        (files.events, files.not_events(), EVENTS),
        (options.config_path, renderer.inputs, CONFIG),
    ]
    refuse_shared_files([(path, target) for path, _, target in written])
    refuse_wrong_files(written)
    agent = Agent(
        guard_disks(api.node_layout(plan)),
        policy_of(thresholds),
        files,
        renderer.apply,
        error_log=Follower(error_log),
        kernel_log=KernelLog(options.kernel_log) if options.kernel_log else None,
        log=console.err,
    )
    return run_agent(agent, options)


def refuse_wrong_files(checks: Sequence[tuple[str, Sequence[str], Target]]) -> None:
    """Before the first poll, FileRefused (exit 2, nothing changed) for a file guard writes that
    is a link, not a regular file, or one it reads. One that cannot be looked at now (a
    permission, a parent that is a file) is the agent's to report and retry: its unit does not
    restart it after exit 2."""
    for path, inputs, target in checks:
        if not path or _visible(path):
            existing_target(path, inputs, target)


def refuse_shared_files(files: Sequence[tuple[str, Target]]) -> None:
    """FileRefused (exit 2, nothing written) for '-' or two of guard's files that are one.
    refuse_wrong_files sees only files that exist: --state x --events x wrote the state to a
    new x, then refused the events there and exited 0; --config s --state s was taken."""
    seen: dict[str, Target] = {}
    for path, target in files:
        if path == "-":
            raise FileRefused(
                path,
                f"{target.option} is a file guard writes ({target.holds}), not stdout: name a "
                "file (./- for one named -)",
            )
        where = os.path.realpath(path) if path else path
        if where in seen:
            other = seen[where]
            raise FileRefused(
                path, f"is {other.option}'s file too: give {target.holds} a file of its own"
            )
        seen[where] = target


def _visible(path: str) -> bool:
    try:
        os.lstat(path)
    except OSError:
        return False
    return True


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
        except (OSError, FileRefused) as err:
            # FileRefused: a file swapped for a link or a FIFO meanwhile is left alone, not fatal.
            agent.warn(f"{'poll' if started else 'start'} failed: {as_tpgen_error(err).report()}")
            pause = min(max(pause, options.interval) * 2, BACKOFF_CAP)
        polls += 1
        if options.polls is None or polls < options.polls:
            time.sleep(pause)
    return EXIT_OK


class Renderer:
    """Render the spec with guard's states, check it with nginx -t, install it, reload."""

    def __init__(
        self, data: Any, spec_path: str, options: GuardOptions, *, inputs: Sequence[str] = ()
    ) -> None:
        self.data = data
        self.spec_path = spec_path
        self.options = options
        # What the live config may not be: the spec and every file guard reads or writes.
        self.inputs = (spec_path, *inputs)
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
            if self._live_config() != text:
                return self._install(text, states)
            if self.reloaded == text:
                return Applied(True, f"{config} already has {described}")
            failed = _run(self.options.reload_command)
            if failed is not None:
                return Applied(False, f"{config} has {described} but the reload failed: {failed}")
            self.reloaded = text
            return Applied(True, f"{config} already had {described}; nginx reloaded to run it")
        except (OSError, FileRefused) as err:
            return Applied(False, f"cannot install the config with {states}: {err}")

    def _install(self, text: str, states: str) -> Applied:
        config = self.options.config_path
        candidate, previous = f"{config}.tpgen-guard", f"{config}.tpgen-guard-prev"
        write_output(candidate, text, self.inputs, target=CONFIG, like=config)
        tested = _run([self.options.nginx_binary, "-t", "-q", "-c", candidate])
        if tested is not None:
            os.unlink(candidate)
            return Applied(False, f"nginx -t refused the config with {states}: {tested}")
        old = self._live_config()
        if old is not None:
            write_output(previous, old, self.inputs, target=CONFIG, like=config)
        self._replace_config(candidate)
        failed = _run(self.options.reload_command)
        if failed is None:
            self.reloaded = text
            return Applied(True, f"{config} installed with {states}, nginx reloaded")
        if old is None:
            return Applied(False, f"reload failed ({failed}); {config} had no earlier version")
        self._replace_config(previous)
        again = _run(self.options.reload_command)
        restored = "restored" if again is None else f"restored, but its reload failed too ({again})"
        return Applied(False, f"reload failed ({failed}): {config} {restored}")

    def _live_config(self) -> str | None:
        """The live config as it is, None when there is none; FileRefused for a link, a FIFO,
        a device or one of guard's inputs at its path."""
        config = self.options.config_path
        if existing_target(config, self.inputs, CONFIG) is None:
            return None
        data = read_regular_file(config, CONFIG_LIMIT)
        return data.decode("utf-8", errors="surrogateescape")

    def _replace_config(self, source: str) -> None:
        # The live path may have been swapped for a link or a device since the first look.
        check_target(self.options.config_path, self.inputs, CONFIG)
        os.replace(source, self.options.config_path)


def _run(argv: Sequence[str]) -> str | None:
    """None when the command succeeded, else what it said (its last lines)."""
    if not argv:
        return "no command to run"
    try:
        # errors="replace": what a reload script or nginx prints is shown, whatever its bytes.
        done = subprocess.run(
            argv,
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            timeout=COMMAND_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"{argv[0]}: {err}"
    if done.returncode == 0:
        return None
    said = (done.stderr or done.stdout).strip().splitlines()[-3:]
    return f"exit {done.returncode}: " + " | ".join(said)
