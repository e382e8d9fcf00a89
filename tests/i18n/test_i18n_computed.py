"""The Chinese edition's computed text: a :computed: expression with its phrases translated
leaves no English but numbers, units and names, and a figure's caption keeps its numbers and
branch (``say(...)``); every phrase and template has its Chinese in its catalog with the same
placeholders; tiny Sphinx projects extract, translate and fail on a missing one."""

from __future__ import annotations

import html
import json
import re
import textwrap
from pathlib import Path

import pytest
from conftest import PNG_1PX, REPO, built, computed_project, load_extension, sphinx, translations

from common import hw_specs
from lectures.words.hierarchical_roofline import roofline_caption

DOCS = REPO / "docs"
MESSAGES = DOCS / "locale" / "zh_CN" / "LC_MESSAGES"
CAPTIONS_PO = MESSAGES / "captions.po"
ROLE = re.compile(r":computed:`((?:[^`\\]|\\.)+)`")


computed = load_extension("computed")
i18n = load_extension("i18n")
docs_hooks = load_extension("docs_hooks")


def _pages() -> list[tuple[str, list[str]]]:
    """(docname, its :computed: expressions) for every source page that has one."""
    found = []
    for path in sorted(DOCS.rglob("*.rst")):
        parts = path.relative_to(DOCS).parts
        if parts[0].startswith("_") or parts[0] in ("auto_lectures", "gen_modules"):
            continue
        text = path.read_text(encoding="utf-8")
        expressions = [m.replace("\\`", "`") for m in ROLE.findall(text)]
        if expressions:
            found.append((path.relative_to(DOCS).with_suffix("").as_posix(), expressions))
    return found


PAGES = _pages()
PLACEHOLDER = re.compile(r"\{(\w*)\}")


def _marked(phrase: str) -> str:
    """A stand-in translation: no English left, the template's placeholders kept."""
    return " ".join(["译", *(f"{{{name}}}" for name in PLACEHOLDER.findall(phrase))])


#: English a Chinese page prints as the English one does: units, and names.
UNITS = re.compile(
    r"\b(?:[kKMGTP]?i?B(?:/s)?|[kMGTP]?FLOPs?(?:/s|/byte)?|[mµn]?s|OOM|GEMM|bf16|fp8|x\d[\d.]*)\b"
)


#: Titles quoted as published: the article's (Chinese, with "Profiling") and its English one.
ENGLISH_BY_DESIGN = {"sources.ARTICLE_TITLE", "sources.ARTICLE_TITLE_EN"}


@pytest.mark.parametrize(("page", "expressions"), PAGES, ids=[p for p, _ in PAGES])
def test_every_phrase_is_translated_and_leaves_no_english(page: str, expressions: list[str]):
    names = sorted((chip.name for chip in hw_specs.CHIPS.values()), key=len, reverse=True)
    chips = re.compile("|".join(map(re.escape, names)))  # the longest name first
    entries = translations(MESSAGES / f"{page}.po")
    wrong = []
    for expression in expressions:
        for phrase in computed.phrases(expression):
            chinese = entries.get(phrase, "")
            if not chinese:
                wrong.append(f"no translation: {phrase!r}")
            elif sorted(PLACEHOLDER.findall(chinese)) != sorted(PLACEHOLDER.findall(phrase)):
                wrong.append(f"placeholders differ: {phrase!r} -> {chinese!r}")
        if expression.strip() in ENGLISH_BY_DESIGN:
            continue
        text = computed.evaluate(expression, translate=_marked)
        if re.search(r"[A-Za-z]{2,}", UNITS.sub(" ", chips.sub(" ", text))):
            wrong.append(f"English left after translation: {text!r} from {expression[:70]!r}")
    assert not wrong, f"{page}:\n" + "\n".join(wrong)


@pytest.mark.parametrize(("expression", "expected"), [
    ('"below" if 1 < 2 else "at or past"', ["below", "at or past"]),  # both branches
    ('{1: "rises from {a} to {b}", 0: "stays at {a}"}[1].format(a=1, b=2)',
     ["rises from {a} to {b}", "stays at {a}"]),  # every value of a chosen template
    ("bound_of(1.0, 2.0)", ["compute", "memory"]),  # a Literal[...] return type
    ("side(1.0, 2.0)", ["compute-bound", "memory-bound"]),
    ("'fits' if True else 'OOM'", ["fits"]),  # a unit or an abbreviation is no phrase
    ('f"{A100.mem_bw / 1e9:,.0f} GB/s"', []),  # numbers and a unit
    ("fmt_bytes(1e6, binary=True)", []),  # a literal argument is not the result
    ("A100.ridge_point('bf16')", []),
    ("not valid python (", []),  # the role reports the syntax error itself
])  # fmt: skip
def test_phrases_are_the_literals_a_result_can_be(expression: str, expected: list[str]) -> None:
    assert computed.phrases(expression) == expected


def test_the_translation_is_used_before_the_template_is_filled_or_after_the_call() -> None:
    expression = '{1: "rises from {a} to {b}", 0: "stays at {a}"}[1].format(a="1.0", b="2.0")'
    chinese = {"rises from {a} to {b}": "从 {a} 升到 {b}", "memory": "带宽", "compute": "算力"}
    assert computed.evaluate(expression) == "rises from 1.0 to 2.0"
    assert computed.evaluate(expression, translate=chinese.get) == "从 1.0 升到 2.0"
    # a Literal[...] return type is translated after the call
    assert computed.evaluate("bound_of(1.0, 200.0)", translate=chinese.get) == "带宽"
    assert computed.evaluate("bound_of(300.0, 200.0)", translate=chinese.get) == "算力"


PAGE = textwrap.dedent(
    """
    Test
    ====

    The kernel sits |side| the ridge.

    .. |side| replace:: :computed:`"below" if 1.0 < 2.0 else "at or past"`
    """)  # fmt: skip

CATALOG = textwrap.dedent(
    """
    msgid ""
    msgstr ""
    "Content-Type: text/plain; charset=UTF-8\\n"

    msgid "Test"
    msgstr "测试"

    msgid "The kernel sits |side| the ridge."
    msgstr "这个 kernel |side| ridge。"

    msgid "below"
    msgstr "{below}"

    msgid "at or past"
    msgstr "达到或超过"
    """)  # fmt: skip


def _project(tmp_path: Path, below: str) -> Path:
    conf = ('locale_dirs = ["locale"]', "gettext_compact = False")
    src = computed_project(tmp_path / "src", PAGE, *conf)
    (src / "locale" / "zh_CN" / "LC_MESSAGES").mkdir(parents=True)
    po = CATALOG.replace("{below}", below)
    (src / "locale" / "zh_CN" / "LC_MESSAGES" / "index.po").write_text(po, encoding="utf-8")
    return src


def test_gettext_extracts_every_branch_and_the_chinese_build_prints_or_misses_its_phrase(
    tmp_path: Path,
) -> None:
    src = _project(tmp_path, "低于")
    run = sphinx(src, tmp_path / "pot", "-b", "gettext")
    assert run.returncode == 0, run.stderr
    pot = (tmp_path / "pot" / "index.pot").read_text(encoding="utf-8")
    assert 'msgid "below"' in pot
    assert 'msgid "at or past"' in pot  # the branch this build does not print
    english = sphinx(src, tmp_path / "en", "-b", "html")
    chinese = sphinx(src, tmp_path / "zh", "-b", "html", "-D", "language=zh_CN")
    assert english.returncode == 0, english.stderr
    assert chinese.returncode == 0, chinese.stderr
    assert "The kernel sits below the ridge." in (tmp_path / "en" / "index.html").read_text()
    html = (tmp_path / "zh" / "index.html").read_text(encoding="utf-8")
    assert "这个 kernel 低于 ridge。" in html and "below" not in html
    # a missing translation fails the Chinese build
    src = _project(tmp_path / "missing", "")  # the msgstr deleted
    run = sphinx(src, tmp_path / "missing" / "zh", "-b", "html", "-D", "language=zh_CN")
    assert run.returncode != 0 and "no translation of the phrase 'below'" in run.stderr


ZH_SITE = DOCS / "_build" / "html" / "zh"
#: Not prose: code, math, program output, links (titles of cited works) and scripts.
NOT_PROSE = re.compile(
    r"<(code|pre|a|script|style|kbd|samp|cite)\b.*?</\1>"
    r"|<(div|span) class=\"[^\"]*\bmath\b.*?</\2>",
    re.S,
)
ENGLISH_RUN = re.compile(r"\b[A-Za-z][A-Za-z'-]*(?:[ ,]+[A-Za-z][A-Za-z'-]*){2,}\b")
#: Runs a Chinese page keeps on purpose: a citation's authors.
KEPT_RUNS = re.compile(r"\bet al\b")


def test_the_scans_find_pages_with_phrases_and_english_runs_but_not_code_or_math() -> None:
    assert ENGLISH_RUN.findall("这个运算是 memory bound here，见 ``x``。") == ["memory bound here"]
    assert not ENGLISH_RUN.findall("带宽受限，A100 SXM 上 1.5 TB/s")
    # the scan finds the pages with phrases
    names = {page for page, _ in PAGES}
    assert {"concepts/operator-ledgers", "concepts/intensity-and-ridge", "overview"} <= names


CONCEPT_PAGES = [page for page, _ in PAGES if page.startswith("concepts/")]


@pytest.mark.site
@pytest.mark.parametrize("page", CONCEPT_PAGES)
def test_a_built_chinese_concept_page_has_no_english_clause(page: str) -> None:
    text = built(ZH_SITE / f"{page}.html").read_text(encoding="utf-8")
    # the article's text, less code, math, output and links
    text = NOT_PROSE.sub(" ", text[text.index("<article") : text.rindex("</article>")])
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())
    runs = [run for run in ENGLISH_RUN.findall(text) if not KEPT_RUNS.search(run)]
    assert not runs, f"{page}: English in the Chinese page: {runs}"


@pytest.mark.parametrize("name", ["bound_of", "side", "regime"])
def test_a_literal_return_type_lists_every_result(name: str) -> None:
    """The catalog holds what the annotation lists: a result outside it would print English."""
    function = computed.build_namespace()[name]
    listed = set(computed.literal_phrases(function))
    ridge = 200.0
    seen = {
        function(ridge * r, ridge) for r in (0.01, 0.1, 0.5, 0.999, 1.0, 1.001, 2.0, 10.0, 99.0)
    }
    assert seen <= listed and len(seen) == len(listed)  # every listed phrase can print


@pytest.mark.site
def test_the_chinese_hardware_tables_have_chinese_headers() -> None:
    """The hardware-table directive's headers come from the page's catalog (the figures'
    labels and sources are the table's own text, as written)."""
    page = built(ZH_SITE / "hardware.html")
    headers = re.findall(r"<th[^>]*>(.*?)</th>", page.read_text(encoding="utf-8"), re.S)
    words = {re.sub(r"<[^>]+>", "", h).strip() for h in headers}
    assert {"参数", "数值", "出处与说明", "芯片", "标称值", "精度"} <= words
    assert not words & {"figure", "value", "source and note", "chip", "spec", "precision"}


# --- Figure captions: said with say(...), their templates in captions.po ---
def test_every_template_in_the_code_has_its_chinese_with_the_same_fields() -> None:
    chinese = translations(CAPTIONS_PO)
    templates = {template for template, _, _ in i18n.caption_templates()}
    assert "{n} of the {m}" in templates  # claims.n_of_m: the scan reaches common/
    assert "sits on its roof" in templates and "reaches its roof" in templates  # both branches
    for template in templates:
        assert chinese.get(template), f"untranslated caption template: {template!r}"
        said = chinese[template]
        assert sorted(PLACEHOLDER.findall(said)) == sorted(PLACEHOLDER.findall(template))


# Three adds on three levels' roofs: two touch their own level's roof, one does not.
OPERATIONS = [
    {"label": f"add {level}", "intensity": 1 / 12, "closest_roof": closest, "predicted_roof": level}
    for level, closest in (("L1", "L1"), ("L2", "L2"), ("DRAM", "L2"))]  # fmt: skip
CAPTION_PAGE = """
.. figure:: /auto_lectures/images/fig.png
   :alt: {alt}
   :width: 100%
   :class: sphx-glr-single-img rl-figure-img
   :figclass: rl-figure

   {caption}
"""


def _caption_project(tmp_path: Path, caption: str, tree: object) -> Path:
    """A page holding one lecture figure as the scraper writes it, its template beside it."""
    alt = docs_hooks.alt_text("fig.png", caption)
    page = CAPTION_PAGE.format(alt=alt, caption=docs_hooks.rst_text(caption))
    src = computed_project(tmp_path / "src", page, 'extensions = ["i18n"]')
    images = src / "auto_lectures" / "images"
    images.mkdir(parents=True)
    (images / "fig.png").write_bytes(PNG_1PX)
    sidecar = docs_hooks.caption_file(images / "fig.png")
    sidecar.write_text(json.dumps({"caption": tree, "name": "09_roofline.png"}), encoding="utf-8")
    return src


def test_a_caption_comes_out_chinese_with_its_numbers_and_branch_or_fails(tmp_path: Path) -> None:
    caption = roofline_caption(OPERATIONS, 1.2e11)
    assert "2 of the 3 sit closest" in caption  # by hand: L1 and L2 touch their own roof
    src = _caption_project(tmp_path, caption, caption.tree())
    run = sphinx(src, tmp_path / "zh", "-b", "html", "-D", "language=zh_CN")
    assert run.returncode == 0, run.stderr
    html = (tmp_path / "zh" / "index.html").read_text(encoding="utf-8")
    figure = re.search(r'<figure class="[^"]*rl-figure.*?</figure>', html, re.DOTALL)
    assert figure is not None
    text = figure.group(0)
    assert "3 个中有 2 个" in text  # the branch n_of_m took, its numbers
    peak, intensity = re.search(r"of (\S+ \S+)\. .* I = (\S+) FLOP/byte", caption).groups()
    assert peak in text and f"I = {intensity} FLOP/byte" in text  # the numbers computed
    assert "sit closest" not in text and "离自己那一级带宽上限最近" in text
    assert 'alt="图 09 roofline：每一级存储' in text  # the alt text follows the caption
    # a template missing from the catalog fails the Chinese build
    tree = {"say": "A caption nobody {verb}", "fields": {"verb": "translated"}}
    src = _caption_project(tmp_path / "missing", "A caption nobody translated", tree)
    run = sphinx(src, tmp_path / "missing" / "zh", "-b", "html", "-D", "language=zh_CN")
    assert run.returncode != 0
    assert "no translation of the caption template 'A caption nobody {verb}'" in run.stderr
    # make gettext puts every template in the catalog of captions
    src = computed_project(tmp_path / "pot-src", "Text.\n", 'extensions = ["i18n"]')
    run = sphinx(src, tmp_path / "pot", "-b", "gettext")
    assert run.returncode == 0, run.stderr
    pot = (tmp_path / "pot" / "captions.pot").read_text(encoding="utf-8")
    assert 'msgid "every bar stays under it"' in pot  # a branch no run may take
    assert "common/present/figures.py" in pot
