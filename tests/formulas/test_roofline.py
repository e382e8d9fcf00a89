"""common.formulas.roofline against the article, the lecture script and their own definitions."""

from __future__ import annotations

import math
import random

import pytest
import reference

from common.formulas import roofline as rl
from common.hw_specs import B300, H100, TPU_V5E, bytes_per_elem, get_chip
from common.plots import roofline as plots_roofline
from common.plots.roofline import save_roofline_png
from common.present.charts import ascii_roofline

D = F = 8192


def test_matmul_intensity_grows_like_b_then_saturates() -> None:
    assert f"{rl.intensity(*rl.matmul_counts(1, D, F)):.1f}" == "1.0"
    for B in (2, 4, 8, 16):
        assert rl.intensity(*rl.matmul_counts(B, D, F)) == pytest.approx(B, rel=0.01)
    assert rl.intensity(*rl.matmul_counts(4096, D, F)) == 2048
    limit = D * F / (D + F)
    assert limit == 4096
    assert rl.intensity(*rl.matmul_counts(10**9, D, F)) == pytest.approx(limit, rel=1e-5)
    assert rl.intensity(*rl.matmul_counts(10**9, D, F)) < limit
    flops, nbytes = rl.matmul_counts(3, 5, 7, 1, 0.5, 4)
    assert flops == 2 * 3 * 5 * 7 and nbytes == 3 * 5 * 1 + 5 * 7 * 0.5 + 3 * 7 * 4
    assert rl.gemm_counts(512, 4096, 4096) == rl.matmul_counts(512, 4096, 4096)
    # one element size for all three: 4 bytes x (3 x 5 + 5 x 7 + 3 x 7) = 4 x 71
    assert rl.gemm_counts(3, 5, 7, 4) == (210, 284)
    # x[b] (1 x 5) W[b] (5 x 7) for b < 3 at 4 bytes: reads 3 x 5 + 3 x 5 x 7, writes 3 x 7
    assert rl.batched_matvec_counts(3, 5, 7, 4) == (2 * 3 * 5 * 7, 4 * (15 + 105 + 21))
    assert rl.batched_matvec_counts(1, 1, 1) == (2.0, 2 * 3)


@pytest.mark.parametrize(("chip", "precision", "formats", "expected"), [
    (H100, "bf16", ("bf16", "bf16", "bf16"), reference.CRIT_H100_BF16),
    (H100, "fp8", ("fp8", "fp8", "bf16"), reference.CRIT_H100_FP8),
    (B300, "nvfp4", ("nvfp4", "nvfp4", "bf16"), reference.CRIT_B300_NVFP4),
    (TPU_V5E, "int8", ("int8", "int8", "int8"), reference.CRIT_V5E_INT8),
    (TPU_V5E, "bf16", ("bf16", "int8", "bf16"), reference.CRIT_V5E_INT8_WEIGHTS),
    (TPU_V5E, "bf16", ("bf16", "bf16", "bf16"), reference.CRIT_V5E_BF16),
])  # fmt: skip
def test_critical_batches(chip, precision: str, formats, expected: int) -> None:
    sizes = [bytes_per_elem(p) for p in formats]
    assert rl.critical_batch(D, F, chip.ridge_point(precision), *sizes) == expected


def test_the_lecture_scripts_approximations_tiles_and_network_verdict() -> None:
    # For small B, I ~ 2B / w, so B ~ I* w / 2: the book's 240 and 120 on TPU v5e.
    assert round(TPU_V5E.ridge_point("int8") * 1 / 2) == reference.BOOK_V5E_INT8
    assert round(TPU_V5E.ridge_point("bf16") * 1 / 2) == reference.BOOK_V5E_INT8_WEIGHTS
    assert abs(rl.critical_batch(D, F, B300.ridge_point("nvfp4"), 0.5625, 0.5625, 2) - 750) < 5
    assert rl.ridge_point(989e12, 3.35e12) == H100.ridge_point("bf16")
    side = 2 * H100.ridge_point("bf16")  # an s x s bf16 tile reaches s / 2 FLOP/B
    assert f"{side:.0f}" == reference.TILE_SIDE_H100
    accumulator = side**2 * 4
    assert f"{accumulator / 2**20:.1f}" == reference.TILE_ACCUMULATOR_MIB
    assert accumulator > reference.SM_REGISTER_FILE_BYTES
    peak, link = TPU_V5E.peak_flops("bf16"), TPU_V5E.link_bw
    for dim, verdict in ((4096, "comms"), (8192, "comms"), (16384, "compute")):
        for B in (1, 8, 128, 2048, 65536):
            r = rl.sharded_matmul_two_chips(B, dim, 8192, peak, link)
            assert r["bound"] == verdict and r["intensity"] == dim / 2
            assert r["flops"] == B * dim * 8192 and r["comm_bytes"] == B * 8192 * 2


@pytest.mark.parametrize(("kv_heads", "expected"),
                         list(reference.DECODE_ATTENTION_INTENSITY.items()))  # fmt: skip
def test_decode_attention_intensity_is_query_heads_per_kv_head(kv_heads, expected) -> None:
    for context in (128, 4096, 32768):
        flops, nbytes = rl.decode_attention_counts(32, kv_heads, 128, context)
        assert rl.intensity(flops, nbytes) == expected
    flops, nbytes = rl.decode_attention_counts(32, kv_heads, 128, 4096)
    assert flops == 4 * 32 * 128 * 4096 and nbytes == 2 * 4096 * kv_heads * 128 * 2


@pytest.mark.parametrize(("tile", "exact", "approx"),
                         [(t, *shown) for t, shown in reference.TILES.items()])  # fmt: skip
def test_tiled_intensity_exact_and_approximate(tile, exact: str, approx: str) -> None:
    bm, bk, bn = tile
    assert f"{rl.intensity(*rl.tiled_matmul_bytes(4096, 4096, 4096, bm, bk, bn)):.1f}" == exact
    assert f"{bm * bn / (bm + bn):.1f}" == approx


@pytest.mark.parametrize(("chip", "threshold"),
                         [(get_chip(k), d) for k, d in reference.NETWORK_D.items()])  # fmt: skip
def test_network_critical_dimension(chip, threshold: int) -> None:
    dim = rl.network_critical_dim(chip.peak_flops("bf16"), chip.link_bw)
    assert abs(dim - threshold) < 1
    assert dim == pytest.approx(2 * chip.peak_flops("bf16") / chip.link_bw)


def _random_machine(rng: random.Random) -> list[float]:
    """FLOPs, bytes, peak FLOP/s and bandwidth, each log-uniform over its decades."""
    return [10 ** rng.uniform(a, b) for a, b in ((0, 16), (0, 13), (9, 16), (8, 13))]


def test_lower_bound_is_the_larger_time() -> None:
    rng = random.Random(20)
    for _ in range(1000):
        flops, nbytes, peak, bw = _random_machine(rng)
        t = rl.time_bounds(flops, nbytes, peak, bw)
        assert t["compute"] == flops / peak and t["memory"] == nbytes / bw
        assert t["lower"] == max(flops / peak, nbytes / bw)
        assert rl.lower_bound_time(flops, nbytes, peak, bw) == t["lower"]
        assert t["bound"] == ("compute" if flops / peak >= nbytes / bw else "memory")
        assert t["bound"] == rl.bound_of(flops / nbytes, peak / bw) or math.isclose(
            flops / nbytes, peak / bw
        )
    assert rl.time_bounds(0, 0, 1, 1)["lower"] == 0
    assert rl.bound_of(2.0, 2.0) == "compute" and rl.bound_of(1.999, 2.0) == "memory"
    assert rl.time_bounds(4.0, 2.0, 2.0, 1.0)["bound"] == "compute"  # 2 s either way
    # T_math = B (D/2) F 2 / P = 1 x 2 x 3 x 2 / 12 = 1 s; T_comms = B F 2 / link = 6 / 6 = 1 s
    assert rl.sharded_matmul_two_chips(1, 4, 3, 12.0, 6.0)["bound"] == "compute"
    assert rl.sharded_matmul_two_chips(1, 2, 3, 12.0, 6.0)["bound"] == "comms"
    rng = random.Random(21)
    for _ in range(1000):
        _, _, peak, bw = _random_machine(rng)
        i = 10 ** rng.uniform(-3, 5)
        a = rl.attainable_flops(i, peak, bw)
        assert a <= peak and a == min(peak, i * bw)
        assert a == pytest.approx(rl.intensity(i, 1) * bw if i < peak / bw else peak)
    assert rl.attainable_flops(0, 1e12, 1e9) == 0
    assert rl.speedup_2x_at_ratio(0.001) == (1.0, 2.0)  # memory-bound: only bandwidth helps
    assert rl.speedup_2x_at_ratio(10.0) == (2.0, 1.0)  # compute-bound: only compute helps
    rng = random.Random(22)
    for _ in range(300):
        flops, nbytes, peak, bw = _random_machine(rng)
        s_compute, s_bw = rl.speedup_2x(flops, nbytes, peak, bw)
        assert 1 <= s_compute <= 2 and 1 <= s_bw <= 2 and s_compute * s_bw <= 2 + 1e-9
    # T = max(r / P, D / beta) with D = beta = P = 1: r = 0.75 is memory-bound (T = 1);
    # 2x bandwidth gives max(0.75, 0.5) = 0.75, a 1.33x speedup; r = 1.5: 2x compute
    # gives max(0.75, 1) = 1, a 1.5x speedup.
    assert rl.speedup_2x_at_ratio(0.75) == pytest.approx((1.0, 1 / 0.75))
    assert rl.speedup_2x_at_ratio(1.5) == pytest.approx((1.5, 1.0))
    assert rl.speedup_2x_at_ratio(1.0) == pytest.approx((1.0, 1.0))
    assert rl.speedup_2x(3e12, 1e9, 1e12, 1e9) == (2.0, 1.0)


def _intensity(B: int, d: int, f: int, x: float, w: float, out: float) -> float:
    """X[B,d] W[d,f] intensity with x, w, out bytes per element, written out independently."""
    return 2 * B * d * f / (B * d * x + d * f * w + B * f * out)


def test_critical_batch_is_the_smallest_batch_reaching_the_ridge() -> None:
    rng = random.Random(23)
    seen_none = seen_batch = 0
    for _ in range(400):
        d, f = rng.choice([64, 512, 4096, 8192, 12288]), rng.choice([128, 1024, 8192, 28672])
        x, w, out = (rng.choice([0.5625, 1, 2, 4]) for _ in range(3))
        ridge = 10 ** rng.uniform(-1, 4)
        b = rl.critical_batch(d, f, ridge, x, w, out)
        if b is None:
            seen_none += 1
            assert 2 * d * f / (d * x + f * out) <= ridge  # the limit never gets there
            assert _intensity(10**12, d, f, x, w, out) < ridge
        else:
            seen_batch += 1
            assert _intensity(b, d, f, x, w, out) >= ridge
            assert b == 1 or _intensity(b - 1, d, f, x, w, out) < ridge
    assert seen_none > 20 and seen_batch > 100
    ridge = H100.ridge_point("bf16")
    assert rl.critical_batch(D, F, ridge) == rl.critical_batch(D, F, ridge, 2, 2, 2) == 319
    b = rl.critical_batch(4096, 1024, 100.0)
    assert _intensity(b, 4096, 1024, 2, 2, 2) >= 100 > _intensity(b - 1, 4096, 1024, 2, 2, 2)
    assert rl.critical_batch(D, F, 4096) is None  # the limit DF/(D+F) only approaches 4096
    assert rl.critical_batch(D, F, 4095) is not None and rl.critical_batch(D, F, 0.5) == 1
    rng = random.Random(24)
    for _ in range(200):
        m, k, n = (rng.randint(1, 3000) for _ in range(3))
        e = rng.choice([1, 2, 4])
        floor = e * (m * k + k * n + m * n)  # read both inputs once, write the output once
        previous = math.inf
        for bm in sorted({1, 7, 32, 64, 100, 128, 256, m, 2 * m}):
            flops, nbytes = rl.tiled_matmul_bytes(m, k, n, bm, 64, 128, e)
            assert flops == 2 * m * k * n and nbytes <= previous and nbytes >= floor
            previous = nbytes
        previous = math.inf
        for bn in sorted({1, 16, 128, 200, 512, n, 3 * n}):
            nbytes = rl.tiled_matmul_bytes(m, k, n, 64, 32, bn, e)[1]
            assert floor <= nbytes <= previous
            previous = nbytes
        assert rl.tiled_matmul_bytes(m, k, n, m, 16, n, e)[1] == floor
    sizes = {rl.tiled_matmul_bytes(4096, 4096, 4096, 128, bk, 128) for bk in (8, 32, 64, 4096)}
    assert len(sizes) == 1


def test_ascii_roofline_marks_ridge_and_points(tmp_path, monkeypatch) -> None:
    peak, bw = H100.peak_flops("bf16"), H100.mem_bw
    points = [("a", 1 / 6, None), ("h", 2048.0, None), ("z", 1e6, None)]  # z is off the chart
    lines = ascii_roofline(points, peak, bw)
    plot = [line[11:] for line in lines[:16]]  # the 16 x 64 cells right of "label |"

    # Where each mark belongs, worked out here: x runs over log10 0.1 .. 1e4 in 64
    # columns; y over log10(P) + 0.25 (top) .. log10(0.1 beta) - 0.25 in 16 rows.
    def col(i: float) -> int:
        return round((math.log10(i) + 1) / 5 * 63)

    top, bottom = math.log10(989e12) + 0.25, math.log10(0.1 * 3.35e12) - 0.25

    def row(flops: float) -> int:
        return round((top - math.log10(flops)) / (top - bottom) * 15)

    ridge = 989e12 / 3.35e12
    marks = {(r, c): ch for r, line in enumerate(plot) for c, ch in enumerate(line) if ch in "+ah"}
    assert marks == {
        (row(989e12), col(ridge)): "+",
        (row(989e12), col(2048)): "h",
        (row(3.35e12 / 6), col(1 / 6)): "a",
    }
    assert "z" not in "".join(plot)
    assert plot[row(989e12)][col(1000)] == "_" and plot[row(3.35e12)][col(1)] == "/"
    assert max(len(line) for line in lines) <= 88
    assert lines[-1].strip().startswith("arithmetic intensity")
    with pytest.raises(ValueError, match="xmax"):
        ascii_roofline([], 1e12, 1e9, xmin=10, xmax=1)
    with pytest.raises(ValueError, match="peak FLOP/s must be"):
        ascii_roofline([], 0, 1e9)
    with pytest.raises(ValueError, match="H100 peak FLOP/s"):
        save_roofline_png(str(tmp_path / "r.png"), [("H100", 0, 1)], [])
    curves, points = [("H100 bf16", 989e12, 3.35e12)], [("matvec", 1.0, 3.35e12)]
    target = tmp_path / "out" / "r.png"
    monkeypatch.setattr(plots_roofline, "matplotlib_available", lambda: False)
    skipped = save_roofline_png(str(target), curves, points)
    assert not skipped and skipped.path is None and "matplotlib" in skipped.reason
    assert not target.exists()
    monkeypatch.undo()
    pytest.importorskip("matplotlib")
    result = save_roofline_png(str(target), curves, points)
    assert result and result.path == str(target) and target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
