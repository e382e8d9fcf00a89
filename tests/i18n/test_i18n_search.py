"""Chinese search: a glossary term lands on the page that teaches it, first.

Reads the Chinese edition's ``searchindex.js`` (built by ``make docs``; skipped before)
and ranks the pages for a one-word query the way Sphinx's ``searchtools.js`` does
(section titles, index entries, title and body words, partial matches), then applies
the course's scorer (``docs/_static/search-snippets.js``: lecture and concept pages +3,
API pages -3). jieba must keep each glossary term whole for this to find anything.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest
from conftest import SITE, built

INDEX = SITE / "zh" / "searchindex.js"

#: Sphinx's default weights (searchtools.js), which the course's scorer keeps.
TITLE, PARTIAL_TITLE, TERM, PARTIAL_TERM = 15, 7, 5, 2

#: A term and the page that teaches it.
TEACHING_PAGES = {
    "算术强度": "concepts/intensity-and-ridge",
    "带宽受限": "concepts/intensity-and-ridge",
    "算力受限": "concepts/intensity-and-ridge",
    "显存账本": "concepts/memory-ledger",
}


def _js_round(x: float) -> int:
    return math.floor(x + 0.5)


def _course_score(docname: str, score: int) -> int:
    """The course's scorer (docs/_static/search-snippets.js) on a page result."""
    if re.match(r"^(auto_lectures/\d\d_|concepts/)", docname):
        return score + 3
    if docname.startswith("api/"):
        return score - 3
    return score


def ranking(index: dict[str, Any], query: str) -> list[tuple[str, int]]:
    """Pages for a one-word query, best first, as (docname, score)."""
    q = query.lower().strip()
    docnames, titles = index["docnames"], index["titles"]
    best: dict[str, int] = {}

    def add(file: int, score: int) -> None:
        name = docnames[file]
        best[name] = max(best.get(name, -(10**9)), _course_score(name, score))

    for title, found in index.get("alltitles", {}).items():
        if q in title.lower().strip() and len(q) >= len(title) / 2:
            for file, _anchor in found:
                add(file, _js_round(TITLE * len(q) / len(title)) + (titles[file] == title))
    for entry, found in index.get("indexentries", {}).items():
        if q in entry and len(q) >= len(entry) / 2:
            for file, _anchor, main in found:
                if main:
                    add(file, _js_round(100 * len(q) / len(entry)))
    per_file: dict[int, int] = {}
    tables = (("terms", TERM, PARTIAL_TERM), ("titleterms", TITLE, PARTIAL_TITLE))
    for table, exact, partial in tables:
        words = index[table]
        records = [(words[q], exact)] if q in words else []
        if len(q) > 2 and q not in words:
            records += [(files, partial) for word, files in words.items() if q in word]
        for files, score in records:
            for file in files if isinstance(files, list) else [files]:
                per_file[file] = max(per_file.get(file, 0), score)
    for file, score in per_file.items():
        add(file, score)
    return sorted(best.items(), key=lambda item: (-item[1], item[0]))


@pytest.fixture(scope="module")
def index() -> dict[str, Any]:
    text = built(INDEX).read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


@pytest.mark.site
def test_the_chinese_index_is_chinese(index: dict[str, Any]) -> None:
    # jieba kept the glossary's terms whole; without it the index has none of them
    assert "算术强度" in index["terms"] or "算术强度" in index["titleterms"]


@pytest.mark.site
@pytest.mark.parametrize(("term", "page"), sorted(TEACHING_PAGES.items()))
def test_a_term_lands_on_its_teaching_page_first(
    index: dict[str, Any], term: str, page: str
) -> None:
    ranked = ranking(index, term)
    assert ranked, f"{term}: no result"
    assert ranked[0][0] == page, f"{term}: {ranked[:4]}"
    if len(ranked) > 1:
        assert ranked[0][1] > ranked[1][1], f"{term}: a tie decides the order: {ranked[:4]}"


def test_ranking_follows_sphinx_weights() -> None:
    # hand-made index: a title word outranks a body word; a concept page gets +3
    index = {
        "docnames": ["index", "concepts/a", "api/b"],
        "titles": ["Home", "A", "B"],
        "alltitles": {},
        "indexentries": {},
        "terms": {"带宽": [0, 2]},
        "titleterms": {"带宽": 1},
    }
    assert ranking(index, "带宽") == [("concepts/a", 18), ("index", 5), ("api/b", 2)]
