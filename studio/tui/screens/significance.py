"""`s` on the Leaderboard: which run differences the reference and the audited label set call
significant, pair by pair, as a runs × runs matrix coloured by the class of the two decisions.

Runs come in the reference leaderboard's order; rows carry their rank and name, columns the rank
only, so that 60 runs still fit a wide terminal (the row labels stay put while the matrix scrolls
sideways). The line under the matrix names the pair under the cursor in full. Enter on a cell
opens Review on the labels that pair's decision hangs on. The tests run in a worker, never on the
UI thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.widgets import DataTable, Header, Static

from studio.domain.choices import ScreenName
from studio.domain.significance import CORRECTIONS, SIGNIFICANCE_TESTS, Significance, SignificancePlan, SignificantPair
from studio.domain.significance_matrix import CLASS_COLOURS, CLASS_LETTERS, CLASS_MEANINGS, DecisionGrid, decision_grid
from studio.domain.views import ReviewFilters
from studio.tui.bindings import bindings_of
from studio.tui.messages import SignificanceComputed
from studio.tui.screens.base import StudioScreen
from studio.tui.widgets.footer import StudioFooter
from studio.tui.widgets.table import Table

HELP = """Every pair of runs is tested under the reference and under the audited label set (on the
topics both label), p-values corrected over the pairs; each cell is the class of the two decisions:
B both significant with the same run ahead, O both significant with opposite runs ahead, R only
the reference's difference significant, A only the audited set's, · neither. Above the matrix:
the count of each class, the audited set's precision and recall against the reference's
decisions, and whether the reference's best run beats every other under both. Runs are in the
reference leaderboard's order; the line under the matrix names the pair under the cursor.

Enter on a cell opens Review on the labels that pair's decision hangs on (the audited labels the
reference grades otherwise, on documents either run ranks within the measure's depth), the most
deciding first; F3 comes back here. `t` changes the test, `c` the correction."""

# Readable in the default dark theme and told apart without colour by the letter.
CLASS_STYLES: dict[str, str] = {
    "both": f"bold white on {CLASS_COLOURS['both']}",
    "opposite": f"bold white on {CLASS_COLOURS['opposite']}",
    "ref_only": f"bold black on {CLASS_COLOURS['ref_only']}",
    "qrels_only": f"bold white on {CLASS_COLOURS['qrels_only']}",
    "neither": "dim",
}
CLASS_TITLES: dict[str, str] = {
    "both": "both",
    "opposite": "opposite",
    "ref_only": "reference only",
    "qrels_only": "audited only",
    "neither": "neither",
}
ROW_LABEL_WIDTH = 22


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def counts_line(result: Significance) -> Text:
    """Each class's count in its colour, precision, recall and the best run's verdict."""
    line = Text()
    agreement = result.get("agreement")
    if agreement is None:
        return line
    counts: Mapping[str, object] = agreement
    for kind, style in CLASS_STYLES.items():
        line.append(f" {CLASS_LETTERS[kind]} ", style=style)
        line.append(f" {CLASS_TITLES[kind]} {counts[kind]}   ")
    line.append(f"precision {_fmt(agreement['precision'])} · recall {_fmt(agreement['recall'])}")
    best = result.get("best_run")
    if best is not None:
        verdict = "under both" if best["both"] else "reference only" if best["ref"] else "not under the reference"
        line.append(f" · best run {best['run']} beats every other: {verdict}")
    return line


def plan_line(result: Significance, ref: str) -> str:
    tested = f"{result['test']} test" + (f", {result['resamples']:,} resamples" if result["resamples"] else "")
    return (
        f"{result['qrels']} against {ref} · {result['measure']} · {tested} · {result['correction']} correction · "
        f"α {result['alpha']:g} · {result['runs']} runs, {len(result['pairs'])} pairs"
    )


def pair_line(pair: SignificantPair | None, ref: str, qrels: str) -> str:
    """The pair under the cursor in full: both label sets' differences and adjusted p-values."""
    if pair is None:
        return "A run against itself: move to another cell."
    kind = pair.get("decision", "neither")
    return (
        f"{pair['run_a']} vs {pair['run_b']}: {CLASS_MEANINGS[kind]} · {ref}: Δ {_fmt(pair.get('ref_delta'), 4)}, "
        f"p adj {_fmt(pair.get('ref_p_adjusted'), 4)} · {qrels}: Δ {_fmt(pair['delta'], 4)}, "
        f"p adj {_fmt(pair['p_adjusted'], 4)} · enter: the labels behind it in Review"
    )


def next_plan(plan: tuple[str, str, float], *, test: bool) -> tuple[str, str, float]:
    """The next test (or correction) in turn; Tukey's HSD corrects by itself, so it takes none."""
    chosen, correction, alpha = plan
    if test:
        chosen = SIGNIFICANCE_TESTS[(SIGNIFICANCE_TESTS.index(chosen) + 1) % len(SIGNIFICANCE_TESTS)]
        correction = "none" if chosen == "tukey" else "holm" if correction == "none" else correction
    else:
        correction = CORRECTIONS[(CORRECTIONS.index(correction) + 1) % len(CORRECTIONS)]
    return chosen, correction, alpha


class SignificanceScreen(StudioScreen):
    TITLE = "Significance"
    HELP = HELP
    BINDINGS = bindings_of("significance")
    DEFAULT_CSS = """
    SignificanceScreen #plan, SignificanceScreen #counts { padding: 0 1; }
    SignificanceScreen #counts { margin-bottom: 1; }
    SignificanceScreen #matrix { height: auto; max-height: 1fr; }
    SignificanceScreen #cell { padding: 0 1; margin-top: 1; color: $text-muted; }
    """

    def __init__(self, ref: str, qrels: str, measure: str, plan: tuple[str, str, float] = ("t", "holm", 0.05)):
        super().__init__()
        self.ref, self.qrels, self.measure, self.plan = ref, qrels, measure, plan
        self.grid: DecisionGrid | None = None
        self.result: Significance | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Testing every run pair…", id="plan")
        yield Static("", id="counts")
        matrix: DataTable[Any] = Table(id="matrix", cursor_type="cell", cell_padding=0, show_row_labels=True)
        yield matrix
        yield Static("", id="cell")
        yield StudioFooter()

    def on_mount(self) -> None:
        self.compute(self.plan)

    def action_close(self) -> None:
        self.dismiss()

    def action_next_test(self) -> None:
        self.plan = next_plan(self.plan, test=True)
        self.compute(self.plan)

    def action_next_correction(self) -> None:
        if self.plan[0] == "tukey":
            self.notify("Tukey's HSD controls the error over all pairs itself: no correction to choose")
            return
        self.plan = next_plan(self.plan, test=False)
        self.compute(self.plan)

    @work(thread=True, exclusive=True, group="significance", exit_on_error=False)
    def compute(self, plan: tuple[str, str, float]) -> None:
        test, correction, alpha = plan
        with self.locked() as project:
            result = project.significance(
                self.qrels,
                self.measure,
                SignificancePlan(test, correction, alpha),
                ref=self.ref,
                topics=self.selection.topics,
            )
            board = project.leaderboard(self.ref, self.measure)
        self.post_message(SignificanceComputed(plan, result, decision_grid(result, board)))

    def work_failed(self, group: str, error: BaseException) -> None:
        if group == "significance":
            self.query_one("#plan", Static).update(Text(f"No significance tests: {error}", style="red"))

    @on(SignificanceComputed)
    def show(self, message: SignificanceComputed) -> None:
        if message.plan != self.plan:
            return  # asked for before the test or correction changed again
        self.result, self.grid = message.result, message.grid
        self.query_one("#plan", Static).update(plan_line(message.result, self.ref))
        self.query_one("#counts", Static).update(counts_line(message.result))
        table = self.query_one("#matrix", DataTable)
        table.clear(columns=True)
        runs = message.grid.runs
        for column in range(len(runs)):
            table.add_column(Text(str(column + 1), justify="center"), width=3)
        for row, run in enumerate(runs):
            cells = []
            for column in range(len(runs)):
                kind = message.grid.decision(row, column)
                letter = message.grid.letter(row, column)
                cells.append(Text(f" {letter} " if letter else "", style=CLASS_STYLES.get(kind or "", "")))
            label = f"{row + 1:>2} {run}"
            table.add_row(*cells, label=label[:ROW_LABEL_WIDTH])
        if len(runs) > 1 and table.cursor_coordinate.row == table.cursor_coordinate.column:
            table.move_cursor(row=0, column=1)  # the first pair, not a run against itself
        self.show_cell(table.cursor_coordinate.row, table.cursor_coordinate.column)

    def show_cell(self, row: int, column: int) -> None:
        if self.grid is None or not self.grid.runs:
            return
        self.query_one("#cell", Static).update(pair_line(self.grid.pair(row, column), self.ref, self.qrels))

    @on(DataTable.CellHighlighted, "#matrix")
    def highlighted(self, event: DataTable.CellHighlighted) -> None:
        self.show_cell(event.coordinate.row, event.coordinate.column)

    @on(DataTable.CellSelected, "#matrix")
    def open_review(self, event: DataTable.CellSelected) -> None:
        """Review, narrowed to the labels the pair's decision hangs on, on this screen's label sets."""
        pair = None if self.grid is None else self.grid.pair(event.coordinate.row, event.coordinate.column)
        if pair is None:
            return
        selection = self.selection
        selection.ref, selection.qrels, selection.measure = self.ref, self.qrels, self.measure
        self.state.review_filters = ReviewFilters(decision_pair=(pair["run_a"], pair["run_b"]))
        self.state.review_return = ScreenName.leaderboard
        self.app.switch_mode(ScreenName.review)
