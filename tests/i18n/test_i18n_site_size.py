"""Both editions of the built site together stay under issue 36's 45 MB (decimal): the
Chinese pages take the Run panel's runtime and MathJax from the English edition, and the
MathJax components no page loads are pruned (``docs/_ext/course.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

SITE = Path(__file__).resolve().parents[2] / "docs" / "_build" / "html"
LIMIT = 45e6  # bytes, both editions


@pytest.mark.site
def test_both_editions_fit_in_45_mb() -> None:
    if not (SITE / "zh" / "index.html").is_file():
        pytest.fail("the Chinese edition is not built: run make docs first")
    size = sum(p.stat().st_size for p in SITE.rglob("*") if p.is_file())
    assert size < LIMIT, f"the site holds {size / 1e6:.1f} MB, over {LIMIT / 1e6:.0f} MB"
    for shared in ("runner", "mathjax"):  # served once, from the English edition
        assert (SITE / "_static" / shared).is_dir()
        assert not (SITE / "zh" / "_static" / shared).exists()
