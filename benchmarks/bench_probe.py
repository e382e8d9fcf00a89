"""Check lecture 01's calibration against a plain reference, and its run-to-run spread.

Reference: the best of 20 streaming adds z = x + y over 256 MiB (fp32); the calibration
should land within 5% of it and its ridge vary by at most 3%. Each run is a fresh process,
reference and calibration alternating:

    .venv/bin/python benchmarks/bench_probe.py [--runs 5] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REFERENCE_BYTES = 256 * 2**20  # the reference working set: 3 arrays of 256/3 MiB
REFERENCE_REPEAT = 20
BANDWIDTH_TOLERANCE = 0.05
RIDGE_SPREAD_LIMIT = 0.03

REFERENCE_CODE = f"""
import json, time
import numpy as np
n = {REFERENCE_BYTES} // 12
x = np.ones(n, dtype=np.float32); y = np.ones(n, dtype=np.float32)
z = np.empty(n, dtype=np.float32)
np.add(x, y, out=z)  # warm-up: touches z's pages
best = float("inf")
for _ in range({REFERENCE_REPEAT}):
    t0 = time.perf_counter(); np.add(x, y, out=z); best = min(best, time.perf_counter() - t0)
print(json.dumps({{"bytes_per_s": 12 * n / best}}))
"""

CALIBRATE_CODE = """
import json, sys, time
from common.measure import roofs
t0 = time.perf_counter()
c = roofs.calibrate(quick=sys.argv[1] == "quick")
c["wall_s"] = time.perf_counter() - t0
print(json.dumps({k: v for k, v in c.items() if not isinstance(v, dict)}))
"""


def busy_cpu_seconds() -> float | None:
    """CPU seconds all processes on this machine have spent busy (Linux /proc/stat), or None."""
    try:
        with open("/proc/stat", encoding="ascii") as handle:
            fields = [int(v) for v in handle.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds() -> float:
    """CPU seconds used so far by this script's finished child processes."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_json(code: str, *args: str) -> dict:
    """Run `code` in a fresh interpreter; its JSON line plus `other_load` (busy cores not ours)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    busy0, own0, wall0 = busy_cpu_seconds(), children_cpu_seconds(), time.perf_counter()
    command = [sys.executable, "-c", code, *args]
    out = subprocess.run(
        command, capture_output=True, text=True, cwd=REPO, env=env, check=True, timeout=300
    )
    data = json.loads(out.stdout.strip().splitlines()[-1])
    busy1, own1, wall = busy_cpu_seconds(), children_cpu_seconds(), time.perf_counter() - wall0
    if busy0 is not None and busy1 is not None:
        data["other_load"] = max(0.0, (busy1 - busy0) - (own1 - own0)) / wall  # in cores
    return data


def main() -> int:
    """Alternate reference and calibration runs; print both and the pass/fail checks."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="pairs of runs (default 5)")
    parser.add_argument("--quick", action="store_true", help="time calibrate(quick=True)")
    args = parser.parse_args()
    if args.runs < 2:
        parser.error("--runs must be at least 2")

    refs, cals = [], []
    print(
        f"{'run':>3}  {'reference GB/s':>14}  {'calibrated GB/s':>15}  {'ratio':>6}  "
        f"{'P GFLOP/s':>9}  {'ridge':>6}  {'samples':>7}  {'calib s':>7}  {'other load':>10}"
    )
    for i in range(args.runs):
        ref_run = run_json(REFERENCE_CODE)
        ref = ref_run["bytes_per_s"]
        cal = run_json(CALIBRATE_CODE, "quick" if args.quick else "full")
        load = max(ref_run.get("other_load", float("nan")), cal.get("other_load", float("nan")))
        refs.append(ref)
        cals.append(cal)
        bw = cal["bandwidth_bytes_per_s"]
        print(
            f"{i + 1:>3}  {ref / 1e9:>14.2f}  {bw / 1e9:>15.2f}  {bw / ref:>6.3f}  "
            f"{cal['matmul_flops_per_s'] / 1e9:>9.1f}  {cal['ridge_point']:>6.2f}  "
            f"{cal['bandwidth_samples']:>7}  {cal['wall_s']:>7.2f}  {load:>7.2f} cores"
        )

    ref_median = statistics.median(refs)
    bw_median = statistics.median(c["bandwidth_bytes_per_s"] for c in cals)
    ridges = [c["ridge_point"] for c in cals]
    ridge_spread = (max(ridges) - min(ridges)) / statistics.median(ridges)
    bw_error = bw_median / ref_median - 1
    print("\nother load: CPU cores busy with other programs during the run (0 = quiet machine)")
    print(
        f"reference (best of {REFERENCE_REPEAT}, {REFERENCE_BYTES // 2**20} MiB): "
        f"median {ref_median / 1e9:.2f} GB/s, range {min(refs) / 1e9:.2f}-{max(refs) / 1e9:.2f}"
    )
    print(f"calibrated bandwidth: median {bw_median / 1e9:.2f} GB/s, {bw_error:+.1%} from the "
          f"reference median ({'ok' if abs(bw_error) <= BANDWIDTH_TOLERANCE else 'OUTSIDE'} the "
          f"{BANDWIDTH_TOLERANCE:.0%} tolerance)")  # fmt: skip
    print(f"ridge point over {len(ridges)} runs: {min(ridges):.2f}-{max(ridges):.2f} FLOP/B, "
          f"spread (max-min)/median {ridge_spread:.1%} "
          f"({'ok' if ridge_spread <= RIDGE_SPREAD_LIMIT else 'OVER'} the "
          f"{RIDGE_SPREAD_LIMIT:.0%} limit)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
