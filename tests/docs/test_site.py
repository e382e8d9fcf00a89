"""Browser test of the built course site: headless Chromium over a local HTTP server.

Needs ``make docs`` first and Debian's Chromium at /usr/bin/chromium (CI installs it;
without it these tests are skipped); playwright drives it and installs nothing.

Every page of the site, of both editions, is opened once per view (390 px and 1280 px,
light and dark: tests/docs/site_pass.py) and every check registered below with
``@page_check`` runs on that one load; ``test_page`` reports it per page and view. The
checks of layout (nothing wider than the window outside a named scroll box with a cue,
tables, legible figure labels, equations, axe-core's serious and critical violations, the
theme's colours, the language switch) run in every view; what a page says (issue 10: short
visible code, results as HTML, captioned figures, the gallery's thumbnails) once, in the
1280 px light view.

ROOFLINE_SCREENSHOTS=1 saves every page's full-size screenshot in every view under
``docs/_build/screenshots/``; without it only a failing page's is saved.
"""

from __future__ import annotations

import functools
import html
import io
import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import CELL_LINE_LIMIT, PAGE_LINE_LIMIT, REPO, built, critical_batch, load_extension
from site_pass import (
    CONTENT_VIEW,
    HEIGHT,
    SCREENSHOTS,
    SITE,
    VIEWS,
    View,
    Visit,
    page_check,
    run_pass,
)

LECTURES = sorted(REPO.glob("lectures/[0-9][0-9]_*.py"))
OBSERVATION_TITLE = "What to observe"  # common.present.display.Observations' default title
LAPTOP = 1280  # from this width on, every table of the site is whole
#: The smallest text a lecture figure draws may be no smaller than this on screen, in CSS px.
MIN_LABEL_PX = 9
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
AXE_IMPACTS = ("serious", "critical")
GALLERY = "auto_lectures/index.html"

docs_hooks = load_extension("docs_hooks")  # reads which lectures draw figures

pytestmark = pytest.mark.browser


def lecture_page(lecture: Path) -> str:
    """The gallery page of a lecture, relative to the site root."""
    return f"auto_lectures/{lecture.stem}.html"


LECTURE_PAGES = {lecture_page(lecture): lecture for lecture in LECTURES}


def site_pages() -> list[str]:
    """Every HTML page of the built site, relative to its root (empty before make docs)."""
    skip = {"_static", "_sources", "_downloads", "_images"}
    return sorted(
        p.relative_to(SITE).as_posix()
        for p in SITE.rglob("*.html")
        if not skip & set(p.relative_to(SITE).parts))  # fmt: skip


PAGES = site_pages()


@pytest.fixture(scope="session")
def site_pass(base_url: str) -> dict[tuple[str, str], list[str]]:
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: run npm ci (make docs does) to install axe-core")
    return run_pass(base_url, PAGES)


@pytest.mark.parametrize(("path", "view"),
                         [(p, v.name) for p in PAGES or ["index.html"] for v in VIEWS])  # fmt: skip
def test_page(site_pass: dict, path: str, view: str) -> None:
    """Every check registered with @page_check for this page and view passed."""
    problems = site_pass[(path, view)]
    assert not problems, f"{path} at {view}:\n" + "\n".join(problems)


@page_check()
async def opens_at_its_top(page, visit: Visit) -> None:
    assert await page.evaluate("() => scrollY") == 0, f"{visit.where}: opens scrolled down"


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


@page_check()
async def nothing_sticks_out(page, visit: Visit) -> None:
    """Only scroll boxes (tables, code, math) may be wider than the window, and a literal
    (``--model``, ``trtllm-mmha``) never breaks at its hyphens."""
    found = await page.evaluate(OVERFLOW_JS)
    problems = list(found["out"])
    if found["pageWidth"] > found["window"]:
        problems.insert(
            0, f"the page is {found['pageWidth']}px wide in a {found['window']}px window"
        )
    assert not problems, f"{visit.where}:\n" + "\n".join(problems)
    broken = await page.evaluate(BROKEN_FLAGS_JS)
    assert not broken, f"{visit.where}: literals broken across lines at a hyphen: {broken}"


#: Hyphenated words of literals (``--model``, ``trtllm-mmha``) that a line break cuts in two.
BROKEN_FLAGS_JS = """() => Array.from(document.querySelectorAll("article code.literal span.pre"))
  .filter(s => s.textContent.includes("-") && s.getClientRects().length > 1)
  .map(s => s.textContent)"""


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


@page_check()
async def tables_fit(page, visit: Visit) -> None:
    """At 1280 px every table is whole; at 390 px a lecture's result tables need no
    sideways scrolling (they reflow into cards) and another wide table keeps its first
    column in view."""
    tables = await page.evaluate(WIDE_TABLES_JS)
    if visit.view.width >= LAPTOP:
        assert not tables, f"{visit.where}: tables wider than their column: {tables}"
        return
    results = [t for t in tables if t["result"]]
    assert not results, f"{visit.where}: result tables that scroll sideways: {results}"
    loose = [t for t in tables if not t["sticky"]]
    assert not loose, f"{visit.where}: wide tables whose first column scrolls away: {loose}"


@functools.cache
def smallest_figure_font_pt() -> float:
    """The smallest ``fontsize=`` written in common/plots (the figures' smallest text)."""
    sizes = [
        float(size)
        for source in (REPO / "common" / "plots").glob("*.py")
        for size in re.findall(r"fontsize=(\d+(?:\.\d+)?)", source.read_text())]  # fmt: skip
    return min(sizes)


#: Each lecture figure's source and its drawn width over its file's width.
FIGURE_SCALE_JS = """() => Array.from(document.querySelectorAll(
    "article img.sphx-glr-single-img")).map(img => [img.getAttribute("src"),
  img.getBoundingClientRect().width / img.naturalWidth])"""


@page_check(views=tuple(view.name for view in VIEWS if view.width < LAPTOP))
async def figure_labels_are_legible(page, visit: Visit) -> None:
    """On a phone a lecture figure's smallest label is at least MIN_LABEL_PX (150 dpi files)."""
    from PIL import Image

    base = SITE / Path(visit.path).parent
    small = []
    for src, scale in await page.evaluate(FIGURE_SCALE_JS):
        with Image.open((base / src).resolve()) as png:
            dpi = png.info["dpi"][0]
        px = smallest_figure_font_pt() * dpi / 72 * scale
        if px < MIN_LABEL_PX:
            small.append(f"{px:.1f}px")
    assert not small, f"{visit.where}: figure labels under {MIN_LABEL_PX} px: {small}"


#: Every box marked as scrolling (scroll-boxes.js): its name, and whether it shows a cue
#: that more lies beyond its edge: the edge shadows (a gradient background), or for a
#: figure (an opaque picture) its caption's line saying it scrolls sideways (in Chinese,
#: course.css's 左右滑动, "swipe left and right").
SCROLL_BOXES_JS = """() => Array.from(document.querySelectorAll("[data-rl-scroll-box]")).map(b => {
  const said = b.closest("figure")?.querySelector("figcaption > p");
  const hint = said ? getComputedStyle(said, "::after").content : "";
  return {name: b.getAttribute("aria-label"),
    cue: getComputedStyle(b).backgroundImage.includes("gradient") ||
      /sideways|swipe across|左右滑动/i.test(hint)};
})"""


@page_check()
async def scroll_boxes_show_a_cue_and_a_name(page, visit: Visit) -> None:
    boxes = await page.evaluate(SCROLL_BOXES_JS)
    names = [box["name"] for box in boxes if box["name"] is not None]
    twins = sorted({name for name in names if names.count(name) > 1})
    assert not twins, f"{visit.where}: scroll boxes that share a name: {twins}"
    silent = [box["name"] for box in boxes if not box["cue"]]
    assert not silent, f"{visit.where}: scroll boxes with no visible cue: {silent}"


EMPTY_HEADERS_JS = """() => Array.from(document.querySelectorAll("article th"))
  .filter(th => !th.textContent.trim() && !th.getAttribute("aria-label")).length"""


@page_check()
async def no_empty_table_header(page, visit: Visit) -> None:
    empty = await page.evaluate(EMPTY_HEADERS_JS)
    assert not empty, f"{visit.where}: {empty} empty table header(s)"


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


@page_check()
async def no_equation_clipped(page, visit: Visit) -> None:
    """An equation wider than its box sits in one that scrolls and takes keyboard focus."""
    clipped = await page.evaluate(CLIPPED_MATH_JS)
    assert not clipped, f"{visit.where}: equations cut off or out of keyboard reach: {clipped}"


AXE_JS = """async ([impacts, runs]) => {
  await new Promise(requestAnimationFrame);  // scroll boxes and cards marked on the last resize
  const found = [];
  for (const [within, only, skip] of runs) {  // a run on elements the page lacks is skipped
    if (within !== "document" && !document.querySelector(within)) continue;
    const rules = Object.fromEntries(axe.getRules().map(r => r.ruleId)
      .filter(id => (only && !only.includes(id)) || skip.includes(id))
      .map(id => [id, {enabled: false}]));
    const result = await axe.run(within === "document" ? document : within,
      {resultTypes: ["violations"], rules});
    found.push(...result.violations.filter(v => impacts.includes(v.impact)).map(v =>
      `${v.id} (${v.impact}, ${v.nodes.length}): ` +
      v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(" | ")));
  }
  return found;
}"""
#: The axe-core rules whose verdict a theme or a font can change: colours, and what text
#: size moves (which boxes scroll, and so take the scroll-box roles and names, and how big
#: a target is). The dark views, whose page and width are the same, run these.
THEME_RULES = (
    "color-contrast", "link-in-text-block", "target-size", "scrollable-region-focusable",
    "aria-allowed-attr", "aria-allowed-role", "aria-prohibited-attr", "aria-required-attr",
    "aria-valid-attr-value", "nested-interactive", "landmark-unique",
)  # fmt: skip
#: What only a phone shows (furo's top bar with its buttons, a long table's fold button)
#: needs a name and must not hide focus.
PHONE_RULES = ("button-name", "link-name", "aria-hidden-focus")
#: A verdict on colours reads the CSS (colours, text size and weight), which the two editions
#: share, not the words: an English page's views check them, a Chinese page's do not.
#: At 390 px a page's colours are its theme's 1280 px ones except the phone's top bar (the
#: same on every page: checked on the front page) and result tables folded into cards
#: (checked within the cards, where a phone's colours can differ; a link's colour against its
#: text's is the theme's at any width, left to the 1280 px view).
COLOUR_RULES = ("color-contrast", "link-in-text-block")
CARDS = "table.rl-cards"  # scroll-boxes.js's class of a table folded into cards


def axe_runs(view: View, path: str = "") -> list[list]:
    """axe-core's runs on `path` in `view`, each [where: "document" or a CSS selector, only
    these rules or None for all, less these]. CONTENT_VIEW runs every rule once; each other
    view the rules its width, theme or font can change."""
    zh = list(COLOUR_RULES) if path.startswith("zh/") else []
    if view.name == CONTENT_VIEW or view.width >= LAPTOP:
        return [["document", None if view.name == CONTENT_VIEW else list(THEME_RULES), zh]]
    phone = [r for r in THEME_RULES if r not in COLOUR_RULES]
    runs = [["document", phone + list(PHONE_RULES if view.theme == "light" else ()), []]]
    where = "document" if path == "index.html" else CARDS
    return runs if zh else [*runs, [where, ["color-contrast"], []]]


@page_check()
async def axe_finds_nothing_serious(page, visit: Visit) -> None:
    """axe-core's serious and critical violations (one line each: rule, nodes): none."""
    await page.add_script_tag(path=str(AXE))
    found = await page.evaluate(AXE_JS, [list(AXE_IMPACTS), axe_runs(visit.view, visit.path)])
    assert not found, f"{visit.where}: axe-core, serious or critical:\n" + "\n".join(found)


SWITCH_JS = """() => { const a = document.querySelector("a[hreflang]");
  return a && {lang: document.documentElement.lang, hreflang: a.hreflang,
    href: new URL(a.getAttribute("href"), location.href).pathname,
    here: location.pathname, shown: a.offsetParent !== null}; }"""


@page_check(views=("390-light", "1280-dark-dejavu"))
async def language_switch_opens_the_same_page(page, visit: Visit) -> None:
    """The switch in the top bar leads to this page in the other edition (a built file), and
    the page says which language it is in (zh-CN under zh/, English elsewhere)."""
    switch = await page.evaluate(SWITCH_JS)
    assert switch, f"{visit.where}: no language switch"
    zh = visit.path.startswith("zh/")
    assert (switch["lang"], switch["hreflang"]) == (("zh-CN", "en") if zh else ("en", "zh-CN")), (
        f"{visit.where}: {switch}"
    )
    other = ("zh/" + visit.path) if not zh else visit.path.removeprefix("zh/")
    root = switch["here"].removesuffix(visit.path)
    assert switch["href"] == root + other, f"{visit.where}: the switch goes to {switch['href']}"
    assert (SITE / other).is_file(), f"{visit.where}: {other} is not built"


#: How far (per channel, 0-255) a figure's paper may be from the page around it in the dark.
DARK_PAPER_TOLERANCE = 12


def pages_with(pattern: str, folder: str) -> list[str]:
    """Built pages under `folder` whose HTML matches `pattern` (empty before a build)."""
    return sorted(
        p.relative_to(SITE).as_posix()
        for p in (SITE / folder).glob("*.html")
        if re.search(pattern, p.read_text(encoding="utf-8")))  # fmt: skip


#: Every lecture page with a figure, the first concept page with one, the gallery's
#: thumbnails; and their Chinese pages.
FIGURE_PAGES = set(pages_with(r'class="[^"]*sphx-glr-single-img', "auto_lectures"))
FIGURE_PAGES |= {*pages_with(r'class="[^"]*rl-figure', "concepts")[:1], GALLERY}

#: Each image the dark treatment covers, by its box on the page (CSS px from its top-left).
IMAGES_JS = """() => Array.from(document.querySelectorAll(
    "article img, .sphx-glr-thumbcontainer img")).filter(i => i.offsetParent !== null)
  .map(i => { const r = i.getBoundingClientRect();
    return {left: r.left + scrollX, top: r.top + scrollY, src: i.getAttribute("src")}; })"""


#: Scroll the window to y at once (the theme scrolls smoothly), and say where it got to.
SCROLL_JS = "y => { scrollTo({top: y, behavior: 'instant'}); return scrollY; }"


@page_check(lambda path: path.removeprefix("zh/") in FIGURE_PAGES)
async def figures_take_the_page_colour(page, visit: Visit) -> None:
    """Dark: a figure's paper (just inside its top-left corner) is the page's near-black,
    within DARK_PAPER_TOLERANCE per channel of the page just left of it; light: white.
    Read from the screen, a strip of 8 px across the figure's left edge, the figure scrolled
    to 100 px below the window's top (a full-page capture lays the whole page out twice)."""
    from PIL import Image

    await page.wait_for_function("() => Array.from(document.images).every(i => i.complete)")
    found = []
    for box in sorted(await page.evaluate(IMAGES_JS), key=lambda box: box["top"]):
        y = await page.evaluate(SCROLL_JS, max(0, box["top"] - 100))
        x = max(0, box["left"] - 4)
        clip = {"x": x, "y": box["top"] + 3 - y, "width": box["left"] + 4 - x, "height": 1}
        png = await page.screenshot(clip=clip, animations="disabled")
        strip = Image.open(io.BytesIO(png)).convert("RGB")
        found.append((box["src"], strip.getpixel((strip.width - 1, 0)), strip.getpixel((0, 0))))
    assert found, f"{visit.where}: no figure found"
    for src, paper, beside in found:
        where = f"{visit.where}, {src}: paper {paper}, page {beside}"
        if visit.view.theme == "light":
            assert min(paper) >= 250, where
        else:
            assert max(paper) <= 60, where  # dark paper, not a white rectangle
            apart = max(abs(a - b) for a, b in zip(paper, beside, strict=True))
            assert apart <= DARK_PAPER_TOLERANCE, where
    await page.evaluate(SCROLL_JS, 0)


# Checks of what a page says: once, in CONTENT_VIEW.
async def images_not_loaded(page) -> list[str]:
    """The src of every <img> on the page that has not loaded (empty when all have)."""
    return await page.evaluate(
        "() => Array.from(document.images)"
        ".filter(img => !(img.complete && img.naturalWidth > 0)).map(img => img.src)")  # fmt: skip


@functools.cache
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


@page_check(GALLERY, views=(CONTENT_VIEW,))
async def gallery_lists_every_lecture_with_its_own_figure(page, visit: Visit) -> None:
    """Every lecture, in order, each card numbered "Lecture NN" with its one-line question
    (that each card's link has a name is axe-core's link-name rule), its thumbnail made
    from its own first figure: not the "no image" picture, no byte-identical twins."""
    assert LECTURES, "no lectures found in lectures/"
    hrefs = await page.eval_on_selector_all(
        ".sphx-glr-thumbcontainer a.reference.internal",
        "links => links.map(a => a.getAttribute('href'))",
    )
    assert [Path(urlsplit(h).path).stem for h in hrefs] == [lec.stem for lec in LECTURES]
    assert not await images_not_loaded(page)
    numbers = await page.locator(".sphx-glr-thumbcontainer .rl-card-number").all_inner_texts()
    assert numbers == [f"Lecture {lecture.stem[:2]}" for lecture in LECTURES]
    questions = await page.locator(".sphx-glr-thumbcontainer .rl-card-question").all_inner_texts()
    assert len(questions) == len(LECTURES) and all(q.strip() for q in questions)
    pictures: dict[bytes, str] = {}
    for lecture in LECTURES:
        card = f".sphx-glr-thumbcontainer:has(a[href$='{lecture.stem}.html']) img"
        src = await page.locator(card).first.get_attribute("src")
        assert src, f"{lecture.name}: no thumbnail"
        data = (SITE / "auto_lectures" / src).resolve().read_bytes()
        assert data != default_thumbnail(), (
            f"{lecture.name}: the gallery shows the default thumbnail (the lecture has no figure)"
        )
        assert data not in pictures, f"{src} is the same picture as {pictures.get(data)}"
        pictures[data] = src


#: Visible code lines of a lecture page: its code cells (sphinx-gallery's Python blocks),
#: non-blank lines only. Code blocks in the prose (shell commands) are not cells.
CODE_LINES_JS = """() => Array.from(document.querySelectorAll(
    "article div[class*='highlight-Python'] pre"))
  .filter(pre => !pre.closest(".sphx-glr-script-out"))
  .map(pre => pre.innerText.split("\\n").filter(line => line.trim() !== "").length)"""


@page_check(tuple(LECTURE_PAGES), views=(CONTENT_VIEW,))
async def lecture_reads_as_a_course(page, visit: Visit) -> None:
    """Captured output, no traceback, images loaded; at most CELL_LINE_LIMIT visible lines
    per code cell and PAGE_LINE_LIMIT per page; tables as HTML tables, observations as
    prose, and a figure, every one with a caption, when the lecture draws."""
    name = LECTURE_PAGES[visit.path].name
    outputs = page.locator("div.sphx-glr-script-out, pre.sphx-glr-script-out, div.rendered_html")
    assert any(t.strip() for t in await outputs.all_inner_texts()), f"{name}: no output"
    assert not await images_not_loaded(page), f"{name}: images that did not load"
    text = await page.locator("article").inner_text()
    assert "Traceback (most recent call last)" not in text, f"{name}: an error was shown"
    cells = await page.evaluate(CODE_LINES_JS)
    assert cells, f"{name}: no code cell on its page"
    long_cells = [(i, n) for i, n in enumerate(cells, 1) if n > CELL_LINE_LIMIT]
    assert not long_cells, f"{name}: cells over {CELL_LINE_LIMIT} lines (cell, lines): {long_cells}"
    assert sum(cells) <= PAGE_LINE_LIMIT, f"{name}: {sum(cells)} code lines, > {PAGE_LINE_LIMIT}"
    assert await page.locator("article table.rl-table").count() >= 1, f"{name}: no HTML table"
    assert await page.locator("article div.rl-observations li").count() >= 1, (
        f"{name}: no observations in prose (div.rl-observations)")  # fmt: skip
    in_pre = [
        text
        for text in await page.locator("article pre").all_inner_texts()
        if OBSERVATION_TITLE.lower() in text.lower()]  # fmt: skip
    assert not in_pre, f"{name}: observations printed as monospace output: {in_pre[0][:120]!r}"
    figures = await page.locator("article img.sphx-glr-single-img").count()
    if "--outdir" in docs_hooks.lecture_argv(LECTURE_PAGES[visit.path], Path(), Path()):  # it draws
        assert figures >= 1, f"{name}: no figure"
    captions = await page.locator("article figure.rl-figure figcaption").all_inner_texts()
    assert any(c.strip() for c in captions), f"{name}: no figure with a caption"
    uncaptioned = figures - await page.locator("article figure.rl-figure img").count()
    assert uncaptioned == 0, f"{name}: {uncaptioned} figure(s) without a caption"


@page_check(("hardware.html", "exercises.html"), views=(CONTENT_VIEW,))
async def math_is_rendered_offline(page, visit: Visit) -> None:
    await page.wait_for_selector("mjx-container", state="attached")  # may sit in a closed reveal
    assert await page.locator("mjx-container").count() >= 1
    text = await page.locator("article").inner_text()
    assert "\\(" not in text and "\\[" not in text, "raw TeX left on the page"


@page_check("exercises.html", views=(CONTENT_VIEW,))
async def exercise_origins_link_to_the_sources(page, visit: Visit) -> None:
    hrefs = await page.eval_on_selector_all(
        "p.exercise-origin a", "links => links.map(a => a.getAttribute('href'))")  # fmt: skip
    assert any(h.endswith("#sources-article-09") for h in hrefs), hrefs
    assert any(h.endswith("#sources-script") for h in hrefs), hrefs


@page_check("overview.html", views=(CONTENT_VIEW,))
async def overview_has_the_anchors_exercises_link_to(page, visit: Visit) -> None:
    for anchor in ("sources", "sources-article", "sources-article-09", "sources-book", "notation"):
        assert await page.locator(f"[id='{anchor}']").count() == 1, f"overview: no #{anchor}"


@page_check("api/shell.html", views=(CONTENT_VIEW,))
async def api_pages_show_flags_as_typed(page, visit: Visit) -> None:
    text = await page.locator("article").inner_text()  # the shell's docstrings name --png
    assert "--png" in text and "\u2013png" not in text, "a flag was turned into a dash"


@page_check("api/present.html", views=(CONTENT_VIEW,))
async def api_pages_show_code_as_typed_without_alias_noise(page, visit: Visit) -> None:
    text = await page.locator("article").inner_text()
    assert 'unit="FLOP"' in text, "code in a docstring got typographic quotes"
    assert "Alias for field number" not in text and "PosixPath(" not in text


@page_check("concepts/intensity-and-ridge.html", views=(CONTENT_VIEW,))
async def concept_roofline_figure_is_drawn_and_captioned(page, visit: Visit) -> None:
    figure = page.locator("figure.rl-figure").first
    assert await figure.locator("img").count() == 1 and not await images_not_loaded(page)
    assert len((await figure.locator("figcaption").inner_text()).split()) >= 10
    # A tap opens the full-size image.
    href = await figure.locator("a.image-reference").get_attribute("href")
    assert href and href.endswith(".png")


# A check that clicks: registered after every check that reads the page as it loaded.
@page_check("exercises.html", views=(CONTENT_VIEW,))
async def exercise_answer_opens_on_click(page, visit: Visit) -> None:
    reveals = page.locator("details.exercise-answer")
    assert await reveals.count() >= 9
    first = reveals.first
    body = first.locator(".exercise-answer-body")
    assert not await body.is_visible(), "the answer is visible before the click"
    await first.locator("summary").click()
    await body.wait_for(state="visible")
    assert await body.is_visible() and await first.get_attribute("open") is not None
    assert re.search(r"\d", await body.inner_text()), "the revealed answer has no numbers"


# Long tables on a phone (issue 34): last, since these click, resize and open the page.
PHONE_VIEW = "390-light"
#: The longest a table of cards may be on a phone, in window heights (scroll-boxes.js folds
#: a table taller than 1.25 of them down to its first three and last two rows).
MAX_TABLE_SCREENS = 1.5
#: A lecture page on a phone may be this many times its height on a laptop (lecture 09
#: was 2.0 before its 65-row sweep folded).
MAX_PHONE_OVER_LAPTOP = 1.6
LONG_TABLE = "auto_lectures/09_hierarchical_roofline.html"  # its 65-row sweep
REFERENCE_PAGES = ("concepts/operator-ledgers.html", "hardware.html", "exercises.html")
#: LONG_TABLE's page height as it loaded, by view name (filled by the pass).
HEIGHTS: dict[str, float] = {}

#: Each table's rows: how many, which are shown, the labels of each row's cells, its height.
TABLES_JS = """() => Array.from(document.querySelectorAll("article table")).map(t => {
  const rows = Array.from(t.querySelectorAll("tbody > tr:not(.rl-fold)"));
  return {caption: ((t.querySelector("caption") || {}).textContent || "").trim().slice(0, 50),
    cards: t.classList.contains("rl-cards"), height: t.getBoundingClientRect().height,
    rows: rows.length, shown: rows.map((r, i) => r.offsetParent !== null ? i : -1)
      .filter(i => i >= 0),
    named: rows.map((r, i) => r.classList.contains("rl-keep") ? i : -1).filter(i => i >= 0),
    labels: rows.map(r => Array.from(r.cells, c => c.dataset.label || "")
      .filter(Boolean)),
    button: (t.querySelector("button.rl-fold-button") || {}).textContent || null,
    hidden: Math.max(0, Math.round(t.scrollWidth - (t.closest(".rl-table-scroll, .table-wrapper")
      || t.parentElement).clientWidth))};
})"""
NEXT_FRAME_JS = "() => new Promise(r => requestAnimationFrame(() => setTimeout(r)))"


def label_twins(tables: list[dict]) -> list[str]:
    """Each card (row) that labels two of its values alike: its table and the label."""
    return [
        f"{table['caption']!r} repeats {sorted({x for x in labels if labels.count(x) > 1})}"
        for table in tables
        for labels in table["labels"]
        if len(set(labels)) < len(labels)]  # fmt: skip


@page_check(LONG_TABLE, views=(PHONE_VIEW, CONTENT_VIEW))
async def long_table_page_height(page, visit: Visit) -> None:
    HEIGHTS[visit.view.name] = await page.evaluate("() => document.documentElement.scrollHeight")


@page_check((LONG_TABLE, *REFERENCE_PAGES), views=(PHONE_VIEW,))
async def no_card_labels_two_values_alike(page, visit: Visit) -> None:
    twins = label_twins(await page.evaluate(TABLES_JS))
    assert not twins, f"{visit.where}: {twins}"


@page_check(LONG_TABLE, views=(PHONE_VIEW,))
async def a_long_table_is_folded(page, visit: Visit) -> None:
    """Lecture 09's sweep at 390 px is folded (which rows it shows, and the button: the
    page of test_fold_named_rows.py); every table within one and a half screens."""
    tables = await page.evaluate(TABLES_JS)
    (sweep,) = [t for t in tables if t["rows"] > 20]
    assert sweep["cards"] and sweep["button"] and len(sweep["shown"]) < sweep["rows"]
    assert not set(sweep["named"]) - set(sweep["shown"])  # the rows its section names
    for table in tables:
        assert table["height"] <= MAX_TABLE_SCREENS * HEIGHT, table["caption"]


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


@page_check(LONG_TABLE, views=(PHONE_VIEW,))
async def a_repeated_header_reads_with_the_one_before(page, visit: Visit) -> None:
    """A repeated header labels its card value with the header before it: 'ratio (at spec)',
    'ratio (at achievable)'."""
    await page.evaluate(REPEATED_JS)
    width = visit.view.width
    await page.set_viewport_size({"width": width - 1, "height": HEIGHT})
    try:
        await page.evaluate(NEXT_FRAME_JS)
        tables = await page.evaluate(TABLES_JS)
    finally:
        await page.set_viewport_size({"width": width, "height": HEIGHT})
    assert not label_twins(tables), label_twins(tables)
    assert tables[-1]["cards"]
    labels = tables[-1]["labels"][0][3:]
    assert labels == ["ratio (at spec)", "at achievable", "ratio (at achievable)"], labels


@page_check(REFERENCE_PAGES, views=(PHONE_VIEW,))
async def reference_tables_show_every_column(page, visit: Visit) -> None:
    """Concept, hardware and exercise-answer tables (answers opened) at 390 px: none hides a
    column beyond its box (the operator ledger hid 417 px, its bound and time)."""
    await page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
    await page.evaluate(NEXT_FRAME_JS)
    tables = await page.evaluate(TABLES_JS)
    assert tables, f"{visit.where}: no table"
    wide = [(t["caption"], t["hidden"]) for t in tables if t["hidden"] > 1]
    assert not wide, f"{visit.where}: columns hidden beyond the box (px): {wide}"


#: The filter the redrawn chart's box gets (it is drawn only when a panel runs: a box with
#: the panel's class stands in for it).
CHART_FILTER_JS = """() => { const box = document.createElement("div");
  box.className = "rl-runner-chart-area"; document.querySelector("article").append(box);
  return getComputedStyle(box).filter; }"""


@page_check(GALLERY)
async def the_redrawn_chart_is_drawn_dark_in_the_dark(page, visit: Visit) -> None:
    drawn = await page.evaluate(CHART_FILTER_JS)
    assert (drawn == "none") == (visit.view.theme == "light"), f"{visit.where}: filter {drawn}"


def test_a_long_table_keeps_the_phone_page_short(site_pass: dict) -> None:
    """With lecture 09's sweep folded, its page at 390 px is within MAX_PHONE_OVER_LAPTOP of
    its height at 1280 px (both measured in the pass, as the pages loaded)."""
    if LONG_TABLE not in PAGES:
        pytest.skip(f"{LONG_TABLE} is not built")
    phone, laptop = HEIGHTS[PHONE_VIEW], HEIGHTS[CONTENT_VIEW]
    assert phone <= MAX_PHONE_OVER_LAPTOP * laptop, (phone, laptop)


def test_no_build_machine_path_in_the_site() -> None:
    """No page shows where the site was built (outputs, API defaults, tracebacks)."""
    built(SITE)
    found = [
        path
        for path in PAGES
        if str(REPO) in (SITE / path).read_text(encoding="utf-8", errors="replace")]  # fmt: skip
    assert not found, f"pages that show the build folder {REPO}: {found}"


def test_api_pages_show_values_that_read() -> None:
    """A data entry shows its value up to 400 characters (five lines at 1280 px), never a
    table of records (the 61 serving requests were 100,000 characters of one page)."""
    built(SITE / "api" / "tables.html")
    shown = {}
    for page in (SITE / "api").glob("*.html"):
        dl = r'<dl class="py (?:data|attribute)">\s*<dt[^>]* id="([^"]+)">(.*?)</dt>'
        for name, sig in re.findall(dl, page.read_text(encoding="utf-8"), re.S):
            text = " ".join(html.unescape(re.sub(r"<[^>]+>", "", sig)).split()).rstrip("¶")
            shown[name.rsplit(".", 1)[1]] = text.partition(" = ")[2]
    assert shown["DEEPSEEK_CACHE_HIT_SHARE"] == "0.563" and shown["SERVING_REQUESTS"] == ""
    assert not {name: len(value) for name, value in shown.items() if len(value) > 400}


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
            *(str(critical_batch(989e12 / bw, 2, d=2048)) for bw in (3.35e12, 4.8e12)),
            *(f"{16e9 / bw * 1e3:.2f} ms" for bw in (3.35e12, 4.8e12)),
            f"x{4.8 / 3.35:.2f} faster",
        ],
        # fp8 on the H100, N = 8,192, d_h = 128: B_r = 304, B_c = 128 (T_r = 27 reaches
        # 1979 / 3.35 = 590.7); U = d B_r + 2 d B_c + 4 B_r B_c + 4 d B_r + 8 B_r at 1 byte;
        # the verdict's ratio against 228 KiB of shared memory
        "tiled-compute-bound": [
            f"{_footprint(304, 128, 128, 1) / 1024:.0f} KiB",
            f"x{_footprint(304, 128, 128, 1) / (228 * 1024):.2f} as much as",
        ],
        # one W[4096, 4096] per example in bf16: I = KN / (K + KN + N) whatever B is, and the
        # verdict that says so
        "per-example-matrices": [
            f"{4096**2 / (2 * 4096 + 4096**2):.4f}",
            "memory-bound at any batch",
        ],
        # DeepSeek-V3's x1.8 with one MTP module at c = 1/61, v = 1: a = 1.8 (1 + c) - 1;
        # the verify pass at a = 85%; two modules at that a
        "mtp-acceptance": [
            f"{1.8 * (1 + 1 / 61) - 1:.1%}",
            f"{1.85 / 1.8 - 1 / 61:.3f} decode steps",
            f"x{(1 + _a + _a * _a) / (1 + 2 / 61):.2f}",
        ],
        # 32,768 + 1,024 tokens at DeepSeek's 73.7k and 14.8k tokens/s a node of 8, $3/GPU-h
        "fleet-request-mix": [
            f"{(32768 / 73.7e3) / (1024 / 14.8e3):.2f} prefill nodes",
            f"${(32768 / 73.7e3 + 1024 / 14.8e3) * 8 * 3 / 3.6:.2f}",
            # with its verb: lecture 14 prices batch 51 at $0.101 too, another quantity
            f"cost ${(32768 / 73.7e3 + 1024 / 14.8e3) * 8 * 3 / 3600 / 33792 * 1e6:.3f}",
        ]}  # fmt: skip


_a = 1.8 * (1 + 1 / 61) - 1  # the acceptance DeepSeek's x1.8 implies with a costed draft


def _footprint(br: int, bc: int, d: int, b: float) -> float:
    """FlashAttention-2's on-chip bytes by hand: Q, K, V blocks, fp32 S, accumulator, stats."""
    return b * d * br + 2 * b * d * bc + 4 * br * bc + 4 * d * br + 8 * br


def page_text(path: str) -> str:
    """The visible words of a built page: tags dropped, whitespace collapsed."""
    html = (SITE / path).read_text(encoding="utf-8")
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_no_lecture_or_concept_page_answers_an_exercise() -> None:
    """No lecture or concept page prints an exercise's answer values, which the
    exercises page itself does print (so the values are written as the answer writes them)."""
    built(SITE / "exercises.html")
    answers_page = page_text("exercises.html")
    from common.shell.interface import declared

    # a measuring lecture (one that declares a budget) prints this machine's numbers,
    # which may meet an answer's digits by chance: only computed pages are scanned
    measured = {lecture_page(p) for p in LECTURES if declared(p).get("budget")}
    pages = [
        p for p in PAGES if p.startswith(("auto_lectures/", "concepts/")) and p not in measured
    ]
    assert len(pages) >= 20, pages
    found = []
    for key, values in exercise_answers().items():
        for value in values:
            pattern = re.compile(rf"(?<![\d.,]){re.escape(value)}(?![\d])")
            assert pattern.search(answers_page), f"{key}: {value!r} is not in its own answer"
            found += [f"{key}: {value!r} on {p}" for p in pages if pattern.search(page_text(p))]
    assert not found, "exercise answers printed elsewhere:\n" + "\n".join(found)
