"""The layout's rules: a one-way stack of roles, pure layers stay pure, the course script runs.
Imports are read from the source, so an upward import hidden in a function body is found too."""

from __future__ import annotations

import ast
import json
import re
import textwrap
from graphlib import CycleError, TopologicalSorter
from pathlib import Path
from subprocess import CompletedProcess

import pytest
from conftest import CELL_LINE_LIMIT, PAGE_LINE_LIMIT, REPO, run_python

import common
from common.files import results
from common.measure import machine
from common.shell import interface

COMMON = REPO / "common"
PURE_PACKAGES = ("common.tables", "common.formulas")
PURE_MODULES = ("common.hw_specs",)
# The stack, ground floor first (as common/__init__.py states it): a role imports only
# roles on floors below its own. The last floor is the course script's top-level names.
FLOORS = (("tables",), ("hw_specs",), ("shell",), ("formulas",), ("measure",), ("files",),
          ("present",), ("plots",), ("exercises",), ("predict",),
          ("console", "roofline"))  # fmt: skip
FLOOR_OF = {role: level for level, roles in enumerate(FLOORS) for role in roles}


MODULES = {
    ".".join(p.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__"): p
    for p in sorted(COMMON.rglob("*.py"))}  # fmt: skip


def imported(name: str) -> set[str]:
    """Every module `name` imports anywhere in its source (as dotted names)."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level:
            pytest.fail(f"{name}: a relative import (line {node.lineno}); name the module in full")
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            for alias in node.names:  # `from common.measure import caches` imports a module
                if f"{node.module}.{alias.name}" in MODULES:
                    found.add(f"{node.module}.{alias.name}")
    return found


def common_imports(name: str) -> set[str]:
    """The modules of `common` that `name` imports (packages without code left out)."""
    return {m for m in imported(name)
            if m in MODULES and m != name
            and MODULES[m].read_text(encoding="utf-8").count("import")}  # fmt: skip


def in_layer(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def role(name: str) -> str:
    """'common.formulas.ledger' -> 'formulas'; 'common.hw_specs' -> 'hw_specs'."""
    return name.split(".")[1]


@pytest.mark.parametrize("lecture", sorted(p.name for p in REPO.glob("lectures/[0-9][0-9]_*.py")))
def test_a_lecture_page_shows_short_cells(lecture: str) -> None:
    # the code cells a reader sees, before any docs build: sphinx-gallery's code blocks less
    # their hidden parts (the browser stage counts the built page's cells the same way)
    from sphinx_gallery.py_source_parser import split_code_and_text_blocks

    blocks = split_code_and_text_blocks(str(REPO / "lectures" / lecture))[1]
    hidden = re.compile(r"# sphinx_gallery_start_ignore.*?# sphinx_gallery_end_ignore", re.S)
    cells = [sum(1 for line in hidden.sub("", code).splitlines() if line.strip())
             for kind, code, _ in blocks if kind == "code"]  # fmt: skip
    assert max(cells) <= CELL_LINE_LIMIT and sum(cells) <= PAGE_LINE_LIMIT, cells


def test_the_layout_has_every_role(tmp_path: Path) -> None:
    for r in FLOOR_OF:  # a package or a module of its own
        assert (COMMON / r / "__init__.py").is_file() or (COMMON / f"{r}.py").is_file(), r
    roles = {role(name) for name in MODULES if name != "common"}
    assert roles == set(FLOOR_OF), "add the role to FLOORS (and to common/__init__.py)"
    doc = " ".join((common.__doc__ or "").split())
    order = ", ".join(f"``{r}``" for roles in FLOORS[:-1] for r in roles)
    assert f"The stack, ground floor first: {order}." in doc
    for name in MODULES:
        short = name.removeprefix("common.")
        skip = name == "common" or short.endswith("__main__")
        assert skip or f"``{short}``" in doc, f"common/__init__.py does not map {short}"
    graph = {name: common_imports(name) for name in MODULES}
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as cycle:
        pytest.fail("import cycle: " + " -> ".join(reversed(cycle.args[1])))
    # Once lecture 01 has saved this machine's roofs, the bare lectures and the exercises still
    # run on python3 alone: they cannot check the file's machine without numpy, so they say so and
    # use the example machine.
    doc = results.new_document(machine.describe())
    doc["probe"] = {"calibration": {"bandwidth_bytes_per_s": 2e10, "matmul_flops_per_s": 1.6e11}}
    saved = tmp_path / "machine.json"
    saved.write_text(json.dumps(doc), encoding="utf-8")
    env = {"PYTHONPATH": None, "ROOFLINE_RESULTS": str(saved)}
    for args in ([str(REPO / "lectures" / lecture)] for lecture in bare_lectures()):
        proc = run_python("-S", *args, cwd=tmp_path, env=env, timeout=60, check=True)
    proc = run_python("-S", "-m", "common.exercises", "decode-context", env=env, timeout=60)
    assert proc.returncode == 0 and "example laptop" in proc.stdout, proc.stderr
    # The CS349E lecture script imports console, hw_specs and roofline: shims suffice.
    for name in ("console", "hw_specs", "roofline"):
        (tmp_path / f"{name}.py").write_text(f"from common.{name} import *  # noqa: F403\n")
    script = tmp_path / "course_script_calls.py"
    script.write_text(textwrap.dedent(COURSE_SCRIPT_CALLS), encoding="utf-8")
    proc = python("-S", str(script), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # H100's bf16 ridge: 989e12 / 3.35e12 = 295.2; H200's: 989e12 / 4.8e12 = 206.0.
    assert "295.2" in proc.stdout and "206.0" in proc.stdout


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_go_down_the_stack_and_stay_in_their_layer(name: str) -> None:
    """A role imports only roles below its floor, so no two roles import each other; numpy
    stays in measure, matplotlib in plots; formulas and tables import only each other."""
    for dep in imported(name) if name != "common" else ():
        if dep != "common" and dep.startswith("common.") and dep in MODULES:
            below = role(dep) == role(name) or FLOOR_OF[role(dep)] < FLOOR_OF[role(name)]
            assert below, f"{name} imports {dep}, which is not below it"
    third_party = {m.split(".")[0] for m in imported(name)} & {"numpy", "matplotlib"}
    if "numpy" in third_party:
        assert in_layer(name, ("common.measure",)), f"{name} imports numpy"
    if "matplotlib" in third_party:
        assert in_layer(name, ("common.plots",)), f"{name} imports matplotlib"
    pure = (*PURE_PACKAGES, *PURE_MODULES)
    if in_layer(name, PURE_PACKAGES) or name in PURE_MODULES:
        assert [d for d in common_imports(name) if not in_layer(d, pure)] == [], name


def python(*args: str, cwd: Path = REPO, pythonpath: bool = True) -> CompletedProcess[str]:
    """Run this interpreter with `args`; PYTHONPATH is the repository unless told otherwise."""
    return run_python(
        *args, cwd=cwd, timeout=60, env={"PYTHONPATH": str(REPO) if pythonpath else None}
    )


def bare_lectures() -> list[str]:
    """The lectures that declare they run on a bare python3 (ABOUT["bare"])."""
    found = interface.lectures(REPO / "lectures").values()
    return [p.name for p in found if interface.declared(p).get("bare")]


@pytest.mark.parametrize("lecture", bare_lectures())
def test_formula_lectures_run_on_bare_python_from_elsewhere(lecture: str, tmp_path: Path) -> None:
    """...from any folder, writing nothing there (their speed is benchmarks/bench_lectures.py's)."""
    proc = python("-S", str(REPO / "lectures" / lecture), cwd=tmp_path, pythonpath=False)
    assert proc.returncode == 0 and "ridge" in proc.stdout.lower(), proc.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written where it ran


# The names the CS349E lecture script (02_roofline_basics.py) imports from its three
# modules, called as it calls them (keywords included): one-line shims must serve it.
COURSE_SCRIPT_CALLS = """
from console import print_header, print_observations, print_table, fmt_num, fmt_bytes, fmt_time
from hw_specs import H100, H200, B200, B300, TPU_V5E, TPU_V6E, BYTES_PER_ELEM
from roofline import (time_bounds, attainable_flops, matmul_counts, critical_batch,
                      batched_matvec_counts, tiled_matmul_bytes, sharded_matmul_two_chips,
                      ascii_roofline, save_roofline_png)

f, b = matmul_counts(64, 8192, 8192)
t = time_bounds(f, b, H100.peak_flops("bf16"), H100.mem_bw)
print_header("shims")
ridges = [[c.name, f"{c.critical_intensity('bf16'):.1f}"] for c in (H100, H200)]
print_table(["chip", "ridge"], ridges)
print_observations([fmt_num(f), fmt_bytes(b), fmt_bytes(1024, binary=True), fmt_time(t["lower"])])
print(attainable_flops(1.0, 2.0, 1.0), critical_batch(8192, 8192, 295.0, 2, 2, 2))
print(batched_matvec_counts(4, 8192, 8192), tiled_matmul_bytes(256, 256, 256, 64, 64, 64))
print(sharded_matmul_two_chips(B=512, D=8192, F=8192, peak=1e15, link_bw=4.5e10))
print("\\n".join(ascii_roofline([("x", 1.0, 1e12)], 1e15, 3e12, xmin=0.1, xmax=1e4)))
print(BYTES_PER_ELEM["bf16"], B200.name, B300.name, TPU_V5E.name, TPU_V6E.name, save_roofline_png)
"""
