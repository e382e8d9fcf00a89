"""Lecture 11's words: each sentence worked by hand from round numbers."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from common.formulas.predict import Decomposition, Roofs, Term
from common.hw_specs import Chip, bandwidth, capacity, flops
from common.tables.measurements import Measured
from lectures.words import predict_and_check as page

U = page.Util
TOY = Chip(
    name="Toy", key="toy", peak_flops_table={"bf16": flops(100e12, "sheet")},
    mem_bw_figure=bandwidth(1e12, "sheet"), mem_capacity_figure=capacity(8e9, "sheet"),
    link_bw_figure=bandwidth(100e9, "sheet"), link_name="L1",
    achievable_flops_table={"bf16": flops(80e12, "blog A", note="best shape")},
    achievable_mem_bw_figure=bandwidth(1.2e12, "doc B"),
)  # fmt: skip
SPEC = Roofs("spec", 100e12, 1e12, 100e9)
ACH = Roofs("achievable", 80e12, 1.2e12, 100e9, ("compute", "memory"))


def case(label: str, measured: float, spec: float, ach: float) -> page.Case:
    return page.Case(label, Measured(label, measured, "src"), spec, ach)


def row(label: str, gpus: int, measured: float, bound: float, full: float, role="validation",
        chip=""):  # fmt: skip
    return page.RequestRow(label, "eng", gpus, measured, bound, full, role, chip)


def test_versus_words() -> None:
    assert page.versus(2.0, 1.0) == "takes x2.00 the predicted time (longer)"
    assert page.versus(0.5, 1.0).endswith("(shorter: faster than the bound)")
    assert page.versus(1.001, 1.0) == "matches the prediction"
    assert page.versus(1.0052, 1.0) == "takes x1.01 the predicted time (longer)"  # past 0.5%
    assert page.versus(1.0, 1.0) == "matches the prediction"


@pytest.mark.parametrize(("args", "said"), [
    (([1, 64, 256], 1, 200, 100), [
        "The measured mm stays within 25% of its time at n = 1 up to n = 64 and has left it "
        "by n = 256.",
        "Predicted: the spec ridge is n = 200 and the achievable ridge n = 100, both inside "
        "that interval.",
    ]),
    (([1, 64, 256], 1, 64, 257), [
        "Predicted: the spec ridge is n = 64, at or below the flat part's end: it stays "
        "memory-bound longer than predicted; the achievable ridge is n = 257, above that "
        "interval: the kernel leaves the memory roof before the prediction says.",
    ]),
    # the ridge on the interval's upper end (256) and just past its lower end (65): inside
    (([1, 64, 256], 1, 256, 65), [
        "Predicted: the spec ridge is n = 256 and the achievable ridge n = 65, both inside "
        "that interval.",
    ]),
    (([1, 64, 256], 1, 200, None), ["up to n = 64 and has left it by n = 256",
                                    "inside that interval", "achievable roofs give no ridge"]),
    (([1, 64, 256], 1, 32, 300), ["stays memory-bound longer", "above that interval"]),
    (([1, 64], 1, 32, None, 0.1), ["within 10% up to the largest n measured (64)"]),
])  # fmt: skip
def test_knee_sentences_place_the_ridge(args: tuple, said: list[str]) -> None:
    items = page.knee_observations("mm", *args).items
    assert [s for s in said if s not in " ".join(items)] == [], items


ABOVE = (
    "1 of 2 runs show a utilisation above 100% (x): no GPU beats its own peak, so the table's "
    "spec figure is below what the measured GPU did (an edited or a wrong figure).")  # fmt: skip
MEMORY_BOUND = (
    "The lowest MFU is d at 0.4%, yet its MBU is 76.0%: its memory bus is the busier "
    "resource. A low MFU there says the step is memory-bound, not that the kernels are bad."
)


@pytest.mark.parametrize(("rows", "index", "said"), [
    ([U("d", 1, 1, 1, 0.004, 0.76), U("p", 1, 1, 1, 0.66, 0.35)], 0, MEMORY_BOUND),
    # MBU 20% against MFU 20%: not busier, so neither is busy; 1.0 / 0.2 = x5
    ([U("e", 1, 1, 1, 0.2, 0.2), U("p", 1, 1, 1, 1.0, 0.5)], 0,
     "The lowest MFU is e at 20.0%, and its MBU is lower still (20.0%): neither resource "
     "is busy."),
    ([U("e", 1, 1, 1, 0.2, 0.2), U("p", 1, 1, 1, 1.0, 0.5)], 1,
     "The highest MFU is p at 100.0% (x5 the lowest)."),
    ([U("i", 1, 1, 1, 0.01, 0.005), U("p", 1, 1, 1, 0.66, 0.35)], 0,
     "The lowest MFU is i at 1.0%, and its MBU is lower still (0.5%): neither resource "
     "is busy."),
    # an MBU above 100% and an MFU above 100%: each is impossible
    ([U("x", 1, 1, 1, 0.2, 1.5), U("y", 1, 1, 1, 0.5, 0.5)], 0, ABOVE),
    ([U("x", 1, 1, 1, 1.5, 0.2), U("d", 1, 1, 1, 0.004, 0.76)], 0, ABOVE),
    # 0.5 / 0.01 = x50
    ([U("a", 1, 1, 1, 0.01, 0.5), U("b", 1, 1, 1, 0.5, 0.1)], -1,
     "The highest MFU is b at 50.0% (x50 the lowest)."),
    # by name "z" would be the highest; by MFU "a" is
    ([U("z", 1, 1, 1, 0.01, 0.5), U("a", 1, 1, 1, 0.5, 0.1)], -1,
     "The highest MFU is a at 50.0% (x50 the lowest)."),
])  # fmt: skip
def test_utilisation_words(rows: list[page.Util], index: int, said: str) -> None:
    assert page.utilisation_observations(rows).items[index] == said


def test_utilisation_table_by_hand() -> None:
    t = page.utilisation_table([U("p", 2e12, 3e9, 0.01, 0.5, 0.25)], 100e12, 1e12)
    assert list(t.headers) == ["case", "model FLOPs", "bytes moved", "measured", "MFU", "MBU"]
    assert list(t.rows[0]) == ["p", "2.00 TFLOP", "3.00 GB", "10.00 ms", "50.0%", "25.0%"]
    assert t.title and t.note == (
        "MFU = model FLOPs / (time x GPUs x 100.0 TFLOP/s); MBU = bytes / (time x GPUs x 1.00 TB/s)"
    )


@pytest.mark.parametrize(("terms", "bound", "said"), [
    # 0.9 + 0.3 = 1.2 s named against 1.0 s measured: 200 ms over
    ((Term("roofline at spec peaks", 0.9), Term("compute efficiency", 0.3)), 0.95,
     "c: beyond the bound at spec, the largest named term is compute efficiency, 300.00 ms; "
     "the named terms overshoot the measurement by 200.00 ms: the bound at achievable roofs "
     "(950.00 ms) stays below it, so the terms measured elsewhere (the all-reduce curve, the "
     "kernel floor) are too large for this run."),
    ((Term("roofline at spec peaks", 0.5), Term("x", 0.5)), 0.5,
     "c: beyond the bound at spec, the largest named term is x, 500.00 ms; 0.0% of the "
     "measured time (0.00 ms) stays unexplained."),
    # by name "zz small" would win; by seconds "big" does
    ((Term("roofline at spec peaks", 0.5), Term("zz small", 0.01), Term("big", 0.3)), 0.9,
     "c: beyond the bound at spec, the largest named term is big, 300.00 ms; 19.0% of the "
     "measured time (190.00 ms) stays unexplained."),
])  # fmt: skip
def test_decomposition_words(terms: tuple[Term, ...], bound: float, said: str) -> None:
    assert page.decomposition_observations(["c"], [Decomposition(1.0, terms)], [bound]).items == [
        said
    ]


def test_decomposition_table_and_words_by_hand() -> None:
    d = Decomposition(
        0.010, (Term("roofline at spec peaks", 0.006), Term("a", 0.001), Term("b", 0.002))
    )
    t = page.decomposition_table(["one"], [d])
    assert list(t.headers) == ["term", "one"] and t.title == "Where the time goes (ms)"
    assert [list(r) for r in t.rows] == [
        ["roofline at spec peaks", "6.00 ms"], ["a", "1.00 ms"], ["b", "2.00 ms"],
        ["explained (sum)", "9.00 ms"], ["unexplained", "1.00 ms"], ["measured", "10.00 ms"],
    ]  # fmt: skip
    assert page.decomposition_observations(["one"], [d], [0.007]).items == [
        "one: beyond the bound at spec, the largest named term is b, 2.00 ms; 10.0% of the "
        "measured time (1.00 ms) stays unexplained."
    ]
    with pytest.raises(ValueError, match="zip"):
        page.decomposition_observations(["a", "b"], [d], [0.95])


def test_comms_sentences() -> None:
    low = [Measured("lo", 40e-6, "s"), Measured("hi", 50e-6, "s")]
    under = " ".join(page.comms_observation(20e-6, low).items)
    assert under.startswith(
        "Read off the measured curve at the real message, two all-reduces take 20.0 µs per layer "
        "for decode on two GPUs"
    )
    assert "shows 40 µs to 50 µs per layer: the curve is at 1/2.0 of the low end." in under
    assert "The curve was measured on another machine (a DGX A100 80GB)" in under
    above = " ".join(page.comms_observation(100e-6, low).items)
    assert "at x2.0 the high end. The curve was measured" in above
    # 39.9 and 50.1 µs: x1.0 off at one decimal, said as just below and just above
    assert "the curve is just below the low end." in page.comms_observation(39.9e-6, low).items[0]
    assert "the curve is just above the high end." in page.comms_observation(50.1e-6, low).items[0]
    for per_layer in (40e-6, 45e-6, 50e-6):  # the edges are inside
        said = page.comms_observation(per_layer, low).items[0]
        assert said.endswith("the curve is inside that range.")
    # 2 ms and 3 ms of profile, shown as 2,000 µs and 3,000 µs beside the curve's µs
    wide = [Measured("lo", 2e-3, "s"), Measured("hi", 3e-3, "s")]
    said = page.comms_observation(2.5e-3, wide).items[0]
    assert "2,500.0 µs per layer" in said and "2,000 µs to 3,000 µs per layer" in said


def test_requests_table_and_words_by_hand() -> None:
    rows = [row("a", 1, 1.0, 0.5, 0.9, "calibration", "h100"),
            row("b", 1, 2.0, 1.0, 2.2, chip="h100"), row("c", 4, 1.0, 0.2, 0.7, chip="a100"),
            row("d", 4, 1.0, 0.3, 0.95, chip="a100")._replace(engine="vLLM, its CI")]  # fmt: skip
    t = page.requests_table(rows)
    assert list(t.rows[0]) == [
        "a", "eng", "calibration", "1,000.00 ms", "500.00 ms", "-50.0%", "900.00 ms", "-10.0%",
    ]  # fmt: skip
    assert t.rows[1][-1] == "+10.0%" and t.title == "Published requests: calibration and validation"
    assert page.requests_observations(rows).items == [
        # calibration: a alone, forecast -10%, bound -50%
        "Calibration (1 case): the forecast's median absolute error is 10.0%, the one within "
        "20%; the bound alone 50.0%.",
        # validation: b, c, d: forecast +10, -30, -5 (median 10%), 2 within 20%; bound 50, 80, 70
        "Validation (3 cases): the forecast's median absolute error is 10.0%, 2 of the 3 "
        "within 20%; the bound alone 70.0%.",
        "No forecast of the 4 falls below its bound, as none may.",
        "The worst forecast is c at -30.0%.",
        # by source, validation only (a is calibration): eng median(10, 30) = 20%, d's 5%
        "By source, the validation cases' median absolute error (cases): eng 20.0% (2); "
        "vLLM, its CI 5.0% (1).",
        # by chip: a100 median(30, 5) = 17.5%, h100 b's 10%
        "By chip, the validation cases' median absolute error (cases): a100 17.5% (2); "
        "h100 10.0% (1).",
        "By GPU count, the validation cases' median absolute error (cases): 1 GPU 10.0% (1); "
        "4 GPUs 17.5% (2).",
    ]
    low = page.requests_observations([row("a", 2, 1.0, 0.5, 0.4)]).items
    assert low[0] == "No calibration case is listed."
    assert low[2] == "1 of 1 forecasts fall below their bound: an engine term came out negative."
    rows = [row("a", 1, 1.0, 0.5, 0.9), row("b", 1, 1.0, 0.5, 1.1)]
    assert "(2 cases)" in page.requests_observations(rows).items[1]
    rows = [row("a", 2, 1.0, 0.5, 1.0), row("b", 2, 1.0, 0.5, 0.8), row("c", 8, 1.0, 0.5, 1.2)]
    items = page.requests_observations(rows).items
    assert items[1] == (
        "Validation (3 cases): the forecast's median absolute error is 20.0%, all 3 within "
        "20%; the bound alone 50.0%."
    )
    assert items[-1] == (
        "By GPU count, the validation cases' median absolute error (cases): 2 GPUs 10.0% (2); "
        "8 GPUs 20.0% (1)."
    )
    rows = [row("a", 1, 1.0, 0.5, 0.9), row("b", 1, 1.0, 0.5, 0.9)._replace(engine_class="vllm")]
    assert page.requests_table(rows).note.endswith("(--engine trtllm, vllm)")


@pytest.mark.parametrize(("by", "fragments"), [
    # batch 1: |-10%|; batches 2 and 8: |+20%| and |-40%|, median 30%
    ([{"batch": 1}, {"batch": 2}, {"batch": 8}],
     ["By batch", "batch 1 10.0% (1)", "batch 2 or more 30.0% (2)"]),
    # SHORT = 512 tokens: 512 is up to it, 513 over
    ([{"prompt": 512}, {"prompt": 513}],
     ["By prompt", "prompt over 512 20.0% (1)", "prompt up to 512 10.0% (1)"]),
    ([{"precision": "bf16"}, {"precision": "fp8"}, {"precision": "fp8"}],
     ["By precision", "bf16 10.0% (1)", "fp8 30.0% (2)"]),
])  # fmt: skip
def test_requests_grouped_by_batch_and_prompt(by: list[dict], fragments: list[str]) -> None:
    forecasts = (0.9, 1.2, 0.6)
    rows = [
        page.RequestRow(label, "eng", 1, 1.0, 0.5, forecast, "validation", **kw)
        for label, forecast, kw in zip("abc", forecasts, by, strict=False)]  # fmt: skip
    said = [i for i in page.requests_observations(rows).items if fragments[0] in i]
    assert said and all(f in said[0] for f in fragments[1:]), said


def test_bulk_table_by_hand() -> None:
    # h100 bf16: -10%, +30%, -5% (median -5%, |e| median 10%, 2 within 20%); a100 fp8: +10%
    runs = [(1.0, 0.9, "h100", "bf16"), (1.0, 1.3, "h100", "bf16"), (2.0, 1.9, "h100", "bf16"),
            (1.0, 1.1, "a100", "fp8")]  # fmt: skip
    rows = [page.RequestRow("r", "eng", 1, m, 0.5, f, "validation", chip, precision=p)
            for m, f, chip, p in runs]  # fmt: skip
    t = page.bulk_table(rows)
    assert [list(r) for r in t.rows] == [
        ["a100", "fp8", "1", "+10.0%", "10.0%", "the one"],
        ["h100", "bf16", "3", "-5.0%", "10.0%", "2 of the 3"],
    ]
    assert t.headers == ["chip", "precision", "runs", "median error", "median |error|",
                         "within 20%"]  # fmt: skip
    assert t.title == "TensorRT-LLM 0.9's validation runs by chip and precision"
    assert t.note == "error = forecast / measured - 1 (negative: predicted too fast)"


def test_roofs_table_rows_shares_and_sources() -> None:
    table, obs, facts = page.roofs_table(TOY, SPEC, ACH, "bf16").items
    assert table.title == "Toy: the two sets of roofs"
    assert [list(r) for r in table.rows] == [
        ["dense bf16 matmul", "100.0 TFLOP/s", "80.0 TFLOP/s", "80.0%"],
        ["HBM bandwidth", "1.00 TB/s", "1.20 TB/s", "120.0%"],
        ["link, one way (L1)", "100.00 GB/s", "none published (spec used)", "-"],
    ]
    assert obs.items == [
        "1 of 2 measured roofs sits below their datasheet figure.",
        "The measured HBM bandwidth is 120.0% of its spec figure: a measurement above the "
        "datasheet means one of the two figures was edited or measured another chip.",
        "1 of 3 roofs has no published measurement; spec stands in.",
    ]
    assert facts.pairs == [
        ("measured dense bf16 matmul", "blog A (best shape)"),
        ("measured HBM bandwidth", "doc B"),
    ]
    assert page.shared_roofs(TOY, "bf16", "blog") == ["bf16 matmul peak"]
    assert page.shared_roofs(TOY, "bf16", "nowhere") == []
    assert page.shared_roofs(TOY, "bf16", "doc B") == ["HBM bandwidth"]
    full = dataclasses.replace(TOY, achievable_link_bw_figure=bandwidth(100e9, "doc C"),
                               achievable_mem_bw_figure=bandwidth(1e12, "doc B"))  # fmt: skip
    obs = page.roofs_table(full, SPEC, Roofs("achievable", 80e12, 1e12, 100e9), "bf16").items[1]
    # 80% below; HBM and link at 100%: neither below nor above; no roof left unmeasured.
    assert obs.items == ["1 of 3 measured roofs sits below their datasheet figure."]
    # a chip without a link figure printed the row 'link, one way () none in the table'
    bare = dataclasses.replace(
        TOY, link_bw_figure=None, achievable_link_bw_figure=None, link_name="")  # fmt: skip
    table = page.roofs_table(bare, Roofs("spec", 100e12, 1e12, None), ACH, "bf16").items[0]
    assert [list(r) for r in table.rows][2] == ["link, one way", "none in the table", "-", "-"]


def test_cases_table_by_hand() -> None:
    t = page.cases_table([case("decode", 0.03, 0.02, 0.025)], "T")
    assert t.title == "T" and t.note.startswith("ratio = measured / predicted; at spec, at ")
    assert list(t.headers) == ["case", "measured", "at spec", "ratio", "at achievable", "ratio"]
    assert list(t.rows[0]) == ["decode", "30.00 ms", "20.00 ms", "x1.50", "25.00 ms", "x1.20"]
    obs = page.cases_observations([case("a", 2.0, 1.0, 1.5), case("b", 0.8, 1.0, 0.9)], ["X"])
    assert obs.items == [
        "1 of 2 measurements take longer than the spec prediction; the ratios run from x0.80 "
        "to x2.00.",
        "The widest gap is a: it takes x2.00 the predicted time (longer).",
        "The achievable roofs bring 2 of 2 predictions closer; the closest is b, which takes "
        "x0.89 the predicted time (shorter: faster than the bound) at achievable roofs.",
        "The achievable X was itself measured on this benchmark: these cases are calibration, "
        "not independent checks of the figures taken from them.",
    ]
    assert page.left_out([]) == []
    (line,) = page.left_out(["a", "b"])
    assert line.text.endswith(": a; b.")
    cases = [
        case("a", 1.3, 1.0, 1.2),  # spec x1.30, achievable x1.08
        case("b", 1.0, 2.0, 1.6),  # spec x0.50 (the widest gap), achievable x0.62
        case("c", 1.003, 1.0, 1.0),  # within 0.5%: not longer
        case("d", 1.2, 1.0, 1.5),  # spec x1.20, achievable x0.80: as far, not closer
    ]
    assert page.cases_observations(cases).items == [
        "2 of 4 measurements take longer than the spec prediction; the ratios run from x0.50 "
        "to x1.30.",
        "The widest gap is b: it takes x0.50 the predicted time (shorter: faster than the bound).",
        "The achievable roofs bring 2 of 4 predictions closer; the closest is c, which matches "
        "the prediction at achievable roofs.",
    ]


def test_operator_table_and_bound_words_by_hand() -> None:
    # 1e12 FLOP and 1e9 B at spec 100 TFLOP/s and 1 TB/s: 10 ms compute, 1 ms memory ->
    # compute-bound, achieved 1e12 / 20 ms = 50 TFLOP/s; the small one moves 1e9 B in 0.5 ms.
    rows = [
        page.OpRow("mm", 4096, 1e12, 1e9, 0.020, 0.010, 0.0125),
        page.OpRow("mm", 1, 1e6, 1e9, 0.0005, 0.001, 0.0011),
        page.OpRow("qkv", 1, 1e6, 1e9, 0.00102, 0.001, 0.0011),
    ]
    first, second, note = page.operator_table(rows, "bf16 on Toy", SPEC).items
    assert first.title == "bf16 on Toy: mm" and second.title == "bf16 on Toy: qkv"
    assert [list(r) for r in first.rows] == [
        ["4,096", "20,000 µs", "10,000 µs", "x2.00", "12,500 µs", "x1.60", "50.0 TFLOP/s"],
        ["1", "500 µs", "1,000 µs", "x0.50", "1,100 µs", "x0.45", "2.00 TB/s"],
    ]
    rows = [page.OpRow("mm", 8, 1e12, 1e10, 0.02, 0.01, 0.01)]  # 10 ms either way: compute
    table, note = page.operator_table(rows, "T", SPEC).items
    assert table.rows[0][-1] == "50.0 TFLOP/s"
    assert note.text == (
        "achieved: the measured kernel's FLOP/s where the spec roofline is compute-bound, "
        "its bytes/s where memory-bound"
    )


def test_caption_sources_and_hints_by_hand(tmp_path: Path) -> None:
    cases = [case("a", 2.0, 1.0, 1.5), case("b", 0.8, 1.0, 0.9)]
    assert page.figure_caption(cases, "up", 64, 214) == (
        "Top: each 13B case measured (grey) beside its predictions at spec peaks and at "
        "achievable roofs; 1 of 2 measured bars stand above even the achievable prediction. "
        "Bottom: the measured up (dots) stays flat up to n = 64, while the weights dominate "
        "its bytes, then rises with n; the spec ridge sits at n = 214."
    )
    assert page.figure_caption(cases, "up", 64, None).endswith("sits at no n (no ridge).")
    even = [case("a", 1.0, 0.5, 1.0), case("b", 2.0, 1.0, 1.5)]
    assert "; 1 of 2 measured bars stand above" in page.figure_caption(even, "up", 64, 214)
    assert [t.text for t in page.sources_text(["s1", "s2", "s1"]).items] == ["s1", "s2"]
    assert page.png_hint("f.png").text == "\n(add --png to save the figure f.png)"
    path = tmp_path / "f.png"
    shown = page.figure(str(path), "what to look at")
    assert (shown.path, shown.caption) == (path, "what to look at")
    inside = Path(__file__).resolve().parents[2] / "figs" / "f.png"
    assert page.figure(str(inside), "c").shown_path == "figs/f.png"  # from the repo root


def test_a_kernel_beating_its_achievable_roof_gets_a_word() -> None:
    fast = page.OpRow("mm", 16, 1.0, 1.0, 0.9e-3, 0.8e-3, 1.0e-3)
    slow = page.OpRow("mm", 64, 1.0, 1.0, 1.2e-3, 0.8e-3, 1.0e-3)
    said = " ".join(page.beats_roof_observations([fast, slow]).items)
    assert (
        "1 of the 2 timed kernels run faster than their achievable prediction: mm at n = 16" in said
    )
    assert "(x0.90)" in said and "not a ceiling" in said
    none = "No timed kernel beats its achievable prediction: the roofs hold as ceilings here."
    assert page.beats_roof_observations([slow]).items == [none]
    edge = page.OpRow("mm", 16, 1.0, 1.0, 1 - 0.005, 0.8, 1.0)  # 0.5% under: a match
    assert page.beats_roof_observations([edge]).items == [none]
