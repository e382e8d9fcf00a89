"""The command line of the LLM lectures (06-08, 13, 14): one set of flags, checked once."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import Any

from common.hw_specs import CHIPS, Chip, get_chip
from common.shell import cli
from common.tables.models import MODELS, MOE_MODELS, Model, get_model

#: Precisions weights and the KV cache can be stored in.
STORAGE = ("bf16", "fp16", "fp8", "int8", "int4", "nvfp4")
#: Every compute precision some chip of the hardware table has a peak for.
COMPUTE = tuple(sorted({p for chip in CHIPS.values() for p in chip.precisions}))
CONTEXT = 4096  # the default tokens per sequence


class _Typed(argparse.Action):
    """Store --context and remember it was typed (a default past the window is said so)."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        namespace.context, namespace.context_typed = values, True


def _model_and_chip(
    doc: str | None, models: Iterable[str], default: str, what: str = "model"
) -> cli.LectureParser:
    """A lecture's parser with --model (one of `models`) and --chip (default h100)."""
    parser = cli.lecture_parser(doc)
    models = tuple(models)
    parser.add_argument(
        "--model", type=cli.one_of(models, "model"), default=default,
        help=f"{what} from the model table: {', '.join(models)} (default: {default})")  # fmt: skip
    parser.add_argument(
        "--chip", type=cli.one_of(CHIPS, "chip"), default="h100",
        help=f"chip from the hardware table: {', '.join(CHIPS)} (default: h100)")  # fmt: skip
    return parser


def llm_parser(doc: str | None) -> cli.LectureParser:
    """The LLM lectures' parser: model, chip, precisions, context, batch, --png/--outdir."""
    parser = _model_and_chip(doc, MODELS, "llama-3-8b")
    add = parser.add_argument
    add("--precision", type=cli.one_of(COMPUTE, "precision"), default="bf16",
        help="compute precision; must be one the chip has a peak for (default: bf16)")  # fmt: skip
    add("--weights", type=cli.one_of(STORAGE, "weight precision"), default=None,
        help=f"weight storage: {', '.join(STORAGE)} (default: the compute precision)")  # fmt: skip
    add("--kv", type=cli.one_of(STORAGE, "KV-cache precision"), default="bf16",
        help=f"KV-cache storage: {', '.join(STORAGE)} (default: bf16)")  # fmt: skip
    add("--context", type=cli.positive_int, default=CONTEXT, metavar="TOKENS", action=_Typed,
        help="tokens per sequence: prompt length for prefill, cache length for decode "
        f"(default: {CONTEXT}; at most the model's window)")  # fmt: skip
    add("--batch", type=cli.batch_size, default=1, metavar="B",
        help="sequences processed together (default: 1)")  # fmt: skip
    return cli.add_png_flags(parser)


def parse_llm_args(parser: argparse.ArgumentParser) -> tuple[Any, Model, Chip, str]:
    """Parse sys.argv with `parser` (`llm_parser`), check the flags against model and chip:
    (the flags, with ``weights`` filled in, the model, the chip, the compute precision)."""
    args = cli.parse_args(parser)
    model, chip = get_model(args.model), get_chip(args.chip)
    precision = cli.require_precision(parser, chip, args.precision)
    if args.weights is None and precision not in STORAGE:
        parser.error(f"argument --weights: give a weight precision ({', '.join(STORAGE)})")
    args.weights = args.weights or precision
    if args.context > model.max_context:
        typed = getattr(args, "context_typed", False)
        asked = f"{args.context}" if typed else f"not given, its default of {args.context:,} tokens"
        parser.error(f"argument --context: {asked} exceeds {model.name}'s window of "
                     f"{model.max_context:,} tokens (max_context in common/tables/models.py); "
                     f"give --context {model.max_context} or less")  # fmt: skip
    return args, model, chip, precision


def moe_parser(doc: str | None) -> cli.LectureParser:
    """Lecture 13's parser: a mixture of experts, chip, precision, context, batch, --ep."""
    parser = _model_and_chip(doc, MOE_MODELS, "deepseek-v3", "mixture of experts")
    add = parser.add_argument
    add("--precision", type=cli.one_of(COMPUTE, "precision"), default="bf16",
        help="compute and weight precision, one the chip has (default: bf16)")  # fmt: skip
    add("--context", type=cli.positive_int, default=CONTEXT, metavar="TOKENS",
        help=f"tokens cached per sequence (default: {CONTEXT})")  # fmt: skip
    add("--batch", type=cli.batch_size, default=1024, metavar="B",
        help="tokens one decode step serves, over all its GPUs (default: 1024)")  # fmt: skip
    add("--ep", type=cli.int_in(1, 1024, "EP size"), default=8, metavar="N",
        help="GPUs the experts are spread over, a divisor of the experts (default: 8)")  # fmt: skip
    return cli.add_png_flags(parser)


def parse_moe_args(parser: argparse.ArgumentParser) -> tuple[Any, Model, Chip, str]:
    """Parse and check `moe_parser`'s flags: (the flags, the model, the chip, the precision)."""
    args = cli.parse_args(parser)
    model, chip = get_model(args.model), get_chip(args.chip)
    precision = cli.require_precision(parser, chip, args.precision)
    if precision not in STORAGE:
        stored = ", ".join(p for p in STORAGE if p in chip.precisions)
        parser.error(f"argument --precision: weights are not stored in {precision}; "
                     f"choose one of: {stored}")  # fmt: skip
    if args.context > model.max_context:
        parser.error(f"argument --context: {args.context} exceeds {model.name}'s window of "
                     f"{model.max_context:,} tokens")  # fmt: skip
    if (E := model.n_experts) % args.ep:
        fits = ", ".join(str(n) for n in range(1, E + 1) if E % n == 0)
        parser.error(f"argument --ep: {args.ep} GPUs cannot share {model.name}'s {E} experts "
                     f"evenly; choose one of: {fits}")  # fmt: skip
    return args, model, chip, precision


def serving_parser(doc: str | None) -> cli.LectureParser:
    """Lecture 14's parser: any model of the table, chip, price, request lengths, batch, budget."""
    parser = _model_and_chip(doc, (*MODELS, *MOE_MODELS), "llama-3-8b")
    add = parser.add_argument
    add("--price", type=cli.number_in(0, 1000, "price"), default=2.0, metavar="USD",
        help="dollars per GPU-hour (default: %(default)s; the price DeepSeek assumes)")  # fmt: skip
    add("--prompt", type=cli.positive_int, default=2048, metavar="TOKENS",
        help="prompt tokens per request (default: 2048)")  # fmt: skip
    add("--output", type=cli.positive_int, default=512, metavar="TOKENS",
        help="output tokens per request (default: 512)")  # fmt: skip
    add("--batch", type=cli.batch_size, default=64, metavar="B",
        help="sequences decoding together (default: 64)")  # fmt: skip
    add("--budget", type=cli.positive_int, default=2048, metavar="TOKENS",
        help="tokens a continuous-batching step takes (default: 2048)")  # fmt: skip
    return cli.add_png_flags(parser)


def parse_serving_args(parser: argparse.ArgumentParser) -> tuple[Any, Model, Chip]:
    """Parse `serving_parser`'s flags, checked against the model's window: (flags, model, chip)."""
    args = cli.parse_args(parser)
    model, chip = get_model(args.model), get_chip(args.chip)
    P, N, window = args.prompt, args.output, model.max_context
    if window < P + N - 1:
        parser.error(f"--prompt {P} and --output {N} need {P + N - 1:,} positions, past "
                     f"{model.name}'s window of {window:,}")  # fmt: skip
    if "bf16" not in chip.precisions:  # the lecture computes in bf16: a student's chip may lack it
        parser.error(f"argument --chip: {chip.name} has no 'bf16' peak, the precision this "
                     "lecture computes in; add one to common/hw_specs.py")  # fmt: skip
    if args.budget <= args.batch or args.budget > window:
        parser.error(f"--budget {args.budget} must exceed --batch {args.batch} (the decode tokens "
                     f"of a step) and stay within {model.name}'s window of {window:,}")  # fmt: skip
    return args, model, chip
