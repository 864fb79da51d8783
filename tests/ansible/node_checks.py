"""Helpers of the Molecule testinfra tests (default, rollback, disks, official).

The scenarios' conftest.py files load this module by path; it needs only the repository
(plugins/filter) and the tpgen package of the Python that runs Molecule.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[2]

# Runs on the node: GET each URL twice through nginx, then look for each key's cache file
# on every disk. Prints one JSON document.
FETCH = r"""
import glob, hashlib, json, sys, urllib.error, urllib.request
job = json.loads(sys.argv[1])
out = []
for item in job["items"]:
    rounds = []
    for _ in range(2):
        req = urllib.request.Request(item["url"], headers={"Host": job["host"]})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                body, status, headers = resp.read(), resp.status, resp.headers
        except urllib.error.HTTPError as err:
            body, status, headers = err.read(), err.code, err.headers
        rounds.append({
            "status": status,
            "cache": headers.get("X-Cache-Status"),
            "disk": headers.get("X-Cache-Disk"),
            "sha256": hashlib.sha256(body).hexdigest(),
        })
    files = []
    for pattern in item["cache_globs"]:
        for path in glob.glob(pattern):
            with open(path, "rb") as handle:
                head = handle.read(4096)
            key = [l[5:].decode() for l in head.split(b"\n") if l.startswith(b"KEY: ")]
            files.append({"path": path, "key": key[0] if key else None})
    origin = item.get("origin")
    origin_sha = hashlib.sha256(open(origin, "rb").read()).hexdigest() if origin else None
    out.append({"url": item["url"], "rounds": rounds, "files": files, "origin_sha256": origin_sha})
print(json.dumps(out))
"""


def load_filters() -> ModuleType:
    """The repository's filter plugin (tpgen_node_spec, ...), loaded from its file."""
    path = REPO / "plugins" / "filter" / "tpgen_filters.py"
    spec = importlib.util.spec_from_file_location("tpgen_filters_molecule", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def node_spec(host: Any) -> dict[str, Any]:
    """The host's spec completed from its facts exactly as nginx_tpconfig does."""
    variables = host.ansible.get_variables()
    facts = host.ansible("setup", "gather_subset=!all,hardware", check=False)["ansible_facts"]
    spec: dict[str, Any] = load_filters().tpgen_node_spec(
        variables["tpgen_spec"],
        name=variables["inventory_hostname"],
        cores=facts["ansible_processor_vcpus"],
        memory_mb=facts["ansible_memtotal_mb"],
    )
    nginx_v = host.run("nginx -V")
    filled: dict[str, Any] = load_filters().tpgen_nginx_facts(
        spec, nginx_v.stderr if nginx_v.rc == 0 else ""
    )
    return filled


def cache_globs(mounts: list[str], key: str) -> list[str]:
    """Where nginx (levels=1:2) stores a key's file, on every disk: <dir>/<c>/<bb>/<md5>."""
    digest = hashlib.md5(key.encode()).hexdigest()
    return [f"{mount}/cache/{digest[-1]}/{digest[-3:-1]}/{digest}" for mount in mounts]


def fetch(host: Any, items: list[dict[str, Any]], host_header: str) -> list[dict[str, Any]]:
    """Run FETCH on the node; one result per item, in order."""
    job = json.dumps({"items": items, "host": host_header})
    result = host.run("python3 -c %s %s", FETCH, job)
    assert result.rc == 0, result.stderr
    data: list[dict[str, Any]] = json.loads(result.stdout)
    return data


# Runs on the node: the config's checksum, nginx's master pid and its live worker pids.
SNAPSHOT = r"""
import glob, hashlib, json, subprocess, sys
conf = sys.argv[1]
master = int(subprocess.run(["systemctl", "show", "--property", "MainPID", "--value", "nginx"],
                            capture_output=True, text=True).stdout.strip() or 0)
workers = []
for stat in glob.glob("/proc/[0-9]*/stat"):
    try:
        fields = open(stat).read().rsplit(") ", 1)[1].split()
        title = open(stat[:-4] + "cmdline", "rb").read().replace(b"\0", b" ").decode()
    except OSError:
        continue
    if int(fields[1]) == master and "worker process" in title and "shutting down" not in title:
        workers.append(int(stat.split("/")[2]))
print(json.dumps({
    "conf_sha256": hashlib.sha256(open(conf, "rb").read()).hexdigest(),
    "master": master,
    "workers": sorted(workers),
}))
"""


def snapshot(host: Any, conf: str = "/etc/nginx/nginx.conf") -> dict[str, Any]:
    """sha256 of the installed config, nginx's master pid and worker pids."""
    result = host.run("python3 -c %s %s", SNAPSHOT, conf)
    assert result.rc == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def run_playbook(playbook: Path, extra_vars: dict[str, object]) -> subprocess.CompletedProcess[str]:
    """Run a scenario's playbook against the Molecule inventory, as its converge step does. The
    result's stdout holds stderr too: failures go to either, depending on the callback."""
    exe = Path(sys.executable).with_name("ansible-playbook")
    cmd = [
        str(exe) if exe.exists() else (shutil.which("ansible-playbook") or "ansible-playbook"),
        "-i",
        os.environ["MOLECULE_INVENTORY_FILE"],
        str(playbook),
        "-e",
        json.dumps(extra_vars),
    ]
    env = dict(
        os.environ,
        ANSIBLE_STDOUT_CALLBACK="ansible.builtin.default",
        ANSIBLE_CALLBACK_RESULT_FORMAT="json",
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
    )
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False, env=env)
    result.stdout = result.stdout + result.stderr
    return result
