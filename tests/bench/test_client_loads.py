"""The client models of the loads (`bench run --hot-think-ms`, `--reconnect-every`, `--cold-seed`):
which script and arguments a trial gives wrk, the options' bounds, and what real wrk then does on
the wire."""

from __future__ import annotations

import argparse
import http.server
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

import pytest

from bench.cli import _every, _seed, _think_ms, main
from bench.dataset import Dataset
from bench.load import Load, LoadResult
from bench.settings import FULL, MAX_ROUNDS, Settings
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
    assert (hot.script, hot.script_args) == ("hot_paced.lua", ("150", "0"))
    assert hot.command()[-3:] == ["--", "150", "0"]
    assert (cold.script, cold.connections) == ("cold.lua", FULL.cold_connections)
    assert "close" not in cold.script_args


def test_reconnecting_clients_close_every_cold_and_every_nth_hot_request(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    hot, cold = _loads(replace(FULL, reconnect_every=10), data, 29000, 3)
    assert (hot.script, hot.script_args) == ("hot_reconnect.lua", ("10",))
    assert cold.script_args == (str(data.uri_list), "3", "close")
    paced, _ = _loads(replace(FULL, reconnect_every=10, hot_think_ms=150), data, 29000, 3)
    assert (paced.script, paced.script_args) == ("hot_paced.lua", ("150", "10"))


def test_each_round_of_a_run_is_one_fixed_cold_load_and_a_seed_picks_other_ones(
    tmp_path: Path,
) -> None:
    data = _dataset(tmp_path)

    def seed(settings: Settings, round_no: int) -> str:
        return _loads(settings, data, 29000, round_no)[1].script_args[1]

    assert [seed(FULL, n) for n in (1, 2, 3)] == ["1", "2", "3"]
    seeded = replace(FULL, cold_seed=7)
    assert [seed(seeded, n) for n in (1, 2, 3)] == ["701", "702", "703"]
    assert "cold loads seeded 7" in " ".join(seeded.client_notes)
    assert not FULL.client_notes
    every = {
        replace(FULL, cold_seed=s).cold_sequence_seed(n)
        for s in range(4)
        for n in range(1, MAX_ROUNDS + 1)
    }
    assert len(every) == 4 * MAX_ROUNDS


@pytest.mark.parametrize("text", ["-1", "1.5", "1000001", "random", ""])
def test_a_seed_is_a_whole_number_within_bounds(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="whole seed"):
        _seed(text)
    assert (_seed("0"), _seed("42")) == (0, 42)


@pytest.mark.parametrize("text", ["0", "-5", "1.5", "10001", "fast", ""])
def test_think_time_must_be_whole_milliseconds_within_bounds(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="whole milliseconds"):
        _think_ms(text)
    assert _think_ms("100") == 100


@pytest.mark.parametrize("text", ["0", "-1", "2.5", "100001", "often", ""])
def test_reconnect_count_must_be_a_whole_count_within_bounds(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="whole count"):
        _every(text)
    assert _every("10") == 10


@pytest.mark.parametrize(
    "option", [["--hot-think-ms", "100"], ["--reconnect-every", "10"], ["--cold-seed", "3"]]
)
def test_the_cache_workload_refuses_the_origin_client_models(
    option: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["run", "--workload", "cache", *option, "--out", str(tmp_path)])
    assert code == 2
    assert f"{option[0]}: only for --workload origin" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


class _Quick(http.server.BaseHTTPRequestHandler):
    """Answers every GET at once and counts the connections it was asked on."""

    protocol_version = "HTTP/1.1"
    connections = 0
    paths: ClassVar[list[str]] = []
    lock = threading.Lock()

    def setup(self) -> None:
        super().setup()
        with _Quick.lock:
            _Quick.connections += 1

    def do_GET(self) -> None:
        with _Quick.lock:
            _Quick.paths.append(self.path)
        body = b"ok"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        if self.headers.get("Connection", "").lower() == "close":
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[int]:
    _Quick.connections = 0
    _Quick.paths = []
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
    # 2 connections for 2 s, 1 s apart: each asks at most 1 + 2000/1000 times, so at most 6
    # requests however fast the server is; unpaced even this Python server answers dozens.
    def run(script: str, args: tuple[str, ...]) -> int:
        return _wrk(server, tmp_path, script, args).requests

    assert shutil.which("wrk"), "wrk: scripts/test.sh system-deps installs it"
    paced = run("hot_paced.lua", ("1000",))
    unpaced = run("hot.lua", ())
    assert 2 <= paced <= 6
    assert unpaced > 20


def _wrk(port: int, tmp_path: Path, script: str, args: tuple[str, ...]) -> LoadResult:
    load = Load(f"http://127.0.0.1:{port}/hot.bin", 2, 1, 2.0, script, args)
    log = tmp_path / f"{script}.txt"
    return load.finish(load.start(log), log)


def _connections_for(
    port: int, tmp_path: Path, script: str, args: tuple[str, ...]
) -> tuple[int, int]:
    before = _Quick.connections
    result = _wrk(port, tmp_path, script, args)
    assert result.errors == 0
    return result.requests, _Quick.connections - before


def test_real_wrk_keeps_its_connections_unless_told_to_reconnect(
    server: int, tmp_path: Path
) -> None:
    assert shutil.which("wrk"), "wrk: scripts/test.sh system-deps installs it"
    # wrk opens one connection of its own besides its 2, and keeps them
    requests, kept = _connections_for(server, tmp_path, "hot.lua", ())
    assert requests > 20 and kept <= 3
    # every 5th request of the one wrk thread closes its connection: a new one per 5 requests;
    # wrk counts answers, and each of its 2 connections may have a request unanswered at the end
    in_flight = 2
    requests, connections = _connections_for(server, tmp_path, "hot_reconnect.lua", ("5",))
    assert requests > 20 and requests // 5 <= connections <= (requests + in_flight) // 5 + kept
    listing = tmp_path / "uris.txt"
    listing.write_text("/a.bin\n/b.bin\n")
    requests, connections = _connections_for(
        server, tmp_path, "cold.lua", (str(listing), "1", "close")
    )
    assert requests > 20 and requests <= connections <= requests + in_flight + kept


def test_real_wrk_asks_the_same_cold_sequence_for_the_same_seed_only(
    server: int, tmp_path: Path
) -> None:
    assert shutil.which("wrk"), "wrk: scripts/test.sh system-deps installs it"
    listing = tmp_path / "uris.txt"
    listing.write_text("".join(f"/f{n:03d}.bin\n" for n in range(200)))

    def first_asked(seed: str) -> list[str]:
        # one connection: wrk asks one request at a time, in the script's order
        _Quick.paths = []
        load = Load(f"http://127.0.0.1:{server}/", 1, 1, 1.0, "cold.lua", (str(listing), seed))
        log = tmp_path / f"cold-{seed}.txt"
        assert load.finish(load.start(log), log).requests >= 20
        return _Quick.paths[:20]

    round_one = first_asked("1")
    assert len(set(round_one)) > 10
    assert first_asked("1") == round_one
    assert first_asked("701") != round_one


class _Every200thLate(http.server.BaseHTTPRequestHandler):
    """Answers at once, but every 200th request of a connection 300 ms late."""

    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self.asked = 0
        # headers and body are two writes: Nagle would hold the body for the client's delayed ACK
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self) -> None:
        self.asked += 1
        if self.asked % 200 == 0:
            time.sleep(0.3)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args: object) -> None:
        pass


class _QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # wrk hangs up on the answer it is writing when its time is up


def test_real_wrk_answers_count_once_while_its_own_latencies_weigh_time(
    tmp_path: Path,
) -> None:
    assert shutil.which("wrk"), "wrk: scripts/test.sh system-deps installs it"
    httpd = _QuietServer(("127.0.0.1", 0), _Every200thLate)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    load = Load(f"http://127.0.0.1:{httpd.server_address[1]}/hot.bin", 2, 1, 3.0, "hot.lua")
    log = tmp_path / "hot.txt"
    try:
        result = load.finish(load.start(log), log)
    finally:
        httpd.shutdown()
        httpd.server_close()
    # parse_summary checked one latency an answer. Half a per cent of the answers are late, so
    # their p99 is a prompt one; but the connections spend most of their time waiting on them,
    # which wrk's own figures weigh (its correction adds answers during each wait)
    assert result.requests >= 400, "each connection waited on at least one late answer"
    assert result.answer_p99_ms is not None and result.answer_p99_ms < 100
    assert result.latency_p99_ms >= 200
