from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        help="Rewrite tests/cases/*/nginx.conf and schemas/ from the current generator.",
    )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


def _nginx() -> str | None:
    return (
        os.environ.get("TPGEN_NGINX")
        or shutil.which("nginx")
        or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    )


@pytest.fixture(scope="session")
def nginx_binary() -> str:
    """Real nginx: required in CI (fails there if missing), skipped only on a dev box without it."""
    binary = _nginx()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("nginx is missing in CI: .ci/run must install nginx-core")
        pytest.skip("nginx is not installed")
    return binary
