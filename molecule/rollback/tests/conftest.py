"""Fixtures of the rollback scenario's testinfra tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def checks() -> ModuleType:
    path = REPO / "tests" / "ansible" / "node_checks.py"
    spec = importlib.util.spec_from_file_location("tpgen_node_checks", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
