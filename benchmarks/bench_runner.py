"""Measure the Run-it-here panel in headless Chromium: ready time, run time, site growth.

Targets (issue 13): the panel is ready within 5 s of opening lecture 02's page, a run
of lecture 02 takes under 2 s, and the panels grow the site by at most 20 MB.

Needs the built site (``make docs``, with npm) and Debian's Chromium. Each round opens
lecture 02's page in a fresh browser context (nothing cached, a first visit) and
reads the times the page itself records with ``performance.now()``:

- ready: from the start of navigation to the panel's "Ready" (Pyodide started, the
  course unpacked), with the CPU seconds the browser spent to get there;
- run 1: from pressing Run to the output on the page, repository table;
- run 2: the same after editing H100 SXM's bf16 peak to 1978e12;
- reopen: ready again for a second visit in the same context (the browser's caches).

The machine is shared, so each round also reports how many CPU cores were busy
(all programs, this one included) while it ran. Run from anywhere:

    .venv/bin/python benchmarks/bench_runner.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import re
import statistics
import sys
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

sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "tests" / "docs"))
from bench_probe import busy_cpu_seconds  # noqa: E402  (the machine's busy CPU seconds)
from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (the browser tests' launch)

PANEL_HTML = re.compile(r'<div class="rl-runner" .*?\n</div>', re.DOTALL)


def descendants_cpu_seconds(root: int | None = None) -> float:
    """CPU seconds used so far by every live process under `root` (this one): the browser.

    Read from Linux /proc (utime + stime of each descendant), so it counts the work
    the page made the browser do however busy the shared machine is; 0.0 elsewhere.
    """
    root = os.getpid() if root is None else root
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="ascii", errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (name)": state ppid ...
        parents[int(entry.name)] = int(fields[1])
        ticks[int(entry.name)] = int(fields[11]) + int(fields[12])
    inside = {root}
    changed = True
    while changed:
        changed = False
        for pid, parent in parents.items():
            if parent in inside and pid not in inside:
                inside.add(pid)
                changed = True
    inside.discard(root)
    return sum(ticks.get(pid, 0) for pid in inside) / os.sysconf("SC_CLK_TCK")


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def panel_html_bytes(site: Path) -> int:
    """Bytes the panels add to the pages themselves (their HTML and the embedded table)."""
    total = 0
    for page in site.rglob("*.html"):
        total += sum(len(m.group(0).encode()) for m in PANEL_HTML.finditer(page.read_text("utf-8")))
    return total


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def wait_ready(page) -> float:
    page.wait_for_function(
        "() => document.documentElement.dataset.rlRunnerReadyMs", timeout=120_000
    )
    return float(page.evaluate("() => document.documentElement.dataset.rlRunnerReadyMs")) / 1000


def press_run(page) -> float:
    panel = page.locator(".rl-runner").first
    runs = int(panel.get_attribute("data-runs") or 0)
    panel.locator(".rl-runner-run").click()
    page.wait_for_function(
        f"(el) => Number(el.dataset.runs || 0) > {runs}",
        arg=panel.element_handle(),
        timeout=120_000,
    )
    if "Ran in" not in panel.locator(".rl-runner-status").inner_text():
        raise RuntimeError("the run failed: " + panel.locator(".rl-runner-output").inner_text())
    return float(panel.get_attribute("data-run-ms")) / 1000


def edit_h100(page) -> None:
    area = page.locator(".rl-runner textarea").first
    text = area.input_value()
    at = text.index("989e12", text.index('name="H100 SXM"'))
    area.fill(text[:at] + "1978e12" + text[at + len("989e12") :])


def one_round(browser, url: str) -> dict[str, float]:
    busy0, wall0 = busy_cpu_seconds(), time.perf_counter()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        cpu0 = descendants_cpu_seconds()
        page.goto(url + PAGE)
        ready = wait_ready(page)
        ready_cpu = descendants_cpu_seconds() - cpu0
        run1 = press_run(page)
        edit_h100(page)
        run2 = press_run(page)
        if "ridge 590 FLOP/B" not in page.locator(".rl-runner-output").first.inner_text():
            raise RuntimeError("the edited run does not show the doubled ridge")
        again = context.new_page()
        again.goto(url + PAGE)
        reopen = wait_ready(again)
    finally:
        context.close()
    busy1, wall = busy_cpu_seconds(), time.perf_counter() - wall0
    busy = (busy1 - busy0) / wall if busy0 is not None and busy1 is not None else float("nan")
    return {
        "ready": ready,
        "ready_cpu": ready_cpu,
        "run1": run1,
        "run2": run2,
        "reopen": reopen,
        "busy": busy,
    }


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

    server, url = serve(SITE)
    rounds = []
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    print(
        f"{'round':>5}  {'ready s':>7}  {'browser CPU s':>13}  {'run 1 s':>7}  {'run 2 s':>7}  "
        f"{'reopen s':>8}  busy cores"
    )
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            for i in range(args.rounds):
                r = one_round(browser, url)
                rounds.append(r)
                print(
                    f"{i + 1:>5}  {r['ready']:>7.2f}  {r['ready_cpu']:>13.2f}  {r['run1']:>7.2f}  "
                    f"{r['run2']:>7.2f}  {r['reopen']:>8.2f}  {r['busy']:>10.2f}"
                )
            browser.close()
    finally:
        server.shutdown()
        server.server_close()

    ready = statistics.median(r["ready"] for r in rounds)
    run = statistics.median(max(r["run1"], r["run2"]) for r in rounds)
    runtime = next(RUNNER.glob("pyodide-*"))
    growth = (folder_bytes(RUNNER) + panel_html_bytes(SITE)) / 1e6
    print()
    cpu = statistics.median(r["ready_cpu"] for r in rounds)
    print(f"load average {os.getloadavg()[0]:.1f} at the end; busy cores: all programs")
    print(
        f"browser CPU until ready: median {cpu:.2f} s over all the browser's processes "
        "and threads (this page's work, whatever else the machine runs)"
    )
    print(
        f"ready: median {ready:.2f} s ({'ok' if ready <= READY_TARGET_S else 'OVER'} the "
        f"{READY_TARGET_S:g} s target)"
    )
    print(
        f"run of lecture 02: median of the slower run {run:.2f} s "
        f"({'ok' if run <= RUN_TARGET_S else 'OVER'} the {RUN_TARGET_S:g} s target)"
    )
    print(
        f"site growth: {growth:.1f} MB ({runtime.name} {folder_bytes(runtime) / 1e6:.1f} MB, "
        f"course.zip {(RUNNER / 'course.zip').stat().st_size / 1e6:.2f} MB, panel HTML "
        f"{panel_html_bytes(SITE) / 1e6:.2f} MB; "
        f"{'ok' if growth <= GROWTH_TARGET_MB else 'OVER'} the {GROWTH_TARGET_MB:g} MB target); "
        f"whole site {folder_bytes(SITE) / 1e6:.1f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
