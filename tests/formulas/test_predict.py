"""Predictions against hand arithmetic: toy ledgers worked out here, the 13B cases, the
prediction command's memory check and speculative decoding.

Parameter counts from the published configs (Llama-2-7B: 6,738,415,616, as Hugging Face
reports it; Mixtral-8x7B: 46,702,792,704, of which the 32 x 8 experts' three 4096 x 14336
matrices are 45,097,156,608) and cache sizes from 2 L Hkv dh elements a token.
"""

from __future__ import annotations

import csv
import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from common import hw_specs
from common.formulas import predict
from common.formulas import transformer as tf
from common.formulas.predict import Request
from common.formulas.transformer import DTypes, Op, PassLedger
from common.hw_specs import A100, H100, TPU_V5E, get_chip
from common.predict import check_fits, memory_per_gpu
from common.tables import engines, slips
from common.tables import measurements as pub
from common.tables.models import LLAMA_3_70B, get_model

P, BW, LINK = 100e12, 1e12, 100e9  # toy roofs: 100 TFLOP/s, 1 TB/s, 100 GB/s
SPEC = predict.Roofs("spec", P, BW, LINK)
ONE_LAYER = dataclasses.replace(pub.GPT_13B, n_layers=1, d_model=1000)


def toy(*ops: Op, tokens: int = 10) -> PassLedger:
    return PassLedger("prefill", ONE_LAYER, 1, tokens, tokens, DTypes(), False, ops, ())


MATMUL = Op("mm", "matmul", 2e12, weight_bytes=1e9)  # 20 ms of compute, 1 ms of bytes
NORM = Op("norm", "norm", 1e6, act_bytes=4e9)  # 4 ms of bytes, replicated under TP


def test_roofline_time_is_the_sum_of_each_ops_max() -> None:
    assert predict.roofline_time(toy(MATMUL, NORM), SPEC) == pytest.approx(20e-3 + 4e-3)
    assert predict.roofline_time(toy(MATMUL, NORM), SPEC, gpus=2) == pytest.approx(14e-3)
    weights = Op("mv", "matmul", 2e9, weight_bytes=1e9)
    for g in (2, 4, 8):
        assert predict.roofline_time(toy(weights), SPEC, gpus=g) == pytest.approx(1e-3 / g)
        assert predict.roofline_time(toy(weights, NORM), SPEC, g) == pytest.approx(1e-3 / g + 4e-3)
    attn = Op("scores", "attention", 1e6, act_bytes=1e6, kv_bytes=3e9)  # 3 ms of cache
    assert predict.roofline_time(toy(attn), SPEC, gpus=2) == pytest.approx((1e6 + 3e9) / 2e12)
    led = toy(MATMUL)  # message: 10 tokens x 1000 x 2 bytes = 20 kB
    assert predict.bound_time(led, SPEC) == pytest.approx(20e-3)
    ring = predict.comm_time(led, 2, LINK, None)  # the all-reduces, tested apart
    assert predict.bound_time(led, SPEC, 2) - ring == pytest.approx(10e-3)
    assert predict.allreduce_time(10, 2, LINK, CURVE) == pytest.approx(10e-6)
    assert predict.allreduce_time(5.05e4, 2, LINK, CURVE) == pytest.approx(20e-6)  # half-way
    assert predict.allreduce_time(5.5e5, 2, LINK, CURVE) == pytest.approx(75e-6)
    assert predict.allreduce_time(1e5, 2, LINK, CURVE) == pytest.approx(30e-6)
    assert predict.allreduce_time(3e6, 2, LINK, CURVE) == pytest.approx(360e-6)
    assert predict.allreduce_time(1e6, 4, LINK, CURVE) == pytest.approx(200e-6)
    assert predict.allreduce_time(1e6, 1, LINK, CURVE) == 0.0
    assert predict.allreduce_time(1e6, 2, LINK) == pytest.approx(10e-6)
    assert predict.allreduce_time(1e6, 8, LINK, CURVE) == pytest.approx(17.5e-6)
    # on the curve between 1e3 (10 us) and 1e5 (30 us): 10 + 20 x 19e3 / 99e3 us
    one = 10e-6 + 20e-6 * 19e3 / 99e3
    assert predict.comm_time(led, 2, LINK, CURVE) == pytest.approx(2 * one)
    assert predict.comm_time(led, 2, LINK) == pytest.approx(2 * 2e4 / 1e11)


CURVE = {2: ((1e3, 10e-6), (1e5, 30e-6), (1e6, 120e-6)), 4: ((1e3, 20e-6), (1e6, 200e-6))}


def test_13b_on_one_and_two_a100s_by_hand() -> None:
    # Each GPU reads half the matmul weights and half the cache: (40 x 12 d^2 + V d) x 2 B / 2
    # + 2 x 40 x 512 x d x 2 B / 2 over 1555 GB/s, plus the replicated small operators.
    spec = predict.spec_roofs(A100, "bf16")
    led = tf.decode_ledger(pub.GPT_13B, 1, 512)
    d = 5120
    sharded = (40 * 12 * d * d * 2 + 50272 * d * 2 + 2 * 40 * 512 * d * 2) / 2 / 1555e9
    one = predict.roofline_time(led, spec, 1)
    two = predict.roofline_time(led, spec, 2)
    assert two == pytest.approx(sharded, rel=0.01)
    assert one / two == pytest.approx(2, rel=0.01)  # not x1 (bytes kept whole) nor x4
    assert two == pytest.approx(8.40e-3, abs=0.01e-3)  # the blog's own 2-GPU estimate
    assert one == pytest.approx(2 * sharded, rel=0.01)  # one GPU reads it all
    led = tf.prefill_ledger(pub.GPT_13B, 1, 512)
    matmul_flops = 2 * 512 * 40 * 12 * 5120**2  # 2 n N_layer-params
    t = predict.roofline_time(led, spec)
    assert t > matmul_flops / 312e12
    assert t < 1.1 * matmul_flops / 312e12  # norms, adds and attention add a few percent


def test_fixed_cost_fills_each_kernel_up_to_the_floor() -> None:
    tiny = Op("tiny", "elementwise", 0.0, act_bytes=1e6)  # 1 us of bytes
    led = toy(tiny, MATMUL)
    assert predict.fixed_cost(led, SPEC, floor=5e-6) == pytest.approx(4e-6)  # matmul > floor
    # one GPU: the 20 ms matmul is past a 15 ms floor, the 1 us op fills up to it
    assert predict.fixed_cost(led, SPEC, floor=15e-3) == pytest.approx(15e-3 - 1e-6)
    ach = predict.Roofs("achievable", P / 2, BW / 2, LINK / 2)
    led = toy(MATMUL, NORM)
    d = predict.decompose(led, SPEC, ach, 60e-3, gpus=1, curve=None, floor=0.0)
    got = {t.name.split(" (")[0]: t.seconds for t in d.terms}
    assert got["bound at spec roofs"] == pytest.approx(24e-3)  # one GPU: no all-reduce
    assert got["compute efficiency"] == pytest.approx(20e-3)  # matmul 20 -> 40 ms
    assert got["memory efficiency"] == pytest.approx(4e-3)  # norm 4 -> 8 ms
    assert d.explained == pytest.approx(48e-3) and d.unexplained == pytest.approx(12e-3)
    d = predict.decompose(toy(MATMUL, NORM), SPEC, ach, 60e-3, 2, CURVE, floor=5e-6)
    got = [t.seconds for t in d.terms]
    ring, one = 20e3 / LINK, 10e-6 + 20e-6 * 19e3 / 99e3
    assert got == pytest.approx([14e-3 + 2 * ring, 10e-3, 4e-3, 2 * ring, 2 * (one - 2 * ring), 0])
    assert d.unexplained == pytest.approx(60e-3 - 28e-3 - 2 * one)


def test_mfu_mbu_achievable_roofs_ridge_tokens_and_flat_until() -> None:
    # 13B prefill on one GPU: about 1.3e13 FLOP in 63.17 ms on 312 TFLOP/s -> 66%.
    assert predict.mfu(1.3e13, 63.17e-3, 312e12) == pytest.approx(1.3e13 / (63.17e-3 * 312e12))
    assert predict.mbu(25.7e9, 22e-3, 1555e9) == pytest.approx(25.7e9 / (22e-3 * 1555e9))
    led = toy(MATMUL)  # compute-bound: 20 ms at full peak
    e = predict.efficiency_to_match(led, SPEC, 40e-3, "peak")
    assert e == pytest.approx(0.5, rel=1e-9)
    assert predict.efficiency_to_match(led, SPEC, 10e-3, "peak") is None  # faster than the roof
    r = predict.achievable_roofs(TPU_V5E, "bf16")
    assert (r.peak, r.mem_bw, r.link_bw) == (197e12, 8.2e11, 4.5e10) and r.measured == ()
    a = predict.achievable_roofs(A100, "bf16")
    assert a.measured == ("compute", "memory", "link")
    assert (a.peak, a.mem_bw, a.link_bw) == (271.2e12, 1399.5e9, 235e9)
    K, N = 4096, 22016
    ridge = 312e12 / 1555e9
    brute = next(n for n in range(1, 10_000) if n * K * N / (n * K + K * N + n * N) >= ridge)
    assert predict.ridge_tokens(K, N, predict.spec_roofs(A100, "bf16")) == brute
    for e in (1, 4):  # fp8 and fp32 operands: every one of X, W and Y at e bytes
        brute = next(
            n for n in range(1, 10**5) if 2 * n * K * N / (e * (n * K + K * N + n * N)) >= ridge
        )
        assert predict.ridge_tokens(K, N, predict.spec_roofs(A100, "bf16"), e) == brute
    t = predict.matmul_time(1, 4096, 22016, predict.spec_roofs(A100, "bf16"))
    assert t == pytest.approx(2 * (4096 + 4096 * 22016 + 22016) / 1555e9)
    roofs = predict.Roofs("toy", 1e30, 1.0, 1.0)  # bandwidth-bound: time = bytes
    # X[3, 5] @ W[5, 7] in fp32: all three operands, 4 (15 + 35 + 21) = 284 bytes
    assert predict.matmul_time(3, 5, 7, roofs, 4) == 284
    assert predict.flat_until([1, 2, 4, 8], [1.0, 1.1, 1.2, 2.0], 0.25) == 2
    assert predict.flat_until([1, 2], [1.0, 1.0]) == 1
    # measured from the first time: within 1.25 x 1.0 s, 1.2 yes, 1.3 no (1.25 x the second
    # time, 1.5, would take it)
    assert predict.flat_until([1, 2, 3, 4], [1.0, 1.2, 1.3, 2.0]) == 1
    pts = ((256, 0.4), (512, 0.7), (1024, 0.8))
    assert predict.gemm_share(1, pts) == 0.4 and predict.gemm_share(4096, pts) == 0.8
    assert predict.gemm_share(384, pts) == pytest.approx(0.55)  # halfway from 256 to 512
    assert predict.gemm_share(10, ()) == 1.0 and predict.gemm_share(10, ((1, 1.3),)) == 1.0


TINY = dataclasses.replace(pub.GPT_13B, n_layers=2, d_model=256, n_heads=4, n_kv_heads=4,
                           d_head=64, d_ff=1024, vocab_size=1000)  # fmt: skip


def test_forecast_is_a_prefill_then_the_mean_decode_step() -> None:
    spec, floor = predict.spec_roofs(A100, "bf16"), 5e-6
    eng = predict.EngineRoofs(((1, 0.5),), 0.8, floor, 1e-3, CURVE, 2e-6)
    f = predict.forecast(Request(model=TINY, gpus=2, batch=3, prompt=100, new_tokens=8), spec, eng)

    def terms(led) -> list[float]:  # by hand: half the peak, 80% of the bandwidth
        slow = spec._replace(peak=spec.peak / 2, mem_bw=0.8 * spec.mem_bw)
        kernels = predict.roofline_time(led, slow, 2)
        ring = predict.comm_time(led, 2, spec.link_bw, None)
        n = sum(c for _, c in led.counted())
        return [predict.bound_time(led, spec, 2), kernels - predict.roofline_time(led, spec, 2),
                max(0.0, predict.comm_time(led, 2, 0, CURVE) - ring),
                predict.fixed_cost(led, slow, floor, 2), n * 2e-6, 1e-3]  # fmt: skip

    pre = terms(tf.prefill_ledger(TINY, 3, 100))
    # 8 new tokens: the prefill yields the first, 7 decode steps the rest, caches 101 .. 107
    steps = [terms(tf.decode_ledger(TINY, 3, c)) for c in range(101, 108)]  # every one of 7
    mean = [sum(s[i] for s in steps) / 7 for i in range(6)]
    assert list(f.prefill) == ["bound (spec roofs)", "measured GEMM and HBM shares",
        "all-reduce beyond ring bytes", "kernel floor", "CPU launch per kernel",
        "fixed cost per step"]  # fmt: skip
    assert list(f.prefill.values()) == pytest.approx(pre)
    assert list(f.decode_step.values()) == pytest.approx(mean)
    assert f.prefill_s == pytest.approx(sum(pre)) and f.decode_step_s == pytest.approx(sum(mean))
    assert f.total_s == pytest.approx(sum(pre) + 7 * sum(mean))
    assert f.bound_prefill_s == pytest.approx(pre[0])
    assert f.bound_decode_step_s == pytest.approx(mean[0])
    roofs = predict.spec_roofs(A100, "bf16")
    f = predict.forecast(Request(model=TINY, prompt=10, new_tokens=65), roofs, BARE)
    # 65 new tokens: 64 decode steps in 16 bins of 4, middle caches 10 + 1 + 2, 6, 10, ..., 62
    sampled = [
        predict.roofline_time(tf.decode_ledger(TINY, 1, 13 + 4 * i), roofs) for i in range(16)
    ]
    assert f.decode_step_s == pytest.approx(sum(sampled) / 16)
    exact = [predict.roofline_time(tf.decode_ledger(TINY, 1, c), roofs) for c in range(11, 75)]
    assert f.decode_step_s == pytest.approx(sum(exact) / 64, rel=1e-3)  # linear in the cache
    assert f.total_s == pytest.approx(f.prefill_s + 64 * f.decode_step_s)
    for n in (0, 1):  # the prompt pass alone yields the first token: no decode step
        alone = predict.forecast(Request(model=TINY, prompt=10, new_tokens=n), roofs, BARE)
        assert alone.decode_step_s == 0.0 and alone.total_s == alone.prefill_s == f.prefill_s


BARE = predict.EngineRoofs((), 1.0, 0.0, 0.0, None)


def test_a_routed_expert_matmul_reads_its_share_at_its_own_rows() -> None:
    # 1,024 rows (tokens x k) over the 2 experts they reach, bf16 d = f = 1,000: each expert
    # meets 512 rows, M = F b / (2 W) = 2 x 1,024 x 10^6 x 2 / (2 x 2 x 10^6 x 2) = 512
    expert = Op("expert up projection", "matmul", 2 * 1024 * 1e6, weight_bytes=2 * 1e6 * 2)
    eng = dataclasses.replace(BARE, gemm=((512, 0.5), (1024, 1.0)))
    got = predict.operator_forecast(toy(MATMUL, expert, tokens=1024), SPEC, eng)
    # the dense matmul at the pass's 1,024 rows (the whole peak), the expert's at 512 (half)
    assert got == pytest.approx({"mm": 2e12 / P, "expert up projection": 2 * 1024 * 1e6 / (P / 2)})


def test_an_fp8_layers_input_quantized_apart_costs_a_kernel_by_hand() -> None:
    # SGLang quantizes each FP8 linear layer's input in a kernel of its own: Q, K and V one,
    # then the output, up and down projections (4 a layer); vLLM a fused MoE's two only; the
    # router and LM head stay 16-bit (engines.FP8_QUANT). Each no faster than the floor:
    spec, fp8, floor = predict.spec_roofs(H100, "fp8"), predict.engine_dtypes("fp8", "sglang"), 5e-6
    sglang, vllm = (dataclasses.replace(BARE, floor=floor, fp8_quant=q)
                    for q in (("linear", "experts"), ("experts",)))  # fmt: skip
    dense = tf.decode_ledger(TINY, 3, 10, fp8)
    assert predict.forecast_terms(dense, spec, sglang, 1)[predict.QUANT_TERM] == 2 * 4 * floor
    for eng, dt in ((vllm, fp8), (sglang, DTypes())):  # vLLM's dense layers; 16-bit weights
        assert predict.QUANT_TERM not in predict.forecast_terms(tf.decode_ledger(TINY, 3, 10, dt),
                                                                spec, eng, 1)  # fmt: skip
    # no floor: 3 tokens' inputs of width d, d, d, d_ff (256 x 3, 1,024), 2 bytes in, 1 out
    got = predict.forecast_terms(dense, SPEC, dataclasses.replace(sglang, floor=0.0), 1)
    assert got[predict.QUANT_TERM] == pytest.approx(2 * 3 * (3 * 256 + 1024) * 3 / BW)
    # Mixtral's 2 MoE layers: the experts' input and intermediate; SGLang's Q K V and output
    mix = tf.decode_ledger(dataclasses.replace(get_model("mixtral-8x7b"), n_layers=2), 1, 10, fp8)
    got = [predict.forecast_terms(mix, spec, e, 1)[predict.QUANT_TERM] for e in (vllm, sglang)]
    assert got == pytest.approx([2 * 2 * floor, 2 * 4 * floor])
    assert "expert down projection input quantization" in predict.operator_forecast(mix, spec, vllm)
    at = [(c, predict.compute_precision(c, "fp8")) for c in (H100, A100)]  # A100: weight-only
    assert [predict.engine_roofs(c, "sglang", p).fp8_quant for c, p in at] == [
        ("linear", "experts"), ()]  # fmt: skip


def least_squares(gpu: str) -> tuple[float, float]:
    """(t0, beta) of vidur's one-row projections on `gpu`, by the textbook sums (not statistics)."""
    pts = []
    for r in csv.DictReader(engines.VIDUR_GEMV_CSV.read_text(encoding="utf-8").splitlines()):
        h, kv, d, ff, g = (int(v) for v in list(r.values())[2:8] if v not in ("True", "False"))
        up = ff * (1 + (r["use_gated_mlp"] == "True"))  # gate and up side by side where gated
        kn = [(d, (h + 2 * kv) * d // h // g), (d // g, d), (d, up // g), (ff // g, d)]
        ms = [float(v) * 1e-3 for v in list(r.values())[-4:]] * (r["gpu"] == gpu)
        pts += [(2 * (k + k * n + n), t) for (k, n), t in zip(kn, ms, strict=False)]
    n, sx, sy = len(pts), sum(x for x, _ in pts), sum(y for _, y in pts)
    slope = (n * sum(x * y for x, y in pts) - sx * sy) / (n * sum(x * x for x, _ in pts) - sx * sx)
    return (sy - slope * sx) / n, 1 / slope


def test_a_weight_read_takes_t0_plus_its_bytes_over_beta_by_hand(monkeypatch, tmp_path) -> None:
    # the line through vidur's 84 H100 and 116 A100 one-row projections of 8 models, 1-8 GPUs
    (t0, beta), (a0, abeta) = least_squares("h100"), least_squares("a100")
    code = {gpu: [t.value for t in engines.gemv_terms(gpu)] for gpu in ("h100", "a100")}
    assert (t0, beta) == pytest.approx((4.36e-6, 3.008e12), rel=1e-3) == code["h100"]
    assert (a0, abeta) == pytest.approx((5.09e-6, 1.642e12), rel=1e-3) == code["a100"]
    h100 = predict.engine_roofs(get_chip("h100"), "vllm", "bf16")
    assert h100.gemv == pytest.approx((t0, beta / 3.35e12)) and h100.hbm_share == h100.gemv[1]
    # it predicts vidur's own Llama-2-70B gate+up shard on 4 H100s, [1, 8192] x [8192, 14336]:
    # 0.081 ms measured, 4.36 us + 235 MB / 3.008 TB/s = 82.5 us
    assert t0 + 2 * (8192 + 8192 * 14336 + 14336) / beta == pytest.approx(0.081e-3, rel=0.02)
    # the forecast: twice t0 adds t0 to each of Llama-3-70B's 80 x 7 projections and its LM
    # head at batch 1 (all memory-bound), in 16 bits and in FP8 (attention at the 16-bit peak)
    c = get_chip("h100")
    for p in ("bf16", "fp8"):
        eng, dt = predict.engine_roofs(c, "vllm", p), predict.engine_dtypes(p, "vllm")
        led, spec = tf.decode_ledger(LLAMA_3_70B, 1, 100, dt), predict.spec_roofs(c, p)
        total = [sum(predict.forecast_terms(led, spec, dataclasses.replace(eng, gemv=(
                 k * t0, eng.gemv[1])), 1).values()) for k in (1, 2)]  # fmt: skip
        assert total[1] - total[0] == pytest.approx((80 * 7 + 1) * t0)
    # the A100 40GB's share is kipply's, over all its decode matmuls: no start-up time
    assert predict.engine_roofs(get_chip("a100"), "trtllm", "bf16").gemv is None
    bad = tmp_path / "gemv.csv"  # a slip in the file, on any chip's row: one line naming it
    bad.write_text(engines.VIDUR_GEMV_CSV.read_text().replace(",0.1105,", ",-5,", 1))
    with pytest.raises(slips.SlipError, match=r"gemv\.csv line 2: attn_pre_proj must be a pos"):
        engines.gemv_points("h100", bad)
    # a datasheet edited below what vidur measured (1 TB/s) keeps the share, taken against
    # the datasheet as shipped: the edit slows every read alike
    slow = dataclasses.replace(c, mem_bw_figure=dataclasses.replace(c.mem_bw_figure, value=1e12))
    monkeypatch.setitem(hw_specs.CHIPS, "h100", slow)
    assert predict.engine_roofs(slow, "trtllm", "bf16") == predict.engine_roofs(c, "trtllm", "bf16")


def test_engine_terms_from_their_cited_figures_by_hand() -> None:
    h100 = predict.engine_roofs(get_chip("h100"), "vllm", "bf16")
    # vidur's H100 gate+up GEMM: 2 x 4096 x 4096 x 22016 FLOP in 0.987 ms at 4,096 rows,
    # of 989 TFLOP/s; its rows from 512 on, where F / D (445.9 FLOP/B) passes the ridge
    # 989 TFLOP/s / 3.008 TB/s = 328.8 (256 rows: 238.3)
    assert h100.gemm[-1] == (4096, pytest.approx(2 * 4096 * 4096 * 22016 / 0.987e-3 / 989e12))
    assert h100.gemm[0] == (512, pytest.approx(2 * 512 * 4096 * 22016 / 0.134e-3 / 989e12))
    assert h100.hbm_share == pytest.approx(3.008e12 / 3.35e12, rel=1e-3)
    assert h100.floor == pytest.approx((4 + 1 + 6 + 4) / 4 * 1e-6) and h100.step == 4e-3 / 8
    assert h100.curve[8][0] == (16384, 33e-6)
    fp8 = predict.engine_roofs(get_chip("h100"), "vllm", "fp8")
    assert "GEMM shares and the weight-read line measured in bf16, used at fp8" in fp8.notes
    # at fp8: scaled by the MAMF table's shares, fp8 1402.6 of 1979 over bf16 794.5 of 989
    scale = (1402.6 / 1979) / (794.5 / 989)
    assert fp8.gemm[-1][1] == pytest.approx(h100.gemm[-1][1] * scale)
    h200 = predict.engine_roofs(get_chip("h200"), "trtllm", "bf16")
    # the H100's 0.898 capped at the H200's stream, 3,759 of 4,800 GB/s, at any GPU count
    assert h200.hbm_share == h200.gemv[1] == 3759 / 4800 and h200.gemv[0] == h100.gemv[0]
    four = [predict.engine_roofs(get_chip(c), "trtllm", "bf16", 4) for c in ("h100", "h200")]
    assert four[0].hbm_share == h100.hbm_share and four[1].hbm_share == 3759 / 4800
    assert h200.step == 0.0 and "HBM shares capped at the H200's own stream (78.3%)" in h200.notes
    # on its own chip the share stays as fitted, at any GPU count: the A100's 1.642 TB/s
    a100 = predict.engine_roofs(get_chip("a100-80gb"), "trtllm", "bf16", 2)
    assert a100.hbm_share == pytest.approx(1.642e12 / 2.039e12, rel=1e-3)
    assert any("H100" in note for note in h200.notes)
    # eager modules: gpt-fast's 25.5 tok/s eager against 104.9 compiled, over 483 kernels a
    # step; vLLM's model code without CUDA graphs: PR #1440's 1.2 s against 1.05 s over 100 steps
    eager = predict.engine_roofs(get_chip("a100-80gb"), "eager", "bf16")
    assert eager.launch == pytest.approx((1 / 25.5 - 1 / 104.9) / 483)
    old = predict.engine_roofs(get_chip("a100-80gb"), "vllm-eager", "bf16")
    assert old.launch == pytest.approx((1.2 - 1.05) / 100 / 483)
    a100 = predict.engine_roofs(get_chip("a100-80gb"), "trtllm", "bf16")
    # its rows from 256 on (5 of 8): F / D = 238.3 FLOP/B past the ridge 312 / 1.642 = 190.0;
    # 128 rows (123.4) and 64 are the weights' read, not the matmul's pace
    assert len(a100.gemm) == 5
    assert a100.gemm[0] == (256, pytest.approx(2 * 256 * 4096 * 22016 / 0.229e-3 / 312e12))
    a100, h100 = get_chip("a100-80gb"), get_chip("h100")
    # vidur, num_tensor_parallel_workers = 8: [4096, 4096] x [4096, 2752] in 0.410 ms on an
    # A100 80GB, 0.132 ms on an H100
    a8, h8 = (predict.engine_roofs(c, "trtllm", "bf16", 8) for c in (a100, h100))
    assert a8.gemm[-1] == (4096, pytest.approx(2 * 4096 * 4096 * 2752 / 0.410e-3 / 312e12))
    assert h8.gemm[-1] == (4096, pytest.approx(2 * 4096 * 4096 * 2752 / 0.132e-3 / 989e12))
    # 16 GPUs: none measured, the 8-way shard stands in and the notes say so
    a16 = predict.engine_roofs(a100, "trtllm", "bf16", 16)
    assert a16.gemm == a8.gemm and any("8-way" in n for n in a16.notes)
    # the A100 40GB: kipply's 0.90 on one GPU, times the 8-way loss of the one-row gate+up
    # GEMM: 0.116 ms on one GPU against 0.020 ms for an eighth
    forty = predict.engine_roofs(get_chip("a100"), "trtllm", "bf16", 8)
    assert forty.hbm_share == pytest.approx(0.90 * 0.116 / (8 * 0.020))
    eng = predict.engine_roofs(get_chip("b200"), "vllm", "bf16")
    assert eng.gemm == ((1, pytest.approx(1745 / 2250)),)


def test_vllms_own_allreduce_below_its_last_size_and_nccl_above_by_hand(monkeypatch) -> None:
    # sglang PR #2904, rows 'vllm': 32,768 float32 elements (131,072 B) in 0.0092 ms on 4
    # H100s, 1,048,576 elements (4 MiB) in 0.0402 ms; above that vidur's NCCL points, 16 MiB
    # in 93 us and 64 MiB in 315 us
    curve = predict.engine_roofs(get_chip("h100"), "vllm", "bf16", 4).curve
    assert curve[4][2] == (131072, pytest.approx(9.2e-6))
    assert curve[4][5:] == ((4194304, pytest.approx(40.2e-6)), (2**24, 93e-6), (2**26, 315e-6))
    assert predict.allreduce_time(131072, 4, None, curve) == pytest.approx(9.2e-6)
    # halfway from 1,048,576 B (20.6 us) to 2,097,152 B (26.9 us) on 4 GPUs
    assert predict.allreduce_time(1572864, 4, None, curve) == pytest.approx(23.75e-6)
    # the H200 shares the H100's switch; on the A100 vLLM runs the same kernel, whose H100
    # times stand in (9.2 us at 2^17 B on 4), and a note says so; past 4 MiB vidur's DGX A100
    # NCCL points (200 us at 16 MiB, 602 us at 64 MiB)
    h200 = predict.engine_roofs(get_chip("h200"), "vllm", "bf16", 2)
    assert h200.curve[2][0] == (2048, pytest.approx(9.5e-6))
    assert not any("measured on H100s only" in n for n in h200.notes)
    for key in ("a100", "a100-80gb"):
        a100 = predict.engine_roofs(get_chip(key), "vllm-single-step", "bf16", 4)
        assert a100.curve[4][2] == (131072, pytest.approx(9.2e-6))
        assert a100.curve[4][6:] == ((2**24, 200e-6), (2**26, 602e-6))
        carried = [n for n in a100.notes if "measured on H100s only" in n]
        assert carried == [engines.CUSTOM_ALLREDUCE_CARRIED.format(chip=get_chip(key).name)]
        assert f"on the {get_chip(key).name} its H100 times" in carried[0]
    # vLLM before CUDA graphs had no custom all-reduce: NCCL's curve (60 us at 2^17 B on 4)
    assert predict.engine_roofs(get_chip("a100"), "vllm-eager", "bf16", 4).curve[4][1] == (
        131072,
        60e-6,
    )
    # TensorRT-LLM's own kernels on the H100 (the PR's 'custom allreduce' rows: 32,768 float32
    # elements in 0.0048 ms on 4, 0.0078 ms on 8), on the A100 too (a note says so); before
    # v0.8 (trtllm-mmha) NCCL's curve (41 us at 2^17 B on 4 H100s, 60 us on 4 A100s); SGLang's,
    # vLLM's kernel in sgl-kernel: the 'vllm' rows (0.0118 ms on 8)
    cases = (("h100", "trtllm", 4, 4.8), ("h100", "trtllm", 8, 7.8), ("h100", "trtllm-mmha", 4, 41),
             ("h200", "sglang", 8, 11.8), ("a100-80gb", "trtllm-mmha", 4, 60),
             ("a100-80gb", "trtllm", 4, 4.8))  # fmt: skip
    for key, engine, g, us in cases:
        roofs = predict.engine_roofs(get_chip(key), engine, "bf16", g)
        assert predict.allreduce_time(131072, g, None, roofs.curve) == pytest.approx(us * 1e-6)
    assert engines.CUSTOM_ALLREDUCE_CARRIED.format(chip="A100 80GB SXM") in roofs.notes
    # a chip with measured kernels but none of vLLM's all-reduce times: NCCL's, said plainly
    monkeypatch.setitem(engines.CHIP_TERMS, "b200", engines.H100_TERMS)
    b200 = predict.engine_roofs(get_chip("b200"), "vllm", "bf16", 4)
    assert b200.curve[4][1] == (131072, 41e-6)
    chips = "H100 SXM, H200, A100 40GB SXM, A100 80GB SXM"
    assert engines.NO_OWN_ALLREDUCE.format(chips=chips) in b200.notes
    two = predict.engine_roofs(get_chip("b200"), "vllm", "bf16", 2).notes
    assert sum("NCCL curve stands in" in n for n in two) == 1  # from 2 GPUs on, not on 1
    assert not any("NCCL curve stands in" in n for n in predict.engine_roofs(
        get_chip("b200"), "vllm", "bf16", 1).notes)  # fmt: skip
    # a decode step of Llama-3-70B at batch 8 on 4 H100s: 2 x 80 all-reduces of
    # 8 x 8192 x 2 B = 131,072 B, each 9.2 us against the ring's 2 x 3/4 x 131,072 B / link
    c = get_chip("h100")
    eng = predict.engine_roofs(c, "vllm", "bf16", 4)
    spec = predict.spec_roofs(c, "bf16")
    terms = predict.forecast_terms(tf.decode_ledger(LLAMA_3_70B, 8, 100), spec, eng, 4)
    ring = 2 * 3 / 4 * 131072 / c.link_bw
    assert terms["all-reduce beyond ring bytes"] == pytest.approx(160 * (9.2e-6 - ring))
    # TensorRT-LLM's on 2 H100s: 4.5 us at 131,072 B against the ring's 2 x 1/2 x 131,072 B
    eng = predict.engine_roofs(c, "trtllm", "bf16", 2)
    terms = predict.forecast_terms(tf.decode_ledger(LLAMA_3_70B, 8, 100), spec, eng, 2)
    ring = 131072 / c.link_bw
    assert terms["all-reduce beyond ring bytes"] == pytest.approx(160 * (4.5e-6 - ring))
    # a node with no NCCL curve: vLLM's own points alone, up to its 4 MiB
    bare = dataclasses.replace(engines.H100_TERMS, allreduce=None)
    monkeypatch.setitem(engines.CHIP_TERMS, "h100", bare)
    alone = predict.engine_roofs(get_chip("h100"), "vllm", "bf16", 4).curve
    assert alone[4][-1] == (4194304, pytest.approx(40.2e-6)) and len(alone[4]) == 6


def test_an_fp8_engine_keeps_16_bit_activations_and_its_own_cache_by_hand() -> None:
    # TensorRT-LLM's FP8 engines run a float16 network: weights and cache 1 byte, the
    # activations 2, so each all-reduce of Llama-2-70B's 128-token prefill on 4 GPUs moves
    # 128 x 8192 x 2 B = 2,097,152 B, exactly the curve's 2^20 .. 2^22 B span; bf16 unchanged
    fp8 = predict.engine_dtypes("fp8", "trtllm")
    assert (fp8.w_bytes, fp8.kv_bytes, fp8.act_bytes) == (1, 1, 2)
    assert predict.engine_dtypes("bf16", "vllm") == DTypes("bf16", "bf16", "bf16")
    assert predict.engine_dtypes("fp16", "vllm").activations == "fp16"  # 2 bytes: its own
    # vLLM's and SGLang's cache dtype 'auto' and transformers' cache follow the 16-bit network
    for engine in ("vllm", "eager", "sglang"):
        low = predict.engine_dtypes("fp8", engine)
        assert (low.w_bytes, low.kv_bytes, low.act_bytes) == (1, 2, 2)
    assert predict.engine_dtypes("int4", "trtllm").kv_bytes == 0.5
    # embedding and LM head stay 16-bit (TensorRT-LLM's FP8 Llama-2-7B file: 7,000,893,272 B)
    assert tf.weight_bytes(pub.LLAMA_2_7B, fp8) == 6_738_415_616 + 2 * 32000 * 4096  # +1 B each
    assert tf.weight_bytes(pub.LLAMA_2_7B, fp8) == pytest.approx(7_000_893_272, rel=1e-4)
    head = dict((op.name, op) for op, _ in tf.decode_ledger(pub.LLAMA_2_7B, 1, 9, fp8).counted())
    assert head["LM head"].weight_bytes == 2 * 4096 * 32000  # bf16
    assert fp8.describe().startswith("fp8 weights (bf16 embedding and LM head), fp8 KV cache")
    # 16 bits or fewer on a chip with no peak for them: the bf16 peak (fp16 at its rate, int4)
    pairs = ("h100 int4", "a100 int4", "h100 fp8", "b200 nvfp4", "a100 fp32", "h100 fp16")
    got = [predict.compute_precision(get_chip(c), p) for c, p in map(str.split, pairs)]
    assert got == ["bf16", "bf16", "fp8", "nvfp4", "fp32", "bf16"]  # fp32: no peak, an error
    led = tf.prefill_ledger(pub.LLAMA_2_70B, 1, 128, fp8)
    curve = {4: ((2**20, 40e-6), (2**22, 70e-6))}  # 40 us at 1 MiB, 70 us at 4 MiB
    at_2mib = 40e-6 + 30e-6 * (2**21 - 2**20) / (2**22 - 2**20)  # 50 us
    assert predict.comm_time(led, 4, None, curve) == pytest.approx(2 * 80 * at_2mib)
    attn = Op("scores", "attention", 1e12, act_bytes=1e9)
    eng = predict.EngineRoofs((), 1.0, 0.0, 0.0, None, attention_share=0.5)
    terms = predict.forecast_terms(toy(MATMUL, attn, NORM), SPEC, eng, 1)
    assert terms[predict.ATTENTION_TERM] == pytest.approx(20e-3 - 10e-3)
    assert terms["measured GEMM and HBM shares"] == pytest.approx(0.0)
    assert sum(terms.values()) == pytest.approx(20e-3 + 20e-3 + 4e-3)
    # 16-bit GEMMs: no such term at all
    assert predict.ATTENTION_TERM not in predict.forecast_terms(toy(attn), SPEC, BARE, 1)
    scale = (1402.6 / 1979) / (794.5 / 989)
    for engine in ("trtllm", "vllm"):
        fp8 = predict.engine_roofs(get_chip("h100"), engine, "fp8")
        assert fp8.attention_share == pytest.approx(989 / (scale * 1979))
    assert predict.engine_roofs(get_chip("h100"), "trtllm", "bf16").attention_share == 1.0
    # a chip without per-shape terms: the achievable (MAMF) bf16 over fp8 peaks of the B200
    b200 = predict.engine_roofs(get_chip("b200"), "trtllm", "fp8")
    chip = get_chip("b200")
    assert b200.attention_share == pytest.approx(
        chip.achievable_flops("bf16") / chip.achievable_flops("fp8"))  # fmt: skip


def test_kv_re_read_per_query_head_and_a_cache_on_fewer_shards_than_gpus_by_hand() -> None:
    # 40 query heads on 10 KV heads: g = 4. One decode attention kernel reads 1 GB of cache:
    # 1 ms at 1 TB/s; walked once per query head, 4 GB at 2 TB/s: 2 ms, 1 ms more
    gqa = dataclasses.replace(ONE_LAYER, n_kv_heads=10)
    attn = Op("scores", "attention", 1e6, kv_bytes=1e9)
    step = PassLedger("decode", gqa, 1, 1, 100, DTypes(), False, (attn, MATMUL), ())
    per_head = predict.EngineRoofs((), 1.0, 3e-3, 0.0, None, kv_reread=2e12)
    terms = predict.forecast_terms(step, SPEC, per_head, 1)
    assert terms[predict.KV_TERM] == pytest.approx(1e-3)
    # the floor (3 ms) fills the kernel up from its 2 ms, not from 1 ms (the matmul's 20 ms: 0)
    assert terms["kernel floor"] == pytest.approx(1e-3)
    # an XQA that takes groups of 4 reads them once (no term); of 8 only, these per query head
    xqa = dataclasses.replace(per_head, once_groups=(4,))
    assert predict.KV_TERM not in predict.forecast_terms(step, SPEC, xqa, 1)
    eight = dataclasses.replace(per_head, once_groups=(8,))
    assert predict.forecast_terms(step, SPEC, eight, 1)[predict.KV_TERM] == pytest.approx(1e-3)
    # a group of 8 (5 KV heads) only from 5 x batch >= a quarter of 132 SMs, 33: batch 6 walks
    # 8 GB at 2 TB/s, 4 ms (3 ms more); batch 7 reads once
    g8 = dataclasses.replace(step, model=dataclasses.replace(ONE_LAYER, n_kv_heads=5), batch=6)
    gate = dataclasses.replace(eight, once_blocks=33.0)
    assert predict.forecast_terms(g8, SPEC, gate, 1)[predict.KV_TERM] == pytest.approx(3e-3)
    on = {b: dataclasses.replace(g8, batch=b) for b in (7, 11, 17)}
    assert predict.KV_TERM not in predict.forecast_terms(on[7], SPEC, gate, 1)
    # a GPU's KV heads rounded up: 3 of 5 on 2 GPUs (33 at batch 11: once), 1 on 8 (17: walks)
    assert predict.KV_TERM not in predict.forecast_terms(on[11], SPEC, gate, 2)
    assert predict.forecast_terms(on[17], SPEC, gate, 8)[predict.KV_TERM] > 0
    # two GPUs: 0.5 ms from HBM, 1 ms walked
    assert predict.forecast_terms(step, SPEC, per_head, 2)[predict.KV_TERM] == pytest.approx(5e-4)
    # prefill reads no cache this way; one KV head a query head (g = 1) or reading once: no term
    prefill = dataclasses.replace(step, phase="prefill")
    assert predict.forecast_terms(prefill, SPEC, per_head, 1)[predict.KV_TERM] == 0.0
    mha = dataclasses.replace(step, model=ONE_LAYER)
    assert predict.KV_TERM not in predict.forecast_terms(mha, SPEC, per_head, 1)
    assert predict.KV_TERM not in predict.forecast_terms(step, SPEC, BARE, 1)
    # copies (repeat_kv): read 1 GB, write 4, attention reads 4 for 1: 8 GB more at 1 TB/s
    copies = dataclasses.replace(BARE, kv_copies=True)
    assert predict.forecast_terms(step, SPEC, copies, 1)[predict.KV_TERM] == pytest.approx(8e-3)
    assert predict.forecast_terms(mha, SPEC, copies, 1).get(predict.KV_TERM) is None
    # the engines: the walk measured for the chip and cache (2 x 128 bytes of 2 or 1 a token
    # a query head), the A100 40GB at the 80GB's; XQA of v0.8 to v0.10 takes groups of 8 only;
    # vLLM and trtllm read once
    h100, a100, walk = get_chip("h100"), get_chip("a100"), engines.KV_REREAD
    mmha = predict.engine_roofs(h100, "trtllm-mmha", "fp8")
    assert mmha.kv_reread == pytest.approx(256 / walk["h100"]["fp8"].value)
    eager = predict.engine_roofs(a100, "vllm-eager", "bf16").kv_reread
    assert eager == pytest.approx(512 / walk["a100-80gb"]["bf16"].value)
    single = predict.engine_roofs(h100, "trtllm-single-block", "bf16")
    assert single.kv_reread == pytest.approx(5.57e12, rel=1e-3) and single.once_groups == (8,)
    a100_single = predict.engine_roofs(a100, "trtllm-single-block", "bf16")
    assert single.once_blocks == 132 / 4 and a100_single.once_blocks == 108 / 4
    b200s = predict.engine_roofs(get_chip("b200"), "trtllm-single-block", "bf16").notes
    assert f"{predict.KV_TERM}: no SM count for the B200, so XQA at every batch" in b200s
    assert predict.engine_roofs(h100, "vllm", "bf16").kv_reread == 0.0
    assert predict.engine_roofs(a100, "eager", "bf16").kv_copies
    b200 = predict.engine_roofs(get_chip("b200"), "trtllm-mmha", "bf16")
    said = f"{predict.KV_TERM}: no walk measured for the bf16 cache on the B200 (left out)"
    assert b200.kv_reread == 0.0 and said in b200.notes
    trt = predict.engine_roofs(h100, "trtllm", "fp8")
    assert (trt.kv_reread, trt.once_groups, trt.notes) == (0.0, (), mmha.notes)
    # 40 query heads on 2 KV heads over 8 GPUs: each GPU reads its KV head's half of the
    # 1 GB cache, 0.5 GB (0.5 ms at 1 TB/s), not 1/8 (0.125 ms): 0.375 ms more; a latent
    # cache (one shard) all of it: 0.875 ms more; 2 GPUs split 2 KV heads: no such term
    attn = Op("scores", "attention", 1e6, act_bytes=8e6, kv_bytes=1e9)
    two = dataclasses.replace(ONE_LAYER, n_kv_heads=2)
    step = PassLedger("decode", two, 1, 1, 100, DTypes(), False, (attn,), ())
    terms = predict.forecast_terms(step, SPEC, BARE, 8)
    assert terms[predict.SHARED_KV_TERM] == pytest.approx(0.5e-3 - 0.125e-3)
    ring = 2 * (2 * 7 / 8 * 1000 * 2) / LINK  # two all-reduces of [1, 1000] in 2 bytes
    assert sum(terms.values()) == pytest.approx(0.5e-3 + 1e-6 + ring)  # act bytes split 8 ways
    mla = dataclasses.replace(two, kv_lora_rank=512, rope_head_dim=64)
    latent = dataclasses.replace(step, model=mla)
    whole = predict.forecast_terms(latent, SPEC, BARE, 8)[predict.SHARED_KV_TERM]
    assert whole == pytest.approx(1e-3 - 0.125e-3)
    assert predict.SHARED_KV_TERM not in predict.forecast_terms(step, SPEC, BARE, 2)
    # the bound stays the course's: every operator split g ways
    assert terms["bound (spec roofs)"] == pytest.approx((1e9 + 8e6) / 8 / BW + ring)


def test_one_block_per_kv_head_streams_no_faster_than_its_measured_rate_by_hand() -> None:
    # 4 sequences x 2 KV heads: 8 blocks share a decode attention's 1 GB of cache, 125 MB
    # each; at 10 GB/s a block 12.5 ms, where HBM (1 TB/s) takes 1 ms: 11.5 ms more
    two = dataclasses.replace(ONE_LAYER, n_kv_heads=2)
    attn = Op("scores", "attention", 1e6, kv_bytes=1e9)
    step = PassLedger("decode", two, 4, 1, 100, DTypes(), False, (attn, MATMUL), ())
    block = dataclasses.replace(BARE, kv_block=10e9)
    term = predict.BLOCK_TERM
    assert predict.forecast_terms(step, SPEC, block, 1)[term] == pytest.approx(11.5e-3)
    # two GPUs, a KV head each: the blocks still take 12.5 ms, HBM 0.5 ms
    assert predict.forecast_terms(step, SPEC, block, 2)[term] == pytest.approx(12e-3)
    # a verify pass of 4 tokens a sequence: still 8 blocks; 400 sequences: 800 blocks of
    # 1.25 MB, 0.125 ms, under HBM's 1 ms; prefill: none
    verify = dataclasses.replace(step, new_tokens=4)
    assert predict.forecast_terms(verify, SPEC, block, 1)[term] == pytest.approx(11.5e-3)
    for other in (dataclasses.replace(step, batch=400), dataclasses.replace(step, phase="prefill")):
        assert predict.forecast_terms(other, SPEC, block, 1)[term] == 0.0
    assert term not in predict.forecast_terms(step, SPEC, BARE, 1)  # the cache split: none
    # the engines: TensorRT-LLM v0.8-v0.11 and MMHA at the chip's rate for their cache; trtllm
    # (multi-block mode) and vLLM split the cache; a chip with no rate says so
    h100, t = get_chip("h100"), engines.KV_BLOCK["h100"]  # 2 x 128 bytes of 2 or 1 a token
    bf16 = predict.engine_roofs(h100, "trtllm-single-block", "bf16").kv_block
    assert bf16 == pytest.approx(512 / t["bf16"].value) == pytest.approx(69e9, rel=0.01)
    assert predict.engine_roofs(h100, "trtllm-mmha", "fp8").kv_block == 256 / t["fp8"].value
    assert predict.engine_roofs(h100, "trtllm", "bf16").kv_block == 0.0
    assert predict.engine_roofs(h100, "vllm", "bf16").kv_block == 0.0
    b200 = predict.engine_roofs(get_chip("b200"), "trtllm-single-block", "bf16")
    said = f"{term}: no block's stream measured for the bf16 cache on the B200 (left out)"
    assert b200.kv_block == 0.0 and said in b200.notes


@settings(max_examples=40, deadline=None)
@given(chip=st.sampled_from(["a100", "a100-80gb", "h100", "h200", "b200", "tpu-v5e"]),
       model=st.sampled_from(["llama-2-7b", "llama-3-70b", "qwen3-30b-a3b", "deepseek-v3"]),
       engine=st.sampled_from(["vllm", "trtllm", "eager", "trtllm-mmha", "sglang",
                               "trtllm-single-block"]),
       gpus=st.sampled_from([1, 2, 4, 8]), batch=st.integers(1, 256),
       prompt=st.integers(1, 2048), new=st.integers(0, 64))  # fmt: skip
def test_the_forecast_is_never_below_the_bound(chip, model, engine, gpus, batch, prompt, new):
    c, m = get_chip(chip), get_model(model)
    spec = predict.spec_roofs(c, "bf16")
    req = Request(model=m, gpus=gpus, batch=batch, prompt=prompt, new_tokens=new)
    f = predict.forecast(req, spec, predict.engine_roofs(c, engine, "bf16", gpus))
    bound = predict.request_bound(req, spec)
    assert f.prefill_s >= f.bound_prefill_s and f.decode_step_s >= f.bound_decode_step_s
    assert f.total_s >= bound * (1 - 1e-12)
    assert all(v >= 0 for v in (*f.prefill.values(), *f.decode_step.values()))


def test_a_chip_without_a_link_figure_predicts_on_one_gpu() -> None:
    """Issue 34: a chip added with no link figure ended lecture 06 and predict in a traceback."""
    bare = dataclasses.replace(H100, link_bw_figure=None, achievable_link_bw_figure=None)
    with pytest.raises(ValueError, match="H100 SXM has no link bandwidth figure in the table"):
        _ = bare.link_bw
    spec = predict.spec_roofs(bare, "bf16")
    assert spec.link_bw is None and spec.mem_bw == 3.35e12  # H100 datasheet
    assert predict.allreduce_time(1e6, 1, spec.link_bw) == 0.0  # one GPU: no all-reduce
    with pytest.raises(ValueError, match="over 2 GPUs needs a link bandwidth; the table has none"):
        predict.allreduce_time(1e6, 2, spec.link_bw)

    def ledger_at(b: int):  # toy pass: attention per sequence, one routed expert matmul
        layer = (
            Op("attention", "attention", b * 1e9, act_bytes=b * 1e6),
            Op("expert up", "matmul", b * 2e9, 8e6, b * 1e3, 0.0),
        )
        return PassLedger("decode", TINY, b, 1, 100, DTypes(), False, layer, (), ((layer, 1),))

    busiest = predict.ep_pass(ledger_at, 10, 4)
    for attn, expert in (busiest.layer, busiest.variants[0][0]):
        # attention for its ceil(10 / 4) = 3 sequences; 1/4 of the experts over all 10
        assert (attn.flops, attn.act_bytes) == (3e9, 3e6)
        assert (expert.flops, expert.weight_bytes, expert.act_bytes) == (5e9, 2e6, 2500.0)


LLAMA_N, LLAMA_KV = 6_738_415_616, 2 * 32 * 4096  # parameters; KV elements a token
MIXTRAL_EXPERTS, MIXTRAL_REST = 45_097_156_608, 46_702_792_704 - 45_097_156_608
MIXTRAL_KV = 2 * 32 * 8 * 128  # KV elements a token: 8 KV heads of 128


@pytest.mark.parametrize(("gpus", "kv", "by_hand"), [
    (1, "bf16", 2 * LLAMA_N + 8 * 4096 * LLAMA_KV * 2),
    (2, "bf16", LLAMA_N + 8 * 4096 * LLAMA_KV),  # weights and KV heads halved
    (2, "fp8", LLAMA_N + 8 * 4096 * LLAMA_KV / 2),  # one byte a cached element
])  # fmt: skip
def test_memory_per_gpu_is_weights_plus_cache_by_hand(gpus, kv, by_hand) -> None:
    model = get_model("llama-2-7b")
    assert memory_per_gpu(model, DTypes("bf16", kv), gpus, 8, 4096) == pytest.approx(by_hand)


def test_weights_and_cache_that_fill_the_memory_exactly_fit() -> None:
    model = get_model("llama-2-7b")
    need = memory_per_gpu(model, DTypes(), 1, 8, 4096)  # by hand in the test above
    full = dataclasses.replace(A100.mem_capacity_figure, value=need)
    check_fits(model, dataclasses.replace(A100, mem_capacity_figure=full), DTypes(), 1, 8, 4096)
    model, chip = get_model("mixtral-8x7b"), get_chip("a100")
    # --ep 8: the other weights whole, 1/8 of the experts, ceil(64 / 8) = 8 sequences' cache
    need = 2 * (MIXTRAL_REST + MIXTRAL_EXPERTS / 8) + 8 * 32768 * MIXTRAL_KV * 2
    assert memory_per_gpu(model, DTypes(), 8, 64, 32768, ep=True) == pytest.approx(need)
    assert need > 48e9  # over 40 GB at 8, the most GPUs 8 experts can spread over
    with pytest.raises(ValueError) as caught:
        check_fits(model, chip, DTypes(), 8, 64, 32768, ep=True)
    assert str(caught.value).endswith(
        f"need {need / 1e9:.1f} GB per GPU on 8 x {chip.name} (40 GB each); "
        "no split of its 8 experts would hold it"
    )
    model, chip = get_model("llama-2-7b"), get_chip("a100")
    # batch 40 at 4,096 tokens: 2 N + 40 x 4096 x 2 L Hkv dh x 2 B = 99.4 GB on one GPU;
    # on 2, 49.7 GB; on 4, 24.8 GB (32 heads split 1, 2, 4, 8, ... ways)
    need = 2 * LLAMA_N + 40 * 4096 * LLAMA_KV * 2
    with pytest.raises(ValueError) as caught:
        check_fits(model, chip, DTypes(), 1, 40, 4096)
    assert str(caught.value) == (
        f"Llama-2-7B's weights and KV cache need {need / 1e9:.1f} GB per GPU on 1 x "
        f"{chip.name} (40 GB each); 4 GPUs would hold it"
    )


@pytest.mark.parametrize("new_tokens", [1, 9])
def test_speculation_with_a_draft_head_by_hand(new_tokens) -> None:
    roofs, K, a, prompt, dt = predict.spec_roofs(A100, "bf16"), 3, 0.8, 100, DTypes("fp8", "fp8")
    req = Request(model=TINY, batch=2, prompt=prompt, new_tokens=new_tokens, dtypes=dt)
    got = predict.speculate(req, roofs, BARE, K, a)

    def bound(led) -> float:
        return predict.bound_time(led, roofs, 1)

    prefill = predict.forecast(req, roofs, BARE).prefill_s
    # the draft head: one of the target's 2 layers, its mean decode step (caches prompt + 1
    # to prompt + n - 1; at prompt + 1 when there is none)
    caches = range(prompt + 1, prompt + max(2, new_tokens))
    step = sum(bound(tf.decode_ledger(TINY, 2, c, dt)) for c in caches) / len(caches)
    assert got.draft_step_s == pytest.approx(step / 2)
    # the verify pass: K + 1 tokens a sequence, at the mean cache prompt + n // 2 (at least
    # 1), plus the K drafted
    ctx = prompt + max(1, new_tokens // 2)
    assert got.verify_step_s == pytest.approx(bound(tf.verify_ledger(TINY, 2, K + 1, ctx + K, dt)))
    e = (1 - a ** (K + 1)) / (1 - a)  # 2.952 tokens a verify step
    assert got.tokens_per_step == pytest.approx(2.952)
    steps = (new_tokens - 1) / e * (K * got.draft_step_s + got.verify_step_s)
    assert got.total_s == pytest.approx(prefill + steps) and got.draft_prefill_s == 0.0
    # a draft model (the target itself here) on the same GPU, in the request's dtypes: its
    # decode step at the same cache, and its prompt pass
    drafted = predict.speculate(req, roofs, BARE, K, a, draft=TINY)
    assert drafted.draft_step_s == pytest.approx(bound(tf.decode_ledger(TINY, 2, ctx, dt)))
    assert drafted.draft_prefill_s == pytest.approx(bound(tf.prefill_ledger(TINY, 2, prompt, dt)))
    if new_tokens == 1:  # the prompt pass yields the only token: nothing to speculate on
        assert (got.total_s, got.speedup) == (pytest.approx(prefill), 1.0)


def test_an_edit_moves_its_own_chips_forecast_not_its_borrowers(monkeypatch) -> None:
    # Measured shares and curves are of the datasheet as shipped (the H200 borrows the H100's):
    # the H100's bandwidth and link x10 run its memory-bound decode kernels 10 x faster but for
    # the 32 x 7 + 1 weight reads' start-up time t0, keep the curve's excess over ring bytes
    # (prefill, 4 GPUs) and leave the H200 alone; the B200's
    # peak x2 keeps the MAMF table's share of it, 1,745 of 2,250 TFLOP/s as shipped.
    dt = predict.engine_dtypes("bf16", "vllm")
    req = Request(model=get_model("llama-3-8b"), batch=1, prompt=512, new_tokens=8, dtypes=dt)

    def run(key: str, gpus: int = 1) -> predict.Forecast:
        c, r = get_chip(key), dataclasses.replace(req, gpus=gpus)
        eng, spec = predict.engine_roofs(c, "vllm", "bf16", gpus), predict.spec_roofs(c, "bf16")
        return predict.forecast(r, spec, eng)

    def seen() -> tuple:  # the H100's decode kernels (bound + shares), the H200, the excess
        one, x = run("h100").decode_step, run("h100", 4).prefill["all-reduce beyond ring bytes"]
        return one["bound (spec roofs)"] + one["measured GEMM and HBM shares"], run("h200"), x

    before, b200, peaks = seen(), get_chip("b200"), get_chip("b200").peak_flops_table
    x10 = {f: dataclasses.replace(getattr(H100, f), value=10 * getattr(H100, f).value)
           for f in ("mem_bw_figure", "link_bw_figure")}  # fmt: skip
    x2 = {**peaks, "bf16": dataclasses.replace(peaks["bf16"], value=4.5e15)}
    monkeypatch.setitem(hw_specs.CHIPS, "h100", dataclasses.replace(H100, **x10))
    monkeypatch.setitem(hw_specs.CHIPS, "b200", dataclasses.replace(b200, peak_flops_table=x2))
    fixed = 225 * predict.engine_roofs(H100, "vllm", "bf16").gemv[0]
    assert before[2] > 0 and seen() == (pytest.approx((before[0] - fixed) / 10 + fixed, 1e-3),
                                        *before[1:])  # fmt: skip
    assert predict.engine_roofs(get_chip("b200"), "vllm", "bf16").gemm[0][1] == 1745 / 2250
