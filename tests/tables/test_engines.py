"""The engine terms: every figure carries a source; calibration is kept apart from validation."""

from __future__ import annotations

from common.tables import engines
from common.tables import measurements as pub

CASES_13B = {"prefill, 1 GPU", "decode, 1 GPU", "prefill, 2 GPUs", "decode, 2 GPUs"}


def test_every_term_has_a_source_and_a_positive_value() -> None:
    terms = engines.all_terms()
    assert len(terms) == len({id(t) for t in terms})
    labels = {r.label for r in pub.ALL_REQUESTS} | CASES_13B
    for term in terms:
        assert term.source and term.value > 0, term.what
        assert set(term.informs) <= labels, (term.what, set(term.informs) - labels)
    informed = {label for t in terms for label in t.informs}
    # every source but the blog's own benchmark only checks: it enters as validation
    validation = [r for r in pub.ALL_REQUESTS if r.measured.source != pub.LLM_ANALYSIS_FT]
    assert validation and not informed & {r.label for r in validation}
    # the blog's runs are calibration: its HBM shares were read off their own profiles
    assert {r.label for r in pub.REQUESTS if r.measured.source == pub.LLM_ANALYSIS_FT} <= informed
    assert any(r.chip in ("h100", "h200") for r in validation)
    # the serving engines' pages enter as validation, every one of them
    assert not informed & {r.label for r in pub.SERVING_REQUESTS}
    for e in engines.ENGINES.values():  # its per-step and per-launch costs, its all-reduce curve
        own = [t for t in (e.step, e.launch) if t is not None]
        own += [t for ts in (e.allreduce or {}).values() for t in ts]
        assert all(any(t is u for u in terms) for t in own), e.what
        assert e.kv_reads in (engines.KV_ONCE, engines.KV_PER_HEAD, engines.KV_COPIES)
    assert engines.L2_A100 in terms and engines.L2_GH100 in terms  # A100 80GB, H200 L2
