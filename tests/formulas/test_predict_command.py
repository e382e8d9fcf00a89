"""``python3 -m common.predict``: its JSON against hand arithmetic, and bad configs in one line.
Two tiny configs (one layer, width 64) keep every operator far below the A100's ridge: each
moves its bytes, counted here, at vidur's 1,642 GB/s, a weight read after a start-up time
of 5.09 us, every other kernel at the floor."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from published_configs import ALL

from common import predict as cmd
from common.formulas.predict import KV_TERM, ep_network
from common.hw_specs import CHIPS, get_chip
from common.tables import configs as cmd_configs

REPO = Path(__file__).resolve().parents[2]
# the lines through vidur's 116 A100 and 84 H100 one-row projections (test_predict.least_squares)
T0, BW, T0_H100, BW_H100 = 5.094551e-6, 1.6422401e12, 4.362367e-6, 3.0079617e12
SPEC_BW = 2.039e12  # the A100 80GB's datasheet HBM bandwidth
FLOOR = (5 + 2 + 7 + 5) / 4 * 1e-6  # vidur's four smallest kernels at one token, mean
AR_SMALL = 46e-6  # the 2-GPU DGX A100 NCCL curve below its first point (16 KiB): 2 steps
LLAMA = {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4,
         "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 100,
         "tie_word_embeddings": False, "max_position_embeddings": 64}  # fmt: skip
GPT2 = {"model_type": "gpt2", "n_embd": 64, "n_layer": 1, "n_head": 4, "vocab_size": 100}

# Llama, bf16, d = 64, 4 heads of 16, 2 KV heads (32 wide), d_ff = 128, V = 100.
# Decode, 1 token, cache of 5: norm 128 + 2*64*2; Q 2(64 + 64*64 + 64); K, V 2(64 + 64*32 + 32);
# scores and P V: Q or O 64*2 + cache 5*32*2; O proj as Q; add 3*64*2; gate, up 2(64 + 8192 + 128);
# SiLU x up 3*128*2; down 2(128 + 8192 + 64); embedding 64*2 + 64*2; LM head 2(64 + 6400 + 100).
DECODE_BYTES = (384 + 8448 + 2 * 4288 + 2 * 448 + 8448 + 384 + 384 + 2 * 16768 + 768 + 16768
                + 384 + 256 + 384 + 13128)  # fmt: skip
# The 8 weight reads of the decode step (Q, K, V, output, gate, up, down, LM head: 88,904 B) take
# t0 each above their bytes; the 10 other kernels of the 18 sit below the floor
STEP = 8 * T0 + 88904 / BW + 10 * FLOOR
# Prefill of 4 tokens: norms 4*64*2*2 + 128; Q 2(256 + 4096 + 256); K, V 2(256 + 2048 + 128);
# scores, P V 4*64*2 + 4*32*2; adds 3*4*64*2; gate, up, down 2(.. + 8192 + ..); SiLU 3*4*128*2;
# embedding 4*64*2*2; final norm (last token) 384; LM head (last token) 13128.
PREFILL_BYTES = (1152 + 9216 + 2 * 4864 + 2 * 768 + 9216 + 1536 + 1152 + 2 * 17920 + 3072
                 + 17920 + 1536 + 1024 + 384 + 13128)  # fmt: skip


def run_json(tmp_path: Path, config: dict, *flags: str, capsys: pytest.CaptureFixture) -> dict:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    assert cmd.main(["--config", str(path), "--json", *flags]) == 0
    return json.loads(capsys.readouterr().out)


def test_llama_config_one_gpu_bound_is_bytes_over_the_datasheet(tmp_path, capsys) -> None:
    # 2 new tokens: the prefill yields the first, one decode step (cache 5) the second
    flags = ("--prompt", "4", "--new-tokens", "2", "--engine", "trtllm")
    got = run_json(tmp_path, LLAMA, *flags, capsys=capsys)
    assert got["bound_decode_step_s"] == pytest.approx(DECODE_BYTES / SPEC_BW, rel=1e-4)
    assert got["bound_prefill_s"] == pytest.approx(PREFILL_BYTES / SPEC_BW, rel=1e-4)
    assert got["bound_total_s"] == pytest.approx((DECODE_BYTES + PREFILL_BYTES) / SPEC_BW)
    step = got["terms"]["decode_step"]
    # every byte at 1,642 GB/s, and each of the 8 weight reads of 88,904 B (as STEP) t0 more
    shares = step["bound (spec roofs)"] + step["measured GEMM and HBM shares"]
    assert shares == pytest.approx(8 * T0 + DECODE_BYTES / BW, rel=1e-4)
    assert step["all-reduce beyond ring bytes"] == 0.0 and step["fixed cost per step"] == 0.0
    # the 10 other kernels of the 18 (15 a layer and 3 once) sit below the floor and take it
    assert got["decode_step_s"] == pytest.approx(STEP, rel=1e-4)
    assert got["decode_step_s"] >= got["bound_decode_step_s"]
    flags = ("--gpus", "2", "--prompt", "4", "--new-tokens", "3", "--engine", "trtllm-mmha")
    got = run_json(tmp_path, GPT2, *flags, capsys=capsys)
    step = got["terms"]["decode_step"]
    ring = 2 * (2 - 1) / 2 * 128 / 300e9  # one all-reduce's ring bytes over NVLink 3
    assert step["all-reduce beyond ring bytes"] == pytest.approx(2 * (AR_SMALL - ring))
    # 7 weight reads (Q, K, V, output, up, down, LM head: 56,868 B on each of the 2 GPUs)
    assert got["decode_step_s"] == pytest.approx(7 * T0 + 56868 / BW + 10 * FLOOR + 2 * AR_SMALL)
    # and at 4 prompt tokens 60,324 B (Q, K, V, output 4,608 each; up, down 17,664; LM head 6,564)
    assert got["prefill_s"] == pytest.approx(7 * T0 + 60324 / BW + 10 * FLOOR + 2 * AR_SMALL)
    assert got["total_s"] == pytest.approx(21 * T0 + (60324 + 2 * 56868) / BW + 30 * FLOOR
                                           + 6 * AR_SMALL)  # fmt: skip
    assert got["gpus"] == 2 and got["allreduce"] == "measured curve"
    base = ("--prompt", "4", "--new-tokens", "2")
    # vLLM: 4 ms of GPU bubble once per 8 steps (its RFC #6854); eager modules: 1 / 25.5 s less
    # 1 / 104.9 s a step over 483 kernels (gpt-fast eager and compiled), for each of the 18
    # kernels of a step; vLLM's code without graphs: 0.15 s over 100 steps of 483 (PR #1440)
    vllm = run_json(tmp_path, LLAMA, *base, "--engine", "vllm", capsys=capsys)
    assert vllm["decode_step_s"] == pytest.approx(STEP + 4e-3 / 8)
    sglang = run_json(tmp_path, LLAMA, *base, "--engine", "sglang", capsys=capsys)  # overlapped
    assert sglang["decode_step_s"] == pytest.approx(STEP)
    eager = run_json(tmp_path, LLAMA, *base, "--engine", "eager", capsys=capsys)
    # and repeat_kv's copies: g = 4 / 2 = 2; K and V (5 x 32 x 2 = 320 B each) read once,
    # written twice, read twice by attention instead of once: 2 g x 640 = 2,560 B more
    copies = 2560 / BW
    assert eager["terms"]["decode_step"]["KV re-read per query head"] == pytest.approx(copies)
    launch = (1 / 25.5 - 1 / 104.9) / 483
    assert eager["decode_step_s"] == pytest.approx(STEP + 18 * launch + copies)
    # vLLM before multi-step scheduling: the 4 ms bubble every step; before CUDA graphs too:
    # the launches as well
    single = run_json(tmp_path, LLAMA, *base, "--engine", "vllm-single-step", capsys=capsys)
    assert single["decode_step_s"] == pytest.approx(STEP + 4e-3)
    # from v0.4.3, FlashAttention decodes: each KV head read once for its group, no re-read term
    flash = run_json(tmp_path, LLAMA, *base, "--engine", "vllm-single-step-flash", capsys=capsys)
    assert flash["decode_step_s"] == pytest.approx(single["decode_step_s"])
    assert [KV_TERM in p["terms"]["decode_step"] for p in (single, flash)] == [True, False]
    old = run_json(tmp_path, LLAMA, *base, "--engine", "vllm-eager", capsys=capsys)
    assert old["decode_step_s"] == pytest.approx(STEP + 18 * 0.15 / 100 / 483 + 4e-3)
    flags = ("--chip", "h100", "--gpus", "2", "--prompt", "4", "--new-tokens", "2")
    # vidur's H100 kernels: (4 + 1 + 6 + 4) / 4 us; its DGX H100 curve (NCCL, as TensorRT-LLM
    # before v0.8 runs it): 31 us below 16 KiB; TensorRT-LLM's own kernel: 3.7 us below 2 KiB
    for engine, us in (("trtllm-mmha", 31e-6), ("trtllm", 3.7e-6)):
        got = run_json(tmp_path, GPT2, *flags, "--engine", engine, capsys=capsys)
        step = 7 * T0_H100 + 56868 / BW_H100 + 10 * 3.75e-6
        assert got["decode_step_s"] == pytest.approx(step + 2 * us)
        beyond = got["terms"]["decode_step"]["all-reduce beyond ring bytes"]
        assert beyond == pytest.approx(2 * (us - 128 / 450e9))
    int4 = run_json(tmp_path, LLAMA, *flags, "--precision", "int4", capsys=capsys)["left_out"]
    assert "the table gives H100 SXM no int4 peak: the matmuls run at its bf16 peak" in int4[0]
    tpu = run_json(tmp_path, GPT2, "--chip", "tpu-v5e", capsys=capsys)
    assert tpu["terms"]["decode_step"]["kernel floor"] == 0.0
    assert any("no per-shape GEMM" in note for note in tpu["left_out"])


def test_table_output_names_each_term(capsys, tmp_path) -> None:
    assert cmd.main(["--model", "llama-3-8b", "--new-tokens", "4"]) == 0
    out = capsys.readouterr().out
    words = ("prefill", "decode step (mean)", "bound (spec roofs)", "all-reduce", "kernel floor")
    for word in (*words, "fixed cost per step", "at the datasheet's roofs (what no engine beats)"):
        assert word in out
    assert "throughput" in out and "3 decode steps" in out  # 4 new tokens: prefill + 3 steps
    # The prefill gives the first token: with one new token no decode step runs, so the table's
    # decode column says '-', not a step of 0.000 ms; with two it has a time.
    for new, dash in (("1", True), ("2", False)):
        assert cmd.main(["--model", "llama-2-7b", "--new-tokens", new]) == 0
        rows = [ln.split() for ln in capsys.readouterr().out.splitlines()]
        forecast = next(row for row in rows if row[:2] == ["forecast", "(sum)"])
        assert (forecast[-1] == "-") is dash and forecast[3] == "ms"  # the prefill
    got = run_json(tmp_path, LLAMA, "--prompt", "4", "--new-tokens", "1", capsys=capsys)
    assert got["params_total"] == got["params_active"] == 49856
    assert cmd.main(["--model", "mixtral-8x7b", "--chip", "h100", "--gpus", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Mixtral-8x7B on 2 x ")
    assert "parameters: 46.70 B total, 12.88 B active per token" in out
    assert cmd._rate(0.00312) == "0.0031"
    assert cmd._rate(0.05) == "0.1" and cmd._rate(12_345.67) == "12,345.7"
    llama = cmd.model_from_config({k: v for k, v in LLAMA.items() if k != "model_type"})
    assert (llama.n_layers, llama.d_model, llama.n_heads, llama.n_kv_heads) == (1, 64, 4, 2)
    assert (llama.d_head, llama.d_ff, llama.vocab_size, llama.max_context) == (16, 128, 100, 64)
    assert llama.gated_mlp and not llama.tied_embeddings
    lean = {k: v for k, v in LLAMA.items()
            if k not in ("num_key_value_heads", "max_position_embeddings")}  # fmt: skip
    mha = cmd.model_from_config(
        {**lean, "head_dim": 32, "tie_word_embeddings": True, "max_position_embeddings": 9}
    )
    assert (mha.n_kv_heads, mha.d_head, mha.max_context) == (4, 32, 9) and mha.tied_embeddings
    gpt = cmd.model_from_config({k: v for k, v in GPT2.items() if k != "model_type"})
    assert (gpt.n_layers, gpt.d_model, gpt.n_heads, gpt.n_kv_heads, gpt.d_head) == (1, 64, 4, 4, 16)
    # n_inner: 4 x 64; n_positions: GPT2Config's default, 1,024
    assert (gpt.d_ff, gpt.vocab_size, gpt.max_context) == (256, 100, 1024)
    assert gpt.tied_embeddings and not gpt.gated_mlp
    sized = cmd.model_from_config({**GPT2, "n_inner": 100, "n_positions": 32}, "x.json")
    assert (sized.d_ff, sized.max_context, sized.name) == (100, 32, "x")  # the file's stem


@pytest.mark.parametrize(("config", "words"), [
    ({"model_type": "falcon", "hidden_size": 8}, "unsupported model_type 'falcon'"),
    ({**LLAMA, "model_type": "mixtral"}, "lacks 'num_local_experts' (mixtral family)"),
    ({**LLAMA, "num_key_value_heads": 0}, "'num_key_value_heads' must be a positive integer"),
    ({**LLAMA, "head_dim": 0}, "'head_dim' must be a positive integer"),
    ({**GPT2, "n_inner": 0}, "'n_inner' must be a positive integer"),
    ({**LLAMA, "num_hidden_layers": 10**300}, "'num_hidden_layers' must be a positive integer"),
    ({**LLAMA, "num_key_value_heads": 3}, "'num_attention_heads' (4) must be a multiple of"),
    ({**LLAMA, "max_position_embeddings": None}, "lacks 'max_position_embeddings' (llama"),
    ({"model_type": "gemma3", "hidden_size": 8}, "lacks 'text_config' (gemma3 family)"),
    ({"model_type": "qwen3_vl", "text_config": {"model_type": "vl_text"}}, "'vl_text' in"),
    ({**LLAMA, "layer_types": ["linear_attention"]}, "'layer_types' must list ("),
    ({"model_type": "llama", "hidden_size": 64}, "lacks 'num_hidden_layers'"),
    ({**GPT2, "n_embd": 64.0}, "'n_embd' must be a positive integer"),
    ({**GPT2, "n_head": True}, "'n_head' must be a positive integer"),
    ({**LLAMA, "num_attention_heads": 5}, "not a multiple of 5 heads"),
    ([1, 2], "must hold a JSON object"), ("{", "is not valid JSON"),
])  # fmt: skip
def test_bad_configs_are_one_line_and_status_2(tmp_path, capsys, config, words) -> None:
    path = tmp_path / "config.json"
    path.write_text(config if isinstance(config, str) else json.dumps(config))
    assert words in refused(["--config", str(path)], capsys)


def test_bare_python3_answers_and_refuses_in_one_line(tmp_path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**LLAMA, "model_type": "falcon"}))
    run = [shutil.which("python3"), "-S", "-m", "common.predict"]
    bad = subprocess.run([*run, "--config", str(path)], cwd=REPO, capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == ""
    as_file = [*run[:2], str(REPO / "common" / "predict.py"), "--config", str(path)]  # elsewhere
    assert subprocess.run(as_file, cwd=tmp_path, capture_output=True, text=True).stderr == (
        bad.stderr
    )
    assert bad.stderr == (
        f"common.predict: error: unsupported model_type 'falcon' in {path}; supported: llama, "
        "mistral, ministral3, qwen2, qwen3, phi3, qwen3_5_text, qwen3_vl_text, gemma, gemma2, "
        "gemma3, gemma3_text, mixtral, qwen2_moe, qwen3_moe, deepseek_v3, deepseek_v32, "
        "glm_moe_dsa, gpt_oss, glm4_moe, minimax_m2, qwen3_next, qwen3_5_moe_text, "
        "qwen3_vl_moe_text, llama4, llama4_text, gpt2, opt (see --help)\n"
    )
    # every family answers, well under a second on a quiet machine (loaded CI gets slack)
    for key, published in ALL.items():
        path.write_text(json.dumps(published.config))
        gpus = "8" if key in ("deepseek-v3", "llama-4-maverick", "glm-5") else "2"
        flags = ["--config", str(path), "--gpus", gpus, "--precision", "fp8", "--json"]
        start = time.perf_counter()
        done = subprocess.run([*run, *flags, "--chip", "h200"], cwd=REPO, capture_output=True,
                              text=True)  # fmt: skip
        assert time.perf_counter() - start < 3 and done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["model"].startswith(published.config["architectures"][0])


def test_a_missing_file_and_an_uneven_split_are_one_line(tmp_path, capsys) -> None:
    assert "none.json" in refused(["--config", str(tmp_path / "none.json")], capsys)
    refused(["--model", "llama-3-8b", "--gpus", "3"], capsys)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # opening it would block until a writer came
    assert "is not a regular file" in refused(["--config", str(fifo)], capsys)
    assert "/dev/zero is not a regular file" in refused(["--config", "/dev/zero"], capsys)
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(cmd_configs.MAX_BYTES + 1)  # sparse: 1 MiB and a byte of nothing
    assert "under 1 MiB" in refused(["--config", str(big)], capsys)
    line = refused(["--config", ""], capsys)
    assert line.startswith("common.predict: error: ") and "expected a path, got an empty" in line
    path = "/" + "x" * 5000 + "/config.json"
    line = refused(["--config", path], capsys)
    assert len(line) < 300 and "..." in line and line.count("x") < 200
    config = {**LLAMA, "architectures": ["Evil\nName"], "num_key_value_heads": 3}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    assert "must be a multiple of" in refused(["--config", str(path)], capsys)
    assert cmd.model_from_config({**LLAMA, "architectures": ["A\nB"]}).name == "A?B"
    top = 2**31 - 1
    config = {**LLAMA, "hidden_size": top, "num_hidden_layers": top,
              "num_attention_heads": top - 1, "num_key_value_heads": 1, "head_dim": 1}  # fmt: skip
    path.write_text(json.dumps(config))
    start = time.perf_counter()
    line = refused(["--config", str(path), "--prompt", "4", "--new-tokens", "1"], capsys)
    assert "config key 'num_hidden_layers' must be at most 1,024, got 2.15e+09" in line
    assert time.perf_counter() - start < 5


def test_splits_windows_batches_and_words(tmp_path, capsys, monkeypatch) -> None:
    # 4 GPUs split 4 heads and replicate 2 KV heads; 8 GPUs cannot split 4 heads.
    got = run_json(tmp_path, LLAMA, "--gpus", "4", "--prompt", "4", "--new-tokens", "1",
                   "--batch", "2", capsys=capsys)  # fmt: skip
    assert got["tokens_per_s"] == pytest.approx(2 * 1 / got["total_s"])
    config = ["--config", str(tmp_path / "config.json"), "--prompt"]
    said = refused([*config, "4", "--new-tokens", "1", "--gpus", "8"], capsys)  # 3, 5-8 do not
    assert "split config's heads (query 4, KV 2) evenly; give --gpus 1, 2 or 4 (see" in said
    # Llama-3-8B's 32 and 8 heads on 3: within an H100 node of 8, 1, 2, 4 and 8 split them; a
    # TPU v5e has no node in the table: the counts up to twice the request
    for chip, counts in (("h100", "1, 2, 4 or 8"), ("tpu-v5e", "1, 2 or 4")):
        flags = ["--model", "llama-3-8b", "--chip", chip, "--gpus", "3"]
        assert f"evenly; give --gpus {counts} (see" in refused(flags, capsys)
    # 60 + 10 tokens pass the window of 64
    assert "past config's window of 64" in refused([*config, "60", "--new-tokens", "10"], capsys)
    tpu = run_json(tmp_path, GPT2, "--chip", "tpu-v5e", capsys=capsys)
    assert tpu["measured_roofs"] == [] and tpu["allreduce"] == "none (one GPU)"
    monkeypatch.setattr("sys.argv", ["common.predict", "--model", "llama-2-7b", "--chip", "tpu-v5e",
                                     "--json"])  # fmt: skip
    assert cmd.main() == 0
    assert capsys.readouterr().out.startswith('{\n "model": "Llama-2-7B",\n "chip": "TPU v5e",\n')
    monkeypatch.setattr(
        "sys.argv", ["common.predict", "--model", "llama-2-7b", "--chip", "tpu-v5e"])  # fmt: skip
    assert cmd.main() == 0
    assert "roofs measured: none (spec roofs); all-reduce: measured curve" not in (
        text := capsys.readouterr().out
    )
    assert "roofs measured: none (spec roofs)" in text and text.startswith("Llama-2-7B on 1 x ")
    assert cmd.main(["--model", "llama-2-7b", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (got["prompt"], got["new_tokens"], got["gpus"], got["batch"]) == (512, 128, 1, 1)
    assert got["chip"] == "A100 80GB SXM" and got["precision"] == "bf16"
    with pytest.raises(SystemExit) as stop:
        cmd.main(["--help"])
    assert stop.value.code == 0
    helped = " ".join((shown := capsys.readouterr().out).split())
    assert "vllm-eager:" in shown and "-\n" not in shown  # never "vllm-" then "eager:"
    assert "predict a model's latency on a chip from the ledgers" in helped
    assert "--config --model is required" in refused(["--chip", "a100"], capsys)
    untied = {k: v for k, v in LLAMA.items() if k != "tie_word_embeddings"}
    assert not cmd.model_from_config(untied).tied_embeddings
    got = run_json(tmp_path, LLAMA, "--prompt", "64", "--new-tokens", "1", capsys=capsys)
    assert got["prompt"] == 64
    got = run_json(tmp_path, LLAMA, "--prompt", "60", "--new-tokens", "5", capsys=capsys)
    assert got["new_tokens"] == 5
    # speculation also writes its K drafted tokens: 60 + 3 - 1 + 2 = 64 positions fit
    flags = ("--prompt", "60", "--new-tokens", "3", "--speculate", "2", "--acceptance", "0.5")
    assert run_json(tmp_path, LLAMA, *flags, capsys=capsys)["speculation"]["draft_tokens"] == 2
    line = refused([*config, "60", "--new-tokens", "6"], capsys)
    assert "need 65 positions" in line and "window of 64 (max_position_embeddings)" in line


def refused(argv: list[str], capsys: pytest.CaptureFixture) -> str:
    """The one line a refused command prints (status 2, nothing on stdout)."""
    with pytest.raises(SystemExit) as stop:
        cmd.main(argv)
    err = capsys.readouterr()
    assert stop.value.code == 2 and err.out == "" and err.err.count("\n") == 1
    return err.err


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        # 70.6B x 2 bytes = 141 GB on one 80 GB A100; two hold 70.6 GB each plus the cache.
        (["--model", "llama-3-70b"], "2 GPUs would hold it"),
        # 8.03B x 2 bytes = 16.06 GB on a 16 GB TPU v5e.
        (["--model", "llama-3-8b", "--chip", "tpu-v5e"], "2 GPUs would hold it"),
        # 7,560 x 639 tokens x 128 KiB = 633.2 GB of cache: 8 GPUs, a node, hold one of the 8
        # KV heads each, 79.15 GB, and 16.06 / 8 = 2.01 GB of weights: 81.2, over 80.
        (
            ["--model", "llama-3-8b", "--batch", "7560"],
            "no split of its 32 heads within one node of 8 GPUs would hold it (",
        ),
        # 2^20 sequences x 639 tokens x 128 KiB = 87.8 TB: 32 TPU v6e hold 1.0 TB at most.
        (
            ["--model", "llama-3-8b", "--batch", "1048576", "--chip", "tpu-v6e"],
            "no split of its 32 heads would hold it (",
        ),
    ],
)
def test_a_request_that_cannot_fit_says_how_many_gpus_would(flags, words, capsys) -> None:
    line = refused(flags, capsys)
    assert "weights and KV cache need" in line and words in line


def test_tensor_parallelism_stays_in_a_node(tmp_path, capsys, monkeypatch) -> None:
    line = refused(["--model", "llama-3-70b", "--chip", "h100", "--gpus", "16"], capsys)
    assert "16 GPUs in tensor parallel span more than one node of 8 x H100 SXM" in line
    v3 = ["--model", "deepseek-v3", "--chip", "h200", "--gpus", "16"]
    assert "--ep N" not in line and "--ep N" in refused(v3, capsys)
    assert "try --ep N" in refused(["--model", "deepseek-v3", "--chip", "h100"], capsys)
    # a TPU slice draws no node: 16 chips answer, and --ep 16 keeps every dispatch on ICI
    for chip, gpus in (("h100", "8"), ("tpu-v5e", "16")):
        assert cmd.main(["--model", "llama-3-70b", "--chip", chip, "--gpus", gpus]) == 0
        assert f"on {gpus} x " in capsys.readouterr().out
    assert ep_network(get_chip("tpu-v5e"), 16, 1).node_gpus == 16
    assert ep_network(get_chip("h100"), 16, 1).node_gpus == 8
    got = run_json(tmp_path, {**GPT2, "n_embd": 48, "n_head": 6}, "--gpus", "3", capsys=capsys)
    assert got["allreduce"] == "ring bytes over the link roof, no latency"  # no 3-GPU curve
    monkeypatch.setitem(CHIPS, "h100", dataclasses.replace(CHIPS["h100"], node_gpus=0))  # an edit
    line = refused(["--model", "llama-2-7b", "--chip", "h100"], capsys)
    assert "H100 SXM node_gpus must be" in line


@pytest.mark.parametrize(
    ("engine", "cache"),
    [("trtllm", "fp8"), ("vllm", "bf16"), ("eager", "bf16")],  # trtllm's builds: --fp8_kv_cache
)
def test_the_first_line_says_what_each_engine_stores_at_fp8(capsys, engine, cache) -> None:
    flags = ["--model", "llama-2-7b", "--chip", "h100", "--precision", "fp8", "--engine", engine]
    assert cmd.main(flags) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert f", fp8 weights (bf16 embedding and LM head), {cache} KV cache, bf16 activ" in first


@pytest.mark.parametrize(
    ("flag", "choice"),
    [("chip", "h100"), ("model", "llama-3-8b"), ("engine", "trtllm"), ("precision", "fp8")],
)
def test_an_unknown_choice_is_a_usage_error_naming_the_choices(capsys, flag, choice) -> None:
    flags = {"model": "llama-2-7b", "chip": "h200"}
    err = refused([f"--{k}={v}" for k, v in {**flags, flag: "nope"}.items()], capsys)
    assert f"argument --{flag}: unknown {flag} 'nope'" in err and choice in err
    # a choice is read whatever its case, and --help lists the choices
    assert cmd.main([f"--{k}={v}" for k, v in {**flags, flag: choice.upper()}.items()]) == 0
    assert choice in capsys.readouterr().out.lower() and choice in cmd.make_parser().format_help()


def test_a_quantized_checkpoint_is_forecast_as_stored(tmp_path, capsys) -> None:
    fp8 = {**ALL["deepseek-v3"].config, "quantization_config": {"quant_method": "fp8"}}
    v3 = ["--chip", "h200", "--gpus", "8", "--prompt", "8", "--new-tokens", "2"]
    # 671 B at 1 byte over 8 GPUs is 84 GB of 141 each; at bf16's 2 bytes, 167.75 GB
    got = run_json(tmp_path, fp8, *v3, capsys=capsys)
    assert got["precision"] == "fp8" and "fp8 weights (bf16 embedding" in got["stored"]
    assert "quant_method 'fp8': the linear layers in fp8;" in got["left_out"][0]
    path = tmp_path / "config.json"
    assert "167.8 GB per GPU" in refused(["--config", str(path), *v3, "--precision", "bf16"],
                                         capsys)  # fmt: skip
    # DeepSeek-V3.2 is V3 with an indexer a layer (1536 x 64 x 128 + 7168 x (64 + 128) + 256
    # parameters): at 16 x 32,000 cached, each query reads 2,048 latents, not 32,000
    v32 = {**fp8, "model_type": "deepseek_v32", "index_n_heads": 64, "index_head_dim": 128,
           "index_topk": 2048}  # fmt: skip
    long = [*v3[:4], "--prompt", "32000", "--batch", "16", "--new-tokens", "2"]
    sparse, dense = (run_json(tmp_path, c, *long, capsys=capsys) for c in (v32, fp8))
    assert sparse["params_total"] - dense["params_total"] == 61 * 13_959_424
    assert sparse["left_out"][1].startswith("sparse attention: an indexer (61 of 61 layers)")
    assert sparse["decode_step_s"] < dense["decode_step_s"]
    left = {"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn"]}
    oss = {**ALL["gpt-oss-20b"].config, "quantization_config": left}
    got = run_json(tmp_path, oss, capsys=capsys)
    assert got["stored"].startswith("bf16 weights (mxfp4 routed experts), bf16 KV cache")
    assert "the table gives A100 80GB SXM no mxfp4 peak" in got["left_out"][1]
    assert run_json(tmp_path, oss, "--precision", "fp8", capsys=capsys)["stored"].startswith(
        "fp8 weights (bf16 embedding and LM head), bf16 KV")  # fmt: skip
    left["quant_method"] = "fbgemm_fp8"  # a peak H100 has, beside 16-bit attention
    notes = run_json(tmp_path, oss, "--chip", "h100", capsys=capsys)["left_out"]
    assert notes[1] == "the routed experts' fp8 matmuls counted at the bf16 peak of the rest"
