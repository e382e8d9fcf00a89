"""How scroll-boxes.js folds a long table of cards on a phone, on a page of its own (no site
build needed): the rows its section names (tr.rl-keep) stay shown with the first and last."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

STATIC = Path(__file__).resolve().parents[2] / "docs" / "_static"
ROWS = 60  # taller than a screen and a quarter at 390 x 844 as cards
NAMED = (17, 40)  # rows a section's prose might name


def page_html(named: tuple[int, ...], lang: str = "en", columns: int = 6) -> str:
    cells = "".join(f"<th>a long column header {i}</th>" for i in range(columns))
    body = "".join(('<tr class="rl-keep">' if r in named else "<tr>")
                   + "".join(f"<td>value {r}.{i} with words</td>" for i in range(columns))
                   + "</tr>" for r in range(ROWS))  # fmt: skip
    return (
        f'<html lang="{lang}"><body><article><div class="rl-table-scroll"><table class="rl-table">'
        f"<thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table></div></article>"
        "</body></html>")  # fmt: skip


SHOWN_JS = """() => { const t = document.querySelector("table");
  const rows = Array.from(t.querySelectorAll("tbody > tr:not(.rl-fold)"));
  return {cards: t.classList.contains("rl-cards"),
    shown: rows.map((r, i) => (r.offsetParent !== null ? i : -1)).filter((i) => i >= 0),
    button: (t.querySelector("button.rl-fold-button") || {}).textContent || null}; }"""


#: The fold button's words before and after a tap, by the page's language.
SAYS = {
    "en": ("Show the {n} rows between (all {all})",
           "Show only the first, the last and the rows the text names",
           "Show only the first 3 and last 2 rows"),
    "zh-CN": ("显示中间的 {n} 行（共 {all} 行）", "只显示首行、末行和正文提到的行",
              "只显示前 3 行和后 2 行"),
}  # fmt: skip


@pytest.mark.parametrize(("named", "lang"), [(NAMED, "en"), ((), "en"), (NAMED, "zh-CN")])
def test_a_folded_table_shows_the_rows_its_section_names(browser, named, lang) -> None:
    """The first and last rows with the named ones (else the first three and the last two),
    a button saying how many wait between, all of them after a tap; in the Chinese edition
    (lang="zh-CN") the button speaks Chinese."""
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        # a CJK font's Latin is narrower: more columns keep the table wider than the phone
        page.set_content(page_html(named, lang, columns=6 if lang == "en" else 12))
        page.add_style_tag(path=str(STATIC / "course.css"))
        page.add_script_tag(path=str(STATIC / "scroll-boxes.js"))
        got = page.evaluate(SHOWN_JS)
        want = [0, *named, ROWS - 1] if named else [0, 1, 2, ROWS - 2, ROWS - 1]  # by hand
        between, fold_named, fold_ends = SAYS[lang]
        assert got["cards"] and got["shown"] == want
        assert got["button"] == between.format(n=ROWS - len(want), all=ROWS)
        page.locator("button.rl-fold-button").click()
        got = page.evaluate(SHOWN_JS)
        assert got["shown"] == list(range(ROWS))
        assert got["button"] == (fold_named if named else fold_ends)
    finally:
        page.close()
