"""The scripts' dependency detection (scripts/ci/deps.sh) and test.sh's failure handling.

deps.sh decides what to install by finding the program a phase runs. These tests run it with a
PATH that holds only fakes (and nothing of the machine's own), so they decide the same on a fresh
machine, on one with docker.io installed and on a developer's laptop.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

from .conftest import ROOT, require_root, unavailable

DEPS = ROOT / "scripts" / "ci" / "deps.sh"
TEST_SH = ROOT / "scripts" / "test.sh"
BASH = shutil.which("bash") or "/bin/bash"

THREADED_NGINX = (
    "echo 'nginx version: nginx/1.22.1' >&2\n"
    "echo 'configure arguments: --with-http_ssl_module --with-threads' >&2\n"
)
PLAIN_NGINX = (
    "echo 'nginx version: nginx/1.27.0' >&2\n"
    "echo 'configure arguments: --with-http_ssl_module' >&2\n"
)
PYTHON = f'exec {sys.executable} "$@"\n'
TERRAFORM = 'echo \'{"terraform_version": "1.11.4", "platform": "linux_amd64"}\'\n'
CLIENT = "echo 'Docker version 28.2.2, build e6534b4'\n"

# Every program some phase runs, as a working fake.
EVERYTHING = {
    "python3": PYTHON,
    "nginx": THREADED_NGINX,
    "wrk": "",
    "curl": "",
    "losetup": "",
    "lsblk": "",
    "mount": "",
    "umount": "",
    "mkfs.ext4": "",
    "mkfs.xfs": "",
    "promtool": "",
    "ss": "",
    "docker": CLIENT,
    "dockerd": "",
    "containerd": "",
    "runc": "",
    "pgrep": "",
    "debootstrap": "",
    "terraform": TERRAFORM,
}


def fake_bin(directory: Path, programs: dict[str, str]) -> Path:
    directory.mkdir(exist_ok=True)
    for name, body in programs.items():
        path = directory / name
        path.write_text("#!/bin/sh\n" + body, encoding="utf-8")
        path.chmod(0o755)
    return directory


def with_coreutils(bin_dir: Path) -> Path:
    """`bin_dir` with the coreutils deps.sh's apt step runs (a real machine always has them)."""
    for name in ("mktemp", "chmod", "rm"):
        (bin_dir / name).symlink_to(shutil.which(name) or f"/usr/bin/{name}")
    return bin_dir


def deps(
    bin_dir: Path, mode: str, phases: Iterable[str], **env: str
) -> subprocess.CompletedProcess[str]:
    """deps.sh with PATH = only `bin_dir`, no fallback directories, none of the caller's env."""
    full_env = {"PATH": str(bin_dir), "TPGEN_DEPS_FALLBACK_PATH": "", "TMPDIR": str(bin_dir.parent)}
    full_env.update(env)
    return subprocess.run(
        [BASH, str(DEPS), mode, *phases],
        env=full_env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def missing(result: subprocess.CompletedProcess[str]) -> list[str]:
    return result.stdout.split()


def test_only_a_docker_client_means_the_engine_is_installed(tmp_path: Path) -> None:
    """The fresh machine of issue 9: /usr/local/bin/docker is a CLI, there is no dockerd."""
    bin_dir = fake_bin(tmp_path / "bin", {"docker": CLIENT})
    result = deps(bin_dir, "check", ["molecule"])
    assert result.returncode == 0, result.stderr
    assert missing(result) == [
        "docker.io",
        "containerd",
        "runc",
        "mount",
        "xfsprogs",
        "procps",
        "debootstrap",
    ]


def test_a_docker_engine_without_a_client_gets_the_client_from_docker_io(tmp_path: Path) -> None:
    programs = {k: v for k, v in EVERYTHING.items() if k != "docker"}
    result = deps(fake_bin(tmp_path / "bin", programs), "check", ["molecule"])
    assert (result.returncode, missing(result)) == (0, ["docker.io"])


def test_a_docker_client_that_does_not_run_counts_as_missing(tmp_path: Path) -> None:
    programs = EVERYTHING | {"docker": "echo 'docker: cannot execute binary file' >&2; exit 126\n"}
    result = deps(fake_bin(tmp_path / "bin", programs), "check", ["molecule"])
    assert (result.returncode, missing(result)) == (0, ["docker.io"])


def test_everything_present_means_nothing_to_install(tmp_path: Path) -> None:
    bin_dir = fake_bin(tmp_path / "bin", EVERYTHING)
    result = deps(bin_dir, "check", ["install", "system", "molecule", "terraform"])
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_another_molecule_image_needs_no_debootstrap(tmp_path: Path) -> None:
    programs = {k: v for k, v in EVERYTHING.items() if k != "debootstrap"}
    bin_dir = fake_bin(tmp_path / "bin", programs)
    assert missing(deps(bin_dir, "check", ["molecule"])) == ["debootstrap"]
    other = deps(bin_dir, "check", ["molecule"], TPGEN_MOLECULE_IMAGE="debian:bookworm")
    assert (other.returncode, other.stdout) == (0, "")


def test_a_bare_machine_needs_python_venv_and_nginx_for_install(tmp_path: Path) -> None:
    result = deps(fake_bin(tmp_path / "bin", {}), "check", ["install"])
    assert (result.returncode, missing(result)) == (0, ["python3", "python3-venv", "nginx-core"])


def test_a_python_without_ensurepip_needs_python3_venv(tmp_path: Path) -> None:
    no_ensurepip = (
        'case "$2" in *ensurepip*) echo "No module named ensurepip" >&2; exit 1;; esac\n' + PYTHON
    )
    programs = EVERYTHING | {"python3": no_ensurepip}
    result = deps(fake_bin(tmp_path / "bin", programs), "check", ["install"])
    assert (result.returncode, missing(result)) == (0, ["python3-venv"])


def test_system_phase_names_each_missing_tool_s_package_once(tmp_path: Path) -> None:
    programs = {
        k: v
        for k, v in EVERYTHING.items()
        if k not in {"wrk", "losetup", "lsblk", "mkfs.xfs", "ss", "curl"}
    }
    result = deps(fake_bin(tmp_path / "bin", programs), "check", ["system"])
    assert (result.returncode, missing(result)) == (
        0,
        ["wrk", "mount", "util-linux", "xfsprogs", "iproute2", "curl"],
    )


def test_promtool_comes_from_debian_s_prometheus_package(tmp_path: Path) -> None:
    programs = {k: v for k, v in EVERYTHING.items() if k != "promtool"}
    result = deps(fake_bin(tmp_path / "bin", programs), "check", ["system"])
    assert (result.returncode, missing(result)) == (0, ["prometheus"])


@pytest.mark.parametrize("owner", ["nginx", "nginx-light"])
def test_a_packaged_nginx_without_threads_gets_its_package_reinstalled(
    tmp_path: Path, owner: str
) -> None:
    """A replaced or diverted /usr/sbin/nginx: reinstalling its owner puts the build back."""
    bin_dir = fake_bin(tmp_path / "bin", EVERYTHING | {"nginx": PLAIN_NGINX})
    fake_bin(bin_dir, {"dpkg-query": f'echo "{owner}: {bin_dir}/nginx"\n'})
    result = deps(bin_dir, "check", ["install"])
    assert (result.returncode, missing(result)) == (0, [owner])


def test_a_foreign_nginx_without_threads_is_reported_with_the_fix(tmp_path: Path) -> None:
    bin_dir = fake_bin(tmp_path / "bin", EVERYTHING | {"nginx": PLAIN_NGINX})
    not_owned = 'echo "dpkg-query: no path found matching pattern $2" >&2\nexit 1\n'
    fake_bin(bin_dir, {"dpkg-query": not_owned})
    result = deps(bin_dir, "check", ["install"])
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"deps.sh: {bin_dir}/nginx is built without --with-threads (tpgen refuses it): remove it "
        "from PATH or set TPGEN_NGINX to an nginx built with it, e.g. Debian's nginx-core "
        "(/usr/sbin/nginx)\n"
    )


def test_tpgen_nginx_is_the_nginx_that_is_checked(tmp_path: Path) -> None:
    bin_dir = fake_bin(tmp_path / "bin", EVERYTHING)
    plain = fake_bin(tmp_path / "custom", {"nginx": PLAIN_NGINX}) / "nginx"
    result = deps(bin_dir, "check", ["install"], TPGEN_NGINX=str(plain))
    assert result.returncode == 1
    assert f"deps.sh: {plain} is built without --with-threads" in result.stderr


@pytest.mark.parametrize(
    ("programs", "message"),
    [
        (
            {},
            "deps.sh: terraform is not installed: the terraform phase needs >= 1.9 on PATH "
            "(https://developer.hashicorp.com/terraform/install), or TERRAFORM=/path\n",
        ),
        (
            {"terraform": 'echo \'{"terraform_version": "1.5.7"}\'\n'},
            "deps.sh: {bin}/terraform is terraform 1.5: the modules need >= 1.9\n",
        ),
    ],
)
def test_terraform_is_reported_not_installed(
    tmp_path: Path, programs: dict[str, str], message: str
) -> None:
    bin_dir = fake_bin(tmp_path / "bin", programs)
    result = deps(bin_dir, "check", ["terraform"])
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == message.format(bin=bin_dir)


def test_unknown_phase_is_a_usage_error(tmp_path: Path) -> None:
    result = deps(fake_bin(tmp_path / "bin", {}), "check", ["dockr"])
    assert result.returncode == 2
    assert "deps.sh: unknown phase 'dockr' (install, system, molecule, terraform)" in result.stderr


FAKE_APT = """#!{python}
# Records each call; "installs" a package by dropping working fakes of its programs into PATH.
import json, pathlib, sys
bin_dir = pathlib.Path(sys.argv[0]).parent
with open(bin_dir.parent / "apt-calls.jsonl", "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
provides = {provides}
for package in sys.argv[1:]:
    for program in provides.get(package, []):
        fake = bin_dir / program
        fake.write_text("#!/bin/sh\\n")
        fake.chmod(0o755)
"""


def test_install_mode_installs_the_engine_and_checks_again(tmp_path: Path) -> None:
    require_root("deps.sh installs only as root")
    provides = {
        "docker.io": ["dockerd"],
        "containerd": ["containerd"],
        "runc": ["runc"],
        "mount": ["losetup"],
        "xfsprogs": ["mkfs.xfs"],
        "procps": ["pgrep"],
        "debootstrap": ["debootstrap"],
    }
    bin_dir = with_coreutils(fake_bin(tmp_path / "bin", {"docker": CLIENT}))
    apt = bin_dir / "apt-get"
    apt.write_text(FAKE_APT.format(python=sys.executable, provides=provides), encoding="utf-8")
    apt.chmod(0o755)
    policy = tmp_path / "policy-rc.d"
    policy.write_text("#!/bin/sh\nexit 101\n", encoding="utf-8")

    result = deps(bin_dir, "install", ["molecule"], TPGEN_POLICY_RC_D=str(policy))

    assert result.returncode == 0, result.stderr
    wanted = list(provides)
    assert result.stdout == f"deps.sh: installing {' '.join(wanted)}\n"
    calls = [json.loads(line) for line in (tmp_path / "apt-calls.jsonl").read_text().splitlines()]
    assert calls == [
        ["update", "-qq"],
        ["install", "-y", "-qq", "--no-install-recommends", "--reinstall", *wanted],
    ]
    assert (bin_dir / "dockerd").exists()


def test_a_killed_install_removes_the_policy_it_wrote(tmp_path: Path) -> None:
    """SIGTERM while apt runs: the policy-rc.d deps.sh wrote goes, or no service could start."""
    require_root("deps.sh installs only as root")
    bin_dir = with_coreutils(fake_bin(tmp_path / "bin", {"docker": CLIENT}))
    apt = bin_dir / "apt-get"
    apt.write_text(
        f"#!{sys.executable}\nimport os, signal, time\n"
        "os.kill(os.getppid(), signal.SIGTERM)\ntime.sleep(0.2)\nraise SystemExit(1)\n",
        encoding="utf-8",
    )
    apt.chmod(0o755)
    policy = tmp_path / "policy-rc.d"  # absent: deps.sh writes its own
    result = deps(bin_dir, "install", ["molecule"], TPGEN_POLICY_RC_D=str(policy))
    assert result.returncode == 143
    assert not policy.exists()


def test_install_mode_fails_when_the_program_is_still_missing_afterwards(tmp_path: Path) -> None:
    """A package that installs but leaves the program unreachable (shadowed, diverted) fails."""
    require_root("deps.sh installs only as root")
    programs = {k: v for k, v in EVERYTHING.items() if k != "dockerd"}
    bin_dir = with_coreutils(fake_bin(tmp_path / "bin", programs))
    apt = bin_dir / "apt-get"
    apt.write_text(FAKE_APT.format(python=sys.executable, provides={}), encoding="utf-8")
    apt.chmod(0o755)
    policy = tmp_path / "policy-rc.d"
    policy.write_text("", encoding="utf-8")
    result = deps(bin_dir, "install", ["molecule"], TPGEN_POLICY_RC_D=str(policy))
    assert result.returncode == 1
    assert result.stderr == (
        "deps.sh: still missing after installing docker.io: docker.io (is a program shadowed on "
        "PATH?)\n"
    )


def run_test_sh(tmp_path: Path, pytest_exit: int) -> subprocess.CompletedProcess[str]:
    """scripts/test.sh's pytest phase with a stand-in pytest that exits `pytest_exit`."""
    venv_bin = fake_bin(tmp_path / "venv-bin", {"pytest": f"exit {pytest_exit}\n"})
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "TPGEN_SKIP_MOLECULE"}}
    env["TPGEN_VENV_BIN"] = str(venv_bin)
    return subprocess.run(
        [BASH, str(TEST_SH), "pytest"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_test_sh_fails_when_pytest_collects_nothing(tmp_path: Path) -> None:
    result = run_test_sh(tmp_path, 5)
    assert result.returncode == 5
    assert "test.sh: pytest collected no tests" in result.stderr
    assert "=== FAILED (exit 5)" in result.stdout


@pytest.mark.parametrize("code", [1, 2])
def test_test_sh_fails_when_pytest_fails(tmp_path: Path, code: int) -> None:
    result = run_test_sh(tmp_path, code)
    assert result.returncode == code
    assert f"=== FAILED (exit {code})" in result.stdout


def test_test_sh_passes_when_the_phase_passes(tmp_path: Path) -> None:
    result = run_test_sh(tmp_path, 0)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "FAILED" not in result.stdout
    assert "=== phase times\n  pytest" in result.stdout


def test_test_sh_refuses_an_unknown_phase(tmp_path: Path) -> None:
    result = subprocess.run(
        [BASH, str(TEST_SH), "unit"], capture_output=True, text=True, check=False, timeout=60
    )
    assert result.returncode == 2
    assert "test.sh: unknown phase 'unit' (phases: system-deps python-deps lint pytest" in (
        result.stderr
    )


def test_ci_run_is_exactly_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    commands = [line.strip() for line in section.splitlines() if line.startswith("    ")]
    assert commands[-1] == "./scripts/test.sh"
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci_run[-1] == f"exec {commands[-1]}"
    assert "set -euo pipefail" in ci_run


def molecule_checkout(tmp_path: Path) -> Path:
    """A copy of the checkout with scripts/ci/molecule.sh and what it calls faked: no packages
    to install, no base image to build."""
    repo = tmp_path / "repo"
    (repo / "scripts" / "ci").mkdir(parents=True)
    for script in ("molecule.sh", "failure-digest.sh"):
        shutil.copy(ROOT / "scripts" / "ci" / script, repo / "scripts" / "ci")
    fake_bin(repo / "scripts" / "ci", {"deps.sh": ""})
    (repo / "molecule").mkdir()
    fake_bin(repo / "molecule" / "common", {"build-base-image.sh": ""})
    return repo


def run_molecule_sh(
    tmp_path: Path, programs: dict[str, str], *argv: str, **env: str
) -> subprocess.CompletedProcess[str]:
    """`argv` (a command ending in molecule.sh's arguments; "@" stands for molecule.sh) with PATH
    = the fake `programs`, molecule, ansible-playbook and pytest among them."""
    script = str(molecule_checkout(tmp_path) / "scripts" / "ci" / "molecule.sh")
    bin_dir = fake_bin(
        tmp_path / "bin", {"molecule": "", "ansible-playbook": "", "pytest": "", **programs}
    )
    return subprocess.run(
        [script if arg == "@" else arg for arg in argv],
        env={
            "PATH": f"{bin_dir}:/usr/bin:/bin",
            "TPGEN_VENV_BIN": str(bin_dir),
            "HOME": str(tmp_path),
            "TMPDIR": str(tmp_path),
            **env,
        },
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_molecule_sh_starts_dockerd_without_the_callers_lock(tmp_path: Path) -> None:
    """Under `flock /tmp/tpgen-molecule.lock scripts/ci/molecule.sh`, the dockerd it starts must
    not inherit the lock's descriptor: it would hold the lock for as long as it runs, and every
    later `flock` (the next scenario, another checkout's run) would wait forever."""
    flock = shutil.which("flock")
    if flock is None:
        unavailable("flock (util-linux) is not installed")
    up = tmp_path / "dockerd-up"
    fds = tmp_path / "dockerd-fds"
    lock = tmp_path / "molecule.lock"
    result = run_molecule_sh(
        tmp_path,
        {
            "docker": f'[ "$1" != info ] || [ -e {up} ]\n',
            "dockerd": f"ls -l /proc/$$/fd > {fds}\ntouch {up}\n",
            "pgrep": "exit 1\n",
        },
        *(flock, str(lock), BASH, "@", "none"),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "molecule.sh: starting dockerd" in result.stdout
    assert str(lock) not in fds.read_text(encoding="utf-8")


def molecule_sh_with(
    tmp_path: Path, molecule: str, *scenarios: str, **env: str
) -> subprocess.CompletedProcess[str]:
    """scripts/ci/molecule.sh with docker up and this `molecule`."""
    return run_molecule_sh(
        tmp_path, {"docker": "", "molecule": molecule}, BASH, "@", *scenarios, **env
    )


# A molecule whose scenario `flaky` fails on its first run only, and `broken` on every run; each
# failure as Ansible prints it, after a task that was allowed to fail.
FAKE_MOLECULE = f"""
scenario=$3
echo 'TASK [Probe the port] ***'
echo 'fatal: [node]: FAILED! => {{"msg": "allowed to fail"}}'
echo '...ignoring'
echo 'TASK [Check the recovery goal] ***'
case $scenario in
  flaky) [ -e "$HOME/ran-once" ] && exit 0; touch "$HOME/ran-once" ;;
  broken) ;;
  *) exit 0 ;;
esac
echo 'fatal: [localhost]: FAILED! => {{"msg": "recovery_s {"9" * 600}"}}'
exit 2
"""


def test_molecule_sh_reruns_a_failed_scenario_once_and_shows_its_first_failure_last(
    tmp_path: Path,
) -> None:
    result = molecule_sh_with(tmp_path, FAKE_MOLECULE, "disks", "flaky")
    assert result.returncode == 0, result.stdout + result.stderr
    table, digest = result.stdout.split("molecule.sh: per-scenario wall times", 1)[1].split(
        "molecule.sh: what failed", 1
    )
    assert re.search(r"disks +ok +\d+s", table)
    assert re.search(r"flaky +ok-rerun +\d+s", table)
    assert "--- flaky, run 1 failed" in digest
    assert "TASK [Check the recovery goal]" in digest
    assert "recovery_s 999" in digest
    assert "allowed to fail" not in digest
    # folded: CI's excerpt keeps lines short
    assert max(len(line) for line in digest.splitlines()) < 560


def test_molecule_sh_fails_when_the_rerun_fails_too(tmp_path: Path) -> None:
    result = molecule_sh_with(tmp_path, FAKE_MOLECULE, "broken", "disks")
    assert result.returncode == 1, result.stdout + result.stderr
    tail = result.stdout.rsplit("molecule.sh: per-scenario wall times", 1)[1]
    assert re.search(r"broken +FAILED +\d+s", tail)
    assert re.search(r"disks +ok +\d+s", tail)
    assert "--- broken, run 1 failed" in tail
    assert "--- broken, run 2 failed" in tail
    assert tail.rstrip().endswith("[...]")


def test_molecule_sh_runs_a_failed_scenario_once_when_told_no_retries(tmp_path: Path) -> None:
    result = molecule_sh_with(tmp_path, FAKE_MOLECULE, "flaky", TPGEN_MOLECULE_RETRIES="0")
    assert result.returncode == 1
    assert "--- flaky, run 2" not in result.stdout
