from __future__ import annotations

import pytest
from tpgen.units import check_nginx_time, nginx_size, parse_size


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4TB", 4 * 10**12),
        ("48GiB", 48 * 2**30),
        ("1MiB", 2**20),
        ("512k", 512_000),
        ("512KiB", 512 * 1024),
        ("3.84TB", 3_840_000_000_000),
        ("100", 100),
        (4096, 4096),
        (" 2 GiB ", 2 * 2**30),
    ],
)
def test_parse_size_accepts_units(text: str | int, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["4 parsecs", "", "GiB", "-1", "1i", "1.2.3GB", "1 ZB"])
def test_parse_size_rejects_non_sizes_with_the_fix(text: str) -> None:
    with pytest.raises(ValueError, match="size"):
        parse_size(text)


def test_parse_size_rejects_booleans_and_negative_ints() -> None:
    with pytest.raises(ValueError):
        parse_size(True)
    with pytest.raises(ValueError):
        parse_size(-5)


@pytest.mark.parametrize(
    ("num_bytes", "expected"),
    [(512 << 10, "512k"), (1 << 20, "1m"), (3 << 30, "3g"), ((5 << 20) + 7, "5m"), (100, "100")],
)
def test_nginx_size_is_short_and_never_rounds_up(num_bytes: int, expected: str) -> None:
    assert nginx_size(num_bytes) == expected


@pytest.mark.parametrize("text", ["7d", "1h30m", "600", "10s"])
def test_nginx_time_accepts_durations(text: str) -> None:
    assert check_nginx_time(text) == text


@pytest.mark.parametrize("text", ["7 days", "1h;", "", "d"])
def test_nginx_time_rejects_the_rest(text: str) -> None:
    with pytest.raises(ValueError, match="duration"):
        check_nginx_time(text)
