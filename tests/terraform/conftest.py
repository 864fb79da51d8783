"""Shared helpers for the Terraform tests: real terraform, temporary copies, no repo pollution.

Every test that runs terraform works on a copy of terraform/ under a temporary directory, with
its own TF_DATA_DIR, so the repo tree never gains .terraform/ directories or state files.
A missing tool fails the run in CI and skips on a developer's machine (tests/conftest.py's
`unavailable`, the one rule for every test).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import unavailable

ROOT = Path(__file__).resolve().parents[2]
TERRAFORM_DIR = ROOT / "terraform"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
# A root module's input variables by name, as a -var-file holds them.
Variables = Mapping[str, Any]


def find_tool(name: str) -> str:
    """A tool from the Python environment running pytest (the repo's .venv), else from PATH."""
    candidates = [Path(sys.executable).parent / name, ROOT / ".venv" / "bin" / name]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which(name)
    if found is None:
        unavailable(
            f"{name} is not installed (looked in {candidates[0].parent}, .venv/bin and PATH): "
            "install the dev extras (`.venv/bin/pip install -e '.[dev]'`)"
        )
    return found


def terraform_binary() -> str:
    binary = os.environ.get("TERRAFORM") or shutil.which("terraform")
    if binary is None and Path("/usr/local/bin/terraform").exists():
        binary = "/usr/local/bin/terraform"
    if binary is None:
        unavailable("terraform is not installed: the Terraform tests need Terraform >= 1.9 on PATH")
    return binary


@dataclass
class Result:
    args: Sequence[str]
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    @property
    def errors(self) -> list[dict[str, Any]]:
        """The error diagnostics of a `-json` run, in the order printed."""
        return error_diagnostics(self.stdout)


def run(
    args: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    check: bool = True,
    timeout: float = 300,
) -> Result:
    proc = subprocess.run(
        list(args),
        cwd=cwd,
        env=dict(env) if env is not None else None,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    result = Result(args, proc.returncode, proc.stdout, proc.stderr)
    if check and proc.returncode != 0:
        pytest.fail(
            f"command failed ({proc.returncode}): {' '.join(args)}\n"
            f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}",
            pytrace=False,
        )
    return result


def error_diagnostics(stdout: str) -> list[dict[str, Any]]:
    """The error diagnostics of a `terraform ... -json` run, in the order printed."""
    errors = []
    # One event a line, split on "\n" only: splitlines() also splits at a NEL (U+0085) or a form
    # feed, which a value quoted in a message may hold.
    for line in stdout.split("\n"):
        event = json.loads(line) if line.startswith("{") else {}
        diagnostic = event.get("diagnostic") if event.get("type") == "diagnostic" else None
        if diagnostic and diagnostic.get("severity") == "error":
            errors.append(diagnostic)
    return errors


def base_env(data_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        CHECKPOINT_DISABLE="1",
        TF_IN_AUTOMATION="1",
        TF_INPUT="0",
        TF_DATA_DIR=str(data_dir),
    )
    # A CLI config that points at a missing file only produces a warning on every call.
    config = env.get("TF_CLI_CONFIG_FILE")
    if config and not Path(config).exists():
        env["TF_CLI_CONFIG_FILE"] = os.devnull
    env.pop("TF_LOG", None)
    return env


@dataclass
class TerraformTree:
    """A private copy of terraform/ plus the means to run terraform in it."""

    root: Path
    binary: str
    data_root: Path
    # The init of each (workdir, data directory) pair: init once, plan many times.
    initialised: dict[tuple[str, str], Result] = field(default_factory=dict)

    def env(self, name: str) -> dict[str, str]:
        data_dir = self.data_root / name
        data_dir.mkdir(parents=True, exist_ok=True)
        return base_env(data_dir)

    def terraform(
        self, workdir: str, *args: str, data: str | None = None, check: bool = True
    ) -> Result:
        env = self.env(data or workdir.replace("/", "_"))
        return run([self.binary, f"-chdir={self.root / workdir}", *args], env=env, check=check)

    def init(self, workdir: str, *, data: str | None = None) -> Result:
        """`terraform init` of a provider-free module (no backend, no prompt, as CI runs it),
        once for each data directory: later calls give the first one's result."""
        key = (workdir, data or workdir.replace("/", "_"))
        if key not in self.initialised:
            args = ["init", "-backend=false", "-input=false", "-no-color"]
            self.initialised[key] = self.terraform(workdir, *args, data=data)
        return self.initialised[key]

    def plan(
        self, workdir: str, variables: Variables, dest: Path, *args: str, data: str | None = None
    ) -> Result:
        """init, then `terraform plan -json` with the variables; the result, failed or not."""
        return self._run_with(workdir, variables, dest, ["plan", *args], data)

    def apply(
        self, workdir: str, variables: Variables, dest: Path, *args: str, data: str | None = None
    ) -> Result:
        """init, then `terraform apply -json` with the variables on a state of its own in dest."""
        state = f"-state={dest / 'terraform.tfstate'}"
        return self._run_with(
            workdir, variables, dest, ["apply", "-auto-approve", state, *args], data
        )

    def _run_with(
        self, workdir: str, variables: Variables, dest: Path, command: list[str], data: str | None
    ) -> Result:
        self.init(workdir, data=data)
        var_file = write_var_file(dest, variables)
        args = [command[0], "-json", "-input=false", f"-var-file={var_file}", *command[1:]]
        return self.terraform(workdir, *args, data=data, check=False)

    def planned_outputs(
        self, workdir: str, variables: Variables, dest: Path, *, data: str | None = None
    ) -> dict[str, Any]:
        """The values of the outputs a successful plan with the variables would give."""
        plan = self.plan(workdir, variables, dest, f"-out={dest / 'plan'}", data=data)
        assert plan.returncode == 0, plan.errors or plan.output
        shown = self.terraform(workdir, "show", "-json", str(dest / "plan"), data=data)
        outputs = json.loads(shown.stdout)["planned_values"]["outputs"]
        return {name: output["value"] for name, output in outputs.items()}


def write_var_file(dest: Path, variables: Variables) -> Path:
    """The variables as a -var-file (JSON) in the directory dest."""
    var_file = dest / "variables.tfvars.json"
    var_file.write_text(json.dumps(variables), encoding="utf-8")
    return var_file


def copy_terraform_tree(dest: Path) -> Path:
    target = dest / "terraform"
    shutil.copytree(
        TERRAFORM_DIR,
        target,
        ignore=shutil.ignore_patterns(
            ".terraform", "*.tfstate", "*.tfstate.*", ".terraform.lock.hcl"
        ),
    )
    return target


@pytest.fixture(scope="session")
def terraform_tree(tmp_path_factory: pytest.TempPathFactory) -> TerraformTree:
    base = tmp_path_factory.mktemp("tf")
    return TerraformTree(copy_terraform_tree(base), terraform_binary(), base / "data")
