"""The words of each lecture: ``words/NAME.py`` turns the records ``NN_NAME.py`` computed into
tables, sentences and observations, every comparison decided by ``common.present.claims``."""

from __future__ import annotations

from collections.abc import Sequence

from common.present.display import Group, Heading, Observations, Text
from common.present.display import figure as figure  # the words' figures: page.figure


def section(
    title: str, *parts: object, items: Sequence[str] = (), page: str | None = None
) -> Group:
    """A heading, its parts in order (a string is a line of text, None is left out), then
    what to observe, when there is something."""
    shown = (Text(p) if isinstance(p, str) else p for p in parts)
    return Group(Heading(title, page), *shown, Observations(items) if items else None)
