"""Kill rate per module of the last `mutmut run` (its verdicts in mutants/*.meta).

A mutant counts as killed when a test failed, timed out or crashed; as surviving when
the tests passed or no test reached it. Mutants not run (a narrowed run) are left out;
where a module ran only part of its mutants, the rate is an estimate and its 95% Wilson
interval is printed. Exit status 1 when a module run is below THRESHOLD.

`--sample N [--seed S]` prints instead N mutant names per module drawn at random with a
fixed seed (every mutant where a module has N or fewer; a larger N extends a smaller one's
draw), for a sampled run:
    make mutation MUTATION_ARGS="--max-children 1 $(python tools/mutation_report.py --sample 60)"
after one narrowed run has generated every module's mutants and the test map, e.g.
`make mutation MUTATION_ARGS="--max-children 1 'common.exercises.text.*'"` (99 mutants).
"""

import argparse
import json
import math
import random
import sys
from pathlib import Path

from mutmut.stats import status_by_exit_code

THRESHOLD = 0.90
KILLED = {"killed", "timeout", "segfault", "caught by type check"}
NOT_RUN = {"not checked", "skipped", "check was interrupted by user"}


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion k/n: centre (k + z²/2)/(n + z²), half-width
    z·sqrt(k(n-k)/n + z²/4)/(n + z²)."""
    centre = (k + z * z / 2) / (n + z * z)
    half = z * math.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
    return max(0.0, centre - half), min(1.0, centre + half)


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
    statuses = [status_by_exit_code[c] for c in codes.values()]
    run = [s for s in statuses if s not in NOT_RUN]
    if run:
        killed = sum(s in KILLED for s in run)
        low, high = wilson(killed, len(run))
        sampled = f"  ({low:.0%} to {high:.0%}, of {len(codes)})" if len(run) < len(codes) else ""
        print(f"{killed / len(run):6.1%}  {killed:5d} of {len(run):5d}  {module}{sampled}")
        if killed < THRESHOLD * len(run):
            failing.append(module)
if failing:
    print(f"below {THRESHOLD:.0%}: {', '.join(failing)} (`mutmut results` lists the survivors)")
sys.exit(1 if failing else 0)
