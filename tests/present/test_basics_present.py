"""Lecture 02's tables and sentences (common.present.basics), called in this process.

The inputs are round numbers chosen here (a chip of 100 TFLOP/s and 1 TB/s has a ridge
of 100 FLOP/B); each expected sentence is worked out by hand in the comments.
"""

from __future__ import annotations

from fake_chips import chip, prose, rows

from common.present import basics
from common.present.display import Observations, Preformatted

H = chip("Hop", 100e12, 1e12, fp8=200e12)  # ridge 100 FLOP/B


def items(obs: Observations) -> list[str]:
    return obs.items


def intensities(top: float = 200.0) -> dict[str, float]:
    return {
        "vector add": 1 / 6,
        "dot product": 0.5,
        "matvec, B=1": 0.999,
        "matmul, B=16": 15.9,
        "matmul, B=64": 60.0,
        "matmul, B=256": top,
    }


BATCHES = [1, 16, 64, 256]


def test_matmul_name() -> None:
    assert basics.matmul_name(1) == "matvec, B=1"
    assert basics.matmul_name(2) == "matmul, B=2"
    assert basics.matmul_name(0) == "matmul, B=0"


def test_basic_ops_observations_by_hand() -> None:
    got = items(basics.basic_ops_observations(intensities(), H, BATCHES, 1000, 4000))
    # shares: 1/6 * 1 TB/s / 100 TFLOP/s = 0.17%; 0.5 / 100 = 0.50%
    assert got[0].startswith(
        "A vector add does 0.167 FLOP per byte and a dot product 0.500, however long the "
        "vectors: each number is used once. On an Hop they reach 0.17% and 0.50% of peak; only "
        "moving fewer bytes"
    )
    assert got[1].startswith(
        "While B is small the matmul's intensity is about B (15.9 at B = 16, 60.0 at B = 64): "
        "W is read once and reused by every row of X. At B = 1 it is 0.999, no better"
    )
    assert got[2] == (
        "The first batch in the list to reach the ridge of 100 FLOP/B is B = 256 (200.0 FLOP/B); "
        "at B = 64 the matmul still gets only 60.00% of peak."
    )
    # K N / (K + N) = 4e6 / 5000 = 800
    assert got[3] == (
        "For large B the bytes of X and of the output count too: B = 256 gives 200 FLOP/B, "
        "not 256, and no batch can pass KN/(K+N) = 800."
    )
    assert len(got) == 5 and got[4].startswith("Here is the core tension")
    # exactly at the ridge counts as reaching it
    at = items(basics.basic_ops_observations(intensities(100.0), H, BATCHES, 1000, 4000))
    assert at[2].startswith(
        "The first batch in the list to reach the ridge of 100 FLOP/B is B = 256"
    )
    high = chip("Tall", 1000e12, 1e12)  # ridge 1000: B = 256 gets 200 / 1000 = 20%
    got = items(basics.basic_ops_observations(intensities(), high, BATCHES, 1000, 4000))
    assert got[2] == (
        "No batch in the list reaches the ridge of 1000 FLOP/B: even B = 256 gets 20.00% of peak."
    )
    low = chip("Flat", 0.9e12, 1e12)  # ridge 0.9 < 0.999
    got = items(basics.basic_ops_observations(intensities(), low, BATCHES, 1000, 4000))
    assert got[2] == "Every batch in the list reaches the ridge of 1 FLOP/B."


def test_basic_ops_table_by_hand() -> None:
    ops = [("vector add", 1e6, 6e6), ("matmul, B=256", 2e12, 4e9)]
    text = prose(basics.basic_ops_table(ops, H, 1_000_000, 1000, 4000))
    assert "1. Basic operations in bf16 on Hop (ridge 100 FLOP/B)" in text
    assert "Vectors of 1,000,000 numbers; matmul X[B,1000] W[1000,4000]." in text
    # 6 MB / 1 TB/s = 6 µs; 1/6 FLOP/B gets 0.17% of peak
    assert "vector add | 1.00 MFLOP | 6.00 MB | 0.167 | memory | 0.17% | 6.00 µs" in text
    # I = 500: compute-bound, 2e12 / 100e12 = 20 ms
    assert "matmul, B=256 | 2.00 TFLOP | 4.00 GB | 500.0 | compute | 100.00% | 20.0 ms" in text


H1 = chip("H1", 100e12, 1e12, fp8=200e12, key="h1")
H2 = chip("H2", 100e12, 2e12, key="h2")
B3 = chip("B3", 300e12, 1e12, key="b3", estimate=True, fp8=600e12, nvfp4=1200e12)
CASES = [
    (H1, "bf16", ("bf16", "bf16", "bf16")),
    (H2, "bf16", ("bf16", "bf16", "bf16")),
    (B3, "bf16", ("bf16", "bf16", "bf16")),
    (H1, "fp8", ("fp8", "fp8", "bf16")),
    (B3, "fp8", ("fp8", "fp8", "bf16")),
    (B3, "nvfp4", ("nvfp4", "nvfp4", "bf16")),
]
RIDGE = {
    ("h1", "bf16"): 100.0,
    ("h2", "bf16"): 50.0,
    ("b3", "bf16"): 300.0,
    ("h1", "fp8"): 200.0,
    ("b3", "fp8"): 600.0,
    ("b3", "nvfp4"): 1200.0,
}
CRIT = {
    ("h1", "bf16"): 128,
    ("h2", "bf16"): 64,
    ("b3", "bf16"): 384,
    ("h1", "fp8"): 130,
    ("b3", "fp8"): 700,
    ("b3", "nvfp4"): 900,
}


def test_ridge_table_by_hand() -> None:
    crit = CRIT | {("b3", "nvfp4"): None}
    text = prose(basics.ridge_table(CASES, RIDGE, crit, 1000, 4000))
    assert "2. Ridge points and critical batch of X[B,1000] W[1000,4000]" in text
    assert "H1 | bf16 | bf16/bf16/bf16 | 100.00 TFLOP/s | 1.00 TB/s | 100 | 128" in text
    assert "B3 | bf16 | bf16/bf16/bf16 | 300.00 TFLOP/s* | 1.00 TB/s | 300 | 384" in text
    assert "H1 | fp8 | fp8/fp8/bf16 | 200.00 TFLOP/s | 1.00 TB/s | 200 | 130" in text
    assert "B3 | nvfp4 | nvfp4/nvfp4/bf16 | 1.20 PFLOP/s | 1.00 TB/s | 1200 | never" in text


def test_ridge_observations_by_hand() -> None:
    got = items(basics.ridge_observations(CASES, RIDGE, CRIT, H1, H2, B3))
    assert got[0].startswith("In bf16 the ridge points run from 50 (H2) to 300 FLOP/B (B3):")
    assert got[1] == (
        "H2 pairs the H1's 100.0 TFLOP/s of bf16 compute with x2.00 the bandwidth (2.00 TB/s "
        "against 1.00 TB/s), so its ridge falls from 100 to 50 FLOP/B and its critical batch "
        "falls from 128 to 64. More bandwidth makes full speed easier to reach."
    )
    # fp8 peak x2, bytes 2 / 1 = x2; batch 130 / 128 = x1.02
    assert got[2].startswith(
        "fp8 raises the peak x2.00 and cuts the bytes of X and W x2.00, so the critical batch "
        "barely moves: 130 against 128 in bf16 (x1.02)."
    )
    # nvfp4 1200 / 600 = x2.00 against 1 / 0.5625 = x1.78 fewer bytes: 'only'
    assert got[3] == (
        "nvfp4 on B3: x2.00 the fp8 compute for only x1.78 fewer bytes. The ridge rises from "
        "600 to 1200 FLOP/B and the critical batch rises from 700 to 900: the chip needs larger "
        "batches to stay busy."
    )
    assert "in bf16 on H1 it is 128, not 100, because" in got[4]


def test_ridge_observations_other_ways() -> None:
    slow = chip("H2", 200e12, 0.5e12, key="h2")  # more compute, less bandwidth: ridge 400
    b3 = chip("B3", 300e12, 1e12, key="b3", fp8=600e12, nvfp4=900e12)  # x1.50 < x1.78
    ridge = RIDGE | {("h2", "bf16"): 400.0, ("b3", "nvfp4"): 900.0}
    crit = CRIT | {("h1", "bf16"): None, ("h2", "bf16"): 512, ("b3", "nvfp4"): 600}
    got = items(basics.ridge_observations(CASES, ridge, crit, H1, slow, b3))
    assert got[0].startswith("In bf16 the ridge points run from 100 (H1) to 400 FLOP/B (H2):")
    assert got[1] == (
        "H2 pairs 200.0 TFLOP/s of bf16 compute (the H1 has 100.0 TFLOP/s) with x0.50 the "
        "bandwidth (500.00 GB/s against 1.00 TB/s), so its ridge rises from 100 to 400 FLOP/B "
        "and its critical batch goes from never to 512. A higher ridge makes full speed harder "
        "to reach."
    )
    assert got[3] == (
        "nvfp4 on B3: x1.50 the fp8 compute for x1.78 fewer bytes. The ridge rises from 600 to "
        "900 FLOP/B and the critical batch falls from 700 to 600: the chip stays busy with "
        "smaller batches."
    )
    assert "in bf16 on H1 it never reaches it, because" in got[4]
    # a lower ridge from less compute at the same bandwidth: no moral about bandwidth
    weak = chip("H2", 50e12, 1e12, key="h2")
    crit = CRIT | {("b3", "nvfp4"): 700}
    got = items(basics.ridge_observations(CASES, RIDGE, crit, H1, weak, B3))
    assert got[1].endswith("falls from 128 to 64.")
    assert got[3].endswith("and the critical batch stays at 700.")
    same = items(
        basics.ridge_observations(CASES, RIDGE | {("h2", "bf16"): 100.0}, CRIT, H1, H2, B3)
    )
    assert got[1].endswith(".") and same[1].endswith("falls from 128 to 64.")
    assert "ridge stays at 100 FLOP/B" in same[1]
    # a batch of None on either side of nvfp4 takes no moral
    for pair in ((None, 900), (700, None)):
        crit = CRIT | {("b3", "fp8"): pair[0], ("b3", "nvfp4"): pair[1]}
        got = items(basics.ridge_observations(CASES, RIDGE, crit, H1, H2, B3))
        assert "busy" not in got[3] and got[3].endswith(".")


def test_fp8_observation_by_hand() -> None:
    f = basics._fp8_observation
    assert f(1.004, 2.0, 128, 128).startswith("fp8 keeps the peak and cuts the bytes of X and W")
    assert f(0.996, 2.0, 128, 128).startswith("fp8 keeps the peak")
    assert f(1.006, 2.0, 128, 128).startswith("fp8 raises the peak x1.01")
    assert f(0.5, 2.0, 128, 128).startswith("fp8 lowers the peak x2.00 and")
    assert f(2.0, 2.0, None, 128) == (
        "fp8 raises the peak x2.00 and cuts the bytes of X and W x2.00, so the critical batch "
        "goes from 128 in bf16 to never."
    )
    assert f(2.0, 2.0, 128, None).endswith("goes from never in bf16 to 128.")
    # 0.8 <= fp8 / bf16 <= 1.25 barely moves; outside it moves
    assert "barely moves: 80 against 100 in bf16 (x0.80)" in f(2.0, 2.0, 80, 100)
    assert "barely moves: 125 against 100 in bf16 (x1.25)" in f(2.0, 2.0, 125, 100)
    assert "by itself it does not change which side limits" in f(2.0, 2.0, 125, 100)
    assert f(2.0, 2.0, 126, 100).endswith(
        "so the critical batch rises from 100 to 126 (x1.26): the peak and the bytes do not move "
        "together here, so fp8 changes which side limits."
    )
    assert "falls from 100 to 79 (x0.79)" in f(2.0, 2.0, 79, 100)


def test_batch_change() -> None:
    assert basics._batch_change(None, 64) == "goes from never to 64"
    assert basics._batch_change(64, None) == "goes from 64 to never"
    assert basics._batch_change(64, 128) == "rises from 64 to 128"


V5E = chip("V5e", 200e12, 1e12, link=5e10, key="v5e", int8=400e12)


def v5e_rows(exact1, exact2, exact_bf16):
    return [
        ("int8 everything", "int8", 400.0, 1.0, 240.0, exact1),
        ("int8 weights", "bf16", 200.0, 1.0, 120.0, exact2),
        ("bf16", "bf16", 200.0, 2.0, 200.0, exact_bf16),
    ]


PER_EXAMPLE = {64: (128.0, 200.0), 1: (2.0, 4.0)}  # I = 0.640 and 0.500
ATTENTION = {"MHA": (32, 2.0, 2.0), "GQA": (8, 8.0, 2.0), "MQA": (1, 64.0, 2.0)}
LONG = (8192, {"MHA": 1.0, "GQA": 3.9, "MQA": 31.5})


def test_v5e_and_part3_tables_by_hand() -> None:
    text = prose(basics.v5e_table(v5e_rows(256, 125, None), V5E, 1000, 4000))
    assert "3. Low precision on V5e, X[B,1000] W[1000,4000]" in text
    assert "int8 everything | int8 | 400 | ~ 2 B | 240 | 256" in text
    assert "bf16 | bf16 | 200 | ~ 1 B | 200 | never" in text
    text = prose(basics.per_example_table(PER_EXAMPLE, 1000, 4000))
    assert "Exercise 4: one W[1000,4000] per example, bf16." in text
    assert "64 | 128 FLOP | 200 B | 0.640" in text and "1 | 2 FLOP | 4 B | 0.500" in text
    text = prose(basics.attention_table(ATTENTION, 32, 128, 8192))
    assert "32 query heads of dim 128, context 8,192 tokens." in text
    assert "MHA | 32 | 1 | 2 FLOP | 2 B | 1.0" in text
    assert "GQA | 8 | 4 | 8 FLOP | 2 B | 4.0" in text
    assert "MQA | 1 | 32 | 64 FLOP | 2 B | 32.0" in text


def test_exercise_observations_by_hand() -> None:
    got = items(
        basics.exercise_observations(v5e_rows(256, 125, 250), PER_EXAMPLE, ATTENTION, LONG, V5E, H1)
    )
    # int8 400 / bf16 200 = x2.0; 256 / 250 = 1.02: stays
    assert got[0] == (
        "Exercise 1: int8 gives x2.0 the v5e's bf16 peak and halves the size of every number, "
        "so the critical batch stays where bf16 has it: 256 against 250. The small-B estimate "
        "gives 240."
    )
    assert got[1].startswith(
        "Exercise 2: int8 weights with bf16 compute halve the bytes of W at the same peak, and "
        "the critical batch falls from 250 to 125 (estimate 120)."
    )
    assert got[2].startswith(
        "Exercise 4: with one matrix per example the intensity is 0.500 at B = 1 and still "
        "0.640 at B = 64."
    )
    assert (
        "heads per KV head: MHA 1.0, GQA 4.0, MQA 32.0 FLOP/B. At a context of 8,192 tokens it "
        "is the same (1.0, 3.9, 31.5), and the batch size never enters." in got[3]
    )
    # ridge 100 / 32 = x3.1
    assert got[4].startswith("Even MQA's 32.0 FLOP/B is x3.1 below the H1 ridge:")
    for exact1, says in (
        (200, "stays where bf16 has it: 200 against 250."),  # x0.80
        (312, "stays where bf16 has it: 312 against 250."),  # x1.248
        (199, "falls from 250 to 199 (bf16 to int8)."),
        (313, "rises from 250 to 313 (bf16 to int8)."),
        (None, "goes from 250 to never (bf16 to int8)."),
    ):
        got = items(
            basics.exercise_observations(
                v5e_rows(exact1, 125, 250), PER_EXAMPLE, ATTENTION, LONG, V5E, H1
            )
        )
        assert says in got[0], (exact1, got[0])
    got = items(
        basics.exercise_observations(
            v5e_rows(256, 125, None), PER_EXAMPLE, ATTENTION, LONG, V5E, H1
        )
    )
    assert "goes from never to 256 (bf16 to int8)." in got[0]
    got = items(
        basics.exercise_observations(v5e_rows(250, 125, 200), PER_EXAMPLE, ATTENTION, LONG, V5E, H1)
    )
    assert "stays where bf16 has it: 250 against 200." in got[0]  # x1.25 exactly
    low = chip("Low", 32e12, 1e12)  # ridge exactly 32: MQA reaches it
    got = items(
        basics.exercise_observations(
            v5e_rows(256, 125, 250), PER_EXAMPLE, ATTENTION, LONG, V5E, low
        )
    )
    assert got[4].startswith("MQA's 32.0 FLOP/B reaches the Low ridge of 32.0:")


def test_roofline_observations_by_hand() -> None:
    got = items(basics.roofline_observations(intensities(), H, BATCHES))
    assert got[0].startswith(
        "The bandwidth roof rises one decade per decade of intensity until the ridge (100 FLOP/B, "
        "100.0 TFLOP/s)"
    )
    assert "Points a and b sit at the bottom left (0.17% and 0.50% of peak)" in got[1]
    assert got[2].startswith(
        "The matmuls climb the slope as B grows and reach the flat roof from B = 256."
    )
    at = items(basics.roofline_observations(intensities(100.0), H, BATCHES))
    assert "reach the flat roof from B = 256." in at[2]
    flat = items(basics.roofline_observations(intensities(), chip("T", 1000e12, 1e12), BATCHES))
    assert flat[2].startswith("The matmuls climb the slope as B grows. On the flat roof")


def test_roofline_chart_and_png_by_hand(tmp_path) -> None:
    group = basics.roofline_chart({"vector add": 1 / 6, "big": 500.0}, H)
    text = prose(group)
    assert "4. Roofline of Hop, bf16" in text
    # attainable min(P, I beta): 1/6 TFLOP/s and the 100 TFLOP/s peak
    assert (
        "a | vector add | 0.167 | 166.7 GFLOP/s" in text
        and "b | big | 500.0 | 100.0 TFLOP/s" in text
    )
    png = basics.PngResult(tmp_path / "r.png", "")
    twin = chip("Twin", 100e12, 2e12)
    cap = basics.roofline_png(png, "roofline", H, [twin, chip("Other", 50e12, 1e12)]).caption
    assert "sits on the bold Hop roof" in cap
    assert " Twin has the same 100.0 TFLOP/s peak, so its dashed roof joins" in cap
    cap = basics.roofline_png(png, "roofline", H, [chip("Other", 50e12, 1e12)]).caption
    assert "has the same" not in cap and "flat compute roof. The dashed roofs" in cap
    skipped = basics.roofline_png(basics.PngResult(None, "no matplotlib"), "roofline", H, [])
    assert str(skipped).strip() == "roofline: no matplotlib"


TILED = {
    (16, 32, 16): (1e6, 7.1, 8.0),
    (32, 32, 32): (5e5, 15.0, 16.0),
    (128, 32, 128): (2e5, 60.2, 64.0),
}


def test_tiling_by_hand() -> None:
    # 200 x 200 fp32 accumulator = 160,000 B; 163,840 B = 160.0 KiB = x0.6 of 256 KiB
    got = items(basics.tiling_observations(TILED, 262144, H, (200.0, 163840.0)))
    assert got[0].startswith(
        "Exact and approximate intensities differ only by the output write: 7.1 against 8.0 for "
        "16x32x16 tiles, 60.2 against 64.0 for 128x32x128."
    )
    assert got[1] == (
        "To reach the Hop ridge of 100 FLOP/B on its own, an SM would need an output tile of "
        "about 200 x 200, whose fp32 accumulator takes 160.0 KiB: x0.6 its 256 KiB register "
        "file. One SM's registers could hold it."
    )
    got = items(basics.tiling_observations(TILED, 262144, H, (400.0, 524288.0)))
    assert "takes 512.0 KiB: x2.0 its 256 KiB register file. No single SM gets there" in got[1]
    got = items(basics.tiling_observations(TILED, 262144, H, (256.0, 262144.0)))
    assert got[1].endswith("x1.0 its 256 KiB register file. One SM's registers could hold it.")
    acc = {(64, 64): (262144.0, 32.0), (128, 128): (262145.0, 100.0), (8, 8): (100.0, 99.9)}
    text = prose(basics.tiling_tables(1024, TILED, acc, 262144, H, (200.0, 163840.0)))
    assert "5. Tiling a (1024x1024) @ (1024x1024) bf16 matmul" in text
    assert "16x32x16 | 1.00 MB | 7.1 | 8.0" in text
    assert "64x64 | 256 KiB | yes | 32 | no" in text
    assert "128x128 | 256 KiB | no | 100 | yes" in text
    assert "8x8 | 100 B | yes | 100 | no" in text
    assert "register file and the Hop ridge:" in text
    assert (
        "Tile needed for 100 FLOP/B from HBM alone: about 200 x 200; fp32 accumulator 160.0 KiB."
        in text
    )


V6E = chip("V6e", 900e12, 1e12, link=1e11, key="v6e")
NH = chip("H1", 100e12, 1e12, link=4e11, key="h1")
NB = chip("B3", 300e12, 1e12, link=8e11, key="b3", estimate=True)
NET_RIDGE = {"v5e": 4000.0, "v6e": 9000.0, "h1": 250.0, "b3": 375.0}
NET_DIM = {"v5e": 8000.0, "v6e": 18000.0, "h1": 500.0, "b3": 750.0}
STEPS = {
    (4096, 1): {"t_math": 1e-6, "t_comms": 2e-6, "intensity": 2048.0, "bound": "memory"},
    (4096, 512): {"t_math": 5e-4, "t_comms": 1e-3, "intensity": 2048.0, "bound": "memory"},
    (4096, 64): {"t_math": 6e-5, "t_comms": 1e-4, "intensity": 2048.0, "bound": "memory"},
    (16384, 64): {"t_math": 2e-4, "t_comms": 1e-4, "intensity": 8192.0, "bound": "compute"},
    (16384, 1): {"t_math": 4e-6, "t_comms": 2e-6, "intensity": 8192.0, "bound": "compute"},
    (16384, 512): {"t_math": 2e-3, "t_comms": 1e-3, "intensity": 8192.0, "bound": "compute"},
}


def test_network_observations_by_hand() -> None:
    verdicts = {(c, k): "x" for c in NET_DIM for k in (4096, 16384)}
    network = (NET_RIDGE, NET_DIM, verdicts)
    got = items(basics.network_observations(network, STEPS, V5E, V6E, NH, NB))
    assert got[0] == (
        "Network intensity is K/2 FLOP per byte, so on V5e the split pays off only for "
        "K > 8,000.0. At K = 4,096 every batch from 1 to 512 is memory-bound; at K = 16,384 "
        "every one is compute-bound."
    )
    # 4e11 / 5e10 = x8
    assert got[1] == (
        "H1 link carries x8 the bandwidth of one v5e ICI link, so the H1 needs only K > 500.0."
    )
    # 900 / 200 = x4.50 the compute, 1e11 / 5e10 = x2.0 the link
    assert got[2].startswith(
        "V6e has x4.50 the v5e's compute and x2.0 its link bandwidth, so one link needs "
        "K > 18,000.0;"
    )
    # 300 / 100 = x3.00 against 8e11 / 4e11 = x2.0
    assert got[3] == (
        "B3's bf16 peak (an estimate) is x3.00 the H1's, its NVLink only x2.0: the network "
        "ridge rises from 250 to 375 FLOP/B. Compute grows faster than communication, a trend "
        "that runs through this course."
    )
    wide = chip("B3", 300e12, 1e12, link=12e11, key="b3")  # x3.0 the link: no faster compute
    dim = NET_DIM | {"h1": 8000.0}
    mixed = STEPS | {(4096, 512): STEPS[(16384, 1)]}
    got = items(basics.network_observations((NET_RIDGE, dim, verdicts), mixed, V5E, V6E, NH, wide))
    assert "every batch from 1 to 512 is compute/memory-bound" in got[0]
    assert got[1].endswith("so the H1 needs K > 8,000.0.")
    assert got[3] == (
        "B3's bf16 peak is x3.00 the H1's, its NVLink x3.0: the network ridge rises from 250 to "
        "375 FLOP/B."
    )


def test_network_tables_by_hand() -> None:
    verdicts = {("h1", 4096): "compute", ("h1", 16384): "compute"}
    verdicts |= {("v5e", 4096): "memory", ("v5e", 16384): "compute"}
    text = prose(basics.network_tables([NH, V5E], (NET_RIDGE, NET_DIM, verdicts), STEPS, V5E, 4000))
    assert "6. X[B,K] W[K,4000] split along K over two chips, bf16" in text
    assert "H1 | H1 link | 400 GB/s | 250 | K > 500.0 | compute | compute" in text
    assert "V5e | V5e link | 50 GB/s | 4,000 | K > 8,000.0 | memory | compute" in text
    assert "V5e, one ICI link: the batch does not change the verdict." in text
    assert "4096 | 512 | 500 µs | 1.00 ms | 2,048 | memory" in text


def test_basics_fixed_words() -> None:
    """The fixed halves of every sentence and the column labels: directions and units."""
    got = items(basics.basic_ops_observations(intensities(), H, BATCHES, 1000, 4000))
    assert got[0].endswith("of peak; only moving fewer bytes makes them faster.")
    assert got[1].endswith("At B = 1 it is 0.999, no better than the dot product.")
    assert got[4] == (
        "Here is the core tension of LLM inference: each decode step makes one token per "
        "sequence, so only batching many sequences keeps the matmuls off the bandwidth roof."
    )
    ops = [("vector add", 1e6, 6e6)]
    assert rows(basics.basic_ops_table(ops, H, 1, 1000, 4000))[0] == [
        *("operation", "FLOPs", "bytes", "FLOP/B"),
        *("bound", "of peak", "time >="),
    ]
    table = basics.ridge_table(CASES, RIDGE, CRIT, 1000, 4000)
    assert rows(table)[0] == ["chip", "compute", "X/W/out", "peak", "HBM", "ridge", "critical B"]
    assert "ridge in FLOP/B; * marks an estimated peak (see the hardware table)." in prose(table)
    got = items(basics.ridge_observations(CASES, RIDGE, CRIT, H1, H2, B3))
    assert got[0].endswith(
        "FLOP/B (B3): to use its compute, a matmul must reuse every byte it reads that many "
        "times, which at small batch takes about that many tokens at a time."
    )
    assert got[2].endswith(
        "(x1.02). Low precision speeds up both sides of the ledger; by itself it does not change "
        "which side limits."
    )
    assert got[4] == (
        "Since the intensity stays below B, the critical batch sits above the ridge: in bf16 on "
        "H1 it is 128, not 100, because reading X and writing the output cost bytes too (part "
        "1's last observation)."
    )
    v5e = basics.v5e_table(v5e_rows(256, 125, None), V5E, 1000, 4000)
    assert rows(v5e)[0] == ["case", "compute", "ridge", "I, small B", "book's B", "exact B"]
    assert "book's B = ridge x w / 2 with w bytes per weight; exact B counts every byte." in prose(
        v5e
    )
    assert rows(basics.per_example_table(PER_EXAMPLE, 1, 1))[0] == ["B", "FLOPs", "bytes", "FLOP/B"]
    att = basics.attention_table(ATTENTION, 32, 128, 8192)
    assert rows(att)[0] == ["variant", "KV heads", "q per KV", "FLOPs", "KV bytes", "FLOP/B"]
    assert "Decode attention, one layer and one sequence, bf16 KV cache:" in str(att)
    got = items(
        basics.exercise_observations(v5e_rows(256, 125, 250), PER_EXAMPLE, ATTENTION, LONG, V5E, H1)
    )
    assert got[1].endswith("This is why weight-only quantization pays off so well in decode.")
    assert got[2].endswith("Batching only helps when the batch shares data.")
    assert got[3].startswith(
        "Decode attention has exactly that shape: every sequence reads its own KV cache, and the "
        "intensity equals the number of query heads per KV head: MHA 1.0"
    )
    assert got[4].endswith(
        "below the H1 ridge: fewer KV heads cut the bytes, which is what GQA and MQA are for."
    )
    low = chip("Low", 32e12, 1e12)
    got = items(
        basics.exercise_observations(
            v5e_rows(256, 125, 250), PER_EXAMPLE, ATTENTION, LONG, V5E, low
        )
    )
    assert got[4].endswith("32.0: fewer KV heads cut the bytes, which is what GQA and MQA are for.")
    got = items(basics.roofline_observations(intensities(), H, BATCHES))
    assert got[0].endswith("100.0 TFLOP/s); past it the compute roof is flat.")
    assert got[1] == (
        "Points a and b sit at the bottom left (0.17% and 0.50% of peak): no amount of tuning "
        "their arithmetic helps; only fusing them with neighbours to move fewer bytes does."
    )
    assert got[2].endswith(
        "B = 256. On the flat roof a larger batch adds latency per step but no throughput."
    )
    chart = basics.roofline_chart({"vector add": 1 / 6}, H)
    assert rows(chart)[0] == ["point", "operation", "FLOP/B", "attainable"]
    got = items(basics.tiling_observations(TILED, 262144, H, (200.0, 163840.0)))
    assert got[0].endswith("for 128x32x128. The inner size bk does not change the traffic.")
    assert got[2] == (
        "Real GPUs close the gap in two ways. A large L2 cache lets many SMs share the panels "
        "they fetch, so HBM sees far less traffic than every SM fetching alone. And Blackwell "
        "adds Tensor Memory (TMEM) beside each SM to hold accumulators, and lets two SMs run one "
        "MMA on shared operands: both exist to make tiles bigger."
    )
    acc = {(64, 64): (262144.0, 32.0)}
    tiles = basics.tiling_tables(1024, TILED, acc, 262144, H, (200.0, 163840.0))
    assert rows(tiles)[0] == [
        *("tile bm x bk x bn", "main-memory traffic", "FLOP/B exact", "bm*bn/(bm+bn)"),
    ]
    assert rows(tiles)[4] == [
        *("output tile", "fp32 accumulator", "fits 256 KiB", "FLOP/B", "reaches ridge"),
    ]
    assert "Output tile against one SM's 256 KiB register file and the Hop ridge:" in str(tiles)
    verdicts = {(c, k): "x" for c in NET_DIM for k in (4096, 16384)}
    got = items(
        basics.network_observations((NET_RIDGE, NET_DIM, verdicts), STEPS, V5E, V6E, NH, NB)
    )
    assert got[2].endswith("K > 18,000.0; real systems use several links at once.")
    net = basics.network_tables([NH], (NET_RIDGE, NET_DIM, verdicts), STEPS, V5E, 4000)
    assert rows(net)[0] == ["chip", "link", "one way", "net I*", "compute iff", "K=4096", "K=16384"]
    assert ["K", "B", "T_math", "T_comms", "FLOP/B sent", "bound"] in rows(net)
    assert (
        "net I* = bf16 peak / link bandwidth, in FLOP per byte sent; then the bound at each K."
        in prose(net)
    )


def test_byte_sizes_come_from_the_table(monkeypatch) -> None:
    """fp8 and nvfp4's byte cuts are read from the element sizes, not assumed."""
    sizes = {"bf16": 4.0, "fp8": 2.0, "nvfp4": 1.0}
    monkeypatch.setattr(basics, "bytes_per_elem", sizes.__getitem__)
    got = items(basics.ridge_observations(CASES, RIDGE, CRIT, H1, H2, B3))
    # bf16 / fp8 = 4 / 2 = x2.00; fp8 / nvfp4 = x2.00, the same as the x2.00 gain: no 'only'
    assert "cuts the bytes of X and W x2.00," in got[2]
    assert got[3].startswith("nvfp4 on B3: x2.00 the fp8 compute for x2.00 fewer bytes.")


def test_roofline_chart_text() -> None:
    group = basics.roofline_chart({"vector add": 1 / 6, "big": 500.0}, H)
    (chart,) = [i for i in group.items if isinstance(i, Preformatted)]
    assert chart.text.endswith("\n") and chart.text.count("\n") > 5
