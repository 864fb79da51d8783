"""No command line of a role or playbook is built from a variable: a command is an argv list,
a shell script reads its variables from the environment, so a value with a space, a quote, $, ;,
a newline or a leading - stays one argument."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from tests.ansible.conftest import REPO
from tests.ansible.test_action_plugin import apply, make_spec

TASK_FILES = sorted(
    [
        *REPO.glob("roles/*/tasks/*.yml"),
        *REPO.glob("roles/*/handlers/*.yml"),
        *REPO.glob("playbooks/*.yml"),
        *REPO.glob("playbooks/tasks/*.yml"),
    ]
)
COMMANDS = ("ansible.builtin.command", "command")
SHELLS = ("ansible.builtin.shell", "shell")
NESTED = ("block", "rescue", "always", "tasks", "pre_tasks", "post_tasks", "handlers")


def tasks(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, list):
        for item in node:
            yield from tasks(item)
    elif isinstance(node, dict):
        yield node
        for key in NESTED:
            yield from tasks(node.get(key))


def problems(path: Path) -> list[str]:
    found = []
    for task in tasks(yaml.safe_load(path.read_text())):
        name = f"{path.relative_to(REPO)}: {task.get('name')}"
        for module in COMMANDS:
            args = task.get(module)
            if isinstance(args, str) or (isinstance(args, dict) and "cmd" in args):
                found.append(f"{name}: {module} with a command line, not argv")
        for module in SHELLS:
            args = task.get(module)
            script = args.get("cmd", "") if isinstance(args, dict) else str(args or "")
            if "{{" in script:
                found.append(f"{name}: {module} script with a template in it")
    return found


def test_the_task_files_are_found() -> None:
    assert len(TASK_FILES) > 30


def test_no_command_line_is_built_from_a_variable() -> None:
    assert [problem for path in TASK_FILES for problem in problems(path)] == []


def test_copy_s_validate_command_quotes_the_nginx_binary() -> None:
    # copy splits validate as a shell would and formats it with %: a binary path with a space
    # or a % must be quoted and its % doubled.
    (block,) = yaml.safe_load((REPO / "roles/nginx_tpconfig/tasks/apply.yml").read_text())
    install = block["block"][0]["tpgen.storage.tpgen_config"]
    assert install["validate"] == (
        "{{ __nginx_tpconfig_nginx | quote | replace('%', '%%') }} -t -q -c %s"
    )


def test_the_validate_command_runs_a_binary_whose_path_has_a_space_a_quote_and_a_percent(
    tmp_path: Path,
) -> None:
    binary = tmp_path / "n g'%s x" / "nginx"
    binary.parent.mkdir()
    binary.write_text('#!/bin/sh\n[ "$1 $2 $3" = "-t -q -c" ] && grep -q thread_pool "$4"\n')
    binary.chmod(0o755)
    (tmp_path / "etc").mkdir()
    # the role's expression (asserted above), as Ansible's quote filter (shlex.quote) renders it
    validate = shlex.quote(str(binary)).replace("%", "%%") + " -t -q -c %s"
    result, _ = apply(tmp_path, make_spec(tmp_path), validate=validate)
    assert (result["failed"], result["changed"]) == (False, True)
    assert "thread_pool" in (tmp_path / "etc" / "nginx.conf").read_text()
