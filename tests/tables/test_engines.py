"""The engine terms: every figure carries a source; calibration is kept apart from validation."""

from __future__ import annotations

from common.formulas.transformer import decode_ledger
from common.tables import engines
from common.tables import measurements as pub
from common.tables.models import LLAMA_2_7B

CASES_13B = {"prefill, 1 GPU", "decode, 1 GPU", "prefill, 2 GPUs", "decode, 2 GPUs"}


def test_every_term_has_a_source_and_a_positive_value() -> None:
    terms = engines.all_terms()
    assert len(terms) == len({id(t) for t in terms})
    labels = {r.label for r in pub.ALL_REQUESTS} | CASES_13B
    for term in terms:
        assert term.source and term.value > 0, term.what
        assert set(term.informs) <= labels, (term.what, set(term.informs) - labels)
    informed = {label for t in terms for label in t.informs}
    # every source but two only checks: it enters as validation
    calibration = (pub.LLM_ANALYSIS_FT, pub.GPT_FAST)
    validation = [r for r in pub.ALL_REQUESTS if r.measured.source not in calibration]
    assert validation and not informed & {r.label for r in validation}
    # kipply's runs are calibration (their HBM shares were read off their own profiles), and
    # gpt-fast's eager run (the eager launch cost is its time less the compiled one's)
    assert {r.label for r in pub.REQUESTS if r.measured.source in calibration} <= informed
    assert engines.EAGER_LAUNCH.informs == ("Llama-2-7B, 1 x a100-80gb, 5 + 200",)
    assert any(r.chip in ("h100", "h200") for r in validation)
    # the serving engines' pages enter as validation, every one of them
    assert not informed & {r.label for r in pub.SERVING_REQUESTS}
    for e in engines.ENGINES.values():  # its per-step and per-launch costs, its all-reduce curve
        own = [t for t in (e.step, e.launch) if t is not None]
        own += [t for ts in (e.allreduce or {}).values() for t in ts]
        assert all(any(t is u for u in terms) for t in own), e.what
        assert e.kv_reads in (engines.KV_ONCE, engines.KV_PER_HEAD, engines.KV_COPIES)
    assert engines.L2_A100 in terms and engines.L2_GH100 in terms  # A100 80GB, H200 L2


def test_a_llama_2_7b_decode_step_has_483_kernels_by_hand() -> None:
    # 32 layers of 15 operators (two norms, Q, K, V, scores, softmax, P V, output, two residual
    # adds, gate, up, SiLU x up, down), and embedding, final norm and LM head once
    kernels = sum(c for _, c in decode_ledger(LLAMA_2_7B, 1, 100).counted())
    assert kernels == 32 * 15 + 3 == engines.LLAMA_2_7B_STEP_KERNELS
