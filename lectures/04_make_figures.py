r"""
Four figures from the saved results
===================================

What do the speed and capacity ledgers look like as pictures? This tool draws
four figures: this machine's roofline with the operations lecture 01 measured,
the batch sweep of lecture 03, the memory ledger of the 7B model, and what
doubling compute or bandwidth buys as a function of :math:`I / I^{\ast}`.

The measured figures are drawn from the results file, not from new
measurements, so each picture shows the same numbers its lecture printed. Run
lectures 01 and 03 first; a missing section is reported in one line and the
figure is skipped (or, for the roofline, drawn from another saved calibration
or a quick fresh one, without measured points). The script exits with status 1
only when it cannot draw at all (matplotlib missing, output folder not
writable): drawing is its whole job.

Run it::

    python3 lectures/04_make_figures.py                    # PNGs into figures/
    python3 lectures/04_make_figures.py --outdir /tmp/figs --results FILE
    python3 lectures/04_make_figures.py --budget-gib 70    # the ledger figure's budget
"""

from __future__ import annotations

import _course  # noqa: F401  (sets the lecture up: lectures/_course.py)

from typing import Any

from common.files import results
from common.files.atomic import writable_dir
from common.files.calibration import saved_calibration
from common.measure import roofs
from common.plots import style
from common.present import display, figures
from common.present.display import show
from common.shell import cli
from common.shell.paths import display_path
from common.tables import assumptions
from common.tables.units import GIB


def make_parser() -> cli.LectureParser:
    """The command line: --outdir, --results, --budget-gib."""
    parser = cli.lecture_parser(__doc__)
    cli.add_outdir_flag(parser)
    cli.add_results_flag(parser)
    cli.add_budget_flag(parser, "the ledger figure")
    return parser


# The gallery card shows the fourth figure: the first is lecture 01's, already its card.
# sphinx_gallery_thumbnail_number = 4

# %%
# Set-up
# ------
#
# The script checks first that it can draw and write (matplotlib installed, the
# output folder writable), then reads the results file once.

args = cli.parse_args(make_parser())
style.require_matplotlib()  # ImportError -> one line, exit 1
OUTDIR = writable_dir(args.outdir, "figure folder")  # ValueError -> one line, exit 1

from common.plots import article  # needs matplotlib, checked just above

loaded = results.load_results(args.results)
if not loaded:
    print(f"results: {loaded.reason}")


def why(reason: str) -> str:
    """A section's problem, short when the whole file was already reported unusable."""
    return reason if loaded else "no usable results file"


written: list[tuple[str, str]] = []  # (file, what it was drawn from)


def drawn(path: str, caption: str, source: str) -> display.Figure:
    """Remember a written figure and its data; its display object carries the caption."""
    written.append((path, source))
    return display.figure(path, caption)


# %%
# This machine's roofline
# -----------------------
#
# The two roofs are lecture 01's calibration: the sloped line is the measured
# bandwidth :math:`\beta`, the flat one the measured matmul rate :math:`P`, and
# they meet at :math:`I^{\ast} = P / \beta`. Each numbered point is one operation
# lecture 01 timed, placed at its counted intensity and its achieved FLOP/s, and
# coloured by the bound the model predicted for it. The gap between a point and
# the roof is how far that implementation is from the model's limit; it does not
# say why.

probe, _ = results.get_section(loaded, "probe")
saved = saved_calibration(loaded=loaded)
points: list[Any] = []
title, source = "This machine's roofline", "lecture 01's calibration and operations"
if saved.calibration is not None:
    calibration = (saved.peak_flops_per_s, saved.bandwidth_bytes_per_s)
    points, unusable = article.measured_points((probe or {}).get("operations") or [])
    if unusable:
        print(f"roofline: left out {unusable} malformed operation(s) of the probe")
else:
    fallback = saved_calibration(section="batch_sweep", loaded=loaded)
    if fallback.calibration is not None:
        calibration = (fallback.peak_flops_per_s, fallback.bandwidth_bytes_per_s)
        source = "lecture 03's calibration, no points"
    else:
        calib = roofs.calibrate(quick=True)
        calibration = (calib["matmul_flops_per_s"], calib["bandwidth_bytes_per_s"])
        source = "a quick calibration, no points"
    print(f"roofline: {why(saved.reason)}; roofs from {source}")
    title = "This machine's roofs (no measured points)"
out = OUTDIR / "local_roofline.png"
path = article.local_roofline_figure(out, *calibration, points, title=title)
show(drawn(path, figures.roofline_caption(*calibration, points), source))

# %%
# Latency and throughput against batch size
# -----------------------------------------
#
# Lecture 03's sweep: one fp32 weight matrix times a batch of :math:`B` tokens.
# Left, the fastest measured call and the roofline time :math:`\max(F/P, D/\beta)`;
# right, tokens per second. The grey band marks the two sampled batch sizes
# between which the model's intensity crosses :math:`I^{\ast}`. Circled points
# are anomalies: a larger batch that finished sooner, or a batch whose throughput
# fell below that of the smaller one, which a roofline cannot produce.

sweep, sweep_reason = results.get_section(loaded, "batch_sweep")
rows = None
if sweep is not None:
    try:
        rows = sweep["rows"]  # checked: positive B, latency, throughput and bound in each row
        if not isinstance(rows, list) or not rows:
            raise ValueError("no rows")
        for r in rows:
            for key in ("B", "latency_s", "throughput_per_s", "t_pred_s"):
                results.positive_number(r, key)
        crossing = sweep.get("crossing")
        cross = (crossing.get("before"), crossing["first"]) if isinstance(crossing, dict) else None
        shape = sweep.get("weight_shape") or ["?", "?"]
        sweep_title = f"Batch sweep, W[{shape[0]}, {shape[1]}] fp32"
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        rows, sweep_reason = None, f"the batch_sweep section is malformed ({exc})"
if rows is None:
    print(f"skipped batch_sweep.png: {why(sweep_reason)} (run lecture 03)")
else:
    path = article.batch_sweep_figure(OUTDIR / "batch_sweep.png", rows, cross, title=sweep_title)
    show(drawn(path, figures.sweep_caption(rows, cross), "lecture 03's batch sweep"))

# %%
# The memory ledger
# -----------------
#
# The 7B model of lecture 03 in unchunked prefill. Left, the four terms stacked
# at the 30% overhead that :ref:`the article <sources>` assumes: the weights stay
# constant while the KV cache and activations grow with every sequence, until
# the total crosses the budget line. Right, the totals at 30% and at 4% overhead
# side by side.

model, batches = assumptions.ARTICLE_7B, assumptions.ARTICLE_BATCHES
rates = (assumptions.ARTICLE_OVERHEAD_RATE, assumptions.LOW_OVERHEAD_RATE)
budget = args.budget_gib * GIB
out, title = OUTDIR / "memory_ledger.png", f"Memory ledger of a {model.name} model"
path = article.memory_ledger_figure(out, model, batches, *rates, budget, title)
caption = figures.ledger_caption(model, batches, *rates, budget)
show(drawn(path, caption, "the capacity ledger's formulas"))

# %%
# Two times the compute or two times the bandwidth?
# -------------------------------------------------
#
# Where an operator sits relative to the ridge decides which upgrade pays. Left
# of :math:`I/I^{\ast} = 1`, doubling compute buys nothing; right of it, doubling
# bandwidth buys nothing. The full 2x only arrives beyond the dotted lines at 1/2
# and 2.

path = article.speedup_figure(OUTDIR / "speedup_2x.png")
show(drawn(path, figures.speedup_caption(), "the roofline formula"))

# %%
# What was drawn
# --------------
#
# Each figure and the numbers it was drawn from: a measured figure shows the
# numbers its lecture printed, a computed one the formulas of ``common``. Read
# together, the four say one thing each.

show(
    figures.written_table(written),
    figures.drawn_observations(*calibration, points, rows, model, batches, rates, budget),
    display.Text(f"wrote {len(written)} figure(s) to {display_path(OUTDIR)}"))  # fmt: skip
