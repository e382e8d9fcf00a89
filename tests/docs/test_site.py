"""Browser test of the built course site: headless Chromium over a local HTTP server.

Needs ``make docs`` first and Debian's Chromium at /usr/bin/chromium (CI installs it;
without it these tests are skipped). Playwright drives the system browser and
installs nothing. Every visited page must load without a JavaScript error and
without a single request leaving 127.0.0.1: the site must work offline.

What a lecture page must be (issue 10, "pages that read as a course"):

- short visible code: at most ``CELL_LINE_LIMIT`` non-blank lines in any code cell
  and ``PAGE_LINE_LIMIT`` on the page (cells hidden with sphinx-gallery's ignore
  markers do not count);
- results as HTML: at least one ``table.rl-table``, "what to observe" as prose in a
  ``div.rl-observations`` and never inside a ``<pre>``;
- at least one figure with a caption, and a gallery thumbnail made from it;
- nothing wider than the window except inside a box that scrolls, at 390 px (a
  phone) and 1280 px (a laptop), on every page of the site.

What every page must be at both widths (issue 20): tables whole at 1280 px, a wide
table's first column in view at 390 px, no equation clipped, and zero serious or
critical violations of axe-core (npm's axe-core, installed by npm ci and injected here).

Full-page screenshots of every page at both widths are saved under
``docs/_build/screenshots/`` for a human to look at.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "docs" / "_build" / "html"
SCREENSHOTS = REPO / "docs" / "_build" / "screenshots"
LECTURES = sorted(REPO.glob("lectures/[0-9][0-9]_*.py"))
TIMEOUT_MS = 30_000
WIDTHS = (390, 1280)  # a phone and a laptop, in CSS pixels
CELL_LINE_LIMIT = 30  # visible code lines in one cell of a lecture page
PAGE_LINE_LIMIT = 200  # visible code lines on one lecture page
OBSERVATION_TITLE = "What to observe"  # common.present.display.Observations' default title

sys.path.insert(0, str(REPO / "docs" / "_ext"))
import docs_hooks  # noqa: E402  (reads which lectures draw figures)
from conftest import Visitor  # noqa: E402  (the browser fixtures live in tests/conftest.py)

pytestmark = pytest.mark.browser


def lecture_page(lecture: Path) -> str:
    """The gallery page of a lecture, relative to the site root."""
    return f"auto_lectures/{lecture.stem}.html"


def site_pages() -> list[str]:
    """Every HTML page of the built site, relative to its root (empty before make docs)."""
    skip = {"_static", "_sources", "_downloads", "_images"}
    return sorted(
        p.relative_to(SITE).as_posix()
        for p in SITE.rglob("*.html")
        if not skip & set(p.relative_to(SITE).parts)
    )


def screenshot_name(path: str, width: int, setup: str = "light") -> str:
    """docs/_build/screenshots/<page>-<width>-<setup>.png, e.g. concepts_headroom-390-light.png."""
    return f"{path.removesuffix('.html').replace('/', '_')}-{width}-{setup}.png"


def all_images_loaded(page) -> list[str]:
    """The src of every <img> on the page that has not loaded (empty when all have)."""
    return page.evaluate(
        "() => Array.from(document.images)"
        ".filter(img => !(img.complete && img.naturalWidth > 0)).map(img => img.src)"
    )


#: Elements of the page's main content that stick out of the window without sitting
#: inside a box that scrolls (or clips) horizontally and itself fits the window.
OVERFLOW_JS = """() => {
  const width = document.documentElement.clientWidth;
  const clips = (el) => {
    const s = getComputedStyle(el);
    return ["auto", "scroll", "hidden", "clip"].includes(s.overflowX);
  };
  const out = [];
  const main = document.querySelector("article[role=main]") || document.body;
  for (const el of main.querySelectorAll("*")) {
    if (el.closest("mjx-assistive-mml")) continue;  // MathJax's invisible copy for readers
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (r.right <= width + 1 && r.left >= -1) continue;
    // Held: inside a box that scrolls sideways and itself fits the window. A box that
    // hides what sticks out (overflow hidden) is clipping, not scrolling: not held.
    let box = el.parentElement, held = false;
    while (box && box !== document.body) {
      if (clips(box)) {
        const b = box.getBoundingClientRect();
        const scrolls = ["auto", "scroll"].includes(getComputedStyle(box).overflowX);
        held = scrolls && b.right <= width + 1 && b.left >= -1;
        break;
      }
      box = box.parentElement;
    }
    if (!held) {
      const text = (el.innerText || el.textContent || "").trim().slice(0, 60);
      const where = `${Math.round(r.left)}..${Math.round(r.right)}px`;
      out.push(`<${el.tagName.toLowerCase()} class="${el.className}"> ${where}: ${text}`);
    }
  }
  return {pageWidth: document.documentElement.scrollWidth, window: width, out: out.slice(0, 10)};
}"""


def overflow(page) -> list[str]:
    """What overflows the window outside a scroll box (empty when nothing does)."""
    found = page.evaluate(OVERFLOW_JS)
    problems = list(found["out"])
    if found["pageWidth"] > found["window"]:
        problems.insert(
            0, f"the page is {found['pageWidth']}px wide in a {found['window']}px window"
        )
    return problems


#: Visible code lines of a lecture page: its code cells (sphinx-gallery's Python blocks),
#: non-blank lines only. Code blocks in the prose (shell commands) are not cells.
CODE_LINES_JS = """() => Array.from(document.querySelectorAll(
    "article div[class*='highlight-Python'] pre"))
  .filter(pre => !pre.closest(".sphx-glr-script-out"))
  .map(pre => pre.innerText.split("\\n").filter(line => line.trim() !== "").length)"""


def code_lines(page) -> list[int]:
    """Non-blank lines of each visible code cell, in page order."""
    return page.evaluate(CODE_LINES_JS)


def default_thumbnail() -> bytes:
    """The bytes of sphinx-gallery's "no image" thumbnail, as it makes it for this site."""
    import sphinx_gallery
    from sphinx_gallery.gen_gallery import DEFAULT_GALLERY_CONF
    from sphinx_gallery.gen_rst import scale_image

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target = SCREENSHOTS / ".default_thumbnail.png"
    source = Path(sphinx_gallery.__file__).parent / "_static" / "no_image.png"
    scale_image(str(source), str(target), *DEFAULT_GALLERY_CONF["thumbnail_size"])
    return target.read_bytes()


# ---------------------------------------------------------------------------
# The gallery
# ---------------------------------------------------------------------------
def test_gallery_lists_every_lecture_in_order(visit: Visitor) -> None:
    assert LECTURES, "no lectures found in lectures/"
    page = visit.open("auto_lectures/index.html")
    hrefs = page.eval_on_selector_all(
        ".sphx-glr-thumbcontainer a.reference.internal",
        "links => links.map(a => a.getAttribute('href'))",
    )
    listed = [Path(urlsplit(h).path).stem for h in hrefs]
    assert listed == [lecture.stem for lecture in LECTURES]
    assert not all_images_loaded(page)
    visit.check()


@pytest.mark.parametrize("lecture", LECTURES, ids=[lecture.stem for lecture in LECTURES])
def test_gallery_thumbnail_is_a_real_figure(visit: Visitor, lecture: Path) -> None:
    """A lecture's thumbnail is made from its first figure, not the "no image" picture."""
    page = visit.open("auto_lectures/index.html")
    link = page.locator(f".sphx-glr-thumbcontainer:has(a[href$='{lecture.stem}.html']) img")
    src = link.first.get_attribute("src")
    assert src, f"{lecture.name}: no thumbnail"
    thumbnail = (SITE / "auto_lectures" / src).resolve()
    is_default = thumbnail.read_bytes() == default_thumbnail()
    assert not is_default, (
        f"{lecture.name}: the gallery shows the default thumbnail (the lecture has no figure)"
    )
    visit.check()


def test_no_two_lectures_share_a_thumbnail(visit: Visitor) -> None:
    """Each card of the gallery shows a picture of its own lecture (no byte-identical twins)."""
    page = visit.open("auto_lectures/index.html")
    sources = page.eval_on_selector_all(
        ".sphx-glr-thumbcontainer img", "imgs => imgs.map(img => img.getAttribute('src'))"
    )
    pictures: dict[bytes, str] = {}
    for src in sources:
        data = (SITE / "auto_lectures" / src).resolve().read_bytes()
        assert data not in pictures, f"{src} is the same picture as {pictures.get(data)}"
        pictures[data] = src
    visit.check()


def test_gallery_cards_are_numbered_and_ask_their_question(visit: Visitor) -> None:
    """Cards read "Lecture NN", the title and the lecture's one-line question (that each
    card's link has a name is axe-core's link-name rule, run on every page)."""
    page = visit.open("auto_lectures/index.html")
    numbers = page.locator(".sphx-glr-thumbcontainer .rl-card-number").all_inner_texts()
    assert numbers == [f"Lecture {lecture.stem[:2]}" for lecture in LECTURES]
    questions = page.locator(".sphx-glr-thumbcontainer .rl-card-question").all_inner_texts()
    assert len(questions) == len(LECTURES) and all(q.strip() for q in questions)
    visit.check()


# ---------------------------------------------------------------------------
# Lecture pages
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("lecture", LECTURES, ids=[lecture.stem for lecture in LECTURES])
def test_lecture_page_shows_output_and_figures(visit: Visitor, lecture: Path) -> None:
    page = visit.open(lecture_page(lecture))
    outputs = page.locator("div.sphx-glr-script-out, pre.sphx-glr-script-out, div.rendered_html")
    assert outputs.count() >= 1, f"{lecture.name}: no captured output on its page"
    assert any(text.strip() for text in outputs.all_inner_texts()), f"{lecture.name}: empty output"
    assert not all_images_loaded(page), f"{lecture.name}: images that did not load"
    flags = docs_hooks.lecture_flags(lecture)
    if flags.outdir:  # a lecture that accepts --outdir draws: its figures must be embedded
        assert page.locator("img.sphx-glr-single-img").count() >= 1, f"{lecture.name}: no figure"
    text = page.locator("article").inner_text()
    assert "Traceback (most recent call last)" not in text, f"{lecture.name}: an error was shown"
    visit.check()


@pytest.mark.parametrize("lecture", LECTURES, ids=[lecture.stem for lecture in LECTURES])
def test_lecture_code_is_short(visit: Visitor, lecture: Path) -> None:
    """At most CELL_LINE_LIMIT visible lines per code cell and PAGE_LINE_LIMIT per page."""
    page = visit.open(lecture_page(lecture))
    cells = code_lines(page)
    assert cells, f"{lecture.name}: no code cell on its page"
    long_cells = [(i, n) for i, n in enumerate(cells, 1) if n > CELL_LINE_LIMIT]
    assert not long_cells, (
        f"{lecture.name}: code cells over {CELL_LINE_LIMIT} lines (cell, lines): {long_cells}"
    )
    assert sum(cells) <= PAGE_LINE_LIMIT, (
        f"{lecture.name}: {sum(cells)} visible code lines, over {PAGE_LINE_LIMIT}"
    )
    visit.check()


@pytest.mark.parametrize("lecture", LECTURES, ids=[lecture.stem for lecture in LECTURES])
def test_lecture_results_render_as_html(visit: Visitor, lecture: Path) -> None:
    """Tables as HTML tables, observations as prose, and a figure with a caption."""
    page = visit.open(lecture_page(lecture))
    name = lecture.name
    assert page.locator("article table.rl-table").count() >= 1, f"{name}: no HTML table"
    assert page.locator("article div.rl-observations li").count() >= 1, (
        f"{name}: no observations in prose (div.rl-observations)"
    )
    in_pre = [
        text
        for text in page.locator("article pre").all_inner_texts()
        if OBSERVATION_TITLE.lower() in text.lower()
    ]
    assert not in_pre, f"{name}: observations printed as monospace output: {in_pre[0][:120]!r}"
    captions = [
        c.strip() for c in page.locator("article figure.rl-figure figcaption").all_inner_texts()
    ]
    assert any(captions), f"{name}: no figure with a caption"
    figures = page.locator("article img.sphx-glr-single-img")
    uncaptioned = figures.count() - page.locator("article figure.rl-figure img").count()
    assert uncaptioned == 0, f"{name}: {uncaptioned} figure(s) without a caption"
    visit.check()


# ---------------------------------------------------------------------------
# Every page, at both widths: nothing sticks out; screenshots for a human
# ---------------------------------------------------------------------------
PAGES = site_pages()


#: Two setups of the same page: the light theme with this machine's fonts, and the dark
#: theme with DejaVu Sans forced as the text font (the widest common fallback, what a
#: machine without Helvetica, Arial or Liberation shows), so a layout that holds only
#: with narrow fonts fails here whatever this machine has installed.
SETUPS = {"light": None, "dark-dejavu": '"DejaVu Sans", sans-serif'}
FONT_JS = """font => document.addEventListener("DOMContentLoaded", () => {
  const style = document.createElement("style");
  style.textContent = `body { --font-stack: ${font} !important;
    --font-stack--headings: ${font} !important; }`;
  document.head.append(style);
})"""


def setup_context(browser, setup: str, width: int):
    """A browser context at `width` x 844 in the setup's theme and fonts."""
    theme = "dark" if setup.startswith("dark") else "light"
    context = browser.new_context(viewport={"width": width, "height": 844}, color_scheme=theme)
    if SETUPS[setup]:
        context.add_init_script(script=f"({FONT_JS})({SETUPS[setup]!r})")
    return context


@pytest.mark.parametrize("setup", list(SETUPS))
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", PAGES or ["index.html"])
def test_page_fits_the_window_and_passes_axe(
    browser, base_url, path: str, width: int, setup: str
) -> None:
    """At 390 px and 1280 px, light and dark, with this machine's fonts and with DejaVu:
    the page opens at its top; only scroll boxes (tables, code, math) may be wider than
    the window, and each that scrolls shows a cue and has a name of its own; at 1280 px
    every table is whole; at 390 px a lecture's result tables need no sideways scrolling
    (they reflow into cards) and another wide table keeps its first column in view; a
    lecture figure's smallest label is at least 9 px; no equation is clipped; no empty
    table header; axe-core finds nothing serious or critical. The page's full-size
    screenshot is saved either way (one load serves every check)."""
    context = setup_context(browser, setup, width)
    try:
        visitor = Visitor(context, base_url)
        page = visitor.open(path)
        where = f"{path} at {width}px ({setup})"
        page.evaluate("() => new Promise(requestAnimationFrame)")
        assert page.evaluate("() => scrollY") == 0, f"{where}: opens scrolled down"
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        target = SCREENSHOTS / screenshot_name(path, width, setup)
        page.screenshot(path=str(target), full_page=True)
        assert target.stat().st_size > 0
        problems = overflow(page)
        assert not problems, f"{where}:\n" + "\n".join(problems)
        tables = wide_tables(page)
        if width >= LAPTOP:
            assert not tables, f"{where}: tables wider than their column: {tables}"
        else:
            results = [t for t in tables if t["result"]]
            assert not results, f"{where}: result tables that scroll sideways: {results}"
            loose = [t for t in tables if not t["sticky"]]
            assert not loose, f"{where}: wide tables whose first column scrolls away: {loose}"
            small = [f"{px:.1f}px" for px in label_px(page) if px < MIN_LABEL_PX]
            assert not small, f"{where}: figure labels under {MIN_LABEL_PX} px: {small}"
        boxes = scroll_boxes(page)
        names = [box["name"] for box in boxes if box["name"] is not None]
        twins = sorted({name for name in names if names.count(name) > 1})
        assert not twins, f"{where}: scroll boxes that share a name: {twins}"
        silent = [box["name"] for box in boxes if not box["cue"]]
        assert not silent, f"{where}: scroll boxes with no visible cue: {silent}"
        empty = page.evaluate(EMPTY_HEADERS_JS)
        assert not empty, f"{where}: {empty} empty table header(s)"
        clipped = clipped_equations(page)
        assert not clipped, f"{where}: equations cut off or out of keyboard reach: {clipped}"
        found = axe_violations(page)
        assert not found, f"{where}: axe-core, serious or critical:\n" + "\n".join(found)
        visitor.check()
    finally:
        context.close()


EMPTY_HEADERS_JS = """() => Array.from(document.querySelectorAll("article th"))
  .filter(th => !th.textContent.trim() && !th.getAttribute("aria-label")).length"""

#: Every box marked as scrolling (scroll-boxes.js): its name, and whether it shows a cue
#: that more lies beyond its edge: the edge shadows (a gradient background), or for a
#: figure (an opaque picture) its caption's line saying it scrolls sideways.
SCROLL_BOXES_JS = """() => Array.from(document.querySelectorAll("[data-rl-scroll-box]")).map(b => {
  const said = b.closest("figure")?.querySelector("figcaption > p");
  return {name: b.getAttribute("aria-label"),
    cue: getComputedStyle(b).backgroundImage.includes("gradient") ||
      (!!said && /sideways|swipe across/i.test(getComputedStyle(said, "::after").content))};
})"""


def scroll_boxes(page) -> list[dict]:
    """Name and cue of each box that scrolls sideways on the page."""
    return page.evaluate(SCROLL_BOXES_JS)


#: The smallest text a lecture figure draws (common/plots: its smallest ``fontsize=``), in
#: points, and the least size in CSS px it may have on screen.
MIN_LABEL_PX = 9


def smallest_figure_font_pt() -> float:
    """The smallest ``fontsize=`` written in common/plots (the figures' smallest text)."""
    sizes = [
        float(size)
        for source in (REPO / "common" / "plots").glob("*.py")
        for size in re.findall(r"fontsize=(\d+(?:\.\d+)?)", source.read_text())
    ]
    return min(sizes)


#: Each lecture figure's drawn width over its file's width, with the file's dots per inch.
FIGURE_SCALE_JS = """() => Array.from(document.querySelectorAll(
    "article img.sphx-glr-single-img")).map(img => img.getBoundingClientRect().width /
  img.naturalWidth)"""


def label_px(page) -> list[float]:
    """The smallest label of each lecture figure, in CSS px as drawn (150 dpi files)."""
    from PIL import Image

    px = []
    sources = page.eval_on_selector_all(
        "article img.sphx-glr-single-img", "imgs => imgs.map(i => i.getAttribute('src'))"
    )
    scales = page.evaluate(FIGURE_SCALE_JS)
    base = SITE / Path(urlsplit(page.url).path.lstrip("/")).parent
    for src, scale in zip(sources, scales, strict=True):
        with Image.open((base / src).resolve()) as png:
            dpi = png.info["dpi"][0]
        px.append(smallest_figure_font_pt() * dpi / 72 * scale)
    return px


LAPTOP = 1280  # from this width on, every table of the site is whole

#: Tables wider than the box they sit in, with whether their first column stays in view
#: and whether it is a lecture's result table (common/present/display.py's rl-table).
WIDE_TABLES_JS = """() => Array.from(document.querySelectorAll("article table")).map(t => {
  const box = t.closest(".rl-table-scroll, .table-wrapper") || t.parentElement;
  const first = t.querySelector("tr > :first-child");
  const caption = (t.querySelector("caption") || {}).textContent || "";
  return {caption: caption.trim().slice(0, 50), width: Math.round(t.scrollWidth),
          box: Math.round(box.clientWidth),
          sticky: !!first && getComputedStyle(first).position === "sticky",
          result: t.matches("table.rl-table")};
}).filter(t => t.width > t.box + 1)"""


def wide_tables(page) -> list[dict]:
    """Each table wider than its box: caption, widths in px, whether its first column sticks."""
    return page.evaluate(WIDE_TABLES_JS)


#: Display equations wider than their box whose box cannot scroll or take focus.
CLIPPED_MATH_JS = """() => Array.from(document.querySelectorAll("article div.math"))
  .filter(box => box.offsetParent !== null)
  .map(box => {
    const eq = box.querySelector("mjx-container") || box;
    const scrolls = (el) => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
    const wide = [eq, box].filter(el => el.scrollWidth > el.clientWidth + 1);
    const scroller = wide.find(scrolls) || wide[0];
    if (!scroller) return null;
    const focusable = scroller.tabIndex >= 0 || !!scroller.closest("[tabindex]");
    return scrolls(scroller) && focusable ? null :
      `${scroller.scrollWidth}px in ${scroller.clientWidth}px: ${box.textContent.slice(0, 40)}`;
  }).filter(Boolean)"""


def clipped_equations(page) -> list[str]:
    """Equations that overflow a box that neither scrolls nor takes keyboard focus."""
    return page.evaluate(CLIPPED_MATH_JS)


AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
AXE_IMPACTS = ("serious", "critical")


def axe_violations(page) -> list[str]:
    """axe-core's serious and critical violations on the page, one line each (rule: nodes)."""
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: run npm ci (make docs does) to install axe-core")
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        """async (impacts) => {
          await new Promise(requestAnimationFrame);  // scroll boxes marked on the last resize
          const result = await axe.run(document, {resultTypes: ["violations"]});
          return result.violations.filter(v => impacts.includes(v.impact)).map(v =>
            `${v.id} (${v.impact}, ${v.nodes.length}): ` +
            v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(" | "));
        }""",
        list(AXE_IMPACTS),
    )
    return found


def test_no_build_machine_path_in_the_site() -> None:
    """No page shows where the site was built (outputs, API defaults, tracebacks)."""
    if not SITE.is_dir():
        pytest.fail(f"the site is not built ({SITE} is missing): run make docs first")
    found = [
        path
        for path in PAGES
        if str(REPO) in (SITE / path).read_text(encoding="utf-8", errors="replace")
    ]
    assert not found, f"pages that show the build folder {REPO}: {found}"


# ---------------------------------------------------------------------------
# Reference pages
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["hardware.html", "exercises.html"])
def test_math_is_rendered_offline(visit: Visitor, path: str) -> None:
    page = visit.open(path)
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
    page.evaluate("() => MathJax.startup.promise")
    page.wait_for_selector("mjx-container", state="attached")  # may sit in a closed reveal
    assert page.locator("mjx-container").count() >= 1
    text = page.locator("article").inner_text()
    assert "\\(" not in text and "\\[" not in text, "raw TeX left on the page"
    visit.check()


def test_exercise_answer_opens_on_click(visit: Visitor) -> None:
    page = visit.open("exercises.html")
    reveals = page.locator("details.exercise-answer")
    assert reveals.count() >= 9
    first = reveals.first
    body = first.locator(".exercise-answer-body")
    assert not body.is_visible(), "the answer is visible before the click"
    first.locator("summary").click()
    body.wait_for(state="visible")
    assert body.is_visible() and first.get_attribute("open") is not None
    assert re.search(r"\d", body.inner_text()), "the revealed answer has no numbers"
    visit.check()


def test_exercise_origins_link_to_the_sources(visit: Visitor) -> None:
    page = visit.open("exercises.html")
    hrefs = page.eval_on_selector_all(
        "p.exercise-origin a", "links => links.map(a => a.getAttribute('href'))"
    )
    assert any(h.endswith("#sources-article-09") for h in hrefs), hrefs
    assert any(h.endswith("#sources-script") for h in hrefs), hrefs
    overview = visit.open("overview.html")
    for anchor in ("sources", "sources-article", "sources-article-09", "sources-book", "notation"):
        assert overview.locator(f"[id='{anchor}']").count() == 1, f"overview: no #{anchor}"
    visit.check()


def test_hardware_table_lists_every_chip(visit: Visitor) -> None:
    from common.hw_specs import CHIPS

    page = visit.open("hardware.html")
    captions = page.locator("table.course-table caption").all_inner_texts()
    for chip in CHIPS.values():
        assert any(chip.name in caption for caption in captions), f"{chip.name} missing"
    visit.check()


def test_api_pages_show_flags_as_typed_without_alias_noise(visit: Visitor) -> None:
    page = visit.open("api/present.html")
    text = page.locator("article").inner_text()
    assert "--png" in text and "\u2013png" not in text, "a flag was turned into a dash"
    assert 'unit="FLOP"' in text, "code in a docstring got typographic quotes"
    assert "Alias for field number" not in text
    assert "PosixPath(" not in text
    visit.check()


def test_concept_roofline_figure_is_drawn_and_captioned(visit: Visitor) -> None:
    page = visit.open("concepts/intensity-and-ridge.html")
    figure = page.locator("figure.rl-figure").first
    assert figure.locator("img").count() == 1 and not all_images_loaded(page)
    assert len(figure.locator("figcaption").inner_text().split()) >= 10
    # A tap opens the full-size image.
    assert figure.locator("a.image-reference").get_attribute("href").endswith(".png")
    visit.check()


# ---------------------------------------------------------------------------
# Search
# ---------------------------------------------------------------------------
def search_snippets(visit: Visitor, query: str) -> tuple[list[str], list[str]]:
    """The result links and the quoted snippets of a search, once every snippet has come."""
    page = visit.open(f"search.html?q={query}")
    page.wait_for_selector("#search-results ul.search li", timeout=TIMEOUT_MS)
    page.wait_for_function(
        "() => (document.querySelector('#search-results .search-summary') || {})"
        ".innerText?.startsWith('Search finished')"
    )
    # Page results get their snippet from a fetch of the page; objects have a description.
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('#search-results ul.search li'))"
        ".every(li => li.matches('.kind-object, .kind-index') || li.querySelector('p.context'))"
    )
    links = page.eval_on_selector_all(
        "#search-results ul.search li > a", "links => links.map(a => a.getAttribute('href'))"
    )
    snippets = page.locator("#search-results ul.search li p.context").all_inner_texts()
    return links, snippets


def test_search_finds_ridge_point(visit: Visitor) -> None:
    links, snippets = search_snippets(visit, "ridge+point")
    assert links and snippets
    visit.check()


#: A term and the pages about it (lecture or concept): one must be among the first three.
SEARCH_TERMS = {
    "KV+cache": ("auto_lectures/07_llm_capacity.html", "concepts/memory-ledger.html"),
    "ridge": ("concepts/intensity-and-ridge.html", "auto_lectures/02_roofline_basics.html"),
    "critical+batch": (
        "auto_lectures/02_roofline_basics.html",
        "concepts/intensity-and-ridge.html",
    ),
    "FlashAttention": ("auto_lectures/10_tiled_attention.html", "concepts/papers.html"),
    "roofline": ("concepts/intensity-and-ridge.html", "auto_lectures/02_roofline_basics.html"),
}


def search_results(visit: Visitor, query: str) -> list[tuple[str, str, str]]:
    """(kind, page, snippet) of each result of a search, in the order shown."""
    search_snippets(visit, query)
    page = visit.context.pages[-1]
    return page.eval_on_selector_all(
        "#search-results ul.search li",
        """items => items.map(li => [
          (li.className.match(/kind-(\\w+)/) || [, ""])[1],
          li.querySelector("a").getAttribute("href").split("#")[0],
          (li.querySelector("p.context") || {}).innerText || ""])""",
    )


@pytest.mark.parametrize("query", list(SEARCH_TERMS))
def test_search_finds_the_page_about_a_term(visit: Visitor, query: str) -> None:
    """The lecture or concept page about a term is among the first three results, and
    API entries (a name, no snippet) come after every page result."""
    results = search_results(visit, query)
    first = [page for _, page, _ in results[:3]]
    assert set(first) & set(SEARCH_TERMS[query]), f"{query}: first three are {first}"
    kinds = [kind for kind, _, _ in results]
    if "object" in kinds:
        first_object = kinds.index("object")
        assert set(kinds[first_object:]) == {"object"}, f"{query}: API entries among pages"
    empty = [page for kind, page, snippet in results if kind != "object" and not snippet.strip()]
    assert not empty, f"{query}: page results without a snippet: {empty}"
    visit.check()


@pytest.mark.parametrize("query", ["ridge", "GQA", "KV+cache"])
def test_search_snippets_quote_prose_only(visit: Visitor, query: str) -> None:
    """No worked answer, no TeX and no code in the quoted snippets of a search."""
    answers_page = visit.open("exercises.html")
    answers = " ".join(answers_page.locator(".exercise-answer-body").all_text_contents())
    links, snippets = search_snippets(visit, query)
    assert len(snippets) >= 3, f"too few results for {query!r}: {links}"
    for snippet in snippets:
        words = snippet.strip(". ").split()
        # Any run of eight words found in an answer means the answer is quoted.
        for i in range(max(len(words) - 7, 0)):
            chunk = " ".join(words[i : i + 8])
            assert chunk not in " ".join(answers.split()), f"answer text in a snippet: {chunk!r}"
        assert not re.search(r"[\\{}$]|\\(frac|text|math)", snippet), f"TeX in: {snippet!r}"
        assert not re.search(r"\bimport \w|print\(|\w+\(\)|>>>|^\s*#", snippet), (
            f"code in a snippet: {snippet!r}"
        )
    visit.check()


# ---------------------------------------------------------------------------
# Exercises that are still exercises
# ---------------------------------------------------------------------------
def _smallest_batch(k: int, ridge: float) -> int:
    """Brute force: the first B whose bf16 matmul X[B,K] W[K,K] reaches `ridge` FLOP/byte."""
    return next(b for b in range(1, 10**6) if 2 * b * k * k / (2 * (2 * b * k + k * k)) >= ridge)


def _ledger_gib(batch: int, rate: float) -> float:
    """The article's 7B prefill ledger (fp16 weights and KV, 4096 tokens, 128 KiB/token)."""
    per_seq = 2 * 32 * 4096 * 2 * 4096 + 4096 * 128 * 1024
    return (1 + rate) * (7e9 * 2 + batch * per_seq) / 2**30


def exercise_answers() -> dict[str, list[str]]:
    """Each changed exercise's answer values as its worked answer prints them, by hand."""
    batches = {r: max(b for b in range(1, 200) if _ledger_gib(b, r) <= 130) for r in (0.3, 0.04)}
    v6e_ridge = 920e12 / 1.64e12
    gemm_512 = (2 * 512 * 4096**2, 2 * (2 * 512 * 4096 + 4096**2))
    return {
        # A100 and B200: K* = 2 P / link (bf16 partial sums)
        "sharded-matmul": [f"{2 * 312e12 / 300e9:,.1f}", f"{2 * 2250e12 / 900e9:,.1f}"],
        # TPU v6e in bf16: I / I* of the 512-row GEMM, and its gain from 2x bandwidth
        "bandwidth-2x": [
            f"{gemm_512[0] / gemm_512[1] / v6e_ridge:.3f}",
            f"{(gemm_512[1] / 1.64e12) / (gemm_512[0] / 920e12):.2f}x",
        ],
        # 130 GiB: the largest batch's total at 30% and at 4% overhead
        "largest-batch": [f"{_ledger_gib(b, r):.2f} GiB" for r, b in batches.items()],
        # K = N = 2048 critical batches; an 8B bf16 model's decode step; the conclusion:
        # decode follows the bandwidth ratio 4.8 / 3.35 = x1.43
        "h200-vs-h100": [
            *(str(_smallest_batch(2048, 989e12 / bw)) for bw in (3.35e12, 4.8e12)),
            *(f"{16e9 / bw * 1e3:.2f} ms" for bw in (3.35e12, 4.8e12)),
            f"x{4.8 / 3.35:.2f} faster",
        ],
        # fp8 on the H100, N = 8,192, d_h = 128: B_r = 304, B_c = 128 (T_r = 27 reaches
        # 1979 / 3.35 = 590.7); U = d B_r + 2 d B_c + 4 B_r B_c + 4 d B_r + 8 B_r at 1 byte;
        # the verdict's ratio against 228 KiB of shared memory
        "tiled-compute-bound": [
            f"{_footprint(304, 128, 128, 1) / 1024:.0f} KiB",
            f"x{_footprint(304, 128, 128, 1) / (228 * 1024):.2f} more than",
        ],
        # one W[4096, 4096] per example in bf16: I = KN / (K + KN + N) whatever B is, and the
        # verdict that says so
        "per-example-matrices": [
            f"{4096**2 / (2 * 4096 + 4096**2):.4f}",
            "memory-bound at any batch",
        ],
    }


def _footprint(br: int, bc: int, d: int, b: float) -> float:
    """FlashAttention-2's on-chip bytes by hand: Q, K, V blocks, fp32 S, accumulator, stats."""
    return b * d * br + 2 * b * d * bc + 4 * br * bc + 4 * d * br + 8 * br


def test_no_lecture_or_concept_source_answers_an_exercise() -> None:
    """Without the site: the table-driven lectures (02, 05-08, run here) and the concept
    pages (their computed values evaluated here) print none of the answers above."""
    from conftest import run_lecture
    from test_computed_pages import PAGES as COMPUTED
    from test_computed_pages import rendered

    texts = {f"lecture {n}": run_lecture(n).stdout for n in ("02", "05", "06", "07", "08")}
    texts |= {p.name: rendered(p) for p in COMPUTED if p.parent.name == "concepts"}
    found = []
    for key, values in exercise_answers().items():
        for value in values:
            pattern = re.compile(rf"(?<![\d.,]){re.escape(value)}(?![\d])")
            found += [
                f"{key}: {value!r} in {n}"
                for n, t in texts.items()
                if pattern.search(" ".join(t.split()))
            ]
    assert not found, "exercise answers printed elsewhere:\n" + "\n".join(found)


def page_text(path: str) -> str:
    """The visible words of a built page: tags dropped, whitespace collapsed."""
    html = (SITE / path).read_text(encoding="utf-8")
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_no_lecture_or_concept_page_answers_an_exercise() -> None:
    """No lecture or concept page prints an exercise's answer values, which the
    exercises page itself does print (so the values are written as the answer writes them)."""
    if not (SITE / "exercises.html").is_file():
        pytest.fail(f"the site is not built ({SITE}): run make docs first")
    answers_page = page_text("exercises.html")
    pages = [p for p in PAGES if p.startswith(("auto_lectures/", "concepts/"))]
    assert len(pages) >= 20, pages
    found = []
    for key, values in exercise_answers().items():
        for value in values:
            pattern = re.compile(rf"(?<![\d.,]){re.escape(value)}(?![\d])")
            assert pattern.search(answers_page), f"{key}: {value!r} is not in its own answer"
            found += [f"{key}: {value!r} on {p}" for p in pages if pattern.search(page_text(p))]
    assert not found, "exercise answers printed elsewhere:\n" + "\n".join(found)
