"""The hardware table's figures as shipped (by tools/shipped_table.py; do not edit).

chip key -> figure -> value: ``peak <precision>`` in FLOP/s, and every other ``*_figure``
field of ``common.hw_specs.Chip`` in its own unit. Standard library only.
"""

from __future__ import annotations

FIGURES: dict[str, dict[str, float]] = {
    "a100": {
        "peak bf16": 312000000000000.0,
        "peak int8": 624000000000000.0,
        "mem_bw_figure": 1555000000000.0,
        "mem_capacity_figure": 40000000000.0,
        "link_bw_figure": 300000000000.0,
        "smem_per_sm_figure": 167936.0,
        "achievable_mem_bw_figure": 1399500000000.0,
        "achievable_link_bw_figure": 235000000000.0,
    },
    "h100": {
        "peak bf16": 989000000000000.0,
        "peak fp8": 1979000000000000.0,
        "peak int8": 1979000000000000.0,
        "mem_bw_figure": 3350000000000.0,
        "mem_capacity_figure": 80000000000.0,
        "link_bw_figure": 450000000000.0,
        "smem_per_sm_figure": 233472.0,
        "achievable_link_bw_figure": 380000000000.0,
    },
    "h200": {
        "peak bf16": 989000000000000.0,
        "peak fp8": 1979000000000000.0,
        "peak int8": 1979000000000000.0,
        "mem_bw_figure": 4800000000000.0,
        "mem_capacity_figure": 141000000000.0,
        "link_bw_figure": 450000000000.0,
        "smem_per_sm_figure": 233472.0,
        "achievable_link_bw_figure": 396400000000.0,
    },
    "b200": {
        "peak bf16": 2250000000000000.0,
        "peak fp8": 4500000000000000.0,
        "peak int8": 4500000000000000.0,
        "peak nvfp4": 9000000000000000.0,
        "mem_bw_figure": 8000000000000.0,
        "mem_capacity_figure": 180000000000.0,
        "link_bw_figure": 900000000000.0,
    },
    "b300": {
        "peak bf16": 2500000000000000.0,
        "peak fp8": 5000000000000000.0,
        "peak nvfp4": 1.5e16,
        "mem_bw_figure": 8000000000000.0,
        "mem_capacity_figure": 288000000000.0,
        "link_bw_figure": 900000000000.0,
    },
    "tpu-v5e": {
        "peak bf16": 197000000000000.0,
        "peak int8": 394000000000000.0,
        "mem_bw_figure": 820000000000.0,
        "mem_capacity_figure": 16000000000.0,
        "link_bw_figure": 45000000000.0,
    },
    "tpu-v6e": {
        "peak bf16": 920000000000000.0,
        "peak int8": 1840000000000000.0,
        "mem_bw_figure": 1640000000000.0,
        "mem_capacity_figure": 32000000000.0,
        "link_bw_figure": 90000000000.0,
    },
    "a100-80gb": {
        "peak bf16": 312000000000000.0,
        "peak int8": 624000000000000.0,
        "mem_bw_figure": 2039000000000.0,
        "mem_capacity_figure": 80000000000.0,
        "link_bw_figure": 300000000000.0,
        "achievable_mem_bw_figure": 1555000000000.0,
    },
}
