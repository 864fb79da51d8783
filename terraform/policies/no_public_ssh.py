"""tpgen checkov policy: no SSH (tcp/22) ingress from the whole internet (0.0.0.0/0 or ::/0).

Covers the three ways the AWS provider opens a port: inline `ingress` blocks of
aws_security_group, aws_security_group_rule (type = ingress) and
aws_vpc_security_group_ingress_rule. Loaded with `checkov --external-checks-dir terraform/policies`.
"""

from __future__ import annotations

from typing import Any

from checkov.common.models.enums import CheckCategories, CheckResult
from checkov.terraform.checks.resource.base_resource_check import BaseResourceCheck

OPEN = {"0.0.0.0/0", "::/0"}
SSH = 22


def _first(value: Any) -> Any:
    """checkov wraps every attribute value in a one-element list."""
    while isinstance(value, list) and len(value) == 1:
        value = value[0]
    return value


def _as_list(value: Any) -> list[Any]:
    value = _first(value)
    if value is None:
        return []
    if isinstance(value, list):
        flat: list[Any] = []
        for item in value:
            flat.extend(_as_list(item))
        return flat
    return [value]


def _port(value: Any, default: int) -> int:
    value = _first(value)
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _covers_ssh(rule: dict[str, Any], protocol_key: str) -> bool:
    protocol = str(_first(rule.get(protocol_key, "tcp"))).lower()
    if protocol in {"-1", "all"}:
        return True
    if protocol not in {"tcp", "6"}:
        return False
    low = _port(rule.get("from_port"), 0)
    high = _port(rule.get("to_port"), 65535)
    return low <= SSH <= high


def _open_to_world(rule: dict[str, Any], keys: tuple[str, ...]) -> bool:
    return any(str(cidr) in OPEN for key in keys for cidr in _as_list(rule.get(key)))


class NoPublicSsh(BaseResourceCheck):
    def __init__(self) -> None:
        super().__init__(
            name="tpgen: no SSH ingress from 0.0.0.0/0 or ::/0 (reach nodes from known ranges)",
            id="CKV_TPGEN_4",
            categories=[CheckCategories.NETWORKING],
            supported_resources=[
                "aws_security_group",
                "aws_security_group_rule",
                "aws_vpc_security_group_ingress_rule",
            ],
        )

    def scan_resource_conf(self, conf: dict[str, Any]) -> CheckResult:
        return CheckResult.FAILED if _opens_ssh(self.entity_type, conf) else CheckResult.PASSED


def _opens_ssh(resource_type: str, conf: dict[str, Any]) -> bool:
    """The resource lets SSH in from anywhere."""
    if resource_type == "aws_security_group":
        return any(
            isinstance(rule, dict)
            and _covers_ssh(rule, "protocol")
            and _open_to_world(rule, ("cidr_blocks", "ipv6_cidr_blocks"))
            for rule in _as_list(conf.get("ingress"))
        )
    if resource_type == "aws_security_group_rule":
        return (
            str(_first(conf.get("type"))) == "ingress"
            and _covers_ssh(conf, "protocol")
            and _open_to_world(conf, ("cidr_blocks", "ipv6_cidr_blocks"))
        )
    return _covers_ssh(conf, "ip_protocol") and _open_to_world(conf, ("cidr_ipv4", "cidr_ipv6"))


check = NoPublicSsh()
