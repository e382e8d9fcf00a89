"""Every table a student edits, guarded like the hardware table: the slip matrix.

Each slip is typed into the text of a table (models, measurements, assumptions and the
hardware table), the text runs as that module would, and what the student reads is
one line naming the file and the line of the slip. Lines are found in the edited text
here, by the slip's own words.
"""

from __future__ import annotations

import ast
import contextlib
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import pytest
from conftest import REPO

from common.tables import slips


class _Loader:
    def __init__(self, text: str) -> None:
        self.text = text

    def get_source(self, name: str) -> str:
        return self.text


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


def said(table: str, old: str, new: str) -> tuple[str | None, set[int]]:
    """What a slip (old -> new in `table`) says, and the lines that may say it: the edited
    line, the next (where Python sees a syntax error end) and the start of its statement."""
    source = (REPO / table).read_text(encoding="utf-8")
    assert source.count(old) >= 1, old
    text = source.replace(old, new, 1)
    at = line_of(source, old)
    lines = {at, at + 1}
    with contextlib.suppress(SyntaxError):
        lines |= {n.lineno for n in ast.parse(text).body if n.lineno <= at <= (n.end_lineno or 0)}
    path = Path(tempfile.mkdtemp()) / table  # a real file: Python reads syntax errors' lines
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    module = types.ModuleType("edited_table")
    module.__file__, module.__loader__ = str(path), _Loader(text)
    sys.modules["edited_table"] = module  # dataclasses look their module up
    try:
        exec(compile(text, module.__file__, "exec"), module.__dict__)
    except Exception as exc:
        return slips.describe(exc), lines
    finally:
        del sys.modules["edited_table"]
    return None, set()


M, T, A, H = (f"common/{t}.py" for t in ("tables/models", "tables/measurements",
                                          "tables/assumptions", "hw_specs"))  # fmt: skip
L2 = "Llama-2-7B"
GPT = "13B (kipply's FasterTransformer benchmark)"

# table, slip, old, new, what the line says after "<table> line <n>: "
MATRIX = [
    (M, "syntax error", "    n_layers=32,\n", "    n_layers=32,,\n", "invalid syntax"),
    (M, "'==' for '='", "    n_layers=32,\n", "    n_layers==32,\n", "'==' typed for '='"),
    (H, "'==' for '='", "mem_bw_figure=bandwidth(1555e9", "mem_bw_figure==bandwidth(1555e9",
     "'==' typed for '='"),
    (M, "missing field", "    d_ff=11008,\n", "", "model llama-2-7b (Llama-2-7B) is missing its "
     "field d_ff"),
    (M, "misspelt field", "    n_kv_heads=8,\n", "    n_kv_head=8,\n", "model llama-3-8b "
     "(Llama-3-8B) has no field n_kv_head (did you mean n_kv_heads?)"),
    (M, "duplicate key", 'key="llama-3-8b"', 'key="llama-2-7b"', "model key 'llama-2-7b' is "
     "listed twice (lines "),
    (M, "impossible value", "    n_layers=32,\n", "    n_layers=0,\n", f"{L2}: n_layers must be "
     "a positive integer, got 0"),
    (M, "overflow", "    d_model=4096,\n", "    d_model=10**400,\n", f"{L2}: d_model must be "
     "finite, got a 401-digit number"),
    (M, "division by zero", "    published_params=6.74e9,\n", "    published_params=1 / 0,\n",
     "division by zero"),
    (M, "boolean", "    gated_mlp=True,\n", '    gated_mlp="no",\n', "gated_mlp must be True or "
     "False, got 'no'"),
    (M, "empty key", 'key="llama-2-7b"', 'key=""', "model Llama-2-7B has an empty key"),
    (M, "name typed wrong", 'config_source=_config("meta-llama/Llama-2-7b-hf")',
     'config_source=_confg("meta-llama/Llama-2-7b-hf")', "name '_confg' is not defined"),
    (T, "syntax error", '(("prefill", 1, 63.17),', '(("prefill", 1, 63.17),,', "invalid syntax"),
    (T, "missing field", "0.005 * MS, VIDUR_MLP_A100),", "0.005 * MS),", "Measured.__init__() "
     "missing 1 required positional argument: 'source'"),
    (T, "misspelt field", "Measured(what, ms * MS, LLM_ANALYSIS_FT)", "Measured(what, ms * MS, "
     "sourc=LLM_ANALYSIS_FT)", "measured ? has no field sourc (did you mean source?)"),
    (T, "impossible value", '("decode", 1, 22.0)', '("decode", 1, -22.0)', "measured time "
     "of 13B decode, batch 1, 1 x A100 40GB must be a positive finite number, got -0.022"),
    (T, "overflow", '("prefill", 1, 63.17)', '("prefill", 1, 10**400)', "int too large to "
     "convert to float"),
    (T, "division by zero", "= 0.72  #", "= 0.72 / 0  #", "float division by zero"),
    (A, "syntax error", "    0.30,\n", "    0.30 0.1,\n", "invalid syntax"),
    (A, "missing field", '    "vectors of d_model elements",\n', "", "Assumption.__init__() "
     "missing 1 required positional argument: 'applies'"),
    (A, "defined twice", "LOW_OVERHEAD = Assumption(", "ARTICLE_OVERHEAD = Assumption(",
     "record 'ARTICLE_OVERHEAD' is listed twice"),
    (A, "impossible value", "    0.04,\n", "    -0.04,\n", "overhead rate, low-overhead what-if "
     "must be a positive finite number, got -0.04"),
    (A, "overflow", "    78.0,\n", "    10**400,\n", "usable memory on an 80 GB card must be "
     "finite, got a 401-digit number"),
    (A, "division by zero", "    0.10,\n", "    1 / 0,\n", "division by zero"),
    (A, "a percent for a rate", "    0.30,\n", "    30,\n", "overhead rate, the article's "
     "ledger must be a fraction in (0, 1] (0.3 for 30%), got 30"),
    (A, "a rate of 100%", "    0.10,\n", "    1.0001,\n", "overhead rate, whole-model "
     "ledgers must be a fraction in (0, 1]"),
    (A, "bytes for GiB", "    78.0,\n", "    78e9,\n", "usable memory on an 80 GB card must be "
     "in (0, 102400] GiB, got 7.8e+10"),
    (A, "thousands of vectors", "    16,\n", "    16000,\n", "live activation vectors per "
     "token must be in (0, 1024] vectors, got 1.6e+04"),
    (A, "a bandwidth in GB/s", "    71.8e9,\n", "    71.8,\n", "example machine: measured "
     "bandwidth must be in (1e+06, 1e+16] bytes/s, got 71.8"),
    (A, "a unit renamed", '    "GiB",\n', '    "gigabytes",\n', "usable memory on an 80 GB "
     "card: unit 'gigabytes' must start with one of"),
    (M, "a vocabulary of 10**30", "    vocab_size=32000,\n", "    vocab_size=10**30,\n",
     f"{L2}: vocab_size must be at most 16,777,216, got 1e+30"),
    (M, "a thousand-fold width", "    d_model=4096,\n", "    d_model=4096000,\n",
     f"{L2}: d_model must be at most 262,144, got 4.1e+06"),
    (A, "name typed wrong", "sources.ARTICLE_PROBE,\n", "sources.ARTICLE_PROBES,\n", "module "
     "'common.tables.sources' has no attribute 'ARTICLE_PROBES'"),
    (H, "division by zero", "bandwidth(3.35e12, H100_DATASHEET", "bandwidth(1 / 0, H100_DATASHEET",
     "division by zero"),
    (H, "boolean", "flops(2.25e15, HGX_B200_DATASHEET, estimate=True", "flops(2.25e15, "
     'HGX_B200_DATASHEET, estimate="no"', "estimate must be True or False, got 'no'"),
    (H, "empty key", 'key="h100"', 'key=""', "chip H100 SXM has an empty key"),
]  # fmt: skip


@pytest.mark.parametrize(("table", "slip", "old", "new", "words"), MATRIX)
def test_each_slip_is_one_line_naming_file_and_line(
    table: str, slip: str, old: str, new: str, words: str
) -> None:
    line, lines = said(table, old, new)
    assert line is not None, f"{slip} in {table} was accepted"
    head, _, rest = line.partition(": ")
    assert "\n" not in line and head in {f"{table} line {n}" for n in lines}, (line, lines)
    assert rest.startswith(words), line


def test_the_record_line_is_the_start_of_the_record() -> None:
    line, _ = said(M, "    d_ff=11008,\n", "")
    text = (REPO / M).read_text(encoding="utf-8").replace("    d_ff=11008,\n", "", 1)
    assert line is not None and line.startswith(f"{M} line {line_of(text, 'LLAMA_2_7B = Model(')}:")


def test_a_unit_slip_is_one_warning_and_the_table_still_loads(capsys) -> None:
    old = 'mem_bw_figure=bandwidth(3.35e12, H100_DATASHEET, note="HBM3")'
    line, _ = said(H, old, old.replace("3.35e12", "3.35e9"))
    assert line is None  # no error: the lecture goes on
    text = (REPO / H).read_text(encoding="utf-8")
    err = capsys.readouterr().err
    assert err == (
        f"warning: common/hw_specs.py line {line_of(text, 'H100 = Chip(')}: H100 SXM mem bw is "
        "x1,000 below the shipped 3.35 TB/s: a unit slip?\n"
    )  # 3.35e12 / 3.35e9 = 1000
    line, _ = said(H, "capacity(80e9, H100_DATASHEET)", "capacity(0.8e9, H100_DATASHEET)")  # x100
    assert capsys.readouterr().err == ""


def test_an_achievable_roof_above_its_datasheet_is_one_warning(capsys) -> None:
    # a warning, not a refusal: lecture 11 words a datasheet set below the measured roofs
    old = "flops(794.5e12, MAMF_TABLE, note=\"row 'NVIDIA H100 SXM'\")"
    line, _ = said(H, old, old.replace("794.5e12", "3165e12"))
    assert line is None
    at = line_of((REPO / H).read_text(encoding="utf-8"), "H100 = Chip(")
    assert capsys.readouterr().err == (
        f"warning: common/hw_specs.py line {at}: H100 SXM achievable peak bf16 is 320% of its "
        "datasheet figure: an achievable roof cannot beat it\n"
    )  # 3165 / 989 = 3.20


def test_an_overflowing_figure_is_named_where_it_is_read() -> None:
    from common import hw_specs

    huge = hw_specs.Chip(**{**vars(hw_specs.H100), "peak_flops_table": {"bf16": hw_specs.flops(
        10**400, "s")}})  # fmt: skip
    with pytest.raises(ValueError) as info:
        huge.peak_flops("bf16")
    assert str(info.value) == "H100 SXM bf16 peak FLOP/s must be finite, got a 401-digit number"


def test_the_shipped_tables_pass_without_a_word(capsys: pytest.CaptureFixture[str]) -> None:
    for table in (M, T, A, H):
        assert said(table, "\n", "\n") == (None, set())
    assert capsys.readouterr().err == ""


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lost")
    for part in ("common", "lectures"):
        shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("__py*"))
    return root


LOST = [  # table, edits, command, the line that names what is lost and where it is used
    (H, [('key="h100",', 'key="h100-e",')], ["-m", "common.exercises", "h200-vs-h100"],
     "common/exercises/__init__.py line {used}: chip key 'h100' is not in common/hw_specs.py",
     ("common/exercises/__init__.py", 'values["h100"]')),
    (H, [("H100 = Chip(", "H100E = Chip("), ("(A100, H100, H200", "(A100, H100E, H200")],
     ["lectures/02_roofline_basics.py"],
     "lectures/02_roofline_basics.py line {used}: H100 is not in common/hw_specs.py",
     ("lectures/02_roofline_basics.py", "from common.hw_specs import")),
    (M, [("LLAMA_3_8B = Model(", "LLAMA_3_8B_X = Model("),
         ("LLAMA_2_7B, LLAMA_3_8B,", "LLAMA_2_7B, LLAMA_3_8B_X,")],
     ["lectures/10_tiled_attention.py", "--quick"],
     "lectures/10_tiled_attention.py line {used}: LLAMA_3_8B is not in common/tables/models.py",
     ("lectures/10_tiled_attention.py", "import LLAMA_3_8B")),
]  # fmt: skip


@pytest.mark.parametrize(("table", "edits", "args", "words", "use"), LOST)
def test_a_lost_chip_or_model_is_one_line_naming_it_and_its_use(
    copy: Path, table: str, edits: list, args: list, words: str, use: tuple[str, str]
) -> None:
    source = (REPO / table).read_text(encoding="utf-8")
    text = source
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    (copy / table).write_text(text, encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        done = subprocess.run(
            [sys.executable, *args], cwd=copy, capture_output=True, text=True, env=env,
            timeout=120, check=False,
        )  # fmt: skip
    finally:
        (copy / table).write_text(source, encoding="utf-8")
    used = line_of((REPO / use[0]).read_text(encoding="utf-8"), use[1])
    assert done.returncode == 1, done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert words.format(used=used) in done.stderr
    assert "(renamed or deleted there?)" in done.stderr
