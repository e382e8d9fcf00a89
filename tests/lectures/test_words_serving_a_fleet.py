"""Lecture 14's words: sentences worked by hand from round numbers (fmt_time prints three
figures), and claims that hold on any hardware table and flags (hypothesis)."""

from __future__ import annotations

import dataclasses
import re

import pytest
from conftest import assert_sections
from hypothesis import given, settings
from hypothesis import strategies as st
from present.fake_chips import chip, observed, prose, rows
from strategies import SHIPPED, hardware_tables, patched_hardware, run_lecture, scale_chip
from test_words_llm_speed import check_claims

from common.tables.measurements import DEEPSEEK_FLEET
from common.tables.models import LLAMA_3_8B, MODELS, get_model
from lectures.words import serving_a_fleet as page

H = chip("Hop", 100e12, 1e12)  # ridge 100 FLOP/B


def setup(batch: int = 64) -> page.Setup:
    m = dataclasses.replace(LLAMA_3_8B, name="M")
    return page.Setup(m, H, 1, 2.0, 2048, 512, batch, 2048, 2304, 100.0)


STEPS = [page.Step(0, 0.010, 30.0), page.Step(64, 0.0105, 50.0), page.Step(1984, 0.040, 500.0)]


def test_chunking_by_hand() -> None:
    group = page.chunking_section(
        setup(), STEPS, page.Chunked(chunk=1984, steps=2, seconds=0.050, longest=0.040, alone=0.030)
    )
    # 64 / 10.5 ms = 6,095 prefill and decode tokens/s; 1,984 / 40 ms = 49,600
    assert rows(group)[2] == ["64", "64", "10.5 ms", "6,095", "6,095", "50"]
    assert rows(group)[3] == ["1,984", "64", "40.0 ms", "49,600", "1,600", "500"]
    assert rows(group)[0][-1] == "FLOP/byte"
    said = observed(group)
    # 10.5 / 10 = x1.05; 40 / 10 = x4.00
    assert said[0] == (
        "A chunk of 64 prompt tokens beside the 64 decode tokens: the step grows from 10.0 ms "
        "to 10.5 ms (x1.05 slower); filling the budget with 1,984, it grows from 10.0 ms to "
        "40.0 ms (x4.00 slower). Every decoding sequence waits for the whole step: that is its "
        "time per output token."
    )
    # 30 / 100 = 0.3 of the ridge; 500 / 100 = 5; (40 - 10) ms / 1,984 = 15.1 µs a prompt
    # token against 30 ms / 2,048 = 14.6 µs alone: 15.12 / 14.65 = x1.03 as much
    assert said[1] == (
        "The decode-only step runs at 30 FLOP/byte, in the memory-bound regime (ridge 100); "
        "the full step at 500, in the compute-bound regime. Mixed in, a prompt token adds "
        "15.1 µs to the step, x1.03 as much GPU time as the 14.6 µs it takes in a prompt pass "
        "of its own."
    )
    # 30 + 10 ms stall; a full chunk of 40 ms and the last 64 tokens' 10 ms: 50 ms
    assert said[2] == (
        "Unchunked, the 2,048-token prompt is one pass of 30.0 ms, and the decoding sequences "
        "wait 40.0 ms for one token. In chunks of up to 1,984 it takes 2 steps, a time to "
        "first token of at least 50.0 ms, and no decode token waits more than 40.0 ms."
    )
    assert page.chunk_sizes(256) == [0, 64, 128, 256]  # the room itself once, not twice
    assert page.chunk_sizes(300) == [0, 64, 128, 256, 300]
    # a request of p + o tokens holds at most p + o - 1 in its cache: 100 + 50 - 1 = 149
    assert (100, 50) in page.request_shapes(100, 50, 149)
    assert (100, 50) not in page.request_shapes(100, 50, 148)
    chunked = page.Chunked(chunk=64, steps=32, seconds=0.35, longest=0.0105, alone=0.030)
    group = page.chunking_section(setup(), STEPS[:2], chunked)
    assert "filling the budget" not in observed(group)[0]  # the one chunk is the full one
    drafts = [page.Draft(1, 1.0, (1.6, 1.8, 1.9), (1.55, 1.75, 1.84))]
    spec = page.speculation_section(setup(), drafts)
    assert "batch 64" in spec.items[0].title and "c = 1/32" in spec.items[0].title  # 32 layers
    # Seen at --prompt 1 --output 1 --batch 1 --budget 2: 'the step grows from 4.48 ms to
    # 4.49 ms (no slower)', a change said and denied in one breath.
    steps = [page.Step(0, 0.00448, 1.0), page.Step(1, 0.00449, 2.0)]
    chunked = page.Chunked(chunk=1, steps=1, seconds=0.00449, longest=0.00449, alone=0.00448)
    said = observed(page.chunking_section(setup(), steps, chunked))
    # 4.49 / 4.48 = 1.00223: three digits show the change the two times show
    assert "the step grows from 4.48 ms to 4.49 ms (x1.002 slower)." in said[0]
    # 1.0149 / 1.0051 = 1.0098 would print x1.01, but both steps print 1.01 ms
    steps = [page.Step(0, 0.0010051, 1.0), page.Step(1, 0.0010149, 2.0)]
    said = observed(page.chunking_section(setup(), steps, chunked))
    assert "the step stays at 1.01 ms (no slower)." in said[0]


def mtp(**changes: object) -> list[str]:
    base = page.MTP(88, 1 / 61, 1.0, 0.83, 0.8, 2 / (1 + 1 / 61), (0.85, 0.90), 1.8)
    return page.mtp_observations(dataclasses.replace(base, **changes)).items


def test_mtp_by_hand() -> None:
    said = mtp()
    # (1 + a) / 1 = 1.8: a = 80.0%, 7.5 points under the middle of 85% and 90%
    implied = "implies a = 80.0%, below the published range (against its middle, 87.5%: -7.5%)"
    assert implied in said[0] and said[0].startswith("DeepSeek-V3's technical report gives x1.8")
    # one sentence, one main verb for each branch ('..., it implies' was a comma splice)
    assert said[1] == (
        "Once the module costs c = 0.0164 and the verify pass what the ledger gives at 88 "
        "sequences a GPU (1.000 decode steps), x1.8 implies a = 83.0%, below the published range "
        "(against its middle: -4.5%)."
    )
    inside = mtp(implied=0.87)[1]
    assert "a = 87.0%, inside the published range (against its middle: -0.5%)" in inside
    assert "a = 91.0%, above" in mtp(implied=0.91)[1]
    assert "a = 90.0%, inside" in mtp(implied=0.9)[1]  # the range's top end is inside it
    # a = 1 at c = 1/61, v = 1: 2 / 1.0164 = x1.97
    assert "even a = 1 gives only x1.97, short of the published x1.8" in mtp(implied=None)[1]
    assert "speed-up" in mtp()[-1]  # the last line names the figure the model is built from
    dense = cost("D", 0, ((1, 2.0), (64, 0.1)))
    assert "$2 per GPU-hour on Hop" in page.cost_section(setup(), [dense, dense]).items[0].title


def test_fleet_by_hand() -> None:
    check = page.FleetCheck(
        dataclasses.replace(DEEPSEEK_FLEET, nodes_average=200.0),
        prefill_hours=608e9 / 73.7e3 / 3600,  # 2,291.6
        decode_hours=168e9 / 14.8e3 / 3600,  # 3,153.2
        input_usd=0.0603, output_usd=0.3003, hit_share=0.563,
    )  # fmt: skip
    group = page.fleet_section(check)
    # 5,444.7 node-hours needed against 200 x 24 = 4,800 had: +13.43%
    assert rows(group)[1][:4] == ["node-hours", "5,445", "4,800", "+13.43%"]
    labels = ["node-hours", "daily cost", "revenue at R1 prices", "cache-hit share", "cost margin"]
    assert [r[0] for r in rows(group)[1:]] == labels
    said = observed(group)
    assert said[0].startswith(
        "Prefill takes 2,292 node-hours and decode 3,153: 5,445 together against the 4,800"
    )
    assert "The budget closes within 13.43%" in said[0]  # the larger of the two errors
    # 0.3003 / 0.0603 = x4.98
    assert "an output token costs x4.98 as much to serve as an input token." in said[1]
    check = page.FleetCheck(DEEPSEEK_FLEET, 2000.0, 3000.0, 0.06, 0.3, hit_share=0.563)
    group = page.fleet_section(check)
    share = next(r for r in rows(group) if r[0] == "cache-hit share")
    assert share[1:3] == ["56.25%", "56.3%"]  # 342 G of 608 G cached = 0.5625; the rate's 0.563
    note = " ".join(str(i) for i in group.items)
    assert "Built from (calibration): 608B input and 168B output tokens" in note
    assert "73.7k and 14.8k tokens/s per node" in note  # 73,700 and 14,800 tokens/s
    # 14,800 tokens/s a node at about (20 + 22) / 2 = 21 tokens/s a request: 705 sequences
    assert "about 705 sequences decode at once on a node, 88 a GPU" in observed(group)[2]
    margin = next(r for r in rows(group) if r[0] == "cost margin")
    # cost: 5,000 node-hours x 8 GPUs x $2 = $80,000; revenue: (342 G x 0.14 + 266 G x 0.55
    # + 168 G x 2.19) / 1e6 = $562,100; margin 562,100 / 80,000 - 1 = 6.03
    assert margin[1:3] == ["603%", "545%"]


def cost(name: str, experts: int, curve: tuple[tuple[int, float], ...]) -> page.Cost:
    m = dataclasses.replace(LLAMA_3_8B, name=name, n_experts=experts,
                            experts_per_token=min(2, experts),
                            d_ff_expert=1024 * bool(experts))  # fmt: skip
    return page.Cost(m, 1, curve[-1][0], 2304, 0.01, curve)


DENSE = cost("D", 0, ((1, 2.0), (4, 0.6), (16, 0.2), (64, 0.1)))
MOE = cost("E", 8, ((1, 1.0), (4, 0.7), (16, 0.5)))


def test_cost_crossing_by_hand() -> None:
    assert page.crossing(DENSE, MOE) == 4  # dense dearer at 1, cheaper from 4 on
    assert page.crossing(DENSE, cost("E", 8, ((1, 3.0), (16, 0.5)))) is None
    cap = page.cost_png("t.png", setup(), [DENSE, MOE]).caption
    assert "Look at batch 4, where the cheaper model changes" in cap
    a = cost("A", 0, ((1, 1.0), (4, 1.0)))
    b = cost("B", 0, ((1, 2.0), (4, 1.0)))
    assert page.crossing(a, b) == 4  # A cheaper at 1; at 4 the same price: no longer cheaper
    # E dearer at every batch: no crossing, so the caption names none
    dearer = cost("E", 8, ((1, 3.0), (16, 0.5)))
    assert "Look at batch" not in page.cost_png("t.png", setup(), [DENSE, dearer]).caption
    cap = page.cost_png("t.png", setup(), [cost("D", 0, ((1, 2.0), (64, 0.1)))]).caption
    assert "at $2 per GPU-hour" in cap and "for D (dense, 1 GPU)" in cap


CHECKS = {"in": str.__contains__, "not in": lambda got, want: want not in got,
          "==": str.__eq__, "starts": str.startswith, "ends": str.endswith}  # fmt: skip
D2, E2 = cost("D", 0, ((1, 2.0), (2, 0.5), (4, 0.4))), cost("E", 8, ((1, 1.0), (2, 1.5), (4, 0.9)))
D4, E4 = cost("D", 0, ((1, 1.0), (4, 0.4))), cost("E", 8, ((1, 2.0), (4, 0.9)))
# --price 1e-9 printed 'Llama-3-8B costs $0.000 per million output tokens and Qwen3-30B-A3B
# $0.000: Qwen3-30B-A3B is cheaper'; 2.4901 and 2.4949 both print $2.49: no cheaper model
TINY = [cost("D", 0, ((1, 1.27e-9), (16, 5.14e-11))), cost("E", 8, ((1, 5.24e-10), (16, 1.15e-10)))]
TIE1 = [cost("D", 0, ((1, 2.4949), (2, 1.0), (16, 0.1))), cost("E", 8, ((1, 2.4901), (16, 0.5)))]
TIE16 = [cost("D", 0, ((1, 2.0), (16, 0.1))), cost("E", 8, ((1, 3.0), (16, 0.1004)))]


@pytest.mark.parametrize(("batch", "costs", "index", "check", "want"), [
    (64, [DENSE, MOE], 0, "in", "E is cheaper. A step for one token reads all"),
    # both fit up to batch 16: 0.2 against 0.5
    (64, [DENSE, MOE], 1, "==",
     "At batch 16, the largest both hold up to 64, the prices are $0.200 and $0.500: the "
     "order flips and D is cheaper. A mixture's batch touches more of its experts the larger "
     "it grows, while a dense model reads the same weights at any batch."),
    # both hold batch 16, but the flags ask for 8, which neither curve has: no price at 8
    # is printed (the lecture prices the batches its section names)
    (8, [DENSE, MOE], None, "not in", "At batch 8"),
    # batch 1: E at $1.00 under D's $2.00; batch 2: D at $0.500 under E's $1.500
    (2, [D2, E2], 0, "in", "and E $1.00: E is cheaper"),
    (2, [D2, E2], 1, "in", "the order flips and D is cheaper"),
    # a wall at batch 1 still has a price there
    (2, [D2, cost("E", 8, ((1, 1.0),))], 0, "in", "E is cheaper"),
    # batch 1 is the only batch: no sentence on a larger one
    (1, [DENSE, MOE], None, "not in", "the largest both hold"),
    # a prompt token at $0.01/M against $0.1/M out: 1/10.00 as much, and the reason
    (64, [DENSE, MOE], 2, "in", "1/10.00 as much: prefill fills the matmuls in one pass"),
    # x5.00 as much: no reason given
    (64, [dataclasses.replace(DENSE, input_usd=0.5), MOE], 2, "in", "x5.00 as much"),
    (64, [dataclasses.replace(DENSE, input_usd=0.5), MOE], 2, "not in", "prefill fills"),
    (4, [D4, E4], 1, "in", "D is still cheaper"),  # cheaper at batch 1 and at batch 4
    # batch 64 lies past D's wall (4): no price there, so no prompt-against-output sentence
    (64, [D4, E4], None, "not in", "A prompt token"), (16, TINY, 0, "starts",
     "At batch 1, D costs $0.00000000127 per million output tokens and E $0.000000000524: E "
     "is cheaper."),
    (16, TIE1, 0, "==",
     "At batch 1, D costs $2.49 per million output tokens and E $2.49: the same at the "
     "digits shown."),
    # at batch 16, $0.100 against $0.500: D is cheaper, with no order at batch 1 to flip
    (16, TIE1, 1, "ends", "the prices are $0.100 and $0.500: D is cheaper."),
    (16, TIE16, 1, "ends", "the prices are $0.100 and $0.100: the same at the digits shown."),
])  # fmt: skip
def test_cost_sentences_by_hand(batch: int, costs: list, index: int | None, check: str,
                                want: str) -> None:  # fmt: skip
    said = observed(page.cost_section(setup(batch=batch), costs))
    got = " ".join(said) if index is None else said[index]
    assert CHECKS[check](got, want), got


def test_cost_table_and_curve_labels_by_hand() -> None:
    group = page.cost_section(setup(batch=2), [D2, E2])
    # at batch 1, 2 and the wall (4): $2.00, $0.500, $0.400
    assert rows(group)[1][4:] == ["$2.00", "$0.500", "$0.400"]
    assert rows(page.cost_section(setup(batch=4), [D4, E4]))[1][3] == "$0.010"  # $0.01 per M
    unheld = dataclasses.replace(D4, gpus=0)
    assert rows(page.cost_section(setup(batch=4), [unheld, E4]))[1][1] == "none"
    assert rows(page.cost_section(setup(batch=8), [D4, E4]))[1][5] == "-"  # B = 8: past the wall
    # three significant digits, never in e-notation beside a column of plain dollars
    usd = {1.27e-9: "$0.00000000127", 4.56e-5: "$0.0000456", 0.0005: "$0.001", 0.009: "$0.009",
           0.0: "$0.000", 0.12345: "$0.123", 12.345: "$12.35", 1234.5: "$1,234.50"}  # fmt: skip
    assert {x: page._usd(x) for x in usd} == usd
    dense = page.Cost(LLAMA_3_8B, 1, 64, 2048, 0.1, ())
    moe = page.Cost(get_model("mixtral-8x7b"), 2, 64, 2048, 0.1, ())
    assert page.cost_label(dense) == "Llama-3-8B (dense, 1 GPU)"
    assert page.cost_label(moe) == "Mixtral-8x7B (mixture of experts, 2 GPUs)"


WHERE = re.compile(r"a = ([\d.]+)%, (inside|below|above) the published range")


@settings(max_examples=25, deadline=None)
@given(
    table=hardware_tables(), model=st.sampled_from([*MODELS, "qwen3-30b-a3b"]),
    prompt=st.integers(1, 2048),
    output=st.integers(1, 2049),  # prompt + output - 1 <= 4,096, the smallest window drawn
    batch=st.integers(1, 32), extra=st.integers(1, 2048), price=st.floats(0.01, 100),
    data=st.data(),
)  # fmt: skip
def test_claims_hold_on_any_table(table, model, prompt, output, batch, extra, price, data) -> None:
    key = data.draw(st.sampled_from(sorted(table)), label="chip")
    argv = ["--model", model, "--chip", key, "--price", f"{price:.3f}", "--prompt", str(prompt)]
    argv += ["--output", str(output), "--batch", str(batch), "--budget", str(batch + extra)]
    with patched_hardware(table):
        try:
            out = run_lecture("14", *argv)
        except AssertionError as stop:  # what the GPUs cannot hold is a one-line usage error
            assert re.search(r"argument --batch|does not fit even 1024 x", str(stop)), stop
            return
    check_claims(out)
    text = " ".join(out.split())
    assert "x1.00 slower" not in text and "no faster" not in text
    for value, where in WHERE.findall(text):
        a = float(value)
        assert where == ("below" if a < 85.0 else "above" if a > 90.0 else "inside"), text


def test_disaggregation_by_hand() -> None:
    balance = [
        page.Balance(2048, 512, 0.2048, 1.024, 0.2),  # 100 µs a prompt token, 2 ms an output one
        page.Balance(8192, 128, 0.8192, 0.256, 3.2),
        page.Balance(128, 2048, 0.0128, 4.096, 0.003125),
    ]
    said = observed(page.disaggregation_section(setup(), balance))
    assert said[0].startswith(
        "A 8,192-token prompt with 128 output tokens needs 3.200 prefill GPUs per decode GPU; "
        "a 128-token prompt with 2,048 needs 0.003."
    )
    # 100 µs / 2 ms = 1/20
    assert said[1].startswith(
        "For the flags' request a prompt token takes 100 µs of GPU time and an output token "
        "2.00 ms at batch 64: a prompt token costs 1/20.00 as much."
    )
    balance = [page.Balance(2048, 512, 0.2048, 1.024, 0.25)]
    # P:D 0.25: a quarter of a prefill GPU per decode GPU, 0.25 / 1.25 = 20.0% of the GPUs
    group = page.disaggregation_section(setup(), balance)
    assert rows(group)[1][4:] == ["0.250", "20.0%"] and "decode batch 64" in group.items[0].title


def test_speculation_by_hand() -> None:
    # K, verify cost v (decode steps), E(a) = (1 - a^(K+1)) / (1 - a) for a = 0.6, 0.8, 0.9
    # (K = 1: 1 + a), and the speed-ups the lecture would compute from them
    drafts = [
        page.Draft(1, 1.0, (1.6, 1.8, 1.9), (1.55, 1.75, 1.84)),
        page.Draft(3, 1.004, (2.176, 2.952, 3.439), (2.0, 2.6, 3.0)),
        page.Draft(5, 1.5, (2.5, 3.7, 4.7), (1.5, 1.9, 2.2)),
    ]
    group = page.speculation_section(setup(), drafts)
    assert rows(group)[2][:5] == ["3", "1.004", "2.18", "2.95", "3.44"]
    peak, verify = observed(group)
    # at a = 0.8 the best is K = 3 (x2.60), and K = 5 is lower (x1.90): a peak, then a fall
    assert "peaks at K = 3 (x2.60) and falls to x1.90 at K = 5" in peak
    # steps of K + 1 tokens: 2 to 6; v = 1.500 > 1.00 is past the weight reads
    assert "a step of 2 to 6 tokens a sequence adds FLOPs" in verify
    # up to K = 3 the best is the last one, and v = 1.004 prints as 1.00: still on the reads
    peak, verify = observed(page.speculation_section(setup(), drafts[:2]))
    assert "still rises at K = 3 (x2.60)" in peak
    assert "a step of 2 to 4 tokens a sequence still rides on the weight reads" in verify


def test_the_default_run_by_hand() -> None:
    out = prose(run_lecture("14"))
    headings = ("1. Continuous batching", "2. Speculative decoding",
                "3. Prefill/decode disaggregation", "4. Cost per million tokens at $2 per GPU-hour",
                "5. DeepSeek's published day: 226.75 nodes of 8 H800 on average, 278 at peak",
                )  # fmt: skip
    assert_sections(out, "14_cost_per_token.png", headings, 6, exact=False)
    # 608e9 / 73.7e3 / 3600 = 2,291.6 and 168e9 / 14.8e3 / 3600 = 3,153.2 node-hours: 5,444.8
    # against 226.75 x 24 = 5,442 (+0.05%); x 8 GPUs x $2 = $87,116 against $87,072 (+0.05%)
    assert (
        "Prefill takes 2,292 node-hours and decode 3,153: 5,445 together against the 5,442" in out
    )
    assert "node-hours 5,445 5,442 +0.05%" in out and "daily cost $87,116 $87,072 +0.05%" in out
    # 342e9 x 0.14 + 266e9 x 0.55 + 168e9 x 2.19 = $562,100 against $562,027 (+0.01%)
    assert "revenue at R1 prices $562,100 $562,027 +0.01%" in out
    # $16 a node-hour: 16 / 3600 / 73.7e3 x 1e6 = $0.060, / 14.8e3 x 1e6 = $0.300
    assert "a million input tokens cost $0.060 and a million output tokens $0.300" in out
    # one draft, free, verify one step: (1 + a) / 1 = 1.8 gives a = 80.0%, 7.5 points below
    # the middle of 85-90%
    assert "implies a = 80.0%, below the published range (against its middle, 87.5%: -7.5%)" in out
    # K = 1 at a = 0.8: E = 1 + 0.8 = 1.80 tokens a verify step
    assert "1.80" in out and "Qwen3-30B-A3B is cheaper. A step for one token reads all" in out
    # section 3's prompt-against-output ratio at batch 64 is section 4's at the same batch
    # (section 4 once priced batch 60, the nearest of its grid below, and said 1/10.24)
    ratio = out.split("an output token 164 µs at batch 64: a prompt token costs ")[1][:6]
    assert f"for an output token at batch 64, {ratio} as much" in out and ratio == "1/9.96"
    assert "prefill fills the matmuls in one pass" in out


def test_other_models_and_the_reasons() -> None:
    for model in ("deepseek-v3", "qwen3-30b-a3b", "llama-3-70b"):
        out = run_lecture("14", "--model", model, "--batch", "4", "--prompt", "1024")
        assert "5. DeepSeek's published day" in out
    # DeepSeek-V3 on 128 TPU v5e at batch 1 costs more per output token than Llama-3-8B on 2:
    # the mixture's reason (it reads only the chosen experts) would explain the other verdict.
    # A 1-token prompt costs what an output token costs: no "prefill fills the matmuls".
    flags = ("--model", "deepseek-v3", "--chip", "tpu-v5e", "--prompt", "1", "--output", "1")
    out = prose(run_lecture("14", *flags, "--batch", "1", "--budget", "2"))
    assert "Llama-3-8B is cheaper." in out and "only the chosen experts" not in out
    assert "for an output token at batch 1, the same." in out and "fills the matmuls" not in out
    assert "with 1 output token needs" in out  # one token, not "1 output tokens"
    # 128 chips of 16 GB hold batch 2**20 (the search's bound): the wall is "at least" it
    assert "at least 1,048,576" in out
    # at batch 1 the flags' batch column would repeat the B=1 column
    assert out.count("$/M out B=1") == 1


def _refusal(table: dict, *flags: str) -> str:
    """Lecture 14 run in this process on `table`: its exit must be 2; its last stderr line."""
    with (
        patched_hardware(SHIPPED | table),
        pytest.raises(AssertionError, match="exited 2: ") as stop,
    ):
        run_lecture("14", *flags)  # raises with its stderr's tail
    return str(stop.value).strip().splitlines()[-1]


def test_a_chip_or_model_the_fleet_cannot_serve_is_one_line() -> None:
    # a student's chip with fp8 alone (the H100's fp8 figure): the lecture computes in bf16,
    # and it once stopped with a MissingFigureError traceback
    h100 = SHIPPED["h100"]
    fp8_only = dataclasses.replace(
        h100, peak_flops_table={"fp8": h100.peak_flops_table["fp8"]}, achievable_flops_table={}
    )
    message = _refusal({"h100": fp8_only}, "--chip", "h100")
    assert "argument --chip: H100 SXM has no 'bf16' peak" in message, message
    # DeepSeek-V3's 671e9 bf16 weights, 1.34 TB, over an H100 cut to 80 MB: 16,775 GPUs,
    # past the 1,024 the lecture tries, so not even one sequence fits; it once said
    # "(at most 0); give --batch 1 or less", which fails again at --batch 1
    h100 = scale_chip(SHIPPED["h100"], {"capacity": 0.001})
    assert h100.mem_capacity == pytest.approx(80e6)
    message = _refusal({"h100": h100}, "--model", "deepseek-v3", "--batch", "1")
    assert "does not fit even 1024 x H100 SXM; raise the chip's memory" in message, message
    assert "--batch 1 or less" not in message
