"""Judges: configure and run an LLM judge, watch it, cancel it, resume it, read its failures; the
project's past judge runs, one of which fills the form."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.markup import escape
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Header, Input, Label, ProgressBar, Select, Static
from textual.worker import Worker

from studio.domain.choices import BackendName, JudgeMethod
from studio.domain.judging import JudgeConfig
from studio.domain.rows import JudgeRunRow
from studio.tui.bindings import bindings_of
from studio.tui.judge_worker import stream_judge
from studio.tui.messages import (
    FailuresLoaded,
    JudgeFinished,
    JudgeProgressed,
    JudgeRunChosen,
    JudgeRunsLoaded,
    NamesLoaded,
)
from studio.tui.screens.base import StudioScreen
from studio.tui.widgets.footer import StudioFooter
from studio.tui.widgets.table import Table

HELP = """The Judges screen runs an LLM judge into a label set: choose the method, the backend
(`simulated` copies the reference with noise, `llamacpp` runs a local GGUF model — the bundled
SmolLM2 when no model path is given —, `openai` any compatible server, its key read from
OPENAI_API_KEY), the pool of pairs (`qrels:human`, `runs:10`, `holes:10`, `responses`), the label
set's name and, for rubric methods, the test bank. `ctrl+s` starts; the bar shows the rate, the
time left, the cache hits and the failures. `ctrl+x` cancels: every finished judgment is already
saved, so starting again resumes where it stopped (answered calls come from the cache). Below:
the project's past judge runs, newest first — `enter` on one fills the form with its label set's
configuration (to run it again or resume it) and lists its failures —, then the failures with the
model's raw output: a failure is never read as grade 0."""

# The embedding judge is not an LLM call loop: it runs from `studio judge --method embedding`.
METHODS = [method.value for method in JudgeMethod if method is not JudgeMethod.embedding]
BACKENDS = [BackendName.simulated.value, BackendName.llamacpp.value, BackendName.openai.value]
MODEL_WIDTH = 24


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    if seconds < 1:
        return "<1 s"
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def run_cells(run: JudgeRunRow) -> tuple[str, ...]:
    """A past run's row: label set, method, backend, model, pairs, calls, cached, failures, when."""
    when = run["finished"] or f"{run['state']} (started {run['started']})"
    counts = (run["pairs"], run["calls"], run["cache_hits"], run["failures"])
    model = Path(run["model"]).name if run["model"] else ""
    if len(model) > MODEL_WIDTH:  # a GGUF file's name: the table must fit 120 columns
        model = model[: MODEL_WIDTH - 1] + "…"
    return (
        run["label_set"],
        run["method"],
        run["backend"],
        model,
        *("–" if n is None else f"{n:,}" for n in counts),
        when,
    )


class JudgesScreen(StudioScreen):
    TITLE = "Judges"
    HELP = HELP
    BINDINGS = bindings_of("judges")
    DEFAULT_CSS = """
    JudgesScreen #form { height: auto; padding: 0 1; }
    JudgesScreen #form > Horizontal { height: auto; }
    JudgesScreen #form Select, JudgesScreen #form Input { width: 1fr; margin-right: 1; }
    JudgesScreen #form Label { width: 12; padding: 1 0 0 0; }
    JudgesScreen #judge-status { padding: 0 1; margin: 1 0; }
    JudgesScreen ProgressBar { padding: 0 1; }
    JudgesScreen #runs-title, JudgesScreen #failures-title { padding: 0 1; }
    JudgesScreen #runs { height: auto; max-height: 9; margin-bottom: 1; }
    JudgesScreen #failures { height: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.running: Worker[None] | None = None
        self.last: JudgeProgressed | None = None
        self.finished: JudgeFinished | None = None  # the newest run's end, once one ended
        self.banks: list[str] = []  # the bank selector's choices

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="form"):
            with Horizontal():
                yield Label("Method")
                yield Select([(m, m) for m in METHODS], value=JudgeMethod.umbrela.value, id="method", allow_blank=False)
                yield Label("Backend")
                yield Select(
                    [(b, b) for b in BACKENDS], value=BackendName.simulated.value, id="backend", allow_blank=False
                )
            with Horizontal():
                yield Label("Model")
                yield Input(placeholder="GGUF path or model name (default: bundled SmolLM2)", id="model")
                yield Label("Bank")
                yield Select([], prompt="(rubric methods)", id="bank")
            with Horizontal():
                yield Label("Pool")
                yield Input(f"qrels:{self.selection.ref or 'human'}", id="pool")
                yield Label("Label set")
                yield Input("umbrela-simulated", id="name")
        yield Static("Ready. ctrl+s starts the judge.", id="judge-status")
        yield ProgressBar(id="judge-progress", show_eta=False)
        yield Static("[b]Past judge runs[/b] (enter: fill the form, list the failures)", id="runs-title")
        runs: DataTable[str] = Table(id="runs", cursor_type="row", zebra_stripes=True)
        runs.add_columns("Label set", "Method", "Backend", "Model", "Pairs", "Calls", "Cached", "Failures", "When")
        yield runs
        yield Static("[b]Failures of the newest run[/b] (ctrl+f reads them again)", id="failures-title")
        table: DataTable[Any] = Table(id="failures", cursor_type="row", zebra_stripes=True)
        table.add_columns("Topic", "Document", "Reason", "Raw output")
        yield table
        yield StudioFooter()

    def on_mount(self) -> None:
        self.query_one("#judge-progress", ProgressBar).display = False  # shown while a judge runs
        self.load_names()
        self.action_failures()

    def resumed(self) -> None:
        self.load_runs()  # a judge may have run elsewhere (the command line) meanwhile

    def project_changed(self) -> None:
        super().project_changed()
        self.load_runs()

    # -- past runs -------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="judge-runs", exit_on_error=False)
    def load_runs(self) -> None:
        with self.locked() as project:
            runs = project.judge_runs()
        self.post_message(JudgeRunsLoaded(runs))

    @on(JudgeRunsLoaded)
    def show_runs(self, message: JudgeRunsLoaded) -> None:
        table = self.query_one("#runs", DataTable)
        table.clear()
        for run in reversed(message.runs):
            table.add_row(*run_cells(run), key=run["label_set"] + "|" + str(run["run"]))

    @on(DataTable.RowSelected, "#runs")
    def choose_run(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.read_run(event.row_key.value.rsplit("|", 1)[0])

    @work(thread=True, exclusive=True, group="judge-run", exit_on_error=False)
    def read_run(self, label_set: str) -> None:
        with self.locked() as project:
            config = project.judge_config(label_set)
            failures = project.judge_failures(label_set, limit=200)
        self.post_message(JudgeRunChosen(label_set, config, failures))

    @on(JudgeRunChosen)
    def fill_form(self, message: JudgeRunChosen) -> None:
        """The form as the label set's newest run was configured: starting it again resumes that run."""
        config = message.config
        offered = {"method": METHODS, "backend": BACKENDS, "bank": self.banks}
        for widget_id, value in (("method", config.method), ("backend", config.backend), ("bank", config.bank)):
            select = self.query_one(f"#{widget_id}", Select)
            with select.prevent(Select.Changed):
                if value is None and widget_id == "bank":
                    select.clear()
                elif value in offered[widget_id]:
                    select.value = value
        self.query_one("#model", Input).value = config.model or ""
        self.query_one("#pool", Input).value = config.pool
        self.query_one("#name", Input).value = message.label_set
        if config.method not in METHODS:
            self.notify(f"{config.method} runs from the command line: studio judge --method {config.method}")
        self.show_failures(FailuresLoaded(message.label_set, message.failures))

    @on(NamesLoaded)
    def offer_banks(self, message: NamesLoaded) -> None:
        self.banks = message.names.banks
        self.query_one("#bank", Select).set_options([(b, b) for b in self.banks])

    def _text(self, widget_id: str) -> str | None:
        return self.query_one(f"#{widget_id}", Input).value.strip() or None

    def _choice(self, widget_id: str) -> str | None:
        select = self.query_one(f"#{widget_id}", Select)
        return None if select.is_blank() else str(select.value)

    def _config(self) -> JudgeConfig:
        return JudgeConfig(
            method=self._choice("method") or JudgeMethod.umbrela.value,
            backend=self._choice("backend") or BackendName.simulated.value,
            name=self._text("name") or "judge",
            pool=self._text("pool") or "qrels:human",
            model=self._text("model"),
            bank=self._choice("bank"),
            ref=self.selection.ref or "human",
        )

    @on(Select.Changed, "#method, #backend")
    def suggest_name(self) -> None:
        name = self.query_one("#name", Input)
        if not name.value or (name.value.count("-") >= 1 and name.value.split("-")[0] in METHODS):
            name.value = f"{self._choice('method')}-{self._choice('backend')}"

    # -- running ---------------------------------------------------------------------------------

    def action_start(self) -> None:
        if self.running is not None and self.running.is_running:
            self.notify("a judge is running; ctrl+x cancels it", severity="warning")
            return
        config = self._config()
        self.query_one("#judge-status", Static).update(f"Starting {config.method} → {config.name}…")
        bar = self.query_one("#judge-progress", ProgressBar)
        bar.display = True
        bar.update(total=None, progress=0)
        self.running = self.judge(config)

    def action_cancel(self) -> None:
        if self.running is not None and self.running.is_running:
            self.running.cancel()
            self.query_one("#judge-status", Static).update("Cancelling after the call in flight…")

    @work(thread=True, exclusive=True, group="judge", exit_on_error=False)
    def judge(self, config: JudgeConfig) -> None:
        project = self.project
        stream_judge(self.post_message, lambda: project.judge(config), config.name)

    @on(JudgeProgressed)
    def progressed(self, message: JudgeProgressed) -> None:
        self.last = message
        p = message.progress
        self.query_one("#judge-progress", ProgressBar).update(total=p.total, progress=p.done)
        self.query_one("#judge-status", Static).update(
            f"{p.done} of {p.total} · {p.rate:.1f}/s · left {_eta(p.eta)} · "
            f"{p.calls} calls · {p.cache_hits} cached · {p.failures} failures"
        )

    @on(JudgeFinished)
    def ended(self, message: JudgeFinished) -> None:
        self.finished = message
        self.query_one("#judge-progress", ProgressBar).display = False
        status = self.query_one("#judge-status", Static)
        if message.error is not None:
            status.update(f"[red]Failed:[/red] {message.error}")
        elif message.summary is None:
            done = f"{self.last.progress.done} of {self.last.progress.total}" if self.last else "nothing"
            status.update(f"Cancelled after {done}: finished judgments are saved; ctrl+s resumes.")
        else:
            s = message.summary
            status.update(
                f"Done: {s.pairs} pairs into [b]{s.label_set}[/b] · {s.calls} calls · "
                f"{s.cache_hits} cached · {s.failures} failures · {_eta(s.seconds)}"
            )
        self.action_failures()
        self.load_runs()

    # -- failures --------------------------------------------------------------------------------

    def action_failures(self) -> None:
        self.load_failures(self._config().name)

    @work(thread=True, exclusive=True, group="failures", exit_on_error=False)
    def load_failures(self, label_set: str) -> None:
        with self.locked() as project:
            failures = project.judge_failures(label_set, limit=200)
        self.post_message(FailuresLoaded(label_set, failures))

    @on(FailuresLoaded)
    def show_failures(self, message: FailuresLoaded) -> None:
        count = len(message.failures) or "none"
        self.query_one("#failures-title", Static).update(
            f"[b]Failures of {escape(message.label_set)}'s newest run[/b] ({count}; ctrl+f reads them again)"
        )
        table = self.query_one("#failures", DataTable)
        table.clear()
        for row in message.failures:
            output = row["output"] if row["output"] is not None else row["call_error"] or ""
            table.add_row(
                row["qid"],
                row["docid"] + (f" / {row['docid_b']}" if row["docid_b"] else ""),
                row["reason"] or "",
                " ".join(str(output).split())[:100],
            )
