"""Units: decimal (KB = 1000 B) and binary (KiB = 1024 B) byte multiples, defined once."""

from __future__ import annotations

KB, MB, GB, TB, PB = 1e3, 1e6, 1e9, 1e12, 1e15
KIB, MIB, GIB, TIB, PIB = 2**10, 2**20, 2**30, 2**40, 2**50
