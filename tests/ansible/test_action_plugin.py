"""The tpgen_config action plugin, run by ansible-playbook against localhost."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from ansible.utils.hashing import checksum_s
from tpgen.api import make_plan, node_layout, render_config, spec_from_mapping, tls_file_facts
from tpgen.spec.certs import write_throwaway_pair

from tests.ansible.conftest import ansible_tool, run_ansible

REJECT = "/bin/sh -c 'echo \"nginx: [emerg] rejected by the test in $0\" >&2; exit 1' %s"


def make_spec(root: Path, port: int = 28598) -> dict[str, Any]:
    return {
        "node": {"name": "unit-test", "cores": 2, "memory": "4GiB"},
        "workload": {"type": "cache", "upstreams": ["127.0.0.1:28599"]},
        "listen": {"address": "127.0.0.1", "port": port},
        "status": {"address": "127.0.0.1", "port": 28597},
        "disks": [
            {
                "name": "d1",
                "device": "/dev/sdx",
                "mount": str(root / "d1"),
                "size": "1GiB",
                "media": "hdd",
            },
            {
                "name": "d2",
                "device": "/dev/sdy",
                "mount": str(root / "d2"),
                "size": "1GiB",
                "media": "hdd",
            },
        ],
    }


def expected_text(spec: dict[str, Any]) -> str:
    source = "tpgen_spec of localhost"
    return render_config(make_plan(spec_from_mapping(spec, source), source), source)


def apply(
    tmp_path: Path,
    spec: dict[str, Any],
    *,
    validate: str = "/bin/grep -q thread_pool %s",
    check: bool = False,
    render_only: bool = False,
    tls_files: dict[str, str] | None = None,
    env: dict[str, str] | None = None,
) -> tuple[dict[str, Any], str]:
    """Run tpgen_config once; return its registered result and the playbook output."""
    out = tmp_path / "result.json"
    out.unlink(missing_ok=True)
    playbook = tmp_path / "play.yml"
    playbook.write_text(
        yaml.safe_dump(
            [
                {
                    "name": "Run tpgen_config",
                    "hosts": "localhost",
                    "gather_facts": False,
                    "tasks": [
                        {
                            "name": "Install the config",
                            "tpgen.storage.tpgen_config": {
                                "spec": spec,
                                "dest": str(tmp_path / "etc" / "nginx.conf"),
                                "previous": str(tmp_path / "etc" / "nginx.conf.tpgen-prev"),
                                "validate": validate,
                                "render_only": render_only,
                                "tls_files": tls_files or {},
                            },
                            "register": "result",
                            "ignore_errors": True,
                        },
                        {
                            "name": "Save the result",
                            "ansible.builtin.copy": {
                                "content": "{{ result | to_json }}",
                                "dest": str(out),
                                "mode": "0600",
                            },
                            "check_mode": False,
                        },
                    ],
                }
            ]
        )
    )
    args = [
        ansible_tool("ansible-playbook"),
        "-i",
        "localhost,",
        "-c",
        "local",
        "-e",
        f"ansible_python_interpreter={sys.executable}",
        str(playbook),
    ]
    if check:
        args.append("--check")
    proc = run_ansible(args, **(env or {}))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(out.read_text()), proc.stdout + proc.stderr


@pytest.fixture
def etc(tmp_path: Path) -> Path:
    path = tmp_path / "etc"
    path.mkdir()
    return path


def test_installs_the_rendered_config_and_reports_the_plan(tmp_path: Path, etc: Path) -> None:
    spec = make_spec(tmp_path)
    result, _ = apply(tmp_path, spec)
    assert result["changed"] is True
    assert not result.get("failed")
    assert (etc / "nginx.conf").read_text() == expected_text(spec)
    assert result["previous"] is None, "there was no config to keep"
    assert not (etc / "nginx.conf.tpgen-prev").exists()
    layout = result["tpgen_layout"]
    text = expected_text(spec)
    assert layout == node_layout(make_plan(spec_from_mapping(spec)), text).to_dict()
    assert [disk["name"] for disk in layout["disks"]] == ["d1", "d2"]
    assert layout["listen_urls"] == ["http://127.0.0.1:28598/"]
    assert layout["status_url"] == "http://127.0.0.1:28597/nginx_status"
    # One checksum: the layout's is what Ansible computes for the installed file.
    assert result["tpgen_checksum"] == layout["config_sha1"] == checksum_s(text)
    assert result["tpgen_source"] == "tpgen_spec of localhost"
    assert not {"tpgen_disks", "tpgen_listen", "tpgen_status"} & set(result), sorted(result)


def test_the_layout_follows_the_plan_not_the_spec_s_wildcard(tmp_path: Path) -> None:
    spec = {**make_spec(tmp_path), "listen": {"address": "::", "port": 28598}}
    spec["status"] = {"address": "::1", "port": 28597}
    spec["tuning"] = {"user": "nginx"}
    result, _ = apply(tmp_path, spec, validate="/bin/true %s", render_only=True)
    layout = result["tpgen_layout"]
    assert layout["listen_urls"] == ["http://[::1]:28598/"]
    assert layout["status_url"] == "http://[::1]:28597/nginx_status"
    assert {(d["owner"], d["group"]) for d in layout["disks"]} == {("nginx", "nginx")}
    assert result["changed"] is False


def test_a_second_run_changes_nothing(tmp_path: Path, etc: Path) -> None:
    spec = make_spec(tmp_path)
    apply(tmp_path, spec)
    result, _ = apply(tmp_path, spec)
    assert result["changed"] is False
    assert result["previous"] is None
    assert not (etc / "nginx.conf.tpgen-prev").exists()


def test_keeps_the_replaced_config_as_previous(tmp_path: Path, etc: Path) -> None:
    (etc / "nginx.conf").write_text("# the config that was live\n")
    spec = make_spec(tmp_path)
    result, _ = apply(tmp_path, spec)
    assert result["changed"] is True
    assert result["previous"] == str(etc / "nginx.conf.tpgen-prev")
    assert (etc / "nginx.conf.tpgen-prev").read_text() == "# the config that was live\n"
    assert (etc / "nginx.conf").read_text() == expected_text(spec)


def test_check_mode_reports_the_change_and_writes_nothing(tmp_path: Path, etc: Path) -> None:
    (etc / "nginx.conf").write_text("# live\n")
    result, _ = apply(tmp_path, make_spec(tmp_path), check=True)
    assert result["changed"] is True
    assert (etc / "nginx.conf").read_text() == "# live\n"
    assert not (etc / "nginx.conf.tpgen-prev").exists()


def test_a_bad_spec_fails_cleanly_and_touches_nothing(tmp_path: Path, etc: Path) -> None:
    (etc / "nginx.conf").write_text("# live\n")
    spec = make_spec(tmp_path)
    spec["disks"][1]["mount"] = spec["disks"][0]["mount"]
    spec["workload"]["upstreams"] = []
    result, output = apply(tmp_path, spec)
    assert result["failed"] is True
    assert result["msg"].startswith("tpgen rejected the spec (nothing was changed on the node):\n")
    assert result["tpgen_errors"], result
    assert all(line.startswith("tpgen_spec of localhost: ") for line in result["tpgen_errors"])
    assert any("disks" in line and "mount" in line for line in result["tpgen_errors"])
    assert any(
        line.startswith("tpgen_spec of localhost: workload.upstreams")
        for line in result["tpgen_errors"]
    )
    assert "Traceback" not in output
    assert (etc / "nginx.conf").read_text() == "# live\n"
    assert not (etc / "nginx.conf.tpgen-prev").exists()


def test_a_build_without_a_module_the_config_needs_fails_and_touches_nothing(
    tmp_path: Path, etc: Path
) -> None:
    """nginx.configure (the role fills it from the node's nginx -V) is held against tpgen's
    own config here too, as tpgen validate holds it."""
    (etc / "nginx.conf").write_text("# live\n")
    spec = make_spec(tmp_path)
    spec["nginx"] = {"configure": "--with-threads --without-http_proxy_module"}
    result, output = apply(tmp_path, spec)
    assert result["failed"] is True
    assert result["msg"].startswith("tpgen rejected the spec (nothing was changed on the node):\n")
    assert any(
        line.startswith("tpgen_spec of localhost: nginx.configure") and "proxy" in line
        for line in result["tpgen_errors"]
    ), result["tpgen_errors"]
    assert "Traceback" not in output
    assert (etc / "nginx.conf").read_text() == "# live\n"


@pytest.mark.parametrize(
    ("raised", "message"),
    [
        (
            "FileRefused('/etc/ssl/edge.crt', 'is a directory, not a regular file')",
            "tpgen: /etc/ssl/edge.crt: is a directory, not a regular file",
        ),
        ("BadInput('a refusal')", "tpgen: a refusal"),
        (
            "UnsafeValue(\"'a b' cannot be written into nginx.conf as a path\")",
            "tpgen: 'a b' cannot be written into nginx.conf as a path",
        ),
    ],
    ids=["FileRefused", "BadInput", "UnsafeValue"],
)
def test_any_refusal_of_tpgen_fails_the_task_in_one_line(
    raised: str, message: str, tmp_path: Path, etc: Path
) -> None:
    """Not only a SpecError: every refusal is tpgen's own line, never an "unhandled exception"."""
    (etc / "nginx.conf").write_text("# live\n")
    result, output = apply(tmp_path, make_spec(tmp_path), env=_refusing_plan(tmp_path, raised))
    assert (result["failed"], result["msg"]) == (
        True,
        f"{message} (nothing was changed on the node)",
    )
    assert "Traceback" not in output
    assert (etc / "nginx.conf").read_text() == "# live\n"


def test_a_bug_in_tpgen_is_not_reported_as_a_refusal(tmp_path: Path) -> None:
    """A ValueError that is no refusal is a bug: Ansible's own failure (its traceback with -vvv),
    not a line that reads like the user's mistake."""
    result, _ = apply(
        tmp_path, make_spec(tmp_path), env=_refusing_plan(tmp_path, "ValueError('a bug')")
    )
    assert result["failed"] is True
    assert "a bug" in result["msg"] and not result["msg"].startswith("tpgen: ")


def _refusing_plan(tmp_path: Path, raised: str) -> dict[str, str]:
    """An environment in which the controller's tpgen.plan.make_plan raises ``raised``."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        "import tpgen.plan\n"
        "from tpgen.errors import BadInput, FileRefused\n"
        "from tpgen.render import UnsafeValue\n"
        "def refuse(*args, **kwargs):\n"
        f"    raise {raised}\n"
        "tpgen.plan.make_plan = refuse\n"
    )
    return {"PYTHONPATH": str(hook)}


def test_a_config_the_node_rejects_is_not_installed(tmp_path: Path, etc: Path) -> None:
    (etc / "nginx.conf").write_text("# live\n")
    result, _ = apply(tmp_path, make_spec(tmp_path), validate=REJECT)
    assert result["failed"] is True
    assert "was not changed" in result["msg"]
    assert "nginx: [emerg] rejected by the test" in result["msg"]
    assert (etc / "nginx.conf").read_text() == "# live\n"


def test_ocsp_stapling_follows_the_certificates_read_on_the_node_or_from_copies(
    tmp_path: Path,
) -> None:
    """tls.ocsp_stapling: auto staples when the certificate names a responder: the plugin reads
    the certificate from the node (slurp), or from its controller copy in tls_files."""
    cert, key = tmp_path / "node" / "edge.crt", tmp_path / "node" / "edge.key"
    write_throwaway_pair(cert, key, ("edge.example",), ocsp_url="http://127.0.0.1/")
    spec = make_spec(tmp_path, port=28443)
    spec["workload"]["resolver"] = ["127.0.0.1"]
    spec["listen"] = {"address": "127.0.0.1", "port": 28443, "tls": True}
    spec["tls"] = {"certificates": [{"cert": str(cert), "key": str(key)}]}
    source = "tpgen_spec of localhost"
    parsed = spec_from_mapping(spec, source)
    facts = tls_file_facts(parsed, {str(cert): str(cert)})
    stapled = render_config(make_plan(parsed, source, certificates=facts), source)
    assert "ssl_stapling on;" in stapled and "ssl_stapling on;" not in expected_text(spec)
    result, output = apply(tmp_path, spec, render_only=True)
    assert result["tpgen_checksum"] == checksum_s(stapled)
    assert "BEGIN" not in output
    # The node has no such file; the controller copy says the same.
    spec["tls"]["certificates"][0]["cert"] = "/nonexistent/tpgen/edge.crt"
    result, _ = apply(tmp_path, spec, render_only=True)
    assert result["tpgen_checksum"] == checksum_s(expected_text(spec)), "unknown: no stapling"
    result, _ = apply(
        tmp_path, spec, render_only=True, tls_files={"/nonexistent/tpgen/edge.crt": str(cert)}
    )
    assert result["tpgen_checksum"] == checksum_s(
        stapled.replace(str(cert), "/nonexistent/tpgen/edge.crt")
    )
