"""Mutation testing for the course's numbers: break one thing at a time, see a test fail.

Usage (from the repository root)::

    python tools/mutation.py                      # every module in MODULES
    python tools/mutation.py common/formulas/ledger.py common/hw_specs.py
    python tools/mutation.py --list common/formulas/ledger.py   # the mutants, not run
    python tools/mutation.py --jobs 2 --timeout 20
    python tools/mutation.py common/plots/article.py --lines 52-165   # one part of a module

Each mutant is one small change to one module's syntax tree, of the kinds of faults
that ship: an operator swapped (+ for -, * for /), a term or factor dropped (a * b -> a),
a comparison moved by one (< for <=), a number changed (n -> n + 1, x -> 1.1 x), a flag
inverted, max for min, a figure's log axis made linear. Docstrings, strings, f-strings,
annotations and error messages are left alone: they do not carry the numbers. Values of
cosmetic keyword arguments (font and marker sizes, line widths, transparency:
COSMETIC_KEYWORDS) are not mutated: they change how a figure looks, not what it says.
In the presentation and exercise modules (WORD_MODULES) the words are faults too: a
string or the text of an f-string gets one word of WORD_SWAPS swapped (rose for fell,
more for fewer, faster for slower, memory for compute, a unit label), and the
expressions inside f-strings are mutated like any other. A test may be a node id
(file::test).

A mutant runs in a forked child of this process (pytest, numpy and matplotlib are
already imported, so one mutant costs a fraction of a second plus its tests). An import
hook hands the child the mutated module instead of the file on disk; nothing on disk
changes. The child runs only the test files mapped to the module (MODULES below) and
stops at the first failure. The mutant is killed when a test fails or errors, or when
the tests exceed the timeout (a mutated loop that never ends); it survives when they
all pass.

Equivalent mutants (a change no test can see because the behaviour is the same) are
listed in EQUIVALENT with the reason, and left out of the kill rate.

Exit status: 0 when every module reaches --threshold (default 90%), 1 otherwise.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import functools
import importlib.abc
import importlib.util
import os
import re
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------------------
# Which tests cover which module
# ---------------------------------------------------------------------------
T_HW = "tests/tables/test_hw_specs.py"
T_PLOT_AXES = "tests/plots/test_roofline_axes.py"
T_PLOT_DATA = "tests/plots/test_figures.py"
T_PLOT_LOCAL = "tests/plots/test_local_roofline_figure.py"
T_PLOT_POINTS = "tests/plots/test_measured_points.py"
T_PLOT_HIER = "tests/plots/test_hierarchy_figure.py"
T_PLOT_HIER_DETAILS = "tests/plots/test_hierarchy_details.py"
T_PLOT_ARTICLE = "tests/plots/test_article_figures.py"
T_PLOT_LABELS = "tests/plots/test_label_placement.py"
T_PLOT_ARTICLE_DETAILS = "tests/plots/test_article_details.py"
T_PLOT_ATT = "tests/plots/test_attention_figures.py"
T_PLOT_HIER_AXES = "tests/plots/test_hierarchy_axes.py"
T_PLOT_PREDICT = "tests/plots/test_predict_figure.py"
T_PREDICT_CMD = "tests/formulas/test_predict_command.py"
T_WORDS11 = "tests/lectures/test_words_predict_and_check.py"
T_MODELS = "tests/tables/test_models.py"
T_TABLES = "tests/tables/test_tables.py"
T_ROOF = "tests/formulas/test_roofline.py"
T_LEDGER = "tests/formulas/test_ledger.py"
T_THRESH = "tests/formulas/test_thresholds.py"
T_VALIDATE = "tests/tables/test_validate.py"
T_CHECKS = "tests/tables/test_validate_checks.py"
T_HIER_LECTURE = "tests/formulas/test_hierarchy_lecture.py"
T_ATT = "tests/formulas/test_attention_io.py"
T_ATT_KERNELS = "tests/measure/test_attention_kernels.py"
T_TRANS = "tests/formulas/test_transformer.py"
T_GQA = "tests/formulas/test_transformer_ops.py"
T_NUMPY_OPS = "tests/formulas/test_numpy_ops.py"
T_HIER = "tests/formulas/test_hierarchy.py"
T_PLATEAU = "tests/formulas/test_plateaus.py"
T_TIMING = "tests/measure/test_timing.py"
T_ROOFS = "tests/measure/test_roofs.py"
T_CACHES = "tests/measure/test_caches.py"
T_MACHINE = "tests/measure/test_machine.py"
T_SWEEP = "tests/measure/test_sweep.py"
T_EX = "tests/exercises/test_exercises.py"
T_PAGES = "tests/docs/test_pages_unit.py"
T_CLAIMS = "tests/present/test_claims.py"
T_EX_CLI = "tests/exercises/test_exercises_cli.py"
T_SENTENCES = "tests/present/test_sentences.py"
T_SLIPS = "tests/tables/test_slips.py"
T_SHIPPED = "tests/tables/test_shipped.py"

MODULES: dict[str, tuple[str, ...]] = {
    "common/hw_specs.py": (T_HW, T_PAGES),
    "common/tables/models.py": (T_MODELS, T_TRANS),
    "common/tables/assumptions.py": (T_TABLES, T_LEDGER, T_TRANS),
    "common/tables/op_counts.py": (T_TABLES, T_LEDGER, T_GQA),
    "common/tables/units.py": (T_TABLES,),
    "common/tables/sources.py": (T_TABLES,),
    "common/tables/validate.py": (T_VALIDATE, T_CHECKS, T_ROOF),
    "common/formulas/roofline.py": (T_ROOF, T_LEDGER),
    "common/formulas/thresholds.py": (T_THRESH, T_ROOF, T_LEDGER),
    "common/formulas/ledger.py": (T_LEDGER, T_TRANS),
    "common/formulas/transformer.py": (T_GQA, T_TRANS),
    "common/formulas/numpy_ops.py": (T_NUMPY_OPS,),
    "common/formulas/hierarchy.py": (T_HIER, T_PLATEAU, T_HIER_LECTURE),
    "common/formulas/attention_io.py": (T_ATT,),
    "common/measure/timing.py": (T_TIMING,),
    "common/measure/roofs.py": (T_ROOFS,),
    "common/measure/caches.py": (T_CACHES,),
    "common/measure/machine.py": (T_MACHINE,),
    "common/measure/hierarchy.py": (T_SWEEP,),
    "common/measure/attention.py": (T_ATT_KERNELS,),
    # Figures: tested by the data and axes matplotlib holds (tests/plots).
    "common/plots/style.py": (
        T_PLOT_AXES,
        T_PLOT_ATT,
        T_PLOT_HIER_AXES,
        T_PLOT_ARTICLE,
        T_PLOT_DATA,
    ),
    "common/plots/roofline.py": (T_PLOT_AXES, T_PLOT_DATA),
    "common/plots/article.py": (
        T_PLOT_LABELS,
        T_PLOT_ARTICLE_DETAILS,
        T_PLOT_ARTICLE,
        T_PLOT_DATA,
        T_PLOT_LOCAL,
        T_PLOT_POINTS,
    ),
    "common/plots/attention.py": (T_PLOT_ATT,),
    "common/plots/predict.py": (T_PLOT_PREDICT,),
    "common/plots/hierarchy.py": (T_PLOT_HIER_DETAILS, T_PLOT_HIER_AXES, T_PLOT_DATA, T_PLOT_HIER),
    "common/plots/transformer.py": (T_PLOT_ARTICLE, T_PLOT_DATA),
    "common/tables/slips.py": (T_SLIPS, "tests/tables/test_table_slips.py"),
    "common/present/claims.py": (T_CLAIMS,),
    "lectures/words/roofline_basics.py": ("tests/lectures/test_words_roofline_basics.py",),
    "lectures/words/machine_probe.py": ("tests/lectures/test_words_machine_probe.py",),
    "lectures/words/memory_ledger.py": ("tests/lectures/test_words_memory_ledger.py",),
    "lectures/words/operator_ledger.py": (
        "tests/lectures/test_words_operator_ledger.py",
        T_SENTENCES + "::test_lecture05_directions_by_hand",
    ),
    "lectures/words/llm_speed.py": ("tests/lectures/test_words_llm_speed.py",),
    "lectures/words/llm_capacity.py": ("tests/lectures/test_words_llm_capacity.py",),
    "lectures/words/llm_levers.py": ("tests/lectures/test_words_llm_levers.py",),
    "common/exercises/__init__.py": (
        "tests/exercises/test_exercise_answers.py",
        T_EX,
        T_SHIPPED,
        T_SENTENCES + "::test_h200_exercise_words_by_hand",
    ),
    "common/exercises/text.py": (T_EX, T_EX_CLI),
    "lectures/words/hierarchical_roofline.py": (
        "tests/lectures/test_words_hierarchical_roofline.py",
    ),
    "lectures/words/tiled_attention.py": ("tests/lectures/test_words_tiled_attention.py",),
    "common/formulas/predict.py": ("tests/formulas/test_predict.py", T_WORDS11, T_EX),
    "common/tables/measurements.py": ("tests/tables/test_measurements.py",),
    "common/predict.py": (T_PREDICT_CMD,),
    "lectures/words/predict_and_check.py": (T_WORDS11,),
    "lectures/words/profiler_vs_ledger.py": ("tests/lectures/test_words_profiler_vs_ledger.py",),
    "common/measure/torch_roofs.py": ("tests/measure/test_torch_roofs.py",),
}

# ---------------------------------------------------------------------------
# Equivalent mutants: (module, the line's source text stripped, mutation) -> why
# ---------------------------------------------------------------------------
_SEARCH = (
    "smallest_integer_reaching only starts its search at the estimate: the step down "
    "while reaches(b - 1) and the step up while not reaches(b) find the same smallest "
    "b from any start >= 1, for a predicate that stays true once true"
)
_GALLOP = (
    "largest_batch_that_fits gallops to a batch that does not fit, then bisects; the "
    "invariant (lo fits, hi does not or is past the limit) holds from any first hi > 1 "
    "and for any growth factor > 1, so the answer is the same"
)
_PREFIX = (
    "segment_means uses only differences of its prefix sums, and the squared sum: a "
    "constant start or a negated running sum gives the same segment costs"
)
_GUARD = (
    "the n < 2 min_length shortcut only skips the dynamic programme, which itself "
    "returns the single segment [0] when no split leaves two segments of min_length"
)
_SQUARE = "the matrices are square (n x n): shape[0] == shape[1]"
_CEIL = (
    "-(-a // r) is the ceiling of a / r; time_samples compares an integer count "
    "with repeat, so a / r (and, for the pinned budget 3 / 3, the sign slips) take "
    "the same number of samples"
)
M = "common/measure/"
F = "common/formulas/"
C = "common/present/claims.py"
_SIGN = "d is +1 or -1 here: the d == 0 case returned above, so d > 0 and d >= 0 agree"
W09 = "lectures/words/hierarchical_roofline.py"
EQUIVALENT: dict[tuple[str, str, str], str] = {
    (
        "common/plots/roofline.py",
        "lo = 10 ** math.floor(math.log10(max(min(xs) / 1.5, 1e-3)))",
        "0.001 -> 0.0011",
    ): "the floor of log10 takes the clamp 1e-3 and 1.1e-3 to the same decade, 1e-3",
    (
        "common/plots/article.py",
        'return f"{v:,.0f}" if v >= 1 else f"{v:g}"',
        ">= -> >",
    ): "at v = 1 both formats print '1'",
    **{
        (
            "common/plots/article.py",
            "far = [(dx * 3, dy * 2 if dy > 0 else dy * 1.6) for dx, dy in offsets if dx]",
            d,
        ): (
            "the far ring is built from the offsets that move sideways, whose dy (3, -11, -4, "
            "pushed further from 0 by pad >= 0) is never in 0..1: dy > 0, dy >= 0 and dy > 1 agree"
        )
        for d in ("> -> >=", "0 -> 1")
    },
    (
        "common/plots/article.py",
        "(dx + math.copysign(pad, dx) if dx else 0, dy + math.copysign(pad, dy) if dy else 0)",
        "0 -> 1 #2",
    ): "no offset has dy = 0 (_OFFSETS), so the dy branch's `else 0` is never taken",
    ("common/plots/hierarchy.py", 'ax.set_xscale("log", base=2)', "2 -> 3"): (
        "binary_ticks sets the ticks (powers of 4 bytes) and turns minor ticks off, so the "
        "log base draws the same axis"
    ),
    (
        "common/plots/article.py",
        'return f"{v:,.0f}" if v >= 1 else f"{v:g}"',
        "1 -> 2",
    ): (
        "log_ticks, the only caller, ticks 1, 2 and 5 times powers of ten: the one value in "
        "1 <= v < 2 is 1, printed '1' by either format"
    ),
    **{
        (
            "common/plots/article.py",
            "if lo <= m * 10.0**e * (1 + 1e-9) and m * 10.0**e <= hi * (1 + 1e-9)",
            d,
        ): (
            "the 1e-9 margins keep each comparison off equality: a bound would have to lie "
            "exactly 1e-9 above a 1-2-5 value for < and <= to differ, and no figure's does"
        )
        for d in ("<= -> <", "<= -> < #2")
    },
    (
        "common/plots/article.py",
        "for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)",
        "1 -> 2",
    ): "the extra decade lies above hi, and values above hi are dropped by the filter",
    **{
        (
            "common/plots/article.py",
            "if lo <= m * 10.0**e * (1 + 1e-9) and m * 10.0**e <= hi * (1 + 1e-9)",
            d,
        ): (
            "any margin far below the 1-2-5 steps absorbs the rounding of m x 10**e (a test "
            "pins the bounds that need it)"
        )
        for d in ("1e-09 -> 1.1000000000000001e-09", "1e-09 -> 1.1000000000000001e-09 #2")
    },
    ("common/plots/roofline.py", "xs = log_range(lo, hi, 60)", "60 -> 61"): (
        "a roof is two straight segments on log-log axes: 61 samples from lo to hi draw the "
        "same lines between the same ends as 60"
    ),
    (
        "common/plots/roofline.py",
        'f"{k}  I = {x:,.0f}: {text}" if x >= 10 else f"{k}  I = {x:.3g}: {text}"',
        ">= -> >",
    ): "at x = 10 both formats print '10'",
    (
        "common/plots/transformer.py",
        "xs_max = [max([p.memory_wall, p.knee or 0, 2]) for p in panels]",
        "2 -> 3",
    ): "a floor of batch 2 or 3 gives the same axis: 3 or 4.5 both round up to 10",
    (
        "common/plots/transformer.py",
        "xs_max = [max([p.memory_wall, p.knee or 0, 2]) for p in panels]",
        "0 -> 1",
    ): "a missing knee counts as 0 or 1, both below the floor of batch 2",
    (
        "common/plots/style.py",
        "ticks = [4.0**k for k in range(math.floor(math.log(lo, 4)), "
        "math.ceil(math.log(hi, 4)) + 1)]",
        "1 -> 2",
    ): "the extra power of 4 lies above hi, and ticks outside lo..hi are dropped next line",
    (
        "common/plots/style.py",
        "ticks = [4.0**k for k in range(math.floor(math.log(lo, 4)), "
        "math.ceil(math.log(hi, 4)) + 1)]",
        "4 -> 5",
    ): (
        "log base 5 of lo (> 1 byte) is below its log base 4, so the powers of 4 only start "
        "lower, and those below lo are dropped next line"
    ),
    ("common/plots/attention.py", 'ax.set_xscale("log", base=2)', "2 -> 3"): (
        "the ticks are set explicitly (powers of 4 bytes, or the measured N) and minor ticks "
        "are off, so the log base draws the same axis"
    ),
    ("common/plots/attention.py", 'ax.set_xscale("log", base=2)', "2 -> 3 #2"): (
        "the ticks are set explicitly (the measured N) and minor ticks are off, so the log "
        "base draws the same axis"
    ),
    (
        "common/tables/slips.py",
        "close = difflib.get_close_matches(name, list(fields), n=1)",
        "1 -> 2",
    ): "only the best match, close[0], is used: asking for two changes nothing",
    (C, "return 1 if after > before else -1", "> -> >="): (
        "reached only when before != after (equal values print the same and returned 0)"
    ),
    (
        C,
        'return f"{up if d > 0 else down} from {fmt(before)} to {fmt(after)}{unit}{extra}"',
        "> -> >=",
    ): _SIGN,
    (
        C,
        'return f"grew {ratio(factor, digits)}" if d > 0 else '
        'f"shrank {ratio(1 / factor, digits)}"',
        "> -> >=",
    ): _SIGN,
    (
        C,
        'return f"{ratio(r, digits)} faster" if d > 0 else f"{ratio(1 / r, digits)} slower"',
        "> -> >=",
    ): _SIGN,
    (
        C,
        'return f"{ratio(x, digits)} more" if d > 0 else f"{ratio(1 / x, digits)} less"',
        "> -> >=",
    ): _SIGN,
    (C, 'word = "as many" if n == than else ("more" if n > than else "fewer")', "> -> >="): (
        "n == than took the first branch, so n > than and n >= than agree in the second"
    ),
    (C, 'if rlo > 1 and grew(rlo, digits) != "stayed the same":', "> -> >="): (
        "at rlo == 1 grew() says 'stayed the same', so the condition is false either way"
    ),
    (
        F + "hierarchy.py",
        "steps = math.floor(octaves * per_octave + 1e-9)",
        "1e-09 -> 1.1000000000000001e-09",
    ): (
        "any epsilon far below one step absorbs the rounding of log2 (a test pins the case "
        "that needs it)"
    ),
    (
        F + "hierarchy.py",
        "s1, s2 = [0.0], [0.0]  # prefix sums of values and squares: O(1) segment costs",
        "0.0 -> 1.0",
    ): _PREFIX,
    (
        F + "hierarchy.py",
        "s1, s2 = [0.0], [0.0]  # prefix sums of values and squares: O(1) segment costs",
        "0.0 -> 1.0 #2",
    ): _PREFIX,
    (F + "hierarchy.py", "s1.append(s1[-1] + v)", "+ -> -"): _PREFIX,
    (F + "hierarchy.py", "if n < 2 * min_length:", "* -> /"): _GUARD,
    (F + "hierarchy.py", "if n < 2 * min_length:", "a * b -> a"): _GUARD,
    (F + "hierarchy.py", "if n < 2 * min_length:", "a * b -> b"): _GUARD,
    (
        F + "hierarchy.py",
        "best = [0.0] + [math.inf] * n  # best[b]: cheapest split of values[:b]; inf if impossible",
        "0.0 -> 1.0",
    ): ("every split's cost starts from best[0] once: a constant there moves all costs alike"),
    (F + "hierarchy.py", "start = [0] * (n + 1)", "0 -> 1"): (
        "every start[b] on the backtracking path is written before it is read"
    ),
    (F + "hierarchy.py", "start = [0] * (n + 1)", "1 -> 2"): "one unused extra entry",
    (
        F + "numpy_ops.py",
        "while cap_bytes is not None and FP32 * k * k > cap_bytes and k > 1024:",
        "1024 -> 1025",
    ): "k is a power of two >= 1024, so k > 1024 and k > 1025 agree",
    (
        F + "transformer.py",
        "steps = max(1, math.ceil(math.log10(hi) * per_decade)) if hi > 1 else 0",
        "> -> >=",
    ): "at hi = 1 both give no interior points (log10(1) = 0)",
    (
        F + "transformer.py",
        "steps = max(1, math.ceil(math.log10(hi) * per_decade)) if hi > 1 else 0",
        "0 -> 1",
    ): "at hi = 1 both give no interior points (log10(1) = 0)",
    (
        F + "transformer.py",
        "steps = max(1, math.ceil(math.log10(hi) * per_decade)) if hi > 1 else 0",
        "1 -> 2",
    ): "at hi = 2 every interior point rounds to 1 or 2: the grid is [1, 2]",
    (
        M + "caches.py",
        "by_level[c.level] = max(by_level.get(c.level, 0), c.size_bytes)",
        "0 -> 1",
    ): "sizes are positive integers (parse_size), so max(1, size) == size",
    (M + "roofs.py", "rng = np.random.default_rng(0)", "0 -> 1"): (
        "other random operands: the same shapes, the same 2 n^3 FLOP"
    ),
    (M + "roofs.py", "return _matmul_summary(durations, a.shape[0], used)", "0 -> 1"): _SQUARE,
    (
        M + "roofs.py",
        "return Kernels(stream, stream_bytes, partial(np.matmul, a, b, out=c), a.shape[0])",
        "0 -> 1",
    ): _SQUARE,
    (M + "roofs.py", 'repeat=-(-budget["bandwidth_min_repeat"] // rounds),', "// -> /"): _CEIL,
    (M + "roofs.py", 'repeat=-(-budget["matmul_min_repeat"] // rounds),', "// -> /"): _CEIL,
    (M + "roofs.py", 'repeat=-(-budget["matmul_min_repeat"] // rounds),', "-x -> x"): _CEIL,
    (M + "roofs.py", 'repeat=-(-budget["matmul_min_repeat"] // rounds),', "-x -> x #2"): _CEIL,
    **{
        (F + "hierarchy.py", "s2.append(s2[-1] + v * v)", d): (
            "the squares enter a split's cost only as s2[n] - s2[0] summed over its "
            "segments, the same for every split of the series: any s2 gives the same argmin"
        )
        for d in ("+ -> -", "a + b -> a", "a + b -> b", "a * b -> a", "a * b -> b")
    },
    (
        F + "hierarchy.py",
        "if abs(slope) <= flat_slope + SLOPE_SIGMAS * sigma and strays <= len(idx) // 4:",
        "// -> /",
    ): "for an integer count s, s <= n / 4 exactly when s <= n // 4",
    (
        F + "hierarchy.py",
        "if abs(slope) <= flat_slope + SLOPE_SIGMAS * sigma and strays <= len(idx) // 4:",
        "a * b -> b",
    ): ("SLOPE_SIGMAS is 1.0 (pinned by a test): 1.0 x sigma is sigma"),
    (
        F + "hierarchy.py",
        "tried = [first] + [m for m in (margin, math.sqrt(margin), 1.0) if m < first]",
        "< -> <=",
    ): "it only retries the first margin, which found nothing",
    (
        F + "hierarchy.py",
        "(float(s), float(b)) for s, b in zip(sizes, bandwidths, strict=True) if b and b > 0",
        "> -> >=",
    ): "`b and` has already dropped zero",
    (
        F + "hierarchy.py",
        "return [p._replace(name=name) for p, name in zip(plateaus, names, strict=True)]",
        "True -> False",
    ): "the names are built to match the plateaus one to one",
    (
        M + "hierarchy.py",
        "with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:",
        "1 -> 2",
    ): "max(2, threads) differs only at threads = 1, where one part keeps one worker",
    (M + "timing.py", "repeat=max(0, min_batches - 1),", "0 -> 1"): (
        "time_samples takes at least one sample whatever repeat is"
    ),
    ("common/formulas/ledger.py", "lo, hi = 1, 2", "2 -> 3"): _GALLOP,
    ("common/formulas/ledger.py", "lo, hi = hi, hi * 2", "2 -> 3"): _GALLOP,
    ("common/formulas/thresholds.py", "b = max(1, math.ceil(estimate))", "1 -> 2"): _SEARCH,
    ("common/formulas/thresholds.py", "while b > 1 and reaches(b - 1):", "- -> +"): _SEARCH,
    ("common/formulas/thresholds.py", "while b > 1 and reaches(b - 1):", "a - b -> a"): _SEARCH,
    (W09, 'than = "less" if gap < 0 else "more"', "< -> <="): (
        "gap == 0 prints 0% and the sentence says 'the same' without 'less' or 'more'"
    ),
    (W09, "if abs(gap) <= AGREE", "<= -> <"): (
        "gap = fl(y / x) - 1 is exact (Sterbenz), a multiple of 2**-53, and 0.1 "
        "(0x1.999999999999ap-4) is not, so |gap| never equals AGREE"
    ),
}


# ---------------------------------------------------------------------------
# Mutation operators
# ---------------------------------------------------------------------------
BINOP_SWAP = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
}
CMP_SWAP = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
AUG_SWAP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult}
CALL_SWAP = {"max": "min", "min": "max"}
#: A figure's log axis made linear: ax.set_xscale("log") -> ax.set_xscale("linear").
SCALE_SETTERS = frozenset({"set_xscale", "set_yscale"})
SYMBOL = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}


@dataclass(frozen=True)
class Mutant:
    """One change: where (line), what (description), and how to apply it (site index, variant)."""

    module: str
    index: int  # position in the module's list of mutants
    line: int
    description: str
    source_line: str
    occurrence: int = 1  # 2 for the second identical (line, description) pair, ...

    @property
    def key(self) -> tuple[str, str, str]:
        """How EQUIVALENT names a mutant: module, the line's text, description (#n if repeated)."""
        suffix = f" #{self.occurrence}" if self.occurrence > 1 else ""
        return (self.module, self.source_line, self.description + suffix)


# Presentation and exercise modules: their faults are words too. A string (or the text
# of an f-string) holding one of these words gets it swapped, the kind of slip that
# says "rose" for a ridge that fell, "more" for fewer, or a wrong unit label.
WORD_SWAPS = (
    ("rises", "falls"),
    ("rose", "fell"),
    ("grew", "shrank"),
    ("faster", "slower"),
    ("more", "fewer"),
    ("higher", "lower"),
    ("larger", "smaller"),
    ("above", "below"),
    ("memory", "compute"),
    ("compute-bound", "memory-bound"),
    ("only ", ""),
    ("FLOP/B", "FLOP"),
    ("FLOP/byte", "byte/FLOP"),
)
WORD_MODULES = ("common/present/", "common/exercises/", "lectures/words/")
_WORDS_ON: list[bool] = [False]  # set while listing or applying the mutants of such a module


def _word_variants(text: str) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for a, b in WORD_SWAPS:
        for old, new in ((a, b), (b, a)):
            if old and re.search(rf"(?<![A-Za-z-]){re.escape(old)}(?![A-Za-z-])", text):
                out.append((f"{old!r} -> {new!r}", ("word", (old, new))))
    return out


def _number(value: object) -> object | None:
    """The mutated number: n + 1 for ints, 1.1 x for floats (1.0 for 0.0); None: no mutant."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int):
        return value + 1
    return value * 1.1 if value else 1.0


def _variants(node: ast.AST) -> list[tuple[str, object]]:
    """The mutations of one node: (description, data for _apply)."""
    out: list[tuple[str, object]] = []
    if isinstance(node, ast.BinOp):
        op = type(node.op)
        if op in BINOP_SWAP:
            out.append((f"{SYMBOL[op]} -> {SYMBOL[BINOP_SWAP[op]]}", ("op", BINOP_SWAP[op])))
        if op in (ast.Add, ast.Sub, ast.Mult, ast.Div):
            out.append((f"a {SYMBOL[op]} b -> a", ("left", None)))
            out.append((f"a {SYMBOL[op]} b -> b", ("right", None)))
    elif isinstance(node, ast.AugAssign) and type(node.op) in AUG_SWAP:
        op = type(node.op)
        out.append((f"{SYMBOL[op]}= -> {SYMBOL[AUG_SWAP[op]]}=", ("aug", AUG_SWAP[op])))
    elif isinstance(node, ast.Compare):
        for k, op in enumerate(node.ops):
            new = CMP_SWAP.get(type(op))
            if new is not None:
                out.append((f"{SYMBOL[type(op)]} -> {SYMBOL[new]}", ("cmp", (k, new))))
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        if _WORDS_ON[0]:
            out += _word_variants(node.value)
    elif isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            out.append((f"{node.value} -> {not node.value}", ("const", not node.value)))
        else:
            new = _number(node.value)
            if new is not None:
                out.append((f"{node.value!r} -> {new!r}", ("const", new)))
    elif isinstance(node, ast.BoolOp):
        name, new = ("and", ast.Or) if isinstance(node.op, ast.And) else ("or", ast.And)
        out.append((f"{name} -> {'or' if name == 'and' else 'and'}", ("boolop", new)))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        sign = "not " if isinstance(node.op, ast.Not) else "-"
        out.append((f"{sign}x -> x", ("unary", None)))
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in SCALE_SETTERS
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value == "log"
    ):
        out.append((f'{node.func.attr}("log") -> "linear"', ("scale", None)))
    elif (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CALL_SWAP
    ):
        out.append((f"{node.func.id}() -> {CALL_SWAP[node.func.id]}()", ("call", None)))
    return out


#: Keyword arguments that set how a figure looks, not what it says (sizes of type, lines
#: and markers, transparency, stacking order, padding, figure size): a changed value
#: draws the same data on the same axes, so their values are not mutated. Also
#: zip(strict=...), which changes nothing for inputs of equal length.
COSMETIC_KEYWORDS = frozenset(
    {
        "fontsize",
        "labelsize",
        "size",
        "linewidth",
        "lw",
        "markersize",
        "ms",
        "markeredgewidth",
        "mew",
        "alpha",
        "framealpha",
        "zorder",
        "pad",
        "labelpad",
        "handlelength",
        "handletextpad",
        "columnspacing",
        "borderaxespad",
        "wspace",
        "hspace",
        "width",
        "height",
        "headwidth",
        "headlength",
        "shrink",
        "frameon",
        "dpi",
        "linestyle",
        "ls",
        "dashes",
        "strict",
    }
)
#: Methods whose arguments only size type: ax.xaxis.label.set_size(10).
COSMETIC_CALLS = frozenset({"set_size", "set_fontsize"})


def _skipped_nodes(tree: ast.AST) -> set[int]:
    """ids of nodes not to mutate: docstrings, annotations, f-strings, raise statements,
    and the values of cosmetic keyword arguments, dict entries and calls
    (COSMETIC_KEYWORDS, COSMETIC_CALLS)."""
    skip: set[int] = set()

    def mark(node: ast.AST | None) -> None:
        if node is not None:
            skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in COSMETIC_KEYWORDS:
            mark(node.value)
        elif isinstance(node, ast.Dict):  # {"marker": "s", "markersize": 10}
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value in COSMETIC_KEYWORDS:
                    mark(value)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in COSMETIC_CALLS
        ):
            for arg in node.args:
                mark(arg)
        if isinstance(node, ast.Raise) or (isinstance(node, ast.JoinedStr) and not _WORDS_ON[0]):
            mark(node)
        elif isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            mark(node.format_spec)  # ':.1f' is a format, not a sentence
        elif isinstance(node, (ast.AnnAssign, ast.arg)):
            mark(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            mark(node.returns)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                mark(body[0])
        # `from __future__ import annotations` and TYPE_CHECKING blocks carry no behaviour
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            mark(node)
    return skip


def _sites(tree: ast.AST, module: str = "") -> Iterator[tuple[ast.AST, str, object]]:
    """Every (node, description, data) mutation in a deterministic order."""
    _WORDS_ON[0] = module.startswith(WORD_MODULES)
    skip = _skipped_nodes(tree)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        for description, data in _variants(node):
            yield node, description, data


def _apply(node: ast.AST, data: object) -> ast.AST | None:
    """Mutate `node` in place (or return a replacement node)."""
    kind, arg = data  # type: ignore[misc]
    if kind in ("op", "aug", "boolop"):
        node.op = arg()  # type: ignore[attr-defined]
    elif kind == "left":
        return node.left  # type: ignore[attr-defined]
    elif kind == "right":
        return node.right  # type: ignore[attr-defined]
    elif kind == "cmp":
        k, new = arg
        node.ops[k] = new()  # type: ignore[attr-defined]
    elif kind == "const":
        node.value = arg  # type: ignore[attr-defined]
    elif kind == "unary":
        return node.operand  # type: ignore[attr-defined]
    elif kind == "call":
        node.func.id = CALL_SWAP[node.func.id]  # type: ignore[attr-defined]
    elif kind == "scale":
        node.args[0] = ast.Constant("linear")  # type: ignore[attr-defined]
        node.keywords = [k for k in node.keywords if k.arg != "base"]  # type: ignore[attr-defined]
    elif kind == "word":
        old, new = arg
        pattern = rf"(?<![A-Za-z-]){re.escape(old)}(?![A-Za-z-])"
        node.value = re.sub(pattern, new, node.value)  # type: ignore[attr-defined]
    return None


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    """Put `new` where `old` is in `tree`."""
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is old:
                        value[i] = new
                        return
    raise LookupError("mutation site not found")


@functools.cache
def module_source(module: str) -> str:
    """The module's source, read once (an edit during a run cannot shift the mutants)."""
    return (REPO / module).read_text(encoding="utf-8")


def list_mutants(module: str) -> list[Mutant]:
    """Every mutant of a module (a path relative to the repository root)."""
    source = module_source(module)
    lines = source.splitlines()
    tree = ast.parse(source)
    seen: dict[tuple[str, str], int] = {}
    mutants = []
    for i, (node, description, _) in enumerate(_sites(tree, module)):
        text = lines[node.lineno - 1].strip()
        seen[text, description] = seen.get((text, description), 0) + 1
        mutants.append(Mutant(module, i, node.lineno, description, text, seen[text, description]))
    return mutants


def mutated_code(module: str, index: int) -> object:
    """The module's code object with mutant number `index` applied."""
    source = module_source(module)
    tree = ast.parse(source)
    for i, (node, _, data) in enumerate(_sites(tree, module)):
        if i == index:
            new = _apply(node, data)
            if new is not None:
                _replace(tree, node, copy.deepcopy(new))
            break
    else:
        raise IndexError(f"{module} has no mutant {index}")
    ast.fix_missing_locations(tree)
    return compile(tree, str(REPO / module), "exec")


def module_name(module: str) -> str:
    return module.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


# ---------------------------------------------------------------------------
# Running one mutant in a forked child
# ---------------------------------------------------------------------------
class _MutantFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Hands out the mutated code object for one module name; every other import is normal."""

    def __init__(self, name: str, path: str, code: object) -> None:
        self.name, self.path, self.code = name, path, code

    def find_spec(self, fullname, path=None, target=None):  # type: ignore[no-untyped-def]
        if fullname != self.name:
            return None
        return importlib.util.spec_from_file_location(fullname, self.path, loader=self)

    def create_module(self, spec):  # type: ignore[no-untyped-def]
        return None

    def exec_module(self, module):  # type: ignore[no-untyped-def]
        exec(self.code, module.__dict__)  # the point of the tool


def _pytest_args(tests: tuple[str, ...]) -> list[str]:
    return [
        *tests,
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        "-m",
        "not browser",
        "--no-header",
        "-o",
        "console_output_style=classic",
    ]


def _child(module: str, index: int | None, tests: tuple[str, ...]) -> None:
    """Forked child: install mutant `index` (None: none), run the tests, exit with their code."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    code = 3
    try:
        if index is not None:
            finder = _MutantFinder(
                module_name(module), str(REPO / module), mutated_code(module, index)
            )
            sys.meta_path.insert(0, finder)
        import pytest

        code = int(pytest.main(_pytest_args(tests)))
    except BaseException:
        code = 4
    finally:
        os._exit(code)


def run_one(module: str, index: int | None, tests: tuple[str, ...], timeout: float) -> str:
    """'killed', 'survived' or 'timeout' for one mutant (index None: the unmutated module)."""
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        _child(module, index, tests)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            return "survived" if code == 0 else "killed"
        if time.monotonic() > deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return "timeout"
        time.sleep(0.01)


def in_lines(mutant: Mutant, lines: str | None) -> bool:
    """Whether the mutant's line is in `lines` ("52-164,300-320"; None: every line)."""
    if not lines:
        return True
    for part in lines.split(","):
        first, _, last = part.partition("-")
        if int(first) <= mutant.line <= int(last or first):
            return True
    return False


def run_module(
    module: str, timeout: float | None, jobs: int, verbose: bool, lines: str | None = None
) -> tuple[int, int, list[Mutant], list[Mutant]]:
    """(killed, total counted, survivors, equivalent) for one module."""
    tests = tuple(t for t in MODULES[module] if (REPO / t.split("::")[0]).is_file())
    for missing in sorted(set(MODULES[module]) - set(tests)):
        print(f"   warning: {missing} does not exist; run without it")
    start = time.monotonic()
    baseline = run_one(module, None, tests, timeout=600)
    took = time.monotonic() - start
    if baseline != "survived":
        raise SystemExit(f"{module}: its tests fail without any mutation ({', '.join(tests)})")
    limit = timeout if timeout is not None else max(10.0, 4 * took + 5)
    mutants = [m for m in list_mutants(module) if in_lines(m, lines)]
    survivors: list[Mutant] = []
    equivalent: list[Mutant] = []
    killed = 0
    running: dict[int, Mutant] = {}
    queue = list(mutants)
    print(f"== {module}: {len(mutants)} mutants, tests {took:.1f} s ({', '.join(tests)})")
    results: dict[int, str] = {}

    # Simple process pool: fork up to `jobs` children at a time.
    def start_one(m: Mutant) -> None:
        pid = os.fork()
        if pid == 0:
            os.setpgid(0, 0)
            _child(module, m.index, tests)
        running[pid] = m
        started[pid] = time.monotonic()

    started: dict[int, float] = {}
    while queue or running:
        while queue and len(running) < jobs:
            start_one(queue.pop(0))
        for pid in list(running):
            done, status = os.waitpid(pid, os.WNOHANG)
            outcome = None
            if done:
                outcome = "survived" if os.waitstatus_to_exitcode(status) == 0 else "killed"
            elif time.monotonic() - started[pid] > limit:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                outcome = "timeout"
            if outcome is not None:
                m = running.pop(pid)
                results[m.index] = outcome
                if verbose:
                    print(f"  {outcome:8} {m.module}:{m.line} {m.description}  | {m.source_line}")
        time.sleep(0.005)
    for m in mutants:
        outcome = results[m.index]
        if m.key in EQUIVALENT:
            equivalent.append(m)
            if outcome != "survived":
                print(f"  note: listed as equivalent but killed: {m.line} {m.description}")
            continue
        if outcome == "survived":
            survivors.append(m)
        else:
            killed += 1
    return killed, len(mutants) - len(equivalent), survivors, equivalent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="module paths (default: all in MODULES)")
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per mutant")
    parser.add_argument("--threshold", type=float, default=90.0, help="kill rate to pass (%%)")
    parser.add_argument("--lines", help="only mutants on these lines: 52-164,300 (a part)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every mutant")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[attr-defined]
    os.chdir(REPO)
    sys.path.insert(0, str(REPO))
    modules = args.modules or list(MODULES)
    for m in modules:
        if m not in MODULES:
            parser.error(f"{m} is not mapped to tests; known: {', '.join(MODULES)}")
    known = {m.key for module in modules for m in list_mutants(module)}
    for key in EQUIVALENT:
        if key[0] in modules and key not in known:
            print(f"warning: EQUIVALENT names no mutant (stale entry?): {key}")
    if args.list:
        for m in modules:
            for mutant in (x for x in list_mutants(m) if in_lines(x, args.lines)):
                print(f"{m}:{mutant.line}: {mutant.description}  | {mutant.source_line}")
        return 0
    # Heavy imports once, before forking (never `common`: each child imports it afresh).
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.figure
    import numpy
    import pytest

    del numpy, pytest

    os.environ.setdefault("MPLBACKEND", "Agg")
    total_killed = total = 0
    rows = []
    all_survivors: list[Mutant] = []
    all_equivalent: list[Mutant] = []
    begin = time.monotonic()
    for m in modules:
        result = run_module(m, args.timeout, args.jobs, args.verbose, args.lines)
        killed, counted, survivors, equivalent = result
        rate = 100.0 * killed / counted if counted else 100.0
        rows.append((m, killed, counted, rate, len(equivalent)))
        total_killed += killed
        total += counted
        all_survivors += survivors
        all_equivalent += equivalent
        print(f"   {m}: {killed}/{counted} killed ({rate:.1f}%), {len(equivalent)} equivalent")
        for s in survivors:
            print(f"   survived  line {s.line}: {s.description}  | {s.source_line}")
    print()
    print(f"{'module':40} {'killed':>7} {'of':>5} {'rate':>7} {'equiv':>6}")
    for m, killed, counted, rate, eq in rows:
        print(f"{m:40} {killed:7d} {counted:5d} {rate:6.1f}% {eq:6d}")
    overall = 100.0 * total_killed / total if total else 100.0
    print(f"{'overall':40} {total_killed:7d} {total:5d} {overall:6.1f}%")
    print(f"({time.monotonic() - begin:.0f} s)")
    if all_equivalent:
        print("\nequivalent mutants (excluded):")
        for e in all_equivalent:
            print(f"  {e.module}:{e.line} {e.description}: {EQUIVALENT[e.key]}")
    failing = [r for r in rows if r[3] < args.threshold]
    return 1 if failing or overall < args.threshold else 0


if __name__ == "__main__":
    sys.exit(main())
