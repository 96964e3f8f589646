"""Leaderboard: the runs ranked under the reference and the audited label set, side by side."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Select, Static
from textual_plotext import PlotextPlot

from studio.services.meta.comparison import agreement, correlation
from studio.tui.messages import LeaderboardComputed

HELP = """The Leaderboard ranks the runs under the reference label set and under the audited one,
side by side: each run's score and rank under both, and how far it moved. Above the table:
Kendall τ (τ-b), Spearman ρ, τ_AP, RBO, the number of swapped run pairs and Cohen's κ of the
shared labels. Runs in a swapped pair are shown in red. The scatter plot puts every run at
(reference score, audited score). Choose the label sets and the measure with the selectors; the
choice is also the pair Review works on."""

MEASURES = ("nDCG@10", "AP", "P@10", "RR", "R@100", "nDCG", "P(rel=2)@10", "AP(rel=2)", "Rprec")


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def stats_line(corr: dict[str, Any], agree: dict[str, Any] | None) -> str:
    kappa = _fmt(agree["kappa_graded"]) if agree else "–"
    return (f"τ {_fmt(corr['kendall_tau'])} · ρ {_fmt(corr['spearman_rho'])} · τ_AP {_fmt(corr['tau_ap'])} · "
            f"RBO {_fmt(corr['rbo'])} · {corr['swaps']} swapped pairs · κ {kappa}"
            f"{' over ' + str(agree['pairs']) + ' shared labels' if agree else ''}")


def ranked_rows(corr: dict[str, Any]) -> list[tuple[str, float, int, float, int]]:
    """(run, ref score, ref rank, audited score, audited rank), best reference score first."""
    board = corr["leaderboard"]
    by_ref = sorted(board, key=lambda r: -r["ref"])
    by_aud = sorted(board, key=lambda r: -r["qrels"])
    ref_rank = {r["run"]: i + 1 for i, r in enumerate(by_ref)}
    aud_rank = {r["run"]: i + 1 for i, r in enumerate(by_aud)}
    return [(r["run"], r["ref"], ref_rank[r["run"]], r["qrels"], aud_rank[r["run"]]) for r in by_ref]


class LeaderboardScreen(Screen[None]):
    DEFAULT_CSS = """
    LeaderboardScreen #choices { height: auto; padding: 0 1; }
    LeaderboardScreen #choices Select { width: 1fr; margin-right: 1; }
    LeaderboardScreen #stats { padding: 0 1; margin: 1 0; }
    LeaderboardScreen #board { width: 1fr; }
    LeaderboardScreen #scatter { width: 1fr; min-width: 40; }
    """
    TITLE = "Leaderboard"
    HELP = HELP
    BINDINGS = [Binding("r", "recompute", "Recompute", id="leaderboard.recompute",
                        tooltip="Read the labels again and recompute")]

    def __init__(self) -> None:
        super().__init__()
        self.computed: LeaderboardComputed | None = None

    def compose(self) -> ComposeResult:
        names = [row["name"] for row in self.app.project.label_sets()]  # type: ignore[attr-defined]
        selection = self.app.selection  # type: ignore[attr-defined]
        yield Header()
        with Horizontal(id="choices"):
            yield Select([(n, n) for n in names], value=selection.ref or Select.BLANK, prompt="reference",
                         id="ref", allow_blank=selection.ref is None)
            yield Select([(n, n) for n in names], value=selection.qrels or Select.BLANK, prompt="audited",
                         id="qrels", allow_blank=selection.qrels is None)
            yield Select([(m, m) for m in MEASURES], value=selection.measure, id="measure", allow_blank=False)
        yield Static("Computing…", id="stats")
        with Horizontal():
            with Vertical(id="board"):
                table: DataTable[Any] = DataTable(id="runs", cursor_type="row", zebra_stripes=True)
                table.add_columns("Run", "Reference", "Rank", "Audited", "Rank", "Moved")
                yield table
            yield PlotextPlot(id="scatter")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.action_recompute()

    @on(Select.Changed)
    def choose(self, event: Select.Changed) -> None:
        if event.value is Select.BLANK:
            return
        selection = self.app.selection  # type: ignore[attr-defined]
        setattr(selection, str(event.select.id), str(event.value))
        self.action_recompute()

    def on_screen_resume(self) -> None:
        self.action_recompute()  # labels may have changed in Review

    def action_recompute(self) -> None:
        selection = self.app.selection  # type: ignore[attr-defined]
        if selection.ref is None or selection.qrels is None or selection.ref == selection.qrels:
            self.query_one("#stats", Static).update("Choose a reference and a different audited label set.")
            return
        self.compute(selection.ref, selection.qrels, selection.measure)

    @work(thread=True, exclusive=True, group="leaderboard", exit_on_error=False)
    def compute(self, ref: str, qrels: str, measure: str) -> None:
        engine = self.app.project.engine  # type: ignore[attr-defined]
        with self.app.engine_lock:  # type: ignore[attr-defined]
            corr = correlation(engine, ref, qrels, measure, resamples=200)
            try:
                agree: dict[str, Any] | None = agreement(engine, ref, qrels)
            except ValueError:
                agree = None
        self.post_message(LeaderboardComputed(corr, agree))

    @on(LeaderboardComputed)
    def show(self, message: LeaderboardComputed) -> None:
        self.computed = message
        corr = message.correlation
        self.query_one("#stats", Static).update(stats_line(corr, message.agreement))
        swapped = {pair[key] for pair in corr.get("swapped_pairs", []) for key in ("above_in_ref", "below_in_ref")}
        table = self.query_one("#runs", DataTable)
        table.clear()
        rows = ranked_rows(corr)
        for run, ref_score, ref_rank, aud_score, aud_rank in rows:
            moved = ref_rank - aud_rank
            style = "red" if run in swapped else ""
            table.add_row(Text(run, style=style), f"{ref_score:.4f}", str(ref_rank), f"{aud_score:.4f}",
                          str(aud_rank), Text(f"{moved:+d}" if moved else "=", style=style))
        plot = self.query_one("#scatter", PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        plt.scatter([r[1] for r in rows], [r[3] for r in rows], marker="dot")
        plt.title(f"{corr['measure']}: {corr['ref']} (x) vs {corr['qrels']} (y)")
        plot.refresh()
