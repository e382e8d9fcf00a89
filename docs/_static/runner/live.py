"""The Run panel's charts (standard library only): `install` diverts the figures of a run
(``common.shell.sink``) named in `ADAPTERS` into Vega-Lite specifications, with captions."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from typing import Any

from common.formulas.roofline import attainable_flops, ridge_point
from common.plots.roofline import x_range  # the static figure's decades

SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"  # a name only: nothing is fetched


def _q(field: str, title: str | None = None, log: bool = False, **more: Any) -> dict[str, Any]:
    """A quantitative encoding of `field` (on a log scale with `log`)."""
    scale = {"scale": {"type": "log"}} if log else {}
    named = {"title": title} if title else {}
    return {"field": field, "type": "quantitative", **scale, **named, **more}


def _layer(data: str, mark: dict[str, Any], **encoding: Any) -> dict[str, Any]:
    """A layer drawing the rows of dataset `data` with `mark`."""
    return {"data": {"name": data}, "mark": mark, "encoding": encoding}


def _rule(data: str, channel: str, field: str, **mark: Any) -> dict[str, Any]:
    """A rule across the plot at each row of dataset `data`, its "what" as tooltip."""
    return _layer(data, {"type": "rule", **mark}, **{channel: _q(field)}, tooltip={"field": "what"})


X_INTENSITY = _q("intensity", "arithmetic intensity I (FLOP/byte)", log=True)
Y_TFLOPS = _q("tflops", "attainable TFLOP/s", log=True)
ROOF_COLOUR = {"field": "roof", "type": "nominal", "title": "roof", "sort": None}

Curve = tuple[str, float, float]  # (label, peak FLOP/s, bandwidth bytes/s)


def roof_rows(label: str, peak: float, bw: float, lo: float, hi: float) -> list[dict[str, Any]]:
    """The roof min(P, I beta) as three corners (lo, ridge, hi); TFLOP/s = FLOP/s / 1e12."""
    ridge = ridge_point(peak, bw)
    xs = [lo, ridge, hi] if lo < ridge < hi else [lo, hi]
    return [
        {"roof": label, "intensity": x, "tflops": attainable_flops(x, peak, bw) / 1e12} for x in xs
    ]


def _roof_layer(highlight: str | None) -> dict[str, Any]:
    dash: dict[str, Any] = {"value": [1, 0]}
    width: dict[str, Any] = {"value": 2.5}
    if highlight is not None:  # the roof the points sit on solid and bold, the others dashed
        test = f"datum.roof === {json.dumps(highlight)}"
        dash = {"condition": {"test": test, "value": [1, 0]}, "value": [6, 4]}
        width = {"condition": {"test": test, "value": 3}, "value": 1.5}
    tooltip = [{"field": "roof"}, {"field": "intensity"}, {"field": "tflops"}]
    line = {"type": "line", "clip": True}
    return _layer("roofs", line, x=X_INTENSITY, y=Y_TFLOPS, color=ROOF_COLOUR,
                  strokeDash=dash, strokeWidth=width, tooltip=tooltip)  # fmt: skip


def _points_layers(shape: bool) -> list[dict[str, Any]]:
    tooltip = [{"field": "label"}, {"field": "intensity"}, {"field": "tflops"}]
    encoding = {"x": X_INTENSITY, "y": Y_TFLOPS, "color": ROOF_COLOUR, "tooltip": tooltip}
    if shape:
        series = {"field": "series", "type": "nominal", "title": "points"}
        return [_layer("points", {"type": "point", "filled": False, "size": 60}, **encoding,
                       shape=series)]  # fmt: skip

    # Each point is numbered (usermeta's key says what each is), odd above, even below.
    def number(odd: bool) -> dict[str, Any]:
        mark = {"type": "text", "align": "left", "dx": 5, "dy": -7 if odd else 13, "fontSize": 11}
        layer = _layer("points", mark, x=X_INTENSITY, y=Y_TFLOPS, text={"field": "n"})
        layer["transform"] = [{"filter": f"toNumber(datum.n) % 2 == {int(odd)}"}]
        return layer

    return [
        _layer("points", {"type": "point", "filled": True, "size": 60}, **encoding),
        number(odd=True),
        number(odd=False),
    ]


TITLE_CHARS = 30  # the longest title line: 34 still touched the edges at 390 px


def _spec(
    name: str, title: str, layers: list[dict[str, Any]], datasets: dict[str, Any]
) -> dict[str, Any]:
    return {
        "$schema": SCHEMA,
        "name": name,
        "title": textwrap.wrap(title, TITLE_CHARS, break_on_hyphens=False),  # a line each
        "width": "container",
        "height": 300,
        "datasets": datasets,
        "layer": layers,
        # Below the plot, one column: on a phone two ran off the edge (lectures 13, 14).
        "config": {"legend": {"orient": "bottom", "columns": 1, "labelLimit": 280}},
    }


def _roofline(
    title: str,
    curves: Sequence[Curve],
    rows: list[dict[str, Any]],
    highlight: str | None = None,
    key: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Roofs (label, P, beta) under point `rows`: numbered with a `key`, else a marker a series."""
    lo, hi = x_range(curves, [(r["label"], r["intensity"], 0.0) for r in rows])
    roofs = [row for label, p, b in curves for row in roof_rows(label, p, b, lo, hi)]
    layers = [_roof_layer(highlight), *_points_layers(key is None)]
    spec = _spec("roofline", title, layers, {"roofs": roofs, "points": rows})
    if key is not None:
        spec["usermeta"] = {"key": [" ".join(str(k).split()) for k in key]}
    return spec


def _point(label: str, n: str, roof: str, x: float, flops: float, series: str = "") -> dict:
    return {"label": label, "n": n, "roof": roof, "series": series, "intensity": x,
            "tflops": flops / 1e12}  # fmt: skip


def roofline(
    title: str, curves: Sequence[Curve], points: Sequence[tuple[str, float, float]], placed_on=None
) -> dict[str, Any]:
    """Rooflines (label, P, beta) with named points (label, I, FLOP/s), numbered."""
    highlight = curves[placed_on][0] if placed_on is not None and len(curves) > 1 else None
    on = curves[placed_on or 0][0]
    rows = [_point(label, str(n), on, x, y) for n, (label, x, y) in enumerate(points, 1)]
    key = [f"{n}  {label}" for n, (label, _, _) in enumerate(points, 1)]
    return _roofline(title, curves, rows, highlight, key)


def memory_ledger(
    title: str, ledgers: Sequence[tuple[int, Any]], capacity: float, wall: int
) -> dict[str, Any]:
    """The four capacity-ledger terms (GB = bytes / 1e9) stacked against batch, the capacity."""
    terms = {"weights": "weights", "kv_cache": "KV cache", "activations": "activations",
             "overhead": "overhead"}  # fmt: skip
    rows = [
        {"batch": b, "term": name, "order": i, "gb": getattr(led, attr) / 1e9}
        for b, led in ledgers
        for i, (attr, name) in enumerate(terms.items())
    ]
    term = {"field": "term", "type": "nominal", "sort": list(terms.values()), "title": "term"}
    layers = [
        _layer("ledger", {"type": "area", "opacity": 0.85}, x=_q("batch", "batch (sequences)"),
               y=_q("gb", "memory (GB)", stack=True), color=term, order={"field": "order"},
               tooltip=[{"field": "batch"}, {"field": "term"}, {"field": "gb"}]),
        _rule("limits", "y", "gb", strokeDash=[6, 4], color="black")]  # fmt: skip
    datasets: dict[str, Any] = {
        "ledger": rows,
        "limits": [{"what": f"capacity {capacity / 1e9:.0f} GB", "gb": capacity / 1e9}],
    }
    if wall:
        datasets["wall"] = [{"batch": wall, "what": f"memory wall B = {wall:,}"}]
        layers.append(_rule("wall", "x", "batch", color="#b2182b"))
    return _spec("memory_ledger", title, layers, datasets)


def batch_lines(
    title: str,
    series: Sequence[tuple[str, Sequence[tuple[float, float]]]],
    marks: Sequence[tuple[float, str]],
    y_title: str,
    x_title: str,
) -> dict[str, Any]:
    """A log-log line per series of (batch, value), a vertical rule per mark (batch, what)."""
    rows = [
        {"series": name, "order": i, "batch": b, "value": v}
        for i, (name, points) in enumerate(series)
        for b, v in points
    ]
    colour = {"field": "series", "type": "nominal", "sort": [n for n, _ in series], "title": None}
    layers = [
        _layer("lines", {"type": "line", "strokeWidth": 2}, x=_q("batch", x_title, log=True),
               y=_q("value", y_title, log=True), color=colour, order={"field": "batch"},
               tooltip=[{"field": "series"}, {"field": "batch"}, {"field": "value"}]),
        _rule("marks", "x", "batch", strokeDash=[6, 4], color="#555555")]  # fmt: skip
    datasets = {"lines": rows, "marks": [{"batch": b, "what": w} for b, w in marks]}
    return _spec("batch_lines", title, layers, datasets)


def _knees(knees: Sequence[int | None], batch: int) -> list[tuple[float, str]]:
    """Lecture 13's marks: the experts' and the dense twin's critical batches, the batch."""
    named = zip(knees, ("experts", "twin"), strict=False)
    found = [(k, f"{n} compute-bound from batch {k:,}") for k, n in named if k is not None]
    return [*found, (batch, f"--batch {batch:,}")]


#: The figure functions of ``common.plots`` the panel redraws: their arguments -> a chart.
ADAPTERS = {
    "common.plots.roofline.roofline_figure": lambda a: roofline(
        a["title"], a["curves"], a["points"], a["placed_on"]),
    "common.plots.roofline.roofline_panels_figure": lambda a: _roofline(
        a["title"], [p.curve for p in a["panels"]],
        [_point(n, n, p.curve[0], x, y) for p in a["panels"] for n, x, y in p.points],
        key=a.get("key", ())),
    "common.plots.roofline.roofline_series_figure": lambda a: _roofline(
        a["title"], [a["curve"]], [_point(s.label, "", a["curve"][0], x, y, s.label)
                                   for s in a["series"] for x, y in s.points]),
    "common.plots.transformer.memory_ledger_figure": lambda a: memory_ledger(
        a["title"], a["ledgers"], a["capacity"], a["wall"]),
    "common.plots.transformer.moe_throughput_figure": lambda a: batch_lines(
        a["title"], list(a["curves"].items()), _knees(a["knees"], a["batch"]),
        "decode tokens/s per GPU (upper bound)", "batch (tokens a decode step serves)"),
    "common.plots.serving.cost_figure": lambda a: batch_lines(
        a["title"], [(c.label, c.points) for c in a["curves"]],
        [(a["batch"], f"batch {a['batch']:,}")],
        "$ per million output tokens (lower bound)", "decode batch (sequences)"),
}  # fmt: skip


def install(found: list[dict[str, Any]]) -> None:
    """Collect the next run's figures in ADAPTERS into `found`, each with its caption."""
    from common.shell import sink

    drawn = [False]  # was the figure just handed one the panel redraws?

    def take(name: str, data: dict[str, Any]) -> None:
        if name != "caption":
            drawn[0] = name in ADAPTERS
            if drawn[0]:
                found.append(ADAPTERS[name](data))
        elif drawn[0]:
            found[-1]["description"] = " ".join(str(data["caption"]).split())

    sink.divert(take)
