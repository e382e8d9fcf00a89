"""Hypothesis strategies for the tables a student edits (``hardware_tables``, ``models``,
``moe_models``), blocks that put them in place (``patched_hardware``, ``patched_models``) and an
in-process lecture run (``run_lecture``) for the words' property tests (tests/lectures). Draws
are kept small (``settings`` in each test), since a lecture run takes 0.1-1 s."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import math
import runpy
import sys
from collections.abc import Iterator, Mapping

from conftest import lecture_path
from hypothesis import strategies as st

from common import hw_specs
from common.hw_specs import Chip, Figure
from common.shell.cli import MAX_BATCH
from common.tables import models as model_table
from common.tables.models import Model
from common.tables.validate import PLAUSIBLE_RANGES

FACTORS = st.floats(min_value=0.01, max_value=100.0, allow_nan=False, allow_infinity=False)
FACTORS = FACTORS | st.sampled_from([0.01, 100.0])  # the ends of the range, drawn often
SHIPPED: dict[str, Chip] = dict(hw_specs.CHIPS)
# the module attribute that holds each shipped chip (A100 -> "a100"), found, not typed
ATTRIBUTE = {chip.key: name for name, chip in vars(hw_specs).items()
             if isinstance(chip, Chip) and chip.key in SHIPPED}  # fmt: skip


def _scaled(fig: Figure | None, factor: float) -> Figure | None:
    """fig x factor, kept inside its unit's plausible range (past it the table refuses the
    edit in one line, tested on its own): a copy of a scaled chip scaled again stays in."""
    if fig is None:
        return None
    lo, hi = PLAUSIBLE_RANGES.get(fig.unit, (0.0, math.inf))
    return dataclasses.replace(fig, value=min(hi, max(lo, fig.value * factor)))


def scale_chip(chip: Chip, factors: Mapping[str, float]) -> Chip:
    """`chip` with each figure scaled: keys 'peak P', 'mem_bw', 'capacity', 'link', 'smem'."""
    f = lambda k: factors.get(k, 1.0)  # noqa: E731
    peaks = {p: _scaled(fig, f(f"peak {p}")) for p, fig in chip.peak_flops_table.items()}
    ach = {p: _scaled(fig, f(f"peak {p}")) for p, fig in chip.achievable_flops_table.items()}
    return dataclasses.replace(
        chip, peak_flops_table=peaks, achievable_flops_table=ach,
        mem_bw_figure=_scaled(chip.mem_bw_figure, f("mem_bw")),
        mem_capacity_figure=_scaled(chip.mem_capacity_figure, f("capacity")),
        link_bw_figure=_scaled(chip.link_bw_figure, f("link")),
        smem_per_sm_figure=_scaled(chip.smem_per_sm_figure, f("smem")),
        achievable_mem_bw_figure=_scaled(chip.achievable_mem_bw_figure, f("mem_bw")),
        achievable_link_bw_figure=_scaled(chip.achievable_link_bw_figure, f("link")),
    )  # fmt: skip


def edited(**changes: dict[str, float]) -> dict[str, Chip]:
    """The shipped table with some figures scaled: edited(h100={'mem_bw': 2})."""
    return {k: scale_chip(c, changes.get(k.replace("-", "_"), {})) for k, c in SHIPPED.items()}


def _field_keys(chip: Chip) -> list[str]:
    keys = [f"peak {p}" for p in chip.peak_flops_table] + ["mem_bw", "capacity", "link"]
    return keys + (["smem"] if chip.smem_per_sm_figure is not None else [])


@st.composite
def scaled_chip(draw: st.DrawFn, chip: Chip) -> Chip:
    """One chip with any subset of its figures scaled by 0.01 to 100 (achievable roofs too)."""
    keys = draw(st.lists(st.sampled_from(_field_keys(chip)), unique=True, max_size=4))
    return scale_chip(chip, {k: draw(FACTORS, label=f"{chip.key} {k}") for k in keys})


def _swap(a: Chip, b: Chip) -> tuple[Chip, Chip]:
    """Two chips with their bandwidths and bf16 peaks exchanged (names and keys kept)."""

    def take(dst: Chip, src: Chip) -> Chip:
        peaks = dict(dst.peak_flops_table)
        peaks["bf16"] = src.peak_flops_table["bf16"]
        return dataclasses.replace(
            dst, peak_flops_table=peaks, achievable_flops_table={}, mem_bw_figure=src.mem_bw_figure,
            achievable_mem_bw_figure=src.achievable_mem_bw_figure,
        )  # fmt: skip

    return take(a, b), take(b, a)


def _lower_precision_faster(chip: Chip, factor: float) -> Chip:
    """The chip's lowest precision made slower than bf16 by `factor` (0.05-1): an odd edit."""
    lows = [p for p in chip.peak_flops_table if p != "bf16"]
    if not lows:
        return chip
    peaks = dict(chip.peak_flops_table)
    bf16 = peaks["bf16"]
    peaks[lows[-1]] = dataclasses.replace(peaks[lows[-1]], value=bf16.value * factor)
    ach = {p: f for p, f in chip.achievable_flops_table.items() if p != lows[-1]}
    return dataclasses.replace(chip, peak_flops_table=peaks, achievable_flops_table=ach)


@st.composite
def hardware_tables(draw: st.DrawFn) -> dict[str, Chip]:
    """A hardware table a student might leave behind: scaled, swapped, copied, odd precisions."""
    table = {key: draw(scaled_chip(chip)) for key, chip in SHIPPED.items()}
    keys = list(table)
    if draw(st.booleans(), label="swap two chips"):
        a, b = draw(st.lists(st.sampled_from(keys), min_size=2, max_size=2, unique=True))
        table[a], table[b] = _swap(table[a], table[b])
    if draw(st.booleans(), label="lower precision slower"):
        key = draw(st.sampled_from(keys))
        table[key] = _lower_precision_faster(table[key], draw(st.floats(0.05, 1.0)))
    if draw(st.booleans(), label="copy a chip"):
        src = table[draw(st.sampled_from(keys))]
        new = dataclasses.replace(src, name=f"{src.name} copy", key=f"{src.key}-copy")
        table[new.key] = draw(scaled_chip(new))
    if draw(st.booleans(), label="drop a link"):  # optional in the table (issue 34)
        key = draw(st.sampled_from(list(table)), label="chip without a link")
        table[key] = unlinked(table[key])
    return table


def unlinked(chip: Chip) -> Chip:
    """`chip` as a student may list it: no link figure, datasheet or measured."""
    return dataclasses.replace(
        chip, link_bw_figure=None, achievable_link_bw_figure=None, link_name="")  # fmt: skip


@contextlib.contextmanager
def patched_hardware(table: Mapping[str, Chip]) -> Iterator[None]:
    """Put `table` in place of the shipped chips of ``common.hw_specs`` inside the block."""
    saved = {name: getattr(hw_specs, name) for name in ATTRIBUTE.values()}
    saved_chips = dict(hw_specs.CHIPS)
    try:
        for key, name in ATTRIBUTE.items():
            setattr(hw_specs, name, table[key])
        hw_specs.CHIPS.clear()
        hw_specs.CHIPS.update(table)
        yield
    finally:
        for name, chip in saved.items():
            setattr(hw_specs, name, chip)
        hw_specs.CHIPS.clear()
        hw_specs.CHIPS.update(saved_chips)


@st.composite
def models(draw: st.DrawFn) -> Model:
    """A decoder-only model as a student might type it into the model table: any layer
    count, width and vocabulary, query heads a multiple of the KV heads, any window, sliding
    layers, norms and per-layer extras as the 2025-26 configs have them."""
    kv = draw(st.integers(1, 16), label="KV heads")
    heads = kv * draw(st.sampled_from([1, 2, 4, 8]), label="group size")
    d_head = draw(st.sampled_from([32, 64, 80, 128, 256]), label="head dim")
    layers = draw(st.integers(1, 128), label="layers")
    window = draw(st.integers(0, 8192), label="sliding window")  # Gemma 2's alternating layers
    return Model(
        name="Drawn model", key="drawn", n_layers=layers, n_heads=heads, n_kv_heads=kv,
        d_model=draw(st.sampled_from([heads * d_head, 512, 4096, 12288]), label="d_model"),
        d_head=d_head, d_ff=draw(st.integers(64, 65536), label="d_ff"),
        gated_mlp=draw(st.booleans(), label="gated"),
        vocab_size=draw(st.integers(256, 262144), label="vocabulary"),
        tied_embeddings=draw(st.booleans(), label="tied"),
        max_context=draw(st.integers(1, 131072), label="window"),
        config_source="drawn by hypothesis",
        published_params=draw(st.none() | st.floats(1e6, 1e12), label="published"),
        params_source=draw(st.sampled_from(["", "its model card"]), label="published where"),
        sliding_window=window,
        sliding_layers=draw(st.integers(0, layers), label="sliding layers") if window else 0,
        norms_per_layer=draw(st.sampled_from([2, 4]), label="norms a layer"),  # Gemma: four
        extra_layer_params=draw(st.sampled_from([0, 256, 1_000_000]), label="extra a layer"),
    )  # fmt: skip


@contextlib.contextmanager
def patched_models(*extra: Model, table: dict[str, Model] = model_table.MODELS) -> Iterator[None]:
    """Add `extra` models to ``common.tables.models.MODELS`` (or `table`, such as
    ``MOE_MODELS``), by key, inside the block."""
    saved = dict(table)
    try:
        table.update({m.key: m for m in extra})
        yield
    finally:
        table.clear()
        table.update(saved)


STORAGE = ("bf16", "fp16", "fp8", "int8", "int4", "nvfp4")  # --weights and --kv


@st.composite
def llm_runs(draw: st.DrawFn) -> tuple[dict[str, Chip], Model, list[str]]:
    """An edited hardware table, a model (shipped or drawn) and every documented flag of
    lectures 06-08: --model, --chip, --precision (one the chip has), --weights, --kv,
    --context (1 to the model's window, the ends drawn often) and --batch (1 to 4,096, or
    either end of the flag's range, 1 and 2**20)."""
    table = draw(hardware_tables())
    model = draw(st.sampled_from(list(model_table.MODELS.values())) | models())
    key = draw(st.sampled_from(list(table)), label="chip")
    precision = draw(st.sampled_from(sorted(table[key].precisions)), label="precision")
    weights = draw(st.sampled_from(STORAGE) | st.none(), label="weights")
    if weights is None and precision not in STORAGE:
        weights = "int8"
    argv = ["--model", model.key, "--chip", key, "--precision", precision]
    argv += ["--kv", draw(st.sampled_from(STORAGE), label="kv")]
    window = model.max_context
    argv += ["--context", str(draw(st.sampled_from([1, window]) | st.integers(1, window)))]
    argv += ["--batch", str(draw(st.sampled_from([1, MAX_BATCH]) | st.integers(1, 4096)))]
    return table, model, argv + (["--weights", weights] if weights else [])


def run_llm(lecture: str, table: Mapping[str, Chip], model: Model, argv: list[str]) -> str:
    """Run lecture 06, 07 or 08 in this process on an edited table with a drawn model."""
    with patched_hardware(table), patched_models(model):
        return run_lecture(lecture, *argv)


def run_lecture(name: str, *argv: str) -> str:
    """Run a lecture in this process with `argv` and return its standard output.

    A lecture that stops with a non-zero exit raises AssertionError with its output, so
    a property test reports the drawn table that broke it.
    """
    path = lecture_path(name)
    out, err = io.StringIO(), io.StringIO()
    saved_argv = sys.argv
    sys.argv = [str(path), *argv]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            runpy.run_path(str(path), run_name="__main__")
    except SystemExit as stop:
        if stop.code not in (0, None):
            raise AssertionError(
                f"{path.name} {' '.join(argv)} exited {stop.code}: {err.getvalue()[-800:]}"
            ) from None
    finally:
        sys.argv = saved_argv
    return out.getvalue()


@st.composite
def moe_models(draw: st.DrawFn) -> Model:
    """A shipped mixture with its routing edited as a student might: any number of experts
    (1 to 512), any k of them, any expert width, a shared expert or none."""
    base = draw(st.sampled_from(list(model_table.MOE_MODELS.values())), label="base")
    experts = draw(st.sampled_from([1, 8, 64, 512]) | st.integers(1, 512), label="experts")
    return dataclasses.replace(
        base, name="Drawn mixture", key="drawn-moe", n_experts=experts,
        # k up to 32 of any width up to 16,384: the dense twin (k widths + a shared one) stays
        # within the model table's 2**20 (released mixtures take 1 to 8 of widths to 14,336)
        experts_per_token=draw(st.integers(1, min(experts, 32)), label="k"),
        d_ff_expert=draw(st.integers(16, 16384), label="expert width"),
        d_ff_shared=draw(st.sampled_from([0, base.d_ff_shared, 4096]), label="shared width"),
        published_params=None,
        published_active=None,
    )  # fmt: skip


@st.composite
def moe_runs(draw: st.DrawFn) -> tuple[dict[str, Chip], Model, list[str]]:
    """An edited hardware table, a mixture (shipped or drawn) and lecture 13's flags:
    --model, --chip (with or without a link), --precision (a storage one the chip has), --context,
    --batch and --ep (a divisor of the experts)."""
    table = draw(hardware_tables())
    model = draw(st.sampled_from(list(model_table.MOE_MODELS.values())) | moe_models())
    key = draw(st.sampled_from(list(table)), label="chip")
    stored = sorted(set(table[key].precisions) & set(STORAGE))
    precision = draw(st.sampled_from(stored), label="precision")
    E = model.n_experts
    ep = draw(st.sampled_from([n for n in range(1, min(E, 1024) + 1) if E % n == 0]), label="ep")
    argv = ["--model", model.key, "--chip", key, "--precision", precision, "--ep", str(ep)]
    window = model.max_context
    argv += ["--context", str(draw(st.sampled_from([1, window]) | st.integers(1, window)))]
    argv += ["--batch", str(draw(st.sampled_from([1, MAX_BATCH]) | st.integers(1, 4096)))]
    return table, model, argv
