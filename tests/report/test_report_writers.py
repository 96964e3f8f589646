"""The HTML and Markdown writers: one way of formatting cells, escaping, figures by name."""

from __future__ import annotations

import base64

import pytest

from studio.domain.report import Cell, Figure, Interval, Report, Section, Spread, Table
from studio.formats.report_writers import format_cell, render_html, render_markdown

PNG = b"\x89PNG not really"


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "–"),
        (float("nan"), "–"),
        (0.86666, "0.867"),
        (-0.0001, "-0.0001"),  # a small value keeps two significant digits, its sign with them
        (-1e-15, "0.000"),  # float noise around 0 (a difference of equal sums) is no negative value
        (1.0, "1.000"),
        (12345, "12,345"),
        (0, "0"),
        ("lexical-bm25", "lexical-bm25"),
        (Interval(-0.2, 0.6), "[-0.200, 0.600]"),
        (Interval(None, None), "–"),
        (Interval(0.1, None), "[0.100, –]"),
        (Spread(0.75, 0.125), "0.750 ± 0.125"),
        (Spread(None, None), "–"),
    ],
)
def test_a_cell_is_formatted_one_way(value: Cell, shown: str) -> None:
    assert format_cell(value) == shown


def report_with(name: str) -> Report:
    table = Table("Scores", ["label set", "τ"], [{"label set": name, "τ": 0.5}, {"label set": "b", "τ": None}])
    figure = Figure(name="tau-x", caption=f"{name} [scatter]", png=PNG, width=10, height=20)
    section = Section(
        "scores",
        "Scores",
        "What the scores say.",
        [table, Table("Nothing", ["a"], [], "none yet")],
        [figure],
        ["a note"],
    )
    return Report("Report <of> a project", [("measure", "nDCG@10")], [section])


def test_html_escapes_every_name_and_inlines_figures() -> None:
    page = render_html(report_with("<script>alert(1)</script>"))
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<title>Report &lt;of&gt; a project</title>" in page
    data = base64.b64encode(PNG).decode()
    assert f'src="data:image/png;base64,{data}"' in page
    assert 'width="10" height="20"' in page
    assert '<td class="num">0.500</td>' in page and '<td class="num">–</td>' not in page  # None is no number
    assert "<strong>Nothing</strong>: none yet" in page


def test_markdown_keeps_a_pipe_inside_its_cell_and_links_the_figure() -> None:
    text = render_markdown(report_with("a|b"))
    assert "| a\\|b | 0.500 |" in text and "| b | – |" in text
    assert "|---|---:|" in text
    assert "![a|b \\[scatter\\]](figures/tau-x.png)" in text
    assert text.startswith("# Report &lt;of> a project\n")
    assert "## 1. Scores" in text and "**Nothing**: none yet" in text and "_a note_" in text


def test_a_wide_table_scrolls_in_its_own_box_and_a_spread_breaks_before_its_deviation() -> None:
    # The topic-subsampling table has ten spread columns: on one line each they ran past a
    # 1280-pixel page, hiding the last ones.
    columns = ["label set", *(f"{share}%" for share in range(10, 101, 10))]
    row: dict[str, Cell] = {"label set": "llm", **{c: Spread(0.8125, 0.0625) for c in columns[1:]}}
    page = render_html(Report("r", [], [Section("s", "S", "text", [Table("Wide", columns, [row])], [])]))
    assert '<div class="table"><table>' in page and "</table></div>" in page
    assert "div.table { overflow-x: auto;" in page
    assert page.count('<td class="num">0.812<span class="spread">± 0.062</span></td>') == 10
