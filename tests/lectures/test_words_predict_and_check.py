"""Lecture 11's sentences: every direction word follows the numbers it describes."""

from __future__ import annotations

from common.tables.measurements import Measured
from lectures.words import predict_and_check as page


def case(label: str, measured: float, spec: float, ach: float) -> page.Case:
    return page.Case(label, Measured(label, measured, "src"), spec, ach)


def test_versus_words() -> None:
    assert page.versus(2.0, 1.0) == "takes x2.00 the predicted time (longer)"
    assert page.versus(0.5, 1.0).endswith("(shorter: faster than the bound)")
    assert page.versus(1.001, 1.0) == "matches the prediction"


def test_cases_observations_count_and_name() -> None:
    text = " ".join(
        page.cases_observations([case("a", 2.0, 1.0, 1.5), case("b", 0.8, 1.0, 0.9)]).items
    )
    assert "1 of 2 measurements take longer than the spec prediction" in text
    assert "from x0.80 to x2.00" in text
    assert "The widest gap is a" in text
    assert "bring 2 of 2 predictions closer" in text


def test_knee_sentences_place_the_ridge() -> None:
    inside = " ".join(page.knee_observations("mm", [1, 64, 256], 1, 200, None).items)
    assert "up to n = 64 and has left it by n = 256" in inside
    assert "inside that interval" in inside and "achievable roofs give no ridge" in inside
    below = " ".join(page.knee_observations("mm", [1, 64, 256], 1, 32, 300).items)
    assert "stays memory-bound longer" in below and "above that interval" in below
    flat = " ".join(page.knee_observations("mm", [1, 64], 1, 32, None, tolerance=0.1).items)
    assert "within 10% up to the largest n measured (64)" in flat


def test_utilisation_counterexample_and_impossible_values() -> None:
    rows = [
        page.Util("decode", 1.0, 1.0, 1.0, 0.004, 0.76),
        page.Util("prefill", 1.0, 1.0, 1.0, 0.66, 0.35),
    ]
    text = " ".join(page.utilisation_observations(rows).items)
    assert "lowest MFU is decode at 0.4%, yet its MBU is 76.0%" in text
    assert "above 100%" not in text
    idle = [page.Util("idle", 1.0, 1.0, 1.0, 0.01, 0.005), rows[1]]
    assert "neither resource is busy" in " ".join(page.utilisation_observations(idle).items)
    over = [page.Util("x", 1.0, 1.0, 1.0, 1.5, 0.2), rows[0]]
    assert "1 of 2 runs show a utilisation above 100%" in " ".join(
        page.utilisation_observations(over).items
    )


def test_decomposition_overshoot_is_said() -> None:
    from common.formulas.predict import Decomposition, Term

    d = Decomposition(1.0, (Term("roofline at spec peaks", 0.9), Term("compute efficiency", 0.3)))
    text = " ".join(page.decomposition_observations(["c"], [d]).items)
    assert "overshoot the measurement by 200.00 ms" in text


def test_estimate_and_comms_sentences() -> None:
    roof, comms = {1: 0.0168, 2: 0.009}, {1: 0.0, 2: 0.00368}
    text = " ".join(page.estimate_observation(roof, comms, {1: 0.0168, 2: 0.0084}, {2: 1e-3}).items)
    assert (
        "Decode on 1 GPU: our spec roofline (16.80 ms) matches the blog's estimate (16.80 ms:"
        in (text)
    )
    assert (
        "1 GPU: our spec roofline (16.80 ms) matches the blog's estimate (16.80 ms: weights "
        "only, at 1.5 TB/s). " in text + " "
    )
    assert "Decode on 2 GPUs: our spec roofline (9.00 ms) is 7.1% above the blog's" in text
    assert "the blog adds about 1.00 ms of all-reduce, the measured curve gives 3.68 ms." in text
    below = " ".join(page.estimate_observation({2: 0.008}, comms, {2: 0.0084}, {}).items)
    assert "(8.00 ms) is 4.8% below the blog's estimate (8.40 ms: weights only, at 1.5 TB/s)." in (
        below
    )
    low = [Measured("lo", 40e-6, "s"), Measured("hi", 50e-6, "s")]
    under = " ".join(page.comms_observation(20e-6, low).items)
    assert "two all-reduces take 20.0 us per layer for decode on two GPUs" in under
    assert "shows 40 us to 50 us per layer: the curve is x2.0 below the low end." in under
    assert "The curve was measured on another machine (a DGX A100 80GB)" in under
    inside = " ".join(page.comms_observation(45e-6, low).items)
    assert inside.endswith("the curve is inside that range.")
    above = " ".join(page.comms_observation(100e-6, low).items)
    assert "x2.0 above the high end. The curve was measured" in above


def row(label: str, gpus: int, measured: float, bare: float, full: float, shared=()):
    return page.RequestRow(label, "eng", gpus, measured, bare, full, shared)


def test_requests_table_and_words_by_hand() -> None:
    rows = [
        row("a", 1, 1.0, 0.5, 0.9, ("x",)),
        row("b", 1, 2.0, 1.0, 2.2),
        row("c", 4, 1.0, 0.2, 0.7),
        row("d", 4, 1.0, 0.3, 0.95),
    ]
    t = page.requests_table(rows)
    assert list(t.rows[0]) == [
        "a",
        "eng",
        "1000.00 ms",
        "500.00 ms",
        "-50.0%",
        "900.00 ms",
        "-10.0%",
    ]
    assert t.rows[1][-1] == "10.0%" and t.title == "Published A100 requests at batch 1"
    items = page.requests_observations(rows).items
    # spec errors -50, -50, -80, -70: median |e| 60%, all too fast, worst c (-80%)
    assert items[0] == (
        "With the spec roofline alone the median error is 60.0%; all 4 predictions are too "
        "fast; the worst is c at -80.0%."
    )
    # full errors -10, +10, -30, -5: median |e| 10%, 3 of 4 too fast, worst c (-30%)
    assert items[1] == (
        "With all the terms the median error is 10.0%; 3 of the 4 predictions are too fast; "
        "the worst is c at -30.0%."
    )
    # by GPU count: 1 GPU median(-10, +10) = 0; 4 GPUs median(-30, -5) = -17.5%
    assert items[2] == (
        "Median error by GPU count, all terms: 1 GPU 0.0%, 4 GPUs -17.5%. From 1 to 4 GPUs "
        "its size rose from 0.0% to 17.5%."
    )
    assert items[3].startswith("1 of the 4 requests lean on a figure measured on their own")
    assert "(x)" in items[3]
    alone = page.requests_observations([row("a", 2, 1.0, 0.5, 1.2), row("b", 8, 1.0, 0.5, 1.1)])
    assert "From 2 to 8 GPUs its size fell from 20.0% to 10.0%." in alone.items[2]
    assert "none of the 2 predictions are too fast" in alone.items[1]
    assert alone.items[3] == "No request leans on a figure measured on its own benchmark."


def test_activation_sentence_direction() -> None:
    prof = {1: Measured("a", 2.2e-3, "s"), 2: Measured("b", 1.0e-3, "s")}
    text = " ".join(page.activations_observation({1: 1.5e-3, 2: 1.5e-3}, prof).items)
    assert "the profile sits 0.70 ms above the ledger" in text
    assert "the profile sits 0.50 ms below the ledger" in text
