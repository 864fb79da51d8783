"""Fixtures of the disks scenario's testinfra tests."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[3]
# The helpers shared with tests/ansible; molecule runs these tests outside the tests package.
sys.path.insert(0, str(REPO / "tests" / "ansible"))
import node_checks  # noqa: E402


@pytest.fixture(scope="session")
def checks() -> ModuleType:
    return node_checks
