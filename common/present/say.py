"""Sentences a site can translate: a template with named fields, which reads as its English.

``say("the {chip}'s roofline", chip="H100")`` is the ``str`` "the H100's roofline" that
keeps its template and fields (names, numbers or ``say(...)`` phrases), so a Chinese page
fills the translated template, from the captions catalog, with the same computed values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Say(str):
    """A sentence: its English text, its template and its fields."""

    template: str
    fields: dict[str, str]

    def __new__(cls, template: str, **fields: object) -> Say:
        values = {k: v if isinstance(v, Say) else str(v) for k, v in fields.items()}
        self = super().__new__(cls, template.format(**values))
        self.template, self.fields = template, values
        return self

    def __getnewargs_ex__(self) -> tuple[tuple[str], dict[str, str]]:
        return (self.template,), self.fields  # a copy or a pickle is built as the original

    def tree(self) -> dict[str, Any]:
        """The sentence as JSON data: ``{"say": template, "fields": {name: text or tree}}``."""
        fields = {k: v.tree() if isinstance(v, Say) else v for k, v in self.fields.items()}
        return {"say": self.template, "fields": fields}


def say(template: str, **fields: object) -> Say:
    """`template` filled with `fields` (each a text, or a ``say``), template kept."""
    return Say(template, **fields)


def filled(tree: dict[str, Any] | str, translate: Callable[[str], str]) -> str:
    """A sentence's tree (``Say.tree``) with every template passed through `translate`,
    fields filled in, a phrase among them translated the same way; a text stays as it is."""
    if isinstance(tree, str):
        return tree
    fields = {k: filled(v, translate) for k, v in tree["fields"].items()}
    return translate(tree["say"]).format(**fields)
