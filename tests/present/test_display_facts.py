"""Facts, the display object for named values: aligned lines in a terminal, a table on the page."""

from __future__ import annotations

from common.present.display import Facts, Group, Heading


def test_facts_align_values_after_the_longest_name() -> None:
    facts = Facts([("CPU", "fast"), ("BLAS threads", 2), ("``x``", "y ``z``")])
    # longest name is 'BLAS threads' (12 characters) + ':' -> values start at column 14
    assert str(facts).splitlines() == ["CPU:          fast", "BLAS threads: 2", "x:            y z"]


def test_facts_under_a_heading() -> None:
    text = str(Group(Heading("Box"), Facts([("a", 1)])))
    assert text.splitlines() == ["", "Box", "=" * 20, "a: 1"]


def test_facts_html_is_a_two_column_table_of_row_headers() -> None:
    html = Facts([("a<b", "``code``")])._repr_html_()
    assert html.startswith('<div class="rl-table-scroll"><table class="rl-table rl-facts">')
    assert '<tr><th scope="row">a&lt;b</th><td><code>code</code></td></tr>' in html
