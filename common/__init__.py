"""The shared package of the roofline lectures: every formula, table and routine once.

The folder a module sits in says its role, and the roles form a one-way stack: a module imports
only roles on floors below its own (``tests/test_layout.py`` checks every import, function bodies
included), so no two roles import each other. The stack, ground floor first: ``tables``,
``hw_specs``, ``shell``, ``formulas``, ``measure``, ``files``, ``present``, ``plots``,
``exercises``, ``predict``. Above them stand the course script's names (``console``, ``roofline``),
then the lectures and the docs. A lower floor gets what it needs from a higher one as an argument,
never by importing it.

The roles and their modules (each module's own docstring says what it holds):

- ``hw_specs``: the hardware table; every chip figure one literal with its source (edit here).
- ``tables`` (numbers with their sources, units, argument checks, model records):
  ``tables.validate``, ``tables.models``, ``tables.configs``, ``tables.assumptions``,
  ``tables.op_counts``, ``tables.units``, ``tables.sources``, ``tables.shipped``, ``tables.slips``,
  ``tables.measurements``, ``tables.engines``.
- ``shell`` (a lecture's first lines, its flags and the paths it may use): ``shell.boot``,
  ``shell.cli``, ``shell.paths``, ``shell.interface``, ``shell.sink``, ``shell.llm_flags``.
- ``formulas`` (standard library only, like ``tables`` and ``hw_specs``): ``formulas.roofline``,
  ``formulas.thresholds``, ``formulas.ledger``, ``formulas.transformer``, ``formulas.numpy_ops``,
  ``formulas.hierarchy``, ``formulas.attention_io``, ``formulas.predict``, ``formulas.serving``.
- ``measure`` (numpy): ``measure.timing``, ``measure.budget``, ``measure.roofs``,
  ``measure.caches``, ``measure.machine``, ``measure.hierarchy``, ``measure.attention``,
  ``measure.torch_roofs``.
- ``files`` (what the course writes, and the saved calibration): ``files.atomic``,
  ``files.results``, ``files.calibration``.
- ``present`` (text: units, tables, sentences, display objects): ``present.console``,
  ``present.display``, ``present.say``, ``present.charts``, ``present.plain_math``,
  ``present.claims``, ``present.explain``, ``present.probe``, ``present.figures``.
- ``plots`` (figures, labelled in ``present``'s units; matplotlib): ``plots.style``,
  ``plots.roofline``, ``plots.article``, ``plots.hierarchy``, ``plots.transformer``,
  ``plots.attention``, ``plots.predict``, ``plots.timeline``, ``plots.serving``.
- ``exercises`` (on all of them): ``exercises.text``; ``predict``: ``python3 -m common.predict``,
  any model's latency on any chip.
"""
