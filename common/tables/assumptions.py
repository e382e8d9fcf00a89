"""The teaching assumptions: numbers the course chooses rather than measures or looks up."""

from __future__ import annotations

from dataclasses import dataclass

from common.tables import slips, sources
from common.tables.models import LLAMA_2_7B, ModelSpec
from common.tables.validate import PLAUSIBLE_RANGES, positive

#: The values an assumption can mean, by the first word of its unit: (above, at most).
RANGES: dict[str, tuple[float, float]] = {
    "fraction": (0.0, 1.0),  # a rate: 30 typed for 0.30 is refused
    "GiB": (0.0, 100 * 1024.0),  # a memory budget below 100 TiB (not 78e9 GiB)
    "vectors": (0.0, 1024.0),  # live activation vectors per token: a dozen or so
    "Zipf": (0.0, 4.0),  # a popularity exponent: s = 1 is already a strong skew
    "bytes": PLAUSIBLE_RANGES["B"],
    "bytes/s": PLAUSIBLE_RANGES["B/s"],
    "FLOP/s": PLAUSIBLE_RANGES["FLOP/s"]}  # fmt: skip


@dataclass(frozen=True)
class Assumption:
    """One teaching assumption: value and unit, its source, and when it applies."""

    name: str
    value: float
    unit: str
    source: str
    applies: str

    def __post_init__(self) -> None:
        value, unit = positive(self.value, self.name), str(self.unit).split(" ")[0]
        if unit not in RANGES:
            raise ValueError(
                f"{self.name}: unit {self.unit!r} must start with one of {list(RANGES)}"
            )
        low, high = RANGES[unit]
        if not low < value <= high:
            span = f"({low:g}, {high:g}]"
            kind = (
                f"a fraction in {span} (0.3 for 30%)" if unit == "fraction" else f"in {span} {unit}"
            )
            raise ValueError(f"{self.name} must be {kind}, got {value:.4g}")


slips.check_table_source(slips.source_of(globals()), __file__, Assumption)

ACTIVATIONS_PER_TOKEN = Assumption(
    "live activation vectors per token",
    16,
    "vectors of d_model elements",
    f"{sources.ARTICLE_MEMORY}: about 128 KiB/token at d_model = 4096 in fp16",
    "Inference keeps only the current layer's temporaries alive: a dozen or so "
    "[d_model] tensors per token. Real engines differ a lot; a rule of thumb for sizing.",
)

ARTICLE_OVERHEAD = Assumption(
    "overhead rate, the article's ledger",
    0.30,
    "fraction of weights + KV cache + activations",
    f"{sources.ARTICLE_LEDGER_RUN}: 'a set ratio, not a measured overhead'",
    "The article's teaching ledger (lectures 03 and 04) with naive pre-allocation: every "
    "sequence reserves its full length, so runtime, workspace and fragmentation are "
    "charged generously. It reproduces the article's 94.95 GiB at batch 24.")  # fmt: skip

LOW_OVERHEAD = Assumption(
    "overhead rate, low-overhead what-if",
    0.04,
    "fraction of weights + KV cache + activations",
    f"{sources.ARTICLE_LEDGER_RUN}: the same ledger with 4% instead of 30%",
    "The article's what-if (for example paged KV allocation): the same card, the same "
    "model, one assumption changed, and batch 24 fits.")  # fmt: skip

LLM_OVERHEAD = Assumption(
    "overhead rate, whole-model ledgers",
    0.10,
    "fraction of weights + KV cache + activations",
    "this course's default for the LLM lectures (a teaching number, not a measurement)",
    "The whole-model lectures size decode with a paged KV cache allocated as it grows, "
    "as serving engines do, so the generous 30% of naive pre-allocation would overstate "
    "the overhead; 10% leaves room for the runtime, CUDA graphs and workspace.")  # fmt: skip

ARTICLE_BUDGET = Assumption(
    "usable memory on an 80 GB card",
    78.0,
    "GiB",
    f"{sources.ARTICLE_LEDGER_RUN}: 'assume a 78 GiB usable budget'",
    "The article's budget line for its 7B ledger; lecture 03's --budget-gib changes it.",
)

SM_REGISTER_FILE = Assumption(
    "register file of one SM",
    65536 * 4,
    "bytes (64K 32-bit registers)",
    sources.H100_WHITEPAPER,
    "What one H100 SM can hold on chip for a tile's fp32 accumulator (lecture 02's tiling "
    "part); shared memory and L2 come on top of it.")  # fmt: skip

EXAMPLE_BANDWIDTH = Assumption(
    "example machine: measured bandwidth",
    71.8e9,
    "bytes/s",
    sources.ARTICLE_PROBE,
    "Only when this machine has no results file: the exercises on measured roofs then "
    "use the article's laptop instead, and say so.")  # fmt: skip

EXAMPLE_MATMUL = Assumption(
    "example machine: measured matmul rate",
    2003e9,
    "FLOP/s",
    sources.ARTICLE_PROBE,
    EXAMPLE_BANDWIDTH.applies)  # fmt: skip

ROUTING_SKEW = Assumption(
    "routing skew",
    1.0,
    "Zipf exponent s: the i-th most popular expert chosen in proportion to i^-s",
    "the course's choice, to show what skew does; uniform routing is s = 0",
    "Routers are trained towards balance (auxiliary losses, DeepSeek-V3's bias), yet the "
    "experts a batch reaches are uneven; s = 1 is a strong skew, for illustration.")  # fmt: skip

# Every assumption above, in the order the table lists them.
ASSUMPTIONS = tuple(v for v in list(globals().values()) if isinstance(v, Assumption))

ACT_VECTORS_PER_TOKEN = int(ACTIVATIONS_PER_TOKEN.value)
ROUTING_ZIPF = ROUTING_SKEW.value
ARTICLE_OVERHEAD_RATE = ARTICLE_OVERHEAD.value
LOW_OVERHEAD_RATE = LOW_OVERHEAD.value
LLM_OVERHEAD_RATE = LLM_OVERHEAD.value
ARTICLE_BUDGET_GIB = ARTICLE_BUDGET.value
SM_REGISTER_FILE_BYTES = int(SM_REGISTER_FILE.value)

#: The article's teaching model: 7B parameters in the model table's Llama-2-7B shape (32
#: layers, 32 KV heads x 128 = 4096), fp16 weights and KV cache, 4096-token sequences, and
#: the activation rule above (16 x 4096 x 2 bytes = 128 KiB per token).
ARTICLE_7B = ModelSpec(
    name="7B, fp16", n_params=7e9, weight_bytes=2, n_layers=LLAMA_2_7B.n_layers,
    d_kv=LLAMA_2_7B.kv_dim, kv_bytes=2, seq=4096,
    act_bytes_per_token=ACT_VECTORS_PER_TOKEN * LLAMA_2_7B.d_model * 2,
)  # fmt: skip
ARTICLE_BATCHES = (1, 4, 8, 16, 24, 32)  # the article's ledger rows

#: The largest batch (sequences) a capacity search tries, also --batch's maximum: past it
#: a search says "at least" instead of calling its bound a fit.
BATCH_SEARCH_LIMIT = 2**20
