"""Display objects added for the lecture pages: a table's title as a header, and Facts."""

from __future__ import annotations

from common.present.display import Facts, Group, Table, Text


def test_table_title_prints_as_an_underlined_heading() -> None:
    text = str(Table(["a", "b"], [["x", "1"]], title="Two columns", note="(a note)", heading=True))
    lines = text.splitlines()
    # blank line, title, '=' rule at least 20 wide, header, dashes, row, note
    assert lines == ["", "Two columns", "=" * 20, "a  b", "-  -", "x  1", "(a note)"]


def test_table_without_title_starts_with_its_header() -> None:
    assert str(Table(["a"], [["1"]])).splitlines()[0] == "a"
    assert str(Table(["a"], [["1"]], title="T")).splitlines()[:2] == ["T", "a"]  # no heading


def test_facts_align_values_after_the_longest_name() -> None:
    facts = Facts(
        [("CPU", "fast"), ("BLAS threads", 2), ("``x``", "y ``z``")], title="Box", heading=True
    )
    lines = str(facts).splitlines()
    assert lines[:3] == ["", "Box", "=" * 20]
    # longest name is 'BLAS threads' (12 characters) + ':' -> values start at column 14
    assert lines[3:] == ["CPU:          fast", "BLAS threads: 2", "x:            y z"]


def test_facts_html_is_a_two_column_table_of_row_headers() -> None:
    html = Facts([("a<b", "``code``")], title="T")._repr_html_()
    assert html.startswith('<div class="rl-table-scroll"><table class="rl-table rl-facts">')
    assert "<caption>T</caption>" in html
    assert '<tr><th scope="row">a&lt;b</th><td><code>code</code></td></tr>' in html


def test_facts_title_without_heading_is_a_plain_line() -> None:
    assert str(Facts([("a", 1)], title="T")) == "T\na: 1"


def test_group_of_texts_joins_lines() -> None:
    assert str(Group(Text("\none"), Text("two"))) == "\none\ntwo"
