"""Kill rate per module of the last `mutmut run` (its verdicts in mutants/*.meta).

A mutant counts as killed when a test failed, timed out or crashed; as surviving when
the tests passed or no test reached it. Mutants not run (a narrowed run) are left out.
Exit status 1 when a module run is below THRESHOLD.
"""

import json
import sys
from pathlib import Path

from mutmut.stats import status_by_exit_code

THRESHOLD = 0.90
KILLED = {"killed", "timeout", "segfault", "caught by type check"}
NOT_RUN = {"not checked", "skipped", "check was interrupted by user"}

failing = []
for meta in sorted(Path("mutants").rglob("*.py.meta")):
    codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
    statuses = [status_by_exit_code[c] for c in codes.values()]
    run = [s for s in statuses if s not in NOT_RUN]
    if run:
        killed = sum(s in KILLED for s in run)
        module = str(meta.relative_to("mutants"))[: -len(".meta")]
        print(f"{killed / len(run):6.1%}  {killed:5d} of {len(run):5d}  {module}")
        if killed < THRESHOLD * len(run):
            failing.append(module)
if failing:
    print(f"below {THRESHOLD:.0%}: {', '.join(failing)} (`mutmut results` lists the survivors)")
sys.exit(1 if failing else 0)
