"""``python3 -m common.predict``: predict a model's latency on a chip from the ledgers.

Point it at a Hugging Face ``config.json`` (``--config``) or a model of the table
(``--model``), a chip, a GPU count (tensor parallel), a batch, a prompt and a number of
new tokens. It prints the roofline bound (what no engine beats, at the datasheet's and
at the achievable roofs) and a forecast of what an engine measures: the bound plus each
named term of the gap (``common.formulas.predict``), taken from the measurements of
``common.tables.engines`` for the engine class of ``--engine``; a term nobody measured
is left out, and the output says so. ``--json`` prints one JSON object instead.
Standard library only; a bad flag or config is one line, exit 2.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from common.shell import boot

if __name__ == "__main__":
    boot.start("common.predict")

from common.formulas.predict import (
    achievable_roofs,
    engine_roofs,
    forecast,
    request_bound,
    spec_roofs,
)
from common.formulas.transformer import DTypes, check_context
from common.hw_specs import CHIPS, get_chip
from common.present.console import fmt_time, format_table
from common.shell.cli import LectureParser, batch_size, one_of, path_text, positive_int
from common.tables.engines import ENGINES
from common.tables.models import MODELS, Model, get_model

LLAMA_KEYS = ("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size")
GPT2_KEYS = ("n_embd", "n_layer", "n_head", "vocab_size")
LLAMA_TYPES = ("llama", "mistral", "qwen2")


def _int(config: Mapping[str, Any], key: str) -> int:
    value = config[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"config key {key!r} must be a positive integer, got {value!r}")
    return value


def model_from_config(config: object, name: str = "config.json") -> Model:
    """A Model from a Hugging Face config: the Llama/Mistral/Qwen2 or the GPT-2 family's keys."""
    if not isinstance(config, dict):
        raise ValueError(f"{name} must hold a JSON object")
    kind = config.get("model_type", "gpt2" if "n_embd" in config else "llama")
    if kind not in (*LLAMA_TYPES, "gpt2"):
        families = ", ".join((*LLAMA_TYPES, "gpt2"))
        raise ValueError(f"unsupported model_type {kind!r} in {name}; supported: {families}")
    gpt2 = kind == "gpt2"
    missing = [k for k in (GPT2_KEYS if gpt2 else (*LLAMA_KEYS, "vocab_size")) if k not in config]
    if missing:
        raise ValueError(f"{name} lacks {', '.join(map(repr, missing))} ({kind} family)")
    if gpt2:
        d, heads = _int(config, "n_embd"), _int(config, "n_head")
        inner = config.get("n_inner") or 4 * d
        fields = (_int(config, "n_layer"), d, heads, heads, d // heads, inner, False)
        tied, window = True, config.get("n_positions", 2**30)
    else:
        d, heads = _int(config, "hidden_size"), _int(config, "num_attention_heads")
        kv = config.get("num_key_value_heads") or heads
        d_head = config.get("head_dim") or d // heads
        ff = _int(config, "intermediate_size")
        fields = (_int(config, "num_hidden_layers"), d, heads, kv, d_head, ff, True)
        tied = bool(config.get("tie_word_embeddings", False))
        window = config.get("max_position_embeddings", 2**30)
    layers, d, heads, kv, d_head, ff, gated = fields
    if not config.get("head_dim") and d % heads:
        raise ValueError(f"{name}: hidden size {d} is not a multiple of {heads} heads")
    return Model(
        name, "config", layers, d, heads, kv, d_head, ff, gated,
        _int(config, "vocab_size"), tied, window, f"{name} ({kind} family)",
    )  # fmt: skip


def read_config(path: str) -> Model:
    """The Model of a config.json file; ValueError (one line) for any unreadable or bad one."""
    try:
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{path} is not valid JSON ({str(exc).split(':')[0]})") from None
    return model_from_config(config, str(path))


def make_parser() -> LectureParser:
    """The command line."""
    parser = LectureParser(prog="common.predict", description=__doc__.split("\n\n")[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--config", type=path_text, metavar="FILE", help="a config.json")
    which.add_argument("--model", type=one_of(MODELS, "model"), help=", ".join(MODELS))
    parser.add_argument("--chip", type=one_of(CHIPS, "chip"), default="a100-80gb")
    parser.add_argument("--gpus", type=positive_int, default=1, help="tensor parallel (1)")
    parser.add_argument("--batch", type=batch_size, default=1, help="sequences (1)")
    parser.add_argument("--prompt", type=positive_int, default=512, help="prompt tokens (512)")
    parser.add_argument("--new-tokens", type=positive_int, default=128, help="generated (128)")
    parser.add_argument("--precision", default="bf16", help="weights, cache, activations")
    parser.add_argument(
        "--engine", type=one_of(ENGINES, "engine"), default="vllm",
        help="; ".join(f"{k}: {e.what}" for k, e in ENGINES.items()),
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def predict_request(args: Any) -> dict[str, Any]:
    """The prediction for parsed flags, as the JSON object the command prints."""
    model = read_config(args.config) if args.config else get_model(args.model)
    chip = get_chip(args.chip)
    dtypes = DTypes(args.precision, args.precision, args.precision)
    check_context(model, args.prompt + args.new_tokens)
    if model.n_heads % args.gpus or (model.n_kv_heads % args.gpus and args.gpus % model.n_kv_heads):
        raise ValueError(f"{args.gpus} GPUs cannot split {model.name}'s heads evenly")
    spec, ach = spec_roofs(chip, args.precision), achievable_roofs(chip, args.precision)
    eng = engine_roofs(chip, args.engine, args.precision)
    shape = (args.gpus, args.batch, args.prompt, args.new_tokens, dtypes)
    f = forecast(model, spec, eng, *shape)
    return {
        "model": model.name, "chip": chip.name, "gpus": args.gpus, "batch": args.batch,
        "prompt": args.prompt, "new_tokens": args.new_tokens, "precision": args.precision,
        "engine": args.engine,
        "prefill_s": f.prefill_s, "decode_step_s": f.decode_step_s, "total_s": f.total_s,
        "tokens_per_s": args.batch * args.new_tokens / f.total_s,
        "bound_prefill_s": f.bound_prefill_s, "bound_decode_step_s": f.bound_decode_step_s,
        "bound_total_s": request_bound(model, spec, *shape),
        "bound_achievable_total_s": request_bound(model, ach, *shape),
        "terms": {"prefill": f.prefill, "decode_step": f.decode_step},
        "measured_roofs": list(ach.measured),
        "allreduce": "measured curve" if eng.curve else "ring bytes over the link roof, no latency",
        "left_out": list(eng.notes),
    }  # fmt: skip


def render(r: Mapping[str, Any]) -> str:
    """The prediction as a readable table: the bound, each term of the gap, the forecast."""
    passes = ("prefill", "decode_step")
    rows = [(t, *(fmt_time(r["terms"][p][t], "ms") for p in passes)) for t in r["terms"]["prefill"]]
    rows.append(
        ("forecast (sum)", fmt_time(r["prefill_s"], "ms"), fmt_time(r["decode_step_s"], "ms"))
    )
    return "\n".join([
        f"{r['model']} on {r['gpus']} x {r['chip']}, {r['precision']}, batch {r['batch']}, "
        f"{r['prompt']} prompt + {r['new_tokens']} new tokens, engine {r['engine']}",
        format_table(("term", "prefill", "decode step (mean)"), rows),
        f"bound (what no engine beats): {fmt_time(r['bound_total_s'], 'ms')} at the datasheet's "
        f"roofs, {fmt_time(r['bound_achievable_total_s'], 'ms')} at the achievable ones",
        f"forecast: {fmt_time(r['total_s'], 'ms')} = prefill + {r['new_tokens']} decode steps; "
        f"throughput {r['tokens_per_s']:,.1f} generated tokens/s",
        f"roofs measured: {', '.join(r['measured_roofs']) or 'none (spec roofs)'}; "
        f"all-reduce: {r['allreduce']}",
        *(f"left out or carried: {note}" for note in r["left_out"]),
    ])  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Parse, predict, print; a bad flag or config is one line on stderr (exit 2)."""
    parser = make_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        result = predict_request(args)
    except ValueError as exc:
        parser.error(str(exc))
    print(json.dumps(result, indent=1) if args.json else render(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
