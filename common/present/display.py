"""Display objects: one source for a lecture's terminal output and its page on the site.

``show`` prints a ``Heading``, ``Table``, ``Observations``, ``Text`` or ``Figure`` as plain
text, or under the docs build (``ROOFLINE_HTML=1``) returns it for its ``_repr_html_``.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from common.present.console import (
    _UNIT_SPACE,
    WIDTH,
    _numeric_columns,
    format_observations,
    format_table,
)
from common.shell import sink
from common.shell.paths import display_path

HTML_ENV = "ROOFLINE_HTML"  # set to 1 by the docs build


def html_mode() -> bool:
    """True under the docs build, where display objects render as HTML."""
    return os.environ.get(HTML_ENV) == "1"


def _inline(text: str) -> str:
    """Escape text for HTML; a span between double backquotes becomes code."""
    parts = enumerate(re.split(r"``(.+?)``", str(text)))
    return "".join(f"<code>{html.escape(p)}</code>" if i % 2 else html.escape(p) for i, p in parts)


def _plain(text: str) -> str:
    """Text for the terminal: double backquotes removed."""
    return str(text).replace("``", "")


class Table:
    """A table: header cells, rows of cells, an optional title and a note under it."""

    def __init__(self, headers: Sequence[str], rows: Iterable[Sequence[object]], title: str = "",
                 note: str = "", keep: Iterable[int] = ()) -> None:  # fmt: skip
        self.headers = [str(h) for h in headers]
        self.rows = [[str(c) for c in row] for row in rows]
        self.title, self.note = title, note
        # rows the section's prose names: a long table folded on a phone still shows them
        self.keep = frozenset(keep)
        format_table(self.headers, self.rows)  # ValueError now if a row is the wrong length

    def __str__(self) -> str:
        lines = [_plain(self.title), format_table(self.headers, self.rows), _plain(self.note)]
        return "\n".join(line for line in lines if line)

    def _repr_html_(self) -> str:
        numeric = _numeric_columns(self.rows, len(self.headers))

        def cell(tag: str, text: str, i: int) -> str:
            cls = ' class="num"' if numeric[i] else ""
            return f"<{tag}{cls}>{_inline(text)}</{tag}>"

        head = "".join(cell("th", h, i) for i, h in enumerate(self.headers))
        body = "".join(
            ('<tr class="rl-keep">' if n in self.keep else "<tr>")
            + "".join(cell("td", c, i) for i, c in enumerate(row))
            + "</tr>"
            for n, row in enumerate(self.rows))  # fmt: skip
        caption = f"<caption>{_inline(self.title)}</caption>" if self.title else ""
        note = f'<p class="rl-table-note">{_inline(self.note)}</p>' if self.note else ""
        return (
            f'<div class="rl-table-scroll"><table class="rl-table">{caption}'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{note}")  # fmt: skip


#: A number with its unit ('4.48 ms', '3.35 TB/s,') in a span no line parts (course.css).
_WITH_UNIT = re.compile(r"[\d.,]+" + _UNIT_SPACE.pattern + r"[^\s<]+")
_NOBR = r'<span class="rl-nobr">\g<0></span>'


class Observations:
    """What to observe: a titled list of sentences, each quoting computed numbers."""

    def __init__(self, items: Sequence[str], title: str = "What to observe") -> None:
        self.items = [" ".join(str(item).split()) for item in items]
        self.title = title

    def __str__(self) -> str:
        return "\n" + format_observations([_plain(i) for i in self.items], self.title)

    def _repr_html_(self) -> str:
        items = "".join(f"<li>{_WITH_UNIT.sub(_NOBR, _inline(i))}</li>" for i in self.items)
        return (f'<div class="rl-observations"><p class="rl-observations-title">'
                f"{html.escape(self.title)}</p><ol>{items}</ol></div>")  # fmt: skip


class Text:
    """A short paragraph of computed text (a heading line, a one-sentence result)."""

    def __init__(self, text: str) -> None:
        self.text = str(text)

    def __str__(self) -> str:
        return _plain(self.text)

    def _repr_html_(self) -> str:
        return f'<p class="rl-text">{_inline(self.text)}</p>'


class Preformatted(Text):
    """Monospace text whose columns matter (an ASCII chart): as is in a terminal, a <pre> box."""

    def __str__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        return f'<pre class="rl-pre">{html.escape(self.text)}</pre>'


class Heading:
    """A section title: underlined with '=' in a terminal; on the page a bold line without its
    leading "3. " (the prose heading has it), or nothing with ``page=""``."""

    def __init__(self, title: str, page: str | None = None) -> None:
        self.title = str(title)
        self.page = re.sub(r"^\d+\.\s+", "", self.title) if page is None else page

    def __str__(self) -> str:
        title = _plain(self.title)
        return f"\n{title}\n" + "=" * min(max(len(title), 20), WIDTH)

    def _repr_html_(self) -> str:
        return f'<p class="rl-heading">{_inline(self.page)}</p>' if self.page else ""


class PngResult(NamedTuple):
    """Outcome of a PNG request: the path written, or why nothing was written."""

    path: str | None
    reason: str

    def __bool__(self) -> bool:
        return self.path is not None


class Figure:
    """A figure file with its caption: the site shows the image, the terminal the path."""

    def __init__(self, path: str | os.PathLike[str], caption: str):
        self.path, self.caption, self.shown_path = Path(path), caption, display_path(path)

    def __str__(self) -> str:
        shown = not sink.diverted()  # a host that took the figure shows it
        return f"saved figure: {self.shown_path}" if shown else ""

    def _repr_html_(self) -> str:
        # The docs' image scraper puts the image and its caption (CAPTIONS) on the page.
        return ""


#: Captions of the figures written in this process, by resolved path (read by the docs).
CAPTIONS: dict[str, str] = {}


def figure(path: str | os.PathLike[str], caption: str) -> Figure:
    """Record the caption of a figure just written and return its display object."""
    CAPTIONS[str(Path(path).resolve())] = caption
    sink.hand("caption", {"path": path, "caption": caption})
    return Figure(path, caption)


class Group:
    """Several display objects shown together, in order."""

    def __init__(self, *items: object) -> None:
        self.items = [i for i in items if i is not None]

    def __str__(self) -> str:
        return "\n".join(str(i) for i in self.items if str(i))

    def _repr_html_(self) -> str:
        return "".join(
            i._repr_html_() if hasattr(i, "_repr_html_") else f"<pre>{html.escape(str(i))}</pre>"
            for i in self.items)  # fmt: skip


def show(*items: object) -> Group | None:
    """Print the items (terminal) or return them for the page (docs build)."""
    group = Group(*items)
    if html_mode():
        return group
    if text := str(group):
        print(text)
    return None


class Facts:
    """Named values, one a line: ``name: value`` in a terminal, a two-column table on the site."""

    def __init__(self, pairs: Sequence[tuple[str, object]]) -> None:
        self.pairs = [(str(name), str(value)) for name, value in pairs]

    def __str__(self) -> str:
        width = max((len(_plain(name)) for name, _ in self.pairs), default=0) + 1
        return "\n".join(f"{_plain(n) + ':':<{width}} {_plain(v)}" for n, v in self.pairs)

    def _repr_html_(self) -> str:
        body = "".join(f'<tr><th scope="row">{_inline(name)}</th><td>{_inline(value)}</td></tr>'
                       for name, value in self.pairs)  # fmt: skip
        return ('<div class="rl-table-scroll"><table class="rl-table rl-facts">'
                f"<tbody>{body}</tbody></table></div>")  # fmt: skip
