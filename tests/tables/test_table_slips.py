"""Slips in the tables a student edits: each is one line naming the file, line and record. Each
slip is typed into a table's text, run as its module would be, and the line it says is found in
the edited text by the slip's own words; a few then run in a copy, as a student runs them."""

from __future__ import annotations

import ast
import contextlib
import math
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path
from types import SimpleNamespace as Fake

import pytest
from conftest import REPO

from common import hw_specs
from common.tables import slips

TABLE = REPO / "common" / "hw_specs.py"
SOURCE = TABLE.read_text(encoding="utf-8")


def line_of(text: str, needle: str, nth: int = 1) -> int:
    """1-based line of the nth occurrence of needle in text."""
    start = -1
    for _ in range(nth):
        start = text.index(needle, start + 1)
    return text[:start].count("\n") + 1


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
    module.__file__, module.__loader__ = str(path), Fake(get_source=lambda name: text)
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

# table, slip, old, new, what the line says after "<table> line <n>: " (an assumption's other
# unit ranges and a renamed unit: test_tables_rebuilt, the same check in process)
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
    (A, "a bandwidth in GB/s", "    71.8e9,\n", "    71.8,\n", "example machine: measured "
     "bandwidth must be in (1e+06, 1e+16] bytes/s, got 71.8"),
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
    (H, "syntax error", "flops(312e12, A100_DATASHEET),", "flops(312e12, A100_DATASHEET)),",
     "closing parenthesis ')'"),
    (H, "name typed wrong", '"bf16": flops(312e12', '"bf16": flop(312e12',
     "name 'flop' is not defined"),
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


def test_the_record_line_is_the_start_of_the_record(capsys: pytest.CaptureFixture[str]) -> None:
    line, _ = said(M, "    d_ff=11008,\n", "")
    text = (REPO / M).read_text(encoding="utf-8").replace("    d_ff=11008,\n", "", 1)
    assert line is not None and line.startswith(f"{M} line {line_of(text, 'LLAMA_2_7B = Model(')}:")
    huge = hw_specs.Chip(**{**vars(hw_specs.H100), "peak_flops_table": {"bf16": hw_specs.flops(
        10**400, "s")}})  # fmt: skip
    with pytest.raises(ValueError) as info:
        huge.peak_flops("bf16")
    assert str(info.value) == "H100 SXM bf16 peak FLOP/s must be finite, got a 401-digit number"
    for table in (M, T, A, H):
        assert said(table, "\n", "\n") == (None, set())
    assert capsys.readouterr().err == ""
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
    old = "flops(794.5e12, MAMF_TABLE, note=\"row 'NVIDIA H100 SXM'\")"
    line, _ = said(H, old, old.replace("794.5e12", "3165e12"))
    assert line is None
    at = line_of((REPO / H).read_text(encoding="utf-8"), "H100 = Chip(")
    assert capsys.readouterr().err == (
        f"warning: common/hw_specs.py line {at}: H100 SXM achievable peak bf16 is 320% of its "
        "datasheet figure: an achievable roof cannot beat it, so the datasheet's stands in\n"
    )  # 3165 / 989 = 3.20


# The shipped hardware table's checks, in process: the exact line, record and lines named.
# Each message is built from `at(needle, nth)`, the line of a needle in the edited text.
BF16_SIZE = '"bf16": 2,'
HW_SLIPS = [
    ("    mem_capacity_figure=capacity(80e9, H100_DATASHEET),\n", "", lambda at:
     f"line {at('H100 = Chip(')}: chip h100 (H100 SXM) is missing its field mem_capacity_figure"),
    ("mem_bw_figure=bandwidth(1555e9", "mem_bw_figur=bandwidth(1555e9", lambda at:
     f"line {at('mem_bw_figur=')}: chip a100 (A100 40GB SXM) has no field mem_bw_figur (did "
     "you mean mem_bw_figure?)"),
    ('    name="B200",\n    key="b200",', '    name="B200",\n    key="h100",', lambda at:
     f"line {at('B200 = Chip(')}: chip key 'h100' is listed twice (lines {at('H100 = Chip(')} "
     f"and {at('B200 = Chip(')}); give one a new key"),
    ("H200 = Chip(", "H100 = Chip(", lambda at:
     f"line {at('H100 = Chip(', 2)}: record 'H100' is listed twice (lines {at('H100 = Chip(')} "
     f"and {at('H100 = Chip(', 2)}); rename or delete one"),
    ('        "fp8": flops(1979e12, H100_DATASHEET),\n', '        "fp8": flops(1979e12, '
     'H100_DATASHEET),\n        "bf16": flops(2e15, H100_DATASHEET),\n', lambda at:
     f"line {at('flops(2e15')}: chip h100 (H100 SXM) peak 'bf16' is listed twice (lines "
     f"{at('flops(989e12, H100_DATASHEET)')} and {at('flops(2e15')}); a dict keeps only the "
     "last, so delete one"),
    ('    "fp16": 2,\n', '    "fp16": 2,\n    "bf16": 2,\n', lambda at:
     f"line {at(BF16_SIZE, 2)}: BYTES_PER_ELEM[...] entry 'bf16' is listed twice (lines "
     f"{at(BF16_SIZE)} and {at(BF16_SIZE, 2)}); a dict keeps only the last, so delete one"),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "message"), HW_SLIPS)
def test_a_hardware_slip_names_its_line_record_and_field(old, new, message) -> None:
    slips.check_table_source(SOURCE, str(TABLE), hw_specs.Chip)  # the shipped table passes
    assert SOURCE.count(old) >= 1, old
    src = SOURCE.replace(old, new, 1)
    with pytest.raises(ValueError) as info:
        slips.check_table_source(src, str(TABLE), hw_specs.Chip)
    at = lambda needle, nth=1: line_of(src, needle, nth)  # noqa: E731
    assert str(info.value) == f"common/hw_specs.py {message(at)}"


@pytest.mark.parametrize("bad", [0, -1, "2"])
def test_a_bad_element_size_names_its_entry(monkeypatch: pytest.MonkeyPatch, bad) -> None:
    monkeypatch.setitem(hw_specs.BYTES_PER_ELEM, "bf16", bad)
    with pytest.raises(ValueError, match=r"^BYTES_PER_ELEM\['bf16'\] must be"):
        hw_specs.bytes_per_elem("bf16")


# Small tables written here, to reach the checks the shipped table never trips.
CHIP = (
    'Chip(name="Mine", key="mine", peak_flops_table={"bf16": flops(1e12, "s")}, '
    'mem_bw_figure=bandwidth(1e12, "s"), mem_capacity_figure=capacity(1e9, "s"), '
    'link_bw_figure=bandwidth(1e11, "s"))')  # fmt: skip


def check(source: str) -> None:
    slips.check_table_source(source, "/x/common/hw_specs.py", hw_specs.Chip)


def test_a_record_given_by_position_then_by_name() -> None:
    from common.tables.models import Model

    model = 'M = Model("M", "m", 2, 8, 2, 2, 4, 16, True, 32, False, 64, "src", sliding_window=8)'
    slips.check_table_source(model, "/x/common/tables/models.py", Model)  # as MISTRAL_7B is
    with pytest.raises(ValueError, match=r"line 1: model m \(M\) is missing its field config_s"):
        slips.check_table_source(model.replace(', "src"', ""), "/x/common/tables/models.py", Model)
    with pytest.raises(ValueError, match=r"line 1: model m \(M\) has no field zzz$"):  # no hint
        slips.check_table_source(model.replace("sliding_", "zzz=1, sliding_"), "/x/m.py", Model)


def test_small_tables_a_table_by_name_a_chip_without_key_or_name_and_a_dict_key_twice(
    tmp_path: Path,
) -> None:
    check("MINE = " + CHIP)
    by_name = CHIP.replace('peak_flops_table={"bf16": flops(1e12, "s")}', "peak_flops_table=T")
    check("T = dict(bf16=1)\nMINE = " + by_name)  # a table given by name is not read
    with pytest.raises(ValueError, match=r"line 1: chip Mine is missing its field key$"):
        check("MINE = " + CHIP.replace('key="mine", ', ""))
    with pytest.raises(ValueError, match=r"line 1: chip mine is missing its field name$"):
        check("MINE = " + CHIP.replace('name="Mine", ', ""))
    with pytest.raises(ValueError) as info:
        check('SIZES = {\n    "a": 1,\n    "a": 2,\n}')
    assert str(info.value) == (
        "common/hw_specs.py line 3: SIZES[...] entry 'a' is listed twice (lines 2 and 3); a "
        "dict keeps only the last, so delete one"
    )
    assert slips.describe(ValueError("x")) is None
    assert slips.describe(SyntaxError("bad", ("lectures/x.py", 1, 1, "x"))) is None
    assert slips.describe(SyntaxError("bad", ("/x/common/not_hw_specs.py", 1, 1, "x"))) is None
    namespace: dict = {}
    exec(compile("def f():\n    return missing\n", "/x/common/hw_specs.py", "exec"), namespace)
    with pytest.raises(NameError) as info:
        namespace["f"]()  # raised in a function of the table, called from here
    assert slips.describe(info.value) is None
    assert slips.describe(_raised_in("/x/common/not_hw_specs.py", "missing\n")) is None
    said = slips.describe(_raised_in("/x/common/hw_specs.py", "missing\n"))
    assert said == "common/hw_specs.py line 1: name 'missing' is not defined"
    assert slips.describe(NameError("raised here, not in the table")) is None

    class Loader:  # knows one module; any other name has no source here
        def get_source(self, name: str) -> str | None:
            return "X = 1\n" if name == "tables.mine" else None

    file = tmp_path / "mine.py"
    file.write_text("X = 2\n", encoding="utf-8")
    found = {"__loader__": Loader(), "__name__": "tables.mine", "__file__": str(file)}
    assert slips.source_of(found) == "X = 1\n"  # the loader's text, not the file's
    assert slips.source_of({**found, "__name__": "other"}) == "X = 2\n"  # then the file's
    assert slips.source_of({"__name__": "gone", "__file__": str(tmp_path / "no.py")}) == ""


def _raised_in(path: str, code: str, namespace: dict | None = None) -> BaseException:
    try:
        exec(compile(code, path, "exec"), {} if namespace is None else namespace)
    except BaseException as exc:
        return exc
    raise AssertionError(f"{code!r} raised nothing")


@pytest.mark.parametrize(("path", "seen"), [
    ("/srv/course/lectures/words/llm_speed.py", "lectures/words/llm_speed.py"),
    ("/srv/common/x/lectures/02_roofline_basics.py", "lectures/02_roofline_basics.py"),
    ("/srv/lectures/common/tables/models.py", "common/tables/models.py"),
    ("/srv/course/tools/report.py", "tools/report.py"),
    ("/home/me/course/common/hw_specs.py", "common/hw_specs.py"),
    ("./common/hw_specs.py", "common/hw_specs.py"), ("hw_specs.py", "hw_specs.py"),
])  # fmt: skip
def test_shown_starts_at_the_last_course_folder(path, seen) -> None:
    assert slips.shown(path) == seen


# The lost-name branches of `describe`, in process (the copy-and-run tests below run them in
# a child, which a mutation tool's test map does not see): the frame that used the name and
# the table it is missing from are read from the exception itself.
LOST_TAIL = " (renamed or deleted there?)"


def test_a_name_a_table_lost_names_the_line_that_imports_or_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    exc = _raised_in("/x/lectures/fake.py", "import math\nfrom common.hw_specs import H100X\n")
    assert isinstance(exc, ImportError)
    said = slips.describe(exc)
    assert said is not None and LOST_TAIL in said
    assert said.startswith("lectures/fake.py line 2: H100X is not in common/hw_specs.py")
    # the same import from a module that is not a table, or from a file outside the course
    assert slips.describe(_raised_in("/x/lectures/fake.py", "from math import nothing\n")) is None
    assert slips.describe(_raised_in("/x/y/fake.py", "from common.hw_specs import H\n")) is None
    code = "x = 1\ny = 2\nz = specs.H100X\n"
    said = slips.describe(_raised_in("/x/common/exercises/fake.py", code, {"specs": hw_specs}))
    assert said is not None
    assert said.startswith("common/exercises/fake.py line 3: H100X is not in common/hw_specs.py")
    # an attribute missing from something that is not a table is no slip of a table
    assert slips.describe(_raised_in("/x/lectures/f.py", "math.nothing", {"math": math})) is None

    def lookup(key: str) -> BaseException:
        return _raised_in("/x/common/exercises/fake.py", f"\nchips[{key!r}]\n", {"chips": {}})

    monkeypatch.setattr(hw_specs, "CHIPS", {k: c for k, c in hw_specs.CHIPS.items() if k != "h100"})
    said = slips.describe(lookup("h100"))  # shipped, now missing from the table
    assert said is not None and LOST_TAIL in said
    assert said.startswith("common/exercises/fake.py line 2: chip key 'h100' is not in common/")
    assert slips.describe(lookup("a100")) is None  # still in the table: a bug elsewhere
    assert slips.describe(lookup("never-shipped")) is None  # not a chip the course shipped
    assert slips.describe(KeyError(3)) is None  # not a key by name

    # the h100's shipped figures in their order: the bf16 peak, ..., the memory bandwidth
    # (3.35 TB/s); here the peak is a word and the bandwidth typed x1000 too high or low
    def chip(bandwidth: float) -> Fake:
        fig = Fake(value=bandwidth, unit="B/s")
        return Fake(key="h100", name="Mine", peak_flops_table={"bf16": "fast"}, mem_bw_figure=fig)

    high = list(slips._warnings(chip(3.35e15)))  # x1,000 below: test_the_record_line_is_...
    assert len(high) == 1 and "mem bw is x1,000 above the shipped 3.35 TB/s" in high[0]
    assert list(slips._warnings(chip(3.35e12 * 99))) == []  # x99: within the x100 allowed


# --- As a student meets them: a lecture and the exercises in an edited copy
@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("slips")
    for part in ("common", "lectures"):
        shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("__py*"))
    return root


def run_edited(copy: Path, table: str, edits: list[tuple[str, str]], args: list[str]):
    """`python3 ARGS` in the copy with `edits` typed into `table` (then put back): its run,
    and the edited text."""
    source = text = (REPO / table).read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    (copy / table).write_text(text, encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}  # no stale bytecode
    try:
        done = subprocess.run(
            [sys.executable, *args], cwd=copy, capture_output=True, text=True, env=env,
            timeout=120, check=False,
        )  # fmt: skip
    finally:
        (copy / table).write_text(source, encoding="utf-8")
    assert done.returncode == 1, done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    return done, text


# one slip of each way a table fails: Python's parse, the table's own check at import, a
# figure's check where it is used, an import (the messages of the others: the tests above)
SLIPS = {
    "syntax error": ("flops(312e12, A100_DATASHEET),", "flops(312e12, A100_DATASHEET)),",
                     "common/hw_specs.py line {line}: closing parenthesis"),
    "deleted field": ("    mem_capacity_figure=capacity(80e9, H100_DATASHEET),\n", "",
                      "chip h100 (H100 SXM) is missing its field mem_capacity_figure"),
    "figure typed as a string": ('"bf16": flops(989e12, H100_DATASHEET)',
                                 '"bf16": flops("989e12", H100_DATASHEET)',
                                 "H100 SXM bf16 peak FLOP/s must be a number, got '989e12'"),
    "broken import": ("from common.tables import shipped, slips, sources",
                      "from common.tables import shipped, slips, source",
                      "cannot import name 'source' from 'common.tables'"),
}  # fmt: skip


@pytest.mark.parametrize("slip", list(SLIPS))
@pytest.mark.parametrize(
    ("args", "prog"), [(["lectures/02_roofline_basics.py"], "02_roofline_basics.py"),
     (["-m", "common.exercises", "h200-vs-h100"], "common.exercises")],
)  # fmt: skip
def test_each_slip_is_one_line_and_status_1(copy: Path, slip: str, args: list, prog: str) -> None:
    old, new, words = SLIPS[slip]
    done, text = run_edited(copy, H, [(old, new)], args)
    assert done.stderr.startswith(f"{prog}: error: "), done.stderr
    assert words.format(line=line_of(text, new) if new else 0) in done.stderr
    if slip == "broken import":
        assert "an edit of the course's own files broke this import" in done.stderr


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
    done, _ = run_edited(copy, table, edits, args)
    used = line_of((REPO / use[0]).read_text(encoding="utf-8"), use[1])
    assert words.format(used=used) in done.stderr
    assert LOST_TAIL in done.stderr
