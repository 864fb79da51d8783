"""Broken overrides applied with site.yml: the play fails, the good config stays live and serves.

Each test runs ansible-playbook site.yml against the converged node with an override that
breaks one stage (tpgen, nginx -t, the reload, the health check), then checks the outcome; the
last replaces the snippet with one that works, and puts the good one back.
"""

from __future__ import annotations

import copy
import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]
HOST_VARS = yaml.safe_load(
    (REPO / "inventories" / "molecule" / "host_vars" / "tpgen-rollback.yml").read_text()
)
GOOD = HOST_VARS["tpgen_spec"]
LISTEN = GOOD["listen"]
STATUS = GOOD["status"]
DEAD_ORIGIN_PORT = 28519  # nothing listens there
SQUATTED_PORT = 28514  # another process holds it during the reload test
PREVIOUS = "/etc/nginx/nginx.conf.tpgen-prev"
SNIPPET = GOOD["extra"]["server"][0]
GOOD_SNIPPET = (Path(__file__).resolve().parents[1] / "files" / "rollback-server.conf").read_text()

testinfra_hosts = ["ansible://tpgen-rollback"]


def broken(**changes: Any) -> dict[str, Any]:
    """The good spec with <section>__<key>=value changes."""
    spec: dict[str, Any] = copy.deepcopy(GOOD)
    for path, value in changes.items():
        section, key = path.split("__")
        spec[section][key] = value
    return spec


def run_site(extra_vars: dict[str, Any], *, succeeds: bool = False) -> str:
    """Run site.yml on the node with extra vars; it must fail unless `succeeds`.

    Returns its output, one line.
    """
    inventory = Path(os.environ["MOLECULE_INVENTORY_FILE"]).parent
    playbook = Path(sys.executable).parent / "ansible-playbook"
    env = {**os.environ, "ANSIBLE_NOCOLOR": "1", "ANSIBLE_FORCE_COLOR": "0"}
    proc = subprocess.run(
        [
            str(playbook),
            "-i",
            str(inventory),
            str(REPO / "site.yml"),
            "--limit",
            "tpgen-rollback",
            "-e",
            json.dumps({"nginx_tpconfig_health_retries": 3, **extra_vars}),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = proc.stdout + proc.stderr
    if succeeds:
        assert proc.returncode == 0, f"the play should have passed:\n{output}"
    else:
        assert proc.returncode != 0, f"the play should have failed:\n{output}"
    return " ".join(output.replace("\\n", " ").split())


def assert_serves(host: Any, checks: ModuleType) -> None:
    """stub_status answers and a fresh object goes through the cache: MISS, then HIT."""
    path = f"/objects/1024-00.bin?serve={secrets.token_hex(4)}"
    url = f"http://{LISTEN['address']}:{LISTEN['port']}{path}"
    status_url = f"http://{STATUS['address']}:{STATUS['port']}/nginx_status"
    (result, status) = checks.fetch(
        host,
        [{"url": url, "cache_globs": []}, {"url": status_url, "cache_globs": []}],
        "cache.test",
    )
    assert [r["status"] for r in result["rounds"]] == [200, 200]
    assert [r["cache"] for r in result["rounds"]] == ["MISS", "HIT"]
    assert status["rounds"][0]["status"] == 200


@pytest.fixture
def before(host: Any, checks: ModuleType) -> dict[str, Any]:
    """The node's state before the broken run; it must be serving the good config."""
    state: dict[str, Any] = checks.snapshot(host)
    assert state["master"] > 0 and state["workers"], state
    assert_serves(host, checks)
    return state


def test_a_spec_tpgen_rejects_stops_the_play_before_anything_changes(
    host: Any, checks: ModuleType, before: dict[str, Any]
) -> None:
    spec = broken(workload__upstreams=[])
    spec["disks"][1]["mount"] = spec["disks"][0]["mount"]
    output = run_site({"tpgen_spec": spec})
    assert "tpgen rejected the spec (nothing was changed on the node):" in output
    assert "tpgen_spec of tpgen-rollback: workload.upstreams" in output
    assert re.search(r"tpgen_spec of tpgen-rollback: disks\.1\.mount: \S", output)
    assert "Traceback" not in output
    # Only the roles' variable checks (site.yml's pre_tasks) come before the spec's check; no
    # other task of a role runs once the spec is rejected.
    tasks = re.findall(r"TASK \[tpgen\.storage\.(\w+) : ([^\]]*)\]", output)
    variable_checks = (
        "Check the role's variables",
        "Validating arguments against arg spec 'check-variables'",
    )
    ran = {name for role, name in tasks if role != "nginx_tpconfig"}
    assert all(name.startswith(variable_checks) for name in ran), ran
    assert "storage_disks :" not in output.split("tpgen rejected the spec")[-1], (
        "no role may run after a rejected spec"
    )
    assert checks.snapshot(host) == before
    assert_serves(host, checks)


def test_a_config_nginx_rejects_is_never_installed(
    host: Any, checks: ModuleType, before: dict[str, Any]
) -> None:
    spec = broken(workload__upstreams=["origin.tpgen-rollback.invalid:28511"])
    output = run_site({"tpgen_spec": spec})
    assert "host not found in upstream" in output
    assert "/etc/nginx/nginx.conf was not changed: the previous config is still live" in output
    assert checks.snapshot(host) == before, "no reload may happen: same config, master, workers"
    assert_serves(host, checks)


def test_a_failed_health_check_restores_the_previous_config(
    host: Any, checks: ModuleType, before: dict[str, Any]
) -> None:
    spec = broken(workload__upstreams=[f"127.0.0.1:{DEAD_ORIGIN_PORT}"])
    output = run_site({"tpgen_spec": spec})
    assert 'task "Request each health URL through nginx\'s listen port" failed' in output
    assert "502" in output
    assert f"The previous config was restored from {PREVIOUS}" in output
    assert "the previous config is live" in output
    after = checks.snapshot(host)
    assert after["conf_sha256"] == before["conf_sha256"]
    assert after["master"] == before["master"], "nginx must be reloaded, never restarted"
    assert set(after["workers"]).isdisjoint(before["workers"]), "the restored config was reloaded"
    assert_serves(host, checks)


def test_a_reload_nginx_refuses_restores_the_previous_config(
    host: Any, checks: ModuleType, before: dict[str, Any]
) -> None:
    squatter = host.run(
        "systemd-run --unit=tpgen-squatter --collect "
        "python3 -m http.server %s --bind 127.0.0.1 --directory /srv/origin",
        str(SQUATTED_PORT),
    )
    assert squatter.rc == 0, squatter.stderr
    try:
        wait = "timeout 10 sh -c 'until ss -ltn | grep -q :%s; do sleep 0.2; done'"
        assert host.run(wait, str(SQUATTED_PORT)).rc == 0, "the squatter did not start"
        spec = broken(listen__port=SQUATTED_PORT)
        # The health check follows the spec's listen port through the layout.
        output = run_site({"tpgen_spec": spec})
    finally:
        host.run("systemctl stop tpgen-squatter")
    assert "the reload was refused" in output
    assert f"The previous config was restored from {PREVIOUS}" in output
    after = checks.snapshot(host)
    assert after["conf_sha256"] == before["conf_sha256"]
    assert after["master"] == before["master"], "nginx must be reloaded, never restarted"
    assert_serves(host, checks)


def snippet_answer(host: Any) -> str:
    """What nginx answers at the snippet's location."""
    answer: str = host.check_output(
        "python3 -c %s %s",
        "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())",
        f"http://{LISTEN['address']}:{LISTEN['port']}/rollback-snippet",
    )
    return answer


def assert_good_snippet(host: Any) -> None:
    """The good snippet is on the node and served."""
    assert host.file(SNIPPET).content_string == GOOD_SNIPPET
    assert snippet_answer(host) == "good snippet"
    assert_no_snippet_backups(host)


def assert_no_snippet_backups(host: Any) -> None:
    """No backup (Ansible's `<name>.<pid>.<time>~`) is left beside the snippet."""
    folder = str(Path(SNIPPET).parent)
    names = host.check_output("ls -A %s", folder).split()
    assert [name for name in names if name.endswith("~")] == [], names


def test_a_snippet_tpgen_refuses_stops_the_play_before_anything_changes(
    host: Any, checks: ModuleType, before: dict[str, Any], tmp_path: Path
) -> None:
    bad = tmp_path / "rollback-server.conf"
    bad.write_text("# more threads\nthread_pool extra threads=64;\n")
    output = run_site({"nginx_tpconfig_extra_files": {SNIPPET: str(bad)}})
    assert "tpgen refused the extra snippets of tpgen-rollback" in output
    assert f"extra.server.0: {SNIPPET} (read from {bad}) line 2: thread_pool: " in output
    assert checks.snapshot(host) == before
    assert_good_snippet(host)
    assert_serves(host, checks)


def test_a_snippet_nginx_rejects_is_put_back_and_the_config_stays(
    host: Any, checks: ModuleType, before: dict[str, Any], tmp_path: Path
) -> None:
    # Whether a resolver's host name resolves only the node knows (it passes validate); the
    # node's nginx -t does not find it. nginx.conf does not change (the spec is the same): the
    # handler's nginx -t fails, and the rollback puts the snippet back.
    bad = tmp_path / "rollback-server.conf"
    bad.write_text("resolver nosuch.invalid;\n")
    output = run_site({"nginx_tpconfig_extra_files": {SNIPPET: str(bad)}})
    assert 'task "Test the nginx configuration" failed' in output
    assert f'host not found in resolver "nosuch.invalid" in {SNIPPET}:1' in output
    assert f"The extra snippets it replaced were put back: {SNIPPET}." in output
    assert "/etc/nginx/nginx.conf was not changed: the previous config is still live" in output
    after = checks.snapshot(host)
    assert after["conf_sha256"] == before["conf_sha256"]
    assert after["master"] == before["master"], "nginx must be reloaded, never restarted"
    assert_good_snippet(host)
    assert_serves(host, checks)


def test_a_snippet_that_serves_replaces_the_old_one_without_a_backup(
    host: Any, checks: ModuleType, before: dict[str, Any], tmp_path: Path
) -> None:
    other = tmp_path / "rollback-server.conf"
    other.write_text('location = /rollback-snippet {\n    return 200 "other snippet\\n";\n}\n')
    try:
        run_site({"nginx_tpconfig_extra_files": {SNIPPET: str(other)}}, succeeds=True)
        assert snippet_answer(host) == "other snippet"
        assert_no_snippet_backups(host)
    finally:
        run_site({}, succeeds=True)
    assert_good_snippet(host)
    assert_serves(host, checks)
