"""Sizes from a time and a memory budget, and from the cache only as far as they allow.

A working set "clear of the cache" is at least ``CLEAR`` times the LLC; when a budget
cannot get that far, ``cache_note`` says what was measured instead.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

from common.formulas.numpy_ops import FP32, HIDDEN, SEQ_STEP, attention_seq_len
from common.formulas.roofline import lower_bound_time, matmul_counts
from common.formulas.transformer import parameter_breakdown
from common.shell import cli, interface
from common.shell.paths import REPO_ROOT
from common.tables.models import Model, shrunk
from common.tables.units import GIB, MIB

FALLBACK_LLC_BYTES = 32 * MIB  # assumed when the OS reports no cache (said on the page)
BASELINE_BYTES = 160 * MIB  # Python, numpy, BLAS buffers, matplotlib: resident before any array
STREAM_LLC_MULTIPLE = 8  # a stream over 8x the LLC finds at most 1/8 of it cached
STREAM_FLOOR_BYTES = 256 * MIB  # a small or unknown LLC still gets a long stream
CLEAR = 2.0  # a swept set >= 2x the LLC is evicted between sweeps (LRU)
MIXED = 1.0  # between 1x and 2x the LLC: part cache, part DRAM
MIN_SEQ = 1024
LECTURES = REPO_ROOT / "lectures"


@dataclass(frozen=True)
class Budget:
    """What a lecture may spend: `seconds` of a whole run, `memory_bytes` of resident memory."""

    seconds: float
    memory_bytes: int

    @property
    def arrays_bytes(self) -> int:
        """Bytes left for the lecture's arrays: memory_bytes - BASELINE_BYTES (>= 64 MiB)."""
        return max(64 * MIB, self.memory_bytes - BASELINE_BYTES)


class _Declared(dict[str, Budget]):
    """Lecture number ('09') -> its ``ABOUT["budget"]`` (seconds, GiB), read on first use."""

    def __missing__(self, lecture: str) -> Budget:
        found = [p for n, p in interface.lectures(LECTURES).items() if n.startswith(f"{lecture}_")]
        about = interface.declared(found[0]) if found else {}
        if "budget" not in about:
            raise KeyError(f"lecture {lecture} declares no budget (ABOUT['budget'])")
        seconds, gib = about["budget"]
        self[lecture] = Budget(float(seconds), int(gib * GIB))
        return self[lecture]


#: Default budgets, a student's laptop can afford them: lecture -> Budget (its declaration).
DEFAULTS: dict[str, Budget] = _Declared()


def time_scale(plan: Budget, lecture: str) -> float:
    """How much longer than its default budget a run may take: plan.seconds / default seconds."""
    return plan.seconds / DEFAULTS[lecture].seconds


def scaled_times(times: dict[str, float], factor: float) -> dict[str, float]:
    """A lecture's time budgets (keys ending in '_s': seconds) times `factor`; others kept."""
    return {k: v * factor if k.endswith("_s") else v for k, v in times.items()}


def llc_or_fallback(llc_bytes: int | None) -> int:
    """The reported LLC in bytes, or FALLBACK_LLC_BYTES when the OS reports none."""
    return llc_bytes if llc_bytes else FALLBACK_LLC_BYTES


def cache_note(what: str, working_set_bytes: float, llc_bytes: int | None) -> str | None:
    """One sentence when a working set is not clear (>= CLEAR x LLC) of the cache, else None."""
    if not llc_bytes:
        return None
    ratio = working_set_bytes / llc_bytes
    if ratio >= CLEAR:
        return None
    served = "a mix of LLC and DRAM" if ratio >= MIXED else "mostly the LLC, not DRAM"
    what = what[:1].upper() + what[1:]  # the sentence's first word
    return (f"{what} ran with the working set {ratio:.2g}x the LLC (the budget allows no more): "
            f"it measures {served}")  # fmt: skip


# --- Lecture 01: the roofs' stream and the operations ------------------------
# The roofs' stream (W) and matmul stay allocated while the operations are timed; the largest
# operation, add+relu in one expression, holds 5/3 W: the peak is W + 5/3 W + the matmul.
CALL_CAP_S = 0.15  # one call of an operation: at most this long at the roofline's bound
CALL_SHARE = CALL_CAP_S / 10.0  # ... for a 10 s budget: the cap grows with the budget
OP_SHARE = 0.012  # seconds of timed calls per operation: 0.12 s of a 10 s budget
OPS_DEADLINE_SHARE = 0.6  # past 60% of the budget, operations get their minimum calls only


def op_seconds(plan: Budget) -> float:
    """Seconds of timed calls one operation of lecture 01 gets: OP_SHARE of the budget."""
    return OP_SHARE * plan.seconds


def call_cap(plan: Budget) -> float:
    """Longest bound one timed call may have, in seconds: CALL_SHARE of the run's budget."""
    return CALL_SHARE * plan.seconds


def stream_bytes(llc_bytes: int | None, budget: Budget, matmul_bytes: int = 0) -> int:
    """The stream's working set W: max(8 LLC, 256 MiB), within (arrays - matmul) / (8/3)."""
    want = max(STREAM_LLC_MULTIPLE * llc_or_fallback(llc_bytes), STREAM_FLOOR_BYTES)
    cap = (budget.arrays_bytes - matmul_bytes) * 3 // 8  # W + 5/3 W = 8/3 W
    return max(3 * FP32 * 1024, min(want, cap) // (3 * FP32) * (3 * FP32))


def attention_seq(llc_bytes: int | None, cap_bytes: int, peak: float, beta: float,
                  head_dim: int = 128, call_cap_s: float = CALL_CAP_S) -> int:  # fmt: skip
    """N (a multiple of SEQ_STEP) with S = 4 N^2 >= 2 LLC, shrunk to fit cap_bytes and a call
    bound max(4 N^2 d_h / P, 10 x 4 N^2 / beta) within call_cap_s seconds."""
    n = attention_seq_len(llc_or_fallback(llc_bytes))  # S >= 2 LLC, as lecture 01 sizes it

    def too_big(n: int) -> bool:
        call_s = lower_bound_time(4.0 * n * n * head_dim, 10 * FP32 * n * n, peak, beta)
        return FP32 * n * n + 4 * FP32 * n * head_dim > cap_bytes or call_s > call_cap_s

    while n > MIN_SEQ and too_big(n):
        n -= SEQ_STEP
    return n


def gemm_width(llc_bytes: int | None, cap_bytes: int, peak: float, rows: int = 512,
               call_cap_s: float = CALL_CAP_S) -> int:  # fmt: skip
    """K = N: HIDDEN, doubled while 4 K^2 < 2 LLC, 4 (K^2 + 2 rows K) <= cap_bytes and
    2 rows K^2 / P <= call_cap_s; halved (to 1024 at least) while it exceeds cap_bytes."""

    def fits(k: int) -> bool:
        return FP32 * (k * k + 2 * rows * k) <= cap_bytes

    k = HIDDEN
    while k > 1024 and not fits(k):
        k //= 2
    while (
        k >= HIDDEN
        and FP32 * k * k < CLEAR * llc_or_fallback(llc_bytes)
        and fits(2 * k)
        and 2.0 * rows * (2 * k) ** 2 / peak <= call_cap_s
    ):
        k *= 2
    return k


# --- Lecture 03: the batch sweep's weights, kept out of the cache ------------
# A VM may sit on several caches of the reported size, which keep part of a streamed set.
WEIGHT_CLEAR = 4.0


def weight_copies(weight_bytes: int, llc_bytes: int | None, cap_bytes: int) -> int:
    """How many copies of W the sweep rotates through so that W is never served from cache."""
    llc = llc_or_fallback(llc_bytes)
    if weight_bytes >= WEIGHT_CLEAR * llc:
        return 1
    return max(1, min(1 + math.ceil(WEIGHT_CLEAR * llc / weight_bytes), cap_bytes // weight_bytes))


def streamed_between_bytes(weight_bytes: int, copies: int) -> int:
    """Bytes read between two reads of one weight copy: W itself when alone, else (copies-1) W."""
    return weight_bytes * max(1, copies - 1)


# --- Lectures 09 and 10: the sweep's ceiling, the attention lengths ----------
SWEEP_ARRAYS_SHARE = 0.75  # the sweep's one buffer; the rest is the matmuls and the threads test


def sweep_weight_dim(
    batches: tuple[int, ...], peak: float, bandwidth: float, budget_s: float
) -> int:
    """K of lecture 03's fp32 W[K, K]: the article's 4096, halved (down to 1024) while the
    shortest sweep, one warm-up and one timed call per batch at the roofline bound
    2 * sum_B max(2BK^2 / P, 4(K^2 + 2BK) / beta) seconds, would overrun `budget_s`."""

    def cost_s(k: int) -> float:
        counts = (matmul_counts(b, k, k, FP32, FP32, FP32) for b in batches)
        return sum(2 * lower_bound_time(f, d, peak, bandwidth) for f, d in counts)

    k = 4096
    while k > 1024 and cost_s(k) > budget_s:
        k //= 2
    return k


def sweep_limit_bytes(llc_bytes: int | None, budget: Budget, available: int | None) -> int:
    """Largest working set of lecture 09's sweep: max(8 LLC, 256 MiB), within the budget."""
    want = max(STREAM_LLC_MULTIPLE * llc_or_fallback(llc_bytes), STREAM_FLOOR_BYTES)
    cap = int(budget.arrays_bytes * SWEEP_ARRAYS_SHARE)
    cap = min(cap, available // 4) if available else cap
    return max(64 * 1024, min(want, cap))


def matmul_side_cap(budget: Budget, peak: float, seconds: float) -> int:
    """Largest square fp32 matmul side (a multiple of 256) whose call takes <= seconds at P
    and whose 12 n^2 bytes fit a quarter of the arrays budget."""
    by_time = (seconds * peak / 2.0) ** (1 / 3)
    by_memory = math.sqrt(budget.arrays_bytes / 4 / (3 * FP32))
    return max(256, int(min(by_time, by_memory)) // 256 * 256)


def attention_longest(
    llc_bytes: int | None, plan: Budget, peak: float, beta: float, head_dim: int = 128
) -> int:
    """Lecture 10's longest N: attention_seq within half the arrays budget, in bytes (it
    times naive and tiled attention side by side), and within the run's call cap."""
    return attention_seq(llc_bytes, plan.arrays_bytes // 2, peak, beta, head_dim, call_cap(plan))


# --- The flags ---------------------------------------------------------------
MAX_MEMORY_GIB = 1024.0
MAX_SECONDS = 3600.0


def add_flags(parser: cli.Parser, lecture: str) -> cli.Parser:
    """--memory-limit GIB and --time-limit S: the lecture's measuring budget (DEFAULTS)."""
    default = DEFAULTS[lecture]
    parser.add_argument(
        "--memory-limit",
        type=cli.number_in(0.125, MAX_MEMORY_GIB, "memory limit"),
        default=default.memory_bytes / GIB,
        metavar="GIB",
        help="resident memory the measurements may use, in GiB "
        f"(default {default.memory_bytes / GIB:g}); sizes shrink to fit it")  # fmt: skip
    parser.add_argument(
        "--time-limit",
        type=cli.number_in(1.0, MAX_SECONDS, "time limit"),
        default=default.seconds,
        metavar="S",
        help=f"seconds the run aims to take (default {default.seconds:g})")  # fmt: skip
    return parser


def measuring_parser(doc: str | None, lecture: str, quick: str) -> cli.LectureParser:
    """A measuring lecture's parser: --quick (`quick` says what it shortens), --png, --outdir,
    --results (the lecture saves its section) and the budget flags of `lecture` (add_flags)."""
    parser = cli.lecture_parser(doc)
    parser.add_argument("--quick", action="store_true", help=quick)
    cli.add_png_flags(parser)
    cli.add_results_flag(parser, saves=True)
    return add_flags(parser, lecture)


def from_args(args: argparse.Namespace) -> Budget:
    """The Budget of --memory-limit and --time-limit, checked against `headroom` at its first
    call only (later the lecture's own mappings would count against it)."""
    plan = Budget(float(args.time_limit), int(args.memory_limit * GIB))
    if plan not in _checked:
        check_memory(plan, *headroom())
        _checked.append(plan)
    return plan


_checked: list[Budget] = []  # the budgets `from_args` has checked in this run
_advice = [""]  # set by `check_memory`: what a MemoryError's one line advises


def headroom(status: str = "/proc/self/status") -> tuple[int | None, str]:
    """Bytes this process may still allocate, and what limits it: the least of MemAvailable and
    ``ulimit -v`` / ``-d`` less what the process maps (VmSize, VmData); (None, '') if unknown."""
    from common.measure.caches import available_memory_bytes

    found = [(available_memory_bytes(), "of free memory left")]
    try:
        import resource

        with open(status, encoding="ascii") as f:
            fields = [line.partition(":") for line in f]
        used = {k: int(v.split()[0]) * 1024 for k, _, v in fields if k in ("VmSize", "VmData")}
    except (ImportError, OSError, ValueError):
        return found[0] if found[0][0] else (None, "")
    for name, held, flag in (("RLIMIT_AS", "VmSize", "-v"), ("RLIMIT_DATA", "VmData", "-d")):
        if (soft := resource.getrlimit(getattr(resource, name))[0]) != resource.RLIM_INFINITY:
            found.append((max(0, soft - used.get(held, 0)), f"left under ulimit {flag}"))
    return min(((b, w) for b, w in found if b is not None), default=(None, ""))


def check_memory(plan: Budget, room: int | None, what: str = "of free memory left") -> None:
    """ValueError in one line when the budget (plus a BASELINE_BYTES margin for libraries and
    temporaries) exceeds `room` bytes, naming the --memory-limit that fits (1/8 GiB steps)."""
    limit, _advice[0] = plan.memory_bytes / GIB, ""
    if room is None:
        return
    fit = math.floor((room - BASELINE_BYTES) / GIB * 8) / 8
    left, rerun = f"{room / GIB:.2f} GiB {what}", fit if fit < limit else math.floor(limit * 4) / 8
    _advice[0] = (  # if it fits yet an allocation fails: half of it; the flag takes > 1/8 GiB
        f"rerun with --memory-limit {rerun:g} ({left})" if rerun > 0.125
        else f"only {left}: close other programs or raise the limit")  # fmt: skip
    if fit < limit:
        raise ValueError(f"--memory-limit {limit:g} GiB is more than this process can allocate; "
                         f"{_advice[0]}")  # fmt: skip


def memory_advice() -> str:
    """What to rerun with, from the last `check_memory` ('' when nothing was checked)."""
    return _advice[0]


# --- Lecture 12: how many layers the profiled model gets ---------------------
PROFILE_SHARE = 0.3  # of the time budget: the profiled runs of every precision
PROFILER_COST = 3.0  # a profiled run (shapes, memory, FLOPs recorded) takes up to 3x longer
WEIGHTS_SHARE = 0.5  # of the arrays budget: one precision's weights (the rest: roofs, records)
SHRINK = 4  # Llama 3 8B's widths divided by 4 unless --shrink or the memory budget says more
MAX_SHRINK = 32
SHORT_SHARE = 1 / 3  # a --time-limit under a third of the default: --quick's sizes


def short_run(plan: Budget, quick: bool) -> bool:
    """True when lecture 12 takes --quick's sizes (one layer, a 64-token prompt, quick roofs):
    --quick, or a --time-limit under SHORT_SHARE of its default (the rest could not fit it)."""
    return quick or plan.seconds < SHORT_SHARE * DEFAULTS["12"].seconds


def profiled_shrink(model: Model, plan: Budget, asked: int | None) -> int:
    """--shrink, else SHRINK doubled (to MAX_SHRINK) until one layer's fp32 weights with the
    embedding and LM head fit WEIGHTS_SHARE x arrays_bytes; ValueError if `asked` does not."""

    def weights_bytes(factor: int) -> int:
        return FP32 * sum(parameter_breakdown(shrunk(model, factor, 1)).values())

    room = WEIGHTS_SHARE * plan.arrays_bytes
    if asked is None:  # doubled: whole head counts
        return next(
            (f for f in (SHRINK, 8, 16, MAX_SHRINK) if weights_bytes(f) <= room), MAX_SHRINK
        )
    if weights_bytes(asked) <= room:
        return asked
    fitting = next((f for f in range(asked, MAX_SHRINK + 1) if weights_bytes(f) <= room), None)
    raise ValueError(
        f"--shrink {asked}: one layer's fp32 weights ({weights_bytes(asked) / GIB:.2f} GiB) need "
        f"more than --memory-limit {plan.memory_bytes / GIB:g} GiB allows; "
        + (f"use --shrink {fitting} or more" if fitting else "raise --memory-limit"))  # fmt: skip


def profiled_layers(model: Model, layer_s: float, runs: int, plan: Budget) -> int:
    """Layers L in [1, model's] with runs x PROFILER_COST x L x layer_s <= PROFILE_SHARE x seconds
    and its fp32 weights (embedding, LM head, L layers) within WEIGHTS_SHARE x arrays_bytes."""
    parts = {k: FP32 * v for k, v in parameter_breakdown(model).items()}
    per_layer = (parts["attention"] + parts["mlp"] + parts["norms"]) / model.n_layers
    by_memory = (
        WEIGHTS_SHARE * plan.arrays_bytes - parts["embedding"] - parts["lm_head"]
    ) / per_layer
    by_time = PROFILE_SHARE * plan.seconds / (runs * PROFILER_COST * layer_s)
    return max(1, min(model.n_layers, int(by_time), int(by_memory)))
