"""The ledger helpers reproduce the article's numbers (sections 3.3, 3.4, 4.3: tests/reference)."""

from __future__ import annotations

from types import SimpleNamespace as _Row

import pytest
import reference

from common import hw_specs
from common.formulas import ledger
from common.formulas.ledger import (
    attention_counts,
    elementwise_counts,
    kv_bytes_per_token,
    largest_batch_that_fits,
    layernorm_counts,
    memory_ledger,
    model_ledger,
    softmax_counts,
    sweep_anomalies,
)
from common.formulas.roofline import gemm_counts, lower_bound_time, matmul_counts, speedup_2x
from common.formulas.thresholds import crossover
from common.tables import assumptions
from common.tables.assumptions import ARTICLE_7B

GIB, KIB = 2**30, 2**10
A100_PEAK = hw_specs.A100.peak_flops("bf16")
A100_BW = hw_specs.A100.mem_bw
A100_RIDGE = A100_PEAK / A100_BW
BUDGET = assumptions.ARTICLE_BUDGET_GIB * GIB


# (counts, I as printed, its digits, I / I* on A100 as printed, the 2x speedups) (ART 3.3, 3.4)
OPERATORS = [
    (elementwise_counts(16_000_000, 2, reads=2), "0.17", 2, "0.001", (1.00, 2.00)),
    (layernorm_counts(4096, 3072, 2), "1.50", 2, "0.007", (1.00, 2.00)),
    (softmax_counts(4096, 4096, 2, fused=True), "1.25", 2, None, None),
    (softmax_counts(4096, 4096, 2, fused=False), "0.50", 2, "0.002", (1.00, 2.00)),
    (gemm_counts(512, 4096, 4096, 2), "409.6", 1, "2.041", (2.00, 1.00)),
    (gemm_counts(4096, 4096, 4096, 2), reference.GEMM_4096_I, 1, None, None),
    (attention_counts(4096, 128, 2, materialized=True), "62.7", 1, "0.312", (1.00, 2.00)),
    (attention_counts(4096, 128, 2, materialized=False), "2068.0", 1, "10.307", (2.00, 1.00)),
]


@pytest.mark.parametrize(("counts", "shown", "digits", "ratio", "speedups"), OPERATORS)
def test_the_articles_operators_and_their_2x_speedups(counts, shown, digits, ratio, speedups):
    assert f"{counts[0] / counts[1]:.{digits}f}" == shown
    if ratio is not None:
        assert f"{counts[0] / counts[1] / A100_RIDGE:.3f}" == ratio  # I / I* on A100 bf16
    if speedups is not None:
        compute, bandwidth = speedup_2x(*counts, A100_PEAK, A100_BW)
        assert (round(compute, 2), round(bandwidth, 2)) == speedups


def test_operator_counts_as_the_article_states_them() -> None:
    assert elementwise_counts(16_000_000, 2, reads=2) == (16e6, 96e6)
    fused = softmax_counts(4096, 4096, 2, fused=True)
    naive = softmax_counts(4096, 4096, 2, fused=False)
    assert fused[0] == naive[0] == 5 * 4096 * 4096  # 5 ops per element (the text's count)
    flops, naive_bytes = attention_counts(4096, 128, 2, materialized=True)
    flops_ideal, ideal_bytes = attention_counts(4096, 128, 2, materialized=False)
    assert round(flops / 1e9, 2) == 8.67 and round(naive_bytes / 1e6, 2) == 138.41
    assert round(ideal_bytes / 1e6, 2) == 4.19
    # naive -> ideal minimum: same FLOPs, 33x fewer bytes, 0.089 ms -> 0.028 ms (x3.2)
    assert f"{flops_ideal / flops:.3f}" == "1.000" and round(naive_bytes / ideal_bytes) == 33
    t_naive = lower_bound_time(flops, naive_bytes, A100_PEAK, A100_BW)
    t_ideal = lower_bound_time(flops_ideal, ideal_bytes, A100_PEAK, A100_BW)
    assert f"{t_naive * 1e3:.3f}" == "0.089" and f"{t_ideal * 1e3:.3f}" == "0.028"
    assert round(t_naive / t_ideal, 1) == 3.2
    assert elementwise_counts(10) == (10.0, 2 * 3 * 10)  # bf16, read 2, write 1
    assert elementwise_counts(10, 4, reads=1) == (10.0, 4 * 2 * 10)
    assert layernorm_counts(2, 3) == (6 * 6, 2 * 2 * 6)  # read x, write y
    assert softmax_counts(2, 3) == (5 * 6, 2 * 2 * 6)  # fused: 1 read, 1 write
    assert softmax_counts(2, 3, fused=False) == (5 * 6, 2 * 5 * 6)  # 3 reads, 2 writes
    # N = 4, d = 2: F = 4 N^2 d + 5 N^2 = 128 + 80; D = 2 (4 N^2 + 4 N d) = 2 (64 + 32)
    assert attention_counts(4, 2) == (208.0, 192.0)
    assert attention_counts(4, 2, materialized=False) == (208.0, 2 * 4 * 4 * 2)
    assert ledger.kv_cache_bytes(3, 2, 5) == 2 * 3 * 2 * 5 * 2
    assert kv_bytes_per_token(2, 5) == 2 * 2 * 5 * 2 and kv_bytes_per_token(2, 5, 1) == 2 * 2 * 5
    intensities = gemm_intensities()
    assert crossover(M_SWEEP, intensities, A100_RIDGE) == (128, 256)
    by_m = dict(zip(M_SWEEP, intensities, strict=True))
    assert round(by_m[128], 2) == 120.47 and round(by_m[256], 2) == 227.56
    ridge = 1979e12 / A100_BW
    assert f"{ridge:.1f}" == reference.RIDGE_A100_EDITED
    assert crossover(M_SWEEP, gemm_intensities(), ridge) == reference.GEMM_CROSSOVER_EDITED


M_SWEEP = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096)


def gemm_intensities() -> list[float]:
    return [f / d for f, d in (gemm_counts(m, 4096, 4096, 2) for m in M_SWEEP)]


def test_kv_price_per_token() -> None:
    assert kv_bytes_per_token(32, 4096, 2) == reference.KV_PER_TOKEN_KIB * KIB
    direct = memory_ledger(7e9, 2, 32, 4096, 8, 4096, 128 * KIB, 0.30)
    assert model_ledger(ARTICLE_7B, 8, 0.30) == direct
    low = model_ledger(ARTICLE_7B, 24, 0.04)
    assert f"{low.total / GIB:.2f}" == "75.96" and low.fits(BUDGET)
    m = model_ledger(ARTICLE_7B, 16, 0.30)
    assert round(m.kv_cache / m.weights, 1) == 2.5
    # an fp8 cache: 2 x 16 x 4096 tokens x 32 layers x 4096 x 1 byte = 2^34 B
    assert model_ledger(ARTICLE_7B._replace(kv_bytes=1), 16, 0.30).kv_cache == 16 * GIB
    decode = model_ledger(ARTICLE_7B, 16, 0.30, "decode")
    assert decode.activations == 16 * 128 * KIB
    assert m.activations == 16 * 4096 * 128 * KIB  # prefill, the default phase
    assert decode.kv_cache == m.kv_cache
    led = memory_ledger(10, 2, 2, 3, 2, 3, 5, 0.5)
    assert led == ledger.MemoryLedger(20.0, 144.0, 30.0, 0.5 * 194) and led.total == 291.0
    assert led.fits(291.0) and not led.fits(290.9)
    decode = memory_ledger(10, 2, 2, 3, 2, 3, 5, 0.0, kv_bytes=1, active_tokens=2)
    assert decode == ledger.MemoryLedger(20.0, 72.0, 10.0, 0.0)
    assert largest_batch_that_fits(GIB, lambda b: model_ledger(ARTICLE_7B, b, 0.30)) == 0
    assert largest_batch_that_fits(1e30, lambda b: _Row(total=b), limit=100) == 100
    assert largest_batch_that_fits(1e30, lambda b: _Row(total=b), limit=96) == 96
    assert largest_batch_that_fits(1e30, lambda b: _Row(total=b)) == 2**20
    assert largest_batch_that_fits(10, lambda b: _Row(total=10 * b)) == 1  # exactly on the budget


@pytest.mark.parametrize("batch", list(reference.LEDGER_ROWS))
def test_ledger_rows_at_30_percent(batch: int) -> None:
    row = model_ledger(ARTICLE_7B, batch, 0.30)
    rest = (row.kv_cache, row.activations, row.overhead, row.total)
    assert (f"{row.weights / GIB:.1f}", *(f"{x / GIB:.2f}" for x in rest)) == (
        reference.LEDGER_ROWS[batch]
    )
    assert row.total == pytest.approx(sum(row))
    assert row.fits(BUDGET) == reference.LEDGER_FITS_78[batch]
    assert model_ledger(ARTICLE_7B, 4, 0.30).fits(BUDGET)  # the batch between the rows


@pytest.mark.parametrize(("rate", "phase", "expected"), [
    (0.30, "prefill", 18), (0.04, "prefill", 24), (0.30, "decode", 23), (0.04, "decode", 30),
])  # fmt: skip
def test_largest_batch_that_fits(rate: float, phase: str, expected: int) -> None:
    def at(b: int) -> ledger.MemoryLedger:
        return model_ledger(ARTICLE_7B, b, rate, phase)

    best = largest_batch_that_fits(BUDGET, at)
    assert best == expected and at(best).fits(BUDGET) and not at(best + 1).fits(BUDGET)


def test_a_roofline_sweep_has_no_anomalies() -> None:
    batches = [1, 2, 4, 8, 16, 32, 64, 128, 256]
    times = [lower_bound_time(*matmul_counts(b, 4096, 4096, 4, 4, 4), 1e11, 2e10) for b in batches]
    assert sweep_anomalies(batches, times) == []
    batches = [1, 2, 4, 8]
    times = [1.0, 3.0, 3.2, 2.0]  # B=2 loses throughput; B=4 is slower than B=8
    found = sweep_anomalies(batches, times)
    assert ledger.Anomaly(2, "throughput_drop", 1) in found
    assert ledger.Anomaly(4, "slower_than_larger", 8) in found and all(a.batch != 1 for a in found)
    assert sweep_anomalies([1, 2], [1.0, 0.95]) == []  # 5% faster: within the 10% noise
    assert sweep_anomalies([1, 2], [1.0, 0.8]) == [ledger.Anomaly(1, "slower_than_larger", 2)]
    assert sweep_anomalies([2, 8], [1.0, 4.3]) == []
    assert sweep_anomalies([2, 8], [1.0, 4.5]) == [ledger.Anomaly(8, "throughput_drop", 2)]
    assert sweep_anomalies([2, 8], [2.0, 8.6]) == []  # the limit scales with T(2): 8.8
    # Exactly on a limit is no anomaly: 1 x 2 x 1.5 = 3 and 1 x 1.5 = 1.5.
    assert sweep_anomalies([1, 2], [1.0, 3.0], tolerance=0.5) == []
    assert sweep_anomalies([1, 2], [1.5, 1.0], tolerance=0.5) == []
    assert ledger.ANOMALY_TOLERANCE == 0.10


@pytest.mark.parametrize("budget", [7, 9.9, 10, 11, 17, 31, 66, 67, 1000, 12345])
def test_largest_batch_that_fits_by_counting(budget: float) -> None:
    expected = max([0, *[b for b in range(1, 5000) if 3 + 7 * b <= budget]])
    assert largest_batch_that_fits(budget, lambda b: _Row(total=3 + 7 * b)) == expected
