"""The layout's rules: no import cycles, pure layers stay pure, the course script still runs.

Imports are read from the source (every ``import`` and ``from ... import``, also
the ones inside functions), so a cycle hidden in a function body is found too.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
COMMON = REPO / "common"
COURSE_SCRIPT = REPO.parent / "shared" / "reference" / "003_eee6a73c0f0843f4.txt"
PURE_PACKAGES = ("common.formulas", "common.tables")
PURE_MODULES = ("common.hw_specs",)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(COMMON.rglob("*.py"))}


def imported(name: str) -> set[str]:
    """Every module `name` imports anywhere in its source (as dotted names)."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            for alias in node.names:  # `from common.measure import caches` imports a module
                if f"{node.module}.{alias.name}" in MODULES:
                    found.add(f"{node.module}.{alias.name}")
    return found


def common_imports(name: str) -> set[str]:
    """The modules of `common` that `name` imports (packages without code left out)."""
    return {
        m
        for m in imported(name)
        if m in MODULES and m != name and MODULES[m].read_text(encoding="utf-8").count("import")
    }


def in_layer(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def test_the_layout_has_every_role() -> None:
    for package in ("formulas", "tables", "measure", "plots", "present", "files", "exercises"):
        assert (COMMON / package / "__init__.py").is_file(), package
    for fixed in ("hw_specs.py", "console.py", "roofline.py"):
        assert (COMMON / fixed).is_file(), fixed


def test_no_import_cycles() -> None:
    graph = {name: common_imports(name) for name in MODULES}
    state: dict[str, int] = {}  # 1: on the current path, 2: finished
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = [*path[path.index(nxt) :], nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_third_party_imports_stay_in_their_layer(name: str) -> None:
    third_party = {m.split(".")[0] for m in imported(name)} & {"numpy", "matplotlib"}
    if "numpy" in third_party:
        assert in_layer(name, ("common.measure",)), f"{name} imports numpy"
    if "matplotlib" in third_party:
        assert in_layer(name, ("common.plots",)), f"{name} imports matplotlib"


@pytest.mark.parametrize(
    "name", [n for n in sorted(MODULES) if in_layer(n, PURE_PACKAGES) or n in PURE_MODULES]
)
def test_formulas_and_tables_import_only_formulas_and_tables(name: str) -> None:
    allowed = (*PURE_PACKAGES, *PURE_MODULES)
    for dep in common_imports(name):
        assert in_layer(dep, allowed), f"{name} imports {dep}"


def python(
    *args: str, cwd: Path = REPO, pythonpath: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run this interpreter with `args`; PYTHONPATH is the repository unless told otherwise."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath:
        env["PYTHONPATH"] = str(REPO)
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
        check=False,
    )


BLOCK_NUMPY_AND_MATPLOTLIB = """
import importlib, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("numpy", "matplotlib"):
            raise ImportError(f"{name} is blocked in this test")
sys.meta_path.insert(0, Block())
"""


def test_pure_layers_import_with_numpy_and_matplotlib_blocked() -> None:
    names = [n for n in MODULES if in_layer(n, PURE_PACKAGES) or n in PURE_MODULES]
    code = BLOCK_NUMPY_AND_MATPLOTLIB + (
        f"for name in {sorted(names)!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('common.present', 'common.plots',"
        " 'common.measure', 'common.files')))\n"
        "print('loaded', bad)\n"
    )
    proc = python("-c", code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "loaded []"


def test_standard_library_modules_import_without_site_packages(tmp_path: Path) -> None:
    """What lectures 02 and 06-08 need imports on ``python3 -S`` (no numpy, no matplotlib)."""
    code = (
        "import sys; sys.path.insert(0, " + repr(str(REPO)) + ")\n"
        "import common.console, common.roofline, common.hw_specs, common.exercises\n"
        "import common.formulas.transformer, common.present.cli, common.present.display\n"
        "import common.present.basics, common.present.llm\n"
        "print('ok', 'numpy' in sys.modules, 'matplotlib' in sys.modules)\n"
    )
    proc = python("-S", "-c", code, cwd=tmp_path, pythonpath=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok False False"


@pytest.mark.parametrize(
    "lecture",
    [
        "02_roofline_basics.py",
        "06_llm_speed.py",
        "07_llm_capacity.py",
        "08_llm_levers.py",
        "11_predict_and_check.py",
    ],
)
def test_formula_lectures_run_on_bare_python_from_elsewhere(lecture: str, tmp_path: Path) -> None:
    proc = python("-S", str(REPO / "lectures" / lecture), cwd=tmp_path, pythonpath=False)
    assert proc.returncode == 0, proc.stderr
    assert "ridge" in proc.stdout.lower()


def test_the_course_script_runs_through_one_line_shims(tmp_path: Path) -> None:
    """The CS349E lecture script imports console, hw_specs and roofline: shims suffice."""
    if not COURSE_SCRIPT.is_file():
        pytest.skip(f"the course's lecture script is not beside the repository ({COURSE_SCRIPT})")
    for name in ("console", "hw_specs", "roofline"):
        (tmp_path / f"{name}.py").write_text(f"from common.{name} import *  # noqa: F403\n")
    script = tmp_path / "02_roofline_basics.py"
    script.write_text(COURSE_SCRIPT.read_text(encoding="utf-8"), encoding="utf-8")
    proc = python("-S", str(script), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # The script prints H100's bf16 ridge (989e12 / 3.35e12 = 295.2) and H200's (206.0).
    assert "295" in proc.stdout and "206" in proc.stdout


def test_package_docstring_maps_every_subpackage_and_module() -> None:
    import common

    doc = common.__doc__ or ""
    for name in MODULES:
        if name == "common" or name.endswith("__main__"):
            continue
        short = name.removeprefix("common.")
        assert f"``{short}``" in doc, f"common/__init__.py does not map {short}"
