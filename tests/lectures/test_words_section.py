"""The words' one section shape: heading, parts in order, then what to observe."""

from __future__ import annotations

import importlib
import pkgutil

from common.present.display import Table
from lectures import words
from lectures.words import section


def test_a_section_in_order_as_text_and_on_the_page() -> None:
    got = section("1. Ridges", "rows in FLOP/B", Table(["chip"], [["A100"]]), None, items=["Low."])
    # the heading underlined to at least 20 characters, the text, the table, the list
    assert str(got) == (
        "\n1. Ridges\n" + "=" * 20 + "\nrows in FLOP/B\nchip\n----\nA100\n"
        "\nWhat to observe:\n  1. Low."
    )
    # without observations nothing follows the parts
    assert str(section("Summary", "one line")) == "\nSummary\n" + "=" * 20 + "\none line"
    # on the page the heading drops its number or is left out
    numbered = section("2. Decode", "x")._repr_html_()
    assert numbered == '<p class="rl-heading">Decode</p><p class="rl-text">x</p>'
    assert section("Summary", "x", page="")._repr_html_() == '<p class="rl-text">x</p>'


def test_every_record_of_the_words_is_frozen() -> None:
    """A lecture hands its numbers over in records no sentence can change."""
    records = [c for info in pkgutil.iter_modules(words.__path__)
               for c in vars(importlib.import_module(f"{words.__name__}.{info.name}")).values()
               if isinstance(c, type) and c.__module__.endswith(f".{info.name}")]  # fmt: skip
    frozen = [issubclass(c, tuple) or c.__dataclass_params__.frozen for c in records]
    assert len(records) > 40 and all(frozen), records
