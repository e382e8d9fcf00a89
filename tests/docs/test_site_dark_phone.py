"""Browser checks of the built site in the dark theme and on a phone (issue 34).

Uses the browser fixtures of tests/conftest.py (``browser``, ``base_url``, ``Visitor``) and
needs a built site (``make docs``, or a narrowed build); without Chromium it is skipped.

- In the dark theme, chosen explicitly (furo's theme button, kept in localStorage) or
  "auto" on a dark system, a figure's paper and a gallery thumbnail's are the page's own
  near-black, measured in a screenshot against the page beside them; in the light theme
  they stay white. The Run panel's redrawn chart gets the same treatment.
- At 390 px a long table of cards shows its first and last rows with the rest one tap
  away, keeps the page within a bound of its laptop height, and labels no two values of
  a card alike; the reference pages' tables show every column.
"""

from __future__ import annotations

import io
import re

import pytest
from conftest import SITE, Visitor

pytestmark = pytest.mark.browser

PHONE, LAPTOP, HEIGHT = 390, 1280, 844
#: The longest a table of cards may be on a phone, in window heights (scroll-boxes.js folds
#: a table taller than 1.25 of them down to its first three and last two rows).
MAX_TABLE_SCREENS = 1.5
#: A lecture page on a phone may be this many times its height on a laptop (lecture 09
#: was 2.0 before its 65-row sweep folded).
MAX_PHONE_OVER_LAPTOP = 1.6
#: How far (per channel, 0-255) a figure's paper may be from the page around it in the dark.
DARK_PAPER_TOLERANCE = 12


def built(path: str) -> bool:
    return (SITE / path).is_file()


def pages_with(pattern: str, folder: str) -> list[str]:
    """Built pages under `folder` whose HTML matches `pattern` (empty before a build)."""
    return sorted(
        p.relative_to(SITE).as_posix()
        for p in (SITE / folder).glob("*.html")
        if re.search(pattern, p.read_text(encoding="utf-8"))
    )


FIGURE_PAGES = pages_with(r'class="[^"]*sphx-glr-single-img', "auto_lectures")
FIGURE_PAGES += pages_with(r'class="[^"]*rl-figure', "concepts")[:1]
FIGURE_PAGES += ["auto_lectures/index.html"]  # the gallery's thumbnails
LONG_TABLE = "auto_lectures/09_hierarchical_roofline.html"  # its 65-row sweep
REFERENCE_PAGES = ["concepts/operator-ledgers.html", "hardware.html", "exercises.html"]


def open_page(browser, base_url: str, path: str, width: int, theme: str):
    """The page in a fresh context: theme 'light', 'auto-dark' (a dark system, furo's
    default 'auto') or 'chosen-dark' (a light system, dark chosen with furo's button)."""
    scheme = "light" if theme in ("light", "chosen-dark") else "dark"
    context = browser.new_context(viewport={"width": width, "height": HEIGHT}, color_scheme=scheme)
    if theme == "chosen-dark":
        context.add_init_script(script="localStorage.setItem('theme', 'dark')")
    visitor = Visitor(context, base_url)
    return context, visitor, visitor.open(path)


#: Each image the dark treatment covers, by its box on the page (px from the page's top-left).
IMAGES_JS = """() => Array.from(document.querySelectorAll(
    "article img, .sphx-glr-thumbcontainer img")).filter(i => i.offsetParent !== null)
  .map(i => { const r = i.getBoundingClientRect();
    return {left: r.left + scrollX, top: r.top + scrollY, width: r.width, height: r.height,
            src: i.getAttribute("src")}; })"""


def papers(page) -> list[tuple[str, tuple, tuple]]:
    """For each figure: its src, the colour of its paper (just inside its top-left corner)
    and the colour of the page just left of it, read from one full-page screenshot."""
    from PIL import Image

    boxes = page.evaluate(IMAGES_JS)
    shot = Image.open(io.BytesIO(page.screenshot(full_page=True))).convert("RGB")
    scale = shot.width / page.evaluate("() => document.documentElement.clientWidth")
    found = []
    for box in boxes:
        x, y = round((box["left"] + 3) * scale), round((box["top"] + 3) * scale)
        beside = max(0, round((box["left"] - 4) * scale))
        if y >= shot.height or x >= shot.width:
            continue
        found.append((box["src"], shot.getpixel((x, y)), shot.getpixel((beside, y))))
    return found


@pytest.mark.parametrize("theme", ["auto-dark", "chosen-dark", "light"])
@pytest.mark.parametrize("width", [PHONE, LAPTOP])
@pytest.mark.parametrize("path", FIGURE_PAGES)
def test_figures_take_the_page_colour_in_the_dark(
    browser, base_url, path: str, width: int, theme: str
) -> None:
    """Dark: a figure's paper is the page's near-black, within DARK_PAPER_TOLERANCE per
    channel of the page beside it; light: the paper stays white."""
    context, visitor, page = open_page(browser, base_url, path, width, theme)
    try:
        found = papers(page)
        assert found, f"{path}: no figure found"
        for src, paper, beside in found:
            where = f"{path} at {width}px ({theme}), {src}: paper {paper}, page {beside}"
            if theme == "light":
                assert min(paper) >= 250, where
            else:
                assert max(paper) <= 60, where  # dark paper, not a white rectangle
                apart = max(abs(a - b) for a, b in zip(paper, beside, strict=True))
                assert apart <= DARK_PAPER_TOLERANCE, where
        visitor.check()
    finally:
        context.close()


#: The filter the redrawn chart's box gets (it is drawn only when a panel runs: a box with
#: the panel's class stands in for it).
CHART_FILTER_JS = """() => { const box = document.createElement("div");
  box.className = "rl-runner-chart-area"; document.querySelector("article").append(box);
  return getComputedStyle(box).filter; }"""


@pytest.mark.parametrize("theme", ["auto-dark", "chosen-dark", "light"])
def test_the_redrawn_chart_is_drawn_dark_in_the_dark(browser, base_url, theme: str) -> None:
    context, _, page = open_page(browser, base_url, "auto_lectures/index.html", PHONE, theme)
    try:
        drawn = page.evaluate(CHART_FILTER_JS)
        assert (drawn == "none") == (theme == "light"), f"{theme}: filter {drawn}"
    finally:
        context.close()


#: Each table's rows: how many, which are shown, the labels of each row's cells, its height.
TABLES_JS = """() => Array.from(document.querySelectorAll("article table")).map(t => {
  const rows = Array.from(t.querySelectorAll("tbody > tr:not(.rl-fold)"));
  return {caption: ((t.querySelector("caption") || {}).textContent || "").trim().slice(0, 50),
    cards: t.classList.contains("rl-cards"), height: t.getBoundingClientRect().height,
    rows: rows.length, shown: rows.map((r, i) => r.offsetParent !== null ? i : -1)
      .filter(i => i >= 0),
    labels: rows.map(r => Array.from(r.cells, c => c.dataset.label || "")
      .filter(Boolean)),
    button: (t.querySelector("button.rl-fold-button") || {}).textContent || null,
    hidden: Math.max(0, Math.round(t.scrollWidth - (t.closest(".rl-table-scroll, .table-wrapper")
      || t.parentElement).clientWidth))};
})"""


def page_height(browser, base_url: str, path: str, width: int) -> float:
    context, _, page = open_page(browser, base_url, path, width, "light")
    try:
        return page.evaluate("() => document.documentElement.scrollHeight")
    finally:
        context.close()


def test_a_long_table_on_a_phone_shows_its_ends_first(browser, base_url) -> None:
    """Lecture 09's sweep at 390 px: its first three and last two rows, a button saying
    how many wait between, all of them after one tap; the table within one and a half
    screens, the page within MAX_PHONE_OVER_LAPTOP of its laptop height."""
    if not built(LONG_TABLE):
        pytest.skip(f"{LONG_TABLE} is not built")
    context, visitor, page = open_page(browser, base_url, LONG_TABLE, PHONE, "light")
    try:
        tables = page.evaluate(TABLES_JS)
        (sweep,) = [t for t in tables if t["rows"] > 20]
        n = sweep["rows"]
        assert sweep["cards"]
        assert sweep["shown"] == [0, 1, 2, n - 2, n - 1]
        assert sweep["button"] == f"Show the {n - 5} rows between (all {n})"
        assert sweep["height"] <= MAX_TABLE_SCREENS * HEIGHT, sweep["height"]
        for table in tables:
            assert table["height"] <= MAX_TABLE_SCREENS * HEIGHT, table["caption"]
        phone = page.evaluate("() => document.documentElement.scrollHeight")
        button = page.locator("button.rl-fold-button").first
        assert button.get_attribute("aria-expanded") == "false"
        button.click()
        (opened,) = [t for t in page.evaluate(TABLES_JS) if t["rows"] > 20]
        assert opened["shown"] == list(range(n))
        assert page.locator("button.rl-fold-button").first.get_attribute("aria-expanded") == "true"
        visitor.check()
    finally:
        context.close()
    laptop = page_height(browser, base_url, LONG_TABLE, LAPTOP)
    assert phone <= MAX_PHONE_OVER_LAPTOP * laptop, (phone, laptop)


#: A result table whose header repeats ("ratio" after two predictions, as lecture 11's),
#: put on the page; the window's resize makes scroll-boxes.js label its cards again.
REPEATED_JS = """() => { const box = document.createElement("div");
  box.className = "rl-table-scroll";
  box.innerHTML = `<table class="rl-table"><thead><tr><th>case</th><th>measured</th>
    <th>at spec</th><th>ratio</th><th>at achievable</th><th>ratio</th></tr></thead>
    <tbody><tr><td style="white-space: nowrap">2 GPUs, a long case name</td>
    <td class="num">29.14 ms</td><td class="num">23.52 ms</td><td class="num">x1.24</td>
    <td class="num">28.80 ms</td><td class="num">x1.01</td></tr></tbody></table>`;
  document.querySelector("article").append(box); }"""


def test_no_card_labels_two_values_alike(browser, base_url) -> None:
    """Every card on the phone pages labels each value differently; a repeated header
    reads with the header before it: 'ratio (at spec)', 'ratio (at achievable)'."""
    paths = [p for p in [LONG_TABLE, *REFERENCE_PAGES] if built(p)]
    for path in paths:
        context, _, page = open_page(browser, base_url, path, PHONE, "light")
        try:
            if path == paths[0]:
                page.evaluate(REPEATED_JS)
                page.set_viewport_size({"width": PHONE - 1, "height": HEIGHT})
                page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r)))")
            tables = page.evaluate(TABLES_JS)
            for table in tables:
                for labels in table["labels"]:
                    twins = sorted({x for x in labels if labels.count(x) > 1})
                    assert not twins, f"{path}: {table['caption']!r} repeats {twins}"
            if path == paths[0]:
                assert tables[-1]["cards"]
                assert tables[-1]["labels"][0][3:] == [
                    "ratio (at spec)", "at achievable", "ratio (at achievable)"
                ]  # fmt: skip
        finally:
            context.close()


@pytest.mark.parametrize("path", REFERENCE_PAGES)
def test_reference_tables_show_every_column_on_a_phone(browser, base_url, path: str) -> None:
    """Concept, hardware and exercise-answer tables (answers opened) at 390 px: none hides
    a column beyond its box (the operator ledger hid 417 px, its bound and time)."""
    if not built(path):
        pytest.skip(f"{path} is not built")
    context, visitor, page = open_page(browser, base_url, path, PHONE, "light")
    try:
        page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r)))")
        tables = page.evaluate(TABLES_JS)
        assert tables, f"{path}: no table"
        wide = [(t["caption"], t["hidden"]) for t in tables if t["hidden"] > 1]
        assert not wide, f"{path}: columns hidden beyond the box (px): {wide}"
        visitor.check()
    finally:
        context.close()
