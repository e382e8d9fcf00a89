"""Captions of the article's figures: what they tell the reader to look at, from known data."""

from __future__ import annotations

from toy_ledger import BATCHES, BUDGET, LOW, RATE, ROWS, TOY

from common.present import figures

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
    caption = figures.speedup_caption()  # where each upgrade pays
    assert "left of it only bandwidth helps, right of it only compute" in caption
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
    items = figures.drawn_observations(
        PEAK, BETA, points, ROWS, TOY, BATCHES, (RATE, LOW), BUDGET
    ).items
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
    empty = figures.drawn_observations(PEAK, BETA, [], None, TOY, BATCHES, (RATE, LOW), BUDGET)
    assert empty.items[0].startswith("The roofline shows the roofs only")
    assert len(empty.items) == 3  # no sweep sentence
    # Lecture 04 on a busy machine counted GEMM M=512 at 263% of its bound among the
    # operations 'the two-roof model explains within a factor of two'.
    points = [
        ("add", 1 / 12, 1.333e9, "memory"),  # 80% of its 1.667 GFLOP/s roof
        ("GEMM", 256.0, 2.63e11, "compute"),  # 263% of P = 100 GFLOP/s: off by x2.63
        ("near", 256.0, 2e11, "compute"),  # 200%: within a factor of two, just
    ]
    items = figures.drawn_observations(
        PEAK, BETA, points, None, TOY, BATCHES, (RATE, LOW), BUDGET
    ).items
    assert items[0].startswith("2 of the 3 operations on the roofline reach at least half")
