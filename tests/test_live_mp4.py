"""The vod workload's `mp4` location with real nginx and a real MP4 (tests/mp4.py): a plain GET
is the file, `?start=` is a shorter file whose index nginx rewrote, and ranges work on both."""

from __future__ import annotations

import struct
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from tpgen.plan import make_plan
from tpgen.render import render_config
from tpgen.spec.load import spec_from_mapping

from . import mp4
from .live import file_server_spec, free_ports, running_nginx
from .specs import spec

MIB = 1 << 20


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return reply.status, {k.lower(): v for k, v in reply.headers.items()}, reply.read()


@pytest.fixture
def vod(tmp_path: Path, nginx_binary: str) -> Iterator[tuple[str, Path]]:
    """A one-disk vod node on loopback: its base URL and the disk's root."""
    listen, status = free_ports(2, start=27880)
    data = file_server_spec("vod", (listen, status))
    plan = make_plan(spec_from_mapping(data, "vod.yaml"), "vod.yaml")
    assert plan.mp4_buffer_size is not None and plan.mp4_buffer_size.value == MIB
    with running_nginx(plan, tmp_path, nginx_binary) as live:
        yield f"http://127.0.0.1:{listen}", Path(live.disks[0].dir)


@pytest.fixture
def film(vod: tuple[str, Path]) -> tuple[str, mp4.Movie]:
    """10 one-second samples, key frames at 0 s and 5 s, as /film.mp4: its URL and the movie."""
    base, root = vod
    movie = mp4.movie(count=10, timescale=1000, delta=1000, key_every=5)
    assert mp4.read(movie.data).samples == movie.samples  # the reader agrees with the writer
    (root / "film.mp4").write_bytes(movie.data)
    return f"{base}/film.mp4", movie


def test_a_plain_request_for_an_mp4_is_the_file(film: tuple[str, mp4.Movie]) -> None:
    url, movie = film
    status, headers, body = fetch(url)
    assert (status, headers["content-type"]) == (200, "video/mp4")
    assert int(headers["content-length"]) == len(movie.data)
    assert body == movie.data


def test_start_answers_a_shorter_mp4_from_the_key_frame_with_its_index_rewritten(
    film: tuple[str, mp4.Movie],
) -> None:
    url, movie = film
    status, headers, body = fetch(f"{url}?start=5")
    assert (status, headers["content-type"]) == (200, "video/mp4")
    assert int(headers["content-length"]) == len(body) < len(movie.data)
    cut = mp4.read(body)  # ftyp, moov, mdat; every sample the index names inside mdat
    assert cut.samples == movie.samples[5:]  # from the key frame at 5 s, byte for byte
    assert cut.deltas == [movie.delta] * 5
    assert (cut.movie_duration, cut.media_duration) == (5000, 5000)
    assert cut.sync == [1]  # the key frame at 5 s is the cut's first sample
    assert body[:8] == movie.data[:8]  # the same ftyp
    # the cut's samples are the tail of the file's mdat, and its index is a new, shorter one
    assert body.endswith(b"".join(movie.samples[5:]))
    (start, end), (old_start, old_end) = mp4.find(body, "moov"), mp4.find(movie.data, "moov")
    assert end - start < old_end - old_start


def test_start_between_key_frames_starts_at_the_key_frame_before_and_hides_the_lead_in(
    film: tuple[str, mp4.Movie],
) -> None:
    """tpgen sets mp4_start_key_frame: without it nginx cuts at the sample holding 7.5 s and the
    clip has no key frame at all (a player shows nothing or artefacts until the next one)."""
    url, movie = film
    _, _, body = fetch(f"{url}?start=7.5")
    cut = mp4.read(body)
    assert cut.samples == movie.samples[5:]  # from the key frame at 5 s
    assert cut.sync == [1]
    # the edit list starts playback at the sample holding 7.5 s (7 s), 2 s into the cut
    elst, _ = mp4.find(body, "moov/trak/edts/elst")
    version, count = body[elst], struct.unpack_from(">I", body, elst + 4)[0]
    assert count == 1
    _, media_time = struct.unpack_from(">Qq" if version == 1 else ">Ii", body, elst + 8)
    assert media_time == 2 * movie.delta


def test_a_range_of_an_mp4_and_of_a_cut_is_a_206_of_those_bytes(
    film: tuple[str, mp4.Movie],
) -> None:
    url, movie = film
    status, headers, body = fetch(url, {"Range": "bytes=100-4099"})
    assert (status, body) == (206, movie.data[100:4100])
    assert headers["content-range"] == f"bytes 100-4099/{len(movie.data)}"
    _, _, whole_cut = fetch(f"{url}?start=5")
    status, headers, body = fetch(f"{url}?start=5", {"Range": "bytes=-1000"})
    assert (status, body) == (206, whole_cut[-1000:])
    assert headers["content-range"] == (
        f"bytes {len(whole_cut) - 1000}-{len(whole_cut) - 1}/{len(whole_cut)}"
    )


def test_a_broken_index_is_refused_and_other_files_are_not_the_modules(
    tmp_path: Path, nginx_binary: str, vod: tuple[str, Path]
) -> None:
    base, root = vod
    for name in ("film.mp4", "seg.ts"):
        (root / name).write_bytes(b"not really a movie")
    assert fetch(f"{base}/film.mp4")[2] == b"not really a movie"  # no seek: the file
    assert fetch(f"{base}/seg.ts?start=1")[2] == b"not really a movie"
    with pytest.raises(urllib.error.HTTPError) as refused:
        fetch(f"{base}/film.mp4?start=1")  # a seek: the module parses the (broken) index
    assert refused.value.code == 500
    assert "mp4" in next(tmp_path.rglob("error.log")).read_text()


@pytest.mark.parametrize(("version", "on"), [(None, True), ("1.21.4", True), ("1.20.2", False)])
def test_start_key_frame_follows_the_target_nginx(version: str | None, on: bool) -> None:
    data = spec("vod", disks=1)
    if version:
        data["nginx"] = {"version": version}
    plan = make_plan(spec_from_mapping(data, "vod.yaml"), "vod.yaml")
    assert plan.mp4_start_key_frame is not None and plan.mp4_start_key_frame.value is on
    assert ("mp4_start_key_frame on;" in render_config(plan)) is on
