"""Sphinx configuration of the course site: furo, a gallery of the lectures, offline math.

``ROOFLINE_DOCS_RUN`` (a regular expression searched in each lecture's file name, e.g.
``'0[12]_'``) runs only the matching lectures; the others appear without output.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

DOCS_DIR = Path(__file__).resolve().parent
REPO_ROOT = DOCS_DIR.parent
sys.path.insert(0, str(DOCS_DIR / "_ext"))
sys.path.insert(0, str(REPO_ROOT))

import docs_hooks

from common.shell import interface

#: What each lecture says of itself, its ABOUT (common/shell/interface.py), by file stem.
_about = {s: interface.declared(p) for s, p in interface.lectures(REPO_ROOT / "lectures").items()}

# The lectures share one results file, written fresh by the build (lecture 01 first).
os.environ["ROOFLINE_RESULTS"] = str(docs_hooks.results_file(DOCS_DIR))
# Display objects (common.present.display) render as HTML on the pages, not as text.
os.environ["ROOFLINE_HTML"] = "1"

# -- Project -------------------------------------------------------------------
project = "Roofline lectures"
author = copyright = "the roofline-lectures authors"
release = version = "0.1"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # serves MathJax 3 from _static/mathjax: no CDN
    "sphinx_design",
    "sphinx_gallery.gen_gallery",
    "docs_hooks",  # names a lecture that ends the build with SystemExit
    "computed",  # :computed:`expr` role (docs/_ext/computed.py)
    "course",  # hardware table, exercises, API pages, concept figures (docs/_ext/course.py)
    "runner",  # "Run it here" panels: lectures and exercises in the browser (docs/_ext/runner.py)
    "i18n",  # the Chinese edition: catalogs, language switch, shared runtime (docs/_ext/i18n.py)
]

# The Chinese edition's catalogs (docs/_ext/i18n.py), named here because Sphinx loads the
# theme's words (locale/zh_CN/LC_MESSAGES/sphinx.po) before any extension is set up.
locale_dirs = ["locale"]
exclude_patterns = ["_build", "**.ipynb_checkpoints", "auto_lectures/*.ipynb"]
nitpicky = True
smartquotes_action = "qe"  # typographic quotes and ellipses; "--" stays as typed (--png)

# -- HTML ----------------------------------------------------------------------
html_theme = "furo"
html_title = "Roofline lectures"
html_static_path = ["_static"]
html_favicon = "_static/favicon.svg"  # a roofline: slope, then flat
html_css_files = ["course.css"]
html_js_files = [("scroll-boxes.js", {"defer": "defer"})]
# Each lecture's ABOUT["terms"]: main index entries under its title, ranked first by search.
course_index_terms = {s: a["terms"] for s, a in _about.items() if "terms" in a}
# Dark theme (course.css): the browser's own parts dark, figures inverted.
_dark = {"rl-color-scheme": "dark", "rl-dark-filter": "invert(0.92) hue-rotate(180deg)"}
html_theme_options = {"navigation_with_keys": True, "top_of_page_buttons": ["view"]}
html_theme_options["dark_css_variables"] = _dark

# -- Run it here (docs/_ext/runner.py): from each lecture's ABOUT; the exercises computed
# from the hardware table.
runner_lectures = {s: tuple(a["flags"]) for s, a in _about.items() if "flags" in a}
runner_charts = tuple(s for s, a in _about.items() if a.get("figure"))
runner_chips = {s: a["chip"] for s, a in _about.items() if "chip" in a}
runner_exercises = (
    "a100-peak-edit", "v5e-int8", "v5e-int8-weights", "per-example-matrices", "h200-vs-h100",
    "gqa-decode", "bandwidth-2x", "sharded-matmul", "tiled-compute-bound", "tiled-head-dim",
    "prefill-efficiency", "moe-critical-batch")  # fmt: skip

# -- Autodoc (the API page) ------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented"
# Fields without a docstring (a NamedTuple's, a dataclass's) are listed too.
autodoc_default_options = {"undoc-members": True}
autodoc_inherit_docstrings = False  # argparse's own docstrings are not the course's
autodoc_preserve_defaults = True  # FIGURES_DIR as written, never the build machine's path
# Outside names have no page on this offline site (no intersphinx).
_outside = r"typing|collections\.abc|argparse|pathlib|types|os|io|matplotlib|numpy|threadpoolctl"
_bare = r"Any|Callable|Iterable|Iterator|Mapping|Sequence|IO|Path|NoneType|None|optional|T|Self"
_bare += r"|ArgumentParser|ArgumentTypeError|TracebackType|PathLike"
nitpick_ignore_regex = [(r"py:(class|obj|data|exc)", rf"(({_outside})\..*|{_bare})")]

# -- Gallery: every lecture, run in order ----------------------------------------
_LECTURE = r"\d\d_[A-Za-z0-9_]+\.py$"
_only = os.environ.get("ROOFLINE_DOCS_RUN", "").strip()
# A lecture that needs a package not installed here (ABOUT["needs"]) shows unrun.
_unrunnable = "".join(
    rf"(?!{re.escape(s)}\.py)"
    for s, a in _about.items()
    if any(importlib.util.find_spec(name) is None for name in a.get("needs", ())))  # fmt: skip

sphinx_gallery_conf = {
    "examples_dirs": str(REPO_ROOT / "lectures"),
    "gallery_dirs": "auto_lectures",
    # filename_pattern is searched in the full path; the lecture name starts after a separator
    "filename_pattern": re.escape(os.sep)
    + _unrunnable
    + (rf"(?=[^{re.escape(os.sep)}]*(?:{_only}))" if _only else "")
    + _LECTURE,
    "ignore_pattern": rf"^(?!{_LECTURE})",  # helper modules are not lectures
    "within_subsection_order": "FileNameSortKey", "reset_argv": "docs_hooks.reset_argv",
    "image_scrapers": ("docs_hooks.scrape_pngs",),
    "write_computation_times": False,  # its page loads DataTables from a CDN
    "show_signature": False, "remove_config_comments": True,
    # A cell ending in show(...) renders its tables and observations as HTML.
    "capture_repr": ("_repr_html_",),
    "first_notebook_cell": (
        "# This notebook needs the course's `common` package: run `pip install -e .` in\n"
        "# the repository first. In a notebook the lecture's flags keep their defaults.\n"
        "import sys, types\n"
        "sys.argv = sys.argv[:1]\n"
        "# A script's first line, `import _course`, sets up a terminal run; here it does nothing.\n"
        "sys.modules.setdefault('_course', types.ModuleType('_course'))"
    ),
}  # fmt: skip
