"""The claims vocabulary: each direction word follows the two numbers it is given."""

from __future__ import annotations

import pytest

from common.present import claims


def one(x: float) -> str:
    return f"{x:.1f}"


@pytest.mark.parametrize(
    ("before", "after", "said"),
    [
        (200.6, 295.2, "rises from 200.6 to 295.2 FLOP/B"),
        (295.2, 200.6, "falls from 295.2 to 200.6 FLOP/B"),
        (295.2, 295.2, "stays at 295.2 FLOP/B"),
        (295.21, 295.24, "stays at 295.2 FLOP/B"),  # the same at the digits shown
        (295.2, 295.3, "rises from 295.2 to 295.3 FLOP/B"),
    ],
)
def test_change_picks_the_word_from_the_numbers(before, after, said) -> None:
    assert claims.change(before, after, one, " FLOP/B") == said


def test_change_with_a_factor_and_other_words() -> None:
    assert claims.change(2.0, 3.0, one, factor=True) == "rises from 2.0 to 3.0 (x1.50)"
    assert claims.rose(3.0, 2.0, one) == "fell from 3.0 to 2.0"
    assert claims.rose(2.0, 2.0, one, " ms") == "stayed at 2.0 ms"
    assert claims.rose(2.0, 3.0, str) == "rose from 2.0 to 3.0"


def test_direction() -> None:
    assert claims.direction(1.0, 2.0) == 1
    assert claims.direction(2.0, 1.0) == -1
    assert claims.direction(1.0, 1.0) == 0
    assert claims.direction(1.0, 1.04) == 0  # '1.0' both at one decimal
    assert claims.direction(1.0, 1.06) == 1


@pytest.mark.parametrize(
    ("factor", "said"),
    [(1.5, "grew x1.50"), (0.5, "shrank x2.00"), (1.0, "stayed the same"),
     (0.999, "stayed the same")],
)  # fmt: skip
def test_grew(factor, said) -> None:
    assert claims.grew(factor) == said


@pytest.mark.parametrize(
    ("before", "after", "said"),
    # 4.18 / 2.92 = 1.4315
    [(4.18, 2.92, "x1.43 faster"), (2.92, 4.18, "x1.43 slower"), (3.0, 3.0, "no faster")],
)
def test_speed(before, after, said) -> None:
    assert claims.speed(before, after) == said


def test_times_and_comparisons() -> None:
    assert claims.times(2.0) == "x2.00 more"
    assert claims.times(0.5) == "x2.00 less"
    assert claims.times(1.0) == "the same"
    assert claims.than(2.0) == "x2.00 more than" and claims.than(0.25, digits=1) == "x4.0 less than"
    assert claims.than(1.004) == "the same as"  # x1.00: prints the same
    assert claims.more_or_fewer(3, 2, "sequences") == "more sequences"
    assert claims.more_or_fewer(2, 3, "sequences") == "fewer sequences"
    assert claims.more_or_fewer(2, 2) == "as many"


# n_of_m and listing, against their definitions by hand: test_say.py.
def test_side_of_the_ridge_and_above_below_or_at() -> None:
    assert claims.side(295.2, 295.2) == "compute-bound"  # at the ridge: compute-bound
    assert claims.side(295.1, 295.2) == "memory-bound"
    assert claims.side(300.0, 295.2) == "compute-bound"
    # above, below or at, as printed
    whole = "{:.0f}".format
    assert claims.above(201.0, 295.2, whole) == "below"
    assert claims.above(1006.0, 295.2, whole) == "above"
    assert claims.above(295.4, 295.2, whole) == "at"  # both print 295
    assert claims.above(295.6, 295.2, whole) == "above"  # 296 against 295
    assert claims.above(2.0, 2.0) == "at"
    assert claims.above(2.06, 2.0) == "above"  # 2.1 against 2.0 at the default digits


@pytest.mark.parametrize(
    ("ra", "rb", "said"),
    [
        (3.17, 2.15, "compute grew x3.17 but bandwidth only x2.15"),
        (2.15, 3.17, "bandwidth grew x3.17 but compute only x2.15"),
        (0.5, 2.15, "bandwidth grew x2.15 and compute shrank x2.00"),
        (0.32, 0.46, "bandwidth shrank x2.17 and compute shrank x3.12"),
        (2.0, 2.0, "compute and bandwidth both grew x2.00"),
        (1.0, 2.0, "bandwidth grew x2.00 and compute stayed the same"),
        (3.17, 1.5, "compute grew x3.17 but bandwidth only x1.50"),  # both grew, one < 2
    ],
)
def test_outgrew_names_the_larger_growth_first(ra, rb, said) -> None:
    assert claims.outgrew("compute", ra, "bandwidth", rb) == said


def test_ratio_and_an_empty_listing() -> None:
    assert claims.listing([], "nothing") == "nothing"
    assert claims.ratio(1.5) == "x1.50"
    assert claims.ratio(1.5, 1) == "x1.5"
    # a factor that rounds to zero keeps two significant digits: 1/400 = 0.0025
    assert claims.ratio(0.0025) == "x0.0025"
    assert claims.ratio(0.004, 2) == "x0.004" and claims.ratio(0.005, 2) == "x0.01"
    assert claims.ratio(0.04, 1) == "x0.04" and claims.ratio(0.0) == "x0.00"


def test_than_puts_the_factor_before_its_reference() -> None:
    assert claims.than(1.43, "bandwidth") == "x1.43 more bandwidth than"
    assert claims.than(0.5, "bandwidth") == "x2.00 less bandwidth than"
    assert claims.than(1.001, "bandwidth") == "the same bandwidth as"
    assert claims.than(5.32) == "x5.32 more than"
    assert claims.than(1.0) == "the same as"


def test_at_least_says_when_a_search_stopped_and_binding_the_lowest_ceiling() -> None:
    assert claims.at_least(1024, 2**20) == "1,024"
    assert claims.at_least(2**20, 2**20) == "at least 1,048,576"
    # binding names the lowest ceiling
    # 1 / 15.2 µs = 65,789 tokens/s of compute against 199,676 of KV reads: compute binds
    assert claims.binding([("kv", 199_676.0), ("compute", 1 / 15.2e-6)]) == "compute"
    assert claims.binding([("kv", 6_240.0), ("compute", 65_789.0)]) == "kv"


@pytest.mark.parametrize(
    ("intensity", "ridge", "said"),
    [
        (1.5, 200.6, "deep in the memory-bound regime"),  # 0.7% of the ridge
        (1.5, 0.5, "in the compute-bound regime"),  # 300%: not deep, not memory-bound
        (100.0, 200.0, "in the memory-bound regime"),
        (200.4, 200.6, "at the ridge"),  # prints as 100%
        (5000.0, 200.0, "deep in the compute-bound regime"),  # x25
    ],
)
def test_regime_from_the_ratio(intensity, ridge, said) -> None:
    assert claims.regime(intensity, ridge) == said


def test_speed_agrees_with_the_times_printed_beside_it() -> None:
    ms = "{:.2f} ms".format
    # 4.49 / 4.48 = 1.00223: the times differ, so the factor takes a third digit
    assert claims.speed(4.48, 4.49, shown=ms) == "x1.002 slower"
    assert claims.speed(4.48, 4.49) == "no faster"  # without `shown`, two digits as before
    # 1.0149 / 1.0051 = 1.00975 prints x1.01, but both times print 1.01 ms: no change said
    assert claims.speed(1.0051, 1.0149, shown=ms) == "no faster"
    # 0.100 / 0.098 = 1.0204: one digit would print x1.0
    assert claims.speed(0.100, 0.098, 1, shown="{:.3f}".format) == "x1.02 faster"
    assert claims.speed(2.92, 4.18, 1, shown=ms) == "x1.4 slower"  # 1.43: one digit shows it
