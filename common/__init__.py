"""Shared helpers of the roofline lectures.

- ``console``: headers, tables, observations, unit formatting (standard library).
- ``hw_specs``: the hardware table, one figure per literal, each with its source.
- ``roofline``: the speed ledger's formulas and charts (standard library).
- ``cli``: the lectures' command-line parsing and one-line errors.
- ``results``: the results file lectures share (atomic, versioned).
- ``machine``: what this machine is (CPU, BLAS, kernel, threads).
- ``plotting``: matplotlib figures, imported only by lectures that draw.
"""
