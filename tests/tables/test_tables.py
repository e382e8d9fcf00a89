"""The small tables (assumptions, per-element operation counts, units, sources) against the
documents cited next to each value or the definitions written out here."""

from __future__ import annotations

import reference

from common.tables import assumptions, op_counts, sources, units
from common.tables.assumptions import ARTICLE_7B
from common.tables.models import ModelSpec


def test_units_counts_assumptions_and_sources_as_stated() -> None:
    assert (units.KB, units.MB, units.GB, units.TB, units.PB) == (1e3, 1e6, 1e9, 1e12, 1e15)
    assert units.KIB == 1024 and units.MIB == 1024 * 1024
    assert units.GIB == 1024**3 and units.TIB == 1024**4 and units.PIB == 1024**5
    assert op_counts.SOFTMAX_FLOPS_PER_ELEM == 5  # the article, section 3.3: "about 5 n d"
    assert op_counts.LAYERNORM_FLOPS_PER_ELEM == 6  # the article, section 3.3: "about 6"
    # RMSNorm: square, accumulate, scale by 1/rms, gain = 4; SiLU: exp, add, divide,
    # multiply = 4; the gate product silu(g) * u is one multiply.
    assert (op_counts.RMSNORM_FLOPS_PER_ELEM, op_counts.SILU_FLOPS_PER_ELEM) == (4, 4)
    assert op_counts.GATE_FLOPS_PER_ELEM == 1
    assert op_counts.FLOPS_PER_MULTIPLY_ADD == 2  # the article, section 3.1
    assert assumptions.ACT_VECTORS_PER_TOKEN == 16  # section 3.5: 128 KiB/token at 4096, fp16
    assert reference.ACT_PER_TOKEN_KIB * 1024 == 16 * 4096 * 2
    assert assumptions.ARTICLE_OVERHEAD_RATE == 0.30  # section 4.3
    assert assumptions.LOW_OVERHEAD_RATE == 0.04  # section 4.3's what-if
    assert assumptions.LLM_OVERHEAD_RATE == 0.10  # the course's own choice, stated as such
    assert assumptions.ARTICLE_BUDGET_GIB == reference.BUDGET_GIB
    assert assumptions.SM_REGISTER_FILE_BYTES == reference.SM_REGISTER_FILE_BYTES
    assert assumptions.EXAMPLE_BANDWIDTH.value == reference.EXAMPLE_BANDWIDTH
    assert assumptions.EXAMPLE_MATMUL.value == reference.EXAMPLE_MATMUL
    assert assumptions.ARTICLE_BATCHES == (1, 4, 8, 16, 24, 32)  # section 4.3's rows (and 4)
    listed = assumptions.ASSUMPTIONS
    records = [v for v in vars(assumptions).values() if isinstance(v, assumptions.Assumption)]
    assert set(listed) == set(records) and len(listed) == len(records) == 9  # each: test_sources
    assert assumptions.ARTICLE_OVERHEAD.source.startswith(sources.ARTICLE_LEDGER_RUN)
    assert "section 3.5" in assumptions.ACTIVATIONS_PER_TOKEN.source
    assert assumptions.SM_REGISTER_FILE.source == sources.H100_WHITEPAPER
    assert assumptions.EXAMPLE_MATMUL.applies == assumptions.EXAMPLE_BANDWIDTH.applies
    # name, parameters, weight bytes, layers, d_kv, KV bytes, sequence, activation bytes
    assert ModelSpec("7B, fp16", 7e9, 2, 32, 4096, 2, 4096, 128 * 1024) == ARTICLE_7B
    assert sources.ARTICLE_TITLE == "性能建模与 Profiling：算力、带宽与显存账本"
    assert sources.ARTICLE_TITLE in sources.ARTICLE
    for text, section in ((sources.ARTICLE_MEMORY, "3.5"), (sources.ARTICLE_LEDGER_RUN, "4.3")):
        assert text.startswith(sources.ARTICLE) and f"section {section}" in text
    assert sources.SCALING_BOOK_ROOFLINE.endswith("part 1, 'All About Rooflines'")
