"""Lecture 14's two exercises, worked by hand from the published figures: DeepSeek-V3's
x1.8 from one MTP module read backwards with a costed draft (closed form for K = 1), and
DeepSeek's per-node rates applied to a long-prompt request (plain division)."""

from __future__ import annotations

import pytest

import common.exercises as ex


def test_serving_exercises_by_hand() -> None:
    answer = ex.get_exercise("mtp-acceptance").solve()
    c = 1 / 61  # one MTP module beside DeepSeek-V3's 61 layers
    a = 1.8 * (1 + c) - 1  # (1 + a) / (1 + c) = 1.8 for one draft token, v = 1
    v = (1 + 0.85) / 1.8 - c  # the verify pass the published low end allows
    two = (1 + a + a * a) / (2 * c + 1)  # two modules: E = 1 + a + a^2 over 2c + 1 steps
    assert answer.values["acceptance"] == pytest.approx(a, abs=1e-9)
    assert answer.values["verify"] == pytest.approx(v, rel=1e-12)
    assert answer.values["speedup"] == pytest.approx(two, rel=1e-9)
    text = " ".join(answer.steps)
    assert f"= {a:.1%}, below the published 85% to 90%" in text  # 82.95%: under the range
    assert f"{v:.3f} decode steps" in text and f"{v - 1:.1%} more" in text
    assert f"x{two:.2f} against plain decoding" in text
    assert f"2 modules at a = {a:.1%}: E = (1 - a^3) / (1 - a) = " in text
    answer = ex.get_exercise("fleet-request-mix").solve()
    t_p, t_d = 32768 / 73.7e3, 1024 / 14.8e3  # node-seconds at DeepSeek's published rates
    usd = (t_p + t_d) * 8 * 3.0 / 3600  # 8 H800 a node at $3 per GPU-hour
    day = (608e9 / 73.7e3) / (168e9 / 14.8e3)  # the published day's prefill : decode hours
    assert (
        answer.values["pd"] == pytest.approx(t_p / t_d, rel=1e-12) == pytest.approx(6.43, abs=0.005)
    )
    assert answer.values["request_usd"] == pytest.approx(usd, rel=1e-12)
    assert answer.values["usd_per_m"] == pytest.approx(usd / 33792 * 1e6, rel=1e-12)
    text = " ".join(answer.steps)
    assert f"{t_p / t_d:.2f} prefill nodes per decode node" in text
    assert f"x{t_p / t_d / day:.2f} as much as the {day:.2f}" in text
    assert (
        f"/ 3600 s = ${usd * 1000:.2f};" in text
        and f"a request) cost ${usd / 33792 * 1e6:.3f}." in text
    )
