"""One pass over the built site: each page opened once per view (a width and a theme), and
every check registered for that page run on that one load.

A check is an async function ``check(page, visit)`` that asserts; ``@page_check`` registers
it with the pages it applies to and the views it runs in (every view, or only
``CONTENT_VIEW`` for what does not depend on width or theme); a page of the Chinese
edition in the same four views as its English page. Checks run in the order they
are registered, so one that clicks or scrolls the page comes last. The views run side by
side, each in a browser context of its own (one tab that goes from page to page), so both
cores of a small machine are busy. The result is, for each page and view, the list of what
failed (empty when all passed): a check's assertion, a JavaScript error, a request that
left 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from conftest import LOCAL_HOSTS, REPO, TIMEOUT_MS, launch_chromium

SITE = REPO / "docs" / "_build" / "html"
SCREENSHOTS = REPO / "docs" / "_build" / "screenshots"
#: ROOFLINE_SCREENSHOTS=1 saves every page's full-size screenshot in every view under
#: docs/_build/screenshots/ for a human to look at; without it only a failing page's is saved.
SCREENSHOTS_ENV = "ROOFLINE_SCREENSHOTS"

WIDTHS = (390, 1280)  # a phone and a laptop, in CSS pixels
HEIGHT = 844  # the window's height, in CSS pixels
#: Two setups of each page: the light theme with this machine's fonts, and the dark theme
#: with DejaVu Sans forced as the text font (the widest common fallback, what a machine
#: without Helvetica, Arial or Liberation shows), so a layout that holds only with narrow
#: fonts fails here whatever this machine has installed.
SETUPS = {"light": None, "dark-dejavu": '"DejaVu Sans", sans-serif'}
FONT_JS = """font => document.addEventListener("DOMContentLoaded", () => {
  const style = document.createElement("style");
  style.textContent = `body { --font-stack: ${font} !important;
    --font-stack--headings: ${font} !important; }`;
  document.head.append(style);
})"""


@dataclass(frozen=True)
class View:
    width: int
    setup: str

    @property
    def name(self) -> str:
        return f"{self.width}-{self.setup}"

    @property
    def theme(self) -> str:
        return "dark" if self.setup.startswith("dark") else "light"

    @property
    def chosen_dark(self) -> bool:
        """Dark chosen with furo's theme button (kept in localStorage) on a light system,
        at the laptop width; at the phone's, dark is furo's default "auto" on a dark system.
        Both ways to the dark theme are met, each at one width."""
        return self.theme == "dark" and self.width >= max(WIDTHS)


VIEWS = [View(width, setup) for width in WIDTHS for setup in SETUPS]
#: The view that runs the checks of what a page says (not how it is laid out).
CONTENT_VIEW = "1280-light"


@dataclass
class Visit:
    """What a check knows besides the page: where it is, and in which view."""

    path: str
    view: View

    @property
    def where(self) -> str:
        return f"{self.path} at {self.view.width}px ({self.view.setup})"


@dataclass(frozen=True)
class Check:
    name: str
    run: Callable[..., Awaitable[None]]
    pages: Callable[[str], bool]
    views: frozenset[str] | None  # None: every view


CHECKS: list[Check] = []


def page_check(
    pages: Callable[[str], bool] | str | tuple[str, ...] = lambda path: True,
    views: tuple[str, ...] | None = None,
) -> Callable:
    """Register an async ``check(page, visit)`` for the pages `pages` names (a path, a tuple
    of paths or a predicate) in `views` (names like "390-light"; None: every view)."""
    if isinstance(pages, str):
        pages = (pages,)
    wanted = pages if callable(pages) else (lambda path, named=frozenset(pages): path in named)

    def register(run: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
        CHECKS.append(Check(run.__name__, run, wanted, views and frozenset(views)))
        return run

    return register


async def settle(page) -> None:
    """Wait until fonts are in and MathJax (on pages that load it) has typeset: widths final."""
    await page.evaluate("() => document.fonts.ready.then(() => true)")
    if await page.locator("script[src*='mathjax']").count():
        await page.wait_for_function(
            "() => window.MathJax && MathJax.startup && MathJax.startup.promise")  # fmt: skip
        await page.evaluate("() => MathJax.startup.promise")
    await page.evaluate("() => new Promise(requestAnimationFrame)")


async def _one_view(browser, base_url: str, view: View, paths: list[str], results: dict) -> None:
    scheme = "light" if view.chosen_dark else view.theme
    context = await browser.new_context(
        viewport={"width": view.width, "height": HEIGHT}, color_scheme=scheme)  # fmt: skip
    if view.chosen_dark:
        await context.add_init_script(script="localStorage.setItem('theme', 'dark')")
    if SETUPS[view.setup]:
        await context.add_init_script(script=f"({FONT_JS})({SETUPS[view.setup]!r})")
    noted: list[str] = []

    def on_request(request) -> None:
        host = urlsplit(request.url).hostname
        if request.url.startswith(("http:", "https:", "ws:", "wss:")) and host not in LOCAL_HOSTS:
            noted.append(f"request left 127.0.0.1: {request.url}")

    def on_console(msg) -> None:
        if msg.type == "error":
            where = (msg.location or {}).get("url") or ""
            noted.append(f"console error: {msg.text} ({where})")

    context.on("request", on_request)
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.on("pageerror", lambda exc: noted.append(f"page error: {exc}"))
    page.on("console", on_console)
    save_all = os.environ.get(SCREENSHOTS_ENV) == "1"
    for path in paths:
        noted.clear()
        problems: list[str] = []
        visit = Visit(path, view)
        try:
            response = await page.goto(base_url + path, wait_until="load")
            assert response is not None and response.ok, f"HTTP {response and response.status}"
            await settle(page)
            for check in CHECKS:
                if not check.pages(path) or (check.views and view.name not in check.views):
                    continue
                try:
                    await check.run(page, visit)
                except AssertionError as exc:
                    problems.append(f"{check.name}: {exc}")
                except Exception as exc:  # a check that could not run is a failure too
                    problems.append(f"{check.name}: {type(exc).__name__}: {exc}")
        except Exception as exc:
            problems.append(f"could not open the page: {type(exc).__name__}: {exc}")
        problems += noted
        if problems or save_all:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            # <page>-<width>-<setup>.png, e.g. concepts_headroom-390-light.png
            name = f"{path.removesuffix('.html').replace('/', '_')}-{view.name}.png"
            target = SCREENSHOTS / name
            try:
                await page.screenshot(path=str(target), full_page=True)
            except Exception as exc:
                problems.append(f"no screenshot: {exc}")
        results[(path, view.name)] = problems
    await context.close()


async def _run(base_url: str, paths: list[str], results: dict) -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await launch_chromium(playwright.chromium)
        try:
            await asyncio.gather(*(_one_view(browser, base_url, v, paths, results) for v in VIEWS))
        finally:
            await browser.close()


def run_pass(base_url: str, paths: list[str]) -> dict[tuple[str, str], list[str]]:
    """(page, view name) -> what failed there, for every page in each of its views.

    Runs in a thread of its own (its own event loop and browser), so it leaves the
    synchronous playwright of the other browser tests alone.
    """
    results: dict[tuple[str, str], list[str]] = {}
    failure: list[BaseException] = []

    def main() -> None:
        try:
            asyncio.run(_run(base_url, paths, results))
        except BaseException as exc:  # reported by the caller
            failure.append(exc)

    thread = threading.Thread(target=main, name="site-pass")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return results
