"""The systemd units the roles write keep a hostile but valid value (a path with a space, quotes,
%, $, ;, non-ASCII) one argument: systemd-analyze verify accepts the units here, and (marked
containers) systemd in a container runs them with exactly the arguments the role meant."""

from __future__ import annotations

import json
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ansible.role_templates import render
from tests.conftest import unavailable

# A venv's path may hold no quote, backslash, $ or ` (its programs would not start), the others may.
ODD = 'tp gen/ca\'che "x" ;%n $ 1$ ü'
ODD_VENV = "tp gen/;%n ü"
IMAGE = "tpgen-molecule-base:bookworm"
METRICS_UNITS = ["tpgen-metrics.service", "tpgen-metrics.path", "tpgen-metrics.timer"]


def guard_unit(base: str, out: Path) -> str:
    return render(
        "nginx_tpconfig",
        ["tpgen-guard.service"],
        {
            "inventory_hostname": "edge-%n-1",
            "nginx_tpconfig_guard_venv": f"{base}/{ODD_VENV}",
            "nginx_tpconfig_conf_path": f"{base}/{ODD}/nginx.conf",
            "__nginx_tpconfig_nginx": f"{base}/{ODD}/nginx",
            "nginx_tpconfig_guard_spec_path": f"{base}/{ODD}/spec.yaml",
            "nginx_tpconfig_guard_state_path": f"{base}/{ODD}/state/guard-state.json",
            "nginx_tpconfig_layout": {"error_log": "/var/log/nginx/error.log"},
        },
        out,
    )["tpgen-guard.service"]


def metrics_units(base: str, out: Path) -> dict[str, str]:
    return render(
        "tpgen_metrics",
        METRICS_UNITS,
        {
            "tpgen_metrics_layout_path": f"{base}/{ODD}/layout.json",
            "tpgen_metrics_lib_dir": f"{base}/{ODD}",
            "tpgen_metrics_nginx_binary": f"{base}/{ODD}/nginx",
            "tpgen_metrics_interval": "1h 30min",
        },
        out,
    )


def test_the_guard_unit_quotes_each_value_and_escapes_specifiers_and_dollars(
    tmp_path: Path,
) -> None:
    unit = guard_unit("/srv", tmp_path)
    assert unit.splitlines()[11:21] == [
        'ExecStart="/srv/tp gen/;%%n ü/bin/tpgen" guard \\',
        '  "--source=tpgen_spec of edge-%%n-1" \\',
        '  "--config=/srv/tp gen/ca\'che \\"x\\" ;%%n $$ 1$$ ü/nginx.conf" \\',
        '  "--nginx=/srv/tp gen/ca\'che \\"x\\" ;%%n $$ 1$$ ü/nginx" \\',
        '  "--reload=systemctl reload nginx" \\',
        '  "--state=/srv/tp gen/ca\'che \\"x\\" ;%%n $$ 1$$ ü/state/guard-state.json" \\',
        '  "--events=/var/lib/tpgen/events.jsonl" \\',
        '  "--interval=1" \\',
        '  -- "/srv/tp gen/ca\'che \\"x\\" ;%%n $$ 1$$ ü/spec.yaml"',
        "Restart=always",
    ]
    assert (
        'ReadWritePaths="/srv/tp gen/ca\'che \\"x\\" ;%%n $ 1$ ü" '
        '"/srv/tp gen/ca\'che \\"x\\" ;%%n $ 1$ ü/state" "/var/lib/tpgen" "/var/log/nginx"\n'
    ) in unit
    assert "Description=tpgen guard: fail a dying disk of edge-%%n-1\n" in unit


def test_the_metrics_units_quote_each_value_and_escape_specifiers_and_dollars(
    tmp_path: Path,
) -> None:
    units = metrics_units("/srv", tmp_path)
    service = units["tpgen-metrics.service"]
    assert 'ConditionPathExists=/srv/tp gen/ca\'che "x" ;%%n $ 1$ ü/layout.json\n' in service
    assert (
        'Environment="PYTHONPATH=/srv/tp gen/ca\'che \\"x\\" ;%%n $ 1$ ü" '
        "PYTHONDONTWRITEBYTECODE=1\n"
    ) in service
    assert '    "--layout=/srv/tp gen/ca\'che \\"x\\" ;%%n $$ 1$$ ü/layout.json" \\\n' in service
    assert '    "--nginx=/srv/tp gen/ca\'che \\"x\\" ;%%n $$ 1$$ ü/nginx"\n' in service
    assert (
        'PathChanged=/srv/tp gen/ca\'che "x" ;%%n $ 1$ ü/layout.json\n'
        in units["tpgen-metrics.path"]
    )
    assert "OnUnitActiveSec=1h 30min\n" in units["tpgen-metrics.timer"]


def test_systemd_analyze_verify_accepts_the_units_with_hostile_paths(tmp_path: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        unavailable("systemd-analyze is not installed (apt-get install systemd)")
    base = str(tmp_path / "root")
    program = Path(base, ODD_VENV, "bin", "tpgen")
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    out = tmp_path / "units"
    out.mkdir()
    guard_unit(base, out)
    metrics_units(base, out)
    units = [str(out / name) for name in ["tpgen-guard.service", *METRICS_UNITS]]
    proc = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", *units],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (proc.returncode, proc.stderr) == (0, "")


# Writes the arguments and PYTHONPATH it was started with where the test reads them.
RECORDER = """import json, os, sys, time
open("/var/lib/tpgen/{name}.json", "w").write(json.dumps(
    {{"argv": sys.argv[1:], "pythonpath": os.environ.get("PYTHONPATH")}}, ensure_ascii=False))
time.sleep({sleep})
"""


@pytest.fixture
def systemd_container() -> Iterator[str]:
    if (
        shutil.which("docker") is None
        or subprocess.run(
            ["docker", "image", "inspect", IMAGE], capture_output=True, check=False
        ).returncode
    ):
        unavailable(f"no docker engine with {IMAGE}: molecule/common/build-base-image.sh builds it")
    name = f"tpgen-test-units-{uuid.uuid4().hex[:8]}"
    subprocess.run(
        ["docker", "run", "-d", "--name", name, "--network", "none", "--cap-add", "SYS_ADMIN",
         "--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined",
         "--tmpfs", "/run", "--tmpfs", "/run/lock", "--cgroupns=host",
         "-v", "/sys/fs/cgroup:/sys/fs/cgroup:rw", "-e", "container=docker", IMAGE,
         "/lib/systemd/systemd"],
        check=True, capture_output=True,
    )  # fmt: skip
    try:
        subprocess.run(
            ["docker", "exec", name, "systemctl", "is-system-running", "--wait"],
            capture_output=True, check=False, timeout=120,
        )  # fmt: skip
        yield name
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, check=False)


def _in_container(name: str, *argv: str) -> str:
    return subprocess.run(
        ["docker", "exec", name, *argv], capture_output=True, text=True, check=True
    ).stdout


@pytest.mark.containers
def test_systemd_runs_the_units_with_each_hostile_path_as_one_argument(
    systemd_container: str, tmp_path: Path
) -> None:
    guard = guard_unit("/srv", tmp_path)
    units = {"tpgen-guard.service": guard, **metrics_units("/srv", tmp_path)}
    odd = f"/srv/{ODD}"
    files = {
        f"/srv/{ODD_VENV}/bin/tpgen": "#!/usr/bin/python3\n"
        + RECORDER.format(name="guard", sleep=60),
        f"{odd}/tpgen/ops/doctor/prometheus.py": RECORDER.format(name="metrics", sleep=0),
        f"{odd}/layout.json": "{}",
        **{f"/etc/systemd/system/{unit}": text for unit, text in units.items()},
    }
    for sub in ("tpgen", "tpgen/ops", "tpgen/ops/doctor"):
        files[f"{odd}/{sub}/__init__.py"] = ""
    for path, text in files.items():
        (tmp_path / "file").write_text(text)
        _in_container(systemd_container, "mkdir", "-p", str(Path(path).parent))
        subprocess.run(
            ["docker", "cp", str(tmp_path / "file"), f"{systemd_container}:{path}"], check=True
        )
    _in_container(systemd_container, "chmod", "755", f"/srv/{ODD_VENV}/bin/tpgen")
    _in_container(
        systemd_container, "mkdir", "-p", f"{odd}/state", "/var/lib/tpgen", "/var/log/nginx"
    )
    _in_container(systemd_container, "systemctl", "daemon-reload")
    _in_container(
        systemd_container, "systemctl", "start", "tpgen-metrics.service", "tpgen-guard.service"
    )
    _in_container(
        systemd_container,
        "sh",
        "-c",
        "for i in $(seq 50); do [ -s /var/lib/tpgen/guard.json ] && exit; sleep 0.2; done",
    )
    guard_run = json.loads(_in_container(systemd_container, "cat", "/var/lib/tpgen/guard.json"))
    metrics_run = json.loads(_in_container(systemd_container, "cat", "/var/lib/tpgen/metrics.json"))
    assert guard_run["argv"] == [
        "guard", "--source=tpgen_spec of edge-%n-1", f"--config={odd}/nginx.conf",
        f"--nginx={odd}/nginx", "--reload=systemctl reload nginx",
        f"--state={odd}/state/guard-state.json", "--events=/var/lib/tpgen/events.jsonl",
        "--interval=1", "--", f"{odd}/spec.yaml",
    ]  # fmt: skip
    assert metrics_run == {
        "argv": [
            f"--layout={odd}/layout.json",
            "--prometheus=/var/lib/prometheus/node-exporter/tpgen.prom",
            "--since=10m", "--config=/etc/nginx/nginx.conf",
            "--guard-state=/var/lib/tpgen/guard-state.json", f"--nginx={odd}/nginx",
        ],
        "pythonpath": odd,
    }  # fmt: skip
    paths = _in_container(
        systemd_container, "systemctl", "show", "-p", "Paths", "tpgen-metrics.path"
    )
    assert paths == f"Paths={odd}/layout.json (PathChanged)\n"
