"""Every computed number of the concept pages and the hardware page's tables against its
source (tests/reference.py) or hand arithmetic written out here; a new or renamed number on a
page fails the coverage test until it is added here. The pages are parsed with docutils and
the docs' own :computed: role and directives; the Sphinx-only roles and directives they use
stand in as plain text (or nothing), so a page parses in milliseconds without a build."""

from __future__ import annotations

import functools
import re
from types import SimpleNamespace
from typing import Any

import pytest
import reference
from conftest import REPO, load_extension
from docutils import nodes
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, directives, roles

DOCS = REPO / "docs"
course = load_extension("course")


def _text_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    return [nodes.Text(text.split("<")[0].strip() if "<" in text else text)], []


class _Skip(Directive):
    """A directive left out (course-figure draws at build time: no numbers)."""

    has_content = True
    optional_arguments = 10
    final_argument_whitespace = True

    def run(self) -> list:
        return []


@functools.cache
def _register() -> None:
    roles.register_local_role("computed", load_extension("computed").computed_role)
    for name in ("ref", "doc", "numref", "term"):
        roles.register_local_role(name, _text_role)
    for name in ("toctree", "literalinclude", "index", "course-figure"):
        directives.register_directive(name, _Skip)
    directives.register_directive("hardware-table", course.HardwareTableDirective)
    directives.register_directive("exercise", course.ExerciseDirective)


def doctree(source: str, source_path: str = "page.rst") -> Any:
    """The parsed page, substitutions applied; a system message of level >= 2 is an error."""
    _register()
    noted: list[str] = []  # what SphinxDirective.env needs here: a place to note dependencies
    env = SimpleNamespace(docname="page", dependencies=noted, note_dependency=noted.append)
    overrides = {"report_level": 5, "halt_level": 2, "env": env, "warning_stream": False}
    return publish_doctree(source, source_path=source_path, settings_overrides=overrides)


@functools.cache
def page(name: str) -> Any:
    """docs/NAME.rst parsed (once per test run)."""
    path = DOCS / f"{name}.rst"
    return doctree(path.read_text(encoding="utf-8"), str(path))


def plain(text: str) -> str:
    """Page text with the computed role's no-break spaces (number and unit) as spaces."""
    return text.replace("\xa0", " ")


def tables(tree: Any) -> list[tuple[str, list[list[str]]]]:
    """Every table: (title, rows of cell texts, header row first)."""
    found = []
    for table in tree.findall(nodes.table):
        titles = [t.astext() for t in table.children if isinstance(t, nodes.title)]
        rows = [
            [plain(entry.astext()) for entry in row.findall(nodes.entry)]
            for row in table.findall(nodes.row)]  # fmt: skip
        found.append((titles[0] if titles else "", rows))
    return found


def speedups(r: float) -> tuple[str, str]:
    """(2x compute, 2x bandwidth) at I / I* = r: T = max(r, 1) with P = beta = D = 1."""
    t = max(r, 1.0)
    return f"{t / max(r / 2, 1.0):.2f}x", f"{t / max(r, 0.5):.2f}x"


# fmt: off
SUBSTITUTIONS = {
    "concepts/memory-ledger": {  # article, sections 3.5 and 4.3
        "n_layers": "32", "d_kv": "4096", "seq": "4096", "act": "128 KiB", "rate30": "30%",
        "rate4": "4%", "budget": "78 GiB", "w": "13.0 GiB", "kv_tok": "512 KiB",
        "kv_seq": "2.00 GiB", "kv16": reference.LEDGER_ROWS[16][1] + " GiB",
        "kv16_ratio": reference.KV_OVER_WEIGHTS_16,
        "b30": str(reference.LARGEST_BATCH[0.30, "prefill"]),
        "b4": str(reference.LARGEST_BATCH[0.04, "prefill"]),
        "t24_30": reference.LEDGER_ROWS[24][4] + " GiB",
        "t24_4": reference.BATCH_24_AT_4_PERCENT + " GiB", "t24_fits": "it fits",
        "h100_gb": "80 GB", "h100_gib": f"{80e9 / 2**30:.1f} GiB",  # 74.5
        "act16_prefill": "8.00 GiB",  # 16 x 4096 tokens x 128 KiB
        "act16_decode": "2.00 MiB",  # 16 tokens x 128 KiB
        "b30_decode": str(reference.LARGEST_BATCH[0.30, "decode"]),
    },
    "concepts/operator-ledgers": {  # article, section 3.3
        "a100_ridge": reference.RIDGE_A100_BF16, "g128_i": reference.GEMM_I_128,
        "g256_i": reference.GEMM_I_256,
        # B 4096 / (2 B + 4096) >= 200.6  <=>  B >= 200.6 x 4096 / (4096 - 401.2) = 222.4
        "g_crit": "223", "ew32_i": "0.083",  # 1 / (3 x 4), section 3.3
        "ew16_i": reference.ADD_I, "ln_i": reference.LAYERNORM_I, "ln_frac": "0.7%",
        "ln_regime": "deep in the memory-bound regime",  # 1.5 / 200.6 = 0.7%, under a tenth
        "sm_ratio": "2.5",  # naive 10 n d bytes / fused 4 n d
        "smf_i": reference.SOFTMAX_FUSED_I, "smn_i": reference.SOFTMAX_NAIVE_I,
        "att_f": reference.ATTN_FLOPS_G + " GFLOP", "attn_d": reference.ATTN_NAIVE_MB + " MB",
        "attn_i": reference.ATTN_NAIVE_I, "attn_bound": "memory-bound",
        "attm_d": reference.ATTN_MIN_MB + " MB", "attm_i": reference.ATTN_MIN_I,
        "attm_bound": "compute-bound", "att_fratio": "1.000",
        "att_dratio": str(reference.ATTN_BYTES_FACTOR),
        # max(27.8 µs, 89.0 µs) -> max(27.8 µs, 0.6 µs): 27.80 / 89.01 = x0.31
        "att_t": f"falls from {reference.ATTN_NAIVE_MS} ms to {reference.ATTN_MIN_MS} ms (x0.31)",
        "att_why": "The time changes far less than the traffic because, once the bytes are "
        "gone, the arithmetic is what remains: the minimum-traffic version sits on the compute "
        "roof.",
        # Tiled attention (FlashAttention-2's schedule), N = 4096, d_h = 128, bf16.
        # Shared memory per SM: Hopper and Ampere tuning guides, 228 KiB and 164 KiB.
        "h100_smem": "228 KiB", "a100_smem": "164 KiB",
        # Block sizes from the footprint rule (checked against a loop simulation in
        # tests/formulas/test_attention_io.py); the traffic below follows by hand.
        "h100_blocks": "130 x 128", "a100_blocks": "99 x 99", "h100_tr": "32",  # ceil(4096 / 130)
        # D = b N d_h (2 + 2 T_r): Q read and O written once, K and V once per query block
        "h100_d": "69.21 MB",  # 2 x 4096 x 128 x (2 + 64) = 69,206,016 B
        "a100_d": "90.18 MB",  # T_r = ceil(4096 / 99) = 42: 2 x 4096 x 128 x 86 = 90,177,536 B
        # F = 4 N^2 d_h + 5 N^2 = 8,673,820,672 FLOP
        "h100_i": "125.3",  # 8,673,820,672 / 69,206,016 = 125.33
        "a100_i": "96.2",  # 8,673,820,672 / 90,177,536 = 96.19
        "h100_ridge": reference.RIDGE_H100_BF16, "h100_side": "below",  # 125.3 < 295.2
        # The smallest on-chip memory that reaches each ridge, and one row's footprint,
        # are the rule's (test_attention_io.py checks the rule); ratios by hand from them.
        "h100_need": "461 KiB", "a100_need": "336 KiB",
        "h100_need_x": "x2.02 as much as",  # 461 / 228
        "a100_need_x": "x2.05 as much as",  # 336 / 164
        "least": "1.26 KiB",
        "least_d": "8.59 GB",  # one query row per block: 2 x 4096 x 128 x (2 + 8192) B
        "least_ratio": "62",  # 8.592e9 / 138.41e6 (the article's naive 138.41 MB)
        "resident": "2.02 MiB",  # K and V whole (2.00 MiB) plus one query row's state
    },
    "concepts/intensity-and-ridge": {  # article, section 3.2
        "a100_p": "312 TFLOP/s", "h100_p": "989 TFLOP/s", "h100_p8": "1,979 TFLOP/s",
        "fp8_vs_a100": "6.3", "a100_ridge": reference.RIDGE_A100_BF16,
        "h100_ridge": reference.RIDGE_H100_BF16, "g512_i": reference.GEMM_512_I,
        "g512_bf16": "compute-bound",  # 409.6 >= 295.2
        "g512_fp8": "memory-bound",  # 409.6 < 590.7
        "growth": f"bf16 compute grew {reference.A100_TO_H100_BF16} but memory bandwidth only "
        f"{reference.A100_TO_H100_BW}",
        "a100_h100": f"rose from {reference.RIDGE_A100_BF16} to {reference.RIDGE_H100_BF16} "
        "FLOP/byte",
        "moral": "on the newer chip more kernels fall on the memory-bound side.",
        "h200_pk": "the same bf16 compute as the H100",  # 989 TFLOP/s on both datasheets
        "h200_bw": "x1.43 as much memory bandwidth as it",  # 4.8 / 3.35
        "h100_h200": f"falls from {reference.RIDGE_H100_BF16} to {989e12 / 4.8e12:.1f} FLOP/byte",
    },
    "concepts/time-bound": {  # naive attention on an A100 (article, section 3.3)
        "att_tc": "27.8 µs",  # 8.67 GFLOP / 312 TFLOP/s
        "att_tm": "89.0 µs",  # 138.41 MB / 1555 GB/s
        "att_t": "89.0 µs", "att_bound": "memory-bound",
        "att_rate": "97.4 TFLOP/s",  # I beta = 62.67 x 1555e9
        "att_frac": "31%",  # 97.4 / 312
    },
    "concepts/why-it-matters": {
        "g_f": "1.07 GFLOP",  # 2 x 512 x 1024 x 1024
        "g_d": "4.19 MB",  # 2 (512 x 1024 + 1024^2 + 512 x 1024)
        "g_t": "3.44 µs",  # 1.07e9 / 312e12
        "e_f": "1.07 GFLOP",  # 2^30 elements
        "e_d": "6.44 GB",  # 6 x 2^30 bytes
        "e_t": "4.14 ms",  # 6.44e9 / 1555e9
        "ratio": "1,204", "ln_i": reference.LAYERNORM_I, "a100_ridge": reference.RIDGE_A100_BF16,
        # memory-bound: a faster peak buys nothing, and the page says so
        "ln_fp8": "1.00, that is, not at all. The operation is limited by memory traffic; "
        "faster arithmetic cannot help it",
        "dec_i": "1.00", "dec_fp8": "2.00",  # half the weight bytes
        "dec_fp8_why": "The gain comes from halving the weight bytes, not from the faster "
        "arithmetic: with the bf16 peak kept and only the weights in fp8, the speedup is the "
        "same, 2.00.",
    },
    "concepts/misconceptions": {
        "same_f": "1.07 GFLOP", "g_t": "3.44 µs", "e_t": "4.14 ms", "w": "13.0 GiB", "seq": "4096",
        "rate30": "30%", "budget": "78 GiB", "kv24": reference.LEDGER_ROWS[24][1] + " GiB",
        "ov24": reference.LEDGER_ROWS[24][3] + " GiB", "t24": reference.LEDGER_ROWS[24][4] + " GiB",
        "kv_over": "7",  # 2 GiB x B > 14e9 B first at B = 7
        "fp8_vs_a100": "6.3", "dec_gain": "x2.15 faster",  # bandwidth ratio 3.35 / 1.555
        # 3.35 / 1.555 = x2.15; 989 / 312 = x3.17
        "dec_follows": "the bandwidth ratio (x2.15), not the compute ratio (x3.17)",
        "dec_i1": "1.00", "dec_i8": "7.97",  # 8 x 4096 / (4096 + 16)
        "a100_ridge": reference.RIDGE_A100_BF16, "dec_cap": "0.5%",  # 1.0 x 1555e9 / 312e12
    },
    "concepts/assumptions": {
        "dec_t": "10.0 µs",  # 2 (2 x 4096 + 4096^2) bytes / 3.35e12
        "fp8_vs_a100": "6.3",
        "ridge_moves": "rises from 201 to 295 FLOP/byte",  # 200.6 and 295.2, no decimals
        "ridge_flip": "so a kernel that was compute-bound on the old chip can be memory-bound "
        "on the new one: intuition carried over from the old chip gives the wrong answer",
    },
    "overview": {
        # the article's title in English, as the overview translates it
        "article_en": (
            "Performance modeling and profiling: the compute, bandwidth and memory ledgers"
        ),
        # the README's edit, worked by the exercise: 1979 / 312 = x6.34 the ridge
        "edit_ridge": f"rose from {reference.RIDGE_A100_BF16} to 1,272.7 FLOP/byte",
        "edit_bw": "the bandwidth is unchanged, so the ridge moves with the peak (x6.34)",
        "edit_m0": "at M in ({}, {}]".format(*reference.GEMM_CROSSOVER),
        "edit_m1": "at M in ({}, {}]".format(*reference.GEMM_CROSSOVER_EDITED),
        # GEMM 512: 409.6 FLOP/byte, between 200.6 and 1,272.7
        "edit_bounds": "GEMM 512 x 4096 x 4096 (compute to memory). A higher ridge raises the "
        "bar every kernel must clear to use the compute unit.",
    },
    "concepts/headroom": {},
    "concepts/serving": {  # Leviathan et al.'s E and S; DeepSeek's published figures
        "e_08_4": f"{(1 - 0.8**5) / (1 - 0.8):.2f}",  # 3.36 tokens a verify step
        "x_08_4": f"x{(1 - 0.8**5) / (1 - 0.8) / (4 / 32 + 1):.2f}",  # draft head c = 1/32
        "mtp_speedup": "x1.8",  # DeepSeek-V3 report, section 5.4.3
        "mtp_a": f"{1.8 - 1:.1%}",  # (1 + a) / 1 = 1.8 with a free draft and v = 1
        "fleet_pd": f"{(608e9 / 73.7e3) / (168e9 / 14.8e3):.2f}",  # prefill : decode hours
        "price": "$2", "in_usd": f"${2 / 3600 / (73.7e3 / 8) * 1e6:.3f}",  # 8 H800 a node
        "out_usd": f"${2 / 3600 / (14.8e3 / 8) * 1e6:.3f}",
    },
}
# fmt: on

LEDGER_TABLE = [
    ["batch", "weights", "KV cache", "activations", "overhead", "total", "within 78 GiB?"],
    *[
        [str(b), *(f"{v} GiB" for v in row), "fits" if reference.LEDGER_FITS_78[b] else "OOM"]
        for b, row in reference.LEDGER_ROWS.items()
    ],
]

# fmt: off
OPERATOR_TABLE = [  # article, section 3.3; times max(F / 312e12, D / 1555e9) by hand
    ["operator", "F", "D", "I (FLOP/byte)", "I / I^{\\ast}", "bound", "time bound"],
    ["elementwise add, 16,000,000 elements", "16.00 MFLOP", "96.00 MB", "0.17", "0.001", "memory",
     "61.7 µs"],
    ["LayerNorm [4096, 3072]", "75.50 MFLOP", "50.33 MB", "1.50", "0.007", "memory", "32.4 µs"],
    ["fused softmax [4096, 4096]", "83.89 MFLOP", "67.11 MB", "1.25", "0.006", "memory", "43.2 µs"],
    ["naive softmax [4096, 4096]", "83.89 MFLOP", "167.77 MB", "0.50", "0.002", "memory", "108 µs"],
    ["GEMM 512 \\times 4096 \\times 4096", "17.18 GFLOP", "41.94 MB", "409.60", "2.041", "compute",
     "55.1 µs"],
    ["GEMM 4096 \\times 4096 \\times 4096", "137.44 GFLOP", "100.66 MB", "1365.33", "6.805",
     "compute", "441 µs"],
    ["attention, S and P in memory", "8.67 GFLOP", "138.41 MB", "62.67", "0.312", "memory",
     "89.0 µs"],
    ["attention, minimum traffic", "8.67 GFLOP", "4.19 MB", "2068.00", "10.307", "compute",
     "27.8 µs"],
]

HEADROOM_RATIOS = [["I / I^{\\ast}", "compute \\times 2", "bandwidth \\times 2"],
                   *[[f"{r:g}", *speedups(r)] for r in (0.25, 0.5, 0.75, 1, 1.5, 2, 4)]]
HEADROOM_OPERATORS = [  # article, section 3.4's table
    ["operator", "I / I^{\\ast}", "compute \\times 2", "bandwidth \\times 2"],
    ["elementwise add, 16,000,000 elements", reference.ADD_RATIO, *reference.SPEEDUPS["add"]],
    ["LayerNorm [4096, 3072]", reference.LAYERNORM_RATIO, *reference.SPEEDUPS["layernorm"]],
    ["naive softmax [4096, 4096]", reference.SOFTMAX_NAIVE_RATIO,
     *reference.SPEEDUPS["softmax naive"]],
    ["GEMM 512 \\times 4096 \\times 4096", reference.GEMM_512_RATIO,
     *reference.SPEEDUPS["gemm 512"]],
    ["attention, scores in memory", reference.ATTN_NAIVE_RATIO,
     *reference.SPEEDUPS["attention naive"]],
    ["attention, minimum traffic", reference.ATTN_MIN_RATIO, *reference.SPEEDUPS["attention min"]],
]
# fmt: on
RIDGE_TABLE = [
    ["chip", "precision", "peak", "memory bandwidth", "ridge point I^{\\ast} (FLOP/byte)"],
    ["A100 40GB SXM", "bf16", "312 TFLOP/s", "1,555 GB/s", reference.RIDGE_A100_BF16],
    ["H100 SXM", "bf16", "989 TFLOP/s", "3,350 GB/s", reference.RIDGE_H100_BF16],
    ["H100 SXM", "fp8", "1,979 TFLOP/s", "3,350 GB/s", reference.RIDGE_H100_FP8],
    ["H200", "bf16", "989 TFLOP/s", "4,800 GB/s", f"{989e12 / 4.8e12:.1f}"],
]
TABLES = {"concepts/memory-ledger": [LEDGER_TABLE], "concepts/operator-ledgers": [OPERATOR_TABLE],
          "concepts/headroom": [HEADROOM_RATIOS, HEADROOM_OPERATORS],
          "concepts/intensity-and-ridge": [RIDGE_TABLE]}  # fmt: skip


# Numbers computed inline in prose: (how many roles, the sentences they must render).
INLINE = {
    "overview": (6, [
        "性能建模与 Profiling：算力、带宽与显存账本",  # the article's title, as it prints it
        f"is {reference.RIDGE_A100_BF16} FLOP/byte in bf16; the H100's is "
        f"{reference.RIDGE_H100_BF16} FLOP/byte",
        # GiB against GB, by hand: 80e9 B of HBM (datasheet); 2**30 / 1e9 - 1 = 7.37%;
        # 16 x 2**30 B = 17.18e9 B.
        "holds 80.00 GB of HBM", "bytes, 7.4% more", "a budget of 16 GiB is 17.18 GB",
    ]),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SUBSTITUTIONS))
def test_every_computed_number_on_the_page_is_checked_here(name: str) -> None:
    tree = page(name)  # |name| -> the text it stands for; then the tables and the prose
    found = {
        n: plain(d.astext())
        for d in tree.findall(nodes.substitution_definition)
        for n in d["names"]}  # fmt: skip
    assert found == SUBSTITUTIONS[name]
    assert set(TABLES) | set(INLINE) <= set(SUBSTITUTIONS)  # else a page would go unchecked
    if name in TABLES:
        assert [rows for _, rows in tables(tree)] == TABLES[name]
    inline, sentences = INLINE.get(name, (0, []))
    text = " ".join(tree.astext().split())
    assert [fragment for fragment in sentences if fragment not in text] == []
    outside = in_tables = 0  # computed roles outside substitution definitions, in list-tables
    in_table = False
    for line in (DOCS / f"{name}.rst").read_text(encoding="utf-8").splitlines():
        in_table = line.startswith(".. list-table::") or (
            in_table and (not line or line.startswith(" ")))  # fmt: skip
        count = 0 if line.startswith(".. |") else len(re.findall(r":computed:`([^`]*)`", line))
        outside += count
        in_tables += count if in_table else 0
    assert outside == in_tables + inline, f"{name}: a :computed: number that no test checks"
    pages = {p for p in DOCS.rglob("*.rst") if ":computed:" in p.read_text("utf-8")}
    checked = {DOCS / f"{n}.rst" for n in SUBSTITUTIONS}
    assert pages <= checked, f"pages with computed numbers not checked here: {pages - checked}"


def _si(value: float, unit: str) -> str:
    """Four significant digits with an SI prefix (K for 1e3, as the course writes KB), written
    here independently of the directive."""
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "K")):
        if value >= scale:
            return f"{value / scale:.4g} {prefix}{unit}"
    return f"{value:.4g} {unit}"


def test_hardware_page_figures_achievable_roofs_ridges_and_bytes() -> None:
    found = tables(page("hardware"))
    figures = {title: rows for title, rows in found if title}
    assert list(figures) == [f"{reference.CHIP_NAMES[k]} (key {k})" for k in reference.HARDWARE]
    for key, want in reference.HARDWARE.items():
        rows = figures[f"{reference.CHIP_NAMES[key]} (key {key})"]
        assert rows[0] == ["figure", "value", "source and note"]
        assert {row[0]: row[1] for row in rows[1:]} == {
            label: _si(value, unit) + (" (estimate)" if estimate else "")
            for label, (value, unit, estimate) in want.items()
        }
        assert all(row[2] for row in rows[1:])  # every figure names its source
    assert figures["A100 40GB SXM (key a100)"][3][1] == "1.555 TB/s"
    assert figures["B300 (key b300)"][1][1].endswith("(estimate)")  # bf16 "about 2.5x H100"
    # Spec and achievable columns, typed from the sources (tests/tables/test_achievable_roofs.py):
    # MAMF A100 271.2 and H100 794.5 TFLOP/s; H200 nvbandwidth 396.40 GB/s; no TPU measured.
    untitled = [rows for title, rows in found if not title]
    (table,) = [rows for rows in untitled if "achievable (measured)" in rows[0]]
    assert table[0] == ["chip", "roof", "spec", "achievable (measured)", "of spec", "measured by"]
    cells = {(r[0], r[1]): r[2:] for r in table[1:]}
    assert cells["A100 40GB SXM", "peak bf16"][:3] == ["312 TFLOP/s", "271.2 TFLOP/s", "86.9%"]
    assert cells["H100 SXM", "peak bf16"][:3] == ["989 TFLOP/s", "794.5 TFLOP/s", "80.3%"]
    assert cells["H200", "link (NVLink 4)"][:3] == ["450 GB/s", "396.4 GB/s", "88.1%"]
    assert cells["A100 40GB SXM", "peak bf16"][3].startswith("[1] ")  # numbered sources below
    (listed,) = list(page("hardware").findall(nodes.enumerated_list))
    first = listed.children[0].astext()
    assert "Maximum Achievable Matmul FLOPS comparison table" in first and "744d01e" in first
    assert cells["TPU v5e", "memory bandwidth"][1] == "none published"
    # ridge points and bytes per element
    ridge, nbytes = [rows for rows in untitled if "achievable (measured)" not in rows[0]]
    precisions = ["bf16", "int8", "fp8", "nvfp4"]
    assert ridge[0] == ["chip", "memory bandwidth", *[f"I* {p} (FLOP/B)" for p in precisions]]
    for row, (key, want) in zip(ridge[1:], reference.HARDWARE.items(), strict=True):
        bw = want["memory bandwidth"][0]
        cells = [
            f"{want[f'peak {p}'][0] / bw:,.1f}" if f"peak {p}" in want else "—" for p in precisions
        ]
        assert row == [reference.CHIP_NAMES[key], _si(bw, "B/s"), *cells]
    assert nbytes[0] == ["precision", "bytes per element", "bits per element"]
    assert nbytes[1:] == [
        [p, f"{b:g}", f"{8 * b:g}"] for p, b in reference.BYTES_PER_ELEMENT.items()
    ]
    # the directive notes its dependency on the table
    tree = doctree(".. hardware-table:: bytes-per-element\n")
    assert any(str(path).endswith("hw_specs.py") for path in tree.settings.env.dependencies)


def test_the_exercise_directive_renders_the_worked_answer_of_every_exercise() -> None:
    tree = doctree(".. exercise:: gqa-decode\n")
    assert tree["title"] == "Decode attention with MHA, GQA and MQA"
    text = tree.astext()
    assert "From this course." in text and "Is any of them compute-bound on an H100?" in text
    (reveal,) = [n for n in tree.findall(nodes.container) if n.get("design_component")]
    assert reveal["design_component"] == "dropdown" and not reveal["opened"]  # sphinx-design's
    assert {"exercise-answer", "no-search"} <= set(reveal["container_classes"])  # not searched
    assert reveal.children[0].astext() == "Worked answer"
    (formula,) = list(reveal.findall(nodes.math_block))
    assert "H_{kv}" in formula.astext()
    # the exercise's 64 query heads (lecture 02 works the script's 32): intensity = query
    # heads / KV heads (64/64, 64/8, 64/1); KV per token and layer = 2 (K and V) x KV heads
    # x 128 x 2 bytes (32 KiB, 4 KiB, 512 B)
    assert [rows for _, rows in tables(tree)] == [[
        ["attention", "I (FLOP/B)", "KV bytes per token and layer"],
        ["MHA (64 KV heads)", "1", "32.00 KiB"], ["GQA (8 KV heads)", "8", "4.00 KiB"],
        ["MQA (1 KV head)", "64", "512 B"]]]  # fmt: skip
    # the exercises page shows every exercise
    from common.exercises import EXERCISES

    source = (DOCS / "exercises.rst").read_text(encoding="utf-8")
    shown = re.findall(r"^\.\. exercise:: (\S+)", source, re.M)
    assert sorted(shown) == sorted(e.key for e in EXERCISES)


@pytest.mark.parametrize(("source", "says"), [
    (".. hardware-table:: chips\n", "unknown hardware table 'chips'"),
    ("A number: :computed:`A100.ridge_point('bf16') + 1`.\n", "A100.ridge_point('bf16') + 1"),
    (".. exercise:: nope\n", "unknown exercise 'nope'")])  # fmt: skip
def test_a_bad_directive_or_expression_is_an_error(source: str, says: str) -> None:
    from docutils.utils import SystemMessage

    with pytest.raises(SystemMessage, match=re.escape(says)):
        doctree(source)


# The course-figure directive's helpers: what the concept pages' figures plot.
# A chip of known roofs: 100 FLOP/s peak (bf16 only), 10 B/s bandwidth, so I* = 10 FLOP/byte.
TOY = SimpleNamespace(name="Toy", mem_bw=10.0, peak_flops={"bf16": 100.0}.__getitem__)


def test_points_sit_on_the_roof_min_of_peak_and_i_beta() -> None:
    # (label, F, D): I = 2 (on the slope: 2 x 10 B/s = 20 FLOP/s), I = 10 (the ridge),
    # I = 50 (under the flat roof: 100 FLOP/s).
    points = course.on_roof(TOY, "bf16", [("slope", 20, 10), ("ridge", 100, 10), ("roof", 500, 10)])
    assert points == [("slope", 2.0, 20.0), ("ridge", 10.0, 100.0), ("roof", 50.0, 100.0)]
    assert course.chip_roofs([TOY], "bf16") == [("Toy, bf16", 100.0, 10.0)]


def test_draw_runs_the_expression_with_path_and_the_computed_names_or_says_why_not(tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "figs" / "roof.png"
    expression = (
        'roofline.roofline_figure(PATH, chip_roofs([A100], "bf16"), '
        'on_roof(A100, "bf16", [("add", *elementwise_counts(1000))]))')  # fmt: skip
    assert course.draw(expression, target) == target
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # or says in one line what went wrong
    with pytest.raises(ValueError, match=r"cannot draw x\.png: NameError"):
        course.draw("no_such_function(PATH)", tmp_path / "x.png")
    with pytest.raises(ValueError, match="did not write"):
        course.draw("None", tmp_path / "y.png")
