"""Units: decimal (KB = 1000 B) and binary (KiB = 1024 B) byte multiples, defined once.

Standard library only. The course never mixes the two in one number; bytes per
element of each precision live in the hardware table (``common.hw_specs.bytes_per_elem``).
"""

from __future__ import annotations

KB, MB, GB, TB, PB = 1e3, 1e6, 1e9, 1e12, 1e15
KIB, MIB, GIB, TIB, PIB = 2**10, 2**20, 2**30, 2**40, 2**50
