"""Measure the Run-it-here panel in headless Chromium: ready and run times, bytes, site growth.

Targets (issues 13 and 21): ready within 5 s of the first Run, lecture 02 run under 2 s, no
Python downloaded again on a second visit, the site grown by at most 20 MB. Each round on a
fresh profile: cold (run 2 with the H100's bf16 peak doubled), reload, relaunch:

    .venv/bin/python benchmarks/bench_runner.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SITE = REPO / "docs" / "_build" / "html"
PAGE = "auto_lectures/02_roofline_basics.html"
RUNNER = SITE / "_static" / "runner"
READY_TARGET_S = 5.0
RUN_TARGET_S = 2.0
GROWTH_TARGET_MB = 20.0

sys.path[:0] = [str(REPO / "benchmarks"), str(REPO / "tests"), str(REPO / "tests" / "docs")]
from bench_probe import busy_cpu_seconds  # noqa: E402  (the machine's busy CPU seconds)
from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (the browser tests' launch)
from test_runner import Panel  # noqa: E402  (the browser tests' reader)

PANEL_HTML = re.compile(r'<div class="rl-runner" .*?\n</div>', re.DOTALL)


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def panel_html_bytes(site: Path) -> int:
    """Bytes the panels add to the pages themselves (their HTML and the embedded table)."""
    pages = (page.read_text("utf-8") for page in site.rglob("*.html"))
    return sum(len(m.group(0).encode()) for text in pages for m in PANEL_HTML.finditer(text))


SERVED: list[str] = []  # the paths the server answered with 200, in order


class _Counting(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        if str(code) == "200":
            SERVED.append(self.path)


def bytes_since(mark: int) -> int:
    """Bytes the server sent after its first `mark` answers: the sizes of those files."""
    files = (SITE / path.split("?")[0].lstrip("/") for path in SERVED[mark:])
    return sum(file.stat().st_size for file in files if file.is_file())


def press_run(panel: Panel, first: bool = False) -> tuple[float, float]:
    """Press Run and wait for the output: (ready s from the press or 0, run s)."""
    t0 = panel.page.evaluate("() => performance.now()")
    out = panel.run()
    if "Ran in" not in panel.status:
        raise RuntimeError("the run failed: " + out)
    ready = panel.page.evaluate("() => document.documentElement.dataset.rlRunnerReadyMs")
    run = float(panel.root.get_attribute("data-run-ms")) / 1000
    return (float(ready) - t0) / 1000 if first else 0.0, run


def open_panel(context, url: str) -> Panel:
    page = context.pages[0] if context.pages else context.new_page()
    page.goto(url + PAGE, wait_until="load")
    page.wait_for_load_state("networkidle")
    return Panel(page, ".rl-runner")


def one_round(playwright, url: str) -> dict[str, float]:
    busy0, wall0 = busy_cpu_seconds(), time.perf_counter()
    r: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-runner-") as profile:
        size = {"width": 1280, "height": 900}
        look = {"executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS, "viewport": size}
        launch = functools.partial(playwright.chromium.launch_persistent_context, profile, **look)
        with contextlib.closing(launch()) as context:
            panel = open_panel(context, url)
            mark = len(SERVED)
            r["ready"], r["run1"] = press_run(panel, first=True)
            panel.wait_chart(1)
            panel.edit("H100 SXM", "989e12", "1978e12")
            _, r["run2"] = press_run(panel)
            t0 = time.perf_counter()
            panel.wait_chart(2)
            r["chart"] = time.perf_counter() - t0
            if "ridge 590 FLOP/B" not in panel.output:
                raise RuntimeError("the edited run does not show the doubled ridge")
            r["cold_mb"] = bytes_since(mark) / 1e6
            panel.root.locator(".rl-runner-reset").click()
            mark = len(SERVED)
            panel.page.reload(wait_until="load")
            panel = Panel(panel.page, ".rl-runner")
            r["reload_ready"], r["reload_run"] = press_run(panel, first=True)
            r["reload_mb"] = bytes_since(mark) / 1e6
        with contextlib.closing(launch()) as context:
            mark = len(SERVED)
            r["relaunch_ready"], r["relaunch_run"] = press_run(open_panel(context, url), True)
            r["relaunch_mb"] = bytes_since(mark) / 1e6
    busy1, wall = busy_cpu_seconds(), time.perf_counter() - wall0
    r["busy"] = (busy1 - busy0) / wall if busy0 is not None and busy1 is not None else float("nan")
    return r


def main() -> int:
    """Measure `--rounds` first visits; print each round, the medians and the targets."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="first visits to time (default 3)")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if not any(RUNNER.glob("pyodide-*/pyodide.asm.wasm")):
        print(f"bench_runner: no Pyodide runtime under {RUNNER}: run make docs (with npm)")
        return 2
    if not CHROMIUM.is_file():
        print(f"bench_runner: {CHROMIUM} is missing: install Debian's chromium")
        return 2
    from playwright.sync_api import sync_playwright

    handler = functools.partial(_Counting, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    rounds = []
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    columns = {"ready": "ready s", "run1": "run 1 s", "run2": "run 2 s", "chart": "chart s",
               "cold_mb": "cold MB", "reload_ready": "reload ready s", "reload_run": "reload run s",
               "reload_mb": "reload MB", "relaunch_ready": "relaunch ready s",
               "relaunch_mb": "relaunch MB", "busy": "busy cores"}.items()  # fmt: skip
    print("round  " + "  ".join(title for _, title in columns))
    try:
        with sync_playwright() as playwright:
            for i in range(args.rounds):
                r = one_round(playwright, url)
                rounds.append(r)
                cells = "  ".join(f"{r[key]:>{len(title)}.2f}" for key, title in columns)
                print(f"{i + 1:>5}  {cells}")
    finally:
        server.shutdown()
        server.server_close()

    def median(key: str) -> float:
        return statistics.median(r[key] for r in rounds)

    ready = median("ready")
    run = statistics.median(max(r["run1"], r["run2"]) for r in rounds)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end; busy cores: all programs")
    print(f"cold (fresh profile): ready {ready:.2f} s after the first press of Run "
          f"({'ok' if ready <= READY_TARGET_S else 'OVER'} the {READY_TARGET_S:g} s target), "
          f"{median('cold_mb'):.1f} MB downloaded")  # fmt: skip
    print(f"run of lecture 02: median of the slower of two runs {run:.2f} s "
          f"({'ok' if run <= RUN_TARGET_S else 'OVER'} the {RUN_TARGET_S:g} s target); "
          f"redrawn roofline {median('chart'):.2f} s after the output")  # fmt: skip
    print(f"warm, reload: ready {median('reload_ready'):.2f} s, run {median('reload_run'):.2f} s, "
          f"{median('reload_mb'):.2f} MB downloaded")  # fmt: skip
    print(
        f"warm, browser restarted on the same profile: ready {median('relaunch_ready'):.2f} s, "
        f"run {median('relaunch_run'):.2f} s, {median('relaunch_mb'):.2f} MB downloaded"
    )
    runtime = next(RUNNER.glob("pyodide-*"))
    growth = (folder_bytes(RUNNER) + panel_html_bytes(SITE)) / 1e6
    print(f"site growth: {growth:.1f} MB ({runtime.name} {folder_bytes(runtime) / 1e6:.1f} MB, "
          f"editor and chart bundles {folder_bytes(RUNNER / 'vendor') / 1e6:.2f} MB, "
          f"course.zip {(RUNNER / 'course.zip').stat().st_size / 1e6:.2f} MB, panel HTML "
          f"{panel_html_bytes(SITE) / 1e6:.2f} MB; "
          f"{'ok' if growth <= GROWTH_TARGET_MB else 'OVER'} the {GROWTH_TARGET_MB:g} MB target); "
          f"whole site {folder_bytes(SITE) / 1e6:.1f} MB")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
