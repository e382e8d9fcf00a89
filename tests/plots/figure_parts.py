"""Reading a drawn matplotlib figure back: a line's points, guides, labels, annotations."""

from __future__ import annotations


def xy(ln) -> list[tuple[float, float]]:
    """The (x, y) points of a Line2D."""
    return list(zip(map(float, ln.get_xdata()), map(float, ln.get_ydata()), strict=True))


def line(ax, label: str):
    """The line of `ax` with legend label `label`."""
    return next(ln for ln in ax.get_lines() if ln.get_label() == label)


def annotation(ax, start: str):
    """The text of `ax` that starts with `start`."""
    return next(t for t in ax.texts if t.get_text().startswith(start))


def ticks(ax, axis: str) -> list[tuple[float, str]]:
    """(value, label) of each major tick on the x or y axis."""
    values = ax.get_xticks() if axis == "x" else ax.get_yticks()
    labels = ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()
    return [(float(v), t.get_text()) for v, t in zip(values, labels, strict=True)]


def horizontal_at(ax) -> list[float]:
    """y of every horizontal guide line (axhline: x data [0, 1] in axes coordinates)."""
    return [float(ln.get_ydata()[0]) for ln in ax.get_lines() if list(ln.get_xdata()) == [0, 1]]


def vertical_at(ax) -> list[float]:
    """x of every vertical guide line (axvline: y data [0, 1] in axes coordinates)."""
    return [float(ln.get_xdata()[0]) for ln in ax.get_lines() if list(ln.get_ydata()) == [0, 1]]
