"""The project's checkov policies (terraform/policies/) pass on the adapters and fail on bad code.

A policy that never fails proves nothing, so each one is run against the deliberately bad
fixtures under tests/terraform/fixtures/ and must flag exactly the resources built to break it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import FIXTURES, TERRAFORM_DIR, find_tool, run

POLICIES = TERRAFORM_DIR / "policies"
IMDSV2, ERASE, USER_DATA, NO_PUBLIC_SSH = (
    "CKV2_TPGEN_1",
    "CKV2_TPGEN_2",
    "CKV2_TPGEN_3",
    "CKV_TPGEN_4",
)
PROJECT_CHECKS = (IMDSV2, ERASE, USER_DATA, NO_PUBLIC_SSH)


def checkov(directory: Path, *checks: str) -> dict[str, set[tuple[str, str]]]:
    """{"passed"|"failed"|"skipped": {(check_id, resource)}} for one checkov scan."""
    args = [
        find_tool("checkov"),
        "-d",
        str(directory),
        "--framework",
        "terraform",
        "--external-checks-dir",
        str(POLICIES),
        "--skip-download",
        "--compact",
        "-o",
        "json",
    ]
    if checks:
        args += ["--check", ",".join(checks)]
    result = run(args, check=False)
    assert result.returncode in (0, 1), result.output
    reports: Any = json.loads(result.stdout)
    if isinstance(reports, dict):
        reports = [reports]
    found: dict[str, set[tuple[str, str]]] = {"passed": set(), "failed": set(), "skipped": set()}
    for report in reports:
        for kind in found:
            for item in report.get("results", {}).get(f"{kind}_checks", []):
                found[kind].add((item["check_id"], item["resource"]))
    return found


@pytest.fixture(scope="module")
def adapters() -> dict[str, set[tuple[str, str]]]:
    """One scan of the adapters with checkov's own checks and the project policies."""
    return checkov(TERRAFORM_DIR / "providers")


@pytest.fixture(scope="module")
def fixtures() -> dict[str, set[tuple[str, str]]]:
    """One scan of all bad fixtures, project policies only."""
    return checkov(FIXTURES, *PROJECT_CHECKS)


def test_every_policy_is_loaded_and_passes_on_the_adapters(
    adapters: dict[str, set[tuple[str, str]]],
) -> None:
    assert {check for check, _ in adapters["passed"]} >= set(PROJECT_CHECKS)
    assert {check for check, _ in adapters["failed"]} & set(PROJECT_CHECKS) == set()


def test_adapters_pass_all_builtin_checks_too(adapters: dict[str, set[tuple[str, str]]]) -> None:
    """checkov's own Terraform checks as well; deliberate exceptions carry an inline skip reason."""
    assert adapters["failed"] == set()
    assert {check for check, _ in adapters["skipped"]} <= {
        "CKV_AWS_260",
        "CKV_AWS_382",
        "CKV2_AWS_41",
    }


def test_user_data_policy_covers_every_adapter(adapters: dict[str, set[tuple[str, str]]]) -> None:
    types = {res.split(".")[-2] for check, res in adapters["passed"] if check == USER_DATA}
    assert types == {"aws_instance", "maas_instance", "ovh_dedicated_server"}


def test_aws_fixture_fails_imdsv2_user_data_and_public_ssh(
    fixtures: dict[str, set[tuple[str, str]]],
) -> None:
    failed = {(c, r) for c, r in fixtures["failed"] if r.startswith("aws_")}
    assert failed == {
        (IMDSV2, "aws_instance.imdsv1_no_user_data"),
        (IMDSV2, "aws_instance.no_metadata_options"),
        (USER_DATA, "aws_instance.imdsv1_no_user_data"),
        (USER_DATA, "aws_instance.empty_user_data"),
        (NO_PUBLIC_SSH, "aws_security_group.inline_ssh_world"),
        (NO_PUBLIC_SSH, "aws_security_group_rule.all_ports_ipv6_world"),
        (NO_PUBLIC_SSH, "aws_vpc_security_group_ingress_rule.ssh_world"),
    }


def test_maas_fixture_fails_erase_on_release_and_user_data(
    fixtures: dict[str, set[tuple[str, str]]],
) -> None:
    failed = {(c, r) for c, r in fixtures["failed"] if r.startswith("maas_")}
    assert failed == {
        (ERASE, "maas_instance.keeps_disks"),
        (ERASE, "maas_instance.no_release_params"),
        (USER_DATA, "maas_instance.keeps_disks"),
    }


def test_ovh_fixture_fails_user_data(fixtures: dict[str, set[tuple[str, str]]]) -> None:
    failed = {(c, r) for c, r in fixtures["failed"] if r.startswith("ovh_")}
    assert failed == {(USER_DATA, "ovh_dedicated_server.no_user_data")}


def test_each_policy_fails_somewhere(fixtures: dict[str, set[tuple[str, str]]]) -> None:
    assert {check for check, _ in fixtures["failed"]} == set(PROJECT_CHECKS)
