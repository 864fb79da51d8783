"""tpgen guard: each detector on recorded text, the rules, the state file, one agent end to end."""

from __future__ import annotations

import io
import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

import pytest
from tpgen import api
from tpgen.commands.guard import GuardOptions, Renderer, guard, policy_of
from tpgen.errors import FileRefused
from tpgen.ops.doctor.mounts import parse_mountinfo
from tpgen.ops.guard import events
from tpgen.ops.guard.agent import REPORT_EVERY, RETRY_SECONDS, Agent, Applied, Files
from tpgen.ops.guard.decide import decide
from tpgen.ops.guard.detect import (
    Evidence,
    GuardDisk,
    kernel_evidence,
    mount_evidence,
    nginx_evidence,
)
from tpgen.ops.guard.diskstats import SlowWatch, parse_diskstats
from tpgen.ops.guard.policy import GuardError, Policy, policy_from
from tpgen.ops.guard.sources import MAX_LINE, Follower
from tpgen.ops.guard.state import GuardState, read_state, write_atomic, write_state
from tpgen.plan.guard import guard_plan

FIXTURES = Path(__file__).parent / "fixtures" / "guard"
REPO = Path(__file__).parent.parent
NOW = 1_800_000_000.0
INSTALLED = Applied(True, "installed")


def disks(states: Mapping[str, str] | None = None, media: str = "hdd") -> list[GuardDisk]:
    states = states or {}
    return [
        GuardDisk(
            name=name,
            device=f"/dev/{dev}",
            mount=f"/srv/cache/{name}",
            state=states.get(name, "active"),
            media=media,
            kernel_names=frozenset({dev, f"{dev}1"}),
            device_id=number,
        )
        for name, dev, number in (
            ("d1", "sdb", "8:16"),
            ("d2", "sdc", "8:32"),
            ("d3", "sdd", "8:48"),
        )
    ]


def lines(name: str) -> list[str]:
    return (FIXTURES / name).read_text().splitlines()


def errors_of(disk: str, count: int, at: float = NOW) -> list[Evidence]:
    return [Evidence(disk, at, "nginx", f"error {n}") for n in range(count)]


# ----------------------------------------------------------------------------- detectors
@pytest.mark.parametrize(
    ("line_no", "disk"),
    [
        (0, "d3"),  # pread EIO
        (1, "d3"),  # open EROFS
        (2, "d3"),  # mkdir EIO of a temp dir
        (3, "d3"),  # ENXIO
        (4, "d3"),  # rename EUCLEAN, two paths
        (5, "d3"),  # ENODEV
        (6, None),  # ENOSPC: full, not sick
        (7, None),  # ENOENT outside any disk
        (8, None),  # /srv/cache/d30 is not under /srv/cache/d3
        (9, None),  # an upstream timeout
    ],
)
def test_nginx_detector_reads_each_error_shape(line_no: int, disk: str | None) -> None:
    found = nginx_evidence([lines("nginx-error.log")[line_no]], disks(), NOW)
    assert [item.disk for item in found] == ([disk] if disk else [])
    if disk:
        assert found[0].source == "nginx"
        assert found[0].line == lines("nginx-error.log")[line_no]


def test_a_requests_text_that_reads_as_an_errno_of_5000_digits_is_none() -> None:
    """A client's URI is in the quoted path of a file nginx did not find: int() refused its
    5000 digits and the guard ended (exit 3) on the next poll."""
    digits = "9" * 5000
    missing = (
        f'2026/11/25 10:02:04 [error] 103#103: *84 open() "/srv/cache/d3/www/failed ({digits}: '
        'x)" failed (2: No such file or directory), client: 192.0.2.7'
    )
    sick = missing.replace("(2: No such file or directory)", "(5: Input/output error)")
    assert nginx_evidence([missing], disks(), NOW) == []
    assert [item.disk for item in nginx_evidence([sick], disks(), NOW)] == ["d3"]


@pytest.mark.parametrize(
    ("line_no", "disk"),
    [
        (0, "d3"),  # blk_update_request
        (1, None),  # loop3 is nobody's device here
        (2, "d3"),  # buffer I/O error on a partition
        (3, "d3"),  # XFS metadata I/O error
        (4, "d3"),  # XFS shut down
        (5, "d3"),  # EXT4-fs error on the partition
        (6, "d3"),  # SCSI medium error
        (7, None),  # nvme0n1: not a disk of the spec
        (8, "d3"),  # dmesg format with its timestamp
        (9, None),  # not an error
        (10, None),  # sdz: not a disk of the spec
    ],
)
def test_kernel_detector_maps_device_names_to_disks(line_no: int, disk: str | None) -> None:
    found = kernel_evidence([lines("kmsg.txt")[line_no]], disks(), NOW)
    assert [item.disk for item in found] == ([disk] if disk else [])


def test_kernel_detector_strips_the_kmsg_header_from_the_evidence() -> None:
    (found,) = kernel_evidence([lines("kmsg.txt")[0]], disks(), NOW)
    assert found.line.startswith("blk_update_request: I/O error, dev sdd")


def test_mount_detector_sees_gone_read_only_and_wrong_device() -> None:
    text = (FIXTURES / "mountinfo.txt").read_text()
    healthy = parse_mountinfo(text)
    assert mount_evidence(disks(), healthy, NOW, names=lambda _: None) == []
    gone = parse_mountinfo(text.replace("/srv/cache/d3", "/elsewhere"))
    read_only = parse_mountinfo(text.replace("/dev/sdd rw,", "/dev/sdd ro,"))
    # what guard sees under ProtectSystem: every mount read-only, the filesystems still rw
    protected = parse_mountinfo(text.replace(" rw,noatime", " ro,noatime"))
    assert mount_evidence(disks(), protected, NOW, names=lambda _: None) == []
    other = parse_mountinfo(text.replace("43 27 8:48", "43 27 8:64"))
    for mounts, words in ((gone, "not mounted"), (read_only, "read-only"), (other, "8:64")):
        (found,) = mount_evidence(disks(), mounts, NOW, names=lambda _: None)
        assert (found.disk, found.decisive) == ("d3", True)
        assert words in found.line


def test_mount_detector_accepts_a_partition_of_the_disk() -> None:
    text = (FIXTURES / "mountinfo.txt").read_text().replace("43 27 8:48", "43 27 8:49")
    names = {"8:49": "sdd1"}.get
    assert mount_evidence(disks(), parse_mountinfo(text), NOW, names=names) == []


def test_follower_reads_new_lines_only_and_follows_rotation(tmp_path: Path) -> None:
    log = tmp_path / "error.log"
    log.write_text("old line\n")
    follower = Follower(str(log))
    assert follower.lines() == []
    with log.open("a") as handle:
        handle.write("one\ntw")
    assert follower.lines() == ["one"]
    with log.open("a") as handle:
        handle.write("o\n")
    assert follower.lines() == ["two"]
    log.rename(tmp_path / "error.log.1")
    log.write_text("after rotation\n")
    assert follower.lines() == ["after rotation"]


def test_follower_reads_the_rotated_file_to_its_end_before_the_new_one(tmp_path: Path) -> None:
    """Lines nginx writes to the renamed log before it reopens (USR1) are evidence too."""
    log = tmp_path / "error.log"
    log.write_text("")
    follower = Follower(str(log))
    with log.open("a") as handle:
        handle.write("before\n")
        log.rename(tmp_path / "error.log.1")
        handle.write("late, into the rotated file\n")  # nginx has not reopened yet
    assert follower.lines() == ["before", "late, into the rotated file"]  # no new file yet
    assert follower.error is not None and "cannot read" in follower.error
    log.write_text("first of the new file\n")
    assert follower.lines() == ["first of the new file"]
    assert follower.error is None


def test_follower_restarts_a_truncated_file_and_drops_an_endless_line(tmp_path: Path) -> None:
    log = tmp_path / "error.log"
    log.write_text("")
    follower = Follower(str(log))
    log.write_text("x" * (MAX_LINE + 1))  # copytruncate, then no newline for 64 KiB
    assert follower.lines() == []
    assert follower.dropped == 1
    with log.open("a") as handle:
        handle.write("tail of it\nnext\n")
    assert follower.lines() == ["tail of it", "next"]  # the rest of the dropped line survives


# ------------------------------------------------------------------------------ diskstats
def test_diskstats_lines_whose_counts_are_not_the_kernels_digits_are_skipped() -> None:
    """str.isdigit() passed "²" and 5000 digits, int() refused them: the guard ended (exit 3)."""
    text = "8 16 sdb \u00b2 0 0 5\n8 32 sdc " + "9" * 5000 + " 0 0 5\n8 48 sdd 10 0 0 5\n"
    assert list(parse_diskstats(text)) == ["sdd"]


def test_diskstats_latency_flags_the_disk_ten_times_slower_than_its_peers() -> None:
    policy = Policy(slow_for=120, window=300)
    watch = SlowWatch()
    first, second = (parse_diskstats((FIXTURES / f"diskstats-{n}.txt").read_text()) for n in (1, 2))
    watch.add(NOW, first, disks())
    watch.add(NOW + 60, second, disks())
    latencies = watch.latencies(NOW + 60, 300)
    assert {name: round(item.ms_per_read) for name, item in latencies.items()} == {
        "d1": 8,
        "d2": 9,
        "d3": 120,
    }
    assert watch.slow_disks(NOW + 60, disks(), policy) == {}  # slow, not yet for long enough
    watch.add(NOW + 200, second, disks())
    slow = watch.slow_disks(NOW + 200, disks(), policy)
    assert list(slow) == ["d3"]
    assert slow["d3"][1] == pytest.approx(8.5)


def test_diskstats_never_calls_a_disk_slow_without_peers_of_its_media() -> None:
    watch = SlowWatch()
    mixed = [
        *disks()[:2],
        GuardDisk("d3", "/dev/sdd", "/srv/cache/d3", "active", "nvme", frozenset({"sdd"})),
    ]
    for at, name in ((NOW, "diskstats-1.txt"), (NOW + 60, "diskstats-2.txt")):
        watch.add(at, parse_diskstats((FIXTURES / name).read_text()), mixed)
    assert watch.slow_disks(NOW + 60, mixed, Policy(slow_for=0, window=300)) == {}


# ---------------------------------------------------------------------------------- rules
def test_a_disk_crosses_the_threshold_at_errors_within_the_window() -> None:
    policy = Policy(errors=5, window=30)
    assert decide(NOW, disks(), {"d3": errors_of("d3", 4)}, policy, None) == []
    (verdict,) = decide(NOW, disks(), {"d3": errors_of("d3", 5)}, policy, None)
    assert (verdict.kind, verdict.disks) == ("fail", ("d3",))
    assert "5 I/O errors within 30s (nginx)" in verdict.message
    old = errors_of("d3", 5, at=NOW - 31)
    assert decide(NOW, disks(), {"d3": old}, policy, None) == []


def test_a_mount_problem_on_two_polls_is_enough() -> None:
    seen = [Evidence("d3", NOW - 1, "mount", "/srv/cache/d3 is not mounted", decisive=True)]
    assert decide(NOW, disks(), {"d3": seen}, Policy(), None) == []
    seen.append(Evidence("d3", NOW, "mount", "/srv/cache/d3 is not mounted", decisive=True))
    (verdict,) = decide(NOW, disks(), {"d3": seen}, Policy(), None)
    assert verdict.kind == "fail"
    assert verdict.message == "d3 failed: /srv/cache/d3 is not mounted"


def test_a_cluster_of_disks_is_reported_and_none_failed() -> None:
    evidence = {"d2": errors_of("d2", 5), "d3": errors_of("d3", 7)}
    (verdict,) = decide(NOW, disks(), evidence, Policy(), None)
    assert (verdict.kind, verdict.disks, verdict.acts) == ("cluster", ("d2", "d3"), False)
    assert "controller, cable or kernel" in verdict.message


def test_one_disk_per_rate_window() -> None:
    policy = Policy(rate_window=600)
    (verdict,) = decide(NOW, disks(), {"d3": errors_of("d3", 5)}, policy, NOW - 599)
    assert (verdict.kind, verdict.acts) == ("rate_limited", False)
    assert "disk-fail.yml -l <host> -e disk=d3" in verdict.message
    (verdict,) = decide(NOW, disks(), {"d3": errors_of("d3", 5)}, policy, NOW - 601)
    assert verdict.kind == "fail"


def test_the_last_active_disk_is_never_failed() -> None:
    states = {"d1": "failed", "d2": "draining"}
    (verdict,) = decide(NOW, disks(states), {"d3": errors_of("d3", 9)}, Policy(), None)
    assert (verdict.kind, verdict.acts) == ("last_disk", False)
    # the draining disk is not the last active one: failing it leaves d3 serving
    (verdict,) = decide(NOW, disks(states), {"d2": errors_of("d2", 9)}, Policy(), None)
    assert verdict.kind == "fail"


def test_failed_disks_are_not_watched() -> None:
    assert decide(NOW, disks({"d3": "failed"}), {"d3": errors_of("d3", 9)}, Policy(), None) == []


# ----------------------------------------------------------------------------- thresholds
def test_thresholds_default_with_reasons_and_the_spec_overrides_them() -> None:
    spec = api.load_spec_file(REPO / "examples" / "cache-3hdd.yaml")
    plan = guard_plan(spec)
    assert plan.errors.value == 5 and "Traffic Server" in plan.errors.because
    assert policy_of(plan) == Policy()
    custom = spec.model_copy(
        update={"guard": spec.guard.model_copy(update={"errors": 3, "window": "1m"})}
    )
    assert policy_of(guard_plan(custom)) == Policy(errors=3, window=60.0)
    assert guard_plan(custom).errors.overridden


def test_policy_refuses_unknown_and_mistyped_values() -> None:
    with pytest.raises(GuardError, match="unknown guard threshold"):
        policy_from({"errorz": 3})
    with pytest.raises(GuardError, match="report or drain"):
        policy_from({"slow": "panic"})
    with pytest.raises(GuardError, match="number"):
        policy_from({"errors": True})


# ------------------------------------------------------------------------------ state file
def test_state_round_trip_is_the_contract_other_tools_read(tmp_path: Path) -> None:
    path = tmp_path / "guard-state.json"
    state = GuardState().with_disk("d3", "failed", NOW, "5 I/O errors\nwithin 30s")
    write_state(str(path), state)
    assert json.loads(path.read_text()) == {
        "version": 1,
        "disks": {
            "d3": {
                "state": "failed",
                "since": "2027-01-15T08:00:00Z",
                "reason": "5 I/O errors within 30s",
            }
        },
    }
    again, warning = read_state(str(path), NOW)
    assert (again, warning) == (state, None)
    assert [p.name for p in tmp_path.iterdir()] == ["guard-state.json"]  # no temp file left


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        '{"version": 2, "disks": {}}',
        '{"version": 1, "disks": {"d3": {"state": "dead"}}}',
    ],
)
def test_a_corrupt_state_file_is_set_aside_and_reported(tmp_path: Path, text: str) -> None:
    path = tmp_path / "guard-state.json"
    path.write_text(text)
    state, warning = read_state(str(path), NOW)
    assert state == GuardState()
    assert warning is not None and "not trusted" in warning
    (aside,) = tmp_path.iterdir()
    assert aside.name == "guard-state.json.corrupt-2027-01-15T080000Z"
    assert aside.read_text() == text


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested deeper than Python reads"),
        ('{"version": ' + "9" * 5000 + "}", "a number too long to read"),
        ('{"version": true, "disks": {}}', "not a version 1 guard state"),
        ('{"version": 1.0, "disks": {}}', "not a version 1 guard state"),
    ],
    ids=["deep", "5000-digits", "true", "float"],
)
def test_a_state_python_reads_otherwise_is_set_aside_not_an_internal_error(
    tmp_path: Path, text: str, reason: str
) -> None:
    """A deep nesting and 5000 digits were an exit 3 before the first poll; true and 1.0 were
    taken for version 1 (Python's 1 == true == 1.0)."""
    path = tmp_path / "guard-state.json"
    path.write_text(text)
    state, warning = read_state(str(path), NOW)
    aside = tmp_path / "guard-state.json.corrupt-2027-01-15T080000Z"
    assert (state, warning) == (
        GuardState(),
        f"{path} is corrupt ({reason}): moved to {aside}, not trusted",
    )
    assert aside.read_text() == text


# ------------------------------------------------------------------------------- the agent
class Machine:
    """A node in a directory: an error log, the mount table, diskstats; apply records calls."""

    def __init__(self, root: Path, result: Applied = INSTALLED) -> None:
        self.root = root
        self.error_log = root / "error.log"
        self.error_log.write_text("")
        (root / "mountinfo").write_text((FIXTURES / "mountinfo.txt").read_text())
        (root / "diskstats").write_text((FIXTURES / "diskstats-1.txt").read_text())
        self.files = Files(
            state=str(root / "state.json"),
            events=str(root / "events.jsonl"),
            mountinfo=str(root / "mountinfo"),
            diskstats=str(root / "diskstats"),
        )
        self.calls: list[dict[str, str]] = []
        self.result = result
        self.out = io.StringIO()

    def apply(self, overrides: Mapping[str, str]) -> Applied:
        self.calls.append(dict(overrides))
        return self.result

    def agent(self) -> Agent:
        return Agent(
            disks(),
            Policy(),
            self.files,
            self.apply,
            error_log=Follower(str(self.error_log)),
            log=self.out,
        )

    def log(self, *entries: str) -> None:
        with self.error_log.open("a") as handle:
            handle.writelines(entry + "\n" for entry in entries)

    def events(self) -> list[dict[str, object]]:
        return [json.loads(line) for line in Path(self.files.events).read_text().splitlines()]


def test_agent_fails_a_dying_disk_records_it_and_applies_once(tmp_path: Path) -> None:
    node = Machine(tmp_path)
    agent = node.agent()
    agent.start(NOW)
    dead = lines("nginx-error.log")[0]
    node.log(*[dead] * 4)
    assert agent.poll(NOW + 1) == [] and node.calls == []
    node.log(dead)
    (verdict,) = agent.poll(NOW + 2)
    assert verdict.kind == "fail"
    assert node.calls == [{"d3": "failed"}]
    state = json.loads(Path(node.files.state).read_text())
    assert state["disks"]["d3"]["state"] == "failed"
    failed = [e for e in node.events() if e["event"] == "disk_failed"]
    assert len(failed) == 1 and failed[0]["disk"] == "d3"
    assert failed[0]["evidence"][0] == f"nginx: {dead}"
    assert [e["event"] for e in node.events()][-1] == "config_applied"
    node.log(*[dead] * 20)  # a failed disk's errors are expected: nothing more happens
    assert agent.poll(NOW + 3) == [] and len(node.calls) == 1
    assert "ERROR: disk_failed: d3 failed: 5 I/O errors" in node.out.getvalue()


def failing_apply(tmp_path: Path) -> tuple[Machine, Agent]:
    """A node whose config cannot be applied, after d3 failed at NOW + 1."""
    node = Machine(tmp_path, Applied(False, "nginx -t refused the config"))
    agent = node.agent()
    agent.start(NOW)
    node.log(*[lines("nginx-error.log")[0]] * 5)
    agent.poll(NOW + 1)
    return node, agent


def test_agent_keeps_trying_when_apply_fails_and_says_so(tmp_path: Path) -> None:
    node, agent = failing_apply(tmp_path)
    assert [e["event"] for e in node.events()][-2:] == ["disk_failed", "apply_failed"]
    assert "the running config is kept" in node.events()[-1]["message"]
    agent.poll(NOW + 2)
    assert len(node.calls) == 1  # not before the retry delay
    node.result = Applied(True, "installed")
    agent.poll(NOW + 40)
    assert node.calls == [{"d3": "failed"}] * 2
    assert node.events()[-1]["event"] == "config_applied"


def test_a_repeated_apply_failure_is_one_event_until_it_changes_or_ages(tmp_path: Path) -> None:
    node, agent = failing_apply(tmp_path)
    for step in range(1, 5):  # retried every RETRY_SECONDS, failing the same way
        agent.poll(NOW + 1 + step * RETRY_SECONDS)
    assert len(node.calls) == 5
    failed = [e for e in node.events() if e["event"] == "apply_failed"]
    assert len(failed) == 1
    node.result = Applied(False, "reload failed (exit 1)")
    agent.poll(NOW + 1 + 5 * RETRY_SECONDS)
    agent.poll(NOW + 1 + REPORT_EVERY + 6 * RETRY_SECONDS)
    failed = [e for e in node.events() if e["event"] == "apply_failed"]
    assert len(failed) == 3
    assert "reload failed" in str(failed[-1]["message"])


def test_an_over_long_error_log_line_is_dropped_with_a_note(tmp_path: Path) -> None:
    node = Machine(tmp_path)
    agent = node.agent()
    agent.start(NOW)
    with node.error_log.open("a") as handle:
        handle.write("x" * (MAX_LINE + 1))
    agent.poll(NOW + 1)
    agent.poll(NOW + 2)
    assert node.out.getvalue().count("1 line(s) over") == 1


def test_agent_restarts_from_its_state_and_reports_a_corrupt_one(tmp_path: Path) -> None:
    node = Machine(tmp_path)
    write_state(node.files.state, GuardState().with_disk("d2", "failed", NOW - 5, "earlier"))
    agent = node.agent()
    agent.start(NOW)
    assert node.calls == [{"d2": "failed"}]
    assert [d.name for d in agent.watched()] == ["d1", "d3"]
    # d2 failed 5 s ago: d3 crossing now is rate-limited, reported once per REPORT_EVERY
    node.log(*[lines("nginx-error.log")[0]] * 5)
    (verdict,) = agent.poll(NOW + 1)
    assert verdict.kind == "rate_limited"
    agent.poll(NOW + 2)
    assert [e["event"] for e in node.events()].count("rate_limited") == 1
    Path(node.files.state).write_text("{garbage")
    Machine.__init__(node, tmp_path)
    node.agent().start(NOW + 10)
    assert [e["event"] for e in node.events()][-2:] == ["state_corrupt", "started"]
    assert node.calls == []


def test_a_corrupt_state_file_starts_the_rate_window_again(tmp_path: Path) -> None:
    # The file set aside may have held a failure of moments before: no disk is failed for a
    # rate window from the loss, and the message says why; after it, a disk fails as usual.
    node = Machine(tmp_path)
    Path(node.files.state).write_text("{garbage")
    agent = node.agent()
    agent.start(NOW)
    node.log(*[lines("nginx-error.log")[0]] * 5)
    (verdict,) = agent.poll(NOW + 1)
    assert verdict.kind == "rate_limited" and node.calls == []
    assert "set its corrupt state file aside 1s ago and may have failed a disk" in verdict.message
    later = NOW + agent.policy.rate_window + 1
    node.log(*[lines("nginx-error.log")[0]] * 5)
    (verdict,) = agent.poll(later)
    assert verdict.kind == "fail" and node.calls == [{verdict.disks[0]: "failed"}]


def test_agent_fails_a_disk_whose_mount_is_gone(tmp_path: Path) -> None:
    node = Machine(tmp_path)
    agent = node.agent()
    agent.start(NOW)
    mounts = Path(node.files.mountinfo)
    mounts.write_text(mounts.read_text().replace("/srv/cache/d1", "/gone"))
    assert agent.poll(NOW + 1) == []
    (verdict,) = agent.poll(NOW + 2)
    assert (verdict.kind, verdict.disks) == ("fail", ("d1",))
    assert node.calls == [{"d1": "failed"}]


# ------------------------------------------------------------------- render, nginx -t, reload
def renderer(tmp_path: Path, nginx: str, reload: tuple[str, ...] = ("true",)) -> Renderer:
    # The example's disks, mounted under tmp_path: nginx -t creates the cache directories.
    text = (REPO / "examples" / "cache-3hdd.yaml").read_text()
    spec = tmp_path / "spec.yaml"
    spec.write_text(text.replace("/srv/cache/", f"{tmp_path}/mnt/"))
    for name in ("d1", "d2", "d3"):
        (tmp_path / "mnt" / name).mkdir(parents=True, exist_ok=True)
    document = api.read_spec_document(spec)
    options = GuardOptions(
        config_path=str(tmp_path / "nginx.conf"),
        nginx_binary=nginx,
        reload_command=reload,
        source="tpgen_spec of edge",
    )
    return Renderer(document.data, str(spec), options)


def test_renderer_installs_the_plan_with_the_disk_failed_after_nginx_t(
    tmp_path: Path, nginx_binary: str
) -> None:
    guard_renderer = renderer(tmp_path, nginx_binary)
    result = guard_renderer.apply({"d3": "failed"})
    assert result.ok, result.message
    text = (tmp_path / "nginx.conf").read_text()
    expected = api.render_config(
        api.make_plan(
            api.spec_from_mapping(
                {
                    **guard_renderer.data,
                    "disks": [
                        {**d, "state": "failed"} if d["name"] == "d3" else d
                        for d in guard_renderer.data["disks"]
                    ],
                },
            ),
            "x",
        ),
        source="tpgen_spec of edge",
    )
    assert text == expected
    assert "cache_d3" not in text.split("split_clients")[1].split("}")[0]
    again = guard_renderer.apply({"d3": "failed"})
    assert again.ok and "already has d3 failed" in again.message


def test_renderer_keeps_the_running_config_when_nginx_t_or_reload_fails(
    tmp_path: Path, nginx_binary: str
) -> None:
    live = tmp_path / "nginx.conf"
    live.write_text("the running config\n")
    false = shutil.which("false") or "/bin/false"
    refused = renderer(tmp_path, false).apply({"d3": "failed"})
    assert not refused.ok and "nginx -t refused" in refused.message
    assert live.read_text() == "the running config\n"
    not_reloaded = renderer(tmp_path, nginx_binary, reload=(false,)).apply({"d3": "failed"})
    assert not not_reloaded.ok and "restored" in not_reloaded.message
    assert live.read_text() == "the running config\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mnt", "nginx.conf", "spec.yaml"]


def test_a_config_installed_but_never_reloaded_is_reloaded_once_then_left(
    tmp_path: Path, nginx_binary: str
) -> None:
    """A guard killed between installing the config and reloading nginx: the next one finds the
    file already right, and reloads once (nginx may still run the old config), not never."""
    record = tmp_path / "reloads"
    reload = ("sh", "-c", f"echo reload >> {record}")
    first = renderer(tmp_path, nginx_binary, reload=reload)
    assert first.apply({"d3": "failed"}).ok
    assert record.read_text() == "reload\n"
    restarted = renderer(tmp_path, nginx_binary, reload=reload)
    result = restarted.apply({"d3": "failed"})
    assert result.ok and "already had d3 failed; nginx reloaded to run it" in result.message
    assert record.read_text() == "reload\n" * 2
    assert "already has d3 failed" in restarted.apply({"d3": "failed"}).message
    assert record.read_text() == "reload\n" * 2


def test_the_installed_config_keeps_the_live_files_mode_and_owner(
    tmp_path: Path, nginx_binary: str
) -> None:
    live = tmp_path / "nginx.conf"
    live.write_text("the running config\n")
    live.chmod(0o640)
    os.chown(live, os.getuid(), 4242)
    assert renderer(tmp_path, nginx_binary).apply({"d3": "failed"}).ok
    info = live.stat()
    assert (info.st_mode & 0o777, info.st_gid) == (0o640, 4242)
    previous = tmp_path / "nginx.conf.tpgen-guard-prev"
    assert previous.read_text() == "the running config\n"
    assert previous.stat().st_mode & 0o777 == 0o640


def test_a_reload_that_fails_with_no_earlier_config_says_so(
    tmp_path: Path, nginx_binary: str
) -> None:
    false = shutil.which("false") or "/bin/false"
    result = renderer(tmp_path, nginx_binary, reload=(false,)).apply({"d3": "failed"})
    assert not result.ok
    assert result.message.startswith("reload failed (exit 1: ")
    assert result.message.endswith(f"{tmp_path / 'nginx.conf'} had no earlier version")


def test_a_node_file_guard_cannot_write_is_reported_and_guarding_goes_on(tmp_path: Path) -> None:
    """Disk full, EIO, a permission: an OSError of a start or poll must not end the agent (its
    unit does not restart it after exit 2)."""
    from tpgen.cli import main

    spec = REPO / "examples" / "cache-3hdd.yaml"
    state = tmp_path / "not-a-dir" / "state.json"
    (tmp_path / "not-a-dir").write_text("a file where a directory should be\n")
    err = io.StringIO()
    import contextlib

    with contextlib.redirect_stderr(err):
        code = main(
            [
                *("guard", str(spec), "--state", str(state), "--polls", "3"),
                *("--interval", "0.1", "--config", str(tmp_path / "nginx.conf")),
                *("--error-log", str(tmp_path / "error.log"), "--kernel-log", ""),
                *("--events", str(tmp_path / "events.jsonl")),
            ]
        )
    assert code == 0
    failures = [line for line in err.getvalue().splitlines() if "start failed" in line]
    assert len(failures) == 3, err.getvalue()
    assert failures[0].startswith(f"tpgen guard: ERROR: start failed: tpgen: {state}")


@pytest.mark.parametrize("reload", ["", "   "])
def test_an_empty_reload_command_is_refused_before_anything_runs(
    reload: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tpgen.cli import main

    spec = REPO / "examples" / "cache-3hdd.yaml"
    state = tmp_path / "state.json"
    assert main(["guard", str(spec), "--reload", reload, "--state", str(state)]) == 2
    assert capsys.readouterr().err == (
        f"tpgen guard: --reload: {reload!r}: give the command that reloads nginx, e.g. "
        "'systemctl reload nginx'\n"
    )
    assert not state.exists()


def test_guard_refuses_a_spec_it_cannot_parse_with_exit_2(tmp_path: Path) -> None:
    from tpgen.cli import main

    bad = tmp_path / "spec.yaml"
    bad.write_text("node: {name: edge}\nguard: {errors: 0}\n")
    state = tmp_path / "state.json"
    err = io.StringIO()
    import contextlib

    with contextlib.redirect_stderr(err):
        code = main(["guard", str(bad), "--state", str(state), "--polls", "1"])
    assert code == 2
    assert f"{bad}:2: guard.errors:" in err.getvalue()
    assert not state.exists()


def test_guard_runs_polls_against_the_spec_and_writes_its_files(tmp_path: Path) -> None:
    spec = REPO / "examples" / "cache-3hdd.yaml"
    options = GuardOptions(
        config_path=str(tmp_path / "nginx.conf"),
        state_path=str(tmp_path / "state.json"),
        events_path=str(tmp_path / "events.jsonl"),
        error_log=str(tmp_path / "error.log"),
        kernel_log=None,
        polls=1,
        interval=0.1,
    )
    assert guard(str(spec), options) == 0
    events = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert events[0]["event"] == "started"
    assert os.path.exists(tmp_path / "state.json")


# ------------------------------------------------------------------- doctor reads the state
def layout_disks(states: Mapping[str, str]) -> list[dict[str, object]]:
    return [
        {
            "name": n,
            "device": f"/dev/{n}",
            "mount": f"/srv/cache/{n}",
            "dir": f"/srv/cache/{n}/c",
            "state": states.get(n, "active"),
            "filesystem": "xfs",
            "owner": "www-data",
            "min_free_bytes": None,
        }
        for n in ("d1", "d2", "d3")
    ]


def test_doctor_fails_a_disk_guard_failed_until_the_spec_says_so(tmp_path: Path) -> None:
    from tpgen.ops.doctor.findings import Level
    from tpgen.ops.doctor.guard_state import check_guard_state

    path = tmp_path / "guard-state.json"
    write_state(
        str(path),
        GuardState()
        .with_disk("d3", "failed", NOW, "5 I/O errors within 30s")
        .with_disk("d1", "slow", NOW, "reads in 120 ms")
        .with_disk("d2", "active", NOW, ""),
    )
    text = path.read_text()
    found = check_guard_state(text, layout_disks({}), path=str(path))  # type: ignore[arg-type]
    assert [(f.subject, f.level) for f in found] == [("d1", Level.WARN), ("d3", Level.FAIL)]
    assert "guard: d3 failed since 2027-01-15T08:00:00Z: 5 I/O errors" in found[1].message
    assert "doctor.yml" in (found[1].fix or "")
    persisted = check_guard_state(text, layout_disks({"d3": "failed"}), path=str(path))  # type: ignore[arg-type]
    assert persisted[1].level == Level.OK
    assert check_guard_state(None, layout_disks({}), path="x") == []  # type: ignore[arg-type]
    (corrupt,) = check_guard_state("{", layout_disks({}), path="x")  # type: ignore[arg-type]
    assert corrupt.level == Level.WARN and "corrupt" in corrupt.message


@pytest.mark.parametrize(
    ("example", "timeout"),
    [("cache-3hdd.yaml", "10m"), ("vod-12hdd.yaml", "4h")],
)
def test_worker_shutdown_timeout_lets_the_workload_finish_its_downloads(
    example: str, timeout: str
) -> None:
    plan = api.load_plan(str(REPO / "examples" / example))
    assert plan.worker_shutdown_timeout.value == timeout
    assert f"\nworker_shutdown_timeout {timeout};\n" in api.render_config(plan)


@pytest.mark.parametrize(("action", "applied"), [("report", []), ("drain", [{"d3": "draining"}])])
def test_agent_reports_a_slow_disk_or_drains_it_when_the_spec_says_so(
    tmp_path: Path, action: str, applied: list[dict[str, str]]
) -> None:
    node = Machine(tmp_path)
    agent = Agent(
        disks(),
        Policy(slow=action, slow_for=60, window=300),
        node.files,
        node.apply,
        error_log=Follower(str(node.error_log)),
        log=node.out,
    )
    agent.start(NOW)
    agent.poll(NOW)
    (tmp_path / "diskstats").write_text((FIXTURES / "diskstats-2.txt").read_text())
    agent.poll(NOW + 60)  # slow from now on
    agent.poll(NOW + 120)  # slow for 60 s
    state = json.loads(Path(node.files.state).read_text())["disks"]
    assert state["d3"]["state"] == ("draining" if action == "drain" else "slow")
    assert "reads in 120.0 ms" in state["d3"]["reason"]
    assert node.calls == applied
    assert [e["event"] for e in node.events()].count(
        f"disk_{'draining' if applied else 'slow'}"
    ) == 1


def test_the_event_log_moves_aside_past_its_size_and_never_splits_a_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(events, "EVENT_LOG_MAX_BYTES", 1000)
    path = str(tmp_path / "events.jsonl")
    for index in range(40):
        events.append_event(path, events.event_record(0.0, "disk_slow", f"event {index}"))
    current = [json.loads(line) for line in Path(path).read_text().splitlines()]
    older = [json.loads(line) for line in Path(path + ".1").read_text().splitlines()]
    assert Path(path).stat().st_size <= 1000 and Path(path + ".1").stat().st_size <= 1000
    numbers = [int(str(e["message"]).split()[1]) for e in older + current]
    assert numbers == list(range(40 - len(numbers), 40))  # the newest, in order, none lost between


def test_an_event_keeps_the_head_of_each_long_evidence_line() -> None:
    long = Evidence("d1", 0.0, "nginx", "x" * 70_000)
    record = events.event_record(0.0, "disk_failed", "m", disk="d1", evidence=[long])
    assert record["evidence"] == [("nginx: " + "x" * 70_000)[: events.EVIDENCE_LINE_CHARS]]


# ------------------------------------------------------- guard's files: regular files only
def test_a_state_swapped_for_a_link_is_refused_not_moved_aside(tmp_path: Path) -> None:
    """Only guard's own corrupt file is set aside: a link (here to a file that does not parse)
    is refused at the read, and the link and its target stay as they were."""
    node = Machine(tmp_path)
    other = tmp_path / "other.json"
    other.write_text("{not guard's\n")
    Path(node.files.state).symlink_to(other)
    with pytest.raises(FileRefused) as refused:
        node.agent().start(NOW)
    assert str(refused.value) == (
        f"{node.files.state}: is a symbolic link (to {other}): --state replaces only a regular "
        "file, name the file the link points to"
    )
    assert os.readlink(node.files.state) == str(other)
    assert other.read_text() == "{not guard's\n"
    assert not [p for p in tmp_path.iterdir() if "corrupt" in p.name]


def test_an_event_log_swapped_for_a_link_is_not_written_through(tmp_path: Path) -> None:
    node = Machine(tmp_path)
    other = tmp_path / "other.log"
    other.write_text("someone else's\n")
    Path(node.files.events).symlink_to(other)
    with pytest.raises(FileRefused, match=r"--events replaces only a regular file"):
        node.agent().start(NOW)
    assert other.read_text() == "someone else's\n"
    assert os.readlink(node.files.events) == str(other)


def test_a_state_that_is_one_of_guards_inputs_is_refused(tmp_path: Path) -> None:
    node = Machine(tmp_path)
    spec = tmp_path / "spec.yaml"
    spec.write_text("node: {name: edge}\n")
    files = Files(
        state=str(spec), events=node.files.events, inputs=(str(spec), str(node.error_log))
    )
    agent = Agent(
        disks(), Policy(), files, node.apply, error_log=Follower(str(node.error_log)), log=node.out
    )
    with pytest.raises(FileRefused, match=rf"is the input {spec} itself: write the state"):
        agent.start(NOW)
    assert spec.read_text() == "node: {name: edge}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "diskstats",
        "error.log",
        "mountinfo",
        "spec.yaml",
    ]


def test_renderer_refuses_a_live_config_that_is_a_link_and_keeps_it(tmp_path: Path) -> None:
    real = tmp_path / "real.conf"
    real.write_text("the running config\n")
    (tmp_path / "nginx.conf").symlink_to(real)
    true = shutil.which("true") or "/bin/true"
    result = renderer(tmp_path, true).apply({"d3": "failed"})
    assert not result.ok
    assert result.message == (
        f"cannot install the config with d3 failed: {tmp_path / 'nginx.conf'}: is a symbolic "
        f"link (to {real}): --config replaces only a regular file, name the file the link points to"
    )
    assert os.readlink(tmp_path / "nginx.conf") == str(real)
    assert real.read_text() == "the running config\n"


def test_what_nginx_or_the_reload_prints_may_be_any_bytes(tmp_path: Path) -> None:
    """Not UTF-8 (a Latin-1 locale, a binary's garbage): shown replaced, never an exit 3."""
    nginx = tmp_path / "nginx"
    nginx.write_text("#!/bin/sh\nprintf 'bad \\377\\376 bytes\\n' >&2\nexit 1\n")
    nginx.chmod(0o755)
    result = renderer(tmp_path, str(nginx)).apply({"d3": "failed"})
    assert not result.ok
    assert result.message == (
        "nginx -t refused the config with d3 failed: exit 1: bad \ufffd\ufffd bytes"
    )


def test_a_failed_write_reports_its_own_error_when_the_clean_up_fails_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rename's error is the one a user must see; the left temporary file is the lesser harm."""
    target = tmp_path / "guard-state.json"
    target.write_text("old\n")

    def refuse(*_: object) -> None:
        raise OSError("rename refused")

    def unremovable(_: object) -> None:
        raise PermissionError("unlink refused")

    monkeypatch.setattr(os, "replace", refuse)
    monkeypatch.setattr(os, "unlink", unremovable)
    with pytest.raises(OSError, match="rename refused"):
        write_atomic(str(target), "new\n")
    assert target.read_text() == "old\n"
