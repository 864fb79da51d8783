"""The collection tpgen.storage: its built tarball, its thin repo-root entries, and the error
its controller plugins give when the tpgen package is missing."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tarfile
from pathlib import Path
from types import ModuleType

import pytest
import tpgen
import yaml

from tests.ansible.conftest import REPO

PLAYBOOKS = {
    "site.yml": "site",
    "disk-drain.yml": "disk_drain",
    "disk-fail.yml": "disk_fail",
    "disk-replace.yml": "disk_replace",
    "doctor.yml": "doctor",
    "cache-purge.yml": "cache_purge",
}


@pytest.fixture(scope="module")
def tarball(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [str(REPO / "scripts" / "collection.sh"), "build", str(out)],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(out)},
    )
    assert proc.returncode == 0, proc.stderr
    path = Path(proc.stdout.strip().splitlines()[-1])
    assert path == out / f"tpgen-storage-{tpgen.__version__}.tar.gz"
    return path


def test_tarball_carries_the_collection_with_tpgen_s_version(tarball: Path) -> None:
    with tarfile.open(tarball) as archive:
        members = {m.name: m for m in archive.getmembers()}
        manifest = json.loads(archive.extractfile("MANIFEST.json").read())  # type: ignore[union-attr]
        requirements = archive.extractfile("requirements.txt").read().decode()  # type: ignore[union-attr]
        doctor = archive.extractfile("plugins/module_utils/tpgen/ops/doctor/prometheus.py")
        assert doctor is not None
        shipped = doctor.read()
    info = manifest["collection_info"]
    assert (info["namespace"], info["name"], info["version"]) == (
        "tpgen",
        "storage",
        tpgen.__version__,
    )
    assert f"tpgen=={tpgen.__version__}" in requirements.splitlines()
    roles = {
        name.split("/")[1] for name in members if name.startswith("roles/") and name.count("/") > 1
    }
    assert roles == {p.name for p in (REPO / "roles").iterdir() if p.is_dir()}
    assert {f"playbooks/{name}.yml" for name in PLAYBOOKS.values()} <= set(members)
    assert "meta/runtime.yml" in members
    # the module_utils mirror's symlinks are files in the tarball, and nothing of generator/
    assert not [m.name for m in members.values() if m.issym() or m.islnk()]
    assert not [
        name for name in members if name.startswith(("generator", "tests/unit", "molecule"))
    ]
    assert (
        shipped == (REPO / "generator" / "tpgen" / "ops" / "doctor" / "prometheus.py").read_bytes()
    )


@pytest.mark.parametrize(("entry", "name"), sorted(PLAYBOOKS.items()))
def test_repo_root_playbooks_are_thin_entries_into_the_collection(entry: str, name: str) -> None:
    (play,) = yaml.safe_load((REPO / entry).read_text())
    assert play["ansible.builtin.import_playbook"] == f"tpgen.storage.{name}"
    assert (REPO / "playbooks" / f"{name}.yml").is_file()


def test_the_checkout_is_the_collection() -> None:
    link = REPO / "collections" / "ansible_collections" / "tpgen" / "storage"
    assert link.is_symlink() and link.resolve() == REPO


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MISSING = (
    "The collection tpgen.storage needs it on the controller (its requirements.txt): install it "
    "into that environment (pip install -r <collection>/requirements.txt, or pip install -e "
    "<repo>) or run ansible from the repo's .venv"
)


def test_plugins_name_the_requirement_when_tpgen_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    filters = _load(REPO / "plugins" / "filter" / "tpgen_filters.py", "tpgen_filters_missing")
    action = _load(REPO / "plugins" / "action" / "tpgen_config.py", "tpgen_action_missing")
    monkeypatch.delattr(tpgen, "api", raising=False)
    monkeypatch.setitem(sys.modules, "tpgen.api", None)  # type: ignore[arg-type]
    with pytest.raises(Exception, match="not importable") as filter_error:
        filters._api()
    with pytest.raises(RuntimeError) as action_error:
        action._import_tpgen()
    python = f"the Python that runs Ansible ({sys.executable})"
    for error in (filter_error.value, action_error.value):
        assert str(error).startswith(f"the tpgen package is not importable from {python}: ")
        assert MISSING in str(error)  # Ansible's error adds its cause after the message
