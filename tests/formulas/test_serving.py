"""Serving formulas against hand arithmetic, brute-force enumeration and DeepEP's published
latencies (the one it was calibrated on apart from the eleven it only checks)."""

from __future__ import annotations

import itertools
import math
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from common.formulas import predict, serving
from common.tables import measurements as pub


def brute_remote_shares(experts: int, k: int, ep: int, node: int) -> tuple[float, float]:
    """Every choice of k of E experts for a token on GPU 0, experts E / N to a GPU in order:
    the shares of copies to another GPU of node 0 and to another node."""
    per_gpu = experts // ep
    same_node = other = copies = 0
    for chosen in itertools.combinations(range(experts), k):
        for e in chosen:
            gpu = e // per_gpu
            copies += 1
            same_node += 0 < gpu < node
            other += gpu >= node
    return same_node / copies, other / copies


@pytest.mark.parametrize(("experts", "k", "ep", "node"), [(8, 2, 4, 8), (16, 3, 16, 8),
                                                          (12, 4, 6, 2), (8, 1, 8, 4)])  # fmt: skip
def test_link_fractions_match_every_routing_choice(experts, k, ep, node) -> None:
    got = serving.link_fractions(ep, node)
    assert got == pytest.approx(brute_remote_shares(experts, k, ep, node))
    assert sum(got) == pytest.approx(serving.remote_fraction(ep))


def test_dispatch_and_combine_bytes_by_hand() -> None:
    # DeepSeek-V3's layer: d = 7168, top-8, EP 8: 8 x 7/8 x 7168 = 50,176 elements a token
    assert serving.dispatch_bytes_per_token(7168, 8, 8, 1) == pytest.approx(50176)
    assert serving.combine_bytes_per_token(7168, 8, 8) == pytest.approx(100352)
    assert serving.dispatch_bytes_per_token(7168, 8, 1, 1) == 0.0  # one GPU: nothing leaves
    # FP8 with one fp32 scale per 128 elements: 50,176 x (1 + 4/128) = 50,176 + 1,568 B
    assert serving.dispatch_bytes_per_token(7168, 8, 8, 1 + 4 / 128) == pytest.approx(51744)


def test_all_to_all_time_takes_the_slower_link_plus_latency() -> None:
    # 128 tokens x 8 copies x 7,392 B = 7,569,408 B; EP 16 in nodes of 8: 7/16 over NVLink
    # (3,311,616 B / 160 GB/s = 20.6976 us), 8/16 over the card (3,784,704 B / 50 GB/s =
    # 75.69408 us, the slower), plus 10 us
    t = serving.all_to_all_time(128, 7392, 8, 16, 8, 160e9, 50e9, 10e-6)
    assert t == pytest.approx(85.69408e-6)
    # EP 8 stays in the node: 6,623,232 B / 160 GB/s = 41.3952 us
    assert serving.all_to_all_time(128, 7392, 8, 8, 8, 160e9, 50e9, 0.0) == pytest.approx(
        41.3952e-6
    )


def test_imbalance_factor_and_its_cost() -> None:
    assert serving.imbalance_factor([4, 2, 1, 1]) == 2.0  # 4 against a fair share of 2
    assert serving.imbalance_factor([3, 3, 3]) == 1.0
    assert serving.imbalance_cost(1e-3, 2.0) == pytest.approx(1e-3)
    assert serving.imbalance_cost(1e-3, 1.0) == 0.0


def brute_expected_tokens(a: float, K: int) -> float:
    """Every accept/reject pattern of K draft tokens with its probability: the target keeps
    the accepted prefix plus one token of its own."""
    total = 0.0
    for pattern in itertools.product((True, False), repeat=K):
        p = math.prod(a if ok else 1 - a for ok in pattern)
        prefix = next((i for i, ok in enumerate(pattern) if not ok), K)
        total += p * (prefix + 1)
    return total


@given(st.floats(0, 1), st.integers(1, 8))
def test_expected_tokens_match_every_acceptance_outcome(a, K) -> None:
    assert serving.expected_tokens(a, K) == pytest.approx(brute_expected_tokens(a, K))


def test_expected_tokens_and_speedup_by_hand() -> None:
    assert serving.expected_tokens(1.0, 4) == 5 and serving.expected_tokens(0.0, 4) == 1
    # a = 0.8, K = 4: (1 - 0.32768) / 0.2 = 3.3616; draft 5% of a step: 3.3616 / 1.2
    assert serving.expected_tokens(0.8, 4) == pytest.approx(3.3616)
    assert serving.speculative_speedup(0.8, 4, 0.05) == pytest.approx(3.3616 / 1.2)


def test_acceptance_for_speedup_inverts_it() -> None:
    # K = 1, a free draft: speed-up 1 + a, so 1.5 means a = 0.5
    assert serving.acceptance_for_speedup(1.5, 1, 0.0) == pytest.approx(0.5)
    for a in (0.1, 0.6, 0.95):
        s = serving.speculative_speedup(a, 5, 0.1)
        assert serving.acceptance_for_speedup(s, 5, 0.1) == pytest.approx(a, abs=1e-9)
    assert serving.acceptance_for_speedup(10.0, 4, 0.05) is None  # above (K + 1) / (Kc + 1)
    assert serving.acceptance_for_speedup(0.5, 4, 0.05) is None  # below 1 / (Kc + 1)


def test_tokens_per_s_per_gpu() -> None:
    assert serving.tokens_per_s_per_gpu(1000, 2.0, 4) == 125.0


# ---------------------------------------------------------------------------
# DeepEP: one latency calibrates, eleven check
# ---------------------------------------------------------------------------
def test_deepep_latency_is_the_ep8_dispatch_less_its_bytes() -> None:
    # 128 x 8 x 7/8 x 7,168 x (1 + 4/128) B = 6,623,232 B over 160 GB/s = 41.3952 us
    assert predict.deepep_latency() == pytest.approx(77e-6 - 41.3952e-6)


def test_deepep_latencies_it_did_not_take_from_are_within_16_percent() -> None:
    rows = predict.deepep_check()
    calibration = [r for r in rows if r[3]]
    assert [r[0] for r in calibration] == ["dispatch, EP 8"]
    assert calibration[0][1] == pytest.approx(calibration[0][2])
    errors = [p / m - 1 for _, p, m, calib in rows if not calib]
    assert len(errors) == 11
    assert statistics.median(abs(e) for e in errors) < 0.08  # 6.3% when written
    assert all(abs(e) < 0.16 for e in errors)  # worst: combine at EP 128, -15.8%
    # combine by hand at EP 16: 128 x 8 x 7,168 x 2 B = 14,680,064 B, half over the card:
    # 146.80064 us at 50 GB/s, + 35.6048 us = 182.40544 us against 195 us
    ep16 = next(p for label, p, _, _ in rows if label == "combine, EP 16")
    assert ep16 == pytest.approx(182.40544e-6)


def test_deepep_normal_kernels_reach_the_nvlink_roof() -> None:
    # the stated ~160 GB/s NVLink: the normal kernels measured 153 and 158 GB/s at EP 8
    for bw in pub.DEEPEP_NORMAL_BW[8]:
        assert 0.9 < bw / pub.H800_NVLINK.value <= 1.0
