"""What a user installs: `python -m build` makes an sdist and a wheel that carry the templates,
the schema and the license, and the wheel, installed into a clean venv (not editable, no system
site-packages, no PYTHONPATH into this checkout), renders every example from outside the repository
exactly as the source tree does, with and without the real `nginx -t` check.

Builds and installs for real (~30-60 s, dependencies from pip's cache or the package index), in
the normal pytest phase; `-m "not packaging"` leaves it out of a quick local loop.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
import tpgen

from .conftest import ROOT

pytestmark = pytest.mark.packaging

EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
SCHEMA = ROOT / "schemas" / "node-spec.schema.json"
LICENSE = ROOT / "LICENSE"
VERSION = tpgen.__version__


def _clean_env(**extra: str) -> dict[str, str]:
    """The caller's environment without anything that points Python at this checkout."""
    drop = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV", "TPGEN_NGINX"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(extra)
    return env


def _run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: int = 300) -> str:
    result = subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=timeout
    )
    output = result.stdout[-3000:] + result.stderr[-3000:]
    assert result.returncode == 0, f"{' '.join(cmd)} exited {result.returncode}\n{output}"
    return result.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sdist and wheel of this checkout; the wheel is built from the sdist, so both are complete."""
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], out, _clean_env())
    return out


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bin/ of a fresh venv with only the wheel (and its dependencies) installed."""
    venv = tmp_path_factory.mktemp("venv")
    env = _clean_env()
    _run([sys.executable, "-m", "venv", "--clear", str(venv)], venv, env)
    wheel = _one(dist, "*.whl")
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)], venv, env)
    return venv / "bin"


def _one(directory: Path, pattern: str) -> Path:
    found = sorted(directory.glob(pattern))
    assert len(found) == 1, f"{pattern} in {directory}: {found}"
    return found[0]


def test_dist_files_are_named_with_the_one_version(dist: Path) -> None:
    names = sorted(p.name for p in dist.iterdir())
    assert names == [f"tpgen-{VERSION}-py3-none-any.whl", f"tpgen-{VERSION}.tar.gz"]


def test_wheel_carries_templates_schema_typing_and_license(dist: Path) -> None:
    with zipfile.ZipFile(_one(dist, "*.whl")) as wheel:
        names = set(wheel.namelist())
        assert "tpgen/render/templates/nginx.conf.j2" in names
        assert "tpgen/py.typed" in names
        assert wheel.read("tpgen/schemas/node-spec.schema.json") == SCHEMA.read_bytes()
        info = f"tpgen-{VERSION}.dist-info"
        assert wheel.read(f"{info}/licenses/LICENSE") == LICENSE.read_bytes()
        metadata = wheel.read(f"{info}/METADATA").decode()
    assert "License-Expression: Apache-2.0" in metadata.splitlines()
    assert not any(line.startswith("License: ") for line in metadata.splitlines())


def test_sdist_carries_templates_schema_license_and_examples(dist: Path) -> None:
    top = f"tpgen-{VERSION}"
    with tarfile.open(_one(dist, "*.tar.gz")) as sdist:
        names = set(sdist.getnames())
        member = sdist.extractfile(f"{top}/generator/tpgen/schemas/node-spec.schema.json")
        assert member is not None
        assert member.read() == SCHEMA.read_bytes()
    for path in [
        "LICENSE",
        "pyproject.toml",
        "generator/tpgen/render/templates/nginx.conf.j2",
        "generator/tpgen/py.typed",
        *(f"examples/{p.name}" for p in EXAMPLES),
    ]:
        assert f"{top}/{path}" in names, f"sdist lacks {path}"
    assert not any(n.startswith(f"{top}/tests/") for n in names), "tests belong to the repository"


def test_installed_tpgen_is_the_wheel_not_this_checkout(installed: Path, tmp_path: Path) -> None:
    where = _run(
        [str(installed / "python"), "-c", "import tpgen; print(tpgen.__file__)"],
        tmp_path,
        _clean_env(),
    )
    assert Path(where.strip()).is_relative_to(installed.parent), where
    version = _run([str(installed / "tpgen"), "--version"], tmp_path, _clean_env())
    assert version == f"tpgen, version {VERSION}\n"


def test_installed_schema_command_prints_the_shipped_schema(
    installed: Path, tmp_path: Path
) -> None:
    printed = _run([str(installed / "tpgen"), "schema"], tmp_path, _clean_env())
    assert printed == SCHEMA.read_text(encoding="utf-8")


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_installed_wheel_renders_every_example_like_the_source_tree(
    installed: Path, tmp_path: Path, example: Path, nginx_binary: str
) -> None:
    """From a directory outside the repository; `--check` runs the real nginx."""
    env = _clean_env(TPGEN_NGINX=nginx_binary)
    tpgen_bin = str(installed / "tpgen")
    unchecked = _run([tpgen_bin, "render", "--no-check", str(example)], tmp_path, env)
    checked = _run([tpgen_bin, "render", str(example)], tmp_path, env)
    source_env = _clean_env(PYTHONPATH=str(ROOT / "generator"))
    from_source = _run(
        [sys.executable, "-m", "tpgen", "render", "--no-check", str(example)], tmp_path, source_env
    )
    assert unchecked == checked == from_source
    assert "thread_pool" in checked


def test_one_license_everywhere() -> None:
    """LICENSE is Apache-2.0, and the package and every role declare exactly that."""
    text = LICENSE.read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert (project["license"], project["license-files"]) == ("Apache-2.0", ["LICENSE"])
    roles = sorted((ROOT / "roles").glob("*/meta/main.yml"))
    assert roles
    for meta in roles:
        declared = [
            line.split(":", 1)[1].strip()
            for line in meta.read_text(encoding="utf-8").splitlines()
            if line.strip().startswith("license:")
        ]
        assert declared == ["Apache-2.0"], f"{meta.relative_to(ROOT)}: license {declared}"


@pytest.fixture(scope="module")
def repo_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What a user checks out, without this checkout's .venv."""
    copy = tmp_path_factory.mktemp("checkout")
    for name in ["pyproject.toml", "README.md", "LICENSE", "MANIFEST.in"]:
        shutil.copy2(ROOT / name, copy / name)
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", ".venv")
    for name in ["generator", "scripts", "examples"]:
        shutil.copytree(ROOT / name, copy / name, ignore=skip)
    return copy


def test_readme_first_command_prints_only_the_result(repo_copy: Path, nginx_binary: str) -> None:
    """The README's install-and-render command, run as written in a fresh checkout: no pip noise."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    command = next(line.strip() for line in section.splitlines() if line.startswith("    "))
    assert command == "./scripts/install.sh && .venv/bin/tpgen render examples/cache-3hdd.yaml"
    result = subprocess.run(
        ["bash", "-c", command],
        cwd=repo_copy,
        env=_clean_env(TPGEN_NGINX=nginx_binary),
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert (result.returncode, result.stderr) == (0, "")
    first, config = result.stdout.split("\n", 1)
    assert first == f"tpgen, version {VERSION} installed in .venv/bin"
    assert config.startswith("# generated by tpgen from examples/cache-3hdd.yaml")


def test_install_shows_pips_error_when_pip_fails(repo_copy: Path) -> None:
    result = subprocess.run(
        ["./scripts/install.sh"],
        cwd=repo_copy,
        env=_clean_env(TPGEN_EXTRAS="./no-such-project"),
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert (result.returncode, result.stdout) == (1, "")
    lines = result.stderr.splitlines()
    assert any("./no-such-project" in line and "ERROR" in line for line in lines[:-1]), lines
    assert lines[-1] == (
        "install.sh: pip install -e ./no-such-project failed; full log: .venv/install.log"
    )
