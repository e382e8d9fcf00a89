"""Synthetic bandwidth curves for the hierarchy tests: smooth steps at each cache size, noise."""

from __future__ import annotations

import math
import random

from common.formulas import hierarchy

KIB, MIB, GB = 2**10, 2**20, 1e9


def synthetic_curve(
    levels: list[tuple[str, int]],
    plateaus: dict[str, float],
    seed: int,
    noise: float = 0.03,
    per_octave: int = 4,
    hi_bytes: float = 256 * MIB,
) -> tuple[list[float], list[float]]:
    """Bandwidth against working set: logistic steps in log2 size, log-normal noise `noise`."""
    rng = random.Random(seed)
    names = [name for name, _ in levels] + ["DRAM"]
    sizes = [
        n * hierarchy.BYTES_PER_ELEMENT
        for n in hierarchy.sweep_lengths(4 * KIB, hi_bytes, per_octave)
    ]
    bws = []
    for s in sizes:
        log_bw = math.log(plateaus["DRAM"])
        for (name, size), outer in zip(levels, names[1:], strict=True):
            step = math.log(plateaus[name]) - math.log(plateaus[outer])
            # the drop is centred just past the cache size and spread over about an octave
            log_bw += step / (1 + math.exp((math.log2(s) - math.log2(size) - 0.3) / 0.25))
        bws.append(math.exp(log_bw + rng.gauss(0.0, noise)))
    return sizes, bws


def random_machine(rng: random.Random) -> tuple[list[tuple[str, int]], dict[str, float]]:
    """Three caches and DRAM of plausible sizes and bandwidths (each level 1.5-3x the next)."""
    levels = [
        ("L1", 2 ** rng.randint(15, 16)),  # 32-64 KiB
        ("L2", 2 ** rng.randint(19, 21)),  # 512 KiB - 2 MiB
        ("L3", 2 ** rng.randint(24, 25)),  # 16-32 MiB
    ]
    dram = rng.uniform(10, 30) * GB
    l3 = dram * rng.uniform(1.8, 3.0)
    l2 = l3 * rng.uniform(1.5, 2.0)
    l1 = l2 * rng.uniform(1.5, 2.0)
    return levels, {"L1": l1, "L2": l2, "L3": l3, "DRAM": dram}
