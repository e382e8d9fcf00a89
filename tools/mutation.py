"""Mutation testing for the course's numbers: break one thing at a time, see a test fail.

Usage (from the repository root)::

    python tools/mutation.py                      # every module of tools/mutation.toml
    python tools/mutation.py common/formulas/ledger.py common/hw_specs.py
    python tools/mutation.py --list common/formulas/ledger.py   # the mutants, not run
    python tools/mutation.py --jobs 2 --timeout 20
    python tools/mutation.py common/plots/article.py --lines 52-165   # one part of a module

Each mutant is one small change to one module's syntax tree, of the kinds of faults
that ship: an operator swapped (+ for -, * for /), a term or factor dropped (a * b -> a),
a comparison moved by one (< for <=), a number changed (n -> n + 1, x -> 1.1 x), a flag
inverted, max for min, a figure's log axis made linear. Docstrings, strings, f-strings,
annotations and error messages are left alone: they do not carry the numbers. Values of
cosmetic keyword arguments (font and marker sizes, line widths, transparency:
COSMETIC_KEYWORDS) are not mutated: they change how a figure looks, not what it says.
In the presentation and exercise modules (WORD_MODULES) the words are faults too: a
string or the text of an f-string gets one word of WORD_SWAPS swapped (rose for fell,
more for fewer, faster for slower, memory for compute, a unit label), and the
expressions inside f-strings are mutated like any other. A test may be a node id
(file::test).

A mutant runs in a forked child of this process (pytest, numpy and matplotlib are
already imported, so one mutant costs a fraction of a second plus its tests). An import
hook hands the child the mutated module instead of the file on disk; nothing on disk
changes. The child runs only the test files mapped to the module (`[modules]` of
tools/mutation.toml) and stops at the first failure. The mutant is killed when a test
fails or errors, or when the tests exceed the timeout (a mutated loop that never ends);
it survives when they all pass.

Equivalent mutants (a change no test can see because the behaviour is the same) are
listed under `[[equivalent]]` in tools/mutation.toml with the reason, and left out of
the kill rate.

Exit status: 0 when every module reaches --threshold (default 90%), 1 otherwise.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import functools
import importlib.abc
import importlib.util
import os
import re
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------------------
# Which tests cover which module, and the equivalent mutants: tools/mutation.toml
# ---------------------------------------------------------------------------
_MAP = tomllib.loads((REPO / "tools" / "mutation.toml").read_text(encoding="utf-8"))
MODULES: dict[str, tuple[str, ...]] = {m: tuple(t) for m, t in _MAP["modules"].items()}
# (module, the line's source text stripped, mutation) -> why no test can see it
EQUIVALENT: dict[tuple[str, str, str], str] = {
    (e["module"], e["line"], e["mutation"]): e["why"] for e in _MAP["equivalent"]
}


# ---------------------------------------------------------------------------
# Mutation operators
# ---------------------------------------------------------------------------
BINOP_SWAP = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
}
CMP_SWAP = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
AUG_SWAP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult}
CALL_SWAP = {"max": "min", "min": "max"}
#: A figure's log axis made linear: ax.set_xscale("log") -> ax.set_xscale("linear").
SCALE_SETTERS = frozenset({"set_xscale", "set_yscale"})
SYMBOL = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}


@dataclass(frozen=True)
class Mutant:
    """One change: where (line), what (description), and how to apply it (site index, variant)."""

    module: str
    index: int  # position in the module's list of mutants
    line: int
    description: str
    source_line: str
    occurrence: int = 1  # 2 for the second identical (line, description) pair, ...

    @property
    def key(self) -> tuple[str, str, str]:
        """How EQUIVALENT names a mutant: module, the line's text, description (#n if repeated)."""
        suffix = f" #{self.occurrence}" if self.occurrence > 1 else ""
        return (self.module, self.source_line, self.description + suffix)


# Presentation and exercise modules: their faults are words too. A string (or the text
# of an f-string) holding one of these words gets it swapped, the kind of slip that
# says "rose" for a ridge that fell, "more" for fewer, or a wrong unit label.
WORD_SWAPS = (
    ("rises", "falls"),
    ("rose", "fell"),
    ("grew", "shrank"),
    ("faster", "slower"),
    ("more", "fewer"),
    ("higher", "lower"),
    ("larger", "smaller"),
    ("above", "below"),
    ("memory", "compute"),
    ("compute-bound", "memory-bound"),
    ("only ", ""),
    ("FLOP/B", "FLOP"),
    ("FLOP/byte", "byte/FLOP"),
)
WORD_MODULES = ("common/present/", "common/exercises/", "lectures/words/")
_WORDS_ON: list[bool] = [False]  # set while listing or applying the mutants of such a module


def _word_variants(text: str) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for a, b in WORD_SWAPS:
        for old, new in ((a, b), (b, a)):
            if old and re.search(rf"(?<![A-Za-z-]){re.escape(old)}(?![A-Za-z-])", text):
                out.append((f"{old!r} -> {new!r}", ("word", (old, new))))
    return out


def _number(value: object) -> object | None:
    """The mutated number: n + 1 for ints, 1.1 x for floats (1.0 for 0.0); None: no mutant."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int):
        return value + 1
    return value * 1.1 if value else 1.0


def _variants(node: ast.AST) -> list[tuple[str, object]]:
    """The mutations of one node: (description, data for _apply)."""
    out: list[tuple[str, object]] = []
    if isinstance(node, ast.BinOp):
        op = type(node.op)
        if op in BINOP_SWAP:
            out.append((f"{SYMBOL[op]} -> {SYMBOL[BINOP_SWAP[op]]}", ("op", BINOP_SWAP[op])))
        if op in (ast.Add, ast.Sub, ast.Mult, ast.Div):
            out.append((f"a {SYMBOL[op]} b -> a", ("left", None)))
            out.append((f"a {SYMBOL[op]} b -> b", ("right", None)))
    elif isinstance(node, ast.AugAssign) and type(node.op) in AUG_SWAP:
        op = type(node.op)
        out.append((f"{SYMBOL[op]}= -> {SYMBOL[AUG_SWAP[op]]}=", ("aug", AUG_SWAP[op])))
    elif isinstance(node, ast.Compare):
        for k, op in enumerate(node.ops):
            new = CMP_SWAP.get(type(op))
            if new is not None:
                out.append((f"{SYMBOL[type(op)]} -> {SYMBOL[new]}", ("cmp", (k, new))))
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        if _WORDS_ON[0]:
            out += _word_variants(node.value)
    elif isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            out.append((f"{node.value} -> {not node.value}", ("const", not node.value)))
        else:
            new = _number(node.value)
            if new is not None:
                out.append((f"{node.value!r} -> {new!r}", ("const", new)))
    elif isinstance(node, ast.BoolOp):
        name, new = ("and", ast.Or) if isinstance(node.op, ast.And) else ("or", ast.And)
        out.append((f"{name} -> {'or' if name == 'and' else 'and'}", ("boolop", new)))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        sign = "not " if isinstance(node.op, ast.Not) else "-"
        out.append((f"{sign}x -> x", ("unary", None)))
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in SCALE_SETTERS
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value == "log"
    ):
        out.append((f'{node.func.attr}("log") -> "linear"', ("scale", None)))
    elif (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CALL_SWAP
    ):
        out.append((f"{node.func.id}() -> {CALL_SWAP[node.func.id]}()", ("call", None)))
    return out


#: Keyword arguments that set how a figure looks, not what it says (sizes of type, lines
#: and markers, transparency, stacking order, padding, figure size): a changed value
#: draws the same data on the same axes, so their values are not mutated. Also
#: zip(strict=...), which changes nothing for inputs of equal length.
COSMETIC_KEYWORDS = frozenset(
    {
        "fontsize",
        "labelsize",
        "size",
        "linewidth",
        "lw",
        "markersize",
        "ms",
        "markeredgewidth",
        "mew",
        "alpha",
        "framealpha",
        "zorder",
        "pad",
        "labelpad",
        "handlelength",
        "handletextpad",
        "columnspacing",
        "borderaxespad",
        "wspace",
        "hspace",
        "width",
        "height",
        "headwidth",
        "headlength",
        "shrink",
        "frameon",
        "dpi",
        "linestyle",
        "ls",
        "dashes",
        "strict",
    }
)
#: Methods whose arguments only size type: ax.xaxis.label.set_size(10).
COSMETIC_CALLS = frozenset({"set_size", "set_fontsize"})


def _skipped_nodes(tree: ast.AST) -> set[int]:
    """ids of nodes not to mutate: docstrings, annotations, f-strings, raise statements,
    and the values of cosmetic keyword arguments, dict entries and calls
    (COSMETIC_KEYWORDS, COSMETIC_CALLS)."""
    skip: set[int] = set()

    def mark(node: ast.AST | None) -> None:
        if node is not None:
            skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in COSMETIC_KEYWORDS:
            mark(node.value)
        elif isinstance(node, ast.Dict):  # {"marker": "s", "markersize": 10}
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value in COSMETIC_KEYWORDS:
                    mark(value)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in COSMETIC_CALLS
        ):
            for arg in node.args:
                mark(arg)
        if isinstance(node, ast.Raise) or (isinstance(node, ast.JoinedStr) and not _WORDS_ON[0]):
            mark(node)
        elif isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            mark(node.format_spec)  # ':.1f' is a format, not a sentence
        elif isinstance(node, (ast.AnnAssign, ast.arg)):
            mark(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            mark(node.returns)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                mark(body[0])
        # `from __future__ import annotations` and TYPE_CHECKING blocks carry no behaviour
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            mark(node)
    return skip


def _sites(tree: ast.AST, module: str = "") -> Iterator[tuple[ast.AST, str, object]]:
    """Every (node, description, data) mutation in a deterministic order."""
    _WORDS_ON[0] = module.startswith(WORD_MODULES)
    skip = _skipped_nodes(tree)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        for description, data in _variants(node):
            yield node, description, data


def _apply(node: ast.AST, data: object) -> ast.AST | None:
    """Mutate `node` in place (or return a replacement node)."""
    kind, arg = data  # type: ignore[misc]
    if kind in ("op", "aug", "boolop"):
        node.op = arg()  # type: ignore[attr-defined]
    elif kind == "left":
        return node.left  # type: ignore[attr-defined]
    elif kind == "right":
        return node.right  # type: ignore[attr-defined]
    elif kind == "cmp":
        k, new = arg
        node.ops[k] = new()  # type: ignore[attr-defined]
    elif kind == "const":
        node.value = arg  # type: ignore[attr-defined]
    elif kind == "unary":
        return node.operand  # type: ignore[attr-defined]
    elif kind == "call":
        node.func.id = CALL_SWAP[node.func.id]  # type: ignore[attr-defined]
    elif kind == "scale":
        node.args[0] = ast.Constant("linear")  # type: ignore[attr-defined]
        node.keywords = [k for k in node.keywords if k.arg != "base"]  # type: ignore[attr-defined]
    elif kind == "word":
        old, new = arg
        pattern = rf"(?<![A-Za-z-]){re.escape(old)}(?![A-Za-z-])"
        node.value = re.sub(pattern, new, node.value)  # type: ignore[attr-defined]
    return None


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    """Put `new` where `old` is in `tree`."""
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is old:
                        value[i] = new
                        return
    raise LookupError("mutation site not found")


@functools.cache
def module_source(module: str) -> str:
    """The module's source, read once (an edit during a run cannot shift the mutants)."""
    return (REPO / module).read_text(encoding="utf-8")


def list_mutants(module: str) -> list[Mutant]:
    """Every mutant of a module (a path relative to the repository root)."""
    source = module_source(module)
    lines = source.splitlines()
    tree = ast.parse(source)
    seen: dict[tuple[str, str], int] = {}
    mutants = []
    for i, (node, description, _) in enumerate(_sites(tree, module)):
        text = lines[node.lineno - 1].strip()
        seen[text, description] = seen.get((text, description), 0) + 1
        mutants.append(Mutant(module, i, node.lineno, description, text, seen[text, description]))
    return mutants


def mutated_code(module: str, index: int) -> object:
    """The module's code object with mutant number `index` applied."""
    source = module_source(module)
    tree = ast.parse(source)
    for i, (node, _, data) in enumerate(_sites(tree, module)):
        if i == index:
            new = _apply(node, data)
            if new is not None:
                _replace(tree, node, copy.deepcopy(new))
            break
    else:
        raise IndexError(f"{module} has no mutant {index}")
    ast.fix_missing_locations(tree)
    return compile(tree, str(REPO / module), "exec")


def module_name(module: str) -> str:
    return module.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


# ---------------------------------------------------------------------------
# Running one mutant in a forked child
# ---------------------------------------------------------------------------
class _MutantFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Hands out the mutated code object for one module name; every other import is normal."""

    def __init__(self, name: str, path: str, code: object) -> None:
        self.name, self.path, self.code = name, path, code

    def find_spec(self, fullname, path=None, target=None):  # type: ignore[no-untyped-def]
        if fullname != self.name:
            return None
        return importlib.util.spec_from_file_location(fullname, self.path, loader=self)

    def create_module(self, spec):  # type: ignore[no-untyped-def]
        return None

    def exec_module(self, module):  # type: ignore[no-untyped-def]
        exec(self.code, module.__dict__)  # the point of the tool


def _pytest_args(tests: tuple[str, ...]) -> list[str]:
    return [
        *tests,
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        "-m",
        "not browser",
        "--no-header",
        "-o",
        "console_output_style=classic",
    ]


def _child(module: str, index: int | None, tests: tuple[str, ...]) -> None:
    """Forked child: install mutant `index` (None: none), run the tests, exit with their code."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    code = 3
    try:
        if index is not None:
            finder = _MutantFinder(
                module_name(module), str(REPO / module), mutated_code(module, index)
            )
            sys.meta_path.insert(0, finder)
        import pytest

        code = int(pytest.main(_pytest_args(tests)))
    except BaseException:
        code = 4
    finally:
        os._exit(code)


def run_one(module: str, index: int | None, tests: tuple[str, ...], timeout: float) -> str:
    """'killed', 'survived' or 'timeout' for one mutant (index None: the unmutated module)."""
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        _child(module, index, tests)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            return "survived" if code == 0 else "killed"
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "timeout"
        time.sleep(0.01)


def in_lines(mutant: Mutant, lines: str | None) -> bool:
    """Whether the mutant's line is in `lines` ("52-164,300-320"; None: every line)."""
    if not lines:
        return True
    for part in lines.split(","):
        first, _, last = part.partition("-")
        if int(first) <= mutant.line <= int(last or first):
            return True
    return False


def run_module(
    module: str, timeout: float | None, jobs: int, verbose: bool, lines: str | None = None
) -> tuple[int, int, list[Mutant], list[Mutant]]:
    """(killed, total counted, survivors, equivalent) for one module."""
    tests = tuple(t for t in MODULES[module] if (REPO / t.split("::")[0]).is_file())
    for missing in sorted(set(MODULES[module]) - set(tests)):
        print(f"   warning: {missing} does not exist; run without it")
    start = time.monotonic()
    baseline = run_one(module, None, tests, timeout=600)
    took = time.monotonic() - start
    if baseline != "survived":
        raise SystemExit(f"{module}: its tests fail without any mutation ({', '.join(tests)})")
    limit = timeout if timeout is not None else max(10.0, 4 * took + 5)
    mutants = [m for m in list_mutants(module) if in_lines(m, lines)]
    survivors: list[Mutant] = []
    equivalent: list[Mutant] = []
    killed = 0
    running: dict[int, Mutant] = {}
    queue = list(mutants)
    print(f"== {module}: {len(mutants)} mutants, tests {took:.1f} s ({', '.join(tests)})")
    results: dict[int, str] = {}

    # Simple process pool: fork up to `jobs` children at a time.
    def start_one(m: Mutant) -> None:
        pid = os.fork()
        if pid == 0:
            os.setpgid(0, 0)
            _child(module, m.index, tests)
        running[pid] = m
        started[pid] = time.monotonic()

    started: dict[int, float] = {}
    while queue or running:
        while queue and len(running) < jobs:
            start_one(queue.pop(0))
        for pid in list(running):
            done, status = os.waitpid(pid, os.WNOHANG)
            outcome = None
            if done:
                outcome = "survived" if os.waitstatus_to_exitcode(status) == 0 else "killed"
            elif time.monotonic() - started[pid] > limit:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                outcome = "timeout"
            if outcome is not None:
                m = running.pop(pid)
                results[m.index] = outcome
                if verbose:
                    print(f"  {outcome:8} {m.module}:{m.line} {m.description}  | {m.source_line}")
        time.sleep(0.005)
    for m in mutants:
        outcome = results[m.index]
        if m.key in EQUIVALENT:
            equivalent.append(m)
            if outcome != "survived":
                print(f"  note: listed as equivalent but killed: {m.line} {m.description}")
            continue
        if outcome == "survived":
            survivors.append(m)
        else:
            killed += 1
    return killed, len(mutants) - len(equivalent), survivors, equivalent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="module paths (default: all in MODULES)")
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per mutant")
    parser.add_argument("--threshold", type=float, default=90.0, help="kill rate to pass (%%)")
    parser.add_argument("--lines", help="only mutants on these lines: 52-164,300 (a part)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every mutant")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    os.chdir(REPO)
    sys.path.insert(0, str(REPO))
    modules = args.modules or list(MODULES)
    for m in modules:
        if m not in MODULES:
            parser.error(f"{m} is not mapped to tests; known: {', '.join(MODULES)}")
    known = {m.key for module in modules for m in list_mutants(module)}
    for key in EQUIVALENT:
        if key[0] in modules and key not in known:
            print(f"warning: EQUIVALENT names no mutant (stale entry?): {key}")
    if args.list:
        for m in modules:
            for mutant in (x for x in list_mutants(m) if in_lines(x, args.lines)):
                print(f"{m}:{mutant.line}: {mutant.description}  | {mutant.source_line}")
        return 0
    # Heavy imports once, before forking (never `common`: each child imports it afresh).
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.figure
    import numpy
    import pytest

    del numpy, pytest

    os.environ.setdefault("MPLBACKEND", "Agg")
    total_killed = total = 0
    rows = []
    all_survivors: list[Mutant] = []
    all_equivalent: list[Mutant] = []
    begin = time.monotonic()
    for m in modules:
        result = run_module(m, args.timeout, args.jobs, args.verbose, args.lines)
        killed, counted, survivors, equivalent = result
        rate = 100.0 * killed / counted if counted else 100.0
        rows.append((m, killed, counted, rate, len(equivalent)))
        total_killed += killed
        total += counted
        all_survivors += survivors
        all_equivalent += equivalent
        print(f"   {m}: {killed}/{counted} killed ({rate:.1f}%), {len(equivalent)} equivalent")
        for s in survivors:
            print(f"   survived  line {s.line}: {s.description}  | {s.source_line}")
    print()
    print(f"{'module':40} {'killed':>7} {'of':>5} {'rate':>7} {'equiv':>6}")
    for m, killed, counted, rate, eq in rows:
        print(f"{m:40} {killed:7d} {counted:5d} {rate:6.1f}% {eq:6d}")
    overall = 100.0 * total_killed / total if total else 100.0
    print(f"{'overall':40} {total_killed:7d} {total:5d} {overall:6.1f}%")
    print(f"({time.monotonic() - begin:.0f} s)")
    if all_equivalent:
        print("\nequivalent mutants (excluded):")
        for e in all_equivalent:
            print(f"  {e.module}:{e.line} {e.description}: {EQUIVALENT[e.key]}")
    failing = [r for r in rows if r[3] < args.threshold]
    return 1 if failing or overall < args.threshold else 0


if __name__ == "__main__":
    sys.exit(main())
