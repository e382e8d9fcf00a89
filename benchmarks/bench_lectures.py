"""Wall time and peak memory of each lecture, and of a clean docs build, against their targets.

Each lecture runs in a fresh process with its results file in a temporary folder; the
targets are the budgets of ``common.measure.budget.DEFAULTS`` and 60 s for ``make docs``.
Results: benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/bench_lectures.py [--docs] [--busy] [--fake-llc SIZE] [NN ...]
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
sys.path.insert(0, str(REPO))
from common.measure.budget import DEFAULTS  # noqa: E402 (after the path)
from common.shell.interface import declared  # noqa: E402

GIB = 2**30
LECTURES = sorted(REPO.glob("lectures/[0-9][0-9]_*.py"))
BUDGETED = [p.name[:2] for p in LECTURES if "budget" in declared(p)]  # read by DEFAULTS on use
TARGETS = {n: (DEFAULTS[n].seconds, DEFAULTS[n].memory_bytes) for n in BUDGETED}  # s, bytes
DOCS_TARGET_S = 60.0


def run_measured(cmd: list[str], env: dict[str, str]) -> tuple[float, int, int]:
    """(wall seconds, peak RSS bytes, exit code) of one command in a fresh process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - t0, usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status)


def load() -> str:
    """The 1-minute load average, as a reminder that the machine may be shared."""
    return f"{os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "n/a"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lectures", nargs="*", help="lecture numbers (default: all)")
    parser.add_argument("--docs", action="store_true", help="also time a clean `make docs`")
    parser.add_argument("--busy", action="store_true", help="keep one core busy beside")
    parser.add_argument(
        "--fake-llc", action="append", default=[], help="reported LLC to size for (repeatable)"
    )
    args = parser.parse_args()
    scripts = [s for s in LECTURES if s.name[:2] in args.lectures] if args.lectures else LECTURES
    failed = 0
    busy = [sys.executable, "-c", "while 1: pass"]  # keeps one core busy until it is ended
    hog = subprocess.Popen(busy) if args.busy else None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            print(f"{'lecture':28} {'LLC':>5} {'wall':>8} {'max RSS':>9}  target           load")
            for fake in args.fake_llc or ["real"]:
                env = {k: v for k, v in os.environ.items() if k != "ROOFLINE_FAKE_LLC"}
                env["ROOFLINE_RESULTS"] = str(Path(tmp) / f"{fake}.json")
                env |= {"ROOFLINE_FAKE_LLC": fake} if fake != "real" else {}
                for script in scripts:
                    before = load()
                    wall, rss, code = run_measured([sys.executable, str(script)], env)
                    limit_s, limit_b = TARGETS.get(script.name[:2], (None, None))
                    ok = code == 0 and (limit_s is None or wall <= limit_s)
                    ok = ok and (limit_b is None or rss <= limit_b)
                    target = "" if limit_s is None else f"<= {limit_s:g} s"
                    target += "" if limit_b is None else f", {limit_b / GIB:g} GiB"
                    flag = "" if ok else "  OVER" if code == 0 else f"  exit {code}"
                    print(f"{script.name:28} {fake:>5} {wall:7.2f}s {rss / 2**20:6.0f} MiB  "
                          f"{target:16} {before}->{load()}{flag}", flush=True)  # fmt: skip
                    failed += not ok
        if args.docs:
            before = load()
            wall, _, code = run_measured(["make", "docs"], {**os.environ})
            ok = code == 0 and wall <= DOCS_TARGET_S
            print(f"{'make docs (clean)':28} {'real':>5} {wall:7.2f}s {'':9}  "
                  f"<= {DOCS_TARGET_S:g} s          {before}->{load()}")  # fmt: skip
            failed += not ok
    finally:
        if hog is not None:
            hog.terminate()  # the busy loop this script started, by its own handle
            hog.wait()
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
