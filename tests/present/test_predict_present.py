"""Lecture 11's sentences: every direction word follows the numbers it describes."""

from __future__ import annotations

from common.present import predict as page
from common.tables.measurements import Measured


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
    cases = [
        case("decode, 1 GPU", 0.022, 0.0168, 0.0187),
        case("decode, 2 GPUs", 0.0135, 0.009, 0.01),
    ]
    text = " ".join(page.estimate_observation(cases, {1: 0.0168, 2: 0.0084}).items)
    assert "decode, 1 GPU (16.80 ms) matches the blog's own estimate" in text
    assert "decode, 2 GPUs (9.00 ms) is 7.1% above" in text
    low = [Measured("lo", 40e-6, "s"), Measured("hi", 50e-6, "s")]
    assert "x2.0 below the low end" in " ".join(page.comms_observation(20e-6, low).items)
    assert "inside that range" in " ".join(page.comms_observation(45e-6, low).items)
    above = " ".join(page.comms_observation(100e-6, low).items)
    assert "x2.0 above the high end" in above and "latency" not in above.split("model is")[1]


def test_activation_sentence_direction() -> None:
    prof = {1: Measured("a", 2.2e-3, "s"), 2: Measured("b", 1.0e-3, "s")}
    text = " ".join(page.activations_observation({1: 1.5e-3, 2: 1.5e-3}, prof).items)
    assert "the profile sits 0.70 ms above the ledger" in text
    assert "the profile sits 0.50 ms below the ledger" in text
