"""User data within the cloud's limit: modules/cdn_nodes refuses a longer one at plan.

EC2 takes at most 16 KB of user data, counted in bytes before base64 (AWS's "Work with instance
user data": "User data is limited to 16 KB, in raw form, before it is base64-encoded"), and the
AWS adapter sends its cloud-config raw. The module counts bytes, not characters: a key comment
with multi-byte characters makes the two differ, and the limit must fall on the exact byte.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import hcl
from .conftest import TERRAFORM_DIR, TerraformTree

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBx7mDWWlfKDD3qBbkJ+4PqS0mkWMGzdAv9kXpbX5l0c josé-日本"
AWS_USER_DATA_BYTES = 16 * 1024


def _variables(**extra: Any) -> dict[str, Any]:
    disks = [{"device": "/dev/sdb", "size": "4TB", "media": "hdd"}]
    nodes = [
        {"name": name, "address": "192.0.2.10", "workload": {"type": "origin"}, "disks": disks}
        for name in ("edge-01", "edge-long-name-02")
    ]
    return {"nodes": nodes, "ssh_authorized_keys": [KEY], "tpgen_command": None, **extra}


def test_the_limit_falls_on_the_exact_byte(terraform_tree: TerraformTree, tmp_path: Path) -> None:
    outputs = terraform_tree.planned_outputs("modules/cdn_nodes", _variables(), tmp_path)
    sizes = {name: len(text.encode()) for name, text in outputs["user_data"].items()}
    assert sizes["edge-01"] < sizes["edge-long-name-02"]
    assert sizes["edge-01"] > len(outputs["user_data"]["edge-01"])
    longest = sizes["edge-long-name-02"]
    within = _variables(user_data_max_bytes=longest)
    assert terraform_tree.plan("modules/cdn_nodes", within, tmp_path).errors == []
    over = _variables(user_data_max_bytes=sizes["edge-01"] - 1)
    result = terraform_tree.plan("modules/cdn_nodes", over, tmp_path)
    assert [(d["summary"], " ".join(d["detail"].split())) for d in result.errors] == [
        (
            "Module output value precondition failed",
            f"The user data of edge-01 ({sizes['edge-01']} bytes), edge-long-name-02 ({longest} "
            f"bytes) is longer than user_data_max_bytes, {sizes['edge-01'] - 1} bytes: shorten "
            "ssh_authorized_keys (fewer keys, or ed25519 keys, which are shorter than RSA ones) "
            "or bootstrap_packages.",
        )
    ]


def test_aws_adapter_passes_awss_limit() -> None:
    module = hcl.load(TERRAFORM_DIR / "providers" / "aws" / "main.tf")
    ((_, call),) = hcl.blocks(module, "module")
    assert hcl.attr(call, "user_data_max_bytes") == AWS_USER_DATA_BYTES


def test_aws_adapter_sends_the_user_data_raw() -> None:
    """The limit counts what the adapter sends: the cloud-config itself, not base64 or gzip."""
    module = hcl.load(TERRAFORM_DIR / "providers" / "aws" / "main.tf")
    (instance,) = [
        body for t, _, body in hcl.typed_blocks(module, "resource") if t == "aws_instance"
    ]
    assert hcl.expr(hcl.attr(instance, "user_data")) == "module.cdn_nodes.user_data[each.key]"
    assert "user_data_base64" not in instance
