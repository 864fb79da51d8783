"""Fixtures of the default scenario's testinfra tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]


def _load_node_checks() -> ModuleType:
    path = REPO / "tests" / "ansible" / "node_checks.py"
    spec = importlib.util.spec_from_file_location("tpgen_node_checks", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def checks() -> ModuleType:
    return _load_node_checks()


@pytest.fixture(scope="module")
def spec(host: Any, checks: ModuleType) -> dict[str, Any]:
    """The host's spec completed from its facts, as nginx_tpconfig builds it."""
    result: dict[str, Any] = checks.node_spec(host)
    return result
