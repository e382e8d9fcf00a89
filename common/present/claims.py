"""Computed claims: the direction words of a sentence, chosen from the numbers it quotes.

The word comes from the two numbers, so a sentence stays true after any edit of the
table; values that print the same count as unchanged (never "rose from 295 to 295").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from common.present.console import fmt_ratio
from common.present.say import say

Fmt = Callable[[float], str]


def _plain(x: float) -> str:
    return f"{x:,.1f}"


ratio = fmt_ratio  # a factor as the course prints it: ratio(1.5) == 'x1.50', never x0


def direction(before: float, after: float, fmt: Fmt = _plain) -> int:
    """+1 when `after` is larger, -1 when smaller, 0 when both print the same with `fmt`."""
    if fmt(before) == fmt(after) or before == after:
        return 0
    return 1 if after > before else -1


def change(before: float, after: float, fmt: Fmt = _plain, unit: str = "",
           words: tuple[str, str, str] = ("rises", "falls", "stays at"),
           factor: bool = False) -> str:  # fmt: skip
    """'rises from a to b' / 'falls from a to b' / 'stays at a' (`words`: up, down, same), an
    optional '(x1.50)'; `unit` follows the last number ('' or ' FLOP/B')."""
    up, down, same = words
    d = direction(before, after, fmt)
    if d == 0:
        return f"{same} {fmt(before)}{unit}"
    extra = f" ({ratio(after / before)})" if factor and before else ""
    return f"{up if d > 0 else down} from {fmt(before)} to {fmt(after)}{unit}{extra}"


def rose(before: float, after: float, fmt: Fmt = _plain, unit: str = "") -> str:
    """`change` in the past tense: 'rose from a to b' / 'fell from a to b' / 'stayed at a'."""
    return change(before, after, fmt, unit, ("rose", "fell", "stayed at"))


def grew(factor: float, digits: int = 2) -> str:
    """A factor new / old in words: 'grew x1.50', 'shrank to 1/2.00' (for 0.5), 'stayed the
    same'."""
    word = multiple(factor, digits)
    if word == "the same":
        return "stayed the same"
    return f"grew {word}" if word[0] == "x" else f"shrank to {word}"


def off_one(r: float, digits: int = 2) -> int:
    """The digits, from `digits` up to 5, at which the factor r no longer prints as 1."""
    return next(d for d in range(digits, 6) if f"{r:.{d}f}" != f"{1:.{d}f}" or d == 5)


def speed(t_before: float, t_after: float, digits: int = 2, shown: Fmt | None = None) -> str:
    """How a time bound moved, as a speed: 'x1.43 faster', 'x1.43 slower' or 'no faster'."""
    # `shown`: the format of the two times printed beside it. The factor agrees with them:
    # 'no faster' when they print the same, else the digits (up to 5) that keep it off
    # x1.00 ('grows from 4.48 ms to 4.49 ms (x1.002 slower)').
    r = t_before / t_after
    digits = digits if shown is None else off_one(r, digits)
    d = direction(1.0, r, lambda x: f"{x:.{digits}f}")
    if d == 0 or (shown is not None and direction(t_before, t_after, shown) == 0):
        return "no faster"
    return f"{ratio(r, digits)} faster" if d > 0 else f"{ratio(1 / r, digits)} slower"


def multiple(x: float, digits: int = 2, spec: str = "f") -> str:
    """A factor x = new / old as printed: 'x2.15', '1/4.00' (the reciprocal below 1) or 'the
    same' when it prints as 1."""

    # `spec` "g": `digits` significant digits ('1/3.73'); the same when x or 1 / x prints 1.
    def shown(v: float) -> str:  # never in e-notation: from 10**digits on, whole and grouped
        text = f"{v:,.{digits}{spec}}"
        return f"{v:,.0f}" if "e" in text else text

    one = shown(1)
    if shown(x) == one or (x < 1 and shown(1 / x) == one):
        return "the same"
    if x > 1:
        return ratio(x, digits) if spec == "f" else f"x{shown(x)}"
    return f"1/{shown(1 / x)}"


def times(x: float, digits: int = 2) -> str:
    """A comparison factor: 'x2.15 as much' / '1/4.00 as much' / 'the same'; x is new / old."""
    word = multiple(x, digits)
    return word if word == "the same" else f"{word} as much"


def than(x: float, noun: str = "", digits: int = 2) -> str:
    """`times` before its reference: 'x2.15 as much bandwidth as', 'the same bandwidth as'."""
    return f"{times(x, digits)} {noun} as".replace("  ", " ")


def more_or_fewer(n: float, than: float, noun: str = "") -> str:
    """'more', 'fewer' or 'as many' (with `noun` appended when given)."""
    word = "as many" if n == than else ("more" if n > than else "fewer")
    return f"{word} {noun}".rstrip()


def above(x: float, than: float, fmt: Fmt = _plain) -> str:
    """Where x sits against `than` at the digits shown: 'above', 'below' or 'at'."""
    return {1: "above", -1: "below", 0: "at"}[direction(than, x, fmt)]


def n_of_m(n: int, m: int) -> str:
    """A count of a whole: 'all 8', 'none of the 8', '5 of the 8'."""
    if n == m:
        return say("all {m}", m=m) if m != 1 else say("the one")
    return say("none of the {m}", m=m) if n == 0 else say("{n} of the {m}", n=n, m=m)


def counted(n: int, noun: str, plural: str = "") -> str:
    """A count with its noun in the number it takes: '1 step', '2 steps', '1,024 tokens'."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def side(intensity: float, ridge: float) -> Literal["compute-bound", "memory-bound"]:
    """Which side of the ridge: 'compute-bound' at or past it, 'memory-bound' below."""
    return "compute-bound" if intensity >= ridge else "memory-bound"


def at_least(n: int, limit: int) -> str:
    """'1,024', or 'at least 1,048,576' for a count whose search stopped at its bound `limit`."""
    return f"at least {n:,}" if n >= limit else f"{n:,}"


def binding(limits: Sequence[tuple[str, float]]) -> str:
    """Which of several ceilings binds: the name of the smallest (the first on a tie)."""
    return min(limits, key=lambda p: p[1])[0]


_Regime = Literal["deep in the memory-bound regime",
                  "in the memory-bound regime",
                  "at the ridge",
                  "in the compute-bound regime",
                  "deep in the compute-bound regime"]  # fmt: skip


def regime(intensity: float, ridge: float, deep: float = 10.0) -> _Regime:
    """Where an intensity sits: '(deep) in the memory-bound regime' (deep: below ridge / deep),
    'at the ridge' (prints as 100%), '(deep) in the compute-bound regime' (past ridge deep)."""
    r = intensity / ridge
    if f"{r:.0%}" == "100%":
        return "at the ridge"
    if r < 1:
        return "deep in the memory-bound regime" if r <= 1 / deep else "in the memory-bound regime"
    return "deep in the compute-bound regime" if r >= deep else "in the compute-bound regime"


def outgrew(a: str, ra: float, b: str, rb: float, digits: int = 2) -> str:
    """Two growth factors new / old, the larger first: 'bf16 compute grew x3.17 but bandwidth
    only x2.15', or what they did."""
    if ratio(ra, digits) == ratio(rb, digits):
        return f"{a} and {b} both {grew(ra, digits)}"
    (hi, rhi), (lo, rlo) = sorted(((a, ra), (b, rb)), key=lambda p: -p[1])
    if rlo > 1 and grew(rlo, digits) != "stayed the same":
        return f"{hi} grew {ratio(rhi, digits)} but {lo} only {ratio(rlo, digits)}"
    return f"{hi} {grew(rhi, digits)} and {lo} {grew(rlo, digits)}"


def listing(items: Sequence[str], empty: str = "none") -> str:
    """'a', 'a and b', 'a, b and c', or `empty`."""
    items = list(items)
    if not items:
        return empty
    if len(items) == 1:
        return items[0]
    if len(items) == 2:
        return say("{a} and {b}", a=items[0], b=items[1])
    return say("{a}, {rest}", a=items[0], rest=listing(items[1:]))
