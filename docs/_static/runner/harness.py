"""The Python side of the "Run it here" panels (standard library only): `run_json` runs a
lecture or exercise on the reader's table as a terminal would, stdout and stderr in order;
`compile_zip` ships the standard library as bytecode (docs/_ext/runner_stdlib.mjs)."""

from __future__ import annotations

import importlib
import importlib.util
import io
import json
import os
import runpy
import sys
from collections.abc import Sequence
from contextlib import redirect_stderr, redirect_stdout, suppress
from pathlib import Path
from typing import Any

TABLE = "common/hw_specs.py"  # relative to the course folder
EXERCISES_PROG = "common.exercises"  # how python3 -m common.exercises names itself
CHARTS_ADAPTER = "docs/_static/runner/live.py"  # packed with the course


class Recorder(io.TextIOBase):
    """A text stream that appends (stream name, text) chunks to a shared list, in order."""

    def __init__(self, name: str, chunks: list[list[str]]) -> None:
        self.name, self.chunks = name, chunks

    def write(self, text: str) -> int:
        if self.chunks and self.chunks[-1][0] == self.name:
            self.chunks[-1][1] += text
        elif text:
            self.chunks.append([self.name, text])
        return len(text)


def setup(root: str) -> None:
    """Run from `root` (the unpacked course: ``common/``, ``lectures/``) from now on."""
    path = Path(root).resolve()
    os.chdir(path)  # every path below is relative to the course
    for folder in (path / "lectures", path):  # the lectures' opening, then the course
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    # Pyodide starts with bytecode caching off; on, later runs import from the cache.
    sys.dont_write_bytecode = False


def _execute(kind: str, argv: list[str], charts: list[Any] | None = None) -> int:
    """Run the script under the lecture's error handler (its figures into `charts`)."""
    from common.shell import cli

    cli.install_error_handler()
    try:
        if charts is not None:  # live.py imports the table: a slip there is the run's error
            runpy.run_path(CHARTS_ADAPTER)["install"](charts)
        if kind == "lecture":
            runpy.run_path(argv[0], run_name="__main__")
        else:
            runpy.run_module("common.exercises", run_name="__main__", alter_sys=False)
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        print(exc.code, file=sys.stderr)  # what Python does with sys.exit("message")
        return 1
    except BaseException as exc:  # what the interpreter hands its excepthook
        sys.excepthook(type(exc), exc, exc.__traceback__)
        return 1
    return 0


def run(
    kind: str, target: str, args: Sequence[str] = (), table: str | None = None, chart: bool = False
) -> dict[str, Any]:
    """Run a lecture or exercise on `table`: {argv, chunks [[stream, text]], status, charts};
    with `chart`, the lecture runs with --png and its figures go to the chart adapter."""
    png = ["--png"] if chart else []
    argv = [f"lectures/{target}.py", *args, *png] if kind == "lecture" else [EXERCISES_PROG, target]
    charts: list[Any] = []
    chunks: list[list[str]] = []
    saved = sys.argv, sys.excepthook, sys.stdin
    with redirect_stdout(Recorder("stdout", chunks)), redirect_stderr(Recorder("stderr", chunks)):
        if table is not None and Path(TABLE).read_text(encoding="utf-8") != table:
            Path(TABLE).write_text(table, encoding="utf-8")
            # A same-size rewrite within a second passes the cache's (mtime, size) check: drop it.
            Path(importlib.util.cache_from_source(TABLE)).unlink(missing_ok=True)
        for name in [m for m in sys.modules if m.split(".")[0] in ("common", "lectures")]:
            del sys.modules[name]  # every course module is read anew
        importlib.invalidate_caches()
        sys.argv = argv
        sys.stdin = io.StringIO()
        try:
            status = _execute(kind, argv, charts if chart else None)
        finally:
            sys.argv, sys.excepthook, sys.stdin = saved
            sys.stdout.flush()
    return dict(argv=argv, chunks=chunks, status=status, charts=charts if status == 0 else [])


def run_json(request: str) -> str:
    """`run` for the web worker: JSON ``{kind, target, args, table, chart}`` in, JSON out."""
    return json.dumps(run(**json.loads(request)), allow_nan=False)


def warm_up(modules: list[str]) -> None:
    """Import (and so compile) `modules` once, so that the first Run is as quick as the rest."""
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        for name in modules:
            # A module that needs numpy or matplotlib fails here; Run will say so itself.
            with suppress(Exception):
                importlib.import_module(name)


def compile_zip(source: str, target: str) -> tuple[int, int]:
    """Copy the zip `source` to `target` with each compilable ``.py`` as this interpreter's
    sourceless, unchecked hash-based ``.pyc``; (modules compiled, other files kept)."""
    import compileall
    import py_compile
    import shutil
    import tempfile
    import zipfile

    with tempfile.TemporaryDirectory() as folder:
        zipfile.ZipFile(source).extractall(folder)
        mode = py_compile.PycInvalidationMode.UNCHECKED_HASH
        compileall.compile_dir(folder, ddir=source, quiet=2, legacy=True, invalidation_mode=mode)
        files = [p for p in Path(folder).rglob("*") if p.is_file()]
        compiled = [p for p in files if p.suffix == ".py" and p.with_suffix(".pyc").is_file()]
        for path in compiled:
            path.unlink()
        shutil.make_archive(target.removesuffix(".zip"), "zip", folder)
    return len(compiled), len(files) - 2 * len(compiled)
