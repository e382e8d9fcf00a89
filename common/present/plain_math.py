"""TeX formulas as plain ASCII text, for a terminal."""

from __future__ import annotations

import re

#: Commands replaced by a symbol or by nothing (spacing); any other prints as its name.
SYMBOLS = {
    "geq": ">=", "ge": ">=", "leq": "<=", "le": "<=", "approx": "~", "times": "x", "cdot": "*",
    "propto": "is proportional to", "Rightarrow": "=>", "iff": "<=>", "ldots": "...", "ast": "*",
    "lceil": "ceil(", "rceil": ")", "left": "", "right": "", "qquad": " ", "quad": " "}  # fmt: skip
SPACES = {",": " ", ";": " ", ":": " ", "!": "", " ": " ", "%": "%"}


def _group(text: str, start: int) -> tuple[str, int]:
    """The braced group opening at text[start] ('{'): its inside and the index after it."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1 : i], i + 1
    raise ValueError(f"unbalanced braces in {text!r}")


def _atom(text: str) -> str:
    """A numerator or denominator: parenthesised when it is more than one term."""
    return f"({text})" if re.search(r"[\s+\-,]", text.strip()) else text.strip()


def plain(tex: str) -> str:
    """`tex` as plain text: fractions as a / b, subscripts as _x, commands as symbols."""
    out: list[str] = []
    i = 0
    while i < len(tex):
        if (ch := tex[i]) == "\\":
            if i + 1 < len(tex) and tex[i + 1] in SPACES:
                out.append(SPACES[tex[i + 1]])
                i += 2
                continue
            name = re.match(r"[A-Za-z]+", tex[i + 1 :])
            word = name.group(0) if name else ""
            i += 1 + len(word)
            if word == "frac":
                top, i = _group(tex, i)
                bottom, i = _group(tex, i)
                out.append(f"{_atom(plain(top))} / {_atom(plain(bottom))}")
            elif word in ("text", "mathrm", "operatorname"):
                inner, i = _group(tex, i)
                out.append(inner)
            else:
                out.append(SYMBOLS.get(word, word))
        elif ch in "_^" and i + 1 < len(tex):
            inner, i = _group(tex, i + 1) if tex[i + 1] == "{" else (tex[i + 1], i + 2)
            inner = plain(inner)
            out.append(ch + (inner if re.fullmatch(r"\w+|\*", inner) else f"({inner})"))
            if len(inner) > 1 and i < len(tex) and tex[i].isalnum():
                out.append(" ")  # d_kv b_kv, not d_kvb_kv
        elif ch in "{}":
            i += 1
        else:
            out.append(ch)
            i += 1
    return re.sub(r"\s+", " ", "".join(out)).strip()
