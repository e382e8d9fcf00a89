"""Lecture 13's words: sentences worked by hand on a chip of 100 TFLOP/s, 1 TB/s and 80 GB
(ridge 100 FLOP/byte), and claims that hold on any table, mixture and flag (hypothesis)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import assert_sections, summary_value
from edit_battery import contradictions
from hypothesis import given, settings
from present.fake_chips import chip, observed, prose, rows
from strategies import SHIPPED, moe_runs, patched_hardware, patched_models, run_lecture, unlinked

from common.formulas.transformer import DTypes
from common.tables.engines import CHIP_TERMS
from common.tables.models import MIXTRAL_8X7B, MOE_MODELS
from lectures.words import mixture_of_experts as page

H = chip("Hop", 100e12, 1e12)  # ridge 100 FLOP/B, 80 GB


def setup(batch: int = 64, ep: int = 2) -> page.Setup:
    m = MIXTRAL_8X7B  # 2 of 8 experts
    return page.Setup(model=m, chip=H, precision="bf16", dtypes=DTypes(), context=512,
                      batch=batch, peak=100e12, ridge=100.0, ep=ep)  # fmt: skip


def count(total: float = 40e9, active: float = 10e9, twin: float = 10e9, m=MIXTRAL_8X7B,
          per_gpu: float = 50e9):  # fmt: skip
    """bf16: 2 bytes a parameter; on 2 GPUs 30 G experts split, 10 G whole: 30 + 20 GB."""
    return page.Count(model=m, total=total, active=active, twin=twin, weights=2 * total,
                      per_gpu=per_gpu)  # fmt: skip


def steps(batch: int, moe: float, twin: float, time=(0.01, 0.01)) -> list:
    """One (mixture, twin) pair of decode steps at `batch`, with their weight bytes."""
    return [tuple(page.Step(batch=batch, weight_bytes=w, time=t)
                  for w, t in zip((moe, twin), time, strict=True))]  # fmt: skip


STEPS = steps(64, 90e9, 30e9, (0.1, 0.04))  # 64 / 0.1 = 640, 64 / 0.04 = 1,600
STEP = page.Step(batch=64, weight_bytes=1.0, time=0.1)


def exchange(ep: int, t: float, layer: float = 1e-4, node: float = 0.5) -> page.Exchange:
    return page.Exchange(ep=ep, node_share=node, net_share=0.0, dispatch_bytes=4096,
                         combine_bytes=8192, dispatch=t, combine=t, layer=layer)  # fmt: skip


CHECKS = [
    page.Check(label="dispatch, EP 8", predicted=77e-6, measured=77e-6, calibration=True),
    page.Check(label="combine, EP 8", predicted=110e-6, measured=100e-6, calibration=False),
    page.Check(label="combine, EP 16", predicted=150e-6, measured=200e-6, calibration=False),
]


def test_sizes_by_hand() -> None:
    group = page.sizes_section(setup(), [count(twin=10_100_000_000)])
    # 40 G over 10 G = x4.0; published 46.7 G and 12.9 G from the model table
    assert rows(group)[1] == [
        "Mixtral-8x7B *", "2 of 8", "40.00 G", "46.70 G", "10.00 G", "12.90 G", "x4.0", "10.10 G",
    ]  # fmt: skip
    said = observed(group)
    assert said[:2] == [
        "Mixtral-8x7B holds 40.00 G parameters but a token uses 10.00 G of them (25.0%): the "
        "memory ledger pays for x4.0 the weights the speed ledger computes with.",
        # bf16: 80 GB; 30 G experts split over 2 GPUs and 10 G whole: 50 GB, under the 80 GB
        "At bf16 its weights take 80.00 GB, 50.00 GB on each of 2 GPUs (the routed experts "
        "split, the rest whole): they fit in the Hop's 80.00 GB.",
    ]
    over = observed(page.sizes_section(setup(), [count(per_gpu=80.01e9)]))[1]  # over 80 GB
    assert "80.01 GB on each of 2 GPUs (the routed experts split, the rest whole): they do not" \
        in over  # fmt: skip
    assert "within 1.00% of the mixture's active count" in said[2]  # 10.1 / 10 - 1
    one = page.sizes_section(setup(ep=1), [count(twin=10.1e9)])  # 80 GB on one 80 GB GPU: fits
    assert "weights take 80.00 GB on one GPU: they fit in" in observed(one)[1]
    big = count(total=40_000_000_001, active=1, twin=1, per_gpu=80_000_000_002)
    assert "they do not fit in" in observed(page.sizes_section(setup(ep=1), [big]))[1]
    # twin 10,000,400,000 / active 10 G - 1 = 0.004%: round(0.00004, 4) = 0, nothing to print
    near = count(twin=10_000_400_000)
    assert "less than 0.01% away from" in observed(page.sizes_section(setup(), [near]))[2]
    bare = replace(MIXTRAL_8X7B, published_params=None, published_active=None)
    row = rows(page.sizes_section(replace(setup(), model=bare), [count(m=bare)]))[1]
    assert (row[3], row[5]) == ("-", "-")  # the two published columns
    assert "Storage bf16; chip Hop." in prose(page.sizes_section(setup(), [count()]))


def test_routing_by_hand() -> None:
    reach = [
        page.Reach(batch=1, uniform=2.0, skewed=2.0),
        page.Reach(batch=8, uniform=8 * (1 - 0.75**8), skewed=6.2),  # 7.2
        page.Reach(batch=64, uniform=8 * (1 - 0.75**64), skewed=8.0),  # 8.0 to the digit
    ]
    group = page.routing_section(setup(), reach, 1e9, 1.0)
    # 7.2 of 8 = 90.0%, 7.2 GB at 1 GB an expert
    assert rows(group)[2] == ["8", "7.2", "90.0%", "7.20 GB", "6.2", "6.20 GB"]
    said = observed(group)
    assert said[0].endswith(
        "2.0 at batch 1. By batch 64 uniform routing reaches every expert (100.0% to the digit "
        "shown): from there a step reads the whole mixture, as a dense model would."
    )
    assert "reaches fewer experts at 1 of the 3 batches listed" in said[1]
    short = page.routing_section(setup(), reach[:2], 1e9, 1.0)
    assert "Even at batch 8 uniform routing reaches 90.0% of the experts, not all." in prose(short)
    # the last batch, not the second: 7.6 of 8 = 95.0% at batch 16
    most = [*reach[:2], page.Reach(batch=16, uniform=7.6, skewed=7.0)]
    assert "Even at batch 16 uniform routing reaches 95.0%" in prose(
        page.routing_section(setup(), most, 1e9, 1.0)
    )


def test_step_by_hand() -> None:
    group = page.step_section(setup(), STEPS, (400, 100))
    # 64 / 0.1 s = 640 tokens/s; 64 / 0.04 s = 1,600
    assert rows(group)[1] == ["64", "90.00 GB", "100 ms", "640", "30.00 GB", "40.0 ms", "1,600"]
    said = observed(group)
    assert said[0].startswith(
        "At batch 64 the mixture reads 90.00 GB of weights a step against the twin's 30.00 GB "
        "(x3.00): about the same FLOPs per token, more bytes,"
    )
    # 400 / 100 = x4.0 = E/k: no second reason
    assert said[1] == (
        "The routed experts' matmuls reach the ridge of 100 FLOP/B at batch 400, the twin's "
        "MLP at 100: x4.0 the tokens (E/k = 4), because each expert meets only k/E of the batch."
    )
    past = observed(page.step_section(setup(), STEPS, (500, 100)))[1]
    assert "x5.0 the tokens (E/k = 4)" in past and "narrower than the twin's" in past
    twin = observed(page.step_section(setup(), STEPS, (None, 9)))[1]
    assert twin == "At the ridge of 100 FLOP/B only the twin's MLP reaches it, at batch 9."
    wide = replace(setup(), ridge=1234.4)  # a thousand and more: with its comma
    moe = observed(page.step_section(wide, STEPS, (1500, None)))[1]
    assert moe.endswith("1,234 FLOP/B only the routed experts' matmuls reach it, at batch 1,500.")
    # the mixture against the twin: 2 GB is more than 1 GB, 1 GB fewer than 2 GB; 1 GB and
    # 1 GB + 1 KB print the same (fmt_gb keeps two decimals), so they are as many
    for moe, twin, bytes_ in ((2e9, 1e9, "more"), (1e9, 2e9, "fewer"), (1e9, 1e9 + 1e3, "as many")):
        said = observed(page.step_section(setup(batch=1), steps(1, moe, twin), (400, 100)))[0]
        assert f"about the same FLOPs per token, {bytes_} bytes" in said
    # at batch 1 the mixture reads 31 GB against the twin's 30 GB: the router's weights
    one = steps(1, 31e9, 30e9, (0.03, 0.03))
    said = observed(page.step_section(setup(batch=1), one, (400, 100)))[0]
    assert "more bytes: the router's weights" in said and "spread over" not in said
    # 401 / 100 = x4.01, printed x4.0 like E/k: no second reason for a gap nobody sees
    near = observed(page.step_section(setup(), STEPS, (401, 100)))[1]
    assert "x4.0 the tokens (E/k = 4)" in near and "narrower" not in near
    never = observed(page.step_section(setup(), STEPS, (None, None)))[1]
    assert never == "At the ridge of 100 FLOP/B neither reaches it at any batch."
    table = rows(page.summary(setup(), count(), (400, None), STEP, 0.01))
    assert ["critical batch, experts / twin MLP", "400 / none"] in table
    # DeepSeek-V3 at --batch 1 on B300 said '73.25 GB ... against the twin's 73.04 GB (x1.00): about
    # the same FLOPs per token, more bytes'.
    said = observed(page.step_section(setup(batch=1), steps(1, 73.25e9, 73.04e9), (400, 100)))[0]
    # 73.25 / 73.04 = 1.00288: three digits show what 'more bytes' says
    assert "against the twin's 73.04 GB (x1.003): about the same FLOPs per token, more" in said
    same = steps(1, 73.041e9, 73.04e9)
    said = observed(page.step_section(setup(batch=1), same, (400, 100)))[0]
    assert "(x1.00): about the same FLOPs per token, as many bytes." in said
    # 2000.01 GB against 2000.00 GB is more, x1.000003: the digits stop at five, x1.00000
    said = observed(page.step_section(setup(batch=1), steps(1, 2e12 + 6e6, 2e12), (400, 100)))[0]
    assert "twin's 2,000.00 GB (x1.00000): about the same FLOPs per token, more bytes" in said


def test_exchange_and_deepep_by_hand() -> None:
    group = page.ep_section(setup(), [exchange(2, 1e-5, 1e-3), exchange(4, 1e-4)], 1e11, 5e10)
    said, table = observed(group), rows(group)
    assert "64 tokens a step" in group.items[0].title
    assert "to the 2 experts it chose: 4.10 KB out" in said[0]  # Mixtral: 2 of 8; 4,096 B
    # the setup's EP (2) is starred; 4,096 B = 4.10 KB and 8,192 B = 8.19 KB; 1e-4 s = 100 µs
    assert table[1][0] == "2 *"
    assert table[2] == ["4", "50.0%", "0.0%", "4.10 KB", "8.19 KB", "100 µs", "100 µs", "100 µs"]
    # EP 2: 20 µs against 1 ms (x0.02); EP 4: 200 µs > 100 µs
    assert said[1] == (
        "At EP 2 dispatch and combine take 20.0 µs a layer against the layer's own bound of "
        "1.00 ms per GPU (x0.02); the exchange outlasts the layer at 1 of the 2 EP sizes "
        "listed (4): there, unless it overlaps with compute, it sets the step."
    )
    quiet = observed(page.ep_section(setup(), [exchange(2, 1e-5, 1e-3)], 1e11, 5e10))[1]
    assert "at none of the 1 EP size listed: the layer's own bound is longer" in quiet
    group = page.deepep_section(CHECKS, 128)
    assert rows(group)[2] == ["combine, EP 8", "110 µs", "100 µs", "+10%", "validation"]
    # |+10%| and |-25%|: mean 17.5% prints 18%, worst -25%
    said = observed(group)[0]
    assert "the other 2 only check it: mean |error| 18%, worst -25% (combine, EP 16)." in said
    # dispatch + combine = 2 x 2^-11 s = 2^-10 s, the layer's bound exactly: not longer
    said = observed(page.ep_section(setup(), [exchange(2, 2**-11, 2**-10)], 1e11, 5e10))[1]
    assert "at none of the 1 EP size listed" in said
    roles = [r[4] for r in rows(page.deepep_section(CHECKS[:2], 128))[1:]]
    assert roles == ["calibration", "validation"]
    skews = [page.Skew(exponent=1.0, expert_factor=3.0, gpu_factor=1.0, cost=0.0)]
    assert len(observed(page.imbalance_section(setup(ep=1), skews, 0.04))) == 1  # no waiting
    # A drawn mixture whose expert count no power of two divides, at --ep 3, printed 'the exchange
    # outlasts the layer at the one EP sizes listed (3)'.
    one = replace(exchange(3, 5e-3, 2.4e-4, node=2 / 3), combine=9e-3)
    said = observed(page.ep_section(setup(ep=3), [one], 1e11, 5e10))[1]
    # 14 ms against 240 µs: x58.33
    assert said.endswith(
        "(x58.33); the exchange outlasts the layer at the one EP size listed (3): there, "
        "unless it overlaps with compute, it sets the step."
    )


def kernel(n: int, reached: float, f_us: float, m_us: float, m=MIXTRAL_8X7B) -> page.Kernel:
    return page.Kernel(model=m, gpus=2, precision="bf16", tokens=n, reached=reached,
                       forecast=f_us * 1e-6, measured=m_us * 1e-6)  # fmt: skip


def test_kernel_check_by_hand() -> None:
    # errors: -10%, +20%, 0%, 110 / 120 - 1 = -8%, 120 / 130 - 1 = -8%: 4 of 5 within 10%
    five = [kernel(1, 2.0, 90, 100), kernel(8, 7.2, 120, 100), kernel(16, 7.94, 100, 100),
            kernel(32, 8.0, 110, 120), kernel(64, 8.0, 120, 130)]  # fmt: skip
    group = page.kernel_section(five)
    assert rows(group)[1] == ["Mixtral-8x7B (bf16, TP 2)", "1", "2.0 of 8", "90.0 µs", "100.0 µs",
                              "-10%"]  # fmt: skip
    # 7.94 >= 0.99 x 8: every expert from 16 tokens; 120 us <= 1.25 x 100 us, 130 us is not
    assert observed(group) == [
        "Mixtral-8x7B (bf16, TP 2): the forecast is within 10% of the measured kernel at 4 of "
        "the 5 batches; its error runs from -10% (1 token) to +20% (8 tokens). From 16 tokens, "
        "where uniform routing reaches 7.9 of its 8 experts, the measured kernel takes at most "
        "x1.25 its time there up to 32 tokens (x1.20); over the same tokens the forecast grows "
        "x1.10."]  # fmt: skip
    steep = observed(page.kernel_section([*five[:3], kernel(32, 8.0, 110, 126)]))[0]
    assert steep.endswith("the measured kernel exceeds x1.25 its time there at the next batch.")
    for f_us, said in ((100, "does not change."), (50, "shrinks to 1/2.00.")):  # from 100 us
        end = observed(page.kernel_section([*five[:3], kernel(32, 8.0, f_us, 120)]))[0]
        assert end.endswith(f"(x1.20); over the same tokens the forecast {said}")
    two = page.kernel_section([*five[:2], kernel(4, 20.0, 50, 50, MOE_MODELS["qwen3-30b-a3b"])])
    said = observed(two)  # no batch reaches all of a model's experts: no plateau to name
    assert len(said) == 2 and said[1].startswith("Qwen3-30B-A3B (bf16, TP 2): the forecast is ")
    assert "uniform routing" not in " ".join(said)
    assert said[1].endswith("at the one batch; its error is +0% (4 tokens).")
    same = observed(page.kernel_section([kernel(1, 2.0, 100, 100), kernel(2, 3.5, 90, 90)]))[0]
    assert same.endswith("at all 2 batches; its error is +0% at each.")


def test_imbalance_and_summary_by_hand() -> None:
    skews = [page.Skew(exponent=0.0, expert_factor=1.0, gpu_factor=1.0, cost=0.0),
             page.Skew(exponent=1.0, expert_factor=3.0, gpu_factor=1.5, cost=0.01)]  # fmt: skip
    group = page.imbalance_section(setup(), skews, 0.04)
    said = observed(group)
    assert said[0] == (
        "At skew 1 the busiest expert gets x3.00 its fair share of tokens; dealing experts "
        "round-robin over 2 GPUs brings the busiest GPU's load to x1.50 the fair share."
    )
    assert said[1].startswith("Every GPU waits for the busiest one: 10.0 ms more a step, 25.0%")
    # 10 ms of a 40 ms step: 25.0%; the step of 0.04 s per GPU at the setup's batch 64
    assert rows(group)[2] == ["1", "x3.00", "x1.50", "10.0 ms", "25.0%"]
    assert "40.0 ms per GPU" in prose(group) and "batch 64" in prose(group)
    one = observed(page.imbalance_section(setup(ep=1), skews, 0.04))[0]
    assert "on one GPU every expert shares the same GPU" in one
    table = rows(page.summary(setup(), count(), (400, 100), STEP, 0.01))
    # 64 / (0.1 + 2 x 0.01) = 533 tokens/s per GPU
    assert ["tokens/s per GPU <=", "533 (with dispatch and combine)"] in table
    assert ["weights per GPU at EP", "40.00 GB (EP 2)"] in table
    # 0.1 s over 2 GPUs, then the exchange
    assert [
        "decode step >= per GPU, EP 2",
        "50.0 ms + 10.0 ms dispatch and combine (batch 64)",
    ] in table
    group = page.summary(setup(), count(), (400, 100), STEP, None)
    # 64 tokens / 0.1 s = 640 tokens/s per GPU, nothing added for the exchange
    assert ["tokens/s per GPU <=", "640 (without dispatch and combine)"] in rows(group)
    # 0.1 s over 2 GPUs, nothing after it
    step = ["decode step >= per GPU, EP 2", "50.0 ms (batch 64; dispatch and combine left out)"]
    assert step in rows(group)
    # EP 1: every expert on one GPU, no exchange at all (not "+ 0.00 ns dispatch and combine")
    alone = rows(page.summary(setup(ep=1), count(), (400, 100), STEP, 0.0))
    assert [
        "decode step >= per GPU, EP 1",
        "100 ms (batch 64; at EP 1 no dispatch or combine)",
    ] in alone
    assert ["tokens/s per GPU <=", "640"] in alone  # 64 tokens / 0.1 s
    heading = group.items[0]
    assert heading.title == "Summary" and heading.page == ""  # the page's own heading says it


NUM = r"([\d,]+(?:\.\d+)?)"


def number(text: str) -> float:
    return float(text.replace(",", ""))


def check_claims(text: str) -> None:
    """Every claim of a printed run agrees with the numbers it quotes."""
    flat = " ".join(text.split())
    assert not contradictions(text), contradictions(text)
    for wrong in (r"\bNone\b(?! of)", r"\bx0\.0\b", r"\bnan\b", r"\binf\b"):
        assert not re.search(wrong, flat), wrong
    fit = re.search(
        rf"{NUM} GB (?:on one GPU|on each of \d+ GPUs \(.+?\)): they (do not )?fit in the .+?'s "
        rf"{NUM} GB",
        flat,
    )
    assert fit, flat[:400]
    assert (number(fit[1]) <= number(fit[3])) == (fit[2] is None)
    knee = re.search(rf"at batch {NUM}, the twin's MLP at {NUM}: x{NUM} the tokens", flat)
    if knee:
        assert f"{number(knee[1]) / number(knee[2]):.1f}" == knee[3]
    sizes = r"(none of the \d+|\d+ of the \d+|all \d+|the one) EP sizes?"
    out = re.search(rf"outlasts the layer at {sizes}", flat)
    if "Left out: dispatch and combine, with no link figure" in flat:  # section 5 sits out
        assert out is None and "(without dispatch and combine)" in flat
        return
    assert out and out[1].startswith("none") == ("there, unless it overlaps" not in flat)


@settings(max_examples=25, deadline=None)
@given(moe_runs())
def test_any_table_mixture_and_flags(run: tuple) -> None:
    table, model, argv = run
    with patched_hardware(table), patched_models(model, table=MOE_MODELS):
        text = run_lecture("13", *argv)
    check_claims(text)


def test_a_chip_without_a_link_leaves_out_the_exchange_only() -> None:
    """Issue 34: the H100 without a link figure once stopped lecture 13 at its flags."""
    table = dict(SHIPPED, h100=unlinked(SHIPPED["h100"]))
    with patched_hardware(table):
        text = run_lecture("13")
    assert "Left out: dispatch and combine, with no link figure for the H100 SXM" in text
    assert "dispatch B/token" not in text  # section 5's table needs the link
    assert "EP 128" in text and "busiest expert" in text  # DeepEP's check (H800) and skew stay
    summary = text.split("\nSummary")[-1]
    assert "dispatch and combine left out" in summary
    assert "(without dispatch and combine)" in summary
    check_claims(text)


def test_the_figure_caption_by_hand(tmp_path: Path) -> None:
    pair = STEPS[0]
    path = str(tmp_path / "moe.png")
    # 64 / 0.1 = 640 tokens/s against the twin's 64 / 0.04 = 1,600: the twin serves x2.50
    cap = page.moe_png(path, setup(), (400, 100), pair).caption
    assert "Mixtral-8x7B" in cap and "x2.50" in cap and "(batch 400)" in cap
    assert "EP 2" in cap  # the dashed line's EP
    alone = page.moe_png(path, setup(), (400, 100), pair, linked=False).caption
    assert "context 512" in cap and "at batch 64 the twin" in cap
    assert "on the Hop" in cap and "EP 2" not in alone and alone.endswith("(batch 400).")
    never = page.moe_png(path, setup(), (None, 100), pair).caption
    inside = Path(__file__).resolve().parents[2] / "figs" / "moe.png"
    assert page.moe_png(str(inside), setup(), (400, 100), pair).shown_path == "figs/moe.png"
    assert "compute-bound (at no batch the figure shows)" in never  # no knee: none named


# --- Lecture 13 as a student runs it: tables and flags worked by hand and by brute force from
# the published configs and DeepEP's conditions.
D, K, E, F = 7168, 8, 256, 2048  # DeepSeek-V3: hidden_size, top-8 of 256, moe_intermediate


@pytest.fixture(scope="module")
def lecture13() -> str:
    return run_lecture("13")


def section(out: str, number: str) -> str:
    """The printed text of section `number` up to the next section's heading."""
    start = out.index(f"\n{number}. ")
    nxt = re.search(r"\n(\d\. |Summary\n)", out[start + 3 :])
    return out[start : start + 3 + nxt.start()] if nxt else out[start:]


def row(text: str, first: str) -> list[str]:
    """The cells (split on two or more spaces) of the table row that starts with `first`."""
    line = next(ln for ln in text.splitlines() if ln.strip().startswith(first))
    return re.split(r"\s{2,}", line.strip())


def test_prints_every_section(lecture13: str) -> None:
    headings = ("1. DeepSeek-V3: total against active parameters", "2. What a decode step reads",
                "3. A decode step on H100 SXM (bf16), context 4,096",
                "4. The routed experts against vLLM's fused MoE kernel (H100)",
                "5. Expert parallelism: dispatch and combine, 1,024 tokens a step",
                "6. Checked against DeepEP's published latencies", "7. Load imbalance at EP 8",
                "Summary")  # fmt: skip
    assert_sections(lecture13, "13_moe_throughput.png", headings, 7, exact=True)


def test_counts_and_expected_experts_by_hand(lecture13: str) -> None:
    published = {"Mixtral-8x7B": (46.7e9, 12.9e9), "Qwen3-30B-A3B": (30.5e9, 3.3e9)}
    published["DeepSeek-V3"] = (671e9, 37e9)
    for name, (total, active) in published.items():
        cells = row(section(lecture13, "1"), name)
        got_total, got_active = (float(cells[i].rstrip(" G")) * 1e9 for i in (2, 4))
        assert got_total == pytest.approx(total, rel=0.002)
        assert got_active == pytest.approx(active, rel=0.02)  # 37.55 G against '37B'
    text = section(lecture13, "2")
    # batch 8: 256 (1 - (248/256)^8) = 57.4; batch 1: k = 8
    assert row(text, "8 ")[1] == f"{E * (1 - (1 - K / E) ** 8):.1f}" == "57.4"
    assert row(text, "1 ")[1] == "8.0"
    # a brute-force count of the skewed shares is not needed: skew never reaches more
    for batch in ("8 ", "64 ", "512 "):
        cells = row(text, batch)
        assert float(cells[4]) <= float(cells[1])


def test_critical_batches_by_brute_force(lecture13: str) -> None:
    ridge = SHIPPED["h100"].peak_flops("bf16") / SHIPPED["h100"].mem_bw

    def dense(b: int) -> float:  # X[b, d] W[d, 18432] in bf16
        n = 8 * F + F
        return 2 * b * D * n / (2 * (b * D + D * n + b * n))

    def experts(b: int) -> float:  # each of the touched experts' d x f weights once
        touched = E * (1 - (1 - K / E) ** b)
        return 2 * b * K * D * F / (2 * touched * D * F + 2 * b * K * (D + F))

    twin = next(b for b in range(1, 10**6) if dense(b) >= ridge)
    moe = next(b for b in range(1, 10**6) if experts(b) >= ridge)
    assert summary_value(lecture13, "critical batch, experts / twin MLP") == f"{moe:,} / {twin:,}"
    assert 25 < moe / twin < 45  # about E / k = 32 times the dense batch


def test_routed_experts_against_vllms_kernel_by_hand(lecture13: str) -> None:
    text = section(lecture13, "4")
    t0, beta = (t.value for t in CHIP_TERMS["h100"].gemv)  # vidur's one-row line, H100
    floor = sum(t.value for t in CHIP_TERMS["h100"].small_kernels) / 4
    # Mixtral, 1 token: its 2 experts' gate, up and down (4,096 x 14,336 bf16 each, half on
    # each of 2 GPUs, with the token's 2 rows in and out) on the line; the top-k, SiLU x up and
    # the weighted sum at the floor
    d = (2 * 4096 * 14336 * 2 + 2 * (4096 + 14336) * 2) / 2
    us = 1e6 * (3 * (t0 + d / beta) + 3 * floor)
    cells = row(text, "Mixtral-8x7B (bf16, TP 2)")  # its first row, 1 token
    assert cells[1:3] == ["1", "2.0 of 8"]
    assert float(cells[3].split()[0]) == pytest.approx(us, abs=0.5)
    assert cells[4] == "144.0 µs"  # vLLM's PR #24700: 144.03 us at batch 1
    last = [ln for ln in text.splitlines() if ln.startswith("Qwen3-30B-A3B (fp8, TP 1)   4,096")]
    assert last and "128.0 of 128" in last[0] and "1,647.6 µs" in last[0]  # 1,647.57 us
    assert text.count("pull request #24700") == 2 and "none of them informs a term" in text


def test_dispatch_combine_and_deepep_by_hand(lecture13: str) -> None:
    cells = row(section(lecture13, "5"), "8 *")
    # 8 experts x 7/8 remote x 7168 x (1 + 4/128) bytes = 51,744; BF16 back: 100,352
    assert cells[3] == "51.74 KB" and cells[4] == "100.35 KB"
    # nodes of 8: at EP 8 every remote copy stays in the node; at EP 16 half go lecture13
    assert cells[1:3] == ["87.5%", "0.0%"]
    assert row(section(lecture13, "5"), "16 ")[1:3] == ["43.8%", "50.0%"]
    tpu = section(run_lecture("13", "--model", "qwen3-30b-a3b", "--chip", "tpu-v5e"), "5")
    assert row(tpu, "16 ")[1:3] == ["93.8%", "0.0%"] and "(no node drawn)" in tpu  # one ICI slice
    text = section(lecture13, "6")
    # DeepEP README, low-latency kernels: EP 8 dispatch 77 us (calibrates), EP 256 combine 360
    assert row(text, "dispatch, EP 8")[1:] == ["77.0 µs", "77.0 µs", "+0%", "calibration"]
    assert row(text, "combine, EP 256")[2] == "360 µs"
    assert text.count("validation") == 11 and text.count("calibration") == 2  # row + prose
    assert "Source: deepseek-ai/DeepEP README.md (commit 0aaa674" in text


def test_other_models_flags_and_batch_one() -> None:
    out = run_lecture("13", "--model", "mixtral-8x7b", "--ep", "4", "--batch", "16")
    assert "1. Mixtral-8x7B: total against active parameters" in out
    assert summary_value(out, "weights per GPU at EP").endswith("(EP 4)")
    # Mixtral: 2 of 8 experts; one token reads k = 2 of them
    assert row(section(out, "2"), "1 ")[1:3] == ["2.0", "25.0%"]
    out = run_lecture("13", "--model", "qwen3-30b-a3b", "--chip", "h200", "--precision", "fp8")
    assert summary_value(out, "model / chip") == "Qwen3-30B-A3B on H200, fp8"
    # At batch 1 a token reaches exactly its k experts, as the twin's one MLP: the extra
    # bytes DeepSeek-V3 reads are its routers', 58 MoE layers x 7,168 x 256 x 2 B = 0.21 GB
    # (73.25 - 73.04 GB), not tokens spreading over more experts.
    out = " ".join(run_lecture("13", "--model", "deepseek-v3", "--batch", "1").split())
    assert "more bytes: the router's weights, which the twin does not have." in out
    assert "spread over more experts" not in out and "dispatch and combine, 1 token a step" in out
    # Mixtral's router, 32 x 4,096 x 8 x 2 B = 2 MB, vanishes at the digits of 25.50 GB
    out = " ".join(run_lecture("13", "--model", "mixtral-8x7b", "--batch", "1").split())
    assert "as many bytes." in out
