"""Shared test helpers: run a lecture the way a student does, and the browser fixtures (Debian's
Chromium through playwright, skipped without it; the built site served on 127.0.0.1)."""

from __future__ import annotations

import ast
import dataclasses
import functools
import http.server
import importlib.util
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

import pytest

REPO = Path(__file__).resolve().parent.parent
LECTURES = REPO / "lectures"
SITE = REPO / "docs" / "_build" / "html"
CELL_LINE_LIMIT = 30  # visible code lines in one cell of a lecture page
PAGE_LINE_LIMIT = 200  # visible code lines on one lecture page


def load_extension(name: str, folder: str = "docs/_ext") -> ModuleType:
    """Import FOLDER/NAME.py (a docs extension unless told; once) without changing sys.path."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def computed_project(src: Path, page: str, *conf: str) -> Path:
    """A one-page Sphinx project at `src` with docs/_ext/computed.py (and `conf` lines)."""
    src.mkdir(parents=True, exist_ok=True)
    lines = ["import sys", f"sys.path.insert(0, {str(REPO / 'docs' / '_ext')!r})"]
    lines += [f"sys.path.insert(0, {str(REPO)!r})", 'extensions = ["computed"]', *conf]
    (src / "conf.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (src / "index.rst").write_text(page, encoding="utf-8")
    return src


def sphinx(src: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``sphinx -W -q ARGS src out``, finished."""
    command = [sys.executable, "-m", "sphinx", "-W", "-q", *args, str(src), str(out)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def conf_value(name: str) -> object:
    """A literal assigned in docs/conf.py (read, not imported: conf.py sets env variables)."""
    tree = ast.parse((REPO / "docs" / "conf.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise LookupError(name)


def selected(request: pytest.FixtureRequest, test: str, param: str, same: Any = None) -> list:
    """The `param` of every collected (and selected) case of `test` in the requesting module
    (and class `same`, when given): what a fixture that runs every case at once must run."""
    return [item.callspec.params[param] for item in request.session.items
            if getattr(item, "originalname", "") == test and item.module is request.module
            and (same is None or item.cls is same)]  # fmt: skip


# A lecture run in this process (runpy) finds its first line, ``import _course``, as a
# script does: Python puts a script's folder on sys.path.
if str(LECTURES) not in sys.path:
    sys.path.append(str(LECTURES))

# mutmut (make mutation) notes which tests call which function in this process only; a
# lecture run as a child process would try too, and fail outside the repository root.
if os.environ.get("MUTANT_UNDER_TEST") == "stats":
    del os.environ["MUTANT_UNDER_TEST"]


def lecture_path(name: str) -> Path:
    """The lecture whose file name starts with `name` (e.g. '02' or '02_roofline_basics')."""
    matches = sorted(LECTURES.glob(f"{name}*.py"))
    if len(matches) != 1:
        raise LookupError(f"expected one lecture matching {name!r}, found {matches}")
    return matches[0]


def default_signals() -> None:
    """A child's `preexec_fn`: every stop signal at its default, so a test can signal it even
    when the test run itself ignores one (``trap '' INT; make test``, ``nohup``)."""
    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)


def run_python(*args: str, env: dict[str, str | None] | None = None, cwd: Path | None = None,
               timeout: float = 120, text: bool = True, check: bool = False,
               **popen: Any) -> subprocess.CompletedProcess:  # fmt: skip
    """``python ARGS`` with the test's interpreter and `child_env(env)`, finished, its output
    captured (with `check`, asserted to exit 0)."""
    proc = subprocess.run(
        [sys.executable, *args], capture_output=True, text=text, cwd=cwd or REPO,
        env=child_env(env), timeout=timeout, check=False, **popen,
    )  # fmt: skip
    assert proc.returncode == 0 or not check, proc.stderr
    return proc


def child_env(env: dict[str, str | None] | None = None) -> dict[str, str]:
    """The test's environment with `env` (a None value unsets), less $ROOFLINE_TRACEBACK and
    $ROOFLINE_HTML unless `env` sets them: a child run by a test is a terminal run."""
    full = {**os.environ, "ROOFLINE_TRACEBACK": None, "ROOFLINE_HTML": None, **(env or {})}
    return {k: v for k, v in full.items() if v is not None}


def start_python(*args: str, env: dict[str, str | None] | None = None, **popen: Any) -> Any:
    """``python ARGS`` started (a Popen) with stdout and stderr piped, the environment of
    `run_python`, and every stop signal at its default in the child."""
    popen = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **popen}
    return subprocess.Popen(
        [sys.executable, *args], env=child_env(env), preexec_fn=default_signals, **popen
    )


def run_lecture(
    name: str | Path, *args: str, python_flags: tuple[str, ...] = (), **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    """Run a lecture script (a Path, or the start of its name) as `run_python` does."""
    script = name if isinstance(name, Path) else lecture_path(name)
    return run_python(*python_flags, str(script), *args, **kwargs)


def demo_script(folder: Path, body: str) -> Path:
    """folder/lectures/99_demo.py: a lecture-like script, the bootstrap and then `body`."""
    script = folder / "lectures" / "99_demo.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(
        f"import os\nimport sys\nsys.path.insert(0, {str(REPO)!r})\n"
        "from common.shell import boot\n\nboot.start()\n" + textwrap.dedent(body),
        encoding="utf-8")  # fmt: skip
    return script


def quiet_run(name: str, *args: str, **kwargs: Any) -> str:
    """A lecture run that must succeed quietly (status 0, nothing on stderr): its stdout."""
    proc = run_lecture(name, *args, check=True, **kwargs)
    assert proc.stderr == ""
    return proc.stdout


def quick_measuring_run(tmp: Path, name: str, timeout: float) -> dict[str, Any]:
    """One ``--quick --png`` run of a measuring lecture into a fresh results file under `tmp`
    ($ROOFLINE_RESULTS names another: --results wins): the run, its files and `tmp`."""
    results_path, outdir = tmp / "results" / "machine.json", tmp / "figures"
    proc = run_lecture(
        name, "--quick", "--png", "--outdir", str(outdir), "--results", str(results_path),
        env={"ROOFLINE_RESULTS": str(tmp / "elsewhere.json")}, timeout=timeout, check=True,
    )  # fmt: skip
    return {"proc": proc, "out": proc.stdout, "results": results_path, "outdir": outdir, "tmp": tmp}


def assert_frozen(*records: object) -> None:
    """Each record refuses a new value for its first field: a frozen dataclass."""
    for record in records:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(record, dataclasses.fields(record)[0].name, None)  # type: ignore[arg-type]


@pytest.fixture
def results_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A results file path in a temporary folder, also exported as $ROOFLINE_RESULTS."""
    path = tmp_path / "results" / "machine.json"
    monkeypatch.setenv("ROOFLINE_RESULTS", str(path))
    return path


def printed_table(text: str, title: str) -> list[list[str]]:
    """The cells (split at 2+ spaces) of each line of the table printed under the first line
    starting `title`, rule lines left out: its column names (unless `title` is them), then
    its rows, up to a blank line or a note in brackets."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    rows: list[list[str]] = []
    for line in (line.strip() for line in lines[start + 1 :]):
        if rows and (not line or line.startswith("(")):
            break
        if line and not set(line) <= {"=", "-", " "}:
            rows.append(re.split(r"\s{2,}", line))
    return rows


def summary_value(out: str, label: str) -> str:
    """The value printed after `label` in a lecture's Summary table (lecture 06)."""
    summary = out[out.index("\nSummary\n") :]
    match = re.search(rf"^{re.escape(label)}\s+(.+)$", summary, re.MULTILINE)
    assert match, f"summary line {label!r} missing"
    return match.group(1).strip()


def capture_figures(monkeypatch: pytest.MonkeyPatch, write: bool = True) -> list[Any]:
    """The matplotlib Figures passed to save_figure from now on, to read their data back
    (still written to disk unless `write` is False); patched in every common.plots module
    that imported save_figure by name, too."""
    from common.plots import style

    kept: list[Any] = []
    save = style.save_figure

    def keep(fig: Any, path: Any) -> str:
        kept.append(fig)
        return save(fig, path) if write else str(path)

    for name, module in list(sys.modules.items()):
        if module is style or (
            name.startswith("common.plots.") and getattr(module, "save_figure", None) is save
        ):
            monkeypatch.setattr(module, "save_figure", keep)
    return kept


@pytest.fixture
def caught(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The Figures the plotting functions would save (nothing is written)."""
    return capture_figures(monkeypatch, write=False)


# --- Browser fixtures (tests/docs) -------------------------------------------
CHROMIUM = Path("/usr/bin/chromium")
LOCAL_HOSTS = {"127.0.0.1"}
TIMEOUT_MS = 30_000
#: Every name but the test server's resolves to nothing: no request can leave the machine
#: (each one that tries is still recorded, and fails the page).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]  # fmt: skip


def launch_chromium(chromium_type: Any) -> Any:
    """Debian's Chromium, headless, launched the one way every browser test launches it:
    `chromium_type` is playwright's ``chromium`` (sync: the browser; async: an awaitable)."""
    return chromium_type.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


#: Every path the test server answered, in order (the browser tests read what was fetched).
SERVED: list[str] = []


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        SERVED.append(self.path)


@pytest.fixture(scope="session")
def browser():
    """Headless Debian Chromium driven by playwright (skipped when it is not installed)."""
    if not CHROMIUM.is_file():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = launch_chromium(playwright.chromium)
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

        def console(msg) -> None:  # an error names its URL (for a failed load: the resource)
            if msg.type == "error":
                where = (msg.location or {}).get("url") or ""
                self.errors.append(f"{path}: console error: {msg.text} ({where})")

        page.on("console", console)
        response = page.goto(self.base_url + path, wait_until="load")
        assert response is not None and response.ok, f"{path}: HTTP {response and response.status}"
        page.wait_for_load_state("networkidle")
        settle(page)
        return page

    def check(self) -> None:
        """No JavaScript error and no request that left 127.0.0.1 on any page opened."""
        assert not self.errors, "JavaScript errors:\n" + "\n".join(self.errors)
        assert not self.external, "requests left 127.0.0.1:\n" + "\n".join(self.external)


def settle(page) -> None:
    """Wait until MathJax (on pages that load it) has typeset, so widths are final."""
    if page.locator("script[src*='mathjax']").count():
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("() => MathJax.startup.promise")


@pytest.fixture
def visit(browser, base_url) -> Iterator[Visitor]:
    """A fresh browser context for one test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        yield Visitor(context, base_url)
    finally:
        context.close()


# --- Lecture runs shared by tests/lectures ---------------------------------------
def assert_sections(
    out: str, figure: str, headings: tuple[str, ...], observed: int, exact: bool
) -> None:
    """Every heading printed, "What to observe:" `observed` times (or at least that many, when
    not `exact`), and the hint that --png saves `figure`."""
    assert [heading for heading in headings if heading not in out] == []
    count = out.count("What to observe:")
    assert count == observed if exact else count >= observed
    assert f"(add --png to save the figure {figure})" in out


# --- tests/docs and tests/i18n: shared figures and helpers ---------------------
#: NVIDIA H100 Tensor Core GPU datasheet (H100 SXM): 989 TFLOPS dense BF16, 3.35 TB/s HBM3.
H100_BF16_PEAK, H100_BANDWIDTH = 989e12, 3.35e12


def critical_batch(ridge: float, bytes_per_value: float = 2, d: int = 8192) -> int:
    """Smallest B with 2 B d^2 / (b (2 B d + d^2)) >= ridge (X[B, d] W[d, d], b bytes a
    value), by trying every B."""
    batch = 1
    while 2 * batch * d * d / (bytes_per_value * (2 * batch * d + d * d)) < ridge:
        batch += 1
    return batch


#: A 1 x 1 RGBA PNG, for a figure the source tree does not hold.
PNG_1PX = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082")  # fmt: skip


def built(path: Path) -> Path:
    """`path`, a file of the built site; the test fails when `make docs` has not made it."""
    if not path.exists():
        pytest.fail(f"{path} is not built: run make docs first")
    return path


def translations(po: Path) -> dict[str, str]:
    """A gettext catalog's entries, English -> translation ("" for a fuzzy entry)."""
    from babel.messages.pofile import read_po

    with po.open("rb") as handle:
        return {str(m.id): "" if m.fuzzy else str(m.string) for m in read_po(handle) if m.id}
