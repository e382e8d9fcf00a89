"""Slips in the hardware table: each is one line naming the file, line, chip and field.

The source checks run on edited copies of the real table's text (in-process, fast);
then a few slips are typed into a copy of the repository and a lecture and
``python3 -m common.exercises`` are run the way a student runs them.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from common import hw_specs
from common.tables import slips

REPO = Path(__file__).resolve().parents[2]
TABLE = REPO / "common" / "hw_specs.py"
SOURCE = TABLE.read_text(encoding="utf-8")


def edited(old: str, new: str) -> str:
    assert SOURCE.count(old) >= 1, old
    return SOURCE.replace(old, new, 1)


def line_of(text: str, needle: str, nth: int = 1) -> int:
    """1-based line of the nth occurrence of needle in text."""
    start = -1
    for _ in range(nth):
        start = text.index(needle, start + 1)
    return text[:start].count("\n") + 1


def refused(source: str) -> str:
    with pytest.raises(ValueError) as info:
        slips.check_table_source(source, str(TABLE), hw_specs.Chip)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("common/hw_specs.py line ")
    return message


def test_the_shipped_table_passes() -> None:
    slips.check_table_source(SOURCE, str(TABLE), hw_specs.Chip)


def test_a_deleted_field_names_the_chip_and_the_field() -> None:
    src = edited("    mem_capacity_figure=capacity(80e9, H100_DATASHEET),\n", "")
    msg = refused(src)
    assert msg == (
        f"common/hw_specs.py line {line_of(src, 'H100 = Chip(')}: chip h100 (H100 SXM) is "
        "missing its field mem_capacity_figure"
    )


def test_a_misspelt_field_names_the_chip_and_suggests_the_field() -> None:
    src = edited("mem_bw_figure=bandwidth(1555e9", "mem_bw_figur=bandwidth(1555e9")
    msg = refused(src)
    line = line_of(src, "mem_bw_figur=")
    assert msg == (
        f"common/hw_specs.py line {line}: chip a100 (A100 40GB SXM) has no field mem_bw_figur "
        "(did you mean mem_bw_figure?)"
    )


def test_a_duplicated_chip_key_names_both_entries() -> None:
    src = edited('    name="B200",\n    key="b200",', '    name="B200",\n    key="h100",')
    msg = refused(src)
    first, second = line_of(src, "H100 = Chip("), line_of(src, "B200 = Chip(")
    assert msg == (
        f"common/hw_specs.py line {second}: chip key 'h100' is listed twice (lines {first} and "
        f"{second}); give one a new key"
    )


def test_a_chip_defined_twice_names_both_lines() -> None:
    src = edited("H200 = Chip(", "H100 = Chip(")
    msg = refused(src)
    a, b = line_of(src, "H100 = Chip("), line_of(src, "H100 = Chip(", 2)
    assert msg == (
        f"common/hw_specs.py line {b}: record 'H100' is listed twice (lines {a} and {b}); rename "
        "or delete one"
    )


def test_a_precision_listed_twice_is_refused_not_dropped() -> None:
    old = '        "fp8": flops(1979e12, H100_DATASHEET),\n'
    src = edited(old, old + '        "bf16": flops(2000e12, H100_DATASHEET),\n')
    msg = refused(src)
    a = line_of(src, '"bf16": flops(989e12, H100_DATASHEET)')
    assert msg == (
        f"common/hw_specs.py line {a + 2}: chip h100 (H100 SXM) peak 'bf16' is listed twice "
        f"(lines {a} and {a + 2}); a dict keeps only the last, so delete one"
    )


def test_an_element_size_listed_twice_names_bytes_per_elem() -> None:
    src = edited('    "fp16": 2,\n', '    "fp16": 2,\n    "bf16": 2,\n')
    msg = refused(src)
    assert "BYTES_PER_ELEM[...] entry 'bf16' is listed twice" in msg


@pytest.mark.parametrize("bad", [0, -1, "2"])
def test_a_bad_element_size_names_its_entry(monkeypatch: pytest.MonkeyPatch, bad) -> None:
    monkeypatch.setitem(hw_specs.BYTES_PER_ELEM, "bf16", bad)
    with pytest.raises(ValueError, match=r"^BYTES_PER_ELEM\['bf16'\] must be"):
        hw_specs.bytes_per_elem("bf16")


def test_a_syntax_error_is_described_with_file_and_line() -> None:
    src = edited("flops(312e12, A100_DATASHEET),", "flops(312e12, A100_DATASHEET)),")
    with pytest.raises(SyntaxError) as info:
        compile(src, str(TABLE), "exec")
    line = line_of(src, "flops(312e12, A100_DATASHEET)),")
    said = slips.describe(info.value)
    assert said is not None
    assert said.startswith(f"common/hw_specs.py line {line}: closing parenthesis ')'")


def test_an_error_elsewhere_is_not_a_table_slip() -> None:
    assert slips.describe(ValueError("x")) is None
    assert slips.describe(SyntaxError("bad", ("lectures/x.py", 1, 1, "x"))) is None


def test_a_name_error_while_the_table_runs_names_the_line() -> None:
    src = edited('"bf16": flops(312e12, A100_DATASHEET)', '"bf16": flop(312e12, A100_DATASHEET)')
    code = compile(src, str(TABLE), "exec")
    with pytest.raises(NameError) as info:
        exec(code, {"__name__": "common.hw_specs", "__loader__": None, "__file__": str(TABLE)})
    line = line_of(src, "flop(312e12")
    assert slips.describe(info.value) == (
        f"common/hw_specs.py line {line}: name 'flop' is not defined"
    )


# Small tables written here, to reach the checks the shipped table never trips.
CHIP = (
    'Chip(name="Mine", key="mine", peak_flops_table={"bf16": flops(1e12, "s")}, '
    'mem_bw_figure=bandwidth(1e12, "s"), mem_capacity_figure=capacity(1e9, "s"), '
    'link_bw_figure=bandwidth(1e11, "s"))'
)


def check(source: str) -> None:
    slips.check_table_source(source, "/x/common/hw_specs.py", hw_specs.Chip)


def test_a_small_table_passes_and_a_table_given_by_name_is_not_read() -> None:
    check("MINE = " + CHIP)
    by_name = CHIP.replace('peak_flops_table={"bf16": flops(1e12, "s")}', "peak_flops_table=T")
    check("T = dict(bf16=1)\nMINE = " + by_name)


def test_a_chip_without_a_key_or_a_name_is_named_by_what_it_has() -> None:
    no_key = CHIP.replace('key="mine", ', "")
    with pytest.raises(ValueError, match=r"line 1: chip Mine is missing its field key$"):
        check("MINE = " + no_key)
    no_name = CHIP.replace('name="Mine", ', "")
    with pytest.raises(ValueError, match=r"line 1: chip mine is missing its field name$"):
        check("MINE = " + no_name)


def test_a_plain_dict_listing_a_key_twice_is_refused() -> None:
    with pytest.raises(ValueError) as info:
        check('SIZES = {\n    "a": 1,\n    "a": 2,\n}')
    assert str(info.value) == (
        "common/hw_specs.py line 3: SIZES[...] entry 'a' is listed twice (lines 2 and 3); a "
        "dict keeps only the last, so delete one"
    )


def test_only_errors_of_the_table_module_itself_are_slips() -> None:
    namespace: dict = {}
    exec(compile("def f():\n    return missing\n", "/x/common/hw_specs.py", "exec"), namespace)
    with pytest.raises(NameError) as info:
        namespace["f"]()  # raised in a function of the table, called from here
    assert slips.describe(info.value) is None
    code = compile("missing\n", "/x/common/not_hw_specs.py", "exec")
    with pytest.raises(NameError) as info:
        exec(code, {})
    assert slips.describe(info.value) is None
    with pytest.raises(NameError) as info:
        exec(compile("missing\n", "/x/common/hw_specs.py", "exec"), {})
    said = slips.describe(info.value)
    assert said == "common/hw_specs.py line 1: name 'missing' is not defined"
    assert slips.describe(NameError("raised here, not in the table")) is None
    bad = SyntaxError("bad", ("/x/common/not_hw_specs.py", 1, 1, "x"))
    assert slips.describe(bad) is None


# ---------------------------------------------------------------------------
# As a student meets them: a lecture and the exercises in an edited copy
# ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("slips")
    for part in ("common", "lectures"):
        shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("__py*"))
    return root


SLIPS = {
    "syntax error": (
        "flops(312e12, A100_DATASHEET),",
        "flops(312e12, A100_DATASHEET)),",
        "common/hw_specs.py line {line}: closing parenthesis",
    ),
    "deleted field": (
        "    mem_capacity_figure=capacity(80e9, H100_DATASHEET),\n",
        "",
        "chip h100 (H100 SXM) is missing its field mem_capacity_figure",
    ),
    "figure typed as a string": (
        '"bf16": flops(989e12, H100_DATASHEET)',
        '"bf16": flops("989e12", H100_DATASHEET)',
        "H100 SXM bf16 peak FLOP/s must be a number, got '989e12'",
    ),
    "element size zero": (
        '    "fp32": 4,\n',
        '    "fp32": 0,\n',
        "BYTES_PER_ELEM['fp32'] must be a positive finite number, got 0",
    ),
    "duplicated chip key": (
        '    name="B200",\n    key="b200",',
        '    name="B200",\n    key="h100",',
        "chip key 'h100' is listed twice (lines ",
    ),
    "broken import": (
        "from common.tables import slips, sources",
        "from common.tables import slips, source",
        "cannot import name 'source' from 'common.tables'",
    ),
}


@pytest.mark.parametrize("slip", list(SLIPS))
@pytest.mark.parametrize("command", ["lecture", "exercises"])
def test_each_slip_is_one_line_and_status_1(copy: Path, slip: str, command: str) -> None:
    old, new, said = SLIPS[slip]
    src = edited(old, new)
    (copy / "common" / "hw_specs.py").write_text(src, encoding="utf-8")
    line = line_of(src, new) if new else 0
    args = (
        ["lectures/02_roofline_basics.py"]
        if command == "lecture"
        else ["-m", "common.exercises", "h200-vs-h100"]
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}  # no stale bytecode
    done = subprocess.run(
        [sys.executable, *args], cwd=copy, capture_output=True, text=True, check=False, env=env
    )
    (copy / "common" / "hw_specs.py").write_text(SOURCE, encoding="utf-8")
    assert done.returncode == 1, done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    prog = "02_roofline_basics.py" if command == "lecture" else "common.exercises"
    assert done.stderr.startswith(f"{prog}: error: "), done.stderr
    assert said.format(line=line) in done.stderr
    if slip == "broken import":
        assert "an edit of the course's own files broke this import" in done.stderr


@pytest.mark.parametrize(
    ("path", "seen"),
    [
        ("/srv/course/lectures/words/llm_speed.py", "lectures/words/llm_speed.py"),
        ("/srv/common/x/lectures/02_roofline_basics.py", "lectures/02_roofline_basics.py"),
        ("/srv/lectures/common/tables/models.py", "common/tables/models.py"),
        ("/srv/course/tools/report.py", "tools/report.py"),
        ("/home/me/course/common/hw_specs.py", "common/hw_specs.py"),
        ("./common/hw_specs.py", "common/hw_specs.py"),
        ("hw_specs.py", "hw_specs.py"),
    ],
)
def test_shown_starts_at_the_last_course_folder(path, seen) -> None:
    assert slips.shown(path) == seen


# The lost-name branches of `describe`, in process (the copy-and-run test above runs them in
# a child, which a mutation tool's test map does not see): the frame that used the name and
# the table it is missing from are read from the exception itself.
def _raised_in(path: str, code: str, namespace: dict | None = None) -> BaseException:
    try:
        exec(compile(code, path, "exec"), {} if namespace is None else namespace)
    except Exception as exc:
        return exc
    raise AssertionError(f"{code!r} raised nothing")


LOST_TAIL = " (renamed or deleted there?)"


def test_a_name_imported_from_a_table_that_lost_it_names_the_import_line() -> None:
    exc = _raised_in("/x/lectures/fake.py", "import math\nfrom common.hw_specs import H100X\n")
    assert isinstance(exc, ImportError)
    said = slips.describe(exc)
    assert said is not None
    assert said.startswith("lectures/fake.py line 2: H100X is not in common/hw_specs.py")
    assert LOST_TAIL in said
    # the same import from a module that is not a table, or from a file outside the course
    assert slips.describe(_raised_in("/x/lectures/fake.py", "from math import nothing\n")) is None
    assert slips.describe(_raised_in("/x/y/fake.py", "from common.hw_specs import H\n")) is None


def test_an_attribute_a_table_lost_names_the_line_that_reads_it() -> None:
    code = "x = 1\ny = 2\nz = specs.H100X\n"
    exc = _raised_in("/x/common/exercises/fake.py", code, {"specs": hw_specs})
    said = slips.describe(exc)
    assert said is not None
    assert said.startswith("common/exercises/fake.py line 3: H100X is not in common/hw_specs.py")
    # an attribute missing from something that is not a table is no slip of a table
    assert slips.describe(_raised_in("/x/lectures/f.py", "math.nothing", {"math": math})) is None


def test_a_chip_key_the_table_lost_is_named_only_when_it_was_shipped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def lookup(key: str) -> BaseException:
        return _raised_in("/x/common/exercises/fake.py", f"\nchips[{key!r}]\n", {"chips": {}})

    kept = {k: c for k, c in hw_specs.CHIPS.items() if k != "h100"}
    monkeypatch.setattr(hw_specs, "CHIPS", kept)
    said = slips.describe(lookup("h100"))  # shipped, now missing from the table
    assert said is not None
    assert said.startswith("common/exercises/fake.py line 2: chip key 'h100' is not in common/")
    assert LOST_TAIL in said
    assert slips.describe(lookup("a100")) is None  # still in the table: a bug elsewhere
    assert slips.describe(lookup("never-shipped")) is None  # not a chip the course shipped
    assert slips.describe(KeyError(3)) is None  # not a key by name


def test_source_of_asks_the_loader_for_the_module_by_its_name(tmp_path: Path) -> None:
    class Loader:  # knows one module; any other name has no source here
        def get_source(self, name: str) -> str | None:
            return "X = 1\n" if name == "tables.mine" else None

    file = tmp_path / "mine.py"
    file.write_text("X = 2\n", encoding="utf-8")
    found = {"__loader__": Loader(), "__name__": "tables.mine", "__file__": str(file)}
    assert slips.source_of(found) == "X = 1\n"  # the loader's text, not the file's
    assert slips.source_of({**found, "__name__": "other"}) == "X = 2\n"  # then the file's
    assert slips.source_of({"__name__": "gone", "__file__": str(tmp_path / "no.py")}) == ""


def test_a_figure_that_is_not_a_number_does_not_hide_a_later_unit_slip() -> None:
    from types import SimpleNamespace as Fake

    # the h100's shipped figures in their order: the bf16 peak, ..., the memory bandwidth
    # (3.35 TB/s); here the peak is a word and the bandwidth typed x1000 too high or low
    def chip(bandwidth: float) -> Fake:
        fig = Fake(value=bandwidth, unit="B/s")
        return Fake(key="h100", name="Mine", peak_flops_table={"bf16": "fast"}, mem_bw_figure=fig)

    high = list(slips._warnings(chip(3.35e15)))
    assert len(high) == 1 and "mem bw is x1,000 above the shipped 3.35 TB/s" in high[0]
    low = list(slips._warnings(chip(3.35e9)))
    assert len(low) == 1 and "x1,000 below" in low[0]
    assert list(slips._warnings(chip(3.35e12 * 99))) == []  # x99: within the x100 allowed
