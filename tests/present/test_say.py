"""Sentences with templates (common/present/say.py): the English text as before, and a
tree another language fills with the same numbers and the same branch of every choice."""

from __future__ import annotations

import copy
import pickle
import re

from hypothesis import given
from hypothesis import strategies as st

from common.present import claims, figures
from common.present.say import Say, filled, say

COUNTS = st.integers(min_value=0, max_value=10_000)
NAMES = st.lists(st.from_regex(r"[A-Za-z0-9-]{1,8}", fullmatch=True), max_size=6)


def _hand_n_of_m(n: int, m: int) -> str:
    """'a count of a whole', said by hand from the definition."""
    if n == m:
        return "the one" if m == 1 else f"all {m}"
    return f"none of the {m}" if n == 0 else f"{n} of the {m}"


@given(COUNTS, COUNTS)
def test_n_of_m_reads_as_before_and_keeps_its_branch(n: int, m: int) -> None:
    said = claims.n_of_m(n, m)
    assert said == _hand_n_of_m(n, m)
    assert isinstance(said, Say)
    assert filled(said.tree(), str) == said  # untranslated, the tree fills to the English
    # a stand-in language: the branch taken, the numbers kept
    marked = filled(said.tree(), lambda t: f"<{t}>")
    assert marked.startswith("<") and re.findall(r"\d+", marked) == re.findall(r"\d+", said)


@given(NAMES)
def test_a_listing_reads_as_before(items: list[str]) -> None:
    if not items:
        expected = "none"
    elif len(items) == 1:
        expected = items[0]
    else:
        expected = ", ".join(items[:-1]) + " and " + items[-1]
    said = claims.listing(items)
    assert said == expected
    # every joint is a template: a language with its own "and" says it
    said_tree = said.tree() if isinstance(said, Say) else said
    assert filled(said_tree, lambda t: t.replace(" and ", " 和 ").replace(", ", "、")) == (
        "、".join(items[:-1]) + " 和 " + items[-1] if len(items) > 1 else expected
    )


@given(st.integers(1, 64), st.integers(65, 4096), st.floats(1.0, 50.0), st.floats(1.0, 500.0),
       st.booleans())  # fmt: skip
def test_a_caption_fills_to_the_english_it_replaced(b0, b1, growth, gain, band: bool) -> None:
    rows = [
        {"B": b0, "latency_s": 1.0, "throughput_per_s": 1.0},
        {"B": b1, "latency_s": growth, "throughput_per_s": gain, "anomaly": True},
    ]
    crossing = (b0, b1) if band else None
    caption = figures.sweep_caption(rows, crossing)
    # the sentence as written before templates, from the same numbers
    expected = (
        f"Left, the fastest measured call (solid) and the roofline's max(F/P, D/β) (dashed) "
        f"for B = {b0} to {b1}; right, tokens per second. Look at how little "
        f"the latency grows (x{growth:.1f}) while the throughput grows x{gain:.1f}."
    )
    if band:
        expected += (
            f" The grey band between B = {b0} and B = {b1} is where the model's "
            "intensity crosses the ridge point: left of it the weights' bytes set the time."
        )
    expected += f" Circled: B = {b1}, which break a rule no roofline can break."
    assert caption == expected
    assert filled(caption.tree(), str) == expected


def test_a_field_is_text_or_a_phrase_and_copies_keep_the_tree() -> None:
    said = say("{n} {what}", n=3, what=say("left"))
    assert said == "3 left"
    assert said.tree() == {
        "say": "{n} {what}",
        "fields": {"n": "3", "what": {"say": "left", "fields": {}}},
    }
    assert filled(said.tree(), {"{n} {what}": "{what}{n}", "left": "左"}.get) == "左3"
    for twin in (copy.deepcopy(said), pickle.loads(pickle.dumps(said))):
        assert twin == said and twin.tree() == said.tree()
