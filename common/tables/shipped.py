"""The figures of the hardware table as shipped (do not edit: tools/shipped_table.py
writes them): chip key -> ``peak <p>``, ``achievable_peak <p>`` or a ``*_figure`` -> value."""

# fmt: off
FIGURES: dict[str, dict[str, float]] = {
    "a100": {"peak bf16": 3.12e14, "peak int8": 6.24e14, "achievable_peak bf16": 2.712e14,
             "mem_bw_figure": 1.555e12, "mem_capacity_figure": 4e10, "link_bw_figure": 3e11,
             "smem_per_sm_figure": 167936.0, "achievable_mem_bw_figure": 1.3995e12,
             "achievable_link_bw_figure": 2.35e11},
    "h100": {"peak bf16": 9.89e14, "peak fp8": 1.979e15, "peak int8": 1.979e15,
             "achievable_peak bf16": 7.945e14, "achievable_peak fp8": 1.4026e15,
             "mem_bw_figure": 3.35e12, "mem_capacity_figure": 8e10, "link_bw_figure": 4.5e11,
             "smem_per_sm_figure": 233472.0, "achievable_link_bw_figure": 3.8e11},
    "h200": {"peak bf16": 9.89e14, "peak fp8": 1.979e15, "peak int8": 1.979e15,
             "achievable_peak bf16": 7.945e14, "achievable_peak fp8": 1.4534e15,
             "mem_bw_figure": 4.8e12, "mem_capacity_figure": 1.41e11, "link_bw_figure": 4.5e11,
             "smem_per_sm_figure": 233472.0, "achievable_mem_bw_figure": 3.759e12,
             "achievable_link_bw_figure": 3.964e11},
    "b200": {"peak bf16": 2.25e15, "peak fp8": 4.5e15, "peak int8": 4.5e15, "peak nvfp4": 9e15,
             "achievable_peak bf16": 1.745e15, "achievable_peak fp8": 3.4325e15,
             "mem_bw_figure": 8e12, "mem_capacity_figure": 1.8e11, "link_bw_figure": 9e11},
    "b300": {"peak bf16": 2.5e15, "peak fp8": 5e15, "peak nvfp4": 1.5e16,
             "achievable_peak bf16": 1.769e15, "achievable_peak fp8": 3.3533e15,
             "mem_bw_figure": 8e12, "mem_capacity_figure": 2.88e11, "link_bw_figure": 9e11},
    "tpu-v5e": {"peak bf16": 1.97e14, "peak int8": 3.94e14, "mem_bw_figure": 8.2e11,
                "mem_capacity_figure": 1.6e10, "link_bw_figure": 4.5e10},
    "tpu-v6e": {"peak bf16": 9.2e14, "peak int8": 1.84e15, "mem_bw_figure": 1.64e12,
                "mem_capacity_figure": 3.2e10, "link_bw_figure": 9e10},
    "a100-80gb": {"peak bf16": 3.12e14, "peak int8": 6.24e14, "achievable_peak bf16": 2.712e14,
                  "mem_bw_figure": 2.039e12, "mem_capacity_figure": 8e10, "link_bw_figure": 3e11,
                  "achievable_mem_bw_figure": 1.555e12},
}
# fmt: on
