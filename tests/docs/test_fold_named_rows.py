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
    body = "".join(
        ('<tr class="rl-keep">' if r in named else "<tr>")
        + "".join(f"<td>value {r}.{i} with words</td>" for i in range(columns))
        + "</tr>"
        for r in range(ROWS)
    )
    return (
        f'<html lang="{lang}"><body><article><div class="rl-table-scroll"><table class="rl-table">'
        f"<thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table></div></article>"
        "</body></html>"
    )


SHOWN_JS = """() => { const t = document.querySelector("table");
  const rows = Array.from(t.querySelectorAll("tbody > tr:not(.rl-fold)"));
  return {cards: t.classList.contains("rl-cards"),
    shown: rows.map((r, i) => (r.offsetParent !== null ? i : -1)).filter((i) => i >= 0),
    button: (t.querySelector("button.rl-fold-button") || {}).textContent || null}; }"""


@pytest.mark.parametrize("named", [NAMED, ()])
def test_a_folded_table_shows_the_rows_its_section_names(browser, named) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.set_content(page_html(named))
        page.add_style_tag(path=str(STATIC / "course.css"))
        page.add_script_tag(path=str(STATIC / "scroll-boxes.js"))
        got = page.evaluate(SHOWN_JS)
        # by hand: first and last with the named rows; else the first three and last two
        want = [0, *named, ROWS - 1] if named else [0, 1, 2, ROWS - 2, ROWS - 1]
        assert got["cards"] and got["shown"] == want
        assert got["button"] == f"Show the {ROWS - len(want)} rows between (all {ROWS})"
        page.locator("button.rl-fold-button").click()
        assert page.evaluate(SHOWN_JS)["shown"] == list(range(ROWS))
    finally:
        page.close()


def test_a_chinese_page_says_its_fold_and_box_names_in_chinese(browser) -> None:
    """The Chinese edition (lang="zh-CN"): the button and a scroll box's name are Chinese."""
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        # a CJK font's Latin is narrower: more columns keep the table wider than the phone
        page.set_content(page_html((), lang="zh-CN", columns=12))
        page.add_style_tag(path=str(STATIC / "course.css"))
        page.add_script_tag(path=str(STATIC / "scroll-boxes.js"))
        hidden = ROWS - 5  # the first three and the last two show
        assert page.evaluate(SHOWN_JS)["button"] == f"显示中间的 {hidden} 行（共 {ROWS} 行）"
        page.locator("button.rl-fold-button").click()
        assert page.evaluate(SHOWN_JS)["button"] == "只显示前 3 行和后 2 行"
    finally:
        page.close()
