"""Overview: what the project holds — topics, documents, runs, label sets, banks, answers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.widgets import DataTable, Header, Static, TabbedContent, TabPane

from studio.domain.views import Overview
from studio.tui.bindings import bindings_of
from studio.tui.messages import OverviewLoaded
from studio.tui.screens.base import StudioScreen
from studio.tui.widgets.footer import StudioFooter
from studio.tui.widgets.table import Table

# Columns shown per table: (record key, heading).
TABLES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "label_sets": (
        "Label sets",
        [
            ("name", "Name"),
            ("kind", "Kind"),
            ("topics", "Topics"),
            ("pairs", "Pairs"),
            ("relevant", "Relevant"),
            ("events", "Events"),
            ("source", "Source"),
        ],
    ),
    "runs": ("Runs", [("name", "Name"), ("topics", "Topics"), ("rows", "Rows"), ("source", "Source")]),
    "topics": ("Topics", [("qid", "Qid"), ("text", "Query"), ("docs", "Pooled docs"), ("judged", "Judged")]),
    "banks": (
        "Banks",
        [
            ("name", "Name"),
            ("topics", "Topics"),
            ("items", "Items"),
            ("questions", "Questions"),
            ("nuggets", "Nuggets"),
            ("vital", "Vital"),
            ("okay", "Okay"),
        ],
    ),
    "responses": ("Answers", [("system", "System"), ("topics", "Topics"), ("mean_chars", "Mean chars")]),
    "judges": (
        "Judge runs",
        [
            ("run", "Run"),
            ("label_set", "Label set"),
            ("state", "State"),
            ("method", "Method"),
            ("backend", "Backend"),
            ("model", "Model"),
            ("pairs", "Pairs"),
            ("calls", "Calls"),
            ("cache_hits", "Cached"),
            ("failures", "Failures"),
            ("prompt_hash", "Prompt"),
        ],
    ),
    "leaderboards": (
        "Leaderboards",
        [
            ("name", "Name"),
            ("runs", "Runs"),
            ("measures", "Measures"),
            ("topics", "Topics"),
            ("values", "Values"),
            ("layout", "Layout"),
            ("source", "Source"),
        ],
    ),
}

HELP = """The Overview lists what the project file holds: the topics with their pooled and judged
documents, the runs, every label set (human, LLM, derived) with its number of label events,
the test banks, the generated answers (`F7` checks the verdicts on them), every judge run (state: finished, running or
interrupted; method, backend, model, prompt hash, calls, cache hits, failures) and the
leaderboards imported from other tools (`studio import leaderboard`; `studio correlate --ref
leaderboard:NAME` compares against one). Switch tables with `1`–`7` or the tab keys; the data
is read in the background each time the screen shows, and again with `r`."""


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def summary_line(view: Overview) -> str:
    c = view.counts
    return (
        f"[b]{Path(view.path).name}[/b] · {_count(c['topics'], 'topic')} · "
        f"{_count(c['documents'], 'document')} · {_count(c['runs'], 'run')} "
        f"({_count(c['run_rows'], 'row')}) · {_count(c['label_sets'], 'label set')} "
        f"({_count(c['labels'], 'label')}) · {_count(c['banks'], 'bank')} "
        f"({_count(c['bank_items'], 'item')}) · {_count(c['responses'], 'answer')}"
    )


def _cell(value: Any) -> str:
    return "" if value is None else f"{value:,}" if isinstance(value, int) else str(value)


class OverviewScreen(StudioScreen):
    TITLE = "Overview"
    HELP = HELP
    BINDINGS = bindings_of("overview")
    DEFAULT_CSS = """
    OverviewScreen #summary { padding: 0 1; margin-bottom: 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.shown: Overview | None = None  # the Overview on screen, once one was read

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Reading the project…", id="summary")
        with TabbedContent(id="tables"):
            for key, (title, columns) in TABLES.items():
                with TabPane(title, id=key):
                    table: DataTable[str] = Table(id=f"table-{key}", cursor_type="row", zebra_stripes=True)
                    table.add_columns(*(heading for _, heading in columns))
                    yield table
        yield StudioFooter()

    def resumed(self) -> None:
        # On first showing, and on every return: decisions on Review (or a judge) changed the counts.
        self.load_overview()

    def action_refresh_overview(self) -> None:
        self.load_overview()

    def project_changed(self) -> None:
        self.load_overview()

    def action_show_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab
        self.query_one(f"#table-{tab}", DataTable).focus()

    @work(thread=True, exclusive=True, group="overview", exit_on_error=False)
    def load_overview(self) -> None:
        # Runs in a worker thread: reads through that thread's own DuckDB cursor, touches no widget.
        with self.locked() as project:
            view = project.overview()
        self.post_message(OverviewLoaded(view))

    @on(OverviewLoaded)
    def show_overview(self, message: OverviewLoaded) -> None:
        view = self.shown = message.overview
        self.query_one("#summary", Static).update(summary_line(view))
        records: dict[str, Sequence[Mapping[str, Any]]] = {
            "label_sets": view.label_sets,
            "runs": view.runs,
            "topics": view.topics or [],
            "banks": view.banks,
            "responses": view.responses,
            "judges": view.judges,
            "leaderboards": view.leaderboards,
        }
        for key, (_, columns) in TABLES.items():
            table = self.query_one(f"#table-{key}", DataTable)
            table.clear()
            for record in records[key]:
                table.add_row(*(_cell(record.get(field)) for field, _ in columns))
