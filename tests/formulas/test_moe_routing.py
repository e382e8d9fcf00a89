"""Skewed routing, the experts a batch reaches, the dense twin and the experts' critical
batch, checked by enumeration and hand arithmetic."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common.formulas import serving
from common.formulas import transformer as tf
from common.formulas.roofline import critical_batch
from common.formulas.transformer import DTypes
from common.tables.models import DEEPSEEK_V3, LLAMA_3_8B, MIXTRAL_8X7B, dense_twin


def test_uniform_reach_by_enumeration() -> None:
    # E = 4, k = 2, two tokens: every pair of 2-subsets, the mean size of their union
    subsets = list(itertools.combinations(range(4), 2))
    mean = sum(len(set(a) | set(b)) for a in subsets for b in subsets) / len(subsets) ** 2
    assert mean == 3.0  # 4 (1 - (1/2)^2)
    assert serving.experts_touched_by_shares(2, [0.5] * 4) == pytest.approx(mean)
    assert tf.experts_touched(2, 2, 4) == pytest.approx(mean)
    assert serving.skewed_shares(8, 2, 0.0) == pytest.approx([0.25] * 8)
    # 1, 1/2, 1/3, 1/4 scaled to sum 1: 12/25, 6/25, 4/25, 3/25; round-robin on 2 GPUs
    q = serving.skewed_shares(4, 1, 1.0)
    assert q == pytest.approx([12 / 25, 6 / 25, 4 / 25, 3 / 25])
    assert serving.gpu_loads(q, 2) == pytest.approx([16 / 25, 9 / 25])
    assert serving.imbalance_factor(serving.gpu_loads(q, 2)) == pytest.approx(32 / 25)
    # the dense twin (its shape: test_what_ifs_by_hand) is the active count less the router:
    # 32 layers x 8 experts x 4096
    twin = tf.parameter_count(dense_twin(MIXTRAL_8X7B))
    assert twin == tf.active_parameter_count(MIXTRAL_8X7B) - 32 * 8 * 4096
    assert dense_twin(LLAMA_3_8B) is LLAMA_3_8B
    # up and down only: 32 layers x (8 - 2) idle experts x 2 x 4096 x 14336
    plain = dataclasses.replace(MIXTRAL_8X7B, gated_mlp=False)
    idle = 32 * 6 * 2 * 4096 * 14336
    assert tf.parameter_count(plain) - tf.active_parameter_count(plain) == idle
    # --ep 8 in bf16: the experts, 32 x 8 x 3 x 4096 x 14336, split 8 ways; the rest of the
    # published 46.7 B (46,702,792,704) whole on every GPU
    experts = 32 * 8 * 3 * 4096 * 14336
    per_gpu = 2 * (46_702_792_704 - experts) + 2 * experts / 8
    assert tf.ep_weight_bytes(MIXTRAL_8X7B, DTypes(), 8) == pytest.approx(per_gpu)
    assert tf.ep_weight_bytes(LLAMA_3_8B, DTypes(), 8) == tf.weight_bytes(LLAMA_3_8B, DTypes())
    fp8 = DTypes(weights="fp8", activations="fp8")
    n = tf.expert_critical_batch(MIXTRAL_8X7B, 5000.0, fp8)
    assert n is not None
    at = [tf.expert_intensity(MIXTRAL_8X7B, b, fp8) for b in (n - 1, n)]
    assert at[0] < 5000.0 <= at[1]
    # one token meets its k = 2 experts: 2 x 2 x d f FLOP over 2 d f fp8 weight bytes plus
    # 2 x (d + f) bf16 activations in and out, at d = 4096, f = 14336
    got = tf.expert_intensity(MIXTRAL_8X7B, 1, DTypes(weights="fp8"))
    assert got == pytest.approx(234_881_024 / (117_440_512 + 73_728))
    for dt, a in ((DTypes(), 2), (DTypes(activations="fp8"), 1)):
        ops = {op.name: op for op in tf.layer_ops(MIXTRAL_8X7B, 3, 1, 64, dt)}
        for name in ("expert gate projection", "expert up projection", "expert down projection"):
            assert ops[name].flops == 2 * 6 * 4096 * 14336
            assert ops[name].act_bytes == 6 * (4096 + 14336) * a
        # the router scores 8 experts for each of 3 tokens; SiLU x up reads 2 and writes 1
        assert (ops["router"].kind, ops["router"].flops) == ("matmul", 2 * 3 * 4096 * 8)
        silu = ops["expert SiLU x up"]
        assert (silu.kind, silu.act_bytes) == ("elementwise", 3 * 6 * 14336 * a)
        # top-k: a softmax over 3 x 8 scores (5 FLOP each), 2 weights and ids a token out; the
        # sum of each token's 2 outputs of 4,096, weighted: 2 FLOP an element, 6 rows in, 3 out
        top, total = ops["router top-k"], ops["top-k weighted sum"]
        assert (top.flops, top.act_bytes) == (5 * 3 * 8, (3 * 8 + 2 * 3 * 2) * a)
        assert (total.flops, total.act_bytes) == (2 * 6 * 4096, (6 + 3) * 4096 * a)
    # DeepSeek-V3's shared expert, d_ff 2048, on all 3 tokens: 2 x 3 x 7168 x 2048 FLOP
    ops = {op.name: op for op in tf.layer_ops(DEEPSEEK_V3, 3, 1, 64)}
    assert ops["shared up projection"].flops == 2 * 3 * 7168 * 2048
    ops = {op.name: op for op in tf.layer_ops(plain, 3, 1, 64)}
    assert "expert gate projection" not in ops and ops["router"].flops == 2 * 3 * 4096 * 8
    up, act = ops["expert up projection"], ops["expert activation"]
    assert (up.flops, up.act_bytes) == (2 * 6 * 4096 * 14336, 6 * (4096 + 14336) * 2)
    assert (act.kind, act.act_bytes) == ("elementwise", 2 * 6 * 14336 * 2)
    assert act.flops == 4 * 6 * 14336  # SiLU at the op-count table's 4 FLOP an element
    one = dataclasses.replace(MIXTRAL_8X7B, n_experts=1, experts_per_token=1)
    assert tf.expert_critical_batch(one, 295.0) == critical_batch(4096, 14336, 295.0)
    # each expert meets n k / E = n / 4 rows: past 4 x (the dense batch - 1), which falls short
    dense = critical_batch(4096, 14336, 295.0)
    assert 4 * (dense - 1) < tf.expert_critical_batch(MIXTRAL_8X7B, 295.0) <= 4 * dense
    assert tf.expert_critical_batch(MIXTRAL_8X7B, 1e9) is None  # no batch reaches it


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 512), st.data(), st.floats(0, 3))
def test_skewed_shares_sum_to_k_capped_and_falling(experts: int, data, s: float) -> None:
    k = data.draw(st.integers(1, experts))
    q = serving.skewed_shares(experts, k, s)
    assert sum(q) == pytest.approx(k, rel=1e-9)
    assert all(0 < x <= 1 for x in q) and q == sorted(q, reverse=True)
    n = data.draw(st.integers(1, 10_000))
    # skew never reaches more experts than uniform routing (1 - (1 - q)^n is concave)
    assert serving.experts_touched_by_shares(n, q) <= tf.experts_touched(n, k, experts) * (1 + 1e-9)


@pytest.mark.parametrize("n", [1, 7, 64, 1000])
def test_reaching_the_ridge_exactly_counts(n: int) -> None:
    # a ridge equal to the intensity at n tokens: n reaches it, as at the dense ridge (>=)
    assert tf.expert_critical_batch(MIXTRAL_8X7B, tf.expert_intensity(MIXTRAL_8X7B, n)) == n
