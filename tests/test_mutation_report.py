"""tools/mutation_report.py leaves out only mutants that change a printed phrase's wording."""

import ast
import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "mutation_report", Path(__file__).resolve().parents[1] / "tools" / "mutation_report.py"
)
report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(report)

ORIGINAL = """
def f(x, bound):
    unit = "ms"
    if bound == "compute bound":
        return {"the key phrase": x}
    return "the time is " + f"{x:.1f}" + unit + " at most"
"""


@pytest.mark.parametrize(
    ("old", "new", "phrase"),
    [
        ('" at most"', '"XX at mostXX"', True),  # wording of a printed phrase
        ('"the time is "', '"THE TIME IS "', True),
        ('"ms"', '"XXmsXX"', False),  # a unit: one word, no space
        ('"compute bound"', '"XXcompute boundXX"', False),  # read by a comparison
        ('"the key phrase"', '"XXthe key phraseXX"', False),  # a dictionary key
        ("x:.1f", "x:.2f", False),  # a number's format
        ('bound == "compute bound"', 'bound != "compute bound"', False),
        ('" at most"', "None", False),
    ],
)
def test_phrase_mutants_are_one_changed_phrase(old: str, new: str, phrase: bool) -> None:
    assert ORIGINAL.count(old) == 1
    mutant = ast.parse(ORIGINAL.replace(old, new))
    assert report.is_phrase_mutant(ast.parse(ORIGINAL), mutant) is phrase


def test_two_changed_phrases_are_not_one() -> None:
    mutant = ORIGINAL.replace('"the time is "', '"XXthe time isXX "').replace("at most", "AT MOST")
    assert not report.is_phrase_mutant(ast.parse(ORIGINAL), ast.parse(mutant))
