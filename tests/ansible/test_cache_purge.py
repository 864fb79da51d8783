"""cache-purge.yml against localhost: the keys' files go, other keys' stay, --check keeps all.

The files sit where `tpgen locate --offset` says (tests/test_live_cache_ops.py holds that
against a real nginx); here the playbook, the filter tpgen_cache_targets and the module
tpgen_purge (standard library only, as on a node) find and remove them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tpgen.api import cache_target, make_plan, spec_from_mapping
from tpgen.ops.purge import entry_file

from tests.ansible.conftest import REPO, ansible_tool, run_ansible

MIB = 1 << 20


def _spec(root: Path) -> dict[str, Any]:
    return {
        "node": {"name": "purge-test", "cores": 2, "memory": "4GiB"},
        "workload": {"type": "cache", "upstreams": ["127.0.0.1:28599"], "slice": "1MiB"},
        "disks": [
            {"name": f"d{i}", "device": f"/dev/sd{c}", "mount": str(root / f"d{i}"),
             "size": "1GiB", "media": "ssd"}
            for i, c in ((1, "x"), (2, "y"))
        ],
    }  # fmt: skip


def _cache(spec: dict[str, Any], key: str, length: int) -> list[Path]:
    """Files as nginx leaves a sliced object: the first slice keeps the Content-Range."""
    target = cache_target(make_plan(spec_from_mapping(spec, "t.yaml"), "t.yaml"), key).to_dict()
    paths = []
    for offset in range(0, length, MIB):
        _, path = entry_file(target, offset)
        file = Path(path)
        file.parent.mkdir(parents=True, exist_ok=True)
        last = min(offset + MIB, length) - 1
        file.write_bytes(
            b"\x05\x00binary header\nKEY: " + key.encode() + b"\r\n"
            b"HTTP/1.1 206 Partial Content\r\n"
            + f"Content-Range: bytes {offset}-{last}/{length}\r\n\r\n".encode()
        )
        paths.append(file)
    return paths


def _purge(tmp_path: Path, spec: dict[str, Any], keys: str, check: bool) -> str:
    variables = tmp_path / "vars.json"
    variables.write_text(json.dumps({"tpgen_spec": spec, "keys": keys}))
    inventory = tmp_path / "hosts.ini"
    inventory.write_text("[storage_nodes]\nlocalhost ansible_connection=local\n")
    args = [
        ansible_tool("ansible-playbook"),
        "-i", str(inventory),
        "-e", f"ansible_python_interpreter={sys.executable}",
        "-e", f"@{variables}",
        str(REPO / "cache-purge.yml"),
    ]  # fmt: skip
    if check:
        args.append("--check")
    proc = run_ansible(args)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_the_playbook_removes_every_slice_of_the_named_keys_only(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    gone = _cache(spec, "http127.0.0.1/a.mp4", 3 * MIB + 7)
    kept = _cache(spec, "http127.0.0.1/b.mp4", 2 * MIB)
    assert len(gone) == 4
    out = _purge(tmp_path, spec, "http127.0.0.1/a.mp4", check=True)
    assert "http127.0.0.1/a.mp4: 4 file(s)" in out
    assert all(p.exists() for p in gone + kept)
    out = _purge(tmp_path, spec, "http127.0.0.1/a.mp4,http127.0.0.1/nothing", check=False)
    assert "http127.0.0.1/a.mp4: 4, http127.0.0.1/nothing: 0 file(s)" in out
    assert not any(p.exists() for p in gone)
    assert all(p.exists() for p in kept)
