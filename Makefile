# Two doors in: `make docs` builds the course site, `make test` checks everything.
# Every target bootstraps a local virtual environment (.venv) from PyPI on first use.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
LECTURES := $(sort $(wildcard lectures/[0-9][0-9]_*.py))
SITE   := docs/_build/html
# The Chinese edition (docs/_ext/i18n.py): the same sources with the catalogs in docs/locale/
ZH_SITE := $(SITE)/zh
ZH_BUILD := -D language=zh_CN -d docs/_build/doctrees-zh
NPM    ?= npm
# The Python runtime of the site's "Run it here" panels: the pyodide version pinned in
# package-lock.json, installed into node_modules/ once (a reinstall comes from npm's cache).
RUNTIME := node_modules/pyodide/package.json

.PHONY: help venv lint unit caches docs gettext browser test lectures figures mutation shipped clean profile

help:
	@echo "make docs      build the course site (runs every lecture) into $(SITE), Chinese in $(ZH_SITE)"
	@echo "make gettext   refresh the Chinese catalogs (docs/locale/zh_CN) from the English prose"
	@echo "make test      lint, unit tests (again under fake cache sizes), site build, browser test"
	@echo "make lectures  run every lecture in order"
	@echo "make figures   run every lecture, saving each figure into figures/"
	@echo "make profile   run lecture 12 (PyTorch's profiler against the ledger)"
	@echo "make mutation  mutation testing (mutmut) of formulas, tables, words, exercises (slow; not in test)"
	@echo "make clean     remove generated output (site, figures, results, caches)"

# The profile extra is PyTorch (lecture 12), pinned to a CPU build where the index has one;
# it adds about 0.9 GB to .venv and some 20-30 s (idle machine) to the first install.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[test,docs,profile]"
	@touch $@

venv: $(STAMP)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# -n auto: one pytest worker a core (pytest-xdist); --dist loadscope keeps a module's (a
# class's) tests on one worker, so its shared fixture runs once (the edit battery's two
# halves, a class each, run side by side).
XDIST := -n auto --dist loadscope

unit: $(STAMP)
	$(PY) -m pytest -m "not browser and not site" -q $(XDIST) --durations=10

$(RUNTIME): package.json package-lock.json
	@if ! command -v $(NPM) >/dev/null 2>&1; then \
	  echo "docs: npm is not installed, so the Run-it-here panels are off (install Node.js and npm, then make docs)"; \
	elif $(NPM) ci --prefer-offline --no-audit --no-fund --loglevel=error; then \
	  touch $@; \
	else \
	  echo "docs: npm ci failed (see above), so the Run-it-here panels are off"; \
	fi

docs: $(STAMP) $(RUNTIME)
	rm -rf docs/_build docs/auto_lectures docs/gen_modules
	$(PY) -m sphinx -W --keep-going -n -b html docs $(SITE)
	$(PY) -m sphinx -W --keep-going -n -b html $(ZH_BUILD) docs $(ZH_SITE)
	@echo "Site built: $(abspath $(SITE))/index.html (Chinese: $(abspath $(ZH_SITE))/index.html)"

# After a change to English prose: extract its messages (the lectures are not run) and
# merge them into the Chinese catalogs; new and changed entries come out empty or fuzzy,
# and the Chinese build fails on those (docs/_ext/i18n.py).
gettext: $(STAMP)
	rm -rf docs/_build/gettext docs/auto_lectures docs/gen_modules
	$(PY) -m sphinx -q -b gettext -D plot_gallery=0 docs docs/_build/gettext
	$(VENV)/bin/sphinx-intl update -p docs/_build/gettext -d docs/locale -l zh_CN

# On both cores as well, each worker with its own Chromium and server: the site pass (one
# module, its four views side by side) on one, the Run panel tests (Pyodide takes one core)
# and the rest on the other. --durations (here and in unit): the CI log says where the time went.
browser: $(STAMP)
	$(PY) -m pytest -m "browser or site" -q $(XDIST) --durations=10

# The tests whose code reads the last-level cache size (common/measure/caches.py, through
# the budget, the roofs and the measuring lectures) once more as if this machine had a
# 480 MiB and a 1.1 GiB last-level cache, so a small-cache machine sees what only a large
# cache shows. Tests of code that never reads it, and tests that set the size themselves
# (-k), would only repeat themselves.
CACHE_TESTS := $(foreach t,caches budget roofs,tests/measure/test_$(t).py) tests/files/test_results.py \
  $(foreach n,01 03 09 10,tests/lectures/test_lecture$(n).py)
caches: $(STAMP)
	@set -e; for llc in 480M 1.1G; do echo "== ROOFLINE_FAKE_LLC=$$llc"; \
	  ROOFLINE_FAKE_LLC=$$llc $(PY) -m pytest -m "not browser" -q $(XDIST) -k "not 480_mib and not no_shared_memory" \
	  $(CACHE_TESTS); done

test: lint unit caches docs browser

# mutmut ([tool.mutmut] in pyproject.toml) breaks the modules one fault at a time; the
# report gives the share its tests catch per module, status 1 below 90%. MUTATION_ARGS
# narrows it to mutant names, e.g. MUTATION_ARGS='"common.formulas.ledger.*"'.
$(VENV)/.mutation-stamp: $(STAMP)
	$(PY) -m pip install --quiet -e ".[mutation]"
	@touch $@

mutation: $(VENV)/.mutation-stamp
	$(PY) -m mutmut run $(MUTATION_ARGS)
	$(PY) tools/mutation_report.py

# the shipped figures the edit-a-figure exercises start from (after changing a figure)
shipped: $(STAMP)
	$(PY) tools/shipped_table.py

profile: $(STAMP)
	$(PY) lectures/12_profiler_vs_ledger.py

lectures: $(STAMP)
	@set -e; for f in $(LECTURES); do echo "== $$f"; $(PY) $$f; done

figures: $(STAMP)
	@set -e; for f in $(LECTURES); do \
	  if $(PY) $$f --help | grep -q -- '--png'; then echo "== $$f --png"; $(PY) $$f --png; \
	  else echo "== $$f"; $(PY) $$f; fi; done
	@echo "Figures: $(abspath figures)"

clean:
	rm -rf docs/_build docs/auto_lectures docs/gen_modules figures/*.png results .pytest_cache .ruff_cache mutants
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
