"""The command functions without click, the one error mapper, and the option types."""

from __future__ import annotations

import errno
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from tpgen.api import draft_problems
from tpgen.cli import main
from tpgen.commands import Console, run
from tpgen.commands.discover import discover
from tpgen.commands.doctor import doctor
from tpgen.commands.explain import explain
from tpgen.commands.locate import locate
from tpgen.commands.remap import remap
from tpgen.commands.render import render
from tpgen.commands.schema import schema
from tpgen.commands.validate import validate
from tpgen.errors import (
    EXIT_BAD_INPUT,
    EXIT_DIFFERS,
    EXIT_INTERNAL,
    BadInput,
    ConfigRejected,
    FileRefused,
    NginxUnavailable,
    Problem,
    SpecError,
    TpgenError,
)

from .conftest import ROOT
from .specs import spec

EXAMPLE = str(ROOT / "examples" / "cache-3hdd.yaml")
GOLDEN = ROOT / "tests" / "cases" / "cache-3hdd"


def console() -> tuple[Console, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    return Console(out, err), out, err


# ------------------------------------------------------------------ the one error mapper


def _raises(error: Exception) -> Any:
    def command() -> int:
        raise error

    return command


@pytest.mark.parametrize(
    ("error", "code", "message"),
    [
        (
            SpecError([Problem(("disks", 0, "media"), "Input should be 'hdd'", "s.yaml", 3)]),
            EXIT_BAD_INPUT,
            "s.yaml:3: disks.0.media: Input should be 'hdd'\n",
        ),
        (
            FileRefused("/dev/zero", "is a character device, not a regular file"),
            EXIT_BAD_INPUT,
            "tpgen: /dev/zero: is a character device, not a regular file\n",
        ),
        (
            NginxUnavailable("nginx is not installed: install it"),
            EXIT_BAD_INPUT,
            "tpgen: nginx is not installed: install it\n",
        ),
        (
            PermissionError(errno.EACCES, "Permission denied", "/etc/x\ny"),
            EXIT_BAD_INPUT,
            "tpgen: /etc/x\\ny: Permission denied\n",
        ),
        (
            ConfigRejected("s.yaml", "nginx: [emerg] unknown directive"),
            EXIT_DIFFERS,
            "s.yaml: nginx -t rejected the rendered config:\nnginx: [emerg] unknown directive\n",
        ),
        (
            KeyError("boom"),
            EXIT_INTERNAL,
            "tpgen: internal error: KeyError: 'boom' (run with --debug and report it)\n",
        ),
    ],
    ids=["spec", "file", "nginx", "oserror", "rejected", "internal"],
)
def test_run_maps_each_error_to_its_message_and_exit_code(
    error: Exception, code: int, message: str
) -> None:
    where, out, err = console()
    assert run(_raises(error), where) == code
    assert (out.getvalue(), err.getvalue()) == ("", message)


def test_run_passes_a_command_s_own_exit_code_through() -> None:
    where, _, err = console()
    assert run(lambda: EXIT_DIFFERS, where) == EXIT_DIFFERS
    assert err.getvalue() == ""


def test_debug_shows_a_traceback_for_internal_errors_only() -> None:
    where, _, err = console()
    assert run(_raises(RuntimeError("boom")), where, debug=True) == EXIT_INTERNAL
    assert err.getvalue().startswith("Traceback (most recent call last):\n")
    assert err.getvalue().endswith(
        "RuntimeError: boom\ntpgen: internal error: RuntimeError: boom (run with --debug and "
        "report it)\n"
    )
    where, _, err = console()
    assert run(_raises(BadInput("bad")), where, debug=True) == EXIT_BAD_INPUT
    assert err.getvalue() == "tpgen: bad\n"


@pytest.mark.parametrize(
    ("error_type", "code"),
    [
        (BadInput, EXIT_BAD_INPUT),
        (SpecError, EXIT_BAD_INPUT),
        (FileRefused, EXIT_BAD_INPUT),
        (NginxUnavailable, EXIT_BAD_INPUT),
        (ConfigRejected, EXIT_DIFFERS),
    ],
)
def test_every_error_is_a_tpgen_error_with_its_exit_code(
    error_type: type[TpgenError], code: int
) -> None:
    assert issubclass(error_type, TpgenError)
    assert error_type.exit_code == code


def test_help_lists_the_exit_code_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert (
        "Exit codes: 0 ok, 1 differs (--diff) or nginx -t failed, 2 bad input, 3 internal error, "
        "130 interrupted (Ctrl-C), 141 stdout's reader went away."
        in " ".join(capsys.readouterr().out.split())
    )


# ------------------------------------------------------------------ commands without click

COMMANDS = ("render", "validate", "explain", "schema", "remap", "locate", "doctor", "discover")


def test_no_command_module_needs_click() -> None:
    script = (
        "import importlib, sys\n"
        f"for name in {COMMANDS!r}:\n"
        "    importlib.import_module(f'tpgen.commands.{name}')\n"
        "print('click' in sys.modules)"
    )
    env = {"PYTHONPATH": f"{ROOT / 'generator'}", "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "False\n", "")


def test_validate_returns_0_and_raises_a_spec_error_with_its_line(tmp_path: Path) -> None:
    assert validate(EXAMPLE) == 0
    data = spec()
    data["disks"][0]["media"] = "tape"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        validate(str(bad))
    assert (
        str(caught.value)
        == f"{bad}:3: disks.0.media: 'tape' is not allowed here: write 'hdd', 'ssd' or 'nvme'"
    )


def test_render_writes_the_golden_config_to_its_console(tmp_path: Path) -> None:
    where, out, err = console()
    source = tmp_path / "spec.yaml"
    source.write_bytes((GOLDEN / "spec.yaml").read_bytes())
    assert render(str(source), check=False, console=where) == 0
    golden = (GOLDEN / "nginx.conf").read_text(encoding="utf-8")
    assert out.getvalue() == golden.replace("tests/cases/cache-3hdd/spec.yaml", str(source))
    assert err.getvalue() == ""


def test_render_diff_returns_1_when_the_file_differs(tmp_path: Path) -> None:
    current = tmp_path / "nginx.conf"
    current.write_text("worker_processes 2;\n", encoding="utf-8")
    where, out, _ = console()
    assert render(EXAMPLE, check=False, diff_against=str(current), console=where) == 1
    assert out.getvalue().startswith(f"--- {current}\n+++ {EXAMPLE} (rendered)\n")
    assert "\n-worker_processes 2;\n" in out.getvalue()


def test_render_raises_config_rejected_when_nginx_refuses(
    rejecting_nginx: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TPGEN_NGINX", rejecting_nginx)
    data = spec("cache", 2, workload={"upstreams": ["192.0.2.10:80"]})
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    where, out, _ = console()
    with pytest.raises(ConfigRejected) as caught:
        render(str(path), console=where)
    assert caught.value.exit_code == EXIT_DIFFERS
    assert str(caught.value).startswith(f"{path}: nginx -t rejected the rendered config:\n")
    assert out.getvalue() == ""


def test_explain_schema_remap_locate_write_to_their_console() -> None:
    where, out, _ = console()
    assert explain(EXAMPLE, console=where) == 0
    assert out.getvalue().splitlines()[0].split() == ["directive", "value", "because"]
    where, out, _ = console()
    assert schema(console=where) == 0
    assert json.loads(out.getvalue())["title"] == "tpgen node spec"
    where, out, _ = console()
    assert remap(EXAMPLE, EXAMPLE, as_json=True, console=where) == 0
    assert json.loads(out.getvalue())["moved_fraction"] == 0
    where, out, _ = console()
    assert locate(EXAMPLE, ["httpcdn.example.com/v/783.ts"], console=where) == 0
    assert out.getvalue() == "httpcdn.example.com/v/783.ts\t3334\td3\n"


@pytest.mark.parametrize(("old", "new"), [("cache", "origin"), ("origin", "cache")])
def test_remap_of_two_workloads_is_refused_in_one_line(
    old: str, new: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = []
    for name, workload in (("old", old), ("new", new)):
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(spec(workload)))
        paths.append(str(path))
    assert main(["remap", *paths]) == 2
    article = {"cache": "a cache", "origin": "an origin"}
    # validate's form: the line of the field in the new spec
    line = Path(paths[1]).read_text().splitlines().index(f"  type: {new}") + 1
    assert capsys.readouterr().err == (
        f"{paths[1]}:{line}: workload.type: {old} before, {new} after: {article[new]} node keeps "
        f"nothing of {article[old]} node's disks; compare two specs of one workload\n"
    )


def test_doctor_and_discover_hand_their_options_and_console_to_ops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def record(*args: Any, **kwargs: Any) -> int:
        calls.append((args, kwargs))
        return 1

    monkeypatch.setattr("tpgen.commands.doctor.doctor_main", record)
    monkeypatch.setattr("tpgen.commands.discover.run_discover", record)
    where, out, err = console()
    options: dict[str, Any] = {
        "since": "2h",
        "as_json": True,
        "config_path": "/etc/nginx/nginx.conf",
        "error_log": None,
        "status_url": None,
        "nginx_binary": "nginx",
    }
    assert doctor("spec.yaml", where, **options) == 1
    assert (
        discover(where, as_json=False, min_size=10**12, include_loop=True, mount_root="/srv/cache")
        == 1
    )
    assert calls == [
        (("spec.yaml",), {**options, "out": out, "err": err}),
        (
            (),
            {
                "as_json": False,
                "min_size": 10**12,
                "include_loop": True,
                "mount_root": "/srv/cache",
                "check": draft_problems,
                "out": out,
                "err": err,
            },
        ),
    ]


# ------------------------------------------------------------------ size and duration options


def _recorded(monkeypatch: pytest.MonkeyPatch, target: str) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def record(*args: Any, **kwargs: Any) -> int:
        seen.update(kwargs)
        return 0

    monkeypatch.setattr(target, record)
    return seen


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("huge", "'huge' is not a size: write a number with a unit, like 4TB, 48GiB, 1MiB"),
        ("1iB", "'1iB' is not a size: 'i' needs a prefix, like KiB or MiB"),
        ("iB", "'iB' is not a size: write a number with a unit, like 4TB, 48GiB, 1MiB"),
        ("9EiB", "'9EiB' is not a size: write a number with a unit, like 4TB, 48GiB, 1MiB"),
        ("9000PiB", "'9000PiB' is larger than any disk or file nginx can address (8 EiB)"),
    ],
)
def test_a_bad_min_size_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], value: str, message: str
) -> None:
    assert main(["discover", "--min-size", value]) == 2
    assert capsys.readouterr().err == f"tpgen discover: --min-size: {message}\n"


@pytest.mark.parametrize(
    ("value", "size"), [("1PB", 10**15), ("48GiB", 48 << 30), ("512k", 512_000), ("0", 0)]
)
def test_min_size_reaches_discover_in_bytes(
    monkeypatch: pytest.MonkeyPatch, value: str, size: int
) -> None:
    seen = _recorded(monkeypatch, "tpgen.commands.discover.run_discover")
    assert main(["discover", "--min-size", value]) == 0
    assert seen["min_size"] == size


def test_the_default_min_size_is_32_gib(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _recorded(monkeypatch, "tpgen.commands.discover.run_discover")
    assert main(["discover"]) == 0
    assert seen["min_size"] == 32 << 30


@pytest.mark.parametrize(
    "value", ["yesterday", "1ms", "2h1d", "-1h", "", "2026-13-01", "1000000d", "99999999999d"]
)
def test_a_bad_since_is_one_line_exit_2(capsys: pytest.CaptureFixture[str], value: str) -> None:
    assert main(["doctor", EXAMPLE, "--since", value]) == 2
    assert capsys.readouterr().err == (
        f"tpgen doctor: --since: {value!r}: use a duration (30m, 2h, 1d) or a local time "
        "(2026-11-21 18:00)\n"
    )


@pytest.mark.parametrize("value", ["30m", "2h", "1d", "1w", "2026-11-21 18:00", "2026-11-21T18:00"])
def test_since_reaches_doctor_as_written(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    seen = _recorded(monkeypatch, "tpgen.commands.doctor.doctor_main")
    assert main(["doctor", EXAMPLE, "--since", value]) == 0
    assert seen["since"] == value


def test_a_missing_option_value_is_still_click_s_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["discover", "--min-size"]) == 2
    assert capsys.readouterr().err == "Error: Option '--min-size' requires an argument.\n"
