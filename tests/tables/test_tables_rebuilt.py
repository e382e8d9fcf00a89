"""The tables rebuilt in the test (their helpers `_ft`, `_vidur`, ... run only at import, so a
slip or a mutant of one goes unseen in the imported table), a few records of each helper
against the published figures and hand arithmetic; the records' own checks, with bad values."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import sys

import pytest

from common.tables import engines, measurements
from common.tables.assumptions import Assumption
from common.tables.measurements import Measured, ModelRun, Term

MS, US = 1e-3, 1e-6


def rebuilt(module: str) -> dict:
    """The module's namespace from a fresh run of its file (the imported one stays in place)."""
    spec = importlib.util.find_spec(module)
    fresh = importlib.util.module_from_spec(spec)
    saved = importlib.import_module(module)
    sys.modules[module] = fresh  # dataclasses look their module up while it runs
    try:
        spec.loader.exec_module(fresh)
    finally:
        sys.modules[module] = saved
    return vars(fresh)


def same(record, expected: dict) -> None:
    """Each named field equal (times and values to 1e-12 relative), nested records too."""
    for name, want in expected.items():
        got = getattr(record, name)
        if isinstance(want, dict):
            same(got, want)
        elif isinstance(want, float):
            assert got == pytest.approx(want, rel=1e-12), name
        else:
            assert got == want, name


def test_the_tables_rebuilt_hold_the_published_figures() -> None:
    t = rebuilt("common.tables.measurements")
    ft = "13B {}, batch 1, {} x A100 40GB"
    kipply = [("prefill", 1, 63.17), ("decode", 1, 22.0), ("prefill", 2, 45.45)]
    kipply.append(("decode", 2, 13.5))
    for run, (phase, gpus, ms) in zip(t["FT_13B"], kipply, strict=True):
        what = ft.format(phase, gpus) + (" (tensor parallel)" if gpus == 2 else "")
        same(run, {"phase": phase, "gpus": gpus, "tokens": 512, "measured": {"what": what}})
        same(run.measured, {"seconds": ms * MS, "source": measurements.LLM_ANALYSIS_FT})
        assert "kipply" in run.measured.source and "09819d4" in run.measured.source
    # test-13b.json: 40 layers, 40 heads of 128, hidden 5120, ffn 20480, vocab 50272, 2048
    gpt = t["GPT_13B"]
    same(gpt, {"n_layers": 40, "d_model": 5120, "n_heads": 40, "n_kv_heads": 40, "d_head": 128})
    same(gpt, {"d_ff": 20480, "vocab_size": 50272, "max_context": 2048, "key": "gpt-13b"})
    assert (gpt.gated_mlp, gpt.tied_embeddings) == (False, True)
    # FasterTransformer's GPT guide: the 20B model has 44 layers of 48 heads of 128, vocab 51200
    same(t["GPT_20B"], {"n_layers": 44, "d_model": 6144, "d_ff": 24576, "vocab_size": 51200})
    # vidur's rows and the requests' figures, all of them: test_measurements (rebuilt too)
    up = t["VIDUR_A100_MATMULS"][6]  # vidur mlp.csv: mlp_up_proj at n = 1024
    what = "Llama-2-7B gate+up projection, 1,024 tokens, 1 x A100"
    same(up.measured, {"what": what, "source": t["VIDUR_MLP_A100"]})
    first = t["REQUESTS"][0]  # kipply: 512 + 10 tokens on one A100 40GB
    assert first.measured.source == measurements.LLM_ANALYSIS_FT
    assert (first.model.name, first.engine) == (gpt.name, "FasterTransformer, kipply")
    assert gpt.name == "13B (kipply's FasterTransformer benchmark)"
    assert gpt.config_source == measurements.LLM_ANALYSIS_13B_CONFIG
    assert first.measured.what.endswith(", batch 1, 512 + 10 tokens, 1 x a100")
    assert first.precision == "bf16"
    # TensorRT-LLM v0.6.1: 2,657 tokens/s per GPU on 2 H100s, batch 1024, 128 + 128 tokens
    big = next(r for r in t["REQUESTS"] if r.batch == 1024)
    same(big, {"chip": "h100", "gpus": 2, "prompt": 128, "new_tokens": 128, "precision": "fp8"})
    same(big.measured, {"seconds": 1024 * 128 / (2657 * 2), "source": t["TRT_LLM_V061_H100"]})
    assert (big.model.name, big.engine) == ("Llama-2-70B", "TensorRT-LLM, its docs")
    assert big.measured.what == "Llama-2-70B, batch 1024, 128 + 128 tokens, 2 x h100"
    ep = t["DEEPEP_LOW_LATENCY"][1]  # DeepEP's table: EP 16, dispatch 118 us, combine 195 us
    assert ep.ep == 16 and ep.dispatch.source == ep.combine.source == measurements.DEEPEP_LL
    conditions = "EP 16, 128 tokens, hidden 7168, top-8, H800"
    same(ep.dispatch, {"what": f"DeepEP low-latency dispatch (FP8), {conditions}"})
    same(ep.combine, {"what": f"DeepEP low-latency combine (BF16), {conditions}"})
    same(ep.dispatch, {"seconds": 118 * US})
    same(ep.combine, {"seconds": 195 * US})
    t = rebuilt("common.tables.engines")
    a100, h100 = t["A100_TERMS"], t["H100_TERMS"]
    assert sorted(a100.gemm) == sorted(h100.gemm) == [1, 2, 4, 8]
    assert [len(g) for g in a100.gemm.values()] == [8] * 4
    # vidur's a100 mlp.csv, tp 2: 0.060 ms at 64 rows of [64, 4096] x [4096, 22016 / 2]
    term = a100.gemm[2][1]
    assert term.what == "gate+up GEMM [64, 4096] x [4096, 11,008], A100"
    assert term.value == pytest.approx(0.060 * MS) and "/compute/a100/meta-llama/" in term.source
    assert h100.gemm[8][7].what == "gate+up GEMM [4,096, 4096] x [4096, 2,752], H100"
    assert h100.gemm[8][7].value == pytest.approx(0.132 * MS)
    assert [k.what for k in h100.small_kernels][2] == "SiLU x up, 1 token, H100"
    assert all("/compute/h100/meta-llama/" in k.source for k in h100.small_kernels)
    assert [k.value for k in h100.small_kernels] == pytest.approx([4e-6, 1e-6, 6e-6, 4e-6])
    assert [k.value for k in a100.small_kernels] == pytest.approx([5e-6, 2e-6, 7e-6, 5e-6])
    assert a100.allreduce is measurements.A100_DGX_ALLREDUCE
    assert (a100.measured_on, h100.measured_on, h100.note) == ("a100-80gb", "h100", "")
    assert "40GB part has the same SMs" in a100.note
    assert h100.allreduce_source == t["VIDUR_ALLREDUCE_H100"]
    assert h100.allreduce[8][0] == pytest.approx((2**14, 33 * US))
    hw = rebuilt("common.hw_specs")
    a100 = hw["A100"]  # the A100 40GB SXM: 1,555 GB/s HBM2, 40 GB
    v5e = hw["CHIPS"]["tpu-v5e"].mem_bw_figure  # 8.2e11 B/s (TPU v5e docs), a plain figure
    assert (v5e.value, v5e.unit, v5e.note, v5e.estimate) == (8.2e11, "B/s", "", False)
    assert (a100.mem_bw_figure.value, a100.mem_bw_figure.unit) == (1555e9, "B/s")
    assert (a100.mem_capacity_figure.value, a100.mem_capacity_figure.unit) == (40e9, "B")
    assert (a100.mem_capacity_figure.note, a100.mem_capacity_figure.estimate) == ("", False)
    assert "A100 40GB SXM" in a100.mem_bw_figure.source
    labels = [label for label, _, _ in a100.achievable_figures()]
    assert labels[-2:] == ["memory bandwidth", "link (NVLink 3)"]
    unnamed = dataclasses.replace(a100, link_name="")
    assert [label for label, _, _ in unnamed.achievable_figures()][-1] == "link"
    listed = measurements.sources()
    assert len(listed) == len(set(listed)) and listed[0] == measurements.LLM_ANALYSIS_FT
    for source in (measurements.VIDUR_MLP_A100, measurements.VIDUR_ALLREDUCE_DGX):
        assert source in listed
    assert listed[-5:] == [
        measurements.GPT_20B.config_source, measurements.LLAMA_2_70B.config_source,
        measurements.LLAMA_2_13B.config_source,
        measurements.TRTLLM_DLI,  # lecture 11's bulk check and its one model not listed above
        measurements.MISTRAL_7B.config_source,
    ]  # fmt: skip
    # every serving engine's page is listed too, after the course's first sources
    for source in (measurements.VLLM_CI_H100, measurements.LMDEPLOY_A100, measurements.NIM_70B):
        assert listed.index(source) > listed.index(measurements.TRT_LLM_V061_H100)


FRACTION = "fraction of the weights"


@pytest.mark.parametrize(("value", "unit", "says"), [
    (30, FRACTION, "r must be a fraction in (0, 1] (0.3 for 30%), got 30"),
    (1.0001, FRACTION, "r must be a fraction in (0, 1] (0.3 for 30%), got 1"),
    (78e9, "GiB per GPU", "r must be in (0, 102400] GiB, got 7.8e+10"),
    (5, "vectorz", "r: unit 'vectorz' must start with one of ['fraction', 'GiB', 'vectors',"),
    (5, "fractions", "r: unit 'fractions' must start with one of"),
    (-0.3, FRACTION, "r must be a positive finite number, got -0.3"),
    (2000, "vectors", "r must be in (0, 1024] vectors, got 2000"),
    (1000, "bytes", "r must be in (1000, 1e+15] bytes, got 1000"),  # 1 KB is the floor
    (0.3, "fraction\tof x", "r: unit 'fraction\\tof x' must start with one of"),
    (1.0, FRACTION, None),  # at the top of its range: kept
    (102400, "GiB", None), (1024, "vectors", None), (4.0, "Zipf", None),
])  # fmt: skip
def test_an_assumption_out_of_its_units_range_is_one_line_naming_it(value, unit, says) -> None:
    if says is None:  # at the top of its range: kept
        assert Assumption("r", value, unit, "src", "when").value == value
        return
    with pytest.raises(ValueError) as caught:
        Assumption("r", value, unit, "src", "when")
    assert str(caught.value).startswith(says)


@pytest.mark.parametrize(("make", "says"), [
    (lambda m: ModelRun("decode", 0, 512, m), "GPUs must be a positive integer, got 0"),
    (lambda m: ModelRun("decode", 1, 0, m), "tokens must be a positive integer, got 0"),
    (lambda m: Term("a share", -0.5, "src"), "a share must be a positive finite number"),
])  # fmt: skip
def test_a_measurement_record_with_an_impossible_value_is_refused(make, says) -> None:
    with pytest.raises(ValueError, match=f"^{says}"):
        make(Measured("x", 1.0, "src"))


@pytest.mark.parametrize(("table", "key", "short"), [("VIDUR_GEMM_MS", ("a100", 2), (0.1,) * 7),
                         ("VIDUR_SMALL_S", "a100", (1e-6,) * 3)])  # fmt: skip
def test_a_profile_row_of_the_wrong_length_is_refused(monkeypatch, table, key, short) -> None:
    """8 GEMM rows and 4 small kernels a generation: a row typed short is not cut silently."""
    monkeypatch.setitem(getattr(engines, table), key, short)
    with pytest.raises(ValueError, match="shorter"):
        engines._vidur("a100", None, "src", "a100")
