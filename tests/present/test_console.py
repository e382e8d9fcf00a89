"""Tests for common.console: unit formatting, tables, headers and observations."""

from __future__ import annotations

import math
import random
import re

import pytest

from common.present import console
from common.present.console import (
    fmt_bw,
    fmt_bytes,
    fmt_flops,
    fmt_fraction,
    fmt_num,
    fmt_rate,
    fmt_ratio,
    fmt_time,
    format_observations,
    format_table,
    print_header,
    print_observations,
    print_table,
)

# The team's text width: headers and observations fit an 88-column terminal and the docs'
# text column (the standard the console module implements; not imported from it).
WIDTH = 88


def test_each_formatter_prints_its_unit_and_digits() -> None:
    kib, mib, gib = 2**10, 2**20, 2**30
    said = [
        (fmt_num(8.67e9), "8.67 G"), (fmt_num(16), "16"), (fmt_num(0.5), "0.50"),
        (fmt_num(1e3), "1.00 K"), (fmt_num(2.5e15), "2.50 P"), (fmt_num(-4.2e6), "-4.20 M"),
        (fmt_flops(8.67e9), "8.67 GFLOP"), (fmt_rate(989e12), "989.0 TFLOP/s"),
        (fmt_rate(1979e12, digits=2), "1.98 PFLOP/s"), (fmt_bw(3.35e12), "3.35 TB/s"),
        (fmt_bw(4.5e10, digits=0), "45 GB/s"),
        # decimal and binary units kept apart
        (fmt_bytes(1000), "1.00 KB"), (fmt_bytes(1024), "1.02 KB"),
        (fmt_bytes(1024, binary=True), "1.00 KiB"),
        (fmt_bytes(1000, binary=True), "1000 B"),  # not a KiB yet
        (fmt_bytes(1e6), "1.00 MB"), (fmt_bytes(mib), "1.05 MB"),
        (fmt_bytes(mib, binary=True), "1.00 MiB"),
        (fmt_bytes(13.0 * gib, binary=True), "13.00 GiB"),
        (fmt_bytes(138.41e6), "138.41 MB"), (fmt_bytes(512, binary=True), "512 B"),
        # a fixed unit, and three significant figures
        (fmt_bytes(80e9, unit="GB"), "80.00 GB"),  # 80e9 / 1e9
        (fmt_bytes(3 * mib, unit="MiB", digits=1), "3.0 MiB"),
        (fmt_bytes(228 * kib, binary=True, digits=None), "228 KiB"),  # 233472 / 1024
        (fmt_bytes(1290, binary=True, digits=None), "1.26 KiB"),  # 1290 / 1024 = 1.2598
        (fmt_bytes(105 * mib + 1, binary=True, digits=None), "105 MiB"),
        (fmt_bytes(12.5 * kib, binary=True, digits=None), "12.5 KiB"),
        # from ns to s
        (fmt_time(0), "0.00 ns"), (fmt_time(5e-9), "5.00 ns"), (fmt_time(123e-9), "123 ns"),
        (fmt_time(2.5e-6), "2.50 µs"), (fmt_time(30e-6), "30.0 µs"), (fmt_time(139e-6), "139 µs"),
        (fmt_time(0.089e-3), "89.0 µs"), (fmt_time(1.40e-3), "1.40 ms"), (fmt_time(0.5), "500 ms"),
        (fmt_time(1.5), "1.50 s"), (fmt_time(42.0), "42.0 s"),
        (fmt_time(999.96e-6), "1.00 ms"),  # rounds up into the next unit, never "1000 µs"
        (fmt_time(999.6e-9), "1.00 µs"),
        # never a time that is not zero as zero: lecture 06 --batch 1 --context 1: softmax's
        # 160 FLOP at the H100's 989 TFLOP/s take 1.62e-13 s, once printed "0.00 ns"
        (fmt_time(160 / 989e12), "0.16 ps"),
        (fmt_time(5e-10), "0.50 ns"),  # 0.5 ns prints in ns, as before
        (fmt_time(4e-12), "4.00 ps"),  # 0.004 ns would print 0.00 ns
        (fmt_time(72e-12), "72.0 ps"),  # 0.072 ns would print one digit, 0.07 ns
        (fmt_time(3e-15), "0.003 ps"), (fmt_time(0.028e-3, unit="ms"), "0.028 ms"),
        (fmt_time(1e-3, unit="µs", digits=1), "1,000.0 µs"),  # grouped as counts are
        (fmt_time(1e-3, unit="us", digits=0), "1,000 us"), (fmt_time(2.5, digits=3), "2.500 s"),
        # the article's three decimals, never zero
        (fmt_ratio(3.17), "x3.17"), (fmt_ratio(2.0, digits=1), "x2.0"),
        (fmt_fraction(2068 / 200.64), "10.307"),  # ART 3.3: 2068.0 / 200.6 = 10.307
        (fmt_fraction((1 / 6) / 200.64), "0.001"),  # 0.000831 rounds to the article's 0.001
        (fmt_fraction(0.00012), "0.00012"),  # not 0.000: two significant digits
        (fmt_fraction(0.0), "0.000"),
        # the named shortcuts
        (console.fmt_gb(141e9), "141.00 GB"), (console.fmt_gb(1342.05e9), "1,342.05 GB"),
        (console.fmt_kib(233472), "228 KiB"), (console.fmt_kib(131072, 2), "128.00 KiB"),
        (console.fmt_pct(0.873), "87%"), (console.fmt_pct(0.5, 1), "50.0%"),
        # 0.04% and 0.4%: not zero, so never "0.0%" or "0%"; zero itself prints as zero
        (console.fmt_pct(0.0004, 1), "under 0.1%"), (console.fmt_pct(0.004), "under 1%"),
        (console.fmt_pct(0.0, 1), "0.0%"), (console.fmt_pct(0.0006, 1), "0.1%"),
        (console.fmt_peak(312e12), "312 TFLOP/s"), (console.fmt_peak(1979e12), "1979 TFLOP/s"),
        # the H100's fp8 peak x1000 (lecture 05 after the edit) once printed '1.979e+06 TFLOP/s'
        (console.fmt_peak(1979e12 * 1000), "1979000 TFLOP/s"),
        (console.fmt_peak(989e12 * 1000), "989000 TFLOP/s"),
        (console.fmt_peak(197e12 * 1e-7), "0.0000197 TFLOP/s"),  # 19.7 MFLOP/s, no e-05
        (console.fmt_si(1555e9, "B/s"), "1.555 TB/s"), (console.fmt_si(45e9, "B/s"), "45 GB/s"),
        (console.fmt_si(12.0, "B"), "12 B"),
        (console.fmt_intensity(0.25), "0.250"), (console.fmt_intensity(295.23), "295.2"),
        (console.fmt_intensity(2 * 4096**3, 3 * 2 * 4096**2, 2, 0), "1365"),  # 4096 / 3
        (console.fmt_intensity(1.0, 4.0, 2, 0), "0.25"),
        (console.fmt_intensity(5.0, 0.0), "-"),  # nothing leaves the chip
        (console.fmt_batch(1024), "1,024"), (console.fmt_batch(None), "-"),
        (console.fmt_batch(None, "never"), "never"), (console.fmt_batch(7, "never"), "7"),
    ]  # fmt: skip
    assert [got for got, _ in said] == [want for _, want in said]
    with pytest.raises(ValueError, match="unknown byte unit"):
        fmt_bytes(1.0, unit="kb")
    with pytest.raises(ValueError, match="ns, µs, ms, s"):
        fmt_time(1.0, unit="hours")


def test_random_values_print_in_their_unit_at_their_digits() -> None:
    rng = random.Random(3)
    scales = {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15}
    scales.update({"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50})
    for _ in range(300):
        n = 10 ** rng.uniform(0, 17)
        for binary in (False, True):
            number, unit = fmt_bytes(n, binary=binary).split()
            assert float(number) * scales[unit] == pytest.approx(n, rel=0.01)
            assert ("i" in unit) == (binary and unit != "B"), unit  # never KB beside KiB
    # fmt_time: three significant figures, and never zero
    rng = random.Random(4)
    scales = {"ps": 1e-12, "ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
    for _ in range(500):
        t = 10 ** rng.uniform(-9, 1)
        number, unit = fmt_time(t).split()
        assert float(number) * scales[unit] == pytest.approx(t, rel=0.01)
        if unit != "s":
            assert 1 <= float(number) < 1000 or unit == "ns", fmt_time(t)
        assert len(re.sub(r"\D", "", number).lstrip("0")) == 3, fmt_time(t)
    rng = random.Random(7)
    for _ in range(300):
        t = 10 ** rng.uniform(-17, -8)
        number, unit = fmt_time(t).split()
        assert float(number) > 0, fmt_time(t)
        assert float(number) * scales[unit] == pytest.approx(t, rel=0.05)  # 2 digits or more


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, "abc", None])
@pytest.mark.parametrize("formatter", [fmt_num, fmt_bytes, fmt_time, fmt_ratio, fmt_fraction,
                                      fmt_bw])  # fmt: skip
def test_formatters_reject_non_finite(formatter, bad) -> None:
    with pytest.raises(ValueError, match="must be"):
        formatter(bad)


def test_format_table_aligns_numbers_right_text_left_and_refuses_ragged_rows() -> None:
    lines = format_table(["chip", "ridge"], [["H100 SXM", "295"], ["TPU v5e", "1875"]]).splitlines()
    assert lines[0] == "chip      ridge" and lines[1] == "--------  -----"
    assert lines[2] == "H100 SXM    295"
    assert lines[3] == "TPU v5e    1875"
    # ratio (also '1/33 as much') and comma numbers are right-aligned, 'D > ...' text left
    cells = [["x2.15", "1,875", "D > 8,755.6"], ["1/33 as much", "12", "D > 1.0"]]
    rows = format_table(["a", "b", "c"], cells).splitlines()[2:]
    assert rows[0].startswith(" " * 7 + "x2.15")
    assert rows[1].split("  ")[-1] == "D > 1.0"
    assert format_table(["a", "bb"], []) == "a  bb\n-  --"  # no rows
    # fmt_pct's 'under 0.1%' is a share like '6.5%': the column stays right-aligned
    assert format_table(["s"], [["6.5%"], ["under 0.1%"]]).splitlines()[2] == "      6.5%"
    with pytest.raises(ValueError, match="2 cells, header has 3"):
        format_table(["a", "b", "c"], [["1", "2"]])


def test_headers_tables_and_observations_fit_the_width_and_progress_is_quiet(capsys) -> None:
    print_header("1. Basics")
    print_table(["x"], [[1]])
    print_observations(["first " * 40, "second"])
    out = capsys.readouterr().out
    assert "\n1. Basics\n====================\n" in out  # underline at least 20 wide
    assert "What to observe:" in out
    assert "  1. first" in out and "  2. second" in out
    assert max(len(line) for line in out.splitlines()) <= WIDTH
    # the underline follows the title, up to the width
    print_header("t" * 40)
    print_header("u" * 200)
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == "=" * 40
    assert lines[5] == "=" * WIDTH
    # observations wrap with a hanging indent
    lines = format_observations(["word " * 60], title="Notes").splitlines()
    assert lines[0] == "Notes:" and lines[1].startswith("  1. word")
    assert all(line.startswith("     word") and len(line) <= WIDTH for line in lines[2:])
    # a number keeps its unit: 5 + 78 + len(" 4.48") = 88 fits the line, " ms" would not
    lines = format_observations(["a" * 78 + " 4.48 ms and 8.03 G."]).splitlines()
    assert lines[2:] == ["     4.48 ms and 8.03 G."]
    console.progress("working")  # silent when not a terminal
    console.progress_done()
    assert capsys.readouterr() == ("", "")
