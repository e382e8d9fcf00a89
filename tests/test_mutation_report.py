"""tools/mutation_report.py leaves out only mutants that change a printed phrase's wording."""

import ast
from pathlib import Path

import pytest
from conftest import load_extension

report = load_extension("mutation_report", "tools")

ORIGINAL = """
def f(x, bound):
    unit = "ms"
    if bound == "compute bound":
        return {"the key phrase": x}
    return "the time is " + f"{x:.1f}" + unit + " at most"
"""


@pytest.mark.parametrize(("old", "new", "phrase"), [
    ('" at most"', '"XX at mostXX"', True),  # wording of a printed phrase
    ('"the time is "', '"THE TIME IS "', True),
    ('"ms"', '"XXmsXX"', False),  # a unit: one word, no space
    ('"compute bound"', '"XXcompute boundXX"', False),  # read by a comparison
    ('"the key phrase"', '"XXthe key phraseXX"', False),  # a dictionary key
    ("x:.1f", "x:.2f", False),  # a number's format
    ('bound == "compute bound"', 'bound != "compute bound"', False), ('" at most"', "None", False),
])  # fmt: skip
def test_phrase_mutants_are_one_changed_phrase(old: str, new: str, phrase: bool) -> None:
    assert ORIGINAL.count(old) == 1
    mutant = ast.parse(ORIGINAL.replace(old, new))
    assert report.is_phrase_mutant(ast.parse(ORIGINAL), mutant) is phrase


def test_two_changed_phrases_are_not_one(tmp_path: Path) -> None:
    mutant = ORIGINAL.replace('"the time is "', '"XXthe time isXX "').replace("at most", "AT MOST")
    assert not report.is_phrase_mutant(ast.parse(ORIGINAL), ast.parse(mutant))
    orig = 'def x_g__mutmut_orig(r):\n    return Table(["chip", "time"], r, title="the times")\n'
    versions = {
        1: orig.replace('"chip"', '"CHIP"'),  # a header cell: wording
        2: orig.replace("the times", "THE TIMES"),  # a title's text: phrase
        3: orig.replace(', title="the times"', ""),  # a dropped title: counted
    }
    source = tmp_path / "m.py"
    text = orig + "".join(v.replace("mutmut_orig", f"mutmut_{n}") for n, v in versions.items())
    source.write_text(text, encoding="utf-8")
    names = [f"m.x_g__mutmut_{n}" for n in versions]
    kinds = {"m.x_g__mutmut_1": "wording", "m.x_g__mutmut_2": "phrase"}
    assert report.left_out(tmp_path / "m.py.meta", names) == kinds


TABLES = """
def g(rows, peak, unit):
    heads = ("chip", "time")
    first = Table(["kernel", "bound"], rows, title="The bound of each kernel", note="bf16.")
    second = Table(heads, rows)
    heads = ["ops", "bytes"]  # the name reassigned: both literals are headers
    fifth = Table(heads, rows)
    third = Table(headers=["n"], rows=rows)
    scale = 1e3 if unit == "ms" else 1.0
    fourth = _answer(["a step"], {}, "t=W/beta", ("model", "step"), rows)
    return first, second, third, fourth, fifth, [["GFLOP/s", peak * scale]]
"""


@pytest.mark.parametrize(("old", "new", "wording"), [
    ('"bound"]', '"BOUND"]', True),  # a header cell's text: printed wording
    ('"kernel"', '"XXkernelXX"', True),
    ('"time")', '"TIME")', True),  # a header tuple named, then passed
    ('"bytes"]', '"BYTES"]', True),  # and the name's second literal
    ('["n"]', '["N"]', True),  # the headers keyword
    ('"bound"]', "None]", False),  # not text any more
    (', title="The bound of each kernel"', "", False),  # a dropped title
    (', note="bf16."', "", False),  # a dropped note
    ('unit == "ms"', 'unit == "MS"', False),  # a unit read by a comparison
    ('[["GFLOP/s"', '[["GFLOP/S"', False),  # a cell of a row, not of a header
    ('"step")', '"STEP")', True),  # the exercises' _answer takes its headers 4th
    ('"t=W/beta"', '"XXt=W/betaXX"', False),  # _answer's formula, not a header
])  # fmt: skip
def test_wording_mutants_change_only_a_header_cells_text(old: str, new: str, wording: bool) -> None:
    assert TABLES.count(old) == 1
    mutant = ast.parse(TABLES.replace(old, new))
    assert report.is_header_mutant(ast.parse(TABLES), mutant) is wording
    assert not report.is_phrase_mutant(ast.parse(TABLES), mutant)
