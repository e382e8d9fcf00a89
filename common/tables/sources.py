"""The documents the course's numbers come from, named once so every record can cite them."""

from __future__ import annotations

ARTICLE_TITLE = "性能建模与 Profiling：算力、带宽与显存账本"
ARTICLE_TITLE_EN = "Performance modeling and profiling: the compute, bandwidth and memory ledgers"
ARTICLE = f"the article '{ARTICLE_TITLE}' ('{ARTICLE_TITLE_EN}')"
ARTICLE_MEMORY = f"{ARTICLE}, section 3.5 (the capacity ledger)"
ARTICLE_LEDGER_RUN = f"{ARTICLE}, section 4.3 (memory ledger and batch sweep)"
ARTICLE_PROBE = f"{ARTICLE}, section 01 (the laptop measurements of machine_probe.py)"
SCALING_BOOK = "How to Scale Your Model (Austin et al., 2025)"
SCALING_BOOK_ROOFLINE = f"{SCALING_BOOK}, part 1, 'All About Rooflines'"
SCALING_BOOK_TPUS = f"{SCALING_BOOK}, part 2, 'How to Think About TPUs'"
H100_WHITEPAPER = (
    "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), table 'Compute capability "
    "comparison': 64K 32-bit registers per SM; checked 2026-12-01")  # fmt: skip
