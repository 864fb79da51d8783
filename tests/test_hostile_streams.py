"""Where a command's output cannot go (stdout closed, full, unable to encode it), where an option
names a file the config reads, and where nginx answers bytes that are not UTF-8: one line and
exit 2 (or nginx's own refusal, 1), never an internal error and never a silent success."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from tpgen.cli import main

from .conftest import ROOT
from .specs import spec

EXAMPLE = ROOT / "examples" / "cache-3hdd.yaml"
ENV = {**os.environ, "PYTHONPATH": f"{ROOT / 'generator'}{os.pathsep}{ROOT}"}


def tpgen(
    args: list[str], *, shell_redirect: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """tpgen in a child whose streams the shell may close or point elsewhere."""
    return subprocess.run(
        ["sh", "-c", f'exec "$0" -m tpgen "$@" {shell_redirect}', sys.executable, *args],
        env={**ENV, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    "args",
    [
        ["render", "--no-check", str(EXAMPLE)],
        ["render", "--no-check", "--diff", str(EXAMPLE), str(EXAMPLE)],
        ["explain", str(EXAMPLE)],
        ["schema"],
    ],
    ids=["render", "diff", "explain", "schema"],
)
def test_a_closed_stdout_is_refused_not_a_silent_success(args: list[str]) -> None:
    done = tpgen(args, shell_redirect=">&-")
    assert (done.returncode, done.stderr) == (
        2,
        "tpgen: <stdout>: is closed: run with it open, or write to a file\n",
    )


@pytest.mark.parametrize(
    "args", [["render", "--no-check", str(EXAMPLE)], ["--help"], ["--version"], ["render", "-h"]]
)
def test_a_full_stdout_is_one_line_and_exit_2(args: list[str]) -> None:
    done = tpgen(args, shell_redirect=">/dev/full")
    assert (done.returncode, done.stderr) == (
        2,
        "tpgen: <stdout>: cannot write: No space left on device\n",
    )


def test_a_stdout_that_cannot_encode_the_text_says_how_to_fix_it() -> None:
    done = tpgen(["explain", str(EXAMPLE)], env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 2
    assert done.stderr.startswith("tpgen: <stdout>: cannot write ")
    assert done.stderr.endswith(
        " in ascii: set a UTF-8 locale (LANG=C.UTF-8) or PYTHONIOENCODING=utf-8\n"
    )
    assert "Traceback" not in done.stderr


def test_a_refusal_keeps_its_exit_code_when_stderr_is_full(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("node: {}\n")
    assert tpgen(["validate", str(bad)], shell_redirect="2>/dev/full").returncode == 2
    assert tpgen(["render", "--bogus"], shell_redirect="2>/dev/full").returncode == 2


@pytest.mark.parametrize("value", ["nan", "-nan", "NaN"])
def test_guard_refuses_an_interval_that_is_not_a_number(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["guard", str(EXAMPLE), "--interval", value, "--polls", "1"]) == 2
    assert f"--interval: {float(value)!r}: a number of seconds, e.g. 1" in capsys.readouterr().err


def _spec_reading(tmp_path: Path) -> tuple[Path, Path]:
    snippet = tmp_path / "http.conf"
    snippet.write_text("server_names_hash_bucket_size 128;\n")
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec(extra={"http": [str(snippet)]})))
    return path, snippet


def test_output_onto_a_file_the_config_names_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """-o onto the spec's own snippet would make nginx include the whole config in http {}."""
    path, snippet = _spec_reading(tmp_path)
    before = snippet.read_bytes()
    assert main(["render", "--no-check", "-o", str(snippet), str(path)]) == 2
    assert capsys.readouterr().err == (
        f"tpgen: {snippet}: is the input {snippet} itself: write the config elsewhere\n"
    )
    assert snippet.read_bytes() == before


def test_nginx_output_that_is_not_utf8_is_shown_not_an_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """nginx cuts a long error line at 2 KiB, inside a UTF-8 character or not."""
    fake = tmp_path / "nginx"
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = -V ]; then printf "nginx/1.22.1 --with-threads \\377\\n" >&2; exit 0; fi\n'
        'printf "nginx: [emerg] unknown directive \\"\\303\\" in x.conf:1\\n" >&2; exit 1\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("TPGEN_NGINX", str(fake))
    assert main(["render", str(EXAMPLE)]) == 1
    err = capsys.readouterr().err
    assert "nginx -t rejected the rendered config" in err
    assert 'unknown directive "\ufffd"' in err
