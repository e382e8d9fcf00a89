"""Kill rate per module of the last `mutmut run` (its verdicts in mutants/*.meta).

Killed: a test failed, timed out or crashed. Left out: mutants not run, *phrase* mutants
(only the wording of a printed phrase changes) and *wording* mutants (only one `Table`
header cell's text changes), both counted beside the rate. A partly run module's rate
comes with its 95% Wilson interval. Exit 1 when a module is below THRESHOLD.
`--sample N [--seed S]` prints N mutant names per module (a larger N extends a smaller one's
draw), for a sampled run once a narrowed run has generated the mutants and the test map:
    make mutation MUTATION_ARGS="--max-children 1 $(python tools/mutation_report.py --sample 60)"
mutmut switches a mutant on in a process that has already imported the code, and credits
what ran at import to the session's first test: a helper that builds a table at import
(tables/measurements, engines, hw_specs) is checked only by tests that build the table
again inside the test (tests/tables/test_tables_rebuilt.py's `rebuilt`).
"""

import argparse
import ast
import json
import math
import random
import sys
from pathlib import Path

THRESHOLD = 0.90
KILLED = {"killed", "timeout", "segfault", "caught by type check"}
# where a table builder takes its header cells positionally
HEADERS_AT = {"Table": 0, "_answer": 3}
NOT_RUN = {"not checked", "skipped", "check was interrupted by user"}


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion k/n: centre (k + z²/2)/(n + z²), half-width
    z·sqrt(k(n-k)/n + z²/4)/(n + z²)."""
    centre = (k + z * z / 2) / (n + z * z)
    half = z * math.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
    return max(0.0, centre - half), min(1.0, centre + half)


def _changed_string(original: ast.AST, mutant: ast.AST) -> tuple[ast.Constant, ast.AST] | None:
    """The one string constant `mutant` changes to another string (and its parent), if that
    is its only difference from `original`."""
    a, b = list(ast.walk(original)), list(ast.walk(mutant))
    if len(a) != len(b):
        return None
    changed = [
        (x, y)
        for x, y in zip(a, b, strict=True)
        if type(x) is not type(y) or (isinstance(x, ast.Constant) and x.value != y.value)
    ]
    if len(changed) != 1 or not isinstance(changed[0][0], ast.Constant):
        return None
    x, y = changed[0]
    if not (isinstance(x.value, str) and isinstance(y.value, str)):
        return None
    return x, {c: p for p in ast.walk(original) for c in ast.iter_child_nodes(p)}.get(x)


def is_phrase_mutant(original: ast.AST, mutant: ast.AST) -> bool:
    """True when `mutant` differs from `original` only in one string constant that contains
    a space and is not an operand of a comparison, a subscript or a dictionary key."""
    found = _changed_string(original, mutant)
    if found is None:
        return False
    x, up = found
    keyed = isinstance(up, ast.Dict) and any(k is x for k in up.keys)
    return " " in x.value and not keyed and not isinstance(up, ast.Compare | ast.Subscript)


def is_header_mutant(original: ast.AST, mutant: ast.AST) -> bool:
    """True when `mutant` differs from `original` only in the text of one header cell of a
    table: a string in the list or tuple given as `headers` (by keyword or at its position in
    HEADERS_AT) to `Table` or the exercises' `_answer`, directly or through a name assigned
    that literal in the same function."""
    found = _changed_string(original, mutant)
    if found is None or not isinstance(found[1], ast.List | ast.Tuple):
        return False
    cells = found[1]
    owners = {  # the names this literal is assigned to (a name may be reassigned)
        t.id for node in ast.walk(original) if isinstance(node, ast.Assign) and node.value is cells
        for t in node.targets if isinstance(t, ast.Name)
    }  # fmt: skip
    for call in ast.walk(original):
        func = getattr(call, "func", None)
        name = getattr(func, "id", None) or getattr(func, "attr", "")
        if isinstance(call, ast.Call) and name in HEADERS_AT:
            at = HEADERS_AT[name]
            keyed = [k.value for k in call.keywords if k.arg == "headers"]
            given = [*call.args[at : at + 1], *keyed]
            if any(h is cells or (isinstance(h, ast.Name) and h.id in owners) for h in given):
                return True
    return False


def left_out(meta: Path, names: list[str]) -> dict[str, str]:
    """A module's phrase mutants (is_phrase_mutant) and wording mutants (is_header_mutant),
    each name mapped to its kind."""
    nodes = ast.walk(ast.parse(meta.with_suffix("").read_text(encoding="utf-8")))
    functions = {f.name: f for f in nodes if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)}
    kinds = {}
    for name in names:
        generated = name.rpartition(".")[2]
        original = functions.get(generated.rpartition("__mutmut_")[0] + "__mutmut_orig")
        if original and (mutant := functions.get(generated)):
            if is_phrase_mutant(original, mutant):
                kinds[name] = "phrase"
            elif is_header_mutant(original, mutant):
                kinds[name] = "wording"
    return kinds


def main() -> int:
    """Print the kill rate per module (or a sample of names); 1 when a module is below."""
    from mutmut.stats import status_by_exit_code  # installed by `make mutation` only

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, metavar="N", help="print N mutant names per module")
    parser.add_argument("--seed", type=int, default=32, help="the sample's seed (default 32)")
    args = parser.parse_args()
    metas = sorted(Path("mutants").rglob("*.py.meta"))
    if not metas:
        sys.exit("no mutants/: run `mutmut run` first")
    failing = []
    for meta in metas:
        codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        module = str(meta.relative_to("mutants"))[: -len(".meta")]
        if args.sample is not None:
            names = sorted(codes)  # shuffled, then the first N: a larger N keeps a smaller one's
            random.Random(f"{args.seed}:{module}").shuffle(names)
            print(*names[: args.sample])
            continue
        status = {k: status_by_exit_code[c] for k, c in codes.items()}
        kinds = left_out(meta, sorted(codes))
        counted = [s for k, s in status.items() if k not in kinds]
        run = [s for s in counted if s not in NOT_RUN]
        if not run:
            continue
        killed = sum(s in KILLED for s in run)
        low, high = wilson(killed, len(run))
        whole = f"  ({low:.0%} to {high:.0%}, of {len(counted)})" if len(run) < len(counted) else ""
        left = [kinds[k] for k in kinds if status[k] not in NOT_RUN]
        phrase, wording = left.count("phrase"), left.count("wording")
        said = f"  [{phrase} phrase, {wording} wording mutants run, left out]" if left else ""
        print(f"{killed / len(run):6.1%}  {killed:5d} of {len(run):5d}  {module}{whole}{said}")
        if killed < THRESHOLD * len(run):
            failing.append(module)
    if failing:
        print(f"below {THRESHOLD:.0%}: {', '.join(failing)} (`mutmut results` lists the survivors)")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
