"""The paced hot load (`bench run --hot-think-ms`): which script and argument a trial gives wrk,
the option's bounds, and that real wrk waits between a connection's requests."""

from __future__ import annotations

import argparse
import http.server
import shutil
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from bench.cli import _think_ms, main
from bench.dataset import Dataset
from bench.load import Load
from bench.settings import FULL
from bench.trial import _loads


def _dataset(tmp_path: Path) -> Dataset:
    listing = tmp_path / "uris.txt"
    listing.write_text("/files/00000.bin\n")
    return Dataset(
        hot_uri="/files/hot.bin",
        cold_uris=("/files/00000.bin",),
        uri_list=listing,
        storage=tmp_path,
        files_on={"d1": 1},
        file_size=1024,
    )


def test_the_default_hot_load_asks_again_at_once(tmp_path: Path) -> None:
    hot, cold = _loads(FULL, _dataset(tmp_path), 29000, 1)
    assert (hot.script, hot.script_args) == ("hot.lua", ())
    assert cold.script == "cold.lua"


def test_a_paced_hot_load_passes_the_wait_to_its_own_script(tmp_path: Path) -> None:
    hot, cold = _loads(replace(FULL, hot_think_ms=150), _dataset(tmp_path), 29000, 1)
    assert (hot.script, hot.script_args) == ("hot_paced.lua", ("150",))
    assert hot.command()[-2:] == ["--", "150"]
    assert (cold.script, cold.connections) == ("cold.lua", FULL.cold_connections)


@pytest.mark.parametrize("text", ["0", "-5", "1.5", "10001", "fast", ""])
def test_think_time_must_be_whole_milliseconds_within_bounds(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="whole milliseconds"):
        _think_ms(text)
    assert _think_ms("100") == 100


def test_the_cache_workload_refuses_a_paced_hot_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", "--workload", "cache", "--hot-think-ms", "100", "--out", str(tmp_path)])
    assert code == 2
    assert "--hot-think-ms: only for --workload origin" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


class _Quick(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        body = b"ok"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[int]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Quick)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_real_wrk_waits_the_think_time_between_a_connections_requests(
    server: int, tmp_path: Path
) -> None:
    # 2 connections for 2 s, 500 ms apart: each asks at most 1 + 2000/500 times, so at most 10
    # requests however fast the server is; unpaced the same server answers hundreds.
    def run(script: str, args: tuple[str, ...]) -> int:
        load = Load(f"http://127.0.0.1:{server}/hot.bin", 2, 1, 2.0, script, args)
        log = tmp_path / f"{script}.txt"
        return load.finish(load.start(log), log).requests

    assert shutil.which("wrk"), "wrk: scripts/test.sh system-deps installs it"
    paced = run("hot_paced.lua", ("500",))
    unpaced = run("hot.lua", ())
    assert 2 <= paced <= 10
    assert unpaced > 10 * paced
