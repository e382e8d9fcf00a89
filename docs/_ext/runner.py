""" "Run it here" panels: rerun a lecture or an exercise in the reader's browser, offline.

The build writes the Pyodide runtime, ``course.zip`` and the editor and chart bundles into
``_static/runner/``; the page carries each panel's title, status and settings (`panel_html`).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import html
import json
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

from common.shell import interface
from common.shell.paths import display_path

logger = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parents[2]
COURSE = REPO / "common"  # packed for the browser, with the lectures' words
STATIC_SOURCE = REPO / "docs" / "_static" / "runner"  # the panel's browser side
HARNESS = STATIC_SOURCE / "harness.py"
CHART_ADAPTER = STATIC_SOURCE / "live.py"  # packed with the course, loaded by the harness
STDLIB_SCRIPT = Path(__file__).resolve().parent / "runner_stdlib.mjs"  # harness.compile_zip
BUNDLE_SCRIPT = Path(__file__).resolve().parent / "runner_bundle.mjs"  # esbuild
SERVICE_WORKER = "runner-sw.js"  # served from the site's root: its scope is the whole site
WORKER_FILES = ("runner-worker.mjs", "harness.py", SERVICE_WORKER)  # digest in the page
#: The files of the pinned pyodide package that a page loads.
RUNTIME_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json")  # fmt: skip
OUTPUT_FLAGS = ("--png", "--outdir", "--results")  # set by the docs build, never by a panel


def top_imports(path: Path) -> set[str]:
    """Modules a file imports at its top level (``from a import b`` names a and a.b)."""
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.update([node.module, *(f"{node.module}.{a.name}" for a in node.names)])
    return found


def foreign_imports(lecture: Path) -> list[str]:
    """The packages a lecture imports at start-up that are not stdlib nor the course."""
    ours = {*sys.stdlib_module_names, "common", "lectures", "__future__"}
    ours |= {p.stem for p in lecture.parent.glob("_*.py")}
    return sorted({m.split(".")[0] for m in top_imports(lecture)} - ours)


def pack_course(lectures: Sequence[Path], target: Path) -> tuple[str, list[str]]:
    """Zip the course, `lectures` and the chart adapter into `target`; (its digest, its names)."""
    words = REPO / "lectures" / "words"
    files = [*COURSE.rglob("*.py"), *COURSE.rglob("*.csv"), *words.rglob("*.py")]
    files += [*(REPO / "lectures").glob("_*.py")]
    files += [*lectures, CHART_ADAPTER]
    entries = sorted((f.relative_to(REPO).as_posix(), f) for f in files)  # .py: no __pycache__
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, path in entries:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # same sources, same zip
            info.compress_type, info.external_attr = zipfile.ZIP_DEFLATED, 0o644 << 16
            archive.writestr(info, path.read_bytes())
    tmp.replace(target)
    return digest(target), [name for name, _ in entries]


@dataclass(frozen=True)
class Runtime:
    """The Pyodide runtime found for this build, or why there is none (`reason`)."""

    folder: Path
    version: str = ""
    reason: str = ""
    available = property(lambda self: not self.reason)
    #: Its folder under ``_static/runner``: versioned, so no browser mixes two versions.
    subdir = property(lambda self: f"pyodide-{self.version}")


def find_runtime(folder: Path) -> Runtime:
    """The pyodide package in `folder` (``node_modules/pyodide``) if it has every runtime file."""
    manifest = folder / "package.json"
    if not manifest.is_file():
        return Runtime(folder, reason=f"{display_path(folder)} is missing")
    if missing := [name for name in RUNTIME_FILES if not (folder / name).is_file()]:
        return Runtime(folder, reason=f"{display_path(folder)} lacks {', '.join(missing)}")
    version = str(json.loads(manifest.read_text(encoding="utf-8")).get("version", ""))
    return Runtime(folder, version=version or "unknown")


def digest(*files: Path) -> str:
    """A short digest of the files' bytes, to name a version of them."""
    return hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()[:12]


def run_node(what: str, *args: str | Path, timeout: int) -> str:
    """Run a Node.js script from the repository: '' when it succeeded, else why not."""
    node = shutil.which("node")
    if node is None:
        return "node is not installed"
    try:
        proc = subprocess.run(
            [node, *map(str, args)], cwd=REPO, capture_output=True, text=True, timeout=timeout
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{what} failed: {exc}"
    last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
    return f"{what} failed: {last}" if proc.returncode else ""


def compiled_stdlib(runtime: Runtime, cache_dir: Path) -> tuple[Path | None, str]:
    """(The runtime's stdlib as bytecode, cached per version, '') or (None, why not)."""
    target = cache_dir / f"python_stdlib-{runtime.version}-{digest(HARNESS, STDLIB_SCRIPT)}.zip"
    if target.is_file():
        return target, ""
    cache_dir.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    logger.info("runner: compiling Pyodide's standard library to bytecode (once per version)")
    why = run_node("node", STDLIB_SCRIPT, runtime.folder, HARNESS, partial, timeout=600)
    if why or not partial.is_file():
        partial.unlink(missing_ok=True)
        return None, why or "node failed: no output"
    partial.replace(target)
    return target, ""


def copy_runtime(runtime: Runtime, static_dir: Path, stdlib: Path | None = None) -> Path:
    """Copy the runtime files a page loads into ``static_dir/pyodide-VERSION/`` (`stdlib`,
    when given, as ``python_stdlib.zip``); returns that folder."""
    target = static_dir / runtime.subdir
    target.mkdir(parents=True, exist_ok=True)
    for name in RUNTIME_FILES:
        source = stdlib if stdlib and name == "python_stdlib.zip" else runtime.folder / name
        shutil.copyfile(source, target / name)
    return target


@dataclass(frozen=True)
class Option:
    """One flag a panel offers: a choice list (a select) or free text (an input)."""

    flag: str
    default: str
    choices: tuple[str, ...] = ()
    help: str = ""


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
        if (action := actions.get(flag)) is None:
            have = ", ".join(s for s in actions if s not in OUTPUT_FLAGS)
            raise ExtensionError(f"runner: {lecture.name} has no flag {flag}; it has: {have}")
        choices = tuple(str(c) for c in action.choices or getattr(action.type, "choices", ()))
        default = "" if action.default is None else str(action.default)
        help_text = (action.help or "").replace("%(default)s", default)
        options.append(Option(flag, default, choices, help_text))
    return options


class runner_panel(nodes.General, nodes.Element):  # noqa: N801 (docutils names nodes in lower case)
    """A "Run it here" panel: attributes kind, target, options (JSON) and command."""


def panel_node(
    kind: str, target: str, options: Sequence[Option] = (), chip: str = "", chart: bool = False
) -> runner_panel:
    """A panel for a lecture (target: its stem) or an exercise (target: its key)."""
    options_json = json.dumps([asdict(o) for o in options])
    return runner_panel(kind=kind, target=target, options=options_json, chip=chip, chart=chart)


#: The panel's words in the page, translated from the catalog runner.po with runner.js's.
MESSAGES_DOMAIN = "runner"
TITLE = "Run it here"
STATUS_READY = (
    "This panel runs the course's Python in your browser; it needs JavaScript and the site "
    "served over HTTP.")  # fmt: skip
STATUS_OFF = (
    "Run it here is unavailable in this build of the site: the Pyodide runtime was not "
    "installed ({reason}). Install Node.js and npm, then run <code>make docs</code> again."
)
PANEL_WORDS = (TITLE, STATUS_READY, STATUS_OFF)
_STRING = r'"(?:[^"\\]|\\.)*"'


def script_words() -> list[str]:
    """The English of every say("...") in runner.js (literals joined by + read as one)."""
    source = (STATIC_SOURCE / "runner.js").read_text(encoding="utf-8")
    calls = re.findall(rf"say\(\s*((?:{_STRING}\s*\+?\s*)+)", source)
    said = ("".join(json.loads(s) for s in re.findall(_STRING, call)) for call in calls)
    return list(dict.fromkeys(said))


@functools.cache
def panel_words(app: Sphinx) -> Callable[[str], str]:
    """The panel's words in the build's language, from the catalog ``runner``."""
    import computed  # docs/_ext, on the build's path (conf.py)

    if (app.config.language or "en").split("_")[0] == "en":
        return str
    return computed.catalog_words(app.env, MESSAGES_DOMAIN, "panel words")


def add_messages(app: Sphinx) -> None:
    """builder-inited, in ``make gettext``: the panel's words become the catalog ``runner``."""
    import computed

    found = [(m, __file__, 0) for m in PANEL_WORDS]
    found += [(m, STATIC_SOURCE / "runner.js", 0) for m in script_words()]
    computed.add_messages(app, MESSAGES_DOMAIN, lambda: found)


_runtime = functools.cache(lambda: find_runtime(REPO / "node_modules" / "pyodide"))  # once a build


def panel_html(
    data: Mapping[str, str], runtime: Runtime, table: str = "", say: Callable[[str], str] = str
) -> str:
    """A panel's title, status line (`say`s) and settings (data-*), with `table` once a page."""
    esc = html.escape
    if runtime.available:
        status = esc(say(STATUS_READY), quote=False)
    else:  # the message holds its markup (<code>); the reason is escaped
        data, table = {**data, "unavailable": "1"}, ""
        status = say(STATUS_OFF).format(reason=esc(runtime.reason))
    attrs = "".join(f' data-{key}="{esc(value)}"' for key, value in data.items() if value)
    parts = [f'<div class="rl-runner"{attrs}>',
             f'<p class="rl-runner-head"><b class="rl-runner-title">{esc(say(TITLE))}</b> '
             f'<span class="rl-runner-status" role="status">{status}</span></p>']  # fmt: skip
    if table:
        text = json.dumps(table).replace("</", "<\\/")  # "</script>" cannot end it early
        parts.append(f'<script type="application/json" class="rl-runner-table">{text}</script>')
    return "\n".join([*parts, "</div>"])


def visit_panel_html(self: Any, node: runner_panel) -> None:
    first = not getattr(self, "_rl_table_written", False)
    self._rl_table_written = True
    table = (COURSE / "hw_specs.py").read_text(encoding="utf-8") if first else ""
    data = {key: node[key] for key in ("kind", "target", "options", "chip")}
    data["chart"] = "1" if node["chart"] else ""
    self.body.append(panel_html(data, _runtime(), table, panel_words(self.builder.app)))
    raise nodes.SkipNode


def insert_lecture_panel(doctree: nodes.document, panel: runner_panel) -> None:
    """Put the panel after the lecture's opening prose, before its first code cell."""
    top = doctree.next_node(nodes.section)
    kinds = nodes.literal_block | nodes.section | nodes.container
    top.insert(next((i for i, c in enumerate(top) if isinstance(c, kinds)), len(top)), panel)


def insert_exercise_panels(doctree: nodes.document, keys: Iterable[str]) -> list[str]:
    """Put a panel in each exercise section, after its worked answer; the keys placed."""
    placed = []
    for section in doctree.findall(nodes.section):
        keys_here = {i.removeprefix("exercise-") for i in section["ids"]} & set(keys)
        if "exercise" not in section["classes"] or not keys_here:
            continue
        (key,) = keys_here  # its ids: exercise-KEY and KEY
        answers = [i for i, c in enumerate(section.children) if "exercise-answer" in c["classes"]]
        section.insert((answers or [len(section.children) - 1])[0] + 1, panel_node("exercise", key))
        placed.append(key)
    return placed


def _lecture_path(app: Sphinx, stem: str) -> Path:
    return Path(app.config.sphinx_gallery_conf["examples_dirs"]) / f"{stem}.py"


def check_config(app: Sphinx, config: Any) -> None:
    """Every lecture with a panel can run in a browser (no numpy at start-up)."""
    for stem in config.runner_lectures:
        if foreign := foreign_imports(path := _lecture_path(app, stem)):
            raise ExtensionError(f"runner: {path.name} cannot run in the browser: it imports "
                                 f"{', '.join(foreign)} at start-up")  # fmt: skip


def add_panels(app: Sphinx, doctree: nodes.document) -> None:
    """doctree-read: a panel on each configured lecture page and exercise."""
    docname, config = app.env.docname, app.config
    folder, _, stem = docname.rpartition("/")
    if folder == config.sphinx_gallery_conf["gallery_dirs"] and stem in config.runner_lectures:
        options = lecture_options(path := _lecture_path(app, stem), config.runner_lectures[stem])
        chip, chart = config.runner_chips.get(stem, ""), stem in config.runner_charts
        insert_lecture_panel(doctree, panel_node("lecture", stem, options, chip, chart))
        app.env.note_dependency(str(path))
    if docname == "exercises":
        placed = insert_exercise_panels(doctree, config.runner_exercises)
        if missing := ", ".join(k for k in config.runner_exercises if k not in placed):
            logger.warning("runner: no exercise section for %s", missing, location=docname)


def warm_modules(app: Sphinx, doctree: nodes.document) -> list[str]:
    """The modules a page's panels import, for the worker to compile while the reader reads."""
    names = {"common.shell.cli"}
    for panel in doctree.findall(runner_panel):
        if panel["kind"] == "lecture":
            names |= top_imports(_lecture_path(app, panel["target"]))
        else:
            names.add("common.exercises.text")
    folder = lambda m: REPO / m.replace(".", "/")  # noqa: E731
    return sorted(m for m in names if folder(m).with_suffix(".py").is_file() or folder(m).is_dir())


def page_assets(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """html-page-context: the panel's script, on pages that have a panel only."""
    runtime, say = _runtime(), panel_words(app)
    if doctree is None or doctree.next_node(runner_panel) is None or not runtime.available:
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
            # the files the worker loads by name, so no browser keeps a stale copy
            "data-assets": digest(*(STATIC_SOURCE / n for n in WORKER_FILES)),
            "data-vendor": getattr(app, "_runner_vendor", ""),
            "data-download": str(getattr(app, "_runner_download", 0)),
            "data-service-worker": SERVICE_WORKER,
            # runner.js's words in the page's language (an English page: its own)
            "data-words": None if say is str else json.dumps({w: say(w) for w in script_words()}),
        })  # fmt: skip


def write_static(app: Sphinx) -> None:
    """builder-inited: pack the course now, so the pages can name the zip's digest."""
    if app.builder.format != "html":
        return
    runtime = _runtime()
    if not runtime.available:
        logger.verbose("runner: Run-it-here panels are off: %s", runtime.reason)
        return
    lectures = [_lecture_path(app, stem) for stem in app.config.runner_lectures]
    staging = Path(app.outdir) / "_static" / "runner"
    course, _ = pack_course(lectures, staging / "course.zip")
    app._runner_digest = course  # type: ignore[attr-defined]
    stdlib, why = compiled_stdlib(runtime, runtime.folder.parent / ".cache" / "roofline-runner")
    if stdlib is None:
        logger.verbose("runner: serving the standard library as source: %s", why)
    folder = copy_runtime(runtime, staging, stdlib)
    runtime_files = [folder / name for name in RUNTIME_FILES]
    # what a reader's browser fetches to start Python once: the runtime files and the course
    fetched = [staging / "course.zip", *runtime_files]
    app._runner_download = sum(p.stat().st_size for p in fetched)  # type: ignore[attr-defined]
    # the service worker at the site's root, its cache named after the runtime
    worker = (STATIC_SOURCE / SERVICE_WORKER).read_text(encoding="utf-8")
    token = f"{runtime.version}-{digest(*runtime_files)}"
    (Path(app.outdir) / SERVICE_WORKER).write_text(worker.replace("RUNTIME_TOKEN", token), "utf-8")
    vendor, why = bundle_vendor(staging / "vendor")
    if not vendor:
        logger.warning("runner: no editor or chart bundle (%s): the panels are off", why)
    app._runner_vendor = vendor  # type: ignore[attr-defined]


def bundle_vendor(target: Path) -> tuple[str, str]:
    """(A digest of the editor and chart bundles esbuild wrote into `target`, '') or ('', why)."""
    if shutil.which("node") and not (REPO / "node_modules" / "esbuild").is_dir():
        return "", "node_modules/esbuild is missing (run npm ci)"
    target.mkdir(parents=True, exist_ok=True)
    why = run_node("esbuild", BUNDLE_SCRIPT, target, timeout=300)
    bundles = [target / "editor.js", target / "chart.js"]
    if why or not all(b.is_file() for b in bundles):
        return "", why or "esbuild failed: no bundle written"
    return digest(*bundles), ""


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the configuration, the panel node and the build steps."""
    app.add_config_value("runner_lectures", {}, "env", types=[dict])
    app.add_config_value("runner_exercises", (), "env", types=[tuple, list])
    app.add_config_value("runner_charts", (), "env", types=[tuple, list, set])
    app.add_config_value("runner_chips", {}, "env", types=[dict])
    app.add_node(runner_panel, html=(visit_panel_html, None))
    app.connect("config-inited", check_config)
    app.connect("builder-inited", write_static)
    app.connect("builder-inited", add_messages)
    app.connect("doctree-read", add_panels)
    app.connect("html-page-context", page_assets)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
