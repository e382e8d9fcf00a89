"""The sentences of common.present: the claims vocabulary (each direction word follows the
two numbers it is given), templates with say() (the English as before, and a tree another
language fills with the same numbers and branch), the crossover line of a sweep, and what
the article figures' captions tell the reader to look at, from known data."""

from __future__ import annotations

import copy
import pickle
import re

from hypothesis import given
from hypothesis import strategies as st
from toy_ledger import BATCHES, BUDGET, LOW, RATE, ROWS, TOY

from common.formulas.thresholds import Crossover
from common.present import claims, figures
from common.present.explain import crossover_line
from common.present.say import Say, filled, say

one, whole, ms = "{:.1f}".format, "{:.0f}".format, "{:.2f} ms".format


def test_each_word_follows_its_numbers() -> None:
    # n_of_m and listing, against their definitions by hand: below, with say()'s.
    said = [
        (claims.change(200.6, 295.2, one, " FLOP/B"), "rises from 200.6 to 295.2 FLOP/B"),
        (claims.change(295.2, 200.6, one, " FLOP/B"), "falls from 295.2 to 200.6 FLOP/B"),
        (claims.change(295.2, 295.2, one, " FLOP/B"), "stays at 295.2 FLOP/B"),
        (claims.change(295.21, 295.24, one), "stays at 295.2"),  # the same at the digits shown
        (claims.change(295.2, 295.3, one), "rises from 295.2 to 295.3"),
        (claims.change(2.0, 3.0, one, factor=True), "rises from 2.0 to 3.0 (x1.50)"),
        (claims.rose(3.0, 2.0, one), "fell from 3.0 to 2.0"),
        (claims.rose(2.0, 2.0, one, " ms"), "stayed at 2.0 ms"),
        (claims.rose(2.0, 3.0, str), "rose from 2.0 to 3.0"), (claims.grew(1.5), "grew x1.50"),
        (claims.grew(0.5), "shrank to 1/2.00"), (claims.grew(1.0), "stayed the same"),
        (claims.grew(0.999), "stayed the same"),
        (claims.speed(4.18, 2.92), "x1.43 faster"),  # 4.18 / 2.92 = 1.4315
        (claims.speed(2.92, 4.18), "x1.43 slower"), (claims.speed(3.0, 3.0), "no faster"),
        (claims.times(2.0), "x2.00 as much"), (claims.times(0.5), "1/2.00 as much"),
        (claims.times(1.0), "the same"),
        (claims.times(1 / 1024, 0), "1/1,024 as much"),  # the reciprocal, comma-grouped
        (claims.times(0.45, 0), "1/2 as much"),  # 0.45 prints 0: 1 / 0.45 = 2.2, never 1/1
        (claims.times(0.6, 0), "the same"),  # 0.6 prints 1
        (claims.multiple(1 / 12.345, 3, "g"), "1/12.3"),  # significant digits
        (claims.multiple(1 / 1500, 3, "g"), "1/1,500"),  # whole past 10^3, not 1/1.5e+03
        (claims.than(2.0), "x2.00 as much as"), (claims.than(0.25, digits=1), "1/4.0 as much as"),
        (claims.than(1.0), "the same as"),
        (claims.than(1.004), "the same as"),  # x1.00: prints the same
        (claims.than(1.43, "bandwidth"), "x1.43 as much bandwidth as"),
        (claims.than(0.5, "bandwidth"), "1/2.00 as much bandwidth as"),
        (claims.than(1.001, "bandwidth"), "the same bandwidth as"),
        (claims.more_or_fewer(3, 2, "sequences"), "more sequences"),
        (claims.more_or_fewer(2, 3, "sequences"), "fewer sequences"),
        (claims.more_or_fewer(2, 2), "as many"),
        (claims.side(295.2, 295.2), "compute-bound"),  # at the ridge: compute-bound
        (claims.side(295.1, 295.2), "memory-bound"), (claims.side(300.0, 295.2), "compute-bound"),
        # above, below or at, as printed
        (claims.above(201.0, 295.2, whole), "below"), (claims.above(1006.0, 295.2, whole), "above"),
        (claims.above(295.4, 295.2, whole), "at"),  # both print 295
        (claims.above(295.6, 295.2, whole), "above"),  # 296 against 295
        (claims.above(2.0, 2.0), "at"),
        (claims.above(2.06, 2.0), "above"),  # 2.1 against 2.0 at the default digits
        (claims.listing([], "nothing"), "nothing"), (claims.ratio(1.5), "x1.50"),
        (claims.ratio(1.5, 1), "x1.5"),
        # a factor that rounds to zero keeps two significant digits: 1/400 = 0.0025
        (claims.ratio(0.0025), "x0.0025"), (claims.ratio(0.004, 2), "x0.004"),
        (claims.ratio(0.005, 2), "x0.01"), (claims.ratio(0.04, 1), "x0.04"),
        (claims.ratio(0.0), "x0.00"),
        (claims.at_least(1024, 2**20), "1,024"),  # a search that stopped says so
        (claims.at_least(2**20, 2**20), "at least 1,048,576"),
        # binding names the lowest ceiling: 1 / 15.2 µs = 65,789 tokens/s of compute
        # against 199,676 of KV reads: compute binds
        (claims.binding([("kv", 199_676.0), ("compute", 1 / 15.2e-6)]), "compute"),
        (claims.binding([("kv", 6_240.0), ("compute", 65_789.0)]), "kv"),
        # speed agrees with the times printed beside it: 4.49 / 4.48 = 1.00223, the times
        # differ, so the factor takes a third digit; without `shown`, two digits
        (claims.speed(4.48, 4.49, shown=ms), "x1.002 slower"),
        (claims.speed(4.48, 4.49), "no faster"),
        # 1.0149 / 1.0051 = 1.00975 prints x1.01, but both times print 1.01 ms: no change said
        (claims.speed(1.0051, 1.0149, shown=ms), "no faster"),
        # 0.100 / 0.098 = 1.0204: one digit would print x1.0
        (claims.speed(0.100, 0.098, 1, shown="{:.3f}".format), "x1.02 faster"),
        (claims.speed(2.92, 4.18, 1, shown=ms), "x1.4 slower"),  # 1.43: one digit shows it
        # off_one: 1.03 prints 1.0 at one digit, 1.03 at two; 1.004 needs three; 5 at most
        (claims.off_one(1.03, 1), 2), (claims.off_one(1.004, 1), 3), (claims.off_one(1.5, 1), 1),
        (claims.off_one(1.0000001, 2), 5),
        (claims.regime(1.5, 200.6), "deep in the memory-bound regime"),  # 0.7% of the ridge
        (claims.regime(1.5, 0.5), "in the compute-bound regime"),  # 300%: not deep
        (claims.regime(100.0, 200.0), "in the memory-bound regime"),
        (claims.regime(200.4, 200.6), "at the ridge"),  # prints as 100%
        (claims.regime(5000.0, 200.0), "deep in the compute-bound regime"),  # x25
    ]  # fmt: skip
    assert [got for got, _ in said] == [want for _, want in said]
    directions = [(1.0, 2.0), (2.0, 1.0), (1.0, 1.0), (1.0, 1.04), (1.0, 1.06)]
    assert [claims.direction(a, b) for a, b in directions] == [1, -1, 0, 0, 1]  # 1.04: '1.0'
    # outgrew names the larger growth first
    said = {
        (3.17, 2.15): "compute grew x3.17 but bandwidth only x2.15",
        (2.15, 3.17): "bandwidth grew x3.17 but compute only x2.15",
        (0.5, 2.15): "bandwidth grew x2.15 and compute shrank to 1/2.00",
        (0.32, 0.46): "bandwidth shrank to 1/2.17 and compute shrank to 1/3.12",
        (2.0, 2.0): "compute and bandwidth both grew x2.00",
        (1.0, 2.0): "bandwidth grew x2.00 and compute stayed the same",
        (3.17, 1.5): "compute grew x3.17 but bandwidth only x1.50",  # both grew, one < 2
    }
    assert {(a, b): claims.outgrew("compute", a, "bandwidth", b) for a, b in said} == said


@given(st.floats(min_value=1e-6, max_value=1e6), st.integers(min_value=0, max_value=6))
def test_a_factor_prints_on_the_side_of_1_its_value_is(x: float, digits: int) -> None:
    # 'x2 as much' only for x > 1, '1/2 as much' only for x < 1 (never 1/1 or 1/0), 'the
    # same' only when x prints as 1 at these digits; grew says the same factor
    said = claims.times(x, digits)
    assert claims.grew(x, digits).endswith(said.removesuffix(" as much"))
    if said == "the same":
        assert f"{x:.{digits}f}" == f"{1:.{digits}f}"
    else:
        sign, number = re.fullmatch(r"(x|1/)([\d,.]+) as much", said).groups()
        assert float(number.replace(",", "")) > 1 and (x > 1) == (sign == "x")
    shown = claims.multiple(x, digits or 1, "g")  # significant digits, never in e-notation
    assert shown == "the same" or re.fullmatch(r"(x|1/)[\d,.]+", shown)


def test_crossover_line_names_the_interval_and_both_intensities_or_none() -> None:
    # I(128) = 120.47 and I(256) = 227.56 for [M, 4096] x [4096, 4096] in bf16, A100 I* 200.6
    line = crossover_line(Crossover(128, 256), {128: 120.471, 256: 227.555}, 200.64, "M", 4096)
    assert line == "crossover: M in (128, 256]: I(128) = 120.47 < I* = 200.64 <= I(256) = 227.56"
    # when nothing or everything crosses
    none = crossover_line(None, {}, 5.0, "B", 256, label="ridge crossing")
    assert none == "ridge crossing: none; every B up to 256 stays below I* = 5.00"
    first = crossover_line(Crossover(None, 1), {1: 9.0}, 5.0, "B", 256, ridge_digits=1)
    assert first == "crossover: none needed; already compute-bound at B = 1"


# --- Templates: say() ---
COUNTS = st.integers(min_value=0, max_value=10_000)
NAMES = st.lists(st.from_regex(r"[A-Za-z0-9-]{1,8}", fullmatch=True), max_size=6)


def _hand_n_of_m(n: int, m: int) -> str:
    """'a count of a whole', said by hand from the definition."""
    if n == m:
        return "the one" if m == 1 else f"all {m}"
    return f"none of the {m}" if n == 0 else f"{n} of the {m}"


@given(COUNTS, COUNTS)
def test_n_of_m_reads_as_before_and_keeps_its_branch(n: int, m: int) -> None:
    said = claims.n_of_m(n, m)
    assert said == _hand_n_of_m(n, m)
    assert isinstance(said, Say)
    assert filled(said.tree(), str) == said  # untranslated, the tree fills to the English
    # a stand-in language: the branch taken, the numbers kept
    marked = filled(said.tree(), lambda t: f"<{t}>")
    assert marked.startswith("<") and re.findall(r"\d+", marked) == re.findall(r"\d+", said)


@given(NAMES)
def test_a_listing_reads_as_before(items: list[str]) -> None:
    def by_hand(comma: str, and_: str) -> str:
        if len(items) > 1:
            return comma.join(items[:-1]) + and_ + items[-1]
        return items[0] if items else "none"

    said = claims.listing(items)
    assert said == by_hand(", ", " and ")
    # every joint is a template: a language with its own "and" says it
    said_tree = said.tree() if isinstance(said, Say) else said
    chinese = filled(said_tree, lambda t: t.replace(" and ", " 和 ").replace(", ", "、"))
    assert chinese == by_hand("、", " 和 ")


@given(st.integers(1, 64), st.integers(65, 4096), st.floats(1.0, 50.0), st.floats(1.0, 500.0),
       st.booleans())  # fmt: skip
def test_a_caption_fills_to_the_english_it_replaced(b0, b1, growth, gain, band: bool) -> None:
    rows = [
        {"B": b0, "latency_s": 1.0, "throughput_per_s": 1.0},
        {"B": b1, "latency_s": growth, "throughput_per_s": gain, "anomaly": True},
    ]
    caption = figures.sweep_caption(rows, (b0, b1) if band else None)
    # the sentence as written before templates, from the same numbers
    expected = (
        f"Left, the fastest measured call (solid) and the roofline's max(F/P, D/β) (dashed) "
        f"for B = {b0} to {b1}; right, tokens per second. Look at how little "
        f"the latency grows (x{growth:.1f}) while the throughput grows x{gain:.1f}.")  # fmt: skip
    if band:
        expected += (
            f" The grey band between B = {b0} and B = {b1} is where the model's "
            "intensity crosses the ridge point: left of it the weights' bytes set the time."
        )
    expected += f" Circled: B = {b1}, which break a rule no roofline can break."
    assert caption == expected
    assert filled(caption.tree(), str) == expected


def test_a_field_is_text_or_a_phrase_and_copies_keep_the_tree() -> None:
    said = say("{n} {what}", n=3, what=say("left"))
    assert said == "3 left"
    assert said.tree() == {
        "say": "{n} {what}",
        "fields": {"n": "3", "what": {"say": "left", "fields": {}}},
    }
    assert filled(said.tree(), {"{n} {what}": "{what}{n}", "left": "左"}.get) == "左3"
    for twin in (copy.deepcopy(said), pickle.loads(pickle.dumps(said))):
        assert twin == said and twin.tree() == said.tree()


# --- The article figures' captions ---
# P = 100 GFLOP/s, beta = 20 GB/s: ridge 5 FLOP/byte.
PEAK, BETA = 1e11, 2e10


def test_roofline_caption_names_the_roofs_and_the_gaps() -> None:
    points = [
        ("add", 1 / 12, 1.333e9 * 1.0, "memory"),  # roof 1/12 x 20 GB/s = 1.667 GFLOP/s: 80%
        ("GEMM", 256.0, 5e10, "compute"),  # roof P = 100 GFLOP/s: 50%
        ("fast", 0.1, 5e9, "memory"),  # roof 2 GFLOP/s: 250%, above it, so not quoted
    ]
    caption = figures.roofline_caption(PEAK, BETA, points)
    assert "β = 20.00 GB/s" in caption and "P = 100.0 GFLOP/s" in caption
    assert "I* = P/β = 5.00 FLOP/byte" in caption
    assert caption.endswith("add reaches its roof (80%), GEMM only 50% of it.")
    near = [("add", 1 / 12, 1.7e9, "memory"), *points[1:]]  # 102%: on the roof, within noise
    assert "add sits on its roof (102%)" in figures.roofline_caption(PEAK, BETA, near)
    empty = figures.roofline_caption(PEAK, BETA, [])
    assert empty.endswith("No operation is placed yet: run lecture 01 to measure them.")


def test_sweep_caption_quotes_the_growth_and_the_band() -> None:
    caption = figures.sweep_caption(ROWS, (2, 4))
    # latency 4.5 / 4.0 = x1.1; throughput (4 / 0.0045) / 250 = x3.6
    assert "the latency grows (x1.1) while the throughput grows x3.6" in caption
    assert "between B = 2 and B = 4" in caption
    assert "Circled: B = 2" in caption
    plain = figures.sweep_caption(ROWS[:1], None)
    assert "grey band" not in plain and "Circled" not in plain


def test_ledger_caption_points_at_the_first_bar_over_budget() -> None:
    caption = figures.ledger_caption(TOY, BATCHES, RATE, LOW, BUDGET)
    # totals at 20%: 2.70, 4.20, 7.20 GiB against 6.5; at 0% batch 4 is 6.00 and fits
    assert "the weights, 1.0 GiB at every batch" in caption
    assert "against the 6.5 GiB budget (dashed) the first bar over it is batch 4 (7.20 GiB)" in (
        caption
    )
    assert "at 0% overhead batch 4 fits as well" in caption
    roomy = figures.ledger_caption(TOY, BATCHES, RATE, LOW, 100 * 2**30)
    assert "every bar stays under it" in roomy and "fits as well" not in roomy


def test_the_speedup_caption_and_the_written_table() -> None:
    assert "left of it only bandwidth helps, right of it only compute" in figures.speedup_caption()
    # the table of figures written names files, not paths
    group = figures.written_table([("/somewhere/figs/a.png", "lecture 01"), ("b.png", "a formula")])
    assert group.items[1].rows == [["a.png", "lecture 01"], ["b.png", "a formula"]]
    assert "somewhere" not in str(group)


def test_drawn_observations_quote_each_figure_and_count_no_operation_far_above_its_roof():
    points = [
        ("add", 1 / 12, 1.333e9, "memory"),  # 80% of its roof
        ("GEMM", 256.0, 5e10, "compute"),  # 50%: exactly half counts
        ("slow", 1.0, 1e9, "memory"),  # roof 20 GFLOP/s: 5%
    ]
    ledger = (TOY, BATCHES, (RATE, LOW), BUDGET)
    items = figures.drawn_observations(PEAK, BETA, points, ROWS, *ledger).items
    assert items[0].startswith("2 of the 3 operations on the roofline reach at least half")
    # B = 4 vs B = 1: latency 4.5 / 4.0 = x1.1, throughput x3.6, x4 the tokens
    assert (
        "B = 4 takes x1.1 the time of B = 1 and delivers x3.6 the tokens per second, for x4"
        in (items[1])
    )
    # at 20%: 2.70 and 4.20 fit 6.5 GiB, 7.20 does not; at 0% all three fit
    assert items[2] == (
        "In the ledger, the largest batch of the figure that fits 6.5 GiB is 2 at 20% overhead "
        "and 4 at 0%."
    )
    # at the ridge max(F/2P, D/b) = max(0.5, 1) = 1: no gain; at I/I* = 0.25 memory binds
    assert items[3] == (
        "At the ridge itself (I/I* = 1) 2x compute buys x1.00 and 2x bandwidth x1.00; at "
        "I/I* = 0.25, 2x bandwidth buys x2.00 and 2x compute x1.00."
    )
    empty = figures.drawn_observations(PEAK, BETA, [], None, *ledger)
    assert empty.items[0].startswith("The roofline shows the roofs only")
    assert len(empty.items) == 3  # no sweep sentence
    # Lecture 04 on a busy machine counted GEMM M=512 at 263% of its bound among the
    # operations 'the two-roof model explains within a factor of two'.
    points = [
        ("add", 1 / 12, 1.333e9, "memory"),  # 80% of its 1.667 GFLOP/s roof
        ("GEMM", 256.0, 2.63e11, "compute"),  # 263% of P = 100 GFLOP/s: off by x2.63
        ("near", 256.0, 2e11, "compute"),  # 200%: within a factor of two, just
    ]
    items = figures.drawn_observations(PEAK, BETA, points, None, *ledger).items
    assert items[0].startswith("2 of the 3 operations on the roofline reach at least half")
