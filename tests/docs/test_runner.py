"""Browser test of the Run-it-here panels: edit the hardware table, press Run, read the output.

Needs ``make docs`` (with npm, which installs the Pyodide runtime) and Debian's Chromium;
the fixtures (browser, server, `visit`) are in ``tests/conftest.py``. Expected
numbers are derived here from the datasheet figures, never read from the site.
Throughout: no request leaves 127.0.0.1 and no console error appears.
"""

from __future__ import annotations

import re
import shutil
from typing import TYPE_CHECKING

import pytest
from conftest import H100_BANDWIDTH, H100_BF16_PEAK, REPO, SERVED, SITE, conf_value, critical_batch

SCREENSHOTS = REPO / "docs" / "_build" / "screenshots"
LECTURE_02 = "auto_lectures/02_roofline_basics.html"
READY_MS = 120_000  # generous: the 5 s target is benchmarks/bench_runner.py's job

if TYPE_CHECKING:
    from conftest import Visitor

pytestmark = pytest.mark.browser

# NVIDIA H200 Tensor Core GPU datasheet: 989 TFLOPS dense BF16 (1,979 with sparsity).
H200_BF16_PEAK = 989e12
# Google Cloud TPU v5e documentation: 394 TOPS int8, 819 GB/s (the table's 8.2e11 B/s).
V5E_INT8_PEAK = 394e12
V5E_BANDWIDTH = 8.2e11


def panel_lectures() -> dict[str, tuple[str, ...]]:
    """The lectures with a panel and the flags each offers (ABOUT["flags"], as conf.py reads)."""
    from common.shell import interface

    about = {s: interface.declared(p) for s, p in interface.lectures(REPO / "lectures").items()}
    return {s: a["flags"] for s, a in about.items() if "flags" in a}


@pytest.fixture(autouse=True)
def runtime_built() -> None:
    """The panels need the runtime the build installs with npm; without npm they are off."""
    folder = next(SITE.glob("_static/runner/pyodide-*/"), None)
    if folder is None:
        if shutil.which("npm") is None:
            pytest.skip("npm is not installed, so the site was built with its panels off")
        pytest.fail("the site has no Pyodide runtime under _static/runner: run make docs")


class Panel:
    """One panel on an open page, driven as a reader would."""

    def __init__(self, page, selector: str) -> None:
        self.page = page
        self.root = page.locator(selector)
        page.wait_for_function("() => document.documentElement.dataset.rlRunnerBuilt")

    @property
    def status(self) -> str:
        return self.root.locator(".rl-runner-status").inner_text()

    @property
    def output(self) -> str:
        return self.root.locator(".rl-runner-output").inner_text()

    def open_table(self) -> None:
        editor = self.root.locator("details.rl-runner-editor")
        if editor.get_attribute("open") is None:
            editor.locator("summary").click()

    def value(self) -> str:
        """The table as the panel's editor holds it."""
        return self.root.evaluate("el => el.rlEditor.value")

    def editor_call(self, script: str):
        """Evaluate `script` with `view`, the panel's CodeMirror EditorView."""
        return self.root.evaluate(f"el => {{ const view = el.rlEditor.view; return {script}; }}")

    def set_table(self, text: str) -> None:
        """Select the whole table in the editor and type `text` over it."""
        self.open_table()
        self.root.locator(".cm-content").click()
        self.page.keyboard.press("ControlOrMeta+a")
        self.page.keyboard.insert_text(text)
        self.page.keyboard.press("Escape")  # close a completion list, if one opened
        assert self.value() == text

    def edit(self, chip_name: str, old: str, new: str) -> None:
        self.open_table()
        text = self.value()
        at = text.index(old, text.index(f'name="{chip_name}"'))
        self.set_table(text[:at] + new + text[at + len(old) :])

    def choose(self, flag: str, value: str) -> None:
        self.root.locator(f"[id$='-{flag.removeprefix('--')}']").select_option(value)

    def top_line(self) -> str:
        """The text of the first line the editor shows."""
        return self.editor_call(
            "view.state.doc.lineAt(view.lineBlockAtHeight(view.scrollDOM.scrollTop + 2).from).text"
        )

    def wait_top(self, text: str) -> None:
        """Wait until the editor's first line shown is `text` (it scrolls after opening)."""
        for _ in range(50):
            if self.top_line() == text:
                return
            self.page.wait_for_timeout(100)
        assert self.top_line() == text

    def start_run(self) -> int:
        runs = int(self.root.get_attribute("data-runs") or 0)
        self.root.locator(".rl-runner-run").click()
        return runs

    def wait_run(self, runs: int) -> str:
        self.page.wait_for_function(
            f"(el) => Number(el.dataset.runs || 0) > {runs}",
            arg=self.root.element_handle(),
            timeout=READY_MS)  # fmt: skip
        return self.output

    def run(self) -> str:
        return self.wait_run(self.start_run())

    def roof_top(self, roof: str) -> float:
        """The highest TFLOP/s of `roof` in the data of the Vega view the panel drew."""
        rows = self.root.evaluate(
            "el => el.querySelector('.rl-runner-chart-area').rlView.data('roofs')")  # fmt: skip
        return max(r["tflops"] for r in rows if r["roof"] == roof)

    def wait_chart(self, charts: int) -> None:
        self.page.wait_for_function(
            f"(el) => Number(el.dataset.charts || 0) >= {charts}",
            arg=self.root.element_handle(),
            timeout=READY_MS)  # fmt: skip


def fetched(since: int = 0, part: str = ".wasm") -> list[str]:
    """Paths containing `part` the test server answered after the first `since` requests."""
    return [p for p in SERVED[since:] if part in p]


def shoot(locator, name: str) -> None:
    """A screenshot of `locator` into docs/_build/screenshots/NAME.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    locator.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def line_of(text: str, needle: str, after: str) -> int:
    """1-based number of the line of `text` holding `needle`, first after `after`."""
    return text[: text.index(needle, text.index(after))].count("\n") + 1


def test_lecture_02_as_a_lab_bench(visit: Visitor) -> None:
    """One page of lecture 02, used as a student would, checked at each step."""
    start = len(SERVED)
    page = visit.open(LECTURE_02)
    panel = Panel(page, ".rl-runner")
    # Only read: nothing of Python is fetched, and the panel says what using it costs.
    for part in (".wasm", "/pyodide-", "course.zip", "runner-worker"):
        assert not fetched(start, part), f"a page only read fetched {fetched(start, part)}"
    assert panel.status == "Python is not loaded yet."
    assert page.evaluate("() => scrollY") == 0, "the editor scrolled the page to its chip"
    # Passing by is not using: Tab through the whole panel, and a swipe that starts on it.
    page.locator("h1").first.click()
    for _ in range(12):
        page.keyboard.press("Tab")
    box = panel.root.bounding_box()
    page.mouse.move(box["x"] + 20, box["y"] + 20)
    page.mouse.down()
    page.mouse.move(box["x"] + 20, box["y"] - 200)
    page.mouse.up()
    page.wait_for_timeout(500)
    assert not fetched(start, "runner-worker"), "tabbing through or a swipe loaded Python"
    assert panel.status == "Python is not loaded yet."
    cost = panel.root.locator(".rl-runner-cost").inner_text()
    assert re.search(r"downloads \d+\.\d MB", cost) and "the first run" in cost
    # The editor: CodeMirror with line numbers, opened at the H100, the chip the page is about.
    assert page.evaluate("() => document.documentElement.dataset.rlRunnerBuilt") == "codemirror"
    assert panel.root.locator(".cm-lineNumbers").is_visible()
    panel.wait_top("H100 = Chip(")
    original = panel.value()

    # Double the H100's bf16 peak: the numbers and the redrawn roofline follow.
    panel.edit("H100 SXM", "989e12", "1978e12")
    assert panel.root.locator(".rl-runner-edited").is_visible()
    doubled = 2 * H100_BF16_PEAK / H100_BANDWIDTH  # 590.4 FLOP/byte
    out = panel.run()
    assert fetched(start), "using the panel fetches the runtime"
    assert f"H100 SXM (ridge {doubled:.0f} FLOP/B)" in out  # its rows: test_runner_unit.py
    assert panel.status.startswith("Ran in")
    panel.wait_chart(1)
    assert panel.roof_top("H100 SXM bf16") == pytest.approx(2 * H100_BF16_PEAK / 1e12)
    shoot(panel.root, "runner_02_edited")
    assert_fits_a_desktop_and_a_phone(page, panel, "02")
    page.evaluate("() => scrollTo(0, 0)")

    panel.root.locator(".rl-runner-reset").click()
    assert not panel.root.locator(".rl-runner-edited").is_visible()
    ridge = H100_BF16_PEAK / H100_BANDWIDTH  # 295.2 FLOP/byte
    out = panel.run()
    assert f"H100 SXM (ridge {ridge:.0f} FLOP/B)" in out
    panel.wait_chart(2)
    assert panel.roof_top("H100 SXM bf16") == pytest.approx(H100_BF16_PEAK / 1e12)

    # A zero peak: the terminal's one line (the same as the terminal's for the same table:
    # test_runner_unit.py), and the panel still works afterwards.
    panel.edit("H100 SXM", "989e12", "0")
    out = panel.run().strip()
    assert out.startswith("02_roofline_basics.py: error: H100 SXM bf16 peak") and "\n" not in out
    assert "Traceback" not in page.locator("article").inner_text()
    assert "exit status 1" in panel.status

    # An unclosed bracket: one line, naming the line where Python noticed, its message the
    # line that opened the bracket; shown whole.
    opened = '"bf16": flops(989e12, H100_DATASHEET),'
    assert opened in original
    panel.set_table(original.replace(opened, opened.replace("H100_DATASHEET)", "H100_DATASHEET")))
    bad = line_of(original, "989e12", 'name="H100 SXM"')
    out = panel.run().strip()
    assert out.startswith("02_roofline_basics.py: error: common/hw_specs.py line ")
    assert f"opening parenthesis '(' on line {bad}" in out and "\n" not in out
    stderr = panel.root.locator(".rl-runner-stderr").first
    assert stderr.evaluate("el => el.scrollWidth <= el.closest('pre').clientWidth + 1")

    # A typo: the error names the table's line, and a button there moves the cursor to it.
    panel.set_table(original.replace('"bf16": flops(989e12, H100', '"bf16": flops(989e12 +, H100'))
    out = panel.run()
    assert f"common/hw_specs.py line {bad}" in out
    panel.root.locator(f".rl-runner-line[data-line='{bad}']").first.click()
    assert panel.editor_call("view.hasFocus")
    assert panel.editor_call("view.state.doc.lineAt(view.state.selection.main.head).number") == bad
    page.keyboard.press("Tab")  # Tab leaves the editor: the keyboard is never trapped
    assert not panel.editor_call("view.hasFocus")

    # A loop that never ends: Stop ends it, the table stays, the next run works.
    loop = original + "\nwhile True:\n    pass\n"
    panel.set_table(loop)
    runs = panel.start_run()
    stop = panel.root.locator(".rl-runner-stop")
    stop.wait_for(state="visible")
    page.wait_for_timeout(500)
    assert "previous run" in panel.root.locator(".rl-runner-output-box").get_attribute("data-stale")
    stop.click()
    panel.wait_run(runs)
    assert panel.status.startswith("Stopped.") and "table is kept" in panel.status
    stale = panel.root.locator(".rl-runner-output-box pre")
    assert "was stopped" in panel.root.locator(".rl-runner-output-box").get_attribute("data-stale")
    assert float(stale.evaluate("el => getComputedStyle(el).opacity")) < 0.6
    assert panel.value() == loop and not stop.is_visible()
    panel.root.locator(".rl-runner-reset").click()
    assert f"ridge {ridge:.0f} FLOP/B" in panel.run() and panel.status.startswith("Ran in")

    # The time limit (made short here) stops a loop by itself, in one line.
    page.evaluate("() => { document.documentElement.dataset.rlRunLimitS = '3'; }")
    panel.set_table(loop)
    panel.run()
    assert panel.status.startswith("Stopped after 3 s") and "\n" not in panel.status

    # Reloaded, the stopped table is offered, not loaded; the runtime comes from the cache.
    before = len(SERVED)
    page.reload(wait_until="load")
    panel = Panel(page, ".rl-runner")
    offer = panel.root.locator(".rl-runner-offer")
    assert "was stopped" in offer.inner_text() and panel.value() == original
    assert f"ridge {ridge:.0f} FLOP/B" in panel.run()
    assert not fetched(before), "the reload fetched the runtime again: " + str(fetched(before))
    offer.locator(".rl-runner-restore").click()
    assert panel.value() == loop and not offer.count()
    panel.root.locator(".rl-runner-reset").click()
    visit.check()


def test_an_exercise_answer_follows_the_edited_table(visit: Visitor) -> None:
    page = visit.open("exercises.html")
    targets = page.eval_on_selector_all(".rl-runner", "ps => ps.map(p => p.dataset.target)")
    assert targets == list(conf_value("runner_exercises"))
    panel = Panel(page, ".rl-runner[data-target='v5e-int8']")
    assert panel.root.locator(".rl-runner-command").inner_text() == (
        "python3 -m common.exercises v5e-int8")  # fmt: skip
    start = len(SERVED)
    for peak, literal in ((V5E_INT8_PEAK, ""), (2 * V5E_INT8_PEAK, "788e12")):
        if literal:
            panel.open_table()  # it opens at the chip the exercise is about
            panel.wait_top("TPU_V5E = Chip(")
            panel.edit("TPU v5e", "394e12", literal)
        out = panel.run()
        ridge = peak / V5E_BANDWIDTH  # 480.5, then 961.0 FLOP/byte
        assert f"= {ridge:.1f} FLOP/byte" in out
        # the exercise's layer: X[B, 4096] W[4096, 4096], all int8 (273, then 628 by hand)
        assert f"gives B = {critical_batch(ridge, 1, d=4096):,}" in out
        # The formula is plain text: no TeX source in what the panel shows.
        assert not re.search(r"\\[a-z]+|[{}]", out), out
        assert "P_peak / beta" in out
    assert len(fetched(start, ".wasm")) == 1
    # Every panel on the page edits the one table: another exercise sees the edit too,
    other = Panel(page, ".rl-runner[data-target='v5e-int8-weights']")
    assert "788e12" in other.value()
    shoot(panel.root, "runner_exercise")
    fits = Panel(page, ".rl-runner[data-target='a100-peak-edit']")
    fits.open_table()
    fits.run()
    assert_fits_a_desktop_and_a_phone(page, fits, "exercise")
    # and so does the next page the reader opens in this tab, until Reset.
    page.goto(visit.base_url + LECTURE_02)
    lecture = page.locator(".rl-runner")
    lecture.locator(".rl-runner-edited").wait_for(state="visible")
    assert "788e12" in Panel(page, ".rl-runner").value()
    lecture.locator(".rl-runner-reset").click()
    assert not lecture.locator(".rl-runner-edited").is_visible()
    assert page.evaluate("() => sessionStorage.length") == 0
    visit.check()


def test_a_lecture_offers_its_own_flags(visit: Visitor) -> None:
    from common.hw_specs import CHIPS
    from common.tables.models import MODELS

    lectures = panel_lectures()
    stem = next(s for s, flags in lectures.items() if {"--model", "--chip"} <= set(flags))
    page = visit.open(f"auto_lectures/{stem}.html")
    panel = Panel(page, ".rl-runner")
    for flag, registry in (("model", MODELS), ("chip", CHIPS)):
        options = panel.root.locator(f"select[id$='-{flag}'] option").all_inner_texts()
        assert options == list(registry), flag
    panel.choose("--model", "llama-2-7b")
    panel.choose("--chip", "h200")
    panel.wait_top("H200 = Chip(")  # the table follows the chip chosen
    assert panel.root.locator(".rl-runner-command").inner_text() == (
        f"python3 lectures/{stem}.py --model llama-2-7b --chip h200")  # fmt: skip
    out = panel.run()
    assert panel.status.startswith("Ran in"), out
    assert MODELS["llama-2-7b"].name in out and CHIPS["h200"].name in out
    panel.wait_chart(1)  # the speed chart of that run, on the H200's roof
    roof = f"{CHIPS['h200'].name} bf16"
    assert panel.roof_top(roof) == pytest.approx(H200_BF16_PEAK / 1e12)
    if "--precision" in lectures[stem]:
        panel.choose("--chip", "tpu-v5e")
        panel.choose("--precision", "fp8")  # the v5e has no fp8 peak: the lecture says so
        out = panel.run()
        assert "\n" not in out.strip() and out.startswith(f"{stem}.py: error: ")
        assert "exit status 2" in panel.status
    visit.check()


def test_the_panel_runs_on_a_chinese_page(visit: Visitor) -> None:
    """The Chinese edition's panel speaks Chinese and prints what the terminal prints;
    lecture 05 reads the results file, and in the browser there is none: it says so."""
    if "05_operator_ledger" not in panel_lectures():
        pytest.skip("lecture 05 declares no panel flags")
    page = visit.open("zh/auto_lectures/05_operator_ledger.html")
    panel = Panel(page, ".rl-runner")
    assert panel.root.locator(".rl-runner-run").inner_text().strip() == "运行"
    panel.edit("H100 SXM", "989e12", "1978e12")
    out = panel.run()
    assert panel.status.startswith("运行完毕"), (panel.status, out)
    assert "A100 40GB SXM (bf16)" in out and "not measured" in out  # output as printed
    panel.wait_chart(1)
    assert panel.roof_top("H100 SXM") == pytest.approx(2 * H100_BF16_PEAK / 1e12)
    visit.check()


def assert_fits_a_desktop_and_a_phone(page, panel: Panel, name: str) -> None:
    """With output shown, at 1280 and 390 px the page never scrolls sideways and the
    output lines wrap or scroll inside their box; the box is announced to screen readers.
    Screenshots of the panel go to docs/_build/screenshots; the window is 1280 px after."""
    box = panel.root.locator(".rl-runner-output-box")
    assert box.get_attribute("aria-live") == "polite"
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name}: page is {overflow}px wider than a {width}px window"
        scrolls = panel.root.locator("pre.rl-runner-output").evaluate(
            "el => { const s = getComputedStyle(el); return el.scrollWidth <= el.clientWidth"
            " || s.whiteSpace.startsWith('pre-wrap') || ['auto', 'scroll'].includes(s.overflowX); }"
        )
        assert scrolls, f"{name}: output lines are cut at {width}px"
        panel.root.scroll_into_view_if_needed()
        shoot(panel.root, f"runner_{name}_{width}")
    page.set_viewport_size({"width": 1280, "height": 900})


def test_opened_from_a_file_the_panel_says_to_serve_it(browser) -> None:
    context = browser.new_context()
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto((SITE / LECTURE_02).as_uri(), wait_until="load")
        status = page.locator(".rl-runner .rl-runner-status").inner_text()
        assert "served over HTTP" in status and "python3 -m http.server" in status
        assert "http://127.0.0.1:8000/auto_lectures/02_roofline_basics.html" in status
        assert page.locator(".rl-runner-run").count() == 0
    finally:
        context.close()
    assert not errors and not [u for u in requests if u.startswith(("http:", "https:"))]
    started = [u for u in requests if "runner-worker.mjs" in u or "/_static/runner/pyodide-" in u]
    assert not started, started


@pytest.mark.parametrize(("stem", "flag", "value"), [("13_mixture_of_experts", "--ep", "16"),
                         ("14_serving_a_fleet", "--price", "4")])  # fmt: skip
def test_the_serving_lectures_redraw_their_figure(
    visit: Visitor, stem: str, flag: str, value: str
) -> None:
    """Lectures 13 and 14 in the panel: a run with a flag typed in prints the lecture and
    redraws its figure (its lines rise or fall with the batch: test_runner_unit.py)."""
    if stem not in panel_lectures():
        pytest.skip(f"lecture {stem[:2]} declares no panel flags")
    page = visit.open(f"auto_lectures/{stem}.html")
    panel = Panel(page, ".rl-runner")
    panel.root.locator(f"[id$='-{flag.removeprefix('--')}']").fill(value)  # a free-text flag
    out = panel.run()
    assert panel.status.startswith("Ran in"), out
    panel.wait_chart(1)
    rows = panel.root.evaluate(
        "el => el.querySelector('.rl-runner-chart-area').rlView.data('lines')")  # fmt: skip
    assert len({r["series"] for r in rows}) >= 2, rows
    shoot(panel.root, f"runner_{stem[:2]}_chart")
    visit.check()
