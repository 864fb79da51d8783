from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import NoReturn

import pytest

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        help="Rewrite tests/cases/*/{nginx.conf,explain.txt} and schemas/ from the current "
        "generator.",
    )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


def in_ci() -> bool:
    """CI=true (GitHub and most runners) or TPGEN_CI=1 (.ci/run): a missing prerequisite fails."""
    ci = os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}
    return ci or os.environ.get("TPGEN_CI", "").strip() not in {"", "0"}


def unavailable(reason: str) -> NoReturn:
    """The one rule for a missing tool or privilege: fail in CI, skip on a developer's machine.

    A test that quietly skips in CI proves nothing, so every such check in tests/ comes here.
    """
    if in_ci():
        pytest.fail(f"{reason} (CI: a missing prerequisite is a failure)", pytrace=False)
    pytest.skip(reason)


def require_root(why: str) -> None:
    if os.geteuid() != 0:
        unavailable(f"needs root: {why}")


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
        unavailable("nginx is not installed: scripts/test.sh system-deps installs nginx-core")
    return binary


@pytest.fixture
def rejecting_nginx(tmp_path: Path, nginx_binary: str) -> str:
    """The real nginx's -V, and a -t that refuses line 4 of the config it is given, as nginx
    words it: what tpgen makes of a refusal, whatever nginx refuses on a node."""
    script = tmp_path / "nginx-rejecting"
    script.write_text(
        "#!/bin/sh\n"
        f'[ "$1" = -V ] && exec {nginx_binary} -V\n'
        'while [ $# -gt 1 ]; do [ "$1" = -c ] && conf=$2; shift; done\n'
        'echo "nginx: [emerg] getpwnam(\\"cdn\\") failed in $conf:4" >&2\n'
        "exit 1\n"
    )
    script.chmod(0o755)
    return str(script)


def nginx_t(binary: str, prefix: Path, conf: Path) -> subprocess.CompletedProcess[str]:
    """`nginx -t` of `conf` with its runtime paths under `prefix`, errors on stderr."""
    return subprocess.run(
        [binary, "-t", "-p", f"{prefix}/", "-c", str(conf), "-e", "stderr"],
        capture_output=True,
        text=True,
        check=False,
    )
