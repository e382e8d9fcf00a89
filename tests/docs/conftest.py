"""Shared fixtures of the browser tests: headless Chromium and the built site over HTTP.

Debian's Chromium at /usr/bin/chromium, driven by playwright (which installs nothing);
without it the browser tests are skipped. The site is served from ``docs/_build/html``
on 127.0.0.1 by a thread of the test process, and a `Visitor` records every JavaScript
error and every request that leaves 127.0.0.1 on the pages it opens.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "docs" / "_build" / "html"

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
LOCAL_HOSTS = {"127.0.0.1"}
TIMEOUT_MS = 30_000


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def browser():
    """Headless Debian Chromium driven by playwright (skipped when it is not installed)."""
    if not CHROMIUM.is_file():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def base_url(browser) -> Iterator[str]:
    """The built site served over HTTP on 127.0.0.1 from a background thread."""
    if not (SITE / "index.html").is_file():
        pytest.fail(f"the site is not built ({SITE}/index.html is missing): run make docs first")
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
    thread.join()


def _where(msg) -> str:
    """The URL a console message is about (for a failed load: the resource)."""
    location = msg.location or {}
    return str(location.get("url") or "")


class Visitor:
    """Opens pages in one browser context and records errors and off-machine requests."""

    def __init__(self, context, base_url: str) -> None:
        self.context = context
        self.base_url = base_url
        self.external: list[str] = []
        self.errors: list[str] = []
        context.route("**/*", self._route)

    def _route(self, route) -> None:
        url = route.request.url
        if urlsplit(url).hostname not in LOCAL_HOSTS:
            self.external.append(url)
            route.abort()
        else:
            route.continue_()

    def _on_request(self, request) -> None:
        host = urlsplit(request.url).hostname
        if request.url.startswith(("http:", "https:", "ws:", "wss:")) and host not in LOCAL_HOSTS:
            self.external.append(request.url)

    def open(self, path: str):
        """Open a page of the site and wait until it and its resources have loaded."""
        page = self.context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.on("request", self._on_request)
        page.on("pageerror", lambda exc: self.errors.append(f"{path}: page error: {exc}"))
        page.on(
            "console",
            lambda msg: (
                self.errors.append(f"{path}: console error: {msg.text} ({_where(msg)})")
                if msg.type == "error"
                else None
            ),
        )
        response = page.goto(self.base_url + path, wait_until="load")
        assert response is not None and response.ok, f"{path}: HTTP {response and response.status}"
        page.wait_for_load_state("networkidle")
        return page

    def check(self) -> None:
        """No JavaScript error and no request that left 127.0.0.1 on any page opened."""
        assert not self.errors, "JavaScript errors:\n" + "\n".join(self.errors)
        assert not self.external, "requests left 127.0.0.1:\n" + "\n".join(self.external)


@pytest.fixture
def visit(browser, base_url) -> Iterator[Visitor]:
    """A fresh browser context for one test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        yield Visitor(context, base_url)
    finally:
        context.close()
