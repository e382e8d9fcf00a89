"""Wall time and peak memory of each lecture, and of a clean docs build, against their targets.

Each lecture runs in a fresh process, the way a student runs it, with its results
file in a temporary folder (nothing in the repository is written). The peak
resident memory is the child's ``ru_maxrss``. Targets, from the issues that set
them: lecture 01 within 10 s and 0.5 GiB, lecture 09 within 15 s, lecture 10
within 20 s and 1.5 GiB, a clean ``make docs`` within 60 s. Timings depend on
what else the machine runs: the load is printed beside them.

    .venv/bin/python benchmarks/bench_lectures.py [--docs] [NN ...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GIB = 2**30
TARGETS = {  # lecture number -> (seconds, bytes or None)
    "01": (10.0, GIB // 2),
    "09": (15.0, None),
    "10": (20.0, 3 * GIB // 2),
}
DOCS_TARGET_S = 60.0


def run_measured(cmd: list[str], env: dict[str, str]) -> tuple[float, int, int]:
    """(wall seconds, peak RSS bytes, exit code) of one command in a fresh process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    return wall, usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status)


def load() -> str:
    """The 1-minute load average, as a reminder that the machine may be shared."""
    return f"{os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "n/a"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lectures", nargs="*", help="lecture numbers (default: all)")
    parser.add_argument("--docs", action="store_true", help="also time a clean `make docs`")
    args = parser.parse_args()
    scripts = sorted(REPO.glob("lectures/[0-9][0-9]_*.py"))
    if args.lectures:
        scripts = [s for s in scripts if s.name[:2] in args.lectures]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "ROOFLINE_RESULTS": str(Path(tmp) / "machine.json")}
        print(f"{'lecture':32} {'wall':>8} {'max RSS':>10}  target          load")
        for script in scripts:
            wall, rss, code = run_measured([sys.executable, str(script)], env)
            limit_s, limit_b = TARGETS.get(script.name[:2], (None, None))
            ok = code == 0 and (limit_s is None or wall <= limit_s)
            ok = ok and (limit_b is None or rss <= limit_b)
            target = "" if limit_s is None else f"<= {limit_s:g} s"
            target += "" if limit_b is None else f", {limit_b / GIB:g} GiB"
            flag = "" if ok else "  OVER" if code == 0 else f"  exit {code}"
            print(
                f"{script.name:32} {wall:7.2f}s {rss / 2**20:8.0f} MiB  {target:15} {load()}{flag}"
            )
            failed += not ok
    if args.docs:
        wall, _, code = run_measured(["make", "docs"], {**os.environ})
        ok = code == 0 and wall <= DOCS_TARGET_S
        print(
            f"{'make docs (clean)':32} {wall:7.2f}s {'':10}  <= {DOCS_TARGET_S:g} s       {load()}"
        )
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
