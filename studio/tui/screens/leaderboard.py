"""Leaderboard: the runs ranked under the reference and the audited label set, side by side."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Header, Select, Static
from textual_plotext import PlotextPlot

from studio.domain.views import EstimateView, LeaderboardView
from studio.tui.bindings import bindings_of
from studio.tui.messages import CalibrationRead, EstimateComputed, LeaderboardComputed, NamesLoaded
from studio.tui.screens.base import StudioScreen
from studio.tui.screens.significance import SignificanceScreen
from studio.tui.widgets.calibration import CalibrationScreen
from studio.tui.widgets.footer import StudioFooter
from studio.tui.widgets.table import Table

HELP = """The Leaderboard ranks the runs under the reference label set and under the audited one,
side by side: each run's score and rank under both, and how far it moved. Above the table:
Kendall τ (τ-b), Spearman ρ, τ_AP, RBO, the number of swapped run pairs and Cohen's κ of the
shared labels. Runs in a swapped pair are shown in red. The scatter plot puts every run at
(reference score, audited score). Choose the label sets and the measure with the selectors; the
choice is also the pair Review works on.

`e` switches to the estimated leaderboard: the reference taken as a partial gold sample (an audit,
or people's labels of some topics), each run's score under full human judging estimated from the
audited set and the gold sample (prediction-powered), with its interval, the audited set's own score
and the gold sample's interval alone; the line above says how many run orderings the audit has
settled. It tightens with every audit decision. `c` shows the calibration curve of the audited
label set when it is calibrated (or has a calibrated copy). `s` opens the significance matrix:
which run differences the reference and the audited set call significant, pair by pair; enter on
a pair opens Review on the labels its decision hangs on."""

MEASURES = ("nDCG@10", "AP", "P@10", "RR", "R@100", "nDCG", "P(rel=2)@10", "AP(rel=2)", "Rprec")


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def stats_line(view: LeaderboardView) -> str:
    shared = f" over {view.shared_labels} shared labels" if view.shared_labels is not None else ""
    line = (
        f"τ {_fmt(view.kendall_tau)} · ρ {_fmt(view.spearman_rho)} · τ_AP {_fmt(view.tau_ap)} · "
        f"RBO {_fmt(view.rbo)} · {view.swaps} swapped pairs · κ {_fmt(view.kappa)}{shared}"
    )
    # Said only when the leaderboards stand on fewer topics than the label sets have: a subset, or topics left out.
    if view.frame is not None and not view.frame.whole:
        line += f"\n[dim]{escape(view.frame.line())}[/dim]"
    return line


class LeaderboardScreen(StudioScreen):
    TITLE = "Leaderboard"
    HELP = HELP
    BINDINGS = bindings_of("leaderboard")
    DEFAULT_CSS = """
    LeaderboardScreen #choices { height: auto; padding: 0 1; }
    LeaderboardScreen #choices Select { width: 1fr; margin-right: 1; }
    LeaderboardScreen #stats { padding: 0 1; margin: 1 0; }
    LeaderboardScreen #board { width: 1fr; }
    LeaderboardScreen #estimates { display: none; }
    LeaderboardScreen.estimating #estimates { display: block; }
    LeaderboardScreen.estimating #runs { display: none; }
    LeaderboardScreen #scatter { width: 1fr; min-width: 40; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.computed: LeaderboardView | None = None
        self.estimated: EstimateView | None = None
        self.named = False  # the selectors hold the project's label sets

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="choices"):
            yield Select([], prompt="reference", id="ref")
            yield Select([], prompt="audited", id="qrels")
            yield Select([(m, m) for m in MEASURES], value=self.selection.measure, id="measure", allow_blank=False)
        yield Static("Computing…", id="stats")
        with Horizontal():
            with Vertical(id="board"):
                table: DataTable[Any] = Table(id="runs", cursor_type="row", zebra_stripes=True)
                table.add_columns("Run", "Reference", "Rank", "Audited", "Rank", "Moved")
                yield table
                estimates: DataTable[Any] = Table(id="estimates", cursor_type="row", zebra_stripes=True)
                estimates.add_columns("Run", "Estimate", "Interval", "Audited set", "Gold alone")
                yield estimates
            yield PlotextPlot(id="scatter")
        yield StudioFooter()

    def on_mount(self) -> None:
        self.load_names()  # the leaderboard itself is computed when the screen shows (resume)

    @on(NamesLoaded)
    def offer_names(self, message: NamesLoaded) -> None:
        names = message.names.label_sets
        for key in ("ref", "qrels"):
            select = self.query_one(f"#{key}", Select)
            with select.prevent(Select.Changed):
                select.set_options([(name, name) for name in names])
                chosen = getattr(self.selection, key)
                if chosen in names:  # a name no longer in the project (dropped elsewhere) stays unchosen
                    select.value = chosen
        self.named = True

    @on(Select.Changed)
    def choose(self, event: Select.Changed) -> None:
        if event.select.is_blank() or not self.named:
            return
        setattr(self.selection, str(event.select.id), str(event.value))
        self.action_recompute()

    def resumed(self) -> None:
        self.action_recompute()  # on first showing, and because labels may have changed in Review

    def action_recompute(self) -> None:
        selection = self.selection
        if selection.ref is None or selection.qrels is None or selection.ref == selection.qrels:
            self.query_one("#stats", Static).update("Choose a reference and a different audited label set.")
            return
        if self.has_class("estimating"):
            self.estimate(selection.ref, selection.qrels, selection.measure)
        else:
            self.compute(selection.ref, selection.qrels, selection.measure)

    def action_toggle_estimate(self) -> None:
        self.toggle_class("estimating")
        self.action_recompute()

    def action_calibration(self) -> None:
        qrels = self.selection.qrels
        if qrels is not None:
            self.read_calibration(qrels)

    def action_significance(self) -> None:
        selection = self.selection
        if selection.ref is None or selection.qrels is None or selection.ref == selection.qrels:
            self.notify("Choose a reference and a different audited label set first.")
            return
        self.app.push_screen(SignificanceScreen(selection.ref, selection.qrels, selection.measure))

    @work(thread=True, exclusive=True, group="calibration", exit_on_error=False)
    def read_calibration(self, qrels: str) -> None:
        with self.locked() as project:
            view = project.calibration_view(qrels)
        self.post_message(CalibrationRead(qrels, view))

    @on(CalibrationRead)
    def show_calibration(self, message: CalibrationRead) -> None:
        if message.view is None:
            qrels = message.qrels
            self.notify(f"{qrels} is not calibrated: studio calibrate --qrels {qrels} --gold GOLD --name NAME")
            return
        self.app.push_screen(CalibrationScreen(message.view))

    @work(thread=True, exclusive=True, group="leaderboard", exit_on_error=False)
    def estimate(self, gold: str, qrels: str, measure: str) -> None:
        with self.locked() as project:
            view = project.estimate_view(qrels, gold, measure)
        self.post_message(EstimateComputed(view))

    @on(EstimateComputed)
    def show_estimate(self, message: EstimateComputed) -> None:
        view = self.estimated = message.view
        self.query_one("#stats", Static).update(view.headline())
        table = self.query_one("#estimates", DataTable)
        table.clear()
        for row in view.runs:
            table.add_row(
                row["run"],
                _fmt(row["estimate"], 4),
                f"[{_fmt(row['low'], 4)}, {_fmt(row['high'], 4)}]",
                _fmt(row["llm"], 4),
                f"[{_fmt(row['gold_low'], 4)}, {_fmt(row['gold_high'], 4)}]",
            )

    def project_changed(self) -> None:
        super().project_changed()
        self.action_recompute()

    @work(thread=True, exclusive=True, group="leaderboard", exit_on_error=False)
    def compute(self, ref: str, qrels: str, measure: str) -> None:
        with self.locked() as project:
            view = project.leaderboard_view(ref, qrels, measure, topics=self.selection.topics)
        self.post_message(LeaderboardComputed(view))

    @on(LeaderboardComputed)
    def show(self, message: LeaderboardComputed) -> None:
        view = self.computed = message.view
        self.query_one("#stats", Static).update(stats_line(view))
        table = self.query_one("#runs", DataTable)
        table.clear()
        for row in view.runs:
            style = "red" if row.swapped else ""
            table.add_row(
                Text(row.run, style=style),
                f"{row.ref_score:.4f}",
                str(row.ref_rank),
                f"{row.score:.4f}",
                str(row.rank),
                Text(f"{row.moved:+d}" if row.moved else "=", style=style),
            )
        plot = self.query_one("#scatter", PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        plt.scatter([r.ref_score for r in view.runs], [r.score for r in view.runs], marker="dot")
        plt.title(f"{view.measure}: {view.ref} (x) vs {view.qrels} (y)")
        plot.refresh()
