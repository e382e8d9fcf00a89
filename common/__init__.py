"""The shared package of the roofline lectures: every formula, table and routine once.

The folder a module sits in says its role, and the roles form a one-way stack:
a module imports only roles on floors below its own (``tests/test_layout.py``
checks every import, function bodies included), so no two roles import each
other. The stack, ground floor first: ``tables``, ``hw_specs``, ``shell``,
``formulas``, ``measure``, ``files``, ``present``, ``plots``, ``exercises``,
``predict``. Above them stand the course script's names (``console``, ``roofline``), then the
lectures and the docs. A lower floor gets what it needs from a higher one as an
argument, never by importing it.

- ground: ``tables`` (numbers with their sources, units, argument checks, model
  records) and ``hw_specs`` (the hardware table, built on ``tables``);
- ``shell``: what every lecture stands on before any formula: its first lines,
  its flags and the paths it may use;
- ``formulas`` (pure), ``measure`` (numpy), ``files`` (what the course writes,
  and the saved calibration, or a fresh one);
- ``present`` (text: units, tables, sentences, display objects), ``plots``
  (figures, labelled in ``present``'s units; matplotlib), ``exercises`` (on all of them),
  ``predict`` (``python3 -m common.predict``: any model's latency on any chip).

``tables``, ``hw_specs`` and ``formulas`` are pure (standard library only: lectures
02, 06-08 and 11 run on a bare ``python3``); only ``measure`` imports numpy and only
``plots`` imports matplotlib.

At the top, where students and the course script find them:

- ``hw_specs``: the hardware table; every chip figure one literal with its source (edit here).
- ``console``: the console helpers under the course script's name (``present.console``).
- ``roofline``: the speed formulas and both charts under the course script's name.

``formulas``: pure formulas of the two ledgers.

- ``formulas.roofline``: time bound, intensity, ridge point, matmul counts, tiling, network.
- ``formulas.thresholds``: the integer-threshold solver (critical batch) and the crossover.
- ``formulas.ledger``: operator FLOP/byte counts and the capacity ledger (weights + KV + ...).
- ``formulas.transformer``: both ledgers for a whole decoder-only model.
- ``formulas.numpy_ops``: lecture 01's pass counts and sizes for the numpy operations it times.
- ``formulas.hierarchy``: the hierarchical roofline's sizes, corrections and plateau analysis.
- ``formulas.attention_io``: tiled attention's traffic with M_sm bytes on chip (FlashAttention-2).
- ``formulas.predict``: predictions at spec or achievable roofs, all-reduces, MFU, the gap.
- ``formulas.serving``: expert-parallel dispatch and combine, load imbalance, speculative
  decoding's tokens per step and speed-up, tokens/s per GPU.

``tables``: numbers the formulas take, each with its source, and the checks they pass.

- ``tables.validate``: argument checks; each returns the value or raises a one-line ValueError.

- ``tables.models``: the model table (Llama-2-7B, Llama-3-8B, Llama-3-70B; Mixtral-8x7B,
  Qwen3-30B-A3B, DeepSeek-V3) from config.json, and ``ModelSpec``, a model as the
  capacity ledger sees it.
- ``tables.configs``: a Hugging Face config.json (ten families) as a model record.
- ``tables.assumptions``: the teaching assumptions as named records (overhead rates, ...).
- ``tables.op_counts``: FLOP charged per element (softmax, LayerNorm, RMSNorm, SiLU).
- ``tables.units``: KB/MB/GB and KiB/MiB/GiB, defined once.
- ``tables.sources``: the documents the numbers come from, named once.
- ``tables.shipped``: the hardware table's figures as shipped (generated), where the
  edit-a-figure exercises start.
- ``tables.slips``: a slip in the hardware table said in one line (chip, field, line).
- ``tables.measurements``: published GPU measurements (whole requests on A100s and H100s,
  single matmuls, an all-reduce curve, DeepEP's dispatch and combine) with sources.
- ``tables.engines``: the forecast's engine terms (GEMM and HBM shares, kernel floors,
  all-reduce curves, per-step and launch costs) with sources and the cases they inform.

``shell``: the lecture shell (standard library only).

- ``shell.boot``: every lecture's first lines: one-line errors, quiet Ctrl-C and closed pipes.
- ``shell.cli``: the lectures' flags, their up-front checks and the exit statuses.
- ``shell.paths``: the repository root, the output folders and the checks a path passes.
- ``shell.interface``: a lecture's declared interface (its ``make_parser()``), read unrun.
- ``shell.sink``: where figures go: drawn by ``plots``, or handed to a host that shows them.
- ``shell.llm_flags``: the flags of the model lectures (06-08, 13, 14): model, chip and what
  each lecture adds (precisions, context, batch, EP size, price, request lengths).

``measure``: measuring this machine (numpy).

- ``measure.timing``: the one timer (samples within a budget; batched short calls).
- ``measure.budget``: the measuring lectures' sizes from a time and memory budget.
- ``measure.roofs``: the bandwidth and matmul roofs and their calibration.
- ``measure.caches``: this machine's cache sizes, from the operating system.
- ``measure.machine``: CPU, BLAS library, kernel and threads.
- ``measure.hierarchy``: the bandwidth sweep over working-set sizes and call costs.
- ``measure.attention``: naive and tiled (online-softmax) attention in numpy, and their bytes.
- ``measure.torch_roofs``: torch's roofs and the profiler's records and trace (lecture 12).

``plots``: figures (matplotlib, imported only when a figure is drawn).

- ``plots.style``: the house style, colours and atomic PNG output.
- ``plots.roofline``: rooflines of several chips with named points, one roof or a panel each.
- ``plots.article``: the article's four figures (lecture 04).
- ``plots.hierarchy``: bandwidth by working set and the hierarchical roofline.
- ``plots.transformer``: the capacity ledger and decode throughput against batch (memory wall).
- ``plots.attention``: tiled attention's traffic against on-chip memory; both kernels' times.
- ``plots.predict``: measured times against spec and achievable predictions (lecture 11).
- ``plots.timeline``: profiled operators over time, from a Chrome trace (lecture 12).
- ``plots.serving``: dollars per million output tokens against batch (lecture 14).

``present``: what the reader sees.

- ``present.console``: unit formatting, aligned text tables, headers, observations.
- ``present.display``: display objects, printed in a terminal and HTML on the site.
- ``present.say``: sentences a site can translate: a template with named fields.
- ``present.charts``: the ASCII roofline.
- ``present.plain_math``: TeX formulas as plain text (the exercises' worked answers).
- ``present.claims``: direction words computed from two numbers (rose/fell, faster, n of m).
- ``present.explain``: sentences that explain a measurement.
- ``present.probe``: the machine stamp under measured tables (lectures 01, 03, 09, 10).
- ``present.figures``: captions of the article's four figures (lectures 01, 03, 04).

``files``: what the course writes and reads back.

- ``files.atomic``: atomic writes (a failed write keeps the old file).
- ``files.results``: the results file the measuring lectures share.
- ``files.calibration``: the one reader of a saved calibration (or a fresh quick one).

``exercises``: the exercises' questions and their solvers, computed from the tables.

- ``exercises.text``: the exercises as terminal text (``python3 -m common.exercises``).
"""
