"""``python3 -m common.predict --ep / --speculate`` against hand arithmetic (the tiny configs of
test_predict_command: each weight read t0 + D / beta, every other kernel the A100's floor, no
step or launch cost with trtllm),
and every combination the command cannot serve refused in one line (exit 2)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from common import predict as cmd
from tests.formulas.test_predict_command import BW, FLOOR, GPT2, LLAMA, STEP, T0, refused

MIXTRAL = {**LLAMA, "model_type": "mixtral", "num_local_experts": 4, "num_experts_per_tok": 2}
LATENCY = 77e-6 - 41.3952e-6  # DeepEP's EP-8 dispatch less 6,623,232 B over 160 GB/s
NVLINK_A100 = 300e9  # the A100 80GB's link roof (NVLink 3, one direction)
# the tiny Llama's prefill of 4 tokens and verify pass of 3: 8 weight reads of 95,048 and
# 93,656 B (Q, output 8,960; K, V 4,672; gate, up, down 17,536; LM head 13,784), 10 floors
PRE, VERIFY = (8 * T0 + b / BW + 10 * FLOOR for b in (95048, 93656))


def run(tmp_path: Path, capsys, config: dict, *flags: str, draft: dict | None = None) -> dict:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    extra = []
    if draft is not None:
        (tmp_path / "draft.json").write_text(json.dumps(draft))
        extra = ["--draft-config", str(tmp_path / "draft.json")]
    assert cmd.main(["--config", str(path), "--json", "--engine", "trtllm", *flags, *extra]) == 0
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
    got = run(tmp_path, capsys, MIXTRAL, "--prompt", "4", "--new-tokens", "2")
    assert "dispatch_s" not in got and "EP dispatch" not in got["terms"]["decode_step"]
    assert got["tokens_per_s_per_gpu"] == pytest.approx(2 / got["total_s"])
    flags = ("--prompt", "4", "--new-tokens", "8", "--speculate", "2", "--acceptance", "0.5")
    got = run(tmp_path, capsys, LLAMA, *flags)
    sp = got["speculation"]
    # E = (1 - 0.5^3) / 0.5 = 1.75; one layer: a draft token costs the whole decode step;
    # 7 tokens after the prefill take 7 / 1.75 = 4 steps of 2 draft tokens and one verify
    assert sp["tokens_per_verify_step"] == pytest.approx(1.75)
    assert (sp["verify_step_s"], sp["draft_step_s"]) == pytest.approx((VERIFY, STEP))
    assert sp["total_s"] == pytest.approx(PRE + 4 * (2 * STEP + VERIFY))
    assert sp["decode_speedup"] == pytest.approx(7 * STEP / (4 * (2 * STEP + VERIFY)))
    assert "EAGLE" in sp["draft"]
    assert got["tokens_per_s_per_gpu"] == pytest.approx(8 / sp["total_s"])
    # at a = 1, K = 20: E would be 21, but only 7 tokens are left: one verify step of 20
    # draft tokens and one verify over 21 (136,424 B), never a fraction of a step
    flags = ("--prompt", "4", "--new-tokens", "8", "--speculate", "20", "--acceptance", "1")
    sp = run(tmp_path, capsys, LLAMA, *flags)["speculation"]
    verify = 8 * T0 + 136424 / BW + 10 * FLOOR
    assert sp["tokens_per_verify_step"] == 7
    assert sp["total_s"] == pytest.approx(PRE + 20 * STEP + verify)
    assert sp["decode_speedup"] == pytest.approx(7 * STEP / (20 * STEP + verify))
    flags = ("--prompt", "4", "--new-tokens", "8", "--speculate", "2", "--acceptance", "0.5")
    got = run(tmp_path, capsys, LLAMA, *flags, draft=GPT2)
    sp = got["speculation"]
    # the GPT-2 draft: 7 weight reads a pass (120,648 B at 4 tokens, 113,736 at one) and 10
    # kernels at the floor
    draft_pre, draft = (7 * T0 + b / BW + 10 * FLOOR for b in (120648, 113736))
    assert (sp["draft_prefill_s"], sp["draft_step_s"]) == pytest.approx((draft_pre, draft))
    assert sp["total_s"] == pytest.approx(PRE + draft_pre + 4 * (2 * draft + VERIFY))


@pytest.mark.parametrize(("config", "flags", "said"), [
    (LLAMA, ("--ep", "2"), "is dense"),
    (MIXTRAL, ("--ep", "3"), "--ep 3 does not divide config's 4 experts"),
    (MIXTRAL, ("--ep", "2", "--gpus", "4"), "give --gpus 2"),
    (LLAMA, ("--speculate", "2"), "go together"), (LLAMA, ("--acceptance", "0.5"), "go together"),
    (LLAMA, ("--draft-config", "x.json"), "needs --speculate"),
    (LLAMA, ("--prompt", "60", "--new-tokens", "4", "--speculate", "2", "--acceptance", "0.5"),
     "window"),
    (LLAMA, ("--speculate", "2", "--acceptance", "1.5"), "acceptance"),
    (LLAMA, ("--precision", "fp7"), "unknown precision 'fp7'; choose one of: fp32"),
])  # fmt: skip
def test_unsupported_combinations_are_one_line(tmp_path, capsys, config, flags, said) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    err = refused(["--config", str(path), "--prompt", "4", "--new-tokens", "2", *flags], capsys)
    assert said in err and "Traceback" not in err


def test_ep_runs_attention_data_parallel_without_all_reduces(capsys, monkeypatch) -> None:
    """Mixtral-8x7B at --ep 8 (DeepSeek-V3's and DeepEP's layout): each H100 reads the
    attention, router, embedding and LM head whole for its 8 / 8 = 1 sequence, and 1/8 of
    the experts the 8 tokens reach; nothing is all-reduced. Hand count of the decode step's
    bound: every operator is memory-bound at one token a GPU (the experts meet 16 rows)."""
    flags = ["--model", "mixtral-8x7b", "--chip", "h100", "--batch", "8", "--prompt", "128",
             "--new-tokens", "2", "--json"]  # fmt: skip
    assert cmd.main([*flags, "--ep", "8"]) == 0
    got = json.loads(capsys.readouterr().out)
    L, d, f, E, k, V, kv, B, N = 32, 4096, 14336, 8, 2, 32000, 1024, 8, 8  # config.json
    touched = E * (1 - (1 - k / E) ** B)  # 7.20 of 8 experts a layer
    attention = 2 * d * d + 2 * d * kv  # q and o, k and v (8 KV heads of 128)
    weights = 2 * (L * (attention + d * E + touched * 3 * d * f / N) + V * d)  # bf16; LM head
    cache = 2 * L * 129 * 2 * kv  # one sequence's K and V at 129 tokens, bf16
    by_hand = (weights + cache) / 3.35e12  # H100 SXM: 3.35 TB/s
    # activations and norms are left out of the hand count: under 0.2% of the step
    assert got["bound_decode_step_s"] == pytest.approx(by_hand, rel=2e-3)
    assert got["terms"]["decode_step"]["all-reduce beyond ring bytes"] == 0.0
    assert got["allreduce"].startswith("none")
    assert not any("tensor parallel" in note for note in got["left_out"])
    # the same 8 GPUs tensor parallel: every weight split 8 ways, two all-reduces a layer
    assert cmd.main([*flags, "--gpus", "8"]) == 0
    tp = json.loads(capsys.readouterr().out)
    assert tp["terms"]["decode_step"]["all-reduce beyond ring bytes"] > 0
    assert tp["bound_decode_step_s"] < 0.9 * by_hand  # the attention weights read 1/8 each
    # Under --ep the attention runs data-parallel, each GPU's GEMMs whole: the engine's measured
    # shares are those of one GPU's shard (g = 1), not of an 8-way split.
    seen = []
    real = cmd.engine_roofs
    monkeypatch.setattr(cmd, "engine_roofs", lambda *a: seen.append(a[-1]) or real(*a))
    flags = ["--model", "mixtral-8x7b", "--chip", "h100", "--batch", "8", "--json"]
    assert cmd.main([*flags, "--ep", "8"]) == 0 and cmd.main([*flags, "--gpus", "8"]) == 0
    capsys.readouterr()
    assert seen == [1, 8]
    # Under --ep the verify pass crosses the same network as decode, and the request's bound is
    # its prefill's plus (new tokens - 1) decode steps', each on the EP layout.
    nets = []
    speculate = cmd.speculate
    monkeypatch.setattr(cmd, "speculate", lambda *a: nets.append(a[-1]) or speculate(*a))
    assert cmd.main([*flags, "--ep", "8", "--speculate", "2", "--acceptance", "0.8"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [net.ep for net in nets] == [8]
    steps = got["new_tokens"] - 1
    by_parts = got["bound_prefill_s"] + steps * got["bound_decode_step_s"]
    assert got["bound_total_s"] == pytest.approx(by_parts, rel=1e-12)
    # DeepSeek-V3 in bf16: 58 MoE layers x 256 experts x 3 x 7,168 x 2,048 = 653.9 B expert
    # parameters of 671.0 B. Each GPU holds the other 17.1 B whole: at --ep 16 that is (17.1 +
    # 40.9) x 2 B = 116 GB, past an H100's 80; at --ep 32, 75 GB fits.
    experts = 58 * 256 * 3 * 7168 * 2048
    rest = 671.03e9 - experts
    assert [g for g in (8, 16, 32) if 2 * (rest + experts / g) <= 80e9] == [32]
    err = refused(["--model", "deepseek-v3", "--chip", "h100", "--ep", "8"], capsys)
    need = float(err.split(" need ")[1].split(" GB")[0])  # plus one sequence's latent cache
    assert need == pytest.approx(2 * (rest + experts / 8) / 1e9, abs=0.2)
    assert "--ep 32 would hold it" in err
    # On a 180 GB B200, --ep 8 needs (17.1 + 81.7) x 2 = 197.6 GB (the experts' split alone
    # would fit: 671.0 x 2 / 8 = 167.8 GB); --ep 16 needs 116 GB.
    assert 2 * (rest + experts / 8) > 180e9 > 2 * 671.03e9 / 8 and 2 * (rest + experts / 16) < 180e9
    assert "--ep 16 would hold it" in refused(
        ["--model", "deepseek-v3", "--chip", "b200", "--ep", "4"], capsys
    )


def test_the_table_output_of_speculation_and_expert_parallelism(tmp_path, capsys) -> None:
    (tmp_path / "llama.json").write_text(json.dumps(LLAMA))
    (tmp_path / "mixtral.json").write_text(json.dumps(MIXTRAL))
    flags = ["--prompt", "4", "--new-tokens", "8", "--speculate", "2", "--acceptance", "0.5"]
    assert cmd.main(["--config", str(tmp_path / "llama.json"), "--engine", "trtllm", *flags]) == 0
    lines = capsys.readouterr().out.splitlines()

    # test_ep_dispatch_and_combine_per_decode_step's figures: draft STEP, verify 8 t0 + 93,656 B
    # / beta + 10 floors, the prefill and 4 steps of both; 7 STEP / (4 (2 STEP + verify)) =
    # 0.58 x the decode speed; times in ms to 3 places
    spoken = re.compile(
        r"speculation: 2 draft tokens a step at acceptance 0\.5: 1\.75 tokens per verify step; "
        r"draft (\S+) ms a token, verify (\S+) ms; request (\S+) ms, decode 0\.58 x as fast$"
    )
    (said,) = [m for m in map(spoken.match, lines) if m]
    seconds = [STEP, VERIFY, PRE + 4 * (2 * STEP + VERIFY)]
    assert [float(x) for x in said.groups()] == pytest.approx([s * 1e3 for s in seconds], abs=6e-4)
    assert any(line.startswith("draft: a draft head of one decoder layer") for line in lines)
    head = next(i for i, line in enumerate(lines) if line.startswith("term "))
    assert lines[head].split() == ["term", "prefill", "decode", "step", "(mean)"]
    end = next(i for i, line in enumerate(lines) if line.startswith("bound: "))
    table = lines[head + 2 : end]  # under the rule: each term, then their sum, both in ms
    assert table[-1].startswith("forecast (sum) ") and len(table) > 2
    assert all(re.search(r"\d\.\d{3} ms +\d+\.\d{3} ms$", row) for row in table)
    assert any(re.match(r"forecast: \d+\.\d{3} ms = prefill \+ 7 decode steps;", s) for s in lines)
    bound = r"bound: \d+\.\d{3} ms at the datasheet's roofs \(what no engine beats\), \d+\.\d{3} ms"
    assert any(re.match(bound, line) for line in lines)
    assert any(line.endswith("(1 x 8 tokens over the speculative request's time on 1 GPU)")
               for line in lines)  # fmt: skip
    ep = ["--ep", "2", "--batch", "2", "--prompt", "4", "--new-tokens", "2"]
    assert cmd.main(["--config", str(tmp_path / "mixtral.json"), "--engine", "trtllm", *ep]) == 0
    assert "(2 x 2 tokens over the request's time on 2 GPUs)" in capsys.readouterr().out
    parser = cmd.make_parser()
    # the docstring's reST quotes stay out of the terminal
    assert parser.description.startswith("python3 -m common.predict: predict a model's")
    assert "\n\n" not in parser.description  # the docstring's first paragraph only
    shown = " ".join(parser.format_help().split())
    assert "--new-tokens NEW_TOKENS generated (128)" in shown
    assert "--speculate K draft tokens a step" in shown
    assert "--acceptance A probability a draft token is accepted (with --speculate)" in shown
    assert "a100-80gb (a100-80gb)" in shown  # every flag with a default names it
    assert "nvfp4, mxfp4 (the config's quantization_config, else bf16;" in shown
    assert "where Hugging Face's device_map='auto' runs its GPUs in turn (vllm)" in shown
    for action in parser._actions:  # every option says what it is, and its default if it has one
        assert action.help, action.dest
        if action.default not in (None, False, "==SUPPRESS=="):
            assert f"({action.default}" in action.help, action.dest


def test_a_draft_whose_heads_do_not_split_is_one_line(tmp_path, capsys) -> None:
    draft = {**LLAMA, "hidden_size": 48, "num_attention_heads": 2, "num_key_value_heads": 1}
    (tmp_path / "draft.json").write_text(json.dumps(draft))
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA))
    flags = ["--config", str(path), "--prompt", "4", "--new-tokens", "2"]
    spec = ["--speculate", "1", "--acceptance", "0.5", "--draft-config"]
    draft_path = str(tmp_path / "draft.json")  # 4 heads split over 4 GPUs; the draft's 2 do not
    said = refused([*flags, "--gpus", "4", *spec, draft_path], capsys)  # 1 and 2 split both
    assert "split the draft draft's heads (query 2, KV 1) evenly; give --gpus 1 or 2 (" in said
    # Llama-2-7B at batch 1 reads its weights once a step: in fp8 its 6,476,271,616 linear weights
    # at 1 B and LM head's 131,072,000 at 2 B, in bf16 all 6,607,343,616 at 2 B (the rest < 0.1%)
    bounds = []
    for precision in ("bf16", "fp8"):
        flags = ["--model", "llama-2-7b", "--chip", "h100", "--engine", "trtllm", "--json"]
        assert cmd.main([*flags, "--precision", precision]) == 0
        bounds.append(json.loads(capsys.readouterr().out)["bound_decode_step_s"])
    assert bounds[1] / bounds[0] == pytest.approx(6_738_415_616 / 13_214_687_232, rel=2e-3)
