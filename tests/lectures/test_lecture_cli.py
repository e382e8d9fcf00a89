"""Every lecture's command line, one table a kind: --help, a bad value, --png.

--help names every flag the lecture's ``make_parser()`` declares (read unrun), so a new
flag or a new lecture is covered without editing this file. A bad value is one line on
stderr that names the fault (no traceback), with nothing on stdout and nothing written;
--png writes the lecture's figure into --outdir, and nothing else. ``{tmp}`` in a row's
arguments or words is the run's folder; ``{file}`` a file there, in the way of a folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import LECTURES, run_lecture

from common.shell import interface

PATHS = list(interface.lectures(LECTURES).values())
#: Words a lecture's --help says beyond its flags; the flags each run it under.
HELP_WORDS = {"02": ("Roofline basics",), "06": ("llama-3-70b",), "13": ("deepseek-v3",)}
HELP_PYTHON_FLAGS = {"12": ("-S",)}  # lecture 12 explains itself without torch or numpy


@pytest.mark.parametrize("path", PATHS, ids=[p.stem[:2] for p in PATHS])
def test_help_names_every_declared_flag(path: Path, tmp_path: Path) -> None:
    name = path.stem[:2]
    proc = run_lecture(
        path, "--help", cwd=tmp_path, timeout=60, python_flags=HELP_PYTHON_FLAGS.get(name, ())
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    for flag in (
        *interface.flag_actions(interface.declared_parser(path)),
        *HELP_WORDS.get(name, ()),
    ):
        assert flag in proc.stdout, f"{path.name} --help: {flag}"
    assert list(tmp_path.iterdir()) == []  # nothing written


#: (lecture, arguments, exit status (None: any failure), words in the one line on stderr)
BAD = [
    ("01", ["--bogus"], 2, "error: unrecognized arguments: --bogus"),
    ("02", ["--pngg"], 2, "error: unrecognized arguments: --pngg"),
    *[("03", ["--budget-gib", v, "--results", "{tmp}/r.json"], 2, "--budget-gib")
      for v in ("0", "-3", "nan", "lots")],
    ("04", ["--budget-gib", "0", "--outdir", "{tmp}/figs"], 2, "--budget-gib"),
    ("04", ["--colour", "red", "--outdir", "{tmp}/figs"], 2, "--colour"),
    ("04", ["--outdir", "{file}/figs", "--results", "{tmp}/r"], None, "figure folder"),
    ("05", ["--chip", "x100"], None, "unknown chip 'x100'; choose one of: a100, h100"),
    ("05", ["--precision", "fp8"], None,
     "A100 40GB SXM has no 'fp8' peak; choose one of: bf16, int8"),
    ("05", ["--chip", "tpu-v5e", "--precision", "nvfp4"], None, "choose one of: bf16, int8"),
    ("06", ["--model", "gpt-5"], None, "choose one of: llama-2-7b, llama-3-8b, llama-3-70b"),
    ("06", ["--chip", "tpu"], None, "choose one of: a100, h100"),
    ("06", ["--precision", "nvfp4"], None,
     "H100 SXM has no 'nvfp4' peak; choose one of: bf16, fp8, int8"),
    ("06", ["--chip", "a100", "--precision", "fp8"], None, "no 'fp8' peak"),
    ("06", ["--precision", "fp64"], None, "unknown precision 'fp64'"),
    ("06", ["--weights", "fp7"], None, "unknown weight precision 'fp7'; choose one of: bf16"),
    ("06", ["--kv", "int3"], None, "unknown KV-cache precision 'int3'; choose one of: bf16"),
    ("06", ["--context", "0"], None, "expected a positive integer"),
    ("06", ["--context", "lots"], None, "expected a positive integer"),
    ("06", ["--context", "9000"], None, "exceeds Llama-3-8B's window of 8192 tokens"),
    ("06", ["--model", "llama-2-7b", "--context", "4097"], None, "window of 4096 tokens"),
    ("06", ["--batch", "0"], None, "expected a positive integer"),
    ("06", ["--batch", "1.5"], None, "expected a positive integer"),
    ("06", ["--frobnicate"], None, "unrecognized arguments"),
    ("06", ["--png", "--outdir", "{file}"], None, "figure folder"),
    ("07", ["--context", "9000"], None, "exceeds Llama-3-8B's window of 8192 tokens"),
    ("08", ["--weights", "fp7"], None, "unknown weight precision 'fp7'"),
    ("09", ["--bogus"], 2, "error: unrecognized arguments: --bogus"),
    ("10", ["--bogus"], 2, "error"),
    ("10", ["--quick", "extra"], 2, "error"),
    ("10", ["--outdir"], 2, "error"),
    ("10", ["--results"], 2, "error"),
    ("10", ["--png", "--outdir", "{file}"], None, "figure folder"),
    ("10", ["--memory-limit", "0", "--results", "{tmp}/r.json"], 2, "memory-limit"),
    ("13", ["--model", "llama-3-8b"], None,
     "choose one of: mixtral-8x7b, qwen3-30b-a3b, deepseek-v3"),
    ("13", ["--chip", "tpu"], None, "unknown chip 'tpu'"),
    ("13", ["--precision", "fp64"], None, "unknown precision 'fp64'"),
    ("13", ["--chip", "a100", "--precision", "fp8"], None, "no 'fp8' peak"),
    ("13", ["--ep", "0"], None, "expected a positive integer"),
    ("13", ["--ep", "3"], None, "3 GPUs cannot share DeepSeek-V3's 256 experts evenly"),
    ("13", ["--model", "mixtral-8x7b", "--ep", "16"], None, "choose one of: 1, 2, 4, 8"),
    ("13", ["--context", "200000"], None, "exceeds DeepSeek-V3's window of 163840 tokens"),
    ("13", ["--batch", "0"], None, "expected a positive integer"),
    ("13", ["--frobnicate"], None, "unrecognized arguments"),
    ("14", ["--price", "-1"], 2, "argument --price: expected a positive finite number"),
    ("14", ["--budget", "64"], 2, "argument --budget: 64 must exceed --batch (64)"),
    ("14", ["--prompt", "8000", "--output", "512"], 2, "past Llama-3-8B's window of 8192"),
    ("14", ["--batch", "500", "--budget", "4096"], 2, "500 sequences of 2,304 tokens do not fit"),
    ("14", ["--model", "gpt-5"], 2, "unknown model 'gpt-5'"),
]  # fmt: skip


def _fill(text: str, tmp: Path) -> str:
    return text.format(tmp=tmp, file=tmp / "a-file")


@pytest.mark.parametrize(("name", "args", "status", "says"), BAD, ids=lambda v: str(v))
def test_a_bad_value_is_one_line(
    name: str, args: list[str], status: int | None, says: str, tmp_path: Path
) -> None:
    (tmp_path / "a-file").write_text("not a folder\n", encoding="utf-8")
    proc = run_lecture(name, *(_fill(a, tmp_path) for a in args), cwd=tmp_path, timeout=60)
    assert proc.returncode == status if status else proc.returncode != 0
    assert proc.stdout == "" and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and _fill(says, tmp_path) in lines[0], proc.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["a-file"]  # nothing written


#: (lecture, arguments beside --png --outdir, the figures it writes)
PNG = [
    ("02", [], ["02_roofline.png"]),
    ("05", ["--results", "{tmp}/x"], ["05_operator_rooflines.png"]),
    ("06", ["--chip", "b200"], ["06_prefill_decode_roofline.png"]),
    ("07", ["--model", "llama-3-70b"], ["07_memory_ledger.png"]),  # nothing fits: still drawn
    ("08", ["--chip", "b200"], ["08_decode_throughput.png"]),
    ("13", [], ["13_moe_throughput.png"]),
    ("14", ["--batch", "16"], ["14_cost_per_token.png"]),
]


@pytest.mark.parametrize(("name", "args", "figures"), PNG, ids=[r[0] for r in PNG])
def test_png_is_written_into_outdir(
    name: str, args: list[str], figures: list[str], tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    outdir = tmp_path / "figs"
    args = [_fill(a, tmp_path) for a in args]
    proc = run_lecture(name, "--png", "--outdir", str(outdir), *args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    for figure in figures:
        png = outdir / figure
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
        assert f"saved figure: {png}" in proc.stdout
    assert sorted(p.name for p in outdir.iterdir()) == figures
