"""Lecture 13's two exercises, worked by hand: Mixtral-8x7B's critical batches in fp8 on the
H100 (brute-force loops over the batch) and Qwen3-30B-A3B's experts under skew (the Zipf
shares capped at 1 by a closed-form water level, not a bisection)."""

from __future__ import annotations

import pytest

import common.exercises as ex
from common.hw_specs import H100


def test_moe_exercises_by_hand() -> None:
    ridge = H100.peak_flops("fp8") / H100.mem_bw
    d, f, E, k = 4096, 14336, 8, 2  # Mixtral: hidden, expert width, 2 of 8

    def twin(b: int) -> float:  # fp8 weights (1 byte), bf16 activations in and out
        n = 2 * f
        return 2 * b * d * n / (2 * b * d + d * n + 2 * b * n)

    def experts(b: int) -> float:
        touched = E * (1 - (1 - k / E) ** b)
        return 2 * b * k * d * f / (touched * d * f + 2 * b * k * (d + f))

    answer = ex.get_exercise("moe-critical-batch").solve()
    want_twin = next(b for b in range(1, 10**6) if twin(b) >= ridge)
    want_moe = next(b for b in range(1, 10**6) if experts(b) >= ridge)
    assert (answer.values["twin"], answer.values["experts"]) == (want_twin, want_moe)
    assert want_moe / want_twin > E / k  # narrower matrices: more activation bytes per FLOP
    assert f"the smallest B past the ridge is {want_moe:,}" in " ".join(answer.steps)
    answer = ex.get_exercise("moe-skew").solve()
    E, k, B, gpus = 128, 8, 32, 8
    uniform = E * (1 - (1 - k / E) ** B)
    q = zipf_shares(E, k, 1.0)
    skewed = sum(1 - (1 - x) ** B for x in q)
    loads = [sum(q[g] for g in range(E) if g % gpus == i) for i in range(gpus)]
    assert answer.values["uniform"] == pytest.approx(uniform) == pytest.approx(111.8, abs=0.05)
    assert answer.values["skewed"] == pytest.approx(skewed, rel=1e-9)
    assert answer.values["saved"] == pytest.approx(1 - skewed / uniform, rel=1e-9)
    assert answer.values["gpu_factor"] == pytest.approx(max(loads) / (k / gpus), rel=1e-9)


def zipf_shares(E: int, k: int, s: float) -> list[float]:
    """q_i = min(1, c i^-s) summing to k: cap the first j experts, spread the rest."""
    w = [(i + 1) ** -s for i in range(E)]
    for j in range(E):  # j experts capped at 1; the others share k - j in proportion to w
        c = (k - j) / sum(w[j:])
        if c * w[j] <= 1:
            return [1.0] * j + [c * x for x in w[j:]]
    raise AssertionError("unreachable")
