"""Browser test of the built course site: headless Chromium over a local HTTP server.

Needs ``make docs`` first and Debian's Chromium at /usr/bin/chromium (CI installs it;
without it these tests are skipped). Playwright drives the system browser and
installs nothing. Every visited page must load without a JavaScript error and
without a single request leaving 127.0.0.1: the site must work offline.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "docs" / "_build" / "screenshots"
LECTURES = sorted(REPO.glob("lectures/[0-9][0-9]_*.py"))
TIMEOUT_MS = 30_000

sys.path.insert(0, str(REPO / "docs" / "_ext"))
import docs_hooks  # noqa: E402  (reads which lectures draw figures)

if TYPE_CHECKING:  # the browser, the server and the visit fixture: tests/docs/conftest.py
    from conftest import Visitor

pytestmark = pytest.mark.browser


def lecture_page(lecture: Path) -> str:
    """The gallery page of a lecture, relative to the site root."""
    return f"auto_lectures/{lecture.stem}.html"


def all_images_loaded(page) -> list[str]:
    """The src of every <img> on the page that has not loaded (empty when all have)."""
    return page.evaluate(
        "() => Array.from(document.images)"
        ".filter(img => !(img.complete && img.naturalWidth > 0)).map(img => img.src)"
    )


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
def test_lecture_page_shows_output_and_figures(visit: Visitor, lecture: Path) -> None:
    page = visit.open(lecture_page(lecture))
    outputs = page.locator("div.sphx-glr-script-out, pre.sphx-glr-script-out")
    assert outputs.count() >= 1, f"{lecture.name}: no captured output on its page"
    assert any(text.strip() for text in outputs.all_inner_texts()), f"{lecture.name}: empty output"
    assert not all_images_loaded(page), f"{lecture.name}: images that did not load"
    flags = docs_hooks.lecture_flags(lecture.read_text(encoding="utf-8"))
    if flags.outdir:  # a lecture that accepts --outdir draws: its figures must be embedded
        assert page.locator("img.sphx-glr-single-img").count() >= 1, f"{lecture.name}: no figure"
    text = page.locator("article").inner_text()
    assert "Traceback (most recent call last)" not in text, f"{lecture.name}: an error was shown"
    # Long printed tables scroll inside their block; the page itself never overflows.
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{lecture.name}: page is {overflow}px wider than the window"
    visit.check()


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


def test_hardware_table_lists_every_chip(visit: Visitor) -> None:
    from common.hw_specs import CHIPS

    page = visit.open("hardware.html")
    captions = page.locator("table.course-table caption").all_inner_texts()
    for chip in CHIPS.values():
        assert any(chip.name in caption for caption in captions), f"{chip.name} missing"
    visit.check()


def test_search_finds_ridge_point(visit: Visitor) -> None:
    page = visit.open("search.html?q=ridge+point")
    page.wait_for_selector("#search-results ul.search li", timeout=TIMEOUT_MS)
    assert page.locator("#search-results ul.search li").count() >= 1
    visit.check()


def test_screenshot_of_a_lecture(visit: Visitor) -> None:
    """Full-page screenshot of a lecture page, kept for a human to look at."""
    lecture = next((p for p in LECTURES if p.name.startswith("02_")), LECTURES[0])
    page = visit.open(lecture_page(lecture))
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    target = SCREENSHOTS / f"{lecture.stem}.png"
    page.screenshot(path=str(target), full_page=True)
    assert target.stat().st_size > 0
    # On a phone-sized window the output blocks scroll inside themselves, too.
    page.set_viewport_size({"width": 400, "height": 800})
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{lecture.name}: page is {overflow}px wider than a 400px window"
    visit.check()
