"""The command line of the LLM lectures (06, 07, 08): one set of flags, checked once.

``--model``, ``--chip``, ``--precision`` (the chip's compute precision), ``--weights``
and ``--kv`` (storage precisions), ``--context``, ``--batch``, and ``--png`` /
``--outdir``. A flag that does not fit the model or the chip (a precision the chip has
no peak for, a context past the model's window) is a one-line usage error.
"""

from __future__ import annotations

import argparse
from typing import NamedTuple

from common.formulas.transformer import DTypes
from common.hw_specs import CHIPS, Chip, get_chip
from common.shell.cli import (
    LectureParser,
    add_png_flags,
    batch_size,
    lecture_parser,
    one_of,
    parse_args,
    positive_int,
    require_precision,
)
from common.tables.models import MODELS, Model, get_model

#: Precisions weights and the KV cache can be stored in.
STORAGE = ("bf16", "fp16", "fp8", "int8", "int4", "nvfp4")
#: Every compute precision some chip of the hardware table has a peak for.
COMPUTE = tuple(sorted({p for chip in CHIPS.values() for p in chip.precisions}))


class LLMRun(NamedTuple):
    """What the flags chose: the parsed flags, the model, the chip and the precisions."""

    args: argparse.Namespace
    model: Model
    chip: Chip
    precision: str
    dtypes: DTypes


def llm_parser(doc: str | None) -> LectureParser:
    """The LLM lectures' parser: model, chip, precisions, context, batch, --png/--outdir."""
    parser = lecture_parser(doc)
    add = parser.add_argument
    add("--model", type=one_of(MODELS, "model"), default="llama-3-8b",
        help=f"model from the model table: {', '.join(MODELS)} (default: llama-3-8b)")  # fmt: skip
    add("--chip", type=one_of(CHIPS, "chip"), default="h100",
        help=f"chip from the hardware table: {', '.join(CHIPS)} (default: h100)")  # fmt: skip
    add("--precision", type=one_of(COMPUTE, "precision"), default="bf16",
        help="compute precision; must be one the chip has a peak for (default: bf16)")  # fmt: skip
    add("--weights", type=one_of(STORAGE, "weight precision"), default=None,
        help=f"weight storage: {', '.join(STORAGE)} (default: the compute precision)")  # fmt: skip
    add("--kv", type=one_of(STORAGE, "KV-cache precision"), default="bf16",
        help=f"KV-cache storage: {', '.join(STORAGE)} (default: bf16)")  # fmt: skip
    add("--context", type=positive_int, default=4096, metavar="TOKENS",
        help="tokens per sequence: prompt length for prefill, cache length for decode "
        "(default: 4096; at most the model's window)")  # fmt: skip
    add("--batch", type=batch_size, default=1, metavar="B",
        help="sequences processed together (default: 1)")  # fmt: skip
    add_png_flags(parser)
    return parser


def parse_llm_args(parser: argparse.ArgumentParser) -> LLMRun:
    """Parse sys.argv with `parser` (`llm_parser`) and check the flags against model and chip."""
    args = parse_args(parser)
    model, chip = get_model(args.model), get_chip(args.chip)
    precision = require_precision(parser, chip, args.precision)
    if args.weights is None and precision not in STORAGE:
        parser.error(f"argument --weights: give a weight precision ({', '.join(STORAGE)})")
    if args.context > model.max_context:
        parser.error(
            f"argument --context: {args.context} exceeds {model.name}'s window of "
            f"{model.max_context} tokens"
        )
    dtypes = DTypes(weights=args.weights or precision, kv=args.kv, activations="bf16")
    return LLMRun(args, model, chip, precision, dtypes)
