"""Tables never drop a column or cut a value: piped at full width whatever COLUMNS says; on a
narrow terminal, headers kept whole and long values wrapped; on a terminal too narrow even for
the headers, printed at full width for the terminal to wrap.

Every check compares a table with the JSON output of the same command: each column's header is
the field's name and the column's cells, read top to bottom with the line breaks and padding
taken out, are the field's values in order.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cli.cli_helpers import RUNNER_PARAMS, RUNNERS, run_clirunner
from hypothesis import given
from hypothesis import strategies as st

from studio.cli.listing import OVERVIEW_SECTIONS, TABLE_COLUMNS, Listing
from studio.cli.output import cell_text, fit_widths, print_table

ANSI = re.compile(r"\x1b\[[0-9;]*m")
SPACE = re.compile(r"\s+")
RULE = re.compile(r"^[━╇]+$")


@dataclass
class Table:
    title: str
    headers: list[str]
    columns: list[str]  # each column's text top to bottom, whitespace taken out
    body_lines: int


def parse_tables(text: str) -> dict[str, Table]:
    """The tables of a command's output by title (rich tables without outer edges)."""
    lines = ANSI.sub("", text).splitlines()
    tables = {}
    for index, line in enumerate(lines):
        if not RULE.match(line.strip()):
            continue
        headers = [cell.strip() for cell in lines[index - 1].split("┃")]
        body = []
        for row in lines[index + 1 :]:
            if "│" not in row:
                break
            body.append(row.split("│"))
        assert all(len(cells) == len(headers) for cells in body), f"a row does not match the header:\n{text}"
        columns = ["".join(SPACE.sub("", cells[i]) for cells in body) for i in range(len(headers))]
        title = lines[index - 2].strip()
        tables[title] = Table(title, headers, columns, len(body))
    return tables


def expected_columns(records: list[dict[str, Any]], names: list[str]) -> list[str]:
    return ["".join(SPACE.sub("", cell_text(record.get(name))) for record in records) for name in names]


def assert_keeps_everything(table: Table, records: list[dict[str, Any]], names: list[str]) -> None:
    assert table.headers == names, f"{table.title}: headers {table.headers} instead of {names}"
    assert table.columns == expected_columns(records, names), f"{table.title}: values lost or changed"
    assert "…" not in "".join(table.headers + table.columns)


def listing_json(project: Path, home: Path, *what: str) -> Any:
    result = run_clirunner(["--db", str(project), "list", *what, "--format", "json"], home)
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


# Environments: piped (CliRunner and a real pipe are not terminals) at any width, a terminal of
# 80 columns (TERM=dumb makes rich assume exactly 80) and one of 30 (too narrow for the headers).
PIPED = {"COLUMNS": "80"}
PIPED_NARROW = {"COLUMNS": "20"}
TERMINAL_80 = {"TTY_COMPATIBLE": "1", "TERM": "dumb", "COLUMNS": "80"}
TERMINAL_30 = {"TTY_COMPATIBLE": "1", "TERM": "xterm", "COLUMNS": "30"}
ENVIRONMENTS = {"piped-80": PIPED, "piped-20": PIPED_NARROW, "terminal-80": TERMINAL_80, "terminal-30": TERMINAL_30}
WIDTH = {"terminal-80": 80, "terminal-30": 30}

LISTINGS = [Listing.banks, Listing.responses, Listing.topics, Listing.qrels, Listing.runs, Listing.judges]


def run_table(project: Path, home: Path, args: list[str], environment: str, runner: str = "clirunner") -> str:
    result = RUNNERS[runner](["--db", str(project), *args], home, ENVIRONMENTS[environment])
    assert result.code == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("environment", ENVIRONMENTS)
@pytest.mark.parametrize("what", LISTINGS)
def test_a_listing_keeps_every_column_and_value(
    what: Listing, environment: str, demo_project: Path, tmp_path: Path
) -> None:
    records = listing_json(demo_project, tmp_path, what.value)
    names = TABLE_COLUMNS.get(what, list(records[0]))
    tables = parse_tables(run_table(demo_project, tmp_path, ["list", what.value], environment))
    assert list(tables) == [what.value.capitalize()]
    assert_keeps_everything(tables[what.value.capitalize()], records, names)


@pytest.mark.parametrize("environment", ENVIRONMENTS)
def test_the_overview_keeps_every_column_and_value(environment: str, demo_project: Path, tmp_path: Path) -> None:
    view = listing_json(demo_project, tmp_path)
    tables = parse_tables(run_table(demo_project, tmp_path, ["list"], environment))
    # A section with nothing in it (the sample imports no leaderboard) is left out.
    assert list(tables) == ["Project", *(title for title, field, _ in OVERVIEW_SECTIONS if view[field])]
    counts = [{"what": what, "count": count} for what, count in view["counts"].items()]
    assert_keeps_everything(tables["Project"], counts, ["what", "count"])
    for title, field, columns in OVERVIEW_SECTIONS:
        if view[field]:
            assert_keeps_everything(tables[title], view[field], list(columns))


@pytest.mark.parametrize("runner", RUNNER_PARAMS)
@pytest.mark.parametrize("environment", ["piped-80", "piped-20"])
def test_a_piped_table_is_printed_at_full_width_one_line_per_row(
    runner: str, environment: str, demo_project: Path, tmp_path: Path
) -> None:
    records = listing_json(demo_project, tmp_path, "banks")
    out = run_table(demo_project, tmp_path, ["list", "banks"], environment, runner)
    table = parse_tables(out)["Banks"]
    assert table.body_lines == len(records)
    assert_keeps_everything(table, records, list(records[0]))
    # The source paths alone are wider than the 80 columns COLUMNS claims.
    assert max(len(line) for line in out.splitlines()) > 80


def test_a_narrow_terminal_wraps_long_values_within_its_width(demo_project: Path, tmp_path: Path) -> None:
    out = run_table(demo_project, tmp_path, ["list", "banks"], "terminal-80")
    assert max(len(line) for line in ANSI.sub("", out).splitlines()) <= 80
    assert parse_tables(out)["Banks"].body_lines > 2  # the two source paths take several lines each


def test_a_terminal_too_narrow_for_the_headers_gets_the_full_width(demo_project: Path, tmp_path: Path) -> None:
    out = run_table(demo_project, tmp_path, ["list", "banks"], "terminal-30")
    assert parse_tables(out)["Banks"].body_lines == 2
    assert max(len(line) for line in ANSI.sub("", out).splitlines()) > WIDTH["terminal-30"]


def test_cells_are_data_not_console_markup(capsys: pytest.CaptureFixture[str]) -> None:
    print_table(["item", "importance"], [["[bold]jaguars[/bold] run", "[vital]"]], title="Items")
    out = capsys.readouterr().out
    assert "[bold]jaguars[/bold] run" in out and "[vital]" in out


# -- fitting columns into a width ---------------------------------------------------------------


def test_columns_that_fit_keep_their_natural_width() -> None:
    assert fit_widths([4, 10, 6], [4, 4, 6], 20) == [4, 10, 6]


def test_the_widest_column_is_narrowed_first_but_never_below_its_header() -> None:
    assert fit_widths([4, 40, 10], [4, 6, 5], 30) == [4, 16, 10]
    assert fit_widths([4, 40, 30], [4, 6, 25], 35) == [4, 6, 25]


def test_no_width_when_the_headers_alone_do_not_fit() -> None:
    assert fit_widths([4, 40, 10], [4, 6, 5], 14) is None


@given(st.lists(st.tuples(st.integers(1, 60), st.integers(0, 60)), min_size=1, max_size=8), st.integers(0, 200))
def test_fitted_widths_stay_between_header_and_natural_and_use_the_room(
    columns: list[tuple[int, int]],
    available: int,
) -> None:
    floors = [header for header, _ in columns]
    natural = [header + extra for header, extra in columns]
    widths = fit_widths(natural, floors, available)
    if sum(floors) > available and sum(natural) > available:
        assert widths is None
        return
    assert widths is not None
    assert all(f <= w <= n for f, w, n in zip(floors, widths, natural, strict=True))
    assert sum(widths) == min(sum(natural), available)
