"""The built site: both editions together stay under issue 36's 45 MB (decimal), the
Chinese pages taking the Run panel's runtime and MathJax from the English edition and the
MathJax components no page loads pruned (``docs/_ext/course.py``); and no Chinese page
keeps the theme's English words."""

from __future__ import annotations

import re

import pytest
from conftest import SITE, built, load_extension

i18n = load_extension("i18n")
LIMIT = 45e6  # bytes, both editions


@pytest.mark.site
def test_both_editions_fit_in_45_mb() -> None:
    built(SITE / "zh" / "index.html")
    size = sum(p.stat().st_size for p in SITE.rglob("*") if p.is_file())
    assert size < LIMIT, f"the site holds {size / 1e6:.1f} MB, over {LIMIT / 1e6:.0f} MB"
    for shared in ("runner", "mathjax"):  # served once, from the English edition
        assert (SITE / "_static" / shared).is_dir()
        assert not (SITE / "zh" / "_static" / shared).exists()


@pytest.mark.site
def test_chinese_pages_keep_none_of_the_themes_english_words() -> None:
    pages = sorted(built(SITE / "zh" / "index.html").parent.rglob("*.html"))
    english = [*i18n.FIXED_CHROME, "Toggle navigation of", "Back to top", "On this page"]
    words = "|".join(map(re.escape, english))
    found = re.compile(rf'>\s*({words})\s*<|"({words})')
    for page in pages:
        text = page.read_text(encoding="utf-8")
        chrome = text[: text.find("<article")] + text[text.find("</article>") :]
        kept = {m[1] or m[2] for m in found.finditer(chrome)}
        assert not kept, f"{page.relative_to(SITE)} keeps {sorted(kept)}"
