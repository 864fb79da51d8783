"""The project's habits, held by tests: one version, one changelog, plugins through the api,
functions a screen long, complexity exceptions that shrink, and a pre-commit that runs exactly
the lint phase of scripts/test.sh."""

from __future__ import annotations

import ast
import json
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tpgen
import yaml

from .conftest import ROOT, unavailable

VERSION = tpgen.__version__
# the version as a whole token: not the tail of 10.0.1.0, not the head of 0.1.0.1
VERSION_TOKEN = re.compile(rf"(?<![\d.]){re.escape(VERSION)}(?![\d.])")
VERSION_HOME = ROOT / "generator" / "tpgen" / "__init__.py"
CHANGELOG = ROOT / "CHANGELOG.md"
RELEASE_HEADING = re.compile(r"^## \[(?P<name>[^\]]+)\]", re.MULTILINE)

GENERATOR = ROOT / "generator"
MAX_FUNCTION_LINES = 60

# Every hook runs its tool from the venv scripts/test.sh uses (TPGEN_VENV_BIN or .venv/bin).
VENV_RUN = """bash -c 'PATH="${TPGEN_VENV_BIN:-$PWD/.venv/bin}:$PATH" exec "$@"' --"""

PLUGINS = ROOT / "plugins"
# Code Ansible ships to the node, where there is python3 and no tpgen.
NODE_SIDE = ("modules", "module_utils")


def _repository_files() -> list[Path]:
    """Tracked files and new ones git would add: what a commit can carry."""
    if shutil.which("git") is None:
        unavailable("git is not installed")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if listed.returncode != 0:
        unavailable(f"not a git checkout: {listed.stderr.strip()}")
    return [ROOT / name for name in listed.stdout.split("\0") if name and (ROOT / name).is_file()]


def _version_may_appear(path: Path, line: str) -> bool:
    """The one statement of the version, and lines that record history rather than state it."""
    if path == VERSION_HOME:
        return line.startswith("__version__ = ")
    if path == CHANGELOG:
        return line.startswith(("## [", f"[{VERSION}]: "))
    # Ansible module documentation: the release a module first appeared in
    return path.is_relative_to(PLUGINS / "modules") and line.strip().startswith("version_added:")


def test_the_version_is_stated_once() -> None:
    elsewhere = []
    for path in _repository_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        elsewhere += [
            f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
            for number, line in enumerate(text.splitlines(), 1)
            if VERSION_TOKEN.search(line) and not _version_may_appear(path, line)
        ]
    assert elsewhere == [], "state the version only in generator/tpgen/__init__.py"
    assert VERSION_HOME.read_text(encoding="utf-8").count("__version__ = ") == 1


def test_the_package_metadata_reads_the_version_from_the_package() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"]
    assert "version" in pyproject["project"]["dynamic"]
    dynamic = pyproject["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "tpgen.__version__"}


def test_the_changelog_names_the_version_as_its_newest_release() -> None:
    headings = RELEASE_HEADING.findall(CHANGELOG.read_text(encoding="utf-8"))
    assert headings[0] == "Unreleased", "Keep a Changelog: what is not released yet comes first"
    assert headings[1] == VERSION, "bump the version and the changelog together"


def _tpgen_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, dotted name) of every tpgen module a file imports, inside functions too."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "tpgen":
                found += [(node.lineno, f"tpgen.{alias.name}") for alias in node.names]
            else:
                found.append((node.lineno, node.module))
    return [(line, name) for line, name in found if name.split(".")[0] == "tpgen"]


def test_plugins_reach_tpgen_only_through_its_api() -> None:
    offenders = []
    for path in sorted(PLUGINS.rglob("*.py")):
        allowed = set() if path.relative_to(PLUGINS).parts[0] in NODE_SIDE else {"tpgen.api"}
        offenders += [
            f"{path.relative_to(ROOT)}:{line}: {name}"
            for line, name in _tpgen_imports(ast.parse(path.read_text(encoding="utf-8")))
            if name not in allowed
        ]
    assert offenders == [], "controller plugins import tpgen.api only; node-side code no tpgen"


def test_the_import_rule_sees_every_form_of_import() -> None:
    source = (
        "import tpgen.plan\nfrom tpgen import api, cli\nfrom tpgen.spec.units import parse_size\n"
        "from . import sibling\nimport yaml\ndef f():\n    from tpgen.api import render\n"
    )
    assert _tpgen_imports(ast.parse(source)) == [
        (1, "tpgen.plan"),
        (2, "tpgen.api"),
        (2, "tpgen.cli"),
        (3, "tpgen.spec.units"),
        (7, "tpgen.api"),
    ]


def _function_lengths(root: Path) -> dict[tuple[str, str], int]:
    """Lines from `def` to the function's last line, per (file, name); the longest of a name."""
    lengths: dict[tuple[str, str], int] = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                key = (path.relative_to(ROOT).as_posix(), node.name)
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                lengths[key] = max(length, lengths.get(key, 0))
    return lengths


def test_no_function_in_the_generator_is_longer_than_a_screen() -> None:
    lengths = _function_lengths(GENERATOR)
    long = {key for key, length in lengths.items() if length > MAX_FUNCTION_LINES}
    assert sorted(long) == [], f"split by concern: at most {MAX_FUNCTION_LINES} lines"


def _complexity_exceptions() -> set[tuple[str, str]]:
    """(file, rule) of every per-file-ignores entry that names one file (the TODO list)."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    ignores: dict[str, list[str]] = pyproject["tool"]["ruff"]["lint"]["per-file-ignores"]
    return {(path, rule) for path, rules in ignores.items() if "*" not in path for rule in rules}


def _ruff_violations(files: list[str], rules: str) -> set[tuple[str, str]]:
    """(file, rule) that ruff finds in the files with no per-file-ignores at all."""
    if not files:
        return set()
    command = [sys.executable, "-m", "ruff", "check", "--select", rules, "--exit-zero"]
    command += ["--config", "lint.per-file-ignores = {}", "--output-format", "json", *files]
    found = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if found.returncode != 0:
        unavailable(f"ruff did not run: {found.stderr.strip()[-300:]}")
    return {
        (Path(v["filename"]).relative_to(ROOT).as_posix(), v["code"])
        for v in json.loads(found.stdout)
    }


def test_every_complexity_exception_is_still_needed() -> None:
    exceptions = _complexity_exceptions()
    files = sorted({path for path, _ in exceptions if (ROOT / path).is_file()})
    violations = _ruff_violations(files, ",".join(sorted({rule for _, rule in exceptions})))
    stale = sorted(exceptions - violations)
    assert stale == [], "split now: remove these from [tool.ruff.lint.per-file-ignores]"


def _lint_phase_commands() -> list[list[str]]:
    """The commands of scripts/test.sh's lint(), one token list each."""
    script = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    body = re.search(r"^lint\(\) \{\n(?P<body>.*?)^\}", script, re.MULTILINE | re.DOTALL)
    assert body is not None, "scripts/test.sh has no lint() function"
    lines = [line.strip() for line in body["body"].splitlines()]
    return [shlex.split(line) for line in lines if line and not line.startswith("#")]


def _linter(tokens: list[str]) -> tuple[str, ...]:
    """A command without its environment and its paths: the linter and how strict it runs."""
    while tokens and (tokens[0] == "env" or re.fullmatch(r"[A-Z_]+=\S*", tokens[0])):
        tokens = tokens[1:]
    # pre-commit names files itself; --force-exclude keeps ruff's excludes for named files
    arguments = [token for token in tokens[1:] if token != "--force-exclude"]
    paths = [t for t in arguments if "/" in t or "*" in t or t == "." or (ROOT / t).exists()]
    return (tokens[0], *[token for token in arguments if token not in paths])


def test_pre_commit_runs_exactly_the_lint_phase() -> None:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    # local hooks only: nothing to download, the venv's tools at the versions CI uses
    assert [repo["repo"] for repo in config["repos"]] == ["local"]
    hooks: list[dict[str, Any]] = config["repos"][0]["hooks"]
    assert {(hook["entry"], hook["language"]) for hook in hooks} == {(VENV_RUN, "system")}
    from_ci = sorted(_linter(command) for command in _lint_phase_commands())
    assert sorted(_linter(hook["args"]) for hook in hooks) == from_ci


@pytest.mark.parametrize(
    ("command", "linter"),
    [
        ("ruff check generator tests bench", ("ruff", "check")),
        ('PYTHONPATH="$PWD/generator" lint-imports --no-cache', ("lint-imports", "--no-cache")),
        ("env PYTHONPATH=generator lint-imports --no-cache", ("lint-imports", "--no-cache")),
        ("shellcheck -x scripts/*.sh .ci/run", ("shellcheck", "-x")),
        ("terraform fmt -check -recursive terraform", ("terraform", "fmt", "-check", "-recursive")),
        ("yamllint --strict .", ("yamllint", "--strict")),
    ],
)
def test_a_linter_is_compared_without_environment_and_paths(
    command: str, linter: tuple[str, ...]
) -> None:
    assert _linter(shlex.split(command)) == linter
