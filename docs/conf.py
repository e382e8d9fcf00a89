"""Sphinx configuration of the course site: furo, a gallery of the lectures, offline math.

Build with ``make docs`` (warnings and broken references are errors). Every
lecture in ``lectures/`` named ``NN_*.py`` is run by sphinx-gallery with the
flags it accepts (``docs/_ext/docs_hooks.py``); its figures, results file and
any other output go under ``docs/_build/lecture_outputs``, never into the
source tree.

Development switch: ``ROOFLINE_DOCS_RUN`` (a regular expression searched in
each lecture's file name, e.g. ``ROOFLINE_DOCS_RUN='0[12]_'``) runs only the
matching lectures; the others appear as text without output. Leave it unset
for the real build.
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

# The lectures share one results file, written fresh by the build (lecture 01 first).
os.environ["ROOFLINE_RESULTS"] = str(docs_hooks.results_file(DOCS_DIR))
# Display objects (common.present.display) render as HTML on the pages, not as text.
os.environ["ROOFLINE_HTML"] = "1"

# -- Project -------------------------------------------------------------------
project = "Roofline lectures"
author = "the roofline-lectures authors"
copyright = "the roofline-lectures authors"
release = version = "0.1"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # serves MathJax 3 from _static/mathjax: no CDN
    "sphinx_design",
    "sphinx_gallery.gen_gallery",
    "docs_hooks",  # names a lecture that ends the build with SystemExit
    "computed",  # :computed:`expr` role (docs/_ext/computed.py)
    "course",  # hardware table, exercises, API pages (docs/_ext/course.py)
    "concept_figures",  # figures drawn by common.plots at build time (docs/_ext/concept_figures.py)
    "runner",  # "Run it here" panels: lectures and exercises in the browser (docs/_ext/runner.py)
    "i18n",  # the Chinese edition: catalogs, language switch, shared runtime (docs/_ext/i18n.py)
]

root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "auto_lectures/*.ipynb"]
nitpicky = True
suppress_warnings: list[str] = []
# Quotes and ellipses become typographic, but "--" stays "--": flags such as --png
# are shown as typed, in prose and in docstrings alike.
smartquotes_action = "qe"

# -- HTML ----------------------------------------------------------------------
html_theme = "furo"
html_title = "Roofline lectures"
html_static_path = ["_static"]
html_favicon = "_static/favicon.svg"  # a roofline: slope, then flat
html_css_files = ["course.css"]
# Wide tables, code and equations scroll in boxes a keyboard can reach (named for readers).
html_js_files = [("scroll-boxes.js", {"defer": "defer"})]
# Search ranks the lecture and concept pages above API entries (docs/_static/search-scorer.js).
html_search_scorer = str(DOCS_DIR / "_static" / "search-scorer.js")
# What each lecture is about, as main index entries at the top of its page: search lists
# the page first for these terms, and the general index links to it.
course_index_terms = {
    "02_roofline_basics": ("roofline", "critical batch", "ridge point"),
    "03_memory_ledger": ("batch sweep",),
    "06_llm_speed": ("prefill", "decode"),
    "07_llm_capacity": ("KV cache", "memory wall"),
    "09_hierarchical_roofline": ("hierarchical roofline",),
    "10_tiled_attention": ("FlashAttention", "tiled attention"),
}
html_show_sourcelink = True
html_copy_source = True
html_last_updated_fmt = None
html_theme_options = {
    "navigation_with_keys": True,
    "top_of_page_buttons": ["view"],
}

# -- Run it here (docs/_ext/runner.py) --------------------------------------------
# The lectures whose page gets a panel, each with the flags it offers; choices and
# defaults come from the parser the lecture declares (its make_parser()). A lecture
# must import on the standard library alone (the build checks). The exercises whose
# answers the panel recomputes are those computed from the hardware table.
runner_lectures = {
    "02_roofline_basics": (),
    "05_operator_ledger": ("--chip", "--precision"),
    "06_llm_speed": ("--model", "--chip", "--precision", "--batch", "--context"),
    "07_llm_capacity": ("--model", "--chip", "--precision", "--context"),
    "08_llm_levers": ("--model", "--chip", "--batch", "--context"),
    "11_predict_and_check": (),
}
# The lectures whose main figure the panel redraws after a run (Vega-Lite in the page),
# and the chip a panel's table opens at where the lecture has no --chip flag.
runner_charts = ("02_roofline_basics", "05_operator_ledger", "06_llm_speed", "07_llm_capacity")
runner_chips = {"02_roofline_basics": "h100"}
runner_exercises = (
    "a100-peak-edit",
    "v5e-int8",
    "v5e-int8-weights",
    "per-example-matrices",
    "h200-vs-h100",
    "gqa-decode",
    "bandwidth-2x",
    "sharded-matmul",
    "tiled-compute-bound",
    "tiled-head-dim",
    "prefill-efficiency",
)

# -- Autodoc (the API page) ------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented"
autodoc_typehints_format = "short"
autodoc_default_options = {"undoc-members": False}
autodoc_inherit_docstrings = False  # argparse's own docstrings are not the course's
# Defaults as written in the source (FIGURES_DIR), never as evaluated on the build
# machine (PosixPath('/home/...')).
autodoc_preserve_defaults = True
# Names from the standard library and third-party packages have no page on this
# offline site (no intersphinx); keep nitpicky mode for the course's own names.
nitpick_ignore_regex = [
    (r"py:(class|obj|data|exc)", r"(typing|collections\.abc|argparse|pathlib|types|os|io)\..*"),
    (r"py:(class|obj|data)", r"(Any|Callable|Iterable|Iterator|Mapping|Sequence|IO|Path)"),
    (r"py:(class|obj|data)", r"(NoneType|None|optional|T|Self)"),
    (r"py:(class|obj)", r"(ArgumentParser|ArgumentTypeError|TracebackType|PathLike)"),
    (r"py:(class|obj)", r"(matplotlib|numpy|threadpoolctl)\..*"),
]

# -- Gallery: every lecture, run in order ----------------------------------------
_LECTURE = r"\d\d_[A-Za-z0-9_]+\.py$"
_only = os.environ.get("ROOFLINE_DOCS_RUN", "").strip()
# Lecture 12 needs PyTorch (the profile extra): without it the page shows its prose and
# code unrun, and the docstring's line on how to install it (a lecture must not exit here).
_no_torch = "" if importlib.util.find_spec("torch") else r"(?!12_)"

sphinx_gallery_conf = {
    "examples_dirs": str(REPO_ROOT / "lectures"),
    "gallery_dirs": "auto_lectures",
    # filename_pattern is searched in the full path; the lecture name starts after a separator
    "filename_pattern": re.escape(os.sep)
    + _no_torch
    + (rf"(?=[^{re.escape(os.sep)}]*(?:{_only}))" if _only else "")
    + _LECTURE,
    "ignore_pattern": rf"^(?!{_LECTURE})",  # helper modules are not lectures
    "within_subsection_order": "FileNameSortKey",
    "reset_argv": "docs_hooks.reset_argv",
    "image_scrapers": ("docs_hooks.scrape_pngs",),
    "abort_on_example_error": False,  # run every lecture, then fail the build...
    "only_warn_on_example_error": False,  # ...with an error listing the broken ones
    "write_computation_times": False,  # its page loads DataTables from a CDN
    "show_memory": False,
    "show_signature": False,
    "download_all_examples": True,
    "remove_config_comments": True,
    # A cell ending in show(...) renders its tables and observations as HTML.
    "capture_repr": ("_repr_html_",),
    "min_reported_time": 0,
    "binder": {},
    "jupyterlite": {},
    "first_notebook_cell": (
        "# This notebook needs the course's `common` package: run `pip install -e .` in\n"
        "# the repository first. In a notebook the lecture's flags keep their defaults.\n"
        "import sys\n"
        "sys.argv = sys.argv[:1]"
    ),
}
