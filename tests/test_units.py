from __future__ import annotations

import pytest
from tpgen.spec.units import MAX_BYTES, format_duration, nginx_size, parse_duration, parse_size


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
        ("4\tTB", 4 * 10**12),
    ],
)
def test_parse_size_accepts_units(text: str | int, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["4 parsecs", "", "GiB", "-1", "1i", "1.2.3GB", "1 ZB"])
def test_parse_size_rejects_non_sizes_with_the_fix(text: str) -> None:
    with pytest.raises(ValueError, match="size"):
        parse_size(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("512.5", "'512.5' is 512.5 bytes, and a size is whole bytes: write 512 or 513"),
        ("1.5", "'1.5' is 1.5 bytes, and a size is whole bytes: write 1 or 2"),
        ("0.1GiB", "'0.1GiB' is 107374182.4 bytes, and a size is whole bytes: write 107374182 "
         "or 107374183, or a unit smaller than GiB"),
        ("0.0001k", "'0.0001k' is 0.1 bytes, and a size is whole bytes: write 0 or 1, or a unit "
         "smaller than kB"),
    ],
)  # fmt: skip
def test_parse_size_refuses_a_part_of_a_byte_rather_than_round(text: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_size(text)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("text", "expected"), [("1.5GiB", 3 << 29), ("0.5KiB", 512), ("2.50MB", 2_500_000)]
)
def test_a_decimal_size_of_whole_bytes_is_read_exactly(text: str, expected: int) -> None:
    assert parse_size(text) == expected


def test_parse_size_rejects_booleans_and_negative_ints() -> None:
    with pytest.raises(ValueError):
        parse_size(True)
    with pytest.raises(ValueError):
        parse_size(-5)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (10**400, "this number is larger than any disk or file nginx can address (8 EiB)"),
        (2**63, "9223372036854775808 is larger than any disk or file nginx can address (8 EiB)"),
        (
            "9" * 5000,
            "'99999999999999999999'… is not a size: write a number with a unit, like "
            "4TB, 48GiB, 1MiB",
        ),
        (
            "9999999999PiB",
            "'9999999999PiB' is larger than any disk or file nginx can address (8 EiB)",
        ),
        (
            float("nan"),
            "nan is not a size: write whole bytes or a number with a unit, like 4TB or 1MiB",
        ),
        (
            float("inf"),
            "inf is not a size: write whole bytes or a number with a unit, like 4TB or 1MiB",
        ),
        (1e400, "inf is not a size: write whole bytes or a number with a unit, like 4TB or 1MiB"),
        (4.5, "4.5 is not a size: write whole bytes or a number with a unit, like 4TB or 1MiB"),
        ("1e400", "'1e400' is not a size: write a number with a unit, like 4TB, 48GiB, 1MiB"),
        ("-1GiB", "'-1GiB' is not a size: write a number with a unit, like 4TB, 48GiB, 1MiB"),
        ("\u0664TB", "'\u0664TB' is not a size: write a number with a unit, like 4TB, 48GiB, 1MiB"),
        # Spaces of other scripts (no-break, ideographic) and a line end are no spaces to nginx.
        ("4\xa0TB", "'4\\xa0TB' is not a size: write a number with a unit, like 4TB, 48GiB, 1MiB"),
        (
            "4TB\u3000",
            "'4TB\\u3000' is not a size: write a number with a unit, like 4TB, 48GiB, 1MiB",
        ),
        ("4TB\n", "'4TB\\n' is not a size: write a number with a unit, like 4TB, 48GiB, 1MiB"),
        (None, "a size is a number with a unit, like 4TB, 48GiB or 1MiB"),
    ],
)
def test_parse_size_refuses_huge_float_and_foreign_numbers_without_crashing(
    value: object, message: str
) -> None:
    with pytest.raises(ValueError) as caught:
        parse_size(value)
    assert str(caught.value) == message


def test_parse_size_is_exact_up_to_off_t() -> None:
    assert parse_size(MAX_BYTES) == MAX_BYTES
    assert parse_size("8EiB".replace("E", "P")) == 8 << 50
    assert parse_size("1.000000001TB") == 1_000_000_001_000


@pytest.mark.parametrize(
    ("num_bytes", "expected"),
    [(512 << 10, "512k"), (1 << 20, "1m"), (3 << 30, "3g"), ((5 << 20) + 7, "5m"), (100, "100")],
)
def test_nginx_size_is_short_and_never_rounds_up(num_bytes: int, expected: str) -> None:
    assert nginx_size(num_bytes) == expected


@pytest.mark.parametrize(
    ("text", "milliseconds", "ms"),
    [
        ("7d", False, 7 * 86_400_000),
        ("1h30m", False, 5_400_000),
        ("600", False, 600_000),
        (600, False, 600_000),
        ("1y", False, 365 * 86_400_000),
        ("1M", False, 30 * 86_400_000),
        ("1y1M1w1d1h1m1s", False, (365 + 30 + 7 + 1) * 86_400_000 + 3_661_000),
        ("500ms", True, 500),
        ("1m30s500ms", True, 90_500),
        ("2w", True, 14 * 86_400_000),
        ("0", True, 0),
    ],
)
def test_parse_duration_reads_what_nginx_reads(
    text: str | int, milliseconds: bool, ms: int
) -> None:
    assert parse_duration(text, milliseconds=milliseconds) == ms


@pytest.mark.parametrize(
    ("text", "milliseconds", "message"),
    [
        (
            "1m1h",
            False,
            "'1m1h' is not an nginx duration: units go from the largest to the "
            "smallest, each at most once (y M w d h m s), e.g. 12h, 7d, 1h30m",
        ),
        (
            "1h1h",
            True,
            "'1h1h' is not an nginx duration: units go from the largest to the "
            "smallest, each at most once (w d h m s ms), e.g. 1h30m, 500ms",
        ),
        (
            "500ms",
            False,
            "'500ms': nginx reads this directive in whole seconds and does not take "
            "'ms' there: write e.g. 1s",
        ),
        (
            "1y",
            True,
            "'1y': nginx reads this directive in milliseconds and does not take 'y' "
            "there: write days, e.g. 30d",
        ),
        (
            "1M",
            True,
            "'1M': nginx reads this directive in milliseconds and does not take 'M' "
            "there: write days, e.g. 30d",
        ),
        (
            "7 days",
            False,
            "'7 days' is not an nginx duration: write a number and a unit "
            "(y M w d h m s), e.g. 12h, 7d, 1h30m",
        ),
        (
            "h1",
            False,
            "'h1' is not an nginx duration: write a number and a unit "
            "(y M w d h m s), e.g. 12h, 7d, 1h30m",
        ),
        (
            "1h;",
            False,
            "'1h;' is not an nginx duration: write a number and a unit "
            "(y M w d h m s), e.g. 12h, 7d, 1h30m",
        ),
        (
            "",
            False,
            "'' is not an nginx duration: write a number and a unit "
            "(y M w d h m s), e.g. 12h, 7d, 1h30m",
        ),
        (
            "9" * 100,
            False,
            "'99999999999999999999'… is not an nginx duration: write e.g. 12h, 7d, 1h30m",
        ),
        (-5, False, "a duration cannot be negative"),
        (True, False, "a duration is text like 10m, 12h or 7d, or whole seconds"),
        (1.5, True, "a duration is text like 10m, 12h or 7d, or whole seconds"),
    ],
)
def test_parse_duration_refuses_what_nginx_refuses(
    text: object, milliseconds: bool, message: str
) -> None:
    with pytest.raises(ValueError) as caught:
        parse_duration(text, milliseconds=milliseconds)
    assert str(caught.value) == message


def test_format_duration_writes_limits_as_people_do() -> None:
    assert [format_duration(ms) for ms in (0, 500, 60_000, 3_600_000, 365 * 86_400_000)] == [
        "0s",
        "500ms",
        "1m",
        "1h",
        "365d",
    ]


def test_a_size_for_ngx_parse_size_has_no_g() -> None:
    """`slice 1g;` is "invalid value" to nginx (ngx_parse_size knows k and m only)."""
    assert nginx_size(1 << 30, "mk") == "1024m"
    assert nginx_size(3 << 20, "mk") == "3m"
