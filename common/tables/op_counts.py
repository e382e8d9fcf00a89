"""Per-element operation counts: how many FLOP the course charges each element of an operator.

Counting conventions, not measurements (a kernel may do more scalar work): every formula
that charges an operator per element reads its count here.
"""

from __future__ import annotations

#: Softmax: max, subtract, exp, sum, divide. The article's text uses about 5 n d
#: (section 3.3; its script's 6 is the inconsistency the course resolves in favour
#: of the text), and the attention formula's 5 N^2 term is the same count.
SOFTMAX_FLOPS_PER_ELEM = 5

#: LayerNorm without bias: add (mean), subtract, multiply, add (variance), divide,
#: multiply by the gain; the article's "about 6 per element" (section 3.3).
LAYERNORM_FLOPS_PER_ELEM = 6

#: RMSNorm: square, accumulate, scale by 1/rms, multiply by the gain.
RMSNORM_FLOPS_PER_ELEM = 4

#: SiLU, x * sigmoid(x): exp, add, divide, multiply.
SILU_FLOPS_PER_ELEM = 4

#: The gate product silu(g) * u of a gated MLP: one multiply.
GATE_FLOPS_PER_ELEM = 1

#: One multiply-add counts as 2 FLOP everywhere in the course.
FLOPS_PER_MULTIPLY_ADD = 2
