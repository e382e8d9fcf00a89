"""Display objects: the same table, observations and facts as terminal text and as page HTML."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from common.present import display
from common.present.display import Facts, Group, Heading


def test_each_object_as_terminal_text(capsys, monkeypatch) -> None:
    monkeypatch.delenv(display.HTML_ENV, raising=False)
    table = display.Table(["chip", "ridge"], [["A100", "200.6"], ["H100", "295.2"]], title="Ridges")
    observations = display.Observations(["First point, ``code``.", "Second   point."])
    assert display.show(table, None, observations) is None
    # title, header, rule, two rows; numbers right-aligned under their header
    assert capsys.readouterr().out.splitlines() == [
        *["Ridges", "chip  ridge", "----  -----", "A100  200.6", "H100  295.2", ""],
        *["What to observe:", "  1. First point, code.", "  2. Second point."],
    ]
    assert str(display.Heading("3. Prefill on ``H100``")) == "\n3. Prefill on H100\n" + "=" * 20
    assert str(display.Heading("Summary", page="")) == "\nSummary\n" + "=" * 20
    assert str(display.Preformatted("a  |\n<b>|")) == "a  |\n<b>|"  # keeps its columns
    # a figure's line names its path (outside the repository: as given); its caption
    # (CAPTIONS) is read by the docs' scraper: tests/docs/test_docs_hooks.py
    outside = Path(tempfile.gettempdir()) / "f.png"
    assert str(display.figure(outside, "Look.")) == f"saved figure: {outside}"
    assert display.CAPTIONS[str(outside.resolve())] == "Look."
    with pytest.raises(ValueError, match="2 cells"):  # a row of the wrong length, when made
        display.Table(["a", "b", "c"], [["1", "2"]])
    facts = Facts([("CPU", "fast"), ("BLAS threads", 2), ("``x``", "y ``z``")])
    # longest name is 'BLAS threads' (12 characters) + ':' -> values start at column 14
    assert str(facts).splitlines() == ["CPU:          fast", "BLAS threads: 2", "x:            y z"]
    text = str(Group(Heading("Box"), Facts([("a", 1)])))  # under a heading
    assert text.splitlines() == ["", "Box", "=" * 20, "a: 1"]


def test_each_object_as_page_html(monkeypatch) -> None:
    monkeypatch.setenv(display.HTML_ENV, "1")
    table = display.Table(["chip", "time"], [["A<100", "1.5 ms"]], note="``x`` note")
    page = display.show(display.Text("a"), None, table)._repr_html_()
    assert page.startswith('<p class="rl-text">a</p><div class="rl-table-scroll"><table')
    assert '<table class="rl-table">' in page  # in a box that scrolls
    assert "<td>A&lt;100</td>" in page  # escaped
    assert '<td class="num">1.5 ms</td>' in page  # number and unit in one cell
    assert "<code>x</code> note" in page
    items = display.Observations(["First point, ``code``.", "Second   point."])._repr_html_()
    assert "<ol><li>First point, <code>code</code>.</li><li>Second point.</li></ol>" in items
    assert "<pre" not in items
    kept = display.Observations(["needs 4.48 ms at 3.35 TB/s, x1.02"])._repr_html_()  # no unit
    assert '"rl-nobr">4.48 ms</span> at <span class="rl-nobr">3.35 TB/s,</span> x1' in kept
    heading = display.Heading("3. Prefill on ``H100``")._repr_html_()
    assert heading == '<p class="rl-heading">Prefill on <code>H100</code></p>'  # number dropped
    assert display.Heading("Summary", page="")._repr_html_() == ""  # off the page
    assert display.Preformatted("a  |")._repr_html_() == '<pre class="rl-pre">a  |</pre>'
    # on the page, facts are a two-column table of row headers
    html = Facts([("a<b", "``code``")])._repr_html_()
    assert html.startswith('<div class="rl-table-scroll"><table class="rl-table rl-facts">')
    assert '<tr><th scope="row">a&lt;b</th><td><code>code</code></td></tr>' in html
    # the rows a section names carry rl-keep (scroll-boxes.js shows them when it folds the
    # table on a phone); the terminal table is unchanged
    rows = [["a", "1"], ["b", "2"], ["c", "3"]]
    marked = display.Table(["x", "y"], rows, keep=[1])
    body = marked._repr_html_().split("<tbody>")[1]
    assert body.startswith('<tr><td>a</td><td class="num">1</td></tr><tr class="rl-keep">')
    assert body.count("rl-keep") == 1
    assert str(marked) == str(display.Table(["x", "y"], rows))
