"""A toy model whose capacity ledger is easy arithmetic, and a three-point batch sweep.

The toy model: 2**29 fp16 parameters (1 GiB of weights); 4 layers x d_kv 1024 x 2 bytes x
K and V = 16 KiB of KV cache per token, 1 GiB per 65536-token sequence; 4 KiB of
activations per token, 0.25 GiB per sequence in prefill. At overhead rate rho the prefill
total of B sequences is (1 + 1.25 B) (1 + rho) GiB: at 20%, 1.2 + 1.5 B; at 0%, 1 + 1.25 B.
"""

from __future__ import annotations

from common.tables.models import ModelSpec
from common.tables.units import GIB, KIB

# name, parameters, weight bytes, layers, d_kv, KV bytes, sequence, activation bytes a token
TOY = ModelSpec("toy", 2**29, 2, 4, 1024, 2, 65536, 4 * KIB)
BATCHES = (1, 2, 4)
RATE, LOW = 0.2, 0.0
BUDGET = 6.5 * GIB  # at 20%: 2.7, 4.2 fit, 7.2 does not; at 0% batch 4 (6.0) fits

# A three-point sweep: B = 2 slower than B = 4 (an anomaly); B = 4 beats its bound.
ROWS = [
    {"B": 1, "flops": 3.3e7, "bytes": 6.71e7, "intensity": 0.5, "bound": "memory",
     "latency_s": 0.004, "throughput_per_s": 250.0, "t_pred_s": 0.0033, "anomaly": None},
    {"B": 2, "flops": 6.6e7, "bytes": 6.72e7, "intensity": 1.0, "bound": "memory",
     "latency_s": 0.005, "throughput_per_s": 400.0, "t_pred_s": 0.0034,
     "anomaly": "slower than B=4"},
    {"B": 4, "flops": 1.3e8, "bytes": 6.73e7, "intensity": 2.0, "bound": "compute",
     "latency_s": 0.0045, "throughput_per_s": 4 / 0.0045, "t_pred_s": 0.006, "anomaly": None},
]  # fmt: skip
