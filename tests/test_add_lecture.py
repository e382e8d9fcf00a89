"""A new lecture is its script, its words and its tests: nothing else names it. A copy of the
repository gets a throwaway lecture, and the site, the budget and the layout test find it from
the ``ABOUT`` its script declares beside ``make_parser()``."""

from __future__ import annotations

import json
import os
import shutil
import textwrap

from conftest import REPO, run_python

SKIP = shutil.ignore_patterns("__pycache__", "_build", "auto_lectures", "gen_modules", "*.pyc")

SCRIPT = '''\
"""
A throwaway lecture
===================

The ridge point of one chip, to prove a lecture needs only its own files.
"""

import _course  # noqa: F401  (sets the lecture up: lectures/_course.py)

from common.hw_specs import CHIPS
from common.shell.cli import LectureParser, lecture_parser, one_of, parse_args
from lectures.words import throwaway as page

ABOUT = {
    "flags": ("--chip",),
    "figure": True,
    "chip": "h200",
    "terms": ("throwaway ridge",),
    "budget": (7, 0.75),
    "bare": True,
}


def make_parser() -> LectureParser:
    """The command line: --chip."""
    parser = lecture_parser(__doc__)
    parser.add_argument("--chip", type=one_of(CHIPS, "chip"), default="h200", help="the chip")
    return parser


args = parse_args(make_parser())

# %%
# The ridge
# ---------
print(page.ridge_line(CHIPS[args.chip]))
'''

WORDS = '''\
"""The throwaway lecture's words."""


def ridge_line(chip) -> str:
    """One sentence: the chip's bf16 ridge point."""
    return f"{chip.name}: bf16 ridge {chip.ridge_point('bf16'):.0f} FLOP/B"
'''

TEST = """\
from conftest import run_lecture


def test_it_prints_the_ridge() -> None:
    proc = run_lecture("99")
    assert proc.returncode == 0 and "ridge" in proc.stdout, proc.stderr
"""

# What the copy's configuration says of the throwaway lecture, read in a fresh process.
PROBE = """
import json, os, re, runpy, sys
sys.path.insert(0, os.getcwd())
conf = runpy.run_path("docs/conf.py")
gallery = conf["sphinx_gallery_conf"]
lecture = os.path.abspath("lectures/99_throwaway.py")
import runner
from common.measure import budget
print(json.dumps({
    "gallery": bool(re.search(gallery["filename_pattern"], lecture))
    and not re.search(gallery["ignore_pattern"], os.path.basename(lecture)),
    "opening_ignored": bool(re.search(gallery["ignore_pattern"], "_course.py")),
    "flags": conf["runner_lectures"].get("99_throwaway"),
    "chart": "99_throwaway" in conf["runner_charts"],
    "chip": conf["runner_chips"].get("99_throwaway"),
    "terms": conf["course_index_terms"].get("99_throwaway"),
    "options": [o.flag for o in runner.lecture_options(runner.Path(lecture), ["--chip"])],
    "budget": [budget.DEFAULTS["99"].seconds, budget.DEFAULTS["99"].memory_bytes],
}))
"""


def clean_env() -> dict[str, None]:
    """For run_python: the test's environment less $PYTHONPATH and every $ROOFLINE_ name."""
    return {k: None for k in os.environ if k.startswith("ROOFLINE_") or k == "PYTHONPATH"}


def test_the_site_the_budget_the_layout_and_its_own_tests_find_the_new_lecture(tmp_path) -> None:
    # the repository's course, site configuration and tests, plus a throwaway lecture
    copy = tmp_path
    for part in ("common", "lectures", "tests", "docs"):
        shutil.copytree(REPO / part, copy / part, ignore=SKIP)
    shutil.copy2(REPO / "pyproject.toml", copy)
    (copy / "lectures" / "99_throwaway.py").write_text(SCRIPT, encoding="utf-8")
    (copy / "lectures" / "words" / "throwaway.py").write_text(WORDS, encoding="utf-8")
    (copy / "tests" / "lectures" / "test_lecture99.py").write_text(TEST, encoding="utf-8")
    proc = run_python("-c", textwrap.dedent(PROBE), cwd=copy, env=clean_env())
    assert proc.returncode == 0, proc.stderr[-2000:]
    found = json.loads(proc.stdout.splitlines()[-1])
    assert found["gallery"] and found["opening_ignored"]
    assert found["flags"] == ["--chip"] and found["options"] == ["--chip"]
    assert found["chart"] and found["chip"] == "h200"
    assert found["terms"] == ["throwaway ridge"]
    assert found["budget"] == [7.0, 3 * 2**30 // 4]  # 0.75 GiB
    proc = run_python(
        "-m", "pytest", "-q", "-p", "no:cacheprovider",
        "tests/test_layout.py::test_formula_lectures_run_on_bare_python_from_elsewhere",
        "tests/lectures/test_lecture99.py", "-k", "99_throwaway or test_it_prints_the_ridge",
        cwd=copy, env=clean_env(), timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "2 passed" in proc.stdout  # the bare-python run and the lecture's own test
