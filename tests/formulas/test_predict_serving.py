"""``python3 -m common.predict --ep / --speculate``: the serving terms against hand arithmetic,
and every combination the command cannot serve refused in one line (exit 2).

The tiny configs of ``test_predict_command`` keep every kernel far below the A100's kernel
floor, so a pass of any width costs its kernel count x the floor (engine trtllm: no step
or launch cost).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from common import predict as cmd
from tests.formulas.test_predict_command import FLOOR, GPT2, LLAMA

MIXTRAL = {**LLAMA, "model_type": "mixtral", "num_local_experts": 4, "num_experts_per_tok": 2}
LATENCY = 77e-6 - 41.3952e-6  # DeepEP's EP-8 dispatch less 6,623,232 B over 160 GB/s
NVLINK_A100 = 300e9  # the A100 80GB's link roof (NVLink 3, one direction)


def run(tmp_path: Path, capsys, config: dict, *flags: str, draft: dict | None = None) -> dict:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    extra = []
    if draft is not None:
        (tmp_path / "draft.json").write_text(json.dumps(draft))
        extra = ["--draft-config", str(tmp_path / "draft.json")]
    argv = ["--config", str(path), "--json", "--engine", "trtllm", *flags, *extra]
    assert cmd.main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_ep_dispatch_and_combine_per_decode_step(tmp_path, capsys) -> None:
    got = run(tmp_path, capsys, MIXTRAL, "--ep", "2", "--batch", "2", "--prompt", "4",
              "--new-tokens", "2")  # fmt: skip
    # 2 tokens over 2 GPUs: 1 each, 2 copies of 64 x 2 B, half to the other GPU (NVLink):
    # 128 B / 300 GB/s, + the per-call latency; one MoE layer; combine also in bf16
    one = LATENCY + 128 / NVLINK_A100
    assert got["dispatch_s"] == pytest.approx(one) and got["combine_s"] == pytest.approx(one)
    assert got["gpus"] == 2 and got["ep"] == 2
    assert got["terms"]["decode_step"]["EP dispatch"] == pytest.approx(one)
    # prefill: 2 x 4 tokens, 4 a GPU: 4 x 2 x 128 B / 2 over NVLink
    assert got["terms"]["prefill"]["EP combine"] == pytest.approx(LATENCY + 512 / NVLINK_A100)
    assert got["tokens_per_s_per_gpu"] == pytest.approx(2 * 2 / (got["total_s"] * 2))
    assert any("DeepEP" in note for note in got["left_out"])


def test_no_ep_terms_without_ep(tmp_path, capsys) -> None:
    got = run(tmp_path, capsys, MIXTRAL, "--prompt", "4", "--new-tokens", "2")
    assert "dispatch_s" not in got and "EP dispatch" not in got["terms"]["decode_step"]
    assert got["tokens_per_s_per_gpu"] == pytest.approx(2 / got["total_s"])


def test_speculation_with_a_draft_head(tmp_path, capsys) -> None:
    flags = ("--prompt", "4", "--new-tokens", "8", "--speculate", "2", "--acceptance", "0.5")
    got = run(tmp_path, capsys, LLAMA, *flags)
    sp = got["speculation"]
    # E = (1 - 0.5^3) / 0.5 = 1.75; one layer: a draft token costs the whole decode step
    # (18 kernels at the floor), the verify pass of 3 tokens too; 7 tokens after the prefill
    # take 7 / 1.75 = 4 steps of 2 draft tokens and one verify: 4 x 54 + 18 floors
    assert sp["tokens_per_verify_step"] == pytest.approx(1.75)
    assert sp["verify_step_s"] == pytest.approx(18 * FLOOR)
    assert sp["draft_step_s"] == pytest.approx(18 * FLOOR)
    assert sp["total_s"] == pytest.approx(234 * FLOOR)
    assert sp["decode_speedup"] == pytest.approx(7 * 18 / (4 * 54))
    assert "EAGLE" in sp["draft"]
    assert got["tokens_per_s_per_gpu"] == pytest.approx(8 / (234 * FLOOR))


def test_speculation_with_a_draft_model(tmp_path, capsys) -> None:
    flags = ("--prompt", "4", "--new-tokens", "8", "--speculate", "2", "--acceptance", "0.5")
    got = run(tmp_path, capsys, LLAMA, *flags, draft=GPT2)
    sp = got["speculation"]
    # the GPT-2 draft: 17 kernels a pass (prefill and decode), all at the floor
    assert sp["draft_prefill_s"] == pytest.approx(17 * FLOOR)
    assert sp["draft_step_s"] == pytest.approx(17 * FLOOR)
    assert sp["total_s"] == pytest.approx((18 + 17 + 4 * (2 * 17 + 18)) * FLOOR)


@pytest.mark.parametrize(
    ("config", "flags", "said"),
    [
        (LLAMA, ("--ep", "2"), "is dense"),
        (MIXTRAL, ("--ep", "3"), "does not divide"),
        (MIXTRAL, ("--ep", "2", "--gpus", "4"), "give --gpus 2"),
        (LLAMA, ("--speculate", "2"), "go together"),
        (LLAMA, ("--acceptance", "0.5"), "go together"),
        (LLAMA, ("--draft-config", "x.json"), "needs --speculate"),
        (LLAMA, ("--prompt", "60", "--new-tokens", "4", "--speculate", "2", "--acceptance", "0.5"),
         "window"),
        (LLAMA, ("--speculate", "2", "--acceptance", "1.5"), "acceptance"),
    ],
)  # fmt: skip
def test_unsupported_combinations_are_one_line(tmp_path, capsys, config, flags, said) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    with pytest.raises(SystemExit) as exc:
        cmd.main(["--config", str(path), "--prompt", "4", "--new-tokens", "2", *flags])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert said in err and "\n" not in err and "Traceback" not in err
