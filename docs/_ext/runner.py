""" "Run it here" panels: rerun a lecture or an exercise in the reader's browser, offline.

A panel runs the real lecture script and the real ``common/`` package with Pyodide
(CPython compiled to WebAssembly, the ``pyodide`` npm package pinned in
``package-lock.json``), served from the site's own ``_static``. The reader edits
``common/hw_specs.py`` itself in the panel and presses Run; no formula exists in
JavaScript.

Configuration (``docs/conf.py``):

- ``runner_lectures``: lecture file stem -> the flags the panel offers, e.g.
  ``{"06_llm_speed": ("--model", "--chip")}``. Each flag's choices, default and
  help come from the parser the lecture declares, its ``make_parser()``
  (`lecture_options`, through ``common.shell.interface``).
- ``runner_exercises``: the exercise keys that get a panel on ``exercises.rst``
  (Run prints ``python3 -m common.exercises KEY`` with the edited table).
- ``runner_runtime``: the folder of the ``pyodide`` npm package; when it is missing
  (no npm at build time) every panel says it is unavailable and the build succeeds.
- ``runner_charts``: the lectures whose main figure the panel redraws after a run (the
  run adds ``--png``; ``docs/_static/runner/live.py``, given the figure's data through
  ``common.shell.sink``, hands it to the page as Vega-Lite instead of matplotlib).
- ``runner_chips``: lecture stem -> the chip key its panel's table editor opens at, for
  a lecture without ``--chip`` (one with it opens at the flag's value).
- ``runner_run_limit_s``: a run still going after this many seconds is stopped.

The build writes into ``_static/runner/`` of the site: ``pyodide-VERSION/`` (the
runtime files, `RUNTIME_FILES`) and ``course.zip`` (`pack_course`: every module of
``common/`` that imports on the standard library alone, the panels' lectures and their
words in ``lectures/words/``, their first line ``lectures/_course.py``, and the chart
adapter ``live.py``).
The browser side is ``docs/_static/runner/``: ``runner.js`` (the page),
``runner-worker.mjs`` (Pyodide in a web worker), ``harness.py`` (runs a lecture as
a terminal would), ``runner-sw.js`` (the service worker that caches the runtime,
copied to the site's root by `write_service_worker`) and ``runner.css``. The editor
(CodeMirror 6) and the chart (Vega-Lite with vega-embed) come from npm, pinned in
``package-lock.json``, and are bundled by esbuild at build time (`bundle_vendor`, with
``runner_bundle.mjs``) into ``_static/runner/vendor/``; without them the panel falls back
to a plain textarea and draws no chart.
"""

from __future__ import annotations

import ast
import hashlib
import html
import io
import json
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

from common.shell import interface

logger = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parents[2]
COURSE = (REPO / "common", REPO / "lectures" / "words")  # packed for the browser
#: The panel's browser side; harness.py also compiles the standard library at build time.
STATIC_SOURCE = REPO / "docs" / "_static" / "runner"
HARNESS = STATIC_SOURCE / "harness.py"
#: The chart adapter the harness loads from the course folder (packed at this path).
CHART_ADAPTER = STATIC_SOURCE / "live.py"
#: Node.js script that runs harness.compile_zip in Pyodide (the bytecode must be Pyodide's).
STDLIB_SCRIPT = Path(__file__).resolve().parent / "runner_stdlib.mjs"
#: Node.js script that bundles the editor and the chart with esbuild.
BUNDLE_SCRIPT = Path(__file__).resolve().parent / "runner_bundle.mjs"
#: The bundles it writes, under ``_static/runner/vendor/``.
VENDOR_FILES = ("editor.js", "chart.js")
#: The service worker, served from the site's root so that its scope is the whole site.
SERVICE_WORKER = "runner-sw.js"

#: The files of the pinned pyodide package that a page loads (the rest is docs and types).
RUNTIME_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
#: Where the build puts the panels' files, under the site's root.
STATIC_SUBDIR = Path("_static") / "runner"
#: Flags the docs build passes itself; a panel never offers them.
OUTPUT_FLAGS = ("--png", "--outdir", "--results")
#: Fixed timestamp inside the zip: the same sources give the same bytes.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


# ---------------------------------------------------------------------------
# What can run in the browser: modules that import on the standard library alone
# ---------------------------------------------------------------------------
def module_name(path: Path, root: Path) -> str:
    """'common/shell/cli.py' -> 'common.shell.cli'; a package's __init__ -> the package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _import_time_nodes(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements that run on import: the module body and its blocks, not function bodies."""
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        yield node
        for field in ("body", "orelse", "finalbody"):
            children = getattr(node, field, None)
            if isinstance(children, list):
                yield from _import_time_nodes(c for c in children if isinstance(c, ast.stmt))
        for handler in getattr(node, "handlers", None) or ():
            yield from _import_time_nodes(handler.body)


def import_time_imports(source: str, package: str, known: Iterable[str] = ()) -> set[str]:
    """Modules a file imports when it is imported (imports inside functions left out).

    `package` is the file's package (for relative imports); `known` lists modules that
    exist, so that ``from common.measure import caches`` also names ``common.measure.caches``.
    """
    known = set(known)
    found: set[str] = set()
    for node in _import_time_nodes(ast.parse(source).body):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            if module == "__future__":
                continue
            found.add(module)
            found.update(
                f"{module}.{alias.name}"
                for alias in node.names
                if f"{module}.{alias.name}" in known
            )
    return found


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def standard_library_modules(package_dir: Path, *more: Path) -> dict[str, Path]:
    """The modules of a package (and of the packages `more`, beside it) that import with
    the standard library alone, by name.

    A module qualifies when everything it imports at import time is in the standard
    library or is another qualifying module of the package or of the lectures' words
    (``lectures/words``), and so are its parent packages. numpy imported inside a function
    is fine: the panel's lectures only call such a function where they need it.
    """
    root, dirs = package_dir.parent, (package_dir, *more)
    files = {module_name(p, root): p for d in dirs for p in sorted(d.rglob("*.py"))}
    files = {n: p for n, p in files.items() if "__pycache__" not in p.parts}
    deps: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        imports = import_time_imports(path.read_text(encoding="utf-8"), package, files)
        deps[name] = {*imports, *(p for p in _parents(name) if p in files)}  # no namespace
    tops = {d.relative_to(root).parts[0] for d in dirs}
    ok = set(files)
    changed = True
    while changed:
        changed = False
        for name in sorted(ok):
            for dep in deps[name]:
                head = dep.split(".")[0]
                inside = head in tops
                if (inside and dep not in ok and dep in files) or (
                    not inside and head not in sys.stdlib_module_names
                ):
                    ok.discard(name)
                    changed = True
                    break
                if inside and dep not in files and dep not in ok:
                    ok.discard(name)  # imports a module the package does not have
                    changed = True
                    break
    return {name: files[name] for name in sorted(ok)}


def lecture_blockers(lecture: Path, packable: Mapping[str, Path]) -> list[str]:
    """What a lecture (or its words) imports at start-up that the browser cannot have."""
    imports = import_time_imports(lecture.read_text(encoding="utf-8"), "", set(packable))
    blockers = []
    for dep in sorted(imports):
        head = dep.split(".")[0]
        if head in ("common", "lectures"):
            if dep not in packable:
                blockers.append(dep)
        elif (lecture.parent / f"{head}.py").is_file():  # its opening, lectures/_course.py
            blockers.extend(lecture_blockers(lecture.parent / f"{head}.py", packable))
        elif head not in sys.stdlib_module_names:
            blockers.append(dep)
    return blockers


def pack_course(package_dir: Path, lectures: Sequence[Path], target: Path) -> tuple[str, list[str]]:
    """Zip the standard-library modules of ``common/`` and `lectures` into `target`.

    Paths inside the zip are the repository's (``common/hw_specs.py``,
    ``lectures/02_roofline_basics.py``). Returns (a digest of the zip, its names).
    """
    packable = standard_library_modules(package_dir, package_dir.parent / "lectures" / "words")
    entries: list[tuple[str, bytes]] = []
    root = package_dir.parent
    for path in packable.values():
        entries.append((path.relative_to(root).as_posix(), path.read_bytes()))
    for lecture in lectures:
        entries.append((f"lectures/{lecture.name}", lecture.read_bytes()))
    for opening in sorted((root / "lectures").glob("_*.py")):  # every lecture's first line
        entries.append((f"lectures/{opening.name}", opening.read_bytes()))
    entries.append((CHART_ADAPTER.relative_to(REPO).as_posix(), CHART_ADAPTER.read_bytes()))
    entries.sort()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    data = buffer.getvalue()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(target)
    return hashlib.sha256(data).hexdigest()[:12], [name for name, _ in entries]


# ---------------------------------------------------------------------------
# The runtime: the pinned pyodide package from node_modules
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Runtime:
    """The Pyodide runtime found for this build, or why there is none."""

    folder: Path
    version: str = ""
    reason: str = ""

    @property
    def available(self) -> bool:
        return not self.reason

    @property
    def subdir(self) -> str:
        """Its folder under ``_static/runner``: versioned, so no browser mixes two versions."""
        return f"pyodide-{self.version}"


def find_runtime(folder: Path) -> Runtime:
    """The pyodide package in `folder` (``node_modules/pyodide``) if it has every runtime file."""
    manifest = folder / "package.json"
    if not manifest.is_file():
        return Runtime(folder, reason=f"{display(folder)} is missing")
    missing = [name for name in RUNTIME_FILES if not (folder / name).is_file()]
    if missing:
        return Runtime(folder, reason=f"{display(folder)} lacks {', '.join(missing)}")
    version = str(json.loads(manifest.read_text(encoding="utf-8")).get("version", ""))
    return Runtime(folder, version=version or "unknown")


def compiled_stdlib(runtime: Runtime, cache_dir: Path) -> tuple[Path | None, str]:
    """The runtime's standard library as bytecode, compiled by Pyodide under Node.js.

    Compiled once per Pyodide version (and version of the compiling code) into
    `cache_dir`; a page then starts Python about twice as fast. Returns (the zip,
    '') or (None, why not): without Node.js the site serves the source zip.
    """
    recipe = hashlib.sha256(HARNESS.read_bytes() + STDLIB_SCRIPT.read_bytes()).hexdigest()[:12]
    target = cache_dir / f"python_stdlib-{runtime.version}-{recipe}.zip"
    if target.is_file():
        return target, ""
    node = shutil.which("node")
    if node is None:
        return None, "node is not installed"
    cache_dir.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    logger.info("runner: compiling Pyodide's standard library to bytecode (once per version)")
    try:
        proc = subprocess.run(
            [node, str(STDLIB_SCRIPT), str(runtime.folder), str(HARNESS), str(partial)],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"node failed: {exc}"
    if proc.returncode != 0 or not partial.is_file():
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        partial.unlink(missing_ok=True)
        return None, f"node failed: {last}"
    partial.replace(target)
    return target, ""


def copy_runtime(runtime: Runtime, static_dir: Path, stdlib: Path | None = None) -> Path:
    """Copy the runtime files into ``static_dir/pyodide-VERSION/``; returns that folder.

    `stdlib`, when given, is served in place of the package's ``python_stdlib.zip``.
    """
    target = static_dir / runtime.subdir
    target.mkdir(parents=True, exist_ok=True)
    for name in RUNTIME_FILES:
        source = stdlib if (stdlib is not None and name == "python_stdlib.zip") else None
        shutil.copyfile(source or runtime.folder / name, target / name)
    return target


def display(path: Path) -> str:
    """A path relative to the repository when it is inside it."""
    try:
        return path.resolve().relative_to(REPO).as_posix()
    except ValueError:
        return str(path)


def declared_panels(
    about: Mapping[str, Mapping[str, Any]],
) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...], dict[str, str]]:
    """runner_lectures, runner_charts and runner_chips from what each lecture declares
    (stem -> its ABOUT): the flags it offers, its redrawn figure, its chip."""
    return (
        {stem: tuple(a["flags"]) for stem, a in about.items() if "flags" in a},
        tuple(stem for stem, a in about.items() if a.get("figure")),
        {stem: a["chip"] for stem, a in about.items() if "chip" in a},
    )


def lecture_declarations(folder: Path) -> dict[str, dict[str, Any]]:
    """What each lecture in `folder` declares (its ABOUT), by file stem."""
    return {s: interface.declared(p) for s, p in interface.lectures(folder).items()}


# ---------------------------------------------------------------------------
# A lecture's flags, read from the parser it declares (common.shell.interface)
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Option:
    """One flag a panel offers: a choice list (a select) or free text (an input)."""

    flag: str
    default: str
    choices: tuple[str, ...] = ()
    help: str = ""
    metavar: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "flag": self.flag,
            "default": self.default,
            "choices": list(self.choices),
            "help": self.help,
            "metavar": self.metavar,
        }


def lecture_options(lecture: Path, flags: Sequence[str]) -> list[Option]:
    """The panel's options for `flags` of a lecture, from the parser it declares."""
    try:
        actions = interface.flag_actions(interface.declared_parser(lecture))
    except ValueError as exc:
        raise ExtensionError(f"runner: {exc}") from None
    options = []
    for flag in flags:
        if flag in OUTPUT_FLAGS:
            raise ExtensionError(f"runner: {lecture.name}: {flag} is set by the build, not a panel")
        action = actions.get(flag)
        if action is None:
            have = ", ".join(s for s in actions if s not in OUTPUT_FLAGS)
            raise ExtensionError(f"runner: {lecture.name} has no flag {flag}; it has: {have}")
        choices = tuple(str(c) for c in action.choices or getattr(action.type, "choices", ()))
        default = "" if action.default is None else str(action.default)
        help_text = (action.help or "").replace("%(default)s", default)
        options.append(Option(flag, default, choices, help_text, action.metavar or ""))
    return options


# ---------------------------------------------------------------------------
# The panel node
# ---------------------------------------------------------------------------
class runner_panel(nodes.General, nodes.Element):  # noqa: N801 (docutils names nodes in lower case)
    """A "Run it here" panel: attributes kind, target, options (JSON) and command."""


def panel_node(
    kind: str, target: str, options: Sequence[Option] = (), chip: str = "", chart: bool = False
) -> runner_panel:
    """A panel for a lecture (target: its file stem) or an exercise (target: its key).

    `chip`: the chip key the table editor opens at; `chart`: the run redraws the figure.
    """
    node = runner_panel()
    node["kind"] = kind
    node["target"] = target
    node["options"] = json.dumps([o.as_json() for o in options])
    node["chip"] = chip
    node["chart"] = chart
    return node


#: The panel's words written into the page (the status line a reader without JavaScript
#: sees). ``make gettext`` puts them in their own catalog, ``runner.po`` beside the pages';
#: the Chinese build prints that catalog's translation (`panel_words`). The title and the
#: line on what Run does are translated in the browser (runner.js's WORDS).
MESSAGES_DOMAIN = "runner"
STATUS_READY = (
    "This panel runs the course's Python in your browser; it needs JavaScript and the site "
    "served over HTTP."
)
STATUS_OFF = (
    "Run it here is unavailable in this build of the site: the Pyodide runtime was not "
    "installed ({reason}). Install Node.js and npm, then run <code>make docs</code> again."
)
PANEL_WORDS = (STATUS_READY, STATUS_OFF)


def panel_words(app: Sphinx) -> Callable[[str], str]:
    """The panel's words in the build's language: Sphinx's catalog ``runner`` (a warning,
    which fails the build under -W, for a message it lacks), or the English as it is."""
    cached = getattr(app, "_runner_words", None)
    if cached is not None:
        return cached
    language = app.config.language or "en"
    if language.split("_")[0] == "en":
        app._runner_words = str  # type: ignore[attr-defined]
        return str
    from sphinx.locale import init

    dirs = [Path(app.srcdir, d) for d in app.config.locale_dirs]
    catalog, _ = init(dirs, language, MESSAGES_DOMAIN)

    def translate(message: str) -> str:
        found = catalog.gettext(message)
        if found == message:
            logger.warning(
                "runner: no translation of %r in %s.po (run make gettext, then translate)",
                message[:50],
                MESSAGES_DOMAIN,
            )
        return found

    app._runner_words = translate  # type: ignore[attr-defined]
    return translate


def add_messages(app: Sphinx) -> None:
    """builder-inited, in ``make gettext``: the panel's words become the catalog ``runner``."""
    from sphinx.builders.gettext import I18nBuilder, MsgOrigin

    if isinstance(app.builder, I18nBuilder):
        for message in PANEL_WORDS:
            app.builder.catalogs[MESSAGES_DOMAIN].add(message, MsgOrigin(__file__, 0))


def _runtime_of(app: Sphinx) -> Runtime:
    runtime = getattr(app, "_runner_runtime", None)
    if runtime is None:
        runtime = find_runtime(Path(app.config.runner_runtime))
        app._runner_runtime = runtime  # type: ignore[attr-defined]
    return runtime


def panel_html(
    kind: str,
    target: str,
    options: str,
    runtime: Runtime,
    first: bool,
    table: str,
    chip: str = "",
    chart: bool = False,
    say: Callable[[str], str] = str,
) -> str:
    """The panel's HTML; the page's script brings it to life (`runner.js`). `say` gives
    the status line in the page's language (`panel_words`)."""
    esc = html.escape
    if kind == "lecture":
        what = (
            f"your browser reruns lecture <code>{esc(target)}.py</code> with the course's own "
            "code and shows what the terminal prints."
        )
        cmd = f"python3 lectures/{target}.py"
    else:
        what = "your browser works this answer out again with the course's own code."
        cmd = f"python3 -m common.exercises {target}"
    attrs = {
        "class": "rl-runner",
        "data-kind": kind,
        "data-target": target,
        "data-options": options,
        "data-command": cmd,
    }
    if chip:
        attrs["data-chip"] = chip
    if chart:
        attrs["data-chart"] = "1"
    if not runtime.available:
        attrs["data-unavailable"] = "1"
    opening = "<div " + " ".join(f'{k}="{esc(v)}"' for k, v in attrs.items()) + ">"
    if runtime.available:
        status = esc(say(STATUS_READY), quote=False)
    else:  # the message holds its markup (<code>); the reason is escaped
        status = say(STATUS_OFF).format(reason=esc(runtime.reason))
    parts = [
        opening,
        '<div class="rl-runner-head"><span class="rl-runner-title">Run it here</span>'
        f'<span class="rl-runner-status" role="status">{status}</span></div>',
    ]
    if runtime.available:
        parts += [
            f'<p class="rl-runner-what">Edit the hardware table, then press <b>Run</b>: {what}</p>',
            '<div class="rl-runner-controls" hidden></div>',
        ]
    if first and runtime.available:  # the repository's table, once per page, for every panel
        data = json.dumps(table).replace("</", "<\\/")
        parts.append(f'<script type="application/json" class="rl-runner-table">{data}</script>')
    parts.append("</div>")
    return "\n".join(parts)


def visit_panel_html(self: Any, node: runner_panel) -> None:
    app = self.builder.app
    first = not getattr(self, "_rl_table_written", False)
    self._rl_table_written = True
    table = (REPO / "common" / "hw_specs.py").read_text(encoding="utf-8") if first else ""
    self.body.append(
        panel_html(
            node["kind"],
            node["target"],
            node["options"],
            _runtime_of(app),
            first,
            table,
            node.get("chip", ""),
            bool(node.get("chart", False)),
            panel_words(app),
        )
    )
    raise nodes.SkipNode


def skip_panel(self: Any, node: runner_panel) -> None:
    """Other builders leave the panel out: it only works in a browser."""
    raise nodes.SkipNode


# ---------------------------------------------------------------------------
# Where the panels go
# ---------------------------------------------------------------------------
def lecture_of(docname: str, app: Sphinx) -> str:
    """The lecture stem of a gallery page with a panel ('' for any other page)."""
    gallery = app.config.sphinx_gallery_conf.get("gallery_dirs", "auto_lectures")
    folder, _, stem = docname.rpartition("/")
    if folder == gallery and stem in app.config.runner_lectures:
        return stem
    return ""


def insert_lecture_panel(doctree: nodes.document, panel: runner_panel) -> None:
    """Put the panel after the lecture's opening prose, before its first code cell."""
    top = doctree.next_node(nodes.section)
    if top is None:
        doctree.append(panel)
        return
    for index, child in enumerate(top.children):
        if isinstance(child, nodes.literal_block | nodes.section | nodes.container):
            top.insert(index, panel)
            return
    top.append(panel)


def insert_exercise_panels(doctree: nodes.document, keys: Iterable[str]) -> list[str]:
    """Put a panel in each exercise section, after its worked answer; returns the keys placed.

    Run prints the whole worked answer, so the panel comes after the reveal the reader
    is asked to try the exercise before opening.
    """
    placed = []
    wanted = set(keys)
    for section in doctree.findall(nodes.section):
        if "exercise" not in section["classes"]:
            continue
        key = next(
            (
                i.removeprefix("exercise-")
                for i in section["ids"]
                if i.removeprefix("exercise-") in wanted
            ),
            None,
        )
        if key is None:
            continue
        panel = panel_node("exercise", key)
        answer = next(
            (
                i
                for i, c in enumerate(section.children)
                if "exercise-answer" in c.get("classes", [])
            ),
            len(section.children) - 1,
        )
        section.insert(answer + 1, panel)
        placed.append(key)
    return placed


def _lecture_path(app: Sphinx, stem: str) -> Path:
    folder = Path(app.config.sphinx_gallery_conf["examples_dirs"])
    return folder / f"{stem}.py"


def check_config(app: Sphinx, config: Any) -> None:
    """Every configured lecture exists and can run in a browser; every exercise key exists."""
    packable = standard_library_modules(*COURSE)
    for stem in config.runner_lectures:
        path = _lecture_path(app, stem)
        if not path.is_file():
            raise ExtensionError(
                f"runner: runner_lectures names {stem!r}, but {display(path)} is missing"
            )
        blockers = lecture_blockers(path, packable)
        if blockers:
            raise ExtensionError(
                f"runner: {path.name} cannot run in the browser: it imports "
                f"{', '.join(blockers)} at start-up"
            )
    from common import exercises

    known = {e.key for e in exercises.EXERCISES}
    unknown = [k for k in config.runner_exercises if k not in known]
    if unknown:
        raise ExtensionError(
            f"runner: runner_exercises names unknown exercises: {', '.join(unknown)}"
        )


def add_panels(app: Sphinx, doctree: nodes.document) -> None:
    """doctree-read: a panel on each configured lecture page and exercise."""
    docname = app.env.docname
    stem = lecture_of(docname, app)
    if stem:
        flags = app.config.runner_lectures[stem]
        options = lecture_options(_lecture_path(app, stem), flags)
        chip = app.config.runner_chips.get(stem, "")
        chart = stem in app.config.runner_charts
        insert_lecture_panel(doctree, panel_node("lecture", stem, options, chip, chart))
        app.env.note_dependency(str(_lecture_path(app, stem)))
    if docname == app.config.runner_exercises_page and app.config.runner_exercises:
        placed = insert_exercise_panels(doctree, app.config.runner_exercises)
        missing = [k for k in app.config.runner_exercises if k not in placed]
        if missing:
            logger.warning(
                "runner: no exercise section for %s on %s",
                ", ".join(missing),
                docname,
                location=docname,
            )


def warm_modules(app: Sphinx, doctree: nodes.document) -> list[str]:
    """The modules a page's panels import, for the worker to compile while the reader reads."""
    packable = standard_library_modules(*COURSE)
    names: set[str] = {"common.shell.cli"}
    for panel in doctree.findall(runner_panel):
        if panel["kind"] == "lecture":
            source = _lecture_path(app, panel["target"]).read_text(encoding="utf-8")
            names.update(m for m in import_time_imports(source, "", packable) if m in packable)
        else:
            names.add("common.exercises.text")
    return sorted(names)


def page_assets(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """html-page-context: the panel's script and style, on pages that have a panel only."""
    if doctree is None or doctree.next_node(runner_panel) is None:
        return
    runtime = _runtime_of(app)
    app.add_css_file("runner/runner.css")
    if not runtime.available:
        return
    if getattr(app, "_runner_vendor", ""):
        # The editor loads with the page (deferred, before runner.js builds the panels);
        # the chart bundle only once a run has a figure to draw.
        app.add_js_file("runner/vendor/editor.js", defer="defer")
    app.add_js_file(
        "runner/runner.js",
        **{
            "defer": "defer",  # Python itself loads only when the reader uses a panel
            "data-runtime": f"{runtime.subdir}/",
            "data-course": f"course.zip?v={getattr(app, '_runner_digest', '')}",
            "data-warm": json.dumps(warm_modules(app, doctree)),
            "data-assets": assets_digest(),
            "data-vendor": getattr(app, "_runner_vendor", ""),
            "data-download": str(getattr(app, "_runner_download", 0)),
            "data-service-worker": SERVICE_WORKER,
            "data-run-limit": str(app.config.runner_run_limit_s),
        },
    )


def assets_digest() -> str:
    """A digest of the files the worker loads by name, so no browser keeps a stale copy."""
    digest = hashlib.sha256()
    for name in ("runner-worker.mjs", "harness.py", SERVICE_WORKER):
        digest.update((STATIC_SOURCE / name).read_bytes())
    return digest.hexdigest()[:12]


def write_static(app: Sphinx) -> None:
    """builder-inited: pack the course now, so the pages can name the zip's digest."""
    if app.builder.format != "html":
        return
    runtime = _runtime_of(app)
    if not runtime.available:
        logger.verbose("runner: Run-it-here panels are off: %s", runtime.reason)
        return
    lectures = [_lecture_path(app, stem) for stem in app.config.runner_lectures]
    staging = Path(app.outdir) / STATIC_SUBDIR
    digest, _ = pack_course(REPO / "common", lectures, staging / "course.zip")
    app._runner_digest = digest  # type: ignore[attr-defined]
    cache = runtime.folder.parent / ".cache" / "roofline-runner"
    stdlib, why = compiled_stdlib(runtime, cache)
    if stdlib is None:
        logger.verbose("runner: serving the standard library as source: %s", why)
    app._runner_stdlib = stdlib  # type: ignore[attr-defined]
    app._runner_download = download_bytes(runtime, stdlib, staging / "course.zip")  # type: ignore[attr-defined]
    vendor, why = bundle_vendor(staging / "vendor")
    if not vendor:
        logger.warning("runner: no editor or chart bundle (%s): the panels use a textarea", why)
    app._runner_vendor = vendor  # type: ignore[attr-defined]


def download_bytes(runtime: Runtime, stdlib: Path | None, course: Path) -> int:
    """Bytes a reader's browser fetches to start Python once: the runtime files and the course."""
    total = course.stat().st_size
    for name in RUNTIME_FILES:
        source = stdlib if (stdlib is not None and name == "python_stdlib.zip") else None
        total += (source or runtime.folder / name).stat().st_size
    return total


def bundle_vendor(target: Path) -> tuple[str, str]:
    """Bundle the editor and the chart from node_modules into `target` with esbuild.

    Returns (a digest of the bundles, '') or ('', why not): without Node.js or the npm
    packages the panel falls back to a textarea and draws no chart.
    """
    node = shutil.which("node")
    if node is None:
        return "", "node is not installed"
    if not (REPO / "node_modules" / "esbuild").is_dir():
        return "", "node_modules/esbuild is missing (run npm ci)"
    target.mkdir(parents=True, exist_ok=True)
    try:
        proc = subprocess.run(
            [node, str(BUNDLE_SCRIPT), str(target)],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "", f"esbuild failed: {exc}"
    missing = [name for name in VENDOR_FILES if not (target / name).is_file()]
    if proc.returncode != 0 or missing:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        return "", f"esbuild failed: {last}"
    digest = hashlib.sha256()
    for name in VENDOR_FILES:
        digest.update((target / name).read_bytes())
    return digest.hexdigest()[:12], ""


def write_service_worker(outdir: Path, token: str) -> Path:
    """Copy the service worker to the site's root, naming its cache after `token`."""
    text = (STATIC_SOURCE / SERVICE_WORKER).read_text(encoding="utf-8")
    target = outdir / SERVICE_WORKER
    target.write_text(text.replace("RUNTIME_TOKEN", token), encoding="utf-8")
    return target


def copy_files(app: Sphinx, exception: Exception | None) -> None:
    """build-finished: the runtime files beside the panel's scripts."""
    if exception is not None or app.builder.format != "html":
        return
    runtime = _runtime_of(app)
    if runtime.available:
        stdlib = getattr(app, "_runner_stdlib", None)
        folder = copy_runtime(runtime, Path(app.outdir) / STATIC_SUBDIR, stdlib)
        digest = hashlib.sha256()
        for name in RUNTIME_FILES:
            digest.update(hashlib.sha256((folder / name).read_bytes()).digest())
        write_service_worker(Path(app.outdir), f"{runtime.version}-{digest.hexdigest()[:12]}")


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the configuration, the panel node and the build steps."""
    app.add_config_value("runner_lectures", {}, "env", types=[dict])
    app.add_config_value("runner_exercises", (), "env", types=[tuple, list])
    app.add_config_value("runner_exercises_page", "exercises", "env", types=[str])
    app.add_config_value("runner_runtime", str(REPO / "node_modules" / "pyodide"), "env")
    app.add_config_value("runner_charts", (), "env", types=[tuple, list, set])
    app.add_config_value("runner_chips", {}, "env", types=[dict])
    app.add_config_value("runner_run_limit_s", 30, "html", types=[int, float])
    app.add_node(
        runner_panel,
        html=(visit_panel_html, None),
        latex=(skip_panel, None),
        text=(skip_panel, None),
        man=(skip_panel, None),
        texinfo=(skip_panel, None),
    )
    app.connect("config-inited", check_config)
    app.connect("builder-inited", write_static)
    app.connect("builder-inited", add_messages)
    app.connect("doctree-read", add_panels)
    app.connect("html-page-context", page_assets)
    app.connect("build-finished", copy_files)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
