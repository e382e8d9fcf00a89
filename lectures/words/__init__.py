"""The words of each lecture, one module beside its script: ``words/NAME.py`` speaks for
``NN_NAME.py``. A lecture computes records (small dataclasses, one per section) with the
formulas of ``common/`` and hands them here; a words module turns them into tables,
sentences and observations and computes nothing a formula already computes. Every
comparison a sentence states is decided by ``common.present.claims``. Sphinx-gallery
runs only ``NN_*.py`` files, so nothing here is shown as a lecture.
"""

from __future__ import annotations

from collections.abc import Sequence

from common.present.display import Group, Heading, Observations, Text


def section(
    title: str, *parts: object, items: Sequence[str] = (), page: str | None = None
) -> Group:
    """A section as every lecture shows it: its heading, its parts in order (a string is a
    line of text, None is left out), then what to observe, when there is something."""
    shown = (Text(p) if isinstance(p, str) else p for p in parts)
    return Group(Heading(title, page), *shown, Observations(items) if items else None)
