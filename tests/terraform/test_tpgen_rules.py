"""The spec's rules are tpgen's: `terraform apply` refuses what tpgen refuses, with its message.

modules/cdn_nodes/tests/tpgen.tftest.hcl proves at plan that Terraform no longer re-states the
spec's rules. This applies the same nodes (one per rule) and checks that each node fails on its
own, in terraform_data.tpgen_validate, with exactly the lines `tpgen validate` prints for it;
and that the specs tpgen accepts, including one the old HCL regexes refused, apply cleanly.
"""

from __future__ import annotations

from pathlib import Path

from tpgen.spec.model import DEVICE_RE, MOUNT_RE, PATTERN_FIXES

from . import hcl
from .conftest import TERRAFORM_DIR, TerraformTree, find_tool

CASES_FILE = TERRAFORM_DIR / "modules" / "cdn_nodes" / "tests" / "tpgen.tftest.hcl"
NOT_DEVICE = "is not " + PATTERN_FIXES[DEVICE_RE]
NOT_MOUNT = "is not " + PATTERN_FIXES[MOUNT_RE]

# node -> what tpgen prints for its spec (<node>.yaml, as terraform_data.tpgen_validate writes it).
REFUSED: dict[str, list[str]] = {
    "device-double-slash": [f"2: disks.0.device: '/dev//sdb' {NOT_DEVICE}"],
    "mount-double-slash": [f"4: disks.0.mount: '/srv//d1' {NOT_MOUNT}"],
    "relative-mount": [f"4: disks.0.mount: 'srv/d1' {NOT_MOUNT}"],
    "nested-mount": [
        "10: disks.1.mount: /srv/data/d2 is inside disks.0.mount /srv/data: mount each disk at "
        "its own top-level directory"
    ],
    "duplicate-devices": [
        "8: disks.1.device: '/dev/sdb' is already used by disks.0: each disk needs its own device"
    ],
    "duplicate-disk-names": [
        "11: disks.1.name: 'd2' is already used by disks.0: each disk needs its own name"
    ],
    "unknown-media": ["3: disks.0.media: 'tape' is not allowed here: write 'hdd', 'ssd' or 'nvme'"],
    "unknown-disk-set-media": [
        "3: disks.0.media: 'floppy' is not allowed here: write 'hdd', 'ssd' or 'nvme'",
        "9: disks.1.media: 'floppy' is not allowed here: write 'hdd', 'ssd' or 'nvme'",
    ],
    "unknown-disk-state": [
        "7: disks.0.state: 'broken' is not allowed here: write 'active', 'draining' or 'failed'"
    ],
    "unknown-filesystem": [
        "3: disks.0.filesystem: 'btrfs' is not allowed here: write 'xfs' or 'ext4'"
    ],
    "size-without-unit": [
        "6: disks.0.size: '4 terabytes' is not a size: write a number with a unit, like 4TB, "
        "48GiB, 1MiB"
    ],
    "unknown-workload": [
        "13: workload.type: 'proxy' is not allowed here: write 'cache', 'origin' or 'vod'"
    ],
    "cache-without-upstreams": [
        "12: workload.upstreams: a cache node needs at least one upstream: add upstreams: "
        '["origin:8080"]'
    ],
    "upstreams-on-origin": [
        "14: workload.upstreams: has no effect on an origin node (only cache uses it): remove it"
    ],
    "upstream-without-port": [
        "15: workload.upstreams.0: 'origin.example.net' is not host:port (write e.g. "
        "origin-a.example.net:8080 or [2001:db8::1]:80)"
    ],
    "bad-inactive": [
        "13: workload.inactive: 'seven days' is not an nginx duration: write a number and a unit "
        "(y M w d h m s), e.g. 12h, 7d, 1h30m"
    ],
    "fractional-cores": ["9: node.cores: 2.5 is not a whole number: write e.g. 4"],
    "port-out-of-range": ["9: listen.0.port: 70000 is too large: write 65535 or less"],
    "http3-without-v3": [
        "10: listen.0.http3: needs an nginx built with --with-http_v3_module (nginx ≥ 1.25; "
        "Debian 13's has it, Debian 12's has not): set nginx.http_v3: true if `nginx -V` shows "
        "it, or remove http3"
    ],
    "unknown-tuning-key": [
        "13: tuning.threads: unknown key: remove it or check its spelling (see `tpgen schema`)"
    ],
}


def _apply(tree: TerraformTree, tmp_path: Path, run_name: str) -> tuple[int, dict[str, str]]:
    """Apply one run's variables on a fresh state; the error details by resource address."""
    # The tpgen under test, wherever it is installed (an operator's is on PATH).
    variables = {**hcl.run_variables(CASES_FILE)[run_name], "tpgen_command": find_tool("tpgen")}
    result = tree.apply("modules/cdn_nodes", variables, tmp_path)
    errors: dict[str, str] = {}
    for diagnostic in result.errors:
        address = diagnostic.get("address", "")
        assert address not in errors, f"two errors for {address}"
        errors[address] = diagnostic.get("detail", "")
    return result.returncode, errors


def test_every_refused_node_has_its_message() -> None:
    nodes = hcl.run_variables(CASES_FILE)["plan_leaves_meaning_to_tpgen"]["nodes"]
    assert sorted(n["name"] for n in nodes) == sorted(REFUSED)


def test_apply_refuses_each_node_with_tpgen_message(
    terraform_tree: TerraformTree, tmp_path: Path
) -> None:
    returncode, errors = _apply(terraform_tree, tmp_path, "plan_leaves_meaning_to_tpgen")
    assert returncode != 0
    expected = {
        f'terraform_data.tpgen_validate["{node}"]': [f"{node}.yaml:{line}" for line in lines]
        for node, lines in REFUSED.items()
    }
    assert sorted(errors) == sorted(expected)
    for address, lines in expected.items():
        detail = errors[address]
        assert detail.startswith("Error running command "), detail
        assert detail.split(". Output: ", 1)[1].strip().splitlines() == lines, address


def test_apply_accepts_what_tpgen_accepts(terraform_tree: TerraformTree, tmp_path: Path) -> None:
    """/dev/disk/by-id/a+b (refused by the old HCL regex) and a node whose cores and memory
    come from facts later both pass."""
    returncode, errors = _apply(terraform_tree, tmp_path, "apply_accepts_what_tpgen_accepts")
    assert (returncode, errors) == (0, {})
