"""Display objects: the same table, observations and facts as terminal text and as page HTML."""

from __future__ import annotations

import pytest

from common.present import display
from common.present.display import Facts, Group, Heading


def test_table_prints_the_aligned_text_table(capsys, monkeypatch) -> None:
    monkeypatch.delenv(display.HTML_ENV, raising=False)
    table = display.Table(["chip", "ridge"], [["A100", "200.6"], ["H100", "295.2"]], title="Ridges")
    assert display.show(table) is None
    out = capsys.readouterr().out.splitlines()
    # title, header, rule, two rows; numbers right-aligned under their header
    assert out == ["Ridges", "chip  ridge", "----  -----", "A100  200.6", "H100  295.2"]
    with pytest.raises(ValueError, match="2 cells"):  # a row of the wrong length
        display.Table(["a", "b", "c"], [["1", "2"]])


def test_table_html_right_aligns_numbers_and_scrolls(monkeypatch) -> None:
    monkeypatch.setenv(display.HTML_ENV, "1")
    table = display.Table(["chip", "time"], [["A<100", "1.5 ms"]], note="``x`` note")
    shown = display.show(table)
    assert shown is not None
    page = shown._repr_html_()
    assert page.startswith('<div class="rl-table-scroll"><table class="rl-table">')
    assert "<td>A&lt;100</td>" in page  # escaped
    assert '<td class="num">1.5 ms</td>' in page  # number and unit in one cell
    assert "<code>x</code> note" in page


def test_observations_are_a_list_on_the_page_and_numbered_in_the_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    items = ["First point, ``code``.", "Second   point."]
    monkeypatch.delenv(display.HTML_ENV, raising=False)
    display.show(display.Observations(items))
    text = capsys.readouterr().out
    assert "What to observe:\n  1. First point, code.\n  2. Second point." in text
    page = display.Observations(items)._repr_html_()
    assert "<ol><li>First point, <code>code</code>.</li><li>Second point.</li></ol>" in page
    assert "<pre" not in page


def test_show_groups_in_order(monkeypatch) -> None:
    monkeypatch.setenv(display.HTML_ENV, "1")
    group = display.show(display.Text("a"), None, display.Text("b"))
    assert group is not None
    assert group._repr_html_() == '<p class="rl-text">a</p><p class="rl-text">b</p>'


def test_figure_records_its_caption(tmp_path) -> None:
    path = tmp_path / "f.png"
    fig = display.figure(path, "Look at the ridge.")
    assert str(fig) == f"saved figure: {path}"  # outside the repository: as given
    assert display.CAPTIONS[str(path.resolve())] == "Look at the ridge."


def test_heading_is_underlined_in_the_terminal_a_line_or_nothing_on_the_page(capsys, monkeypatch):
    monkeypatch.delenv(display.HTML_ENV, raising=False)
    display.show(display.Heading("3. Prefill on ``H100``"))
    assert capsys.readouterr().out == "\n3. Prefill on H100\n" + "=" * 20 + "\n"
    page = display.Heading("3. Prefill on ``H100``")._repr_html_()
    assert page == '<p class="rl-heading">Prefill on <code>H100</code></p>'  # number dropped
    # a heading can stay off the page
    assert display.Heading("Summary", page="")._repr_html_() == ""
    assert str(display.Heading("Summary", page="")) == "\nSummary\n" + "=" * 20


def test_preformatted_keeps_its_columns(capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    monkeypatch.delenv(display.HTML_ENV, raising=False)
    display.show(display.Preformatted("a  |\n<b>|"))
    assert capsys.readouterr().out == "a  |\n<b>|\n"
    assert display.Preformatted("a  |")._repr_html_() == '<pre class="rl-pre">a  |</pre>'


def test_a_table_marks_the_rows_its_section_names() -> None:
    """The rows given as `keep` carry class rl-keep on the page (scroll-boxes.js shows them
    when it folds the table on a phone); the terminal table is unchanged."""
    rows = [["a", "1"], ["b", "2"], ["c", "3"]]
    marked = display.Table(["x", "y"], rows, keep=[1])
    body = marked._repr_html_().split("<tbody>")[1]
    assert body.startswith('<tr><td>a</td><td class="num">1</td></tr><tr class="rl-keep">')
    assert body.count("rl-keep") == 1
    assert str(marked) == str(display.Table(["x", "y"], rows))


def test_facts_align_values_after_the_longest_name_and_are_row_headers_on_the_page() -> None:
    facts = Facts([("CPU", "fast"), ("BLAS threads", 2), ("``x``", "y ``z``")])
    # longest name is 'BLAS threads' (12 characters) + ':' -> values start at column 14
    assert str(facts).splitlines() == ["CPU:          fast", "BLAS threads: 2", "x:            y z"]
    text = str(Group(Heading("Box"), Facts([("a", 1)])))  # under a heading
    assert text.splitlines() == ["", "Box", "=" * 20, "a: 1"]
    # on the page, a two-column table of row headers
    html = Facts([("a<b", "``code``")])._repr_html_()
    assert html.startswith('<div class="rl-table-scroll"><table class="rl-table rl-facts">')
    assert '<tr><th scope="row">a&lt;b</th><td><code>code</code></td></tr>' in html
