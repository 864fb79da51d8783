"""The node after the self-heal story: guard's unit, its hardening, its files."""

from __future__ import annotations

import json

import pytest

UNIT = "tpgen-guard"


def test_guard_unit_is_enabled_and_running(host) -> None:
    service = host.service(UNIT)
    assert service.is_enabled
    assert service.is_running


@pytest.mark.parametrize(
    ("prop", "value"),
    [
        ("Restart", "always"),
        ("NoNewPrivileges", "yes"),
        ("ProtectSystem", "strict"),
        ("RestartPreventExitStatus", "2"),
    ],
)
def test_guard_unit_is_hardened(host, prop: str, value: str) -> None:
    shown = host.check_output(f"systemctl show {UNIT} --property {prop} --value")
    assert shown.strip() == value


def test_guard_capabilities_are_the_minimal_set(host) -> None:
    shown = host.check_output(f"systemctl show {UNIT} --property CapabilityBoundingSet --value")
    assert set(shown.split()) == {
        "cap_chown",
        "cap_dac_override",
        "cap_dac_read_search",
        "cap_syslog",
    }


def test_guard_state_file_is_the_contract(host) -> None:
    state = json.loads(host.file("/var/lib/tpgen/guard-state.json").content_string)
    assert state["version"] == 1
    assert isinstance(state["disks"], dict)


def test_event_log_recorded_the_failure_and_the_replacement(host) -> None:
    lines = host.file("/var/lib/tpgen/events.jsonl").content_string.splitlines()
    events = [json.loads(line)["event"] for line in lines]
    assert "disk_failed" in events
    assert "disk_cleared" in events
    assert events.index("disk_failed") < events.index("disk_cleared")


def test_installed_guard_refuses_a_spec_it_cannot_parse(host) -> None:
    """What ExecStart meets with a bad spec: exit 2 (RestartPreventExitStatus, so systemd keeps
    the unit failed) and the line naming the field on stderr (the unit's journal)."""
    host.run("printf 'node: {name: x}\\nguard: {errors: 0}\\n' > /tmp/tpgen-bad-spec.yaml")
    run = host.run(
        "/opt/tpgen/bin/tpgen guard /tmp/tpgen-bad-spec.yaml --state /tmp/tpgen-bad-state.json"
    )
    assert run.rc == 2
    assert "/tmp/tpgen-bad-spec.yaml:2: guard.errors:" in run.stderr
    assert "Traceback" not in run.stderr
    assert not host.file("/tmp/tpgen-bad-state.json").exists
