"""The hardware table: every chip figure the course uses, each with its source.

Edit a number here (for example A100's bf16 ``peak_flops``) and rerun a lecture: every
dependent number moves with it. Peak FLOP/s are dense (no sparsity), a multiply-add 2 FLOP;
bandwidths are bytes per second, a link one direction of one link (NVLink: per GPU);
capacities are the vendor's decimal bytes, but on-chip memory per SM is in KB of 1024.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace

from common.tables import shipped, slips, sources
from common.tables.validate import plausible, positive

# --- Sources (cited by every figure) -----------------------------------------
CHECKED = "checked 2026-12-01"  # when the course last compared these figures with the documents
A100_DATASHEET = (
    "NVIDIA A100 Tensor Core GPU datasheet (2021), specifications table, column "
    f"'A100 40GB SXM' (dense: the figures without '*', which mark sparsity); {CHECKED}"
)
A100_80GB_DATASHEET = A100_DATASHEET.replace("'A100 40GB SXM'", "'A100 80GB SXM'")
H100_DATASHEET = (
    "NVIDIA H100 Tensor Core GPU datasheet (2023), specifications table, column 'H100 SXM'; "
    f"Tensor Core figures there are with sparsity, halved here for dense; {CHECKED}"
)
H200_DATASHEET = (
    "NVIDIA H200 Tensor Core GPU datasheet (2024), specifications table, column 'H200 SXM'; "
    f"Tensor Core figures there are with sparsity, halved here for dense; {CHECKED}"
)
HGX_B200_DATASHEET = (
    "NVIDIA HGX B200 datasheet (2025), specifications table, 'HGX B200' column: 8-GPU totals "
    f"divided by 8, sparse Tensor Core figures halved for dense; {CHECKED}"
)
B300_BLOG = (
    "NVIDIA Technical Blog, 'Inside NVIDIA Blackwell Ultra: The Chip Powering the AI Factory "
    f"Era' (2025), the per-GPU dense NVFP4 and FP8 figures; {CHECKED}"
)
HGX_B300_DATASHEET = (
    f"NVIDIA HGX B300 datasheet (2025), specifications table: 8-GPU totals divided by 8; {CHECKED}"
)
TPU_V5E_DOCS = (
    "Google Cloud TPU documentation, 'TPU v5e' page, system architecture table (peak compute "
    f"per chip, HBM capacity and bandwidth); {sources.SCALING_BOOK_TPUS}, table of TPU specs; "
    f"{CHECKED}"
)
TPU_V6E_DOCS = (
    "Google Cloud TPU documentation, 'TPU v6e' page, system architecture table; "
    f"{sources.SCALING_BOOK_TPUS}, table of TPU specs; {CHECKED}"
)
SCALING_BOOK_ICI = (
    f"{sources.SCALING_BOOK_ROOFLINE}, the table of chip-to-chip (ICI) bandwidths: one link, "
    f"one way; {CHECKED}"
)
AMPERE_TUNING_GUIDE = (
    "NVIDIA Ampere GPU Architecture Tuning Guide, section 'Unified Shared Memory/L1/Texture "
    "Cache': 192 KB of combined L1 and shared memory per SM, of which up to 164 KB can be "
    f"shared memory ({CHECKED})"
)
HOPPER_TUNING_GUIDE = (
    "NVIDIA Hopper Tuning Guide, section 'Unified Shared Memory/L1/Texture Cache': 256 KB "
    "of combined L1 and shared memory per SM, of which up to 228 KB can be shared memory "
    f"({CHECKED})"
)

# Achievable roofs: what a good kernel measured on the real chip, beside the datasheet.
ML_ENG = "Stas Bekman, Machine Learning Engineering Open Book (github.com/stas00/ml-engineering"
MAMF_TABLE = (
    f"{ML_ENG}, commit 744d01e), chapter 'Accelerators' (compute/accelerator/README.md), "
    "table 'Maximum Achievable Matmul FLOPS comparison table', column MAMF (mean of 100 "
    f"matmuls of the best shape found by mamf-finder.py); {CHECKED}"
)
NVLINK_MEASURED = (
    f"{ML_ENG}, commit 744d01e), chapter 'Networking' (network/README.md), section "
    "'Unidirectional vs Bidirectional (Duplex)'"
)
NCCL_ISSUE_1264 = (
    "NVIDIA/nccl issue #1264 (github.com/NVIDIA/nccl/issues/1264, 2024-04-24), 'Only ~783GByte/s "
    "out of theoretical 900GB/s HGX H100 SXM Nvlink4': p2pBandwidthLatencyTest on 8x H100 SXM, "
    f"about 380 GB/s one way; {CHECKED}"
)
VIDUR_MATMUL_HBM = (
    "microsoft/vidur (commit 7d47513), data/profiling/compute/a100/meta-llama/Llama-2-7b-hf/"
    "mlp.csv, num_tokens = 1, time_stats.mlp_up_proj.median 0.116 ms for the bf16 matmul "
    f"[1, 4096] x [4096, 22016] on an A100 80GB (its docs/profiling.md); {CHECKED}"
)
GPU_BENCHES_ROOFLINE = (
    "te42kyfo/gpu-benches (commit 1c36d50), gpu-roofline/h200.txt: its main.cu's 1,056 blocks "
    "each read two 8.7 GB arrays of doubles, row N = 0 (no multiply-adds); checked 2026-12-07"
)
KIPPLY_HBM = (
    "kipply, 'Transformer Inference Arithmetic' (2022-03-30), section 'comparing against real "
    "benchmarks' (kipp.ly/transformer-inference-arithmetic/; source github.com/kipply/blog, "
    "commit 09819d4): profiling FasterTransformer's decode matmuls on one A100 40GB, 'we get "
    f"up to about 90% of our full memory bandwidth'; {CHECKED}"
)


@dataclass(frozen=True)
class Figure:
    """One hardware figure: its value, unit, source, and whether it is an estimate."""

    value: float
    unit: str
    source: str
    estimate: bool = False
    note: str = ""


def flops(value: float, source: str, estimate: bool = False, note: str = "") -> Figure:
    """A dense peak compute figure in FLOP/s (or OP/s for integer precisions)."""
    return Figure(value, "FLOP/s", source, estimate, note)


def bandwidth(value: float, source: str, estimate: bool = False, note: str = "") -> Figure:
    """A bandwidth figure in bytes/s."""
    return Figure(value, "B/s", source, estimate, note)


def capacity(value: float, source: str, estimate: bool = False, note: str = "") -> Figure:
    """A memory capacity figure in bytes."""
    return Figure(value, "B", source, estimate, note)


class MissingFigureError(ValueError):
    """A figure the table does not list (a precision without a peak, an optional figure)."""


@dataclass(frozen=True)
class Chip:
    """A chip: dense peak FLOP/s per precision, memory bandwidth and capacity, link bandwidth."""

    name: str
    peak_flops_table: Mapping[str, Figure]
    mem_bw_figure: Figure
    mem_capacity_figure: Figure
    link_bw_figure: Figure | None  # None: no published link figure (one chip, no link)
    link_name: str = ""
    key: str = field(default="", compare=False)
    smem_per_sm_figure: Figure | None = None  # on-chip shared memory per SM (M_sm), if known
    # Achievable roofs: measured on the real chip by a good kernel; None where nobody published one.
    achievable_flops_table: Mapping[str, Figure] = field(default_factory=dict, compare=False)
    achievable_mem_bw_figure: Figure | None = field(default=None, compare=False)
    achievable_link_bw_figure: Figure | None = field(default=None, compare=False)
    #: GPUs one server joins on the link (a DGX or HGX node); tensor parallelism past it
    #: crosses a network the table has no figure for. None: no boundary (TPUs share ICI)
    node_gpus: int | None = field(default=None, compare=False)

    def _check(self, fig: Figure | None, what: str, missing: str = "") -> float:
        if fig is None:  # an optional figure the table leaves out
            raise MissingFigureError(f"{self.name} has no {missing or what} figure in the table")
        return plausible(fig.value, fig.unit, f"{self.name} {what}")

    @property
    def precisions(self) -> tuple[str, ...]:
        """The precisions this chip has a peak for, e.g. ('bf16', 'fp8', 'int8')."""
        return tuple(self.peak_flops_table)

    def peak_flops(self, precision: str) -> float:
        """Dense peak FLOP/s at `precision`; ValueError naming the precisions it has."""
        if precision not in self.peak_flops_table:
            have = ", ".join(self.precisions)
            raise MissingFigureError(f"{self.name} has no {precision!r} peak; it has: {have}")
        return self._check(self.peak_flops_table[precision], f"{precision} peak FLOP/s")

    @property
    def mem_bw(self) -> float:
        """Main-memory (HBM) bandwidth in bytes/s."""
        return self._check(self.mem_bw_figure, "memory bandwidth")

    @property
    def mem_capacity(self) -> float:
        """Main-memory capacity in bytes."""
        return self._check(self.mem_capacity_figure, "memory capacity")

    @property
    def link_bw(self) -> float:
        """One-way chip-to-chip link bandwidth in bytes/s; ValueError if not listed."""
        return self._check(self.link_bw_figure, "link bandwidth")

    @property
    def node(self) -> int | None:
        """GPUs a node joins on the link (``node_gpus``), or None where none is drawn."""
        n = self.node_gpus
        return None if n is None else int(positive(n, f"{self.name} node_gpus"))

    @property
    def smem_per_sm(self) -> float:
        """Shared memory one SM can give a kernel (M_sm), in bytes; ValueError if not listed."""
        return self._check(self.smem_per_sm_figure, "shared memory per SM", "shared-memory-per-SM")

    def _achievable(self, i: int, what: str, top: Callable[[], float]) -> float | None:
        """The `i`-th roof's achievable figure (``achievable_figures``), capped at its datasheet
        figure (slips warns of one above it); None where nobody published one."""
        got = list(self.achievable_figures())[i][2]
        return None if got is None else min(top(), self._check(got, f"achievable {what}"))

    def achievable_flops(self, precision: str) -> float | None:
        """Measured achievable dense FLOP/s at `precision` (best matmul), or None if unpublished."""
        peak, i = self.peak_flops(precision), list(self.peak_flops_table).index(precision)
        return self._achievable(i, f"{precision} FLOP/s", lambda: peak)

    @property
    def achievable_mem_bw(self) -> float | None:
        """Measured achievable HBM bandwidth in bytes/s (a streaming kernel), or None."""
        return self._achievable(-2, "memory bandwidth", lambda: self.mem_bw)

    @property
    def achievable_link_bw(self) -> float | None:
        """Measured achievable one-way link bandwidth in bytes/s, or None."""
        spec = (lambda: math.inf) if self.link_bw_figure is None else (lambda: self.link_bw)
        return self._achievable(-1, "link bandwidth", spec)  # no datasheet figure: no cap

    def achievable_figures(self) -> Iterator[tuple[str, Figure, Figure | None]]:
        """(label, datasheet figure, measured achievable figure or None) for each roof: the
        peaks, memory bandwidth, link. An achievable figure as shipped keeps its share of its
        datasheet figure as shipped, so an edit of that moves it (one edited stands as given)."""
        link = f"link ({self.link_name})" if self.link_name else "link"
        fields = (("memory bandwidth", "mem_bw_figure"), (link, "link_bw_figure"))
        row = shipped.FIGURES.get(self.key, {})
        for label, key, spec, got in (
            *((f"peak {p}", f"peak {p}", f, self.achievable_flops_table.get(p))
              for p, f in self.peak_flops_table.items()),
            *((n, k, getattr(self, k), getattr(self, f"achievable_{k}")) for n, k in fields),
        ):  # fmt: skip
            with contextlib.suppress(TypeError, AttributeError):  # a malformed one: its own check
                if got.value == row.get(f"achievable_{key}"):  # as shipped: at its share
                    got = replace(got, value=got.value * (spec.value / row.get(key)))
            yield label, spec, got

    def critical_intensity(self, precision: str) -> float:
        """Ridge point I* = peak FLOP/s / memory bandwidth, in FLOP/byte (the stack puts the
        table below ``formulas``: test_one_home.py holds it equal to ``ridge_point``)."""
        return self.peak_flops(precision) / self.mem_bw

    ridge_point = critical_intensity

    def figures(self) -> Iterator[tuple[str, Figure]]:
        """Every figure of the chip with a readable label (for the docs' hardware table)."""
        *roofs, link = ((label, spec) for label, spec, _ in self.achievable_figures())
        yield from roofs  # the peaks, memory bandwidth
        yield "memory capacity", self.mem_capacity_figure
        yield link
        if self.smem_per_sm_figure is not None:
            yield "shared memory per SM", self.smem_per_sm_figure


# A field deleted or misspelt, a key or precision twice: refused in one line naming them.
slips.check_table_source(slips.source_of(globals()), __file__, Chip)

# --- The table. Edit a literal, rerun a lecture. -----------------------------
A100 = Chip(
    name="A100 40GB SXM",
    key="a100",
    peak_flops_table={
        "bf16": flops(312e12, A100_DATASHEET),
        "int8": flops(624e12, A100_DATASHEET, note="INT8 Tensor Core, dense TOPS"),
    },
    mem_bw_figure=bandwidth(1555e9, A100_DATASHEET, note="HBM2"),
    mem_capacity_figure=capacity(40e9, A100_DATASHEET),
    link_bw_figure=bandwidth(300e9, A100_DATASHEET, note="NVLink 3: 600 GB/s both ways"),
    link_name="NVLink 3",
    node_gpus=8,  # the datasheet's server options: "NVIDIA DGX A100 with 8 GPUs"
    smem_per_sm_figure=capacity(167936, AMPERE_TUNING_GUIDE, note="164 KiB of a 192 KiB L1"),
    achievable_flops_table={
        "bf16": flops(271.2e12, MAMF_TABLE, note="row 'NVIDIA A100 SXM' (memory size not stated)"),
    },
    achievable_mem_bw_figure=bandwidth(1399.5e9, KIPPLY_HBM, note="90% of 1555 GB/s"),
    achievable_link_bw_figure=bandwidth(
        235e9,
        f"{NVLINK_MEASURED}, case study: nccl-tests all_reduce on an A100 node; {CHECKED}",
        note="busbw of a 16 GiB all-reduce on 8 GPUs; small messages get far less",
    ),
)

A100_80GB = Chip(
    name="A100 80GB SXM",
    key="a100-80gb",
    peak_flops_table={
        "bf16": flops(312e12, A100_80GB_DATASHEET),
        "int8": flops(624e12, A100_80GB_DATASHEET, note="INT8 Tensor Core, dense TOPS"),
    },
    mem_bw_figure=bandwidth(2039e9, A100_80GB_DATASHEET, note="HBM2e"),
    mem_capacity_figure=capacity(80e9, A100_80GB_DATASHEET),
    link_bw_figure=bandwidth(300e9, A100_80GB_DATASHEET, note="NVLink 3: 600 GB/s both ways"),
    link_name="NVLink 3",
    node_gpus=8,  # the datasheet's server options: "NVIDIA DGX A100 with 8 GPUs"
    achievable_flops_table={
        "bf16": flops(271.2e12, MAMF_TABLE, note="row 'NVIDIA A100 SXM' (memory size not stated)"),
    },
    achievable_mem_bw_figure=bandwidth(1555e9, VIDUR_MATMUL_HBM, note="180.4 MB / 0.116 ms"),
)

H100 = Chip(
    name="H100 SXM",
    key="h100",
    peak_flops_table={
        "bf16": flops(989e12, H100_DATASHEET),
        "fp8": flops(1979e12, H100_DATASHEET),
        "int8": flops(1979e12, H100_DATASHEET, note="dense TOPS"),
    },
    mem_bw_figure=bandwidth(3.35e12, H100_DATASHEET, note="HBM3"),
    mem_capacity_figure=capacity(80e9, H100_DATASHEET),
    link_bw_figure=bandwidth(450e9, H100_DATASHEET, note="NVLink 4: 900 GB/s both ways"),
    link_name="NVLink 4",
    node_gpus=8,  # the datasheet's server options: "NVIDIA DGX H100 with 8 GPUs"
    smem_per_sm_figure=capacity(233472, HOPPER_TUNING_GUIDE, note="228 KiB of a 256 KiB L1"),
    achievable_flops_table={
        "bf16": flops(794.5e12, MAMF_TABLE, note="row 'NVIDIA H100 SXM'"),
        "fp8": flops(1402.6e12, MAMF_TABLE, note="FP8 table, row 'NVIDIA H100 SXM'"),
    },
    achievable_link_bw_figure=bandwidth(
        380e9, NCCL_ISSUE_1264, note="p2pBandwidthLatencyTest copy, not nvbandwidth"
    ),
)

H200 = Chip(
    name="H200",
    key="h200",
    peak_flops_table={  # same compute die as H100
        "bf16": flops(989e12, H200_DATASHEET),
        "fp8": flops(1979e12, H200_DATASHEET),
        "int8": flops(1979e12, H200_DATASHEET, note="dense TOPS"),
    },
    mem_bw_figure=bandwidth(4.8e12, H200_DATASHEET, note="HBM3e"),
    mem_capacity_figure=capacity(141e9, H200_DATASHEET),
    link_bw_figure=bandwidth(450e9, H200_DATASHEET, note="NVLink 4: 900 GB/s both ways"),
    link_name="NVLink 4",
    node_gpus=8,  # the datasheet's server options: HGX H200 "with 4 or 8 GPUs"
    smem_per_sm_figure=capacity(
        233472, HOPPER_TUNING_GUIDE, note="the H100's GH100 SMs: 228 KiB of a 256 KiB L1"
    ),
    achievable_flops_table={
        "bf16": flops(
            794.5e12, MAMF_TABLE, note="row 'NVIDIA H100 SXM', whose note says 'H200 is the same'"
        ),
        "fp8": flops(1453.4e12, MAMF_TABLE, note="FP8 table, row 'NVIDIA H200 SXM'"),
    },
    achievable_link_bw_figure=bandwidth(
        396.40e9,
        f"{NVLINK_MEASURED}: nvbandwidth device_to_device_memcpy_write_ce on 8x H200; {CHECKED}",
        note="one pair, one way",
    ),
    achievable_mem_bw_figure=bandwidth(3759e9, GPU_BENCHES_ROOFLINE, note="a read-only stream"),
)

B200_ESTIMATE = (
    "estimated: 8-GPU sparse total / 8 / 2 (the datasheet gives no per-GPU dense figure)"
)
B300_BF16_ESTIMATE = (
    "estimated: about 2.5x H100's dense bf16 (the blog gives dense NVFP4 and FP8 per GPU, not bf16)"
)

B200 = Chip(
    name="B200",
    key="b200",
    peak_flops_table={
        # Estimates: the datasheet gives 8-GPU sparse totals only (BF16 36 PF, FP8 72 PF,
        # INT8 72 POPS, FP4 144 PF); one GPU is 1/8 of it and dense is half of sparse.
        "bf16": flops(2.25e15, HGX_B200_DATASHEET, estimate=True, note=B200_ESTIMATE),
        "fp8": flops(4.5e15, HGX_B200_DATASHEET, estimate=True, note=B200_ESTIMATE),
        "int8": flops(4.5e15, HGX_B200_DATASHEET, estimate=True, note=B200_ESTIMATE),
        "nvfp4": flops(9e15, HGX_B200_DATASHEET, estimate=True, note=B200_ESTIMATE),
    },
    mem_bw_figure=bandwidth(8e12, HGX_B200_DATASHEET, note="HBM3e"),
    mem_capacity_figure=capacity(180e9, HGX_B200_DATASHEET),
    link_bw_figure=bandwidth(900e9, HGX_B200_DATASHEET, note="NVLink 5: 1.8 TB/s both ways"),
    link_name="NVLink 5",
    node_gpus=8,  # the HGX B200: 8 GPUs on NVLink 5
    achievable_flops_table={
        "bf16": flops(1745.0e12, MAMF_TABLE, note="row 'NVIDIA B200 SXM'"),
        "fp8": flops(3432.5e12, MAMF_TABLE, note="FP8 table, row 'NVIDIA B200 SXM'"),
    },
)

B300 = Chip(
    name="B300",
    key="b300",
    peak_flops_table={
        "bf16": flops(2.5e15, B300_BLOG, estimate=True, note=B300_BF16_ESTIMATE),
        "fp8": flops(5e15, B300_BLOG),
        "nvfp4": flops(15e15, B300_BLOG),
    },
    mem_bw_figure=bandwidth(8e12, HGX_B300_DATASHEET, note="HBM3e"),
    mem_capacity_figure=capacity(288e9, HGX_B300_DATASHEET),
    link_bw_figure=bandwidth(900e9, HGX_B300_DATASHEET, note="NVLink 5: 1.8 TB/s both ways"),
    link_name="NVLink 5",
    node_gpus=8,  # the HGX B300: 8 GPUs on NVLink 5
    achievable_flops_table={
        "bf16": flops(
            1769.0e12,
            MAMF_TABLE,
            note="row 'NVIDIA B300 SXM' (its Theory column says 2250, below this table's estimate)",
        ),
        "fp8": flops(3353.3e12, MAMF_TABLE, note="FP8 table, row 'NVIDIA B300 SXM'"),
    },
)

TPU_V5E = Chip(
    name="TPU v5e",
    key="tpu-v5e",
    peak_flops_table={
        "bf16": flops(197e12, TPU_V5E_DOCS),
        "int8": flops(394e12, TPU_V5E_DOCS, note="dense TOPS"),
    },
    mem_bw_figure=bandwidth(8.2e11, TPU_V5E_DOCS),
    mem_capacity_figure=capacity(16e9, TPU_V5E_DOCS),
    link_bw_figure=bandwidth(4.5e10, SCALING_BOOK_ICI, note="one ICI link, one way"),
    link_name="ICI, one link",
)

TPU_V6E = Chip(
    name="TPU v6e",
    key="tpu-v6e",
    peak_flops_table={
        "bf16": flops(920e12, TPU_V6E_DOCS),
        "int8": flops(1840e12, TPU_V6E_DOCS, note="dense TOPS"),
    },
    mem_bw_figure=bandwidth(1.64e12, TPU_V6E_DOCS),
    mem_capacity_figure=capacity(32e9, TPU_V6E_DOCS),
    link_bw_figure=bandwidth(9e10, SCALING_BOOK_ICI, note="one ICI link, one way"),
    link_name="ICI, one link",
)

CHIPS: dict[str, Chip] = {
    c.key: c for c in (A100, H100, H200, B200, B300, TPU_V5E, TPU_V6E, A100_80GB)
}

# Bytes per stored element. nvfp4 stores 4-bit values plus one 8-bit scale per
# 16 values: (16 * 4 + 8) / 16 = 4.5 bits = 0.5625 bytes; mxfp4 (OCP Microscaling
# Formats v1.0: 32 FP4 values share an 8-bit E8M0 scale) (32 * 4 + 8) / 32 = 4.25 bits.
BYTES_PER_ELEM: dict[str, float] = {
    "fp32": 4,
    "bf16": 2,
    "fp16": 2,
    "fp8": 1,
    "int8": 1,
    "int4": 0.5,
    "nvfp4": 0.5625,
    "mxfp4": 0.53125,
}


def shipped_chip(chip: Chip) -> Chip:
    """`chip` with its datasheet figures as shipped (``tables.shipped``), achievable ones as is."""
    row = shipped.FIGURES.get(chip.key, {})
    back = lambda f, name: replace(f, value=row.get(name, f.value))  # noqa: E731
    peaks = {p: back(f, f"peak {p}") for p, f in chip.peak_flops_table.items()}
    figs = {n: getattr(chip, n, None) for n in row if not n.startswith("achievable")}
    return replace(chip, peak_flops_table=peaks,
                   **{n: back(f, n) for n, f in figs.items() if isinstance(f, Figure)})  # fmt: skip


def get_chip(name: str) -> Chip:
    """Look a chip up by key or name, case-insensitively ('h100', 'H100 SXM', 'tpu-v5e')."""
    wanted = str(name).strip().lower().replace("_", "-").replace(" ", "-")
    for chip in CHIPS.values():
        if wanted in (chip.key, chip.name.lower().replace(" ", "-")):
            return chip
    raise ValueError(f"unknown chip {name!r}; choose one of: {', '.join(CHIPS)}")


def bytes_per_elem(precision: str) -> float:
    """Bytes one element takes at `precision`; ValueError listing the known precisions."""
    if precision not in BYTES_PER_ELEM:
        raise ValueError(
            f"unknown precision {precision!r}; choose one of: {', '.join(BYTES_PER_ELEM)}"
        )
    return positive(BYTES_PER_ELEM[precision], f"BYTES_PER_ELEM[{precision!r}]")


slips.check_records(globals())  # booleans; a figure x100 off shipped or above its datasheet
