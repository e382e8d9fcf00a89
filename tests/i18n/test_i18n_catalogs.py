"""The Chinese catalogs (docs/locale/zh_CN) are complete, and every translated entry uses the
glossary's Chinese term for each term its English names (one word for one idea)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO, load_extension, translations

MESSAGES = REPO / "docs" / "locale" / "zh_CN" / "LC_MESSAGES"


i18n = load_extension("i18n")
GLOSSARY = i18n.glossary()
#: Inline markup whose text is code, math, a target or a computed expression, not prose.
MARKUP = re.compile(r":[a-z:]+:`[^`]*`|``[^`]*``|`[^`]*`_?|\|\w+\|")


def _term_pattern(english: str) -> re.Pattern[str]:
    """One English form of a term, as a whole word, singular or plural, any case."""
    return re.compile(rf"(?<![\w-]){re.escape(english)}(?:s|es)?(?![\w-])", re.IGNORECASE)


#: (pattern, Chinese term, English form), longest English first: "KV cache" is matched
#: and blanked out before anything shorter is looked for in what remains.
TERMS = sorted(((_term_pattern(english), row["chinese"], english)
                for row in GLOSSARY for english in row["english"].split("|")),
               key=lambda term: -len(term[2]))  # fmt: skip


def glossary_misses(english: str, chinese: str) -> list[str]:
    """The glossary terms `english` names (outside code and markup) that `chinese` lacks."""
    prose = MARKUP.sub(" ", english)
    misses = []
    for pattern, term, form in TERMS:
        if pattern.search(prose):
            prose = pattern.sub(" ", prose)
            if term.lower() not in chinese.lower():
                misses.append(f"{form} -> {term}")
    return misses


def test_glossary_has_the_size_and_columns_a_course_needs() -> None:
    assert 40 <= len(GLOSSARY) <= 80
    english = [form.lower() for row in GLOSSARY for form in row["english"].split("|")]
    assert len(english) == len(set(english)), "an English term listed twice"
    for row in GLOSSARY:
        assert row["english"] and row["chinese"] and row["definition"], row
        assert i18n.CJK_WORD.search(row["definition"]), f"definition not in Chinese: {row}"
    chinese = {form: row["chinese"] for row in GLOSSARY for form in row["english"].split("|")}
    # the terms the issue names, as Chinese inference engineers write them
    assert chinese["arithmetic intensity"] == "算术强度" and chinese["memory-bound"] == "带宽受限"
    assert chinese["compute-bound"] == "算力受限" and chinese["memory ledger"] == "显存账本"
    for kept in ("roofline", "ridge point", "KV cache"):
        assert chinese[kept] == kept, f"{kept} stays in English"


@pytest.mark.parametrize(("english", "chinese", "misses"), [
    ("The arithmetic intensity is high.", "算术强度很高。", []),
    ("High arithmetic intensity", "运算强度高", ["arithmetic intensity -> 算术强度"]),
    ("Memory-bound kernels", "访存密集的 kernel", ["memory-bound -> 带宽受限"]),
    # kept in English: the Chinese must say "KV cache", not only 键值缓存
    ("The KV cache grows.", "键值缓存变大。", ["KV cache -> KV cache"]),
    ("The KV cache grows.", "KV cache 变大。", []),
    # the longer term is matched first; "cache" alone is not a term
    ("the hierarchical roofline", "分层 roofline", []),
    # code, math and computed text are not prose
    ("Run ``--kv fp8`` with :computed:`KV cache`.", "运行 ``--kv fp8``。", []),
])  # fmt: skip
def test_checker_finds_a_term_the_translation_dropped(
    english: str, chinese: str, misses: list[str]
) -> None:
    assert glossary_misses(english, chinese) == misses


#: Inline markup in reStructuredText: a role, literal, strong, emphasis, substitution.
SPAN = re.compile(
    r"(?::[\w:+-]+:)?`[^`]+`_{0,2}|``.+?``|\*\*[^*]+\*\*|(?<![*\\])\*[^*\s][^*]*\*(?!\*)|\|\w+\|"
)
#: What reStructuredText refuses right after inline markup (a Chinese character, an
#: opening bracket) and right before it (a Chinese character, a closing bracket): the
#: markup then stays literal text on the page. "\\ " (an escaped space) separates them.
GLUED_AFTER = re.compile(r"[\u4e00-\u9fff（「『“《【]")
GLUED_BEFORE = re.compile(r"[\u4e00-\u9fff）」』》】]")


def glued_markup(text: str) -> list[str]:
    """Inline markup in `text` touching a character that stops reST from seeing it."""
    glued = []
    for match in SPAN.finditer(text):
        start, end = match.span()
        if (start and GLUED_BEFORE.match(text[start - 1])) or GLUED_AFTER.match(
            text[end : end + 1]
        ):
            glued.append(text[max(0, start - 1) : end + 1])
    return glued


@pytest.mark.parametrize(
    ("text", "glued"), [("先读 :doc:`overview`\\ （其中）", []), ("某个*实现*和", ["个*实现*和"]),
     ("先读 :doc:`overview`（其中）", [" :doc:`overview`（"]), ("某个\\ *实现*\\ 和", []),
     ("**带宽受限**，:math:`I < I^{\\ast}`。", [])],
)  # fmt: skip
def test_glued_markup_is_found(text: str, glued: list[str]) -> None:
    assert glued_markup(text) == glued


def test_every_translated_entry_follows_the_glossary_and_glues_no_markup() -> None:
    # (page, English, Chinese) of every translated entry, less those kept as they are (a
    # citation's title, a formula)
    entries = [(path.relative_to(MESSAGES).with_suffix("").as_posix(), en, zh)
               for path in sorted(MESSAGES.rglob("*.po")) for en, zh in translations(path).items()
               if zh and zh != en]  # fmt: skip
    assert entries, "no translated entry at all"
    wrong = [
        f"{page}: {english[:60]!r}: {', '.join(misses)}"
        for page, english, chinese in entries
        if (misses := glossary_misses(english, chinese))]  # fmt: skip
    wrong += [
        f"{page}: {glued!r}" for page, _, chinese in entries for glued in glued_markup(chinese)
    ]
    assert not wrong, "\n".join(wrong)


# A translation that drops or adds a cross-reference: Sphinx warns ("inconsistent term
# references in translated message") and make docs, under -W, fails.


def test_every_page_has_a_complete_catalog(tmp_path: Path) -> None:
    docs = REPO / "docs"
    pages = [p.relative_to(docs).with_suffix("").as_posix() for p in docs.rglob("*.rst")]
    pages = [p for p in pages if not p.startswith(("_", "auto_lectures/", "gen_modules/"))]
    lectures = [f"auto_lectures/{p.stem}" for p in REPO.glob("lectures/[0-9][0-9]_*.py")]
    assert "index" in pages and len(lectures) >= 14
    for page in [*pages, "auto_lectures/index", *lectures]:
        assert i18n.catalog(page) in i18n.catalogs(), f"{page}: no catalog"
    for path in i18n.catalogs():
        assert i18n.missing_entries(path) == [], path
    # missing_entries finds the untranslated and the fuzzy entries
    po = tmp_path / "page.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n\n'
        'msgid "Done"\nmsgstr "完成"\n\n'
        'msgid "Not yet"\nmsgstr ""\n\n'
        '#, fuzzy\nmsgid "Changed"\nmsgstr "旧的译文"\n\n'
        'msgid "**Total running time of the script:** (0 minutes 1.000 seconds)"\nmsgstr ""\n',
        encoding="utf-8",
    )
    assert i18n.missing_entries(po) == ["Not yet", "Changed"]
    assert i18n.missing_entries(tmp_path / "absent.po") != []


def test_chinese_pages_link_to_identical_english_outputs_and_say_furos_words(tmp_path: Path):
    english, chinese = tmp_path, tmp_path / "zh"
    for root in (english, chinese):
        (root / "_images").mkdir(parents=True)
        (root / "_images" / "same.png").write_bytes(b"png")
    (chinese / "_images" / "only-zh.png").write_bytes(b"zh")
    (english / "_images" / "other.png").write_bytes(b"en")
    (chinese / "_images" / "other.png").write_bytes(b"zh differs")
    assert i18n.share_outputs(chinese, english) == {"_images/same.png"}
    assert not (chinese / "_images" / "same.png").exists()
    assert (chinese / "_images" / "other.png").read_bytes() == b"zh differs"

    page = chinese / "concepts" / "page.html"
    page.parent.mkdir()
    page.write_text(
        '<img src="../_images/same.png" srcset="../_images/same.png, ../_images/other.png 2x">'
        '<a href="../_images/only-zh.png">',
        encoding="utf-8",
    )
    i18n.rewrite_page(page, {"_images/same.png"}, lambda word: word)
    assert page.read_text(encoding="utf-8") == (
        '<img src="../../_images/same.png" srcset="../../_images/same.png, '
        '../_images/other.png 2x"><a href="../_images/only-zh.png">'
    )
    # Furo's fixed words are put in the catalog's words
    page = (
        '<a class="skip-to-content muted-link" href="#main">\n  Skip to content\n</a>'
        '<label aria-label="Toggle site navigation sidebar"></label>'
        "<svg><title>Auto light/dark, in dark mode</title></svg>"
        '<input aria-label="Toggle navigation of 概念 &amp; 公式">'
        "<p>Menu and Expand stay English inside a sentence.</p>")  # fmt: skip
    assert i18n.translate_chrome(page, lambda w: f"<<{w}>>") == (
        '<a class="skip-to-content muted-link" href="#main">\n  <<Skip to content>>\n</a>'
        '<label aria-label="<<Toggle site navigation sidebar>>"></label>'
        "<svg><title><<Auto light/dark, in dark mode>></title></svg>"
        '<input aria-label="<<Toggle navigation of 概念 &amp; 公式>>">'
        "<p>Menu and Expand stay English inside a sentence.</p>"
    )
    words = translations(MESSAGES / "sphinx.po")
    for word in (*i18n.FIXED_CHROME, "Toggle navigation of %s", "Back to top", "Next"):
        assert words.get(word), f"sphinx.po has no Chinese for {word!r}"
    assert "%s" in words["Toggle navigation of %s"]
