"""The claims vocabulary (each direction word follows the two numbers it is given) and the
crossover line of a sweep (common.present.explain)."""

from __future__ import annotations

from common.formulas.thresholds import Crossover
from common.present import claims
from common.present.explain import crossover_line


def one(x: float) -> str:
    return f"{x:.1f}"


whole, ms = "{:.0f}".format, "{:.2f} ms".format


def test_each_word_follows_its_numbers() -> None:
    # n_of_m and listing, against their definitions by hand: test_say.py.
    said = [
        (claims.change(200.6, 295.2, one, " FLOP/B"), "rises from 200.6 to 295.2 FLOP/B"),
        (claims.change(295.2, 200.6, one, " FLOP/B"), "falls from 295.2 to 200.6 FLOP/B"),
        (claims.change(295.2, 295.2, one, " FLOP/B"), "stays at 295.2 FLOP/B"),
        (claims.change(295.21, 295.24, one), "stays at 295.2"),  # the same at the digits shown
        (claims.change(295.2, 295.3, one), "rises from 295.2 to 295.3"),
        (claims.change(2.0, 3.0, one, factor=True), "rises from 2.0 to 3.0 (x1.50)"),
        (claims.rose(3.0, 2.0, one), "fell from 3.0 to 2.0"),
        (claims.rose(2.0, 2.0, one, " ms"), "stayed at 2.0 ms"),
        (claims.rose(2.0, 3.0, str), "rose from 2.0 to 3.0"),
        (claims.grew(1.5), "grew x1.50"),
        (claims.grew(0.5), "shrank x2.00"),
        (claims.grew(1.0), "stayed the same"),
        (claims.grew(0.999), "stayed the same"),
        (claims.speed(4.18, 2.92), "x1.43 faster"),  # 4.18 / 2.92 = 1.4315
        (claims.speed(2.92, 4.18), "x1.43 slower"),
        (claims.speed(3.0, 3.0), "no faster"),
        (claims.times(2.0), "x2.00 more"),
        (claims.times(0.5), "x2.00 less"),
        (claims.times(1.0), "the same"),
        (claims.than(2.0), "x2.00 more than"),
        (claims.than(0.25, digits=1), "x4.0 less than"),
        (claims.than(1.0), "the same as"),
        (claims.than(1.004), "the same as"),  # x1.00: prints the same
        (claims.than(1.43, "bandwidth"), "x1.43 more bandwidth than"),
        (claims.than(0.5, "bandwidth"), "x2.00 less bandwidth than"),
        (claims.than(1.001, "bandwidth"), "the same bandwidth as"),
        (claims.more_or_fewer(3, 2, "sequences"), "more sequences"),
        (claims.more_or_fewer(2, 3, "sequences"), "fewer sequences"),
        (claims.more_or_fewer(2, 2), "as many"),
        (claims.side(295.2, 295.2), "compute-bound"),  # at the ridge: compute-bound
        (claims.side(295.1, 295.2), "memory-bound"),
        (claims.side(300.0, 295.2), "compute-bound"),
        # above, below or at, as printed
        (claims.above(201.0, 295.2, whole), "below"),
        (claims.above(1006.0, 295.2, whole), "above"),
        (claims.above(295.4, 295.2, whole), "at"),  # both print 295
        (claims.above(295.6, 295.2, whole), "above"),  # 296 against 295
        (claims.above(2.0, 2.0), "at"),
        (claims.above(2.06, 2.0), "above"),  # 2.1 against 2.0 at the default digits
        (claims.listing([], "nothing"), "nothing"),
        (claims.ratio(1.5), "x1.50"),
        (claims.ratio(1.5, 1), "x1.5"),
        # a factor that rounds to zero keeps two significant digits: 1/400 = 0.0025
        (claims.ratio(0.0025), "x0.0025"),
        (claims.ratio(0.004, 2), "x0.004"),
        (claims.ratio(0.005, 2), "x0.01"),
        (claims.ratio(0.04, 1), "x0.04"),
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
        (claims.regime(1.5, 200.6), "deep in the memory-bound regime"),  # 0.7% of the ridge
        (claims.regime(1.5, 0.5), "in the compute-bound regime"),  # 300%: not deep
        (claims.regime(100.0, 200.0), "in the memory-bound regime"),
        (claims.regime(200.4, 200.6), "at the ridge"),  # prints as 100%
        (claims.regime(5000.0, 200.0), "deep in the compute-bound regime"),  # x25
    ]
    assert [got for got, _ in said] == [want for _, want in said]
    directions = [(1.0, 2.0), (2.0, 1.0), (1.0, 1.0), (1.0, 1.04), (1.0, 1.06)]
    assert [claims.direction(a, b) for a, b in directions] == [1, -1, 0, 0, 1]  # 1.04: '1.0'


def test_outgrew_names_the_larger_growth_first() -> None:
    said = {
        (3.17, 2.15): "compute grew x3.17 but bandwidth only x2.15",
        (2.15, 3.17): "bandwidth grew x3.17 but compute only x2.15",
        (0.5, 2.15): "bandwidth grew x2.15 and compute shrank x2.00",
        (0.32, 0.46): "bandwidth shrank x2.17 and compute shrank x3.12",
        (2.0, 2.0): "compute and bandwidth both grew x2.00",
        (1.0, 2.0): "bandwidth grew x2.00 and compute stayed the same",
        (3.17, 1.5): "compute grew x3.17 but bandwidth only x1.50",  # both grew, one < 2
    }
    assert {(a, b): claims.outgrew("compute", a, "bandwidth", b) for a, b in said} == said


def test_crossover_line_names_the_interval_and_both_intensities_or_none() -> None:
    # I(128) = 120.47 and I(256) = 227.56 for [M, 4096] x [4096, 4096] in bf16, A100 I* 200.6
    line = crossover_line(Crossover(128, 256), {128: 120.471, 256: 227.555}, 200.64, "M", 4096)
    assert line == "crossover: M in (128, 256]: I(128) = 120.47 < I* = 200.64 <= I(256) = 227.56"
    # when nothing or everything crosses
    none = crossover_line(None, {}, 5.0, "B", 256, label="ridge crossing")
    assert none == "ridge crossing: none; every B up to 256 stays below I* = 5.00"
    first = crossover_line(Crossover(None, 1), {1: 9.0}, 5.0, "B", 256, ridge_digits=1)
    assert first == "crossover: none needed; already compute-bound at B = 1"
