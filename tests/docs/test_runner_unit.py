"""The Run-it-here panels without a browser: packing, configuration, their words in Chinese,
and the harness (``docs/_static/runner/harness.py``) run on a bare ``python -S`` (no numpy or
matplotlib, as in Pyodide) over the zip the build packs, printing what a terminal prints."""

from __future__ import annotations

import json
import os
import re
import runpy
import shutil
import subprocess
import sys
import zipfile
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import (
    H100_BANDWIDTH,
    H100_BF16_PEAK,
    REPO,
    conf_value,
    critical_batch,
    lecture_path,
    load_extension,
    run_python,
    translations,
)
from docutils import nodes

from common.shell import interface

runner = load_extension("runner")

HARNESS = REPO / "docs" / "_static" / "runner" / "harness.py"
TABLE = (REPO / "common" / "hw_specs.py").read_text(encoding="utf-8")

# The panels' configuration, from what each lecture declares (as docs/conf.py reads it).
ABOUT = {s: interface.declared(p) for s, p in interface.lectures(REPO / "lectures").items()}
LECTURES = {s: tuple(a["flags"]) for s, a in ABOUT.items() if "flags" in a}
EXERCISES = conf_value("runner_exercises")
# The panel's words: its say("...") calls in runner.js, their Chinese in runner.po.
SOURCE = (REPO / "docs" / "_static" / "runner" / "runner.js").read_text(encoding="utf-8")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
CJK = re.compile(r"[\u4e00-\u9fff]")
RUNNER_PO = REPO / "docs" / "locale" / "zh_CN" / "LC_MESSAGES" / f"{runner.MESSAGES_DOMAIN}.po"


def bare(*args: str, env: dict[str, str] | None = None, **kwargs) -> subprocess.CompletedProcess:
    """``python -S ARGS`` (no site-packages, as in the browser) in a clean environment (with
    `check`, asserted to exit 0)."""
    unset = ("COLUMNS", "LINES", "PYTHONPATH")
    clean = {k: None for k in os.environ if k.startswith("ROOFLINE_") or k in unset}
    return run_python("-S", *args, env={**clean, **(env or {})}, **{"timeout": 60, **kwargs})


def copy_of(course: Path, work: Path) -> Path:
    """A fresh copy of the unpacked course at `work`."""
    shutil.rmtree(work, ignore_errors=True)
    return shutil.copytree(course, work)


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The zip the build packs, unpacked: the course folder the browser sees."""
    folder = tmp_path_factory.mktemp("course")
    target = folder / "course.zip"
    runner.pack_course([lecture_path(s) for s in LECTURES], target)
    with zipfile.ZipFile(target) as archive:
        archive.extractall(folder / "course")
    return folder / "course"


DRIVER = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("rl_harness", sys.argv[1])
harness = importlib.util.module_from_spec(spec)
sys.modules["rl_harness"] = harness
spec.loader.exec_module(harness)
harness.setup(sys.argv[2])
for line in sys.stdin:
    print(harness.run_json(line), flush=True)
"""


def harness_runs(course: Path, *requests: dict, tmp: Path) -> list[dict]:
    """Run requests through the harness in one bare (-S) CPython, as the worker does."""
    work = copy_of(course, tmp / "harness-course")
    lines = "".join(json.dumps(r) + "\n" for r in requests)
    proc = bare("-c", DRIVER, str(HARNESS), str(work), input=lines, timeout=180, check=True)
    return [json.loads(line) for line in proc.stdout.splitlines()]


def stream(result: dict, name: str) -> str:
    return "".join(text for s, text in result["chunks"] if s == name)


def terminal(course: Path, table: str, argv: list[str], tmp: Path) -> subprocess.CompletedProcess:
    """The same command in a terminal: a copy of the course with `table` as its hardware table."""
    work = copy_of(course, tmp / "terminal-course")
    (work / "common" / "hw_specs.py").write_text(table, encoding="utf-8")
    command = ["-m", "common.exercises", *argv[1:]] if argv[0] == "common.exercises" else argv
    return bare(*command, cwd=work, timeout=120)


def edit_chip(table: str, chip_name: str, old: str, new: str) -> tuple[str, int]:
    """Replace the first `old` after `name="chip_name"`; the new table and that line (from 1)."""
    at = table.index(old, table.index(f'name="{chip_name}"'))
    return table[:at] + new + table[at + len(old) :], table.count("\n", 0, at) + 1


def test_every_module_of_the_course_imports_with_numpy_and_matplotlib_absent(
    course: Path, tmp_path: Path
) -> None:
    packed = sorted(p.relative_to(course) for p in course.rglob("*.py"))
    for folder in (REPO / "common", REPO / "lectures" / "words"):
        assert {p.relative_to(REPO) for p in folder.rglob("*.py")} <= set(packed), folder
    names = [
        ".".join(p.with_suffix("").parts).removesuffix(".__init__")
        for p in packed
        if p.parts[0] == "common" or p.parts[:2] == ("lectures", "words")]  # fmt: skip
    names = [n for n in names if not n.endswith("__main__")]  # a __main__ would run
    assert "common.hw_specs" in names and "lectures.words.llm_speed" in names
    code = (
        "import importlib, sys\n"
        f"sys.path.insert(0, {str(course)!r})\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "print('numpy' in sys.modules, 'matplotlib' in sys.modules)\n")  # fmt: skip
    proc = bare("-c", code, cwd=course, check=True)
    assert proc.stdout.split() == ["False", "False"]
    for stem in LECTURES:
        assert runner.foreign_imports(lecture_path(stem)) == [], stem
    # the harness warms up its imports quietly, passing over a module that is not there
    code = DRIVER.split("for line")[0] + (
        "harness.warm_up(['common.shell.cli', 'common.no_such_module', 'common.hw_specs'])\n"
        "print(sorted(m for m in sys.modules if m in ('common.shell.cli', 'common.hw_specs')))\n"
    )
    proc = bare("-c", code, str(HARNESS), str(course), check=True)
    assert proc.stdout.strip() == "['common.hw_specs', 'common.shell.cli']"
    # and a lecture that imports numpy cannot have a panel
    fake = tmp_path / "99_fake.py"
    fake.write_text(
        "import _course\nimport numpy as np\nfrom common.hw_specs import H100\n"
        "from scipy import linalg\n\ndef later():\n    import torch\n",
        encoding="utf-8")  # fmt: skip
    (tmp_path / "_course.py").write_text("", encoding="utf-8")
    assert runner.foreign_imports(fake) == ["numpy", "scipy"]
    config = SimpleNamespace(
        runner_lectures={"99_fake": ()},
        runner_exercises=(),
        sphinx_gallery_conf={"examples_dirs": str(tmp_path)})  # fmt: skip
    with pytest.raises(runner.ExtensionError, match=r"99_fake\.py cannot run in the browser"):
        runner.check_config(SimpleNamespace(config=config), config)


def test_pack_course_holds_the_repository_files_and_is_reproducible(tmp_path: Path) -> None:
    stems = list(LECTURES)
    first, names = runner.pack_course([lecture_path(s) for s in stems], tmp_path / "a")
    again, _ = runner.pack_course([lecture_path(s) for s in stems], tmp_path / "b")
    assert first == again and (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()
    assert "common/hw_specs.py" in names and "common/shell/cli.py" in names
    # the lectures and their first line; their words: the test above
    assert [n for n in names if n.startswith("lectures/") and "/words/" not in n] == sorted(
        [*(f"lectures/{s}.py" for s in stems), "lectures/_course.py"])  # fmt: skip
    assert "docs/_static/runner/live.py" in names  # the chart adapter the harness loads
    assert not any("__pycache__" in n or not n.endswith((".py", ".csv")) for n in names)
    assert "common/tables/trtllm_0_9_dli.csv" in names  # lecture 11's bulk check reads it
    with zipfile.ZipFile(tmp_path / "a") as archive:
        assert archive.read("common/hw_specs.py") == (REPO / "common" / "hw_specs.py").read_bytes()


def help_default(stem: str, flag: str) -> str:
    """The default a lecture's --help states for a flag, e.g. '(default: h100)'."""
    proc = bare(str(lecture_path(stem)), "--help", env={"COLUMNS": "1000"}, check=True)
    entries = re.split(r"\n  (?=-)", proc.stdout)  # one entry per option, wrapped lines too
    entry = next(e for e in entries if e.startswith(f"{flag} ")).split()
    return re.search(r"\(default: ([^);]+)", " ".join(entry)).group(1)


def with_flag(*flags: str) -> str:
    """The first configured lecture whose panel offers all of `flags` (the LLM lecture)."""
    return next(stem for stem, offered in LECTURES.items() if set(flags) <= set(offered))


def test_flag_choices_and_defaults_come_from_the_lecture_parser() -> None:
    from common.hw_specs import CHIPS
    from common.tables.models import MODELS, MOE_MODELS

    registries = {"--model": tuple(MODELS), "--chip": tuple(CHIPS)}
    moe = {"--model": tuple(MOE_MODELS), "--chip": tuple(CHIPS)}  # lecture 13: mixtures only
    both = {"--model": (*MODELS, *MOE_MODELS), "--chip": tuple(CHIPS)}  # lecture 14: either
    saved = sys.argv, sys.excepthook, list(sys.path)
    for stem, flags in LECTURES.items():
        options = runner.lecture_options(lecture_path(stem), flags)
        assert [o.flag for o in options] == list(flags)
        for option in options:
            table = {"13": moe, "14": both}.get(stem[:2], registries)
            if option.flag in table:  # one_of(MODELS / CHIPS): every key, in order
                assert option.choices == table[option.flag], (stem, option.flag)
            if option.choices:
                assert option.default in option.choices or option.default == ""
            if "(default: " in option.help:
                assert option.default == help_default(stem, option.flag), (stem, option.flag)
    assert (sys.argv, sys.excepthook, sys.path) == saved  # the capture leaves no trace
    llm = with_flag("--model", "--chip")
    if "--batch" in LECTURES[llm]:
        (batch,) = runner.lecture_options(lecture_path(llm), ["--batch"])
        assert batch.choices == () and batch.default == help_default(llm, "--batch")
    with pytest.raises(runner.ExtensionError, match="set by the build"):
        runner.lecture_options(lecture_path(llm), ["--png"])
    with pytest.raises(runner.ExtensionError, match=r"has no flag --nope; it has: .*--model"):
        runner.lecture_options(lecture_path(llm), ["--nope"])


def test_a_run_prints_what_the_terminal_prints_and_table_driven_exercises_have_panels(
    course: Path, tmp_path: Path
) -> None:
    """An exercise has a panel exactly when doubling every peak changes its answer."""
    from common.exercises import EXERCISES as ALL

    llm = with_flag("--chip", "--precision")
    cases = [("lecture", stem, []) for stem in LECTURES]  # every panel, its defaults
    cases += [
        ("lecture", with_flag("--model", "--chip"), ["--model", "llama-2-7b", "--chip", "h200"]),
        ("lecture", llm, ["--chip", "h100", "--precision", "fp8"]), ("exercise", "v5e-int8", []),
        ("lecture", llm, ["--chip", "nope"]),
        ("lecture", llm, ["--chip", "tpu-v5e", "--precision", "fp8"]),
    ]  # fmt: skip
    requests = [{"kind": k, "target": t, "args": a, "table": TABLE} for k, t, a in cases]
    doubled = re.sub(r"flops\(([0-9.e]+)", lambda m: f"flops({2 * float(m.group(1))!r}", TABLE)
    assert doubled != TABLE
    for exercise in ALL:
        for table in (TABLE, doubled):
            requests.append({"kind": "exercise", "target": exercise.key, "table": table})
    results = harness_runs(course, *requests, tmp=tmp_path)
    results, answers = results[: len(cases)], results[len(cases) :]
    for (kind, target, args), result in zip(cases, results, strict=True):
        exercise = ["common.exercises", target]
        argv = [f"lectures/{target}.py", *args] if kind == "lecture" else exercise
        assert result["argv"] == argv
        proc = terminal(course, TABLE, argv, tmp_path)
        assert result["status"] == proc.returncode
        assert stream(result, "stdout") == proc.stdout, target
        assert stream(result, "stderr") == proc.stderr
        assert proc.stderr.count("\n") == (proc.returncode != 0), proc.stderr
    assert [r["status"] for r in results[-2:]] == [2, 2]
    changed = set()
    for exercise, before, after in zip(ALL, answers[::2], answers[1::2], strict=True):
        assert before["status"] == 0 and after["status"] == 0, exercise.key
        if stream(before, "stdout") != stream(after, "stdout"):
            changed.add(exercise.key)
    assert changed == set(EXERCISES)


def test_a_bad_table_is_the_terminals_one_line_and_the_next_run_works(
    course: Path, tmp_path: Path
) -> None:
    """Each bad table: on stderr the terminal's one line, and its exit status. A '(' opened on
    one line and closed by '}' two lines on: panel and terminal both name the line of the '}'
    (where Python stops), and the message keeps the line it opened on."""
    zero, _ = edit_chip(TABLE, "H100 SXM", "989e12", "0")
    typo, typo_line = edit_chip(TABLE, "H100 SXM", "989e12", "989e12x")
    name, name_line = edit_chip(TABLE, "H100 SXM", "H100_DATASHEET", "H100_DATASHET")
    gone, _ = edit_chip(
        TABLE, "H100 SXM", "mem_capacity_figure=capacity(80e9, H100_DATASHEET),", "")  # fmt: skip
    start = TABLE.index('name="H100 SXM"')
    opened = TABLE.rindex("(", 0, start)  # the call that builds the H100's chip
    close = TABLE.index("\n", TABLE.index("\n", start) + 1)  # the end of the next line
    bracket = TABLE[:close] + " }" + TABLE[close:]
    opened_line, closed_line = TABLE.count("\n", 0, opened) + 1, TABLE.count("\n", 0, close) + 1
    assert closed_line > opened_line
    tables = (zero, typo, name, gone, bracket)
    # as the page asks: lecture 02 redraws its figure, whose adapter imports the table first
    # (the bracket's run draws none); the shipped table last: the next run works
    requests = [{"kind": "lecture", "target": "02_roofline_basics", "table": t,
                 "chart": t is not bracket} for t in (*tables, TABLE)]  # fmt: skip
    # an exercise too: `python3 -m common.exercises` installs no handler, the panel gives one line
    zero_v5e, _ = edit_chip(TABLE, "TPU v5e", "394e12", "0")
    requests.append({"kind": "exercise", "target": "v5e-int8", "table": zero_v5e})
    *runs, good, exercise = harness_runs(course, *requests, tmp=tmp_path)
    assert (exercise["status"], stream(exercise, "stderr")) == (
        1,
        "common.exercises: error: v5e-int8: TPU v5e int8 peak FLOP/s must be a positive "
        "finite number, got 0\n")  # fmt: skip
    said = []
    for table, run in zip(tables, runs, strict=True):
        proc = terminal(course, table, ["lectures/02_roofline_basics.py"], tmp_path)
        assert stream(run, "stderr") == proc.stderr and proc.stderr.count("\n") == 1
        assert run["status"] == proc.returncode == 1
        said.append(proc.stderr.removeprefix("02_roofline_basics.py: error: "))
    assert said[0].startswith("H100 SXM bf16 peak")  # a zero peak
    # Typos in the table: the line of common/hw_specs.py, and Python's words.
    assert said[1].startswith(f"common/hw_specs.py line {typo_line}:")
    assert said[1].endswith(": invalid decimal literal\n")
    assert said[2].startswith(f"common/hw_specs.py line {name_line}:")
    assert said[2].endswith(": name 'H100_DATASHET' is not defined\n")
    # A deleted field: the table's own slip line, with no prefix.
    assert re.fullmatch(
        r"common/hw_specs\.py line \d+: chip h100 \(H100 SXM\) is missing its field "
        r"mem_capacity_figure\n",
        said[3])  # fmt: skip
    assert said[4] == (
        f"common/hw_specs.py line {closed_line}: closing parenthesis '}}' does not match "
        f"opening parenthesis '(' on line {opened_line}\n")  # fmt: skip
    assert good["status"] == 0 and "ridge 295 FLOP/B" in stream(good, "stdout")


def test_find_runtime_says_what_is_missing_and_copies_the_compiled_stdlib(tmp_path: Path):
    missing = runner.find_runtime(tmp_path / "pyodide")
    assert not missing.available and "is missing" in missing.reason
    folder = tmp_path / "pyodide"
    folder.mkdir()
    (folder / "package.json").write_text('{"version": "1.2.3"}', encoding="utf-8")
    (folder / "pyodide.mjs").write_text("//", encoding="utf-8")
    partial = runner.find_runtime(folder)
    assert not partial.available and "pyodide.asm.wasm" in partial.reason
    for name in runner.RUNTIME_FILES:
        (folder / name).write_text(name, encoding="utf-8")
    found = runner.find_runtime(folder)
    assert found.available and found.version == "1.2.3" and found.subdir == "pyodide-1.2.3"
    stdlib = tmp_path / "compiled.zip"
    stdlib.write_text("bytecode", encoding="utf-8")
    copied = runner.copy_runtime(found, tmp_path / "site", stdlib)
    assert sorted(p.name for p in copied.iterdir()) == sorted(runner.RUNTIME_FILES)
    assert (copied / "python_stdlib.zip").read_text(encoding="utf-8") == "bytecode"
    assert (copied / "pyodide.mjs").read_text(encoding="utf-8") == "pyodide.mjs"


def test_compile_zip_gives_importable_sourceless_bytecode(tmp_path: Path) -> None:
    source = tmp_path / "lib.zip"
    with zipfile.ZipFile(source, "w") as archive:
        archive.writestr("mod.py", "def f():\n    return 6 * 7\n")
        archive.writestr("pkg/__init__.py", "from pkg.inner import VALUE\n")
        archive.writestr("pkg/inner.py", "VALUE = 'inner'\n")
        archive.writestr("broken.py", "def (:\n")
        archive.writestr("data.txt", "kept")
    target = tmp_path / "lib-pyc.zip"
    code = DRIVER.split("harness.setup")[0] + (  # the harness loaded, not set up
        "print(harness.compile_zip(sys.argv[2], sys.argv[3]))\n"
        "sys.path.insert(0, sys.argv[3])\n"
        "import mod, pkg\n"
        "print(mod.f(), pkg.VALUE, mod.__file__.endswith('.pyc'))\n")  # fmt: skip
    proc = bare("-c", code, str(HARNESS), str(source), str(target), check=True)
    assert proc.stdout.splitlines() == ["(3, 2)", "42 inner True"]
    with zipfile.ZipFile(target) as archive:
        names = sorted(n for n in archive.namelist() if not n.endswith("/"))
        assert names == ["broken.py", "data.txt", "mod.pyc", "pkg/__init__.pyc", "pkg/inner.pyc"]
        assert archive.read("data.txt") == b"kept"


def test_panel_html_names_why_it_is_unavailable_in_either_language() -> None:
    off = runner.Runtime(Path("node_modules/pyodide"), reason="npm is <missing>")
    lecture_data = {"kind": "lecture", "target": "02_roofline_basics", "options": "[]"}
    text = runner.panel_html(lecture_data, off, "x")
    assert 'data-unavailable="1"' in text and "rl-runner-table" not in text
    assert "unavailable in this build" in text and "npm is &lt;missing&gt;" in text  # escaped
    on = runner.Runtime(Path("node_modules/pyodide"), version="1")
    data = {"kind": "exercise", "target": "v5e-int8", "options": "[]", "chip": ""}
    text = runner.panel_html(data, on, "s = '</script>'\n")
    assert "data-unavailable" not in text and "data-chip" not in text  # empty: left out
    assert 'data-target="v5e-int8"' in text and "Run it here" in text
    embedded = re.search(r'class="rl-runner-table">(.*)</script>', text).group(1)
    assert "</" not in embedded
    assert json.loads(embedded.replace("<\\/", "</")) == "s = '</script>'\n"
    charted = runner.panel_html({**lecture_data, "chip": "h100", "chart": "1"}, on)
    assert 'data-chip="h100"' in charted and 'data-chart="1"' in charted
    # a Chinese page carries the Chinese title and status line
    zh = translations(RUNNER_PO)
    page = runner.panel_html(data, on, "", say=zh.__getitem__)
    assert zh[runner.STATUS_READY] in page and "needs JavaScript" not in page
    assert zh[runner.TITLE] in page and "Run it here" not in page
    page = runner.panel_html(data, off, "", say=zh.get)
    status = re.search(r'class="rl-runner-status" role="status">(.*?)</span>', page).group(1)
    assert CJK.search(status) and "npm is &lt;missing&gt;" in status  # the reason escaped
    assert "unavailable in this build" not in status


def test_panels_go_after_the_prose_and_after_the_answer() -> None:
    doc = nodes.document(None, None)
    top = nodes.section()
    top += nodes.title("", "Lecture")
    top += nodes.paragraph("", "prose")
    top += nodes.literal_block("", "import x")
    doc += top
    runner.insert_lecture_panel(doc, runner.panel_node("lecture", "02_roofline_basics"))
    names = [type(c).__name__ for c in top.children]
    assert names == ["title", "paragraph", "runner_panel", "literal_block"]

    page = nodes.document(None, None)
    for key in ("v5e-int8", "largest-batch"):
        section = nodes.section(ids=[f"exercise-{key}", key], classes=["exercise"])
        section += nodes.title("", key)
        section += nodes.paragraph("", "question")
        section += nodes.container(classes=["exercise-answer"])
        page += section
    assert runner.insert_exercise_panels(page, ["v5e-int8"]) == ["v5e-int8"]
    first, second = page.children
    assert [type(c).__name__ for c in first.children] == [*names[:2], "container", names[2]]
    assert first.children[3]["target"] == "v5e-int8"
    assert not list(second.findall(runner.runner_panel))


def test_the_stdlib_is_compiled_once_and_cached_and_nothing_is_built_without_node(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = runner.Runtime(tmp_path / "pyodide", version="9.9")
    calls = tmp_path / "calls"
    fake_node = tmp_path / "node"
    fake_node.write_text(  # args: script, runtime folder, harness, output zip
        f'#!/bin/sh\necho run >> "{calls}"\nprintf bytecode > "$4"\n', encoding="utf-8"
    )
    fake_node.chmod(0o755)
    monkeypatch.setattr(runner.shutil, "which", lambda name: str(fake_node))
    first, why = runner.compiled_stdlib(runtime, tmp_path / "cache")
    again, _ = runner.compiled_stdlib(runtime, tmp_path / "cache")
    assert why == "" and first == again and first.read_text(encoding="utf-8") == "bytecode"
    assert first.name.startswith("python_stdlib-9.9-")
    assert calls.read_text(encoding="utf-8").split() == ["run"]  # the second build reused it

    fake_node.write_text('#!/bin/sh\necho "SyntaxError: old node" >&2\nexit 1\n', encoding="utf-8")
    failed, why = runner.compiled_stdlib(runtime, tmp_path / "other-cache")
    assert failed is None and why == "node failed: SyntaxError: old node"
    assert not list((tmp_path / "other-cache").iterdir())  # nothing half-written kept
    monkeypatch.setattr(runner.shutil, "which", lambda name: None)
    assert runner.compiled_stdlib(runtime, tmp_path / "cache") == (first, "")  # cached: no node
    assert runner.compiled_stdlib(runtime, tmp_path / "new") == (None, "node is not installed")
    assert runner.bundle_vendor(tmp_path / "vendor") == ("", "node is not installed")
    # make without npm says so in one line and succeeds
    if shutil.which("make") is None:
        return  # make is not installed
    runtime = runner.display_path(runner.REPO / "node_modules" / "pyodide" / "package.json")
    proc = subprocess.run(
        ["make", "-s", "-W", "package-lock.json", runtime, "NPM=rl-no-such-npm"],
        capture_output=True, text=True, cwd=REPO, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("\n") == 1 and proc.stderr == ""
    assert "npm is not installed" in proc.stdout and "panels are off" in proc.stdout


def test_an_edited_peak_moves_the_ridge_the_critical_batch_and_the_figure(
    course: Path, tmp_path: Path
) -> None:
    edited, _ = edit_chip(TABLE, "H100 SXM", "989e12", "1978e12")
    plain, before, after = harness_runs(
        course,
        {"kind": "lecture", "target": "02_roofline_basics", "table": TABLE},
        {"kind": "lecture", "target": "02_roofline_basics", "table": TABLE, "chart": True},
        {"kind": "lecture", "target": "02_roofline_basics", "table": edited, "chart": True},
        tmp=tmp_path)  # fmt: skip
    assert plain["charts"] == [] and plain["argv"] == ["lectures/02_roofline_basics.py"]
    # The chart's run prints what the terminal prints, less the text chart the figure
    # replaces (lecture 02 draws its roofline in text only without a figure).
    shown, terminal = stream(before, "stdout"), stream(plain, "stdout")
    assert "Roofline of H100 SXM, bf16" in terminal and "Roofline of H100 SXM" not in shown
    assert [line for line in shown.splitlines() if line not in terminal.splitlines()] == []
    assert before["status"] == after["status"] == 0
    for result, peak in ((before, H100_BF16_PEAK), (after, 2 * H100_BF16_PEAK)):
        ridge = peak / H100_BANDWIDTH  # 295.2, then 590.4 FLOP/byte
        out = stream(result, "stdout")
        assert f"H100 SXM (ridge {ridge:.0f} FLOP/B)" in out
        row = re.search(r"^H100 SXM\s+bf16\s+bf16/bf16/bf16 .*$", out, re.MULTILINE).group(0)
        assert row.split()[-2:] == [f"{ridge:.0f}", str(critical_batch(ridge))]
        (spec,) = result["charts"]
        h100 = [r for r in spec["datasets"]["roofs"] if r["roof"] == "H100 SXM bf16"]
        assert max(r["tflops"] for r in h100) == pytest.approx(peak / 1e12)  # 989, then 1978
        corner = min((r["intensity"] for r in h100), key=lambda i: abs(i - ridge))
        assert corner == pytest.approx(ridge)
        assert "sits on the bold H100 SXM roof" in spec["description"]
        # the other chips' roofs do not move: H200's bf16 peak is 989 TFLOPS in its datasheet
        h200 = [r["tflops"] for r in spec["datasets"]["roofs"] if r["roof"] == "H200 bf16"]
        assert max(h200) == pytest.approx(989)


CHARTED = ("05_operator_ledger", "06_llm_speed", "07_llm_capacity", "13_mixture_of_experts")


@pytest.mark.parametrize("stem", [*CHARTED, "14_serving_a_fleet"])
def test_each_charted_lecture_emits_one_chart(course: Path, tmp_path: Path, stem: str) -> None:
    assert ABOUT[stem].get("figure")
    (result,) = harness_runs(
        course, {"kind": "lecture", "target": stem, "table": TABLE, "chart": True}, tmp=tmp_path
    )
    assert result["status"] == 0, result["chunks"]
    (spec,) = result["charts"]
    assert spec["description"] and all(spec["datasets"].values())
    if stem == "07_llm_capacity":
        # Stacked terms: at each batch the four add up; the capacity line is the H100's 80 GB.
        assert spec["datasets"]["limits"][0]["gb"] == pytest.approx(80)
        assert set(Counter(r["batch"] for r in spec["datasets"]["ledger"]).values()) == {4}
    if stem in ("13_mixture_of_experts", "14_serving_a_fleet"):
        # A memory-bound decode step costs about the same at any small batch: tokens/s per
        # GPU rise with the batch (13) and dollars per token fall (14), series by series.
        rows = spec["datasets"]["lines"]
        rise = stem.startswith("13")
        for name in {r["series"] for r in rows}:
            values = [
                r["value"] for r in sorted(rows, key=lambda r: r["batch"]) if r["series"] == name
            ]
            assert values == sorted(values, reverse=not rise), name
        marks = {m["what"]: m["batch"] for m in spec["datasets"]["marks"]}
        if rise:  # each expert meets k / E of the batch: its knee comes after the twin's
            knee = {w.split()[0]: b for w, b in marks.items() if "compute-bound" in w}
            assert knee["experts"] > knee["twin"], marks
        else:
            assert marks == {"batch 64": 64}  # the lecture's default --batch


def load_live() -> SimpleNamespace:
    return SimpleNamespace(**runpy.run_path(str(runner.CHART_ADAPTER)))


def test_live_roofs_are_the_corners_of_min_p_i_beta_under_a_title_a_phone_holds() -> None:
    live = load_live()
    rows = live.roof_rows("X", 100e12, 1e12, 1.0, 1000.0)  # ridge at 100 FLOP/B
    corners = [(r["intensity"], r["tflops"]) for r in rows]
    assert corners == [(1.0, 1.0), (100.0, 100.0), (1000.0, 100.0)]
    points = [("a", 0.2, 0.0), ("b", 3000.0, 0.0)]  # the static figure's decades
    assert live.x_range([("X", 100e12, 1e12)], points) == (0.1, 10000.0)
    # Lecture 02's title ran off both edges of the redrawn chart at 390 px: it breaks at
    # spaces into lines vega draws one under the other (issue 34)
    drawn = live.roofline("bf16 rooflines; points placed on H100 SXM", [("X", 1e14, 1e12)], [])
    assert drawn["title"] == ["bf16 rooflines; points placed", "on H100 SXM"]  # 29 + 11
    assert live.roofline("Operators", [("X", 1e14, 1e12)], [])["title"] == ["Operators"]
    # lecture 14's title touched both edges at 34 characters and broke inside "GPU-hour"
    long = "Decode cost on H100 SXM at $2/GPU-hour, cache at 2,304 tokens"
    cost = live.roofline(long, [("X", 1e14, 1e12)], [])
    assert cost["title"] == ["Decode cost on H100 SXM at", "$2/GPU-hour, cache at 2,304", "tokens"]
    # its legend's second column ran off the right edge: one column
    assert cost["config"]["legend"]["columns"] == 1


def test_redrawn_points_are_numbered_with_a_key(tmp_path: Path) -> None:
    """On a phone names beside points run together: each point shows its number, and the
    spec's key (usermeta, read into the panel's caption) says what the number is; lecture
    05's figure hands its own key to the redrawn chart."""
    from common.plots.roofline import RooflinePanel, roofline_panels_figure
    from common.shell import sink

    live = load_live()
    spec = live.roofline("R", [("X", 100e12, 1e12)], [("matmul, B=1024", 1e3, 1e14),
                                                      ("matmul, B=4096", 3e3, 1e14)])  # fmt: skip
    assert [p["n"] for p in spec["datasets"]["points"]] == ["1", "2"]
    assert spec["usermeta"]["key"] == ["1 matmul, B=1024", "2 matmul, B=4096"]
    # odd numbers above their point, even ones below: lecture 05's 2 and 3 sat on each other
    odd, even = [layer for layer in spec["layer"] if layer["mark"]["type"] == "text"]
    assert odd["encoding"]["text"] == even["encoding"]["text"] == {"field": "n"}
    assert odd["mark"]["dy"] < 0 < even["mark"]["dy"]
    assert odd["transform"] == [{"filter": "toNumber(datum.n) % 2 == 1"}]
    assert even["transform"] == [{"filter": "toNumber(datum.n) % 2 == 0"}]
    drawn_charts: list[dict] = []
    live.install(drawn_charts)
    try:
        panel = RooflinePanel("X bf16", ("X", 100e12, 1e12), [("1", 10.0, 1e13), ("2", 1e3, 1e14)])
        roofline_panels_figure(tmp_path / "f.png", [panel], ["1  add", "2  GEMM"], "Operators")
    finally:
        sink.divert(None)
    (drawn,) = drawn_charts
    assert drawn["usermeta"]["key"] == ["1 add", "2 GEMM"]
    assert [p["n"] for p in drawn["datasets"]["points"]] == ["1", "2"]


def test_plain_math_writes_tex_without_markup_and_no_exercise_prints_tex() -> None:
    from common.exercises import EXERCISES as ALL
    from common.exercises.text import format_exercise
    from common.present.plain_math import plain

    said = {
        r"I^* = \frac{P_{\text{peak}}}{\beta}": "I^* = P_peak / beta",
        r"T = \max\!\left(\frac{F}{P},\; \frac{D}{\beta}\right)": "T = max(F / P, D / beta)",
        r"\frac{2 B d^2}{4\,(d^2 + 2 B d)} \;\geq\; I^*": "(2 B d^2) / (4 (d^2 + 2 B d)) >= I^*",
        r"2BSLd_{kv}b_{kv} \leq \text{budget}": "2BSLd_kv b_kv <= budget"}  # fmt: skip
    assert {tex: plain(tex) for tex in said} == said
    for exercise in ALL:
        out = format_exercise(exercise)
        assert not re.search(r"\\[A-Za-z]+|[{}]", out.split("Worked answer:")[1]), exercise.key


# --- The panel's words in Chinese: every say("...") has its Chinese, placeholders kept ---
def test_no_label_bypasses_say() -> None:
    """A label, title or status given as a bare literal would stay English on a Chinese
    page (a template starting with ${...}, such as a line link, is program output)."""
    bare_literals = re.findall(
        r'(?:\b(?:text|title|label)|"aria-label"):\s*(?:"[^"]|`(?!\$\{))[^\n]*'
        r'|\b(?:setStatus\(panel|stale\(view|announce\(|boot\()\s*,?\s*(?:"[^"]|`)[^\n]*',
        SOURCE)  # fmt: skip
    assert not bare_literals, "labels not passed through say():\n" + "\n".join(bare_literals)
    # nor as text or a label written into the panel's HTML template
    html = re.findall(r'>[A-Za-z][^<$`]*<|(?:title|aria-label)="[A-Za-z][^"]*"', SOURCE)
    assert not html, "HTML text not passed through say():\n" + "\n".join(html)


def test_the_panel_words_are_the_runner_catalog() -> None:
    """make gettext writes runner.po from PANEL_WORDS and runner.js's say()s; a changed
    English line not yet in it (make gettext not run) would stay English on Chinese pages."""
    words = runner.script_words()
    assert {"Run", "Stop", "Ran in {seconds} s."} <= set(words)  # the reader finds say()s
    assert (
        "Edit the hardware table, then press Run: your browser works this answer out again "
        "with the course's own code." in words)  # fmt: skip
    catalog = translations(RUNNER_PO)
    assert set(catalog) == {*runner.PANEL_WORDS, *words}
    for english, chinese in catalog.items():  # each has its Chinese, placeholders and tags kept
        assert CJK.search(chinese), f"{english!r} is not translated"
        assert sorted(PLACEHOLDER.findall(english)) == sorted(PLACEHOLDER.findall(chinese))
        assert re.findall(r"</?\w+>", english) == re.findall(r"</?\w+>", chinese), english
