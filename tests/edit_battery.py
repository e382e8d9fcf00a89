"""The edit battery (tests/present/test_edit_battery.py): the hardware-table edits a student
makes (``table_figures``, ``edited_source``, ``battery``), and ``contradictions``, a reader of
the words that follow which parses numbers back out of the text, independently of the course's
own wording helpers."""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterator, Mapping

Field = tuple[str, str]  # (chip key, field): ("a100", "peak bf16"), ("h100", "mem_bw_figure")


def _number(node: ast.AST) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return float(node.value)
    return None


def table_figures(source: str) -> dict[Field, tuple[ast.Constant, float]]:
    """Every figure literal of every ``Chip(...)``: (chip key, field) -> (node, value)."""
    found: dict[Field, tuple[ast.Constant, float]] = {}
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Chip"):
            continue
        kw = {k.arg: k.value for k in node.keywords}
        key_node = kw.get("key")
        if not isinstance(key_node, ast.Constant):
            continue
        key = str(key_node.value)
        for name, value in kw.items():
            if isinstance(value, ast.Dict):  # peak_flops_table, achievable_flops_table
                for k, v in zip(value.keys, value.values, strict=True):
                    if isinstance(k, ast.Constant) and isinstance(v, ast.Call) and v.args:
                        n = _number(v.args[0])
                        if n is not None:
                            label = "peak" if name == "peak_flops_table" else name[: -len("_table")]
                            found[(key, f"{label} {k.value}")] = (v.args[0], n)  # type: ignore[assignment]
            elif isinstance(value, ast.Call) and value.args:
                n = _number(value.args[0])
                if n is not None:
                    found[(key, str(name))] = (value.args[0], n)  # type: ignore[assignment]
    return found


def edited_source(source: str, edit: Mapping[Field, float]) -> str:
    """The table's source with each edited figure's literal replaced by its new value."""
    figures = table_figures(source)
    lines = source.splitlines(keepends=True)
    spans = []
    for field, value in edit.items():
        node, _ = figures[field]
        spans.append((node.lineno, node.col_offset, node.end_col_offset, value))
    for lineno, start, end, value in sorted(spans, reverse=True):
        line = lines[lineno - 1]
        lines[lineno - 1] = line[:start] + repr(float(value)) + line[end:]
    return "".join(lines)


def battery(figures: Mapping[Field, tuple[object, float]]) -> Iterator[tuple[str, dict]]:
    """(name, edit) for every edit a student would plausibly make to the table."""
    value = {f: v for f, (_, v) in figures.items()}
    yield "README: A100 bf16 peak 312e12 -> 1979e12", {("a100", "peak bf16"): 1979e12}
    for (chip, field), v in value.items():
        if field.startswith("peak ") or field in ("mem_bw_figure", "link_bw_figure"):
            yield f"{chip} {field} x2", {(chip, field): 2 * v}
            yield f"{chip} {field} x0.5", {(chip, field): v / 2}
    for a, b in (("a100", "h100"), ("h100", "h200"), ("tpu-v5e", "tpu-v6e"), ("h100", "b300")):
        shared = [f for (c, f) in value if c == a and (b, f) in value]
        swap = {(a, f): value[(b, f)] for f in shared} | {(b, f): value[(a, f)] for f in shared}
        yield f"swap {a} and {b}", swap
    for chip in sorted({c for c, _ in value}):
        peaks = sorted(
            ((v, f) for (c, f), v in value.items() if c == chip and f.startswith("peak ")),
            key=lambda p: (p[0], p[1]),
        )
        for (lo_v, lo_f), (hi_v, hi_f) in itertools.pairwise(peaks):
            if hi_v > lo_v and hi_f != "peak int8":  # a low precision set below a higher one
                yield f"{chip} {hi_f} below {lo_f}", {(chip, hi_f): lo_v / 2}
    for what, field in (("capacity", "mem_capacity_figure"), ("shared memory per SM", "smem")):
        yield f"every {what} halved", {f: v / 2 for f, v in value.items() if f[1].startswith(field)}
    # several chips and figures at once, at the ends of the drawn factors (0.01 to 100)
    bf16 = [f for f in value if f[1] == "peak bf16"]
    bw = [f for f in value if f[1] == "mem_bw_figure"]
    yield (
        "every bf16 peak x0.05 and bandwidth x20",
        {f: value[f] * 0.05 for f in bf16} | {f: value[f] * 20 for f in bw},
    )
    yield "every bf16 peak x100", {f: value[f] * 100 for f in bf16}
    yield "every bandwidth x0.01", {f: value[f] * 0.01 for f in bw}
    yield (
        "every bandwidth x100 and capacity x0.01",
        {f: value[f] * 100 for f in bw}
        | {f: v * 0.01 for f, v in value.items() if f[1] == "mem_capacity_figure"},
    )


_SCALE = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12, "p": 1e15, "e": 1e18,
          "ki": 2.0**10, "mi": 2.0**20, "gi": 2.0**30, "ti": 2.0**40}  # fmt: skip
_TIME = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "ps": 1e-12, "min": 60.0,
         "h": 3600.0}  # fmt: skip
NUM = (
    r"(?P<{0}>-?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?)"
    r"(?:\s?(?P<{0}u>[kmgtpe]i?(?=b|flop|op)|(?:ms|us|µs|ns|ps|min|s|h)\b))?")  # fmt: skip


def _value(match: re.Match, group: str) -> float:
    """The number of a NUM group in base units (a prefix multiplies; a time unit too)."""
    x = float(match.group(group).replace(",", ""))
    unit = (match.group(group + "u") or "").lower()
    if unit in _TIME:
        return x * _TIME[unit]
    return x * _SCALE.get(unit, 1.0)


def quantity(text: str) -> float:
    """The number `text` starts with, in base units: '4.00 µs' -> 4e-6, '2.15 GFLOP' -> 2.15e9."""
    return _value(re.match(NUM.format("v"), text.lower()), "v")


UP = r"rises|rose|risen|rise|grows|grew|grow|jumps|jumped|climbs|climbed|increases|increased"
DOWN = r"falls|fell|fall|drops|dropped|decreases|decreased|shrinks|shrank|shrink|lowers|lowered"
# A sentence ends at a period followed by a space (decimals have none), or at ';'.
# A sentence ends before a capital or a numbered item ("... reach. 3. fp8 keeps ..."):
# a lecture's output flattened to one line keeps its observations apart.
_SENTENCES = re.compile(r"(?<=[.;:!?])\s+(?=[A-Z(]|\d+\.\s)|;\s+|\n")


def _unwrap(text: str) -> str:
    """Join a terminal's wrapped lines (indented further, not a new item) to their item."""
    out: list[str] = []
    for line in text.splitlines():
        item = re.match(r"\s*(?:\d+\.|-|\*)\s", line)
        if out and out[-1].strip() and re.match(r"\s{3,}\S", line) and not item:
            out[-1] = out[-1].rstrip() + " " + line.strip()
        else:
            out.append(line)
    return "\n".join(out)


def sentences(text: str) -> list[str]:
    """The text cut into sentences and lines (wrapped lines joined first)."""
    return [s.strip() for s in _SENTENCES.split(_unwrap(text)) if s.strip()]


def contradictions(text: str) -> list[str]:
    """Every sentence of `text` whose direction word, reason or regime disagrees with its
    numbers, with why; and pairs of sentences that disagree with each other."""
    found = []
    said = sentences(text)
    for s in said:
        low = s.lower()
        found += [f"{why}: {s}" for why in _sentence_faults(low)]
        empty = r"\bNone\b(?! of)|\[\]|(?<!\w)\(\)|: \."  # a call's () is not empty words
        if re.search(empty + r"|\bx0(?:\.0+)?(?![.\d])|\b(?:nan|inf)\b", s):
            found.append(f"None, an empty list or bracket or a factor of x0: {s}")
        if re.search(r"(?<![\d.])0\.0+% of (?:its )?peak", s):  # every operation gets some
            found.append(f"an operation at 0% of peak: {s}")
    for a, b in itertools.pairwise(said):  # "stays at 0.556 ms. The time improves ..."
        if re.match(r"\d+\.\s", b):  # the next numbered item speaks of something else
            continue
        if re.search(r"\b(?:stays|stayed) at\b", a.lower()) and re.search(
            r"\b(?:improves|falls|gets faster)\b", b.lower()
        ):
            found.append(f"says it stays, then that it moves: {a} {b}")
    found += [f"{why}" for why in _text_faults(" ".join(_unwrap(text).split()).lower())]
    return found


def _text_faults(t: str) -> Iterator[str]:
    """Reasons checked against numbers said elsewhere in the text."""
    # "flattens because each sequence reads its own ... KV cache ...: no batch beats
    # bandwidth / that, C tokens/s" is the reason only if compute does not cap it lower:
    # "cost T of compute per token" caps the rate at 1 / T.
    kv = re.search(
        rf"flattens because each sequence reads its own.*?that, {NUM.format('c')} tokens/s on "
        r"(?P<chip>[^,.]+?) and ",
        t,
    )
    cost = re.search(
        rf"matmuls on (?P<chip>[^,.]+?) together are past the ridge and cost {NUM.format('t')} "
        "of compute per token",
        t,
    )
    if kv and cost and kv["chip"] == cost["chip"] and 1 / _value(cost, "t") < _value(kv, "c"):
        yield "says the KV cache flattens the curve, but compute caps it lower"


def _sentence_faults(s: str) -> Iterator[str]:
    # 1. "<verb> ... from A to B": the nearest direction verb before it sets the direction.
    verbs = [(m.start(), +1) for m in re.finditer(rf"\b(?:{UP})\b", s)]
    verbs += [(m.start(), -1) for m in re.finditer(rf"\b(?:{DOWN})\b", s)]
    verbs += [(m.start(), 0) for m in re.finditer(r"\b(?:moves?|goes|went|changes?)\b", s)]
    for m in re.finditer(rf"\bfrom {NUM.format('a')} to {NUM.format('b')}", s):
        before = [(pos, d) for pos, d in verbs if pos < m.start()]
        if not before:
            continue
        direction = max(before)[1]
        a, b = _value(m, "a"), _value(m, "b")
        if m.group("bu") and not m.group("au"):  # 'from 4.50 to 2.25 GiB': one unit for both
            a *= b / float(m.group("b").replace(",", ""))
        if direction > 0 and not b > a:
            yield "says it rises"
        if direction < 0 and not b < a:
            yield "says it falls"
    # 2. "grew x1.5", "raises the peak x2", "gains x3": a growth factor above 1.
    for m in re.finditer(
        rf"\b(?:{UP}|raises?|gains?)\b(?:\s+[a-z0-9-]+){{0,3}}?\s+x{NUM.format('r')}", s
    ):
        if not _value(m, "r") > 1.0:
            yield "a growth factor that is not above 1"
    # 3. "x2.0 faster", "3.1x fewer", "x1.5 more": a comparative factor above 1.
    comparative = r"faster|slower|fewer|more|less|larger|bigger|higher|lower|smaller|below|above"
    for m in re.finditer(rf"(?:\bx{NUM.format('r')}|{NUM.format('q')}x)\s+(?:{comparative})\b", s):
        r = _value(m, "r") if m.group("r") else _value(m, "q")
        if not r > 1.0:
            yield "a comparative factor that is not above 1"
    # 3b. "x2.00 as much", "1/4.00 as much", "shrank to 1/2.00": a factor past 1 either way.
    for m in re.finditer(rf"\bx{NUM.format('r')}\s+as much\b|\b1/{NUM.format('q')}", s):
        if not (_value(m, "r") if m.group("r") else _value(m, "q")) > 1.0:
            yield "an 'as much' factor that is not past 1"
    # 4. "x A ... but/for only x B": the factor nearest before "only" must exceed B.
    for m in re.finditer(rf"\bonly x{NUM.format('b')}", s):
        earlier = list(re.finditer(rf"\bx{NUM.format('a')}", s[: m.start()]))
        if earlier and not _value(earlier[-1], "a") > _value(m, "b"):
            yield "'only' a larger factor"
    # 5. "barely moves ... A against B", "stays where ...: A against B": about equal.
    m = re.search(
        rf"\b(?:barely moves?|stays? where|unchanged)\b.*?"
        rf"{NUM.format('a')} against {NUM.format('b')}",
        s,
    )
    if m:
        a, b = _value(m, "a"), _value(m, "b")
        if not (b > 0 and 0.8 <= a / b <= 1.25):
            yield "says about equal"
    # 6. "n of the m": a count no larger than its whole.
    for m in re.finditer(rf"\b{NUM.format('n')} of (?:the |its |all )?{NUM.format('m')}\b", s):
        if _value(m, "n") > _value(m, "m"):
            yield "n of m with n > m"
    # 7. "Neither reaches ... (x2.02 what it has)": every need above what there is.
    if re.search(r"\bneither reaches\b", s):
        for m in re.finditer(rf"\(x{NUM.format('r')} what it has\)", s):
            if not _value(m, "r") > 1.0:
                yield "says neither reaches, but one has enough"
    # 9. "it is 30, not 30" and "moves from (a, b] to (a, b]": a change between equal texts.
    for m in re.finditer(r"\b(\S+), not (\S+?)[,.;:)]?(?:\s|$)", s):
        if m.group(1) == m.group(2):
            yield "'A, not A'"
    for m in re.finditer(r"\bfrom (\S.{0,40}?) to ", s):
        same = re.match(re.escape(m.group(1)) + r"(?![\w.,]*\d)", s[m.end() :])  # 2 vs 2,778
        if same and re.search(r"\d", m.group(1)):
            yield "'from A to A'"
    # 10. "201 FLOP/B ..., above the ridge of 295": the number before and the ridge after.
    for m in re.finditer(
        rf"(?<![\w.]){NUM.format('a')}[^.;]{{0,40}}?\b(?P<w>below|under|above|past) (?:its |the )?"
        rf"(?:[a-z0-9 ]{{0,20}}?)ridge (?:point )?of {NUM.format('b')}",
        s,
    ):
        a, b = _value(m, "a"), _value(m, "b")
        if m.group("au"):  # "17.90 GB: 201 FLOP per byte": a size or a time is no intensity
            continue
        if (a >= b) if m.group("w") in ("below", "under") else (a < b):
            yield f"says {m.group('w')} the ridge"
    # 8. "falls x3.2" / "drops x2": a factor of decrease above 1.
    for m in re.finditer(rf"\b(?:{DOWN})\s+x{NUM.format('r')}", s):
        if not _value(m, "r") > 1.0:
            yield "a decrease factor that is not above 1"
    # 9. "201 FLOP per byte overall, below the ridge of 295", "ends at 6,000 tokens/s at
    # its wall, below the bandwidth ceiling of 7,629": the side, at the ridge's digits.
    for m in re.finditer(
        rf"{NUM.format('x')}\s?(?:flop/byte|flop per byte overall|tokens/s)[^;]{{0,30}}?\b"
        rf"(?P<side>above|below|at) the (?:ridge|bandwidth ceiling) of {NUM.format('r')}",
        s,
    ):
        digits = len(m.group("r").partition(".")[2])  # the ridge's decimals: 295, or 0.3
        x, r = round(_value(m, "x"), digits), _value(m, "r")
        if {"above": not x > r, "below": not x < r, "at": x != r}[m.group("side")]:
            yield f"says {m.group('side')} the ridge"
    # 11. "0.7% of the A100's ridge point: deep in the memory-bound regime": the side of the
    # ridge the percentage says, and "deep" only a factor of 10 or more from it.
    for m in re.finditer(
        rf"{NUM.format('p')}% of [^:;]*?ridge point: (?P<deep>deep )?in the "
        r"(?P<side>memory|compute)-bound regime",
        s,
    ):
        p = _value(m, "p") / 100
        if (m.group("side") == "memory") != (p < 1):
            yield f"says {m.group('side')}-bound at {p:.0%} of the ridge"
        if m.group("deep") and 0.1 < p < 10:
            yield "says deep in a regime within a factor of 10 of the ridge"
    # 12. "by a factor of 2.03, that is, not at all": only a factor that prints 1.00.
    for m in re.finditer(rf"factor of {NUM.format('r')}, that is, not at all", s):
        if round(_value(m, "r"), 2) != 1.0:
            yield "says not at all of a factor other than 1"
    # 13. "x2.15 faster ...: the bandwidth ratio (x2.15), not the compute ratio (x3.17)":
    # the reason names the ratio the gain equals, and not one it differs from.
    for m in re.finditer(
        rf"\bx{NUM.format('g')}\b(?P<slow> slower)?[^;]*?the [a-z]+ ratio "
        rf"\(x{NUM.format('a')}\), not the [a-z]+ ratio \(x{NUM.format('b')}\)",
        s,
    ):
        g, a, b = (_value(m, k) for k in "gab")
        near = 0.006  # each side prints to +-0.005
        if m.group("slow"):  # "x1.39 slower": the gain is 1 / 1.39, known to 0.005 / 1.39^2
            g, near = 1 / g, near + 0.005 * g**-2
        if abs(g - a) > near or (round(g, 2) == round(b, 2) and abs(a - b) > 0.006):
            yield "names a ratio the gain does not follow"
    # 14. "grows from 4.48 ms to 4.49 ms (no slower)": a change said, then denied by its
    # factor; "stays at 1.01 ms (x1.01 slower)": no change said, then a factor for one.
    for m in re.finditer(
        rf"\bfrom {NUM.format('a')} to {NUM.format('b')}[^();]{{0,12}}\((?P<f>[^()]{{1,20}})\)", s
    ):
        if m.group("a") != m.group("b") and re.fullmatch(
            r"no (?:slower|faster)|the same|x1\.0*", m.group("f")
        ):
            yield "a change with no factor"
    if re.search(
        rf"\b(?:stays?|stayed) at {NUM.format('a')}[^();]{{0,12}}\(x[\d.]+ (?:slower|faster)\)", s
    ):
        yield "no change with a factor"
    # "73.25 GB ... against the twin's 73.04 GB (x1.00)": two sizes that differ, no factor
    for m in re.finditer(
        rf"{NUM.format('a')}[^()\d]{{0,40}}?against [^()\d]{{0,30}}{NUM.format('b')}[a-z/]*\s*"
        r"\(x1\.0+\)",
        s,
    ):
        if m.group("a") != m.group("b"):
            yield "two different numbers a factor of x1.00 apart"
    # 10. "the memory wall (105) comes before the knee (332)": the first is smaller.
    for m in re.finditer(
        rf"\({NUM.format('a')}\) comes before the [a-z ]+ \({NUM.format('b')}\)", s
    ):
        if not _value(m, "a") < _value(m, "b"):
            yield "comes before a smaller one"
