"""The achievable roofs of the hardware table, each typed here from its published source.

- MAMF (Stas Bekman, Machine Learning Engineering, compute/accelerator/README.md, table
  "Maximum Achievable Matmul FLOPS comparison table", commit 744d01e, read 2026-12-01):
  BF16 A100 SXM 271.2 (theory 312, 86.9%), H100 SXM 794.5 (989, 80.3%, "H200 is the
  same"), B200 SXM 1745.0, B300 SXM 1769.0; FP8 H100 SXM 1402.6 (70.9%), H200 SXM
  1453.4, B200 SXM 3432.5, B300 SXM 3353.3 TFLOPS.
- Same book, network/README.md, "Unidirectional vs Bidirectional (Duplex)": 8x H200
  nvbandwidth device_to_device_memcpy_write_ce 396.40 GB/s; A100 node nccl-tests
  all_reduce 235 GBps.
- NVIDIA/nccl issue #1264: H100 SXM NVLink4 unidirectional about 380 GB/s.
- kipply via llm-analysis: hbm_memory_efficiency 0.9 on A100 40GB (of 1555 GB/s).
"""

from __future__ import annotations

import dataclasses

import pytest

from common import hw_specs
from common.formulas import predict
from common.hw_specs import A100, B200, B300, H100, H200, TPU_V5E, TPU_V6E

T = 1e12


@pytest.mark.parametrize(
    ("chip", "precision", "tflops"),
    [(A100, "bf16", 271.2), (H100, "bf16", 794.5), (H200, "bf16", 794.5),
     (B200, "bf16", 1745.0), (B300, "bf16", 1769.0), (H100, "fp8", 1402.6),
     (H200, "fp8", 1453.4), (B200, "fp8", 3432.5), (B300, "fp8", 3353.3)],
)  # fmt: skip
def test_mamf_table(chip, precision: str, tflops: float) -> None:
    assert chip.achievable_flops(precision) == pytest.approx(tflops * T)
    assert "Maximum Achievable Matmul FLOPS" in chip.achievable_flops_table[precision].source


def test_mamf_efficiencies_match_the_books_column() -> None:
    # The book prints 86.9% for A100 (271.2 / 312) and 80.3% for H100 (794.5 / 989).
    assert round(100 * A100.achievable_flops("bf16") / A100.peak_flops("bf16"), 1) == 86.9
    assert round(100 * H100.achievable_flops("bf16") / H100.peak_flops("bf16"), 1) == 80.3
    assert round(100 * H100.achievable_flops("fp8") / H100.peak_flops("fp8"), 1) == 70.9
    assert H200.achievable_link_bw == pytest.approx(396.40e9)
    assert "nvbandwidth" in H200.achievable_link_bw_figure.source
    assert A100.achievable_link_bw == pytest.approx(235e9)
    assert H100.achievable_link_bw == pytest.approx(380e9)
    assert A100.achievable_mem_bw == pytest.approx(0.9 * 1555e9)
    assert H200.achievable_mem_bw == 3759e9  # gpu-benches' gpu-roofline/h200.txt, N = 0
    for chip in (H100, B200, B300, TPU_V5E, TPU_V6E):
        assert chip.achievable_mem_bw is None
    for chip in (TPU_V5E, TPU_V6E):
        assert chip.achievable_link_bw is None
        assert all(chip.achievable_flops(p) is None for p in chip.precisions)
    assert A100.achievable_flops("int8") is None
    with pytest.raises(ValueError, match="no 'fp8' peak"):
        A100.achievable_flops("fp8")
    for chip in hw_specs.CHIPS.values():
        assert set(chip.achievable_flops_table) <= set(chip.peak_flops_table)
        got = [*map(chip.achievable_flops, chip.precisions), chip.achievable_mem_bw]
        assert all(v is None or v > 0 for v in [*got, chip.achievable_link_bw])  # each plausible
    # a datasheet figure edited below its measured one (x0.1) moves it at its measured share,
    # of the datasheet as shipped: 271.2 of 312 TFLOP/s, 1,399.5 of 1,555 GB/s, 235 of 300 GB/s
    low = dataclasses.replace(
        A100, peak_flops_table={**A100.peak_flops_table, "bf16": hw_specs.flops(31.2e12, "test")},
        mem_bw_figure=hw_specs.bandwidth(155.5e9, "test"),
        link_bw_figure=hw_specs.bandwidth(30e9, "test"),
    )  # fmt: skip
    got = (low.achievable_flops("bf16"), low.achievable_mem_bw, low.achievable_link_bw)
    assert got == (pytest.approx(27.12e12), pytest.approx(139.95e9), pytest.approx(23.5e9))
    assert predict.achievable_roofs(low, "bf16").measured == ("compute", "memory", "link")
    # an achievable figure edited above its datasheet figure stands as given, capped at it
    high = dataclasses.replace(A100, achievable_mem_bw_figure=hw_specs.bandwidth(2e12, "test"))
    assert high.achievable_mem_bw == 1555e9
    broken = dataclasses.replace(A100, achievable_mem_bw_figure=hw_specs.bandwidth(-1.0, "test"))
    with pytest.raises(ValueError, match="achievable memory bandwidth"):
        broken.achievable_mem_bw  # noqa: B018
    rows = list(A100.achievable_figures())
    labels = ["peak bf16", "peak int8", "memory bandwidth", "link (NVLink 3)"]
    assert [label for label, _, _ in rows] == labels
    assert rows[0][1].value == 312e12 and rows[0][2].value == 271.2e12
    assert rows[1][2] is None
