"""Browser test of the built site's search: a term finds the page about it first, with snippets;
in the Chinese edition a glossary term (which jieba must keep whole) the page that teaches it.

Needs ``make docs`` first and Debian's Chromium (the fixtures are in ``tests/conftest.py``).
A module of its own, so under ``pytest -n`` it runs beside the site pass of ``test_site.py``.
"""

from __future__ import annotations

import re

import pytest
from conftest import TIMEOUT_MS, Visitor

pytestmark = pytest.mark.browser


def search_results(visit: Visitor, query: str, edition: str = "") -> list[tuple[str, str, str]]:
    """(kind, page, snippet) of each result of a search in the order shown, once every
    snippet has come; `edition` "zh/" searches the Chinese one."""
    page = visit.open(f"{edition}search.html?q={query}")
    page.wait_for_selector("#search-results ul.search li", timeout=TIMEOUT_MS)
    page.wait_for_function(  # "Search finished", in English or in Chinese
        "() => /^(Search finished|搜索完成)/.test((document.querySelector("
        "'#search-results .search-summary') || {}).innerText || '')")  # fmt: skip
    # Page results get their snippet from a fetch of the page; objects have a description.
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('#search-results ul.search li'))"
        ".every(li => li.matches('.kind-object, .kind-index') || li.querySelector('p.context'))"
    )
    return page.eval_on_selector_all(
        "#search-results ul.search li",
        """items => items.map(li => [
          (li.className.match(/kind-(\\w+)/) || [, ""])[1],
          li.querySelector("a").getAttribute("href").split("#")[0],
          (li.querySelector("p.context") || {}).innerText || ""])""")  # fmt: skip


#: A term and the pages about it (lecture or concept): one must be among the first three.
SEARCH_TERMS = {
    "KV+cache": ("auto_lectures/07_llm_capacity.html", "concepts/memory-ledger.html"),
    "ridge": ("concepts/intensity-and-ridge.html", "auto_lectures/02_roofline_basics.html"),
    "critical+batch": ("auto_lectures/02_roofline_basics.html",
                       "concepts/intensity-and-ridge.html"),
    "FlashAttention": ("auto_lectures/10_tiled_attention.html", "concepts/papers.html"),
    "roofline": ("concepts/intensity-and-ridge.html", "auto_lectures/02_roofline_basics.html"),
    **dict.fromkeys(
        ("speculative+decoding", "disaggregation", "cost+per+token", "continuous+batching"),
        ("auto_lectures/14_serving_a_fleet.html", "concepts/serving.html"),
    ),
    "expert+parallelism": ("auto_lectures/13_mixture_of_experts.html",
                           "concepts/mixture-of-experts.html", "concepts/serving.html"),
}  # fmt: skip
#: Searches whose quoted snippets must be prose only (at least three of them).
PROSE_QUERIES = ("ridge", "GQA", "KV+cache")


@pytest.fixture(scope="module")
def exercise_answers_text(browser, base_url: str) -> str:
    """The worked answers of the exercises page, as one line of words."""
    context = browser.new_context()
    try:
        page = Visitor(context, base_url).open("exercises.html")
        return " ".join(" ".join(page.locator(".exercise-answer-body").all_text_contents()).split())
    finally:
        context.close()


@pytest.mark.parametrize("query", ["ridge+point", *SEARCH_TERMS, "GQA"])
def test_search(visit: Visitor, exercise_answers_text: str, query: str) -> None:
    """Every search finds pages with snippets. For a term of SEARCH_TERMS the lecture or
    concept page about it is among the first three results, and API entries (a name, no
    snippet) come after every page result; no page result lacks its snippet. For
    PROSE_QUERIES no snippet quotes a worked answer, TeX or code."""
    results = search_results(visit, query)
    snippets = [snippet for _, _, snippet in results if snippet]
    assert results and snippets, f"{query}: {results}"
    if query in SEARCH_TERMS:
        first = [page for _, page, _ in results[:3]]
        assert set(first) & set(SEARCH_TERMS[query]), f"{query}: first three are {first}"
        kinds = [kind for kind, _, _ in results]
        if "object" in kinds:
            first_object = kinds.index("object")
            assert set(kinds[first_object:]) == {"object"}, f"{query}: API entries among pages"
        empty = [
            page for kind, page, snippet in results if kind != "object" and not snippet.strip()
        ]
        assert not empty, f"{query}: page results without a snippet: {empty}"
    if query in PROSE_QUERIES:
        assert len(snippets) >= 3, f"too few results for {query!r}: {results}"
        for snippet in snippets:
            words = snippet.strip(". ").split()
            # Any run of eight words found in an answer means the answer is quoted.
            for i in range(max(len(words) - 7, 0)):
                chunk = " ".join(words[i : i + 8])
                assert chunk not in exercise_answers_text, f"answer text in a snippet: {chunk!r}"
            assert not re.search(r"[\\{}$]|\\(frac|text|math)", snippet), f"TeX in: {snippet!r}"
            assert not re.search(r"\bimport \w|print\(|\w+\(\)|>>>|^\s*#", snippet), (
                f"code in a snippet: {snippet!r}")  # fmt: skip
    visit.check()


#: A glossary term and the Chinese page that teaches it.
TEACHING_PAGES = {"算术强度": "concepts/intensity-and-ridge.html",
                  "带宽受限": "concepts/intensity-and-ridge.html",
                  "算力受限": "concepts/intensity-and-ridge.html",
                  "显存账本": "concepts/memory-ledger.html"}  # fmt: skip


@pytest.mark.parametrize(("term", "page"), sorted(TEACHING_PAGES.items()))
def test_a_chinese_term_lands_on_its_teaching_page_first(
    visit: Visitor, term: str, page: str
) -> None:
    results = search_results(visit, term, edition="zh/")
    assert results[0][1] == page, f"{term}: {results[:4]}"
    visit.check()
