"""Judges: configure and run an LLM judge, watch it, cancel it, resume it, read its failures."""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Label, ProgressBar, Select, Static
from textual.worker import Worker

from studio.judges.methods import METHODS
from studio.services.judging.config import JudgeConfig
from studio.services.judging.run import run_judge
from studio.tui.judge_worker import stream_judge
from studio.tui.messages import JudgeFinished, JudgeProgressed

HELP = """The Judges screen runs an LLM judge into a label set: choose the method, the backend
(`simulated` copies the reference with noise, `llamacpp` runs a local GGUF model — the bundled
SmolLM2 when no model path is given —, `openai` any compatible server, its key read from
OPENAI_API_KEY), the pool of pairs (`qrels:human`, `runs:10`, `holes:10`, `responses`), the label
set's name and, for rubric methods, the test bank. `ctrl+s` starts; the bar shows the rate, the
time left, the cache hits and the failures. `ctrl+x` cancels: every finished judgment is already
saved, so starting again resumes where it stopped (answered calls come from the cache). Below:
the newest run's failures with the model's raw output — a failure is never read as grade 0."""

BACKENDS = ("simulated", "llamacpp", "openai")


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


class JudgesScreen(Screen[None]):
    DEFAULT_CSS = """
    JudgesScreen #form { height: auto; padding: 0 1; }
    JudgesScreen #form > Horizontal { height: auto; }
    JudgesScreen #form Select, JudgesScreen #form Input { width: 1fr; margin-right: 1; }
    JudgesScreen #form Label { width: 12; padding: 1 0 0 0; }
    JudgesScreen #judge-status { padding: 0 1; margin: 1 0; }
    JudgesScreen ProgressBar { padding: 0 1; }
    JudgesScreen #failures-title { padding: 0 1; }
    JudgesScreen #failures { height: 1fr; }
    """
    TITLE = "Judges"
    HELP = HELP
    BINDINGS = [
        Binding("ctrl+s", "start", "Start / resume", id="judges.start",
                tooltip="Run the judge (cached calls are free)"),
        Binding("ctrl+x", "cancel", "Cancel", id="judges.cancel", tooltip="Stop; finished judgments stay saved"),
        Binding("ctrl+f", "failures", "Failures", id="judges.failures", tooltip="List the newest run's failures"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.running: Worker[None] | None = None
        self.last: JudgeProgressed | None = None

    def compose(self) -> ComposeResult:
        project = self.app.project  # type: ignore[attr-defined]
        banks = [row["name"] for row in project.banks()]
        ref = self.app.selection.ref or "human"  # type: ignore[attr-defined]
        yield Header()
        with Vertical(id="form"):
            with Horizontal():
                yield Label("Method")
                yield Select([(m, m) for m in METHODS], value="umbrela", id="method", allow_blank=False)
                yield Label("Backend")
                yield Select([(b, b) for b in BACKENDS], value="simulated", id="backend", allow_blank=False)
            with Horizontal():
                yield Label("Model")
                yield Input(placeholder="GGUF path or model name (default: bundled SmolLM2)", id="model")
                yield Label("Bank")
                yield Select([(b, b) for b in banks], prompt="(rubric methods)", id="bank")
            with Horizontal():
                yield Label("Pool")
                yield Input(f"qrels:{ref}", id="pool")
                yield Label("Label set")
                yield Input("umbrela-simulated", id="name")
        yield Static("Ready. ctrl+s starts the judge.", id="judge-status")
        yield ProgressBar(id="judge-progress", show_eta=False)
        yield Static("[b]Failures of the newest run[/b] (ctrl+f reads them again)", id="failures-title")
        table: DataTable[Any] = DataTable(id="failures", cursor_type="row", zebra_stripes=True)
        table.add_columns("Topic", "Document", "Reason", "Raw output")
        yield table
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#judge-progress", ProgressBar).display = False  # shown while a judge runs
        self.action_failures()

    def _config(self) -> JudgeConfig:
        def value(name: str) -> str | None:
            widget = self.query_one(f"#{name}")
            raw = widget.value  # type: ignore[attr-defined]
            return None if raw is Select.BLANK or raw in ("", None) else str(raw)

        return JudgeConfig(method=value("method") or "umbrela", backend=value("backend") or "simulated",
                           name=value("name") or "judge", pool=value("pool") or "qrels:human", model=value("model"),
                           bank=value("bank"), ref=self.app.selection.ref or "human")  # type: ignore[attr-defined]

    @on(Select.Changed, "#method, #backend")
    def suggest_name(self) -> None:
        name = self.query_one("#name", Input)
        method, backend = self.query_one("#method", Select).value, self.query_one("#backend", Select).value
        if not name.value or (name.value.count("-") >= 1 and name.value.split("-")[0] in METHODS):
            name.value = f"{method}-{backend}"

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
        db = self.app.project.db  # type: ignore[attr-defined]
        stream_judge(self.post_message, lambda: run_judge(db, config), config.name)

    @on(JudgeProgressed)
    def progressed(self, message: JudgeProgressed) -> None:
        self.last = message
        self.query_one("#judge-progress", ProgressBar).update(total=message.total, progress=message.done)
        self.query_one("#judge-status", Static).update(
            f"{message.done} of {message.total} · {message.rate:.1f}/s · left {_eta(message.eta)} · "
            f"{message.calls} calls · {message.cache_hits} cached · {message.failures} failures")

    @on(JudgeFinished)
    def finished(self, message: JudgeFinished) -> None:
        with self.app.engine_lock:  # type: ignore[attr-defined]
            self.app.project.engine.forget_labels(message.label_set)  # type: ignore[attr-defined]
        if message.error is not None:
            self.query_one("#judge-status", Static).update(f"[red]Failed:[/red] {message.error}")
        elif message.summary is None:
            done = f"{self.last.done} of {self.last.total}" if self.last else "nothing"
            self.query_one("#judge-status", Static).update(
                f"Cancelled after {done}: finished judgments are saved; ctrl+s resumes.")
        else:
            s = message.summary
            self.query_one("#judge-status", Static).update(
                f"Done: {s['pairs']} pairs into [b]{s['label_set']}[/b] · {s['calls']} calls · "
                f"{s['cache_hits']} cached · {s['failures']} failures · {s['seconds']:.1f} s")
        self.action_failures()

    def action_failures(self) -> None:
        name = self._config().name
        rows = self.app.project.judge_failures(name, limit=200)  # type: ignore[attr-defined]
        table = self.query_one("#failures", DataTable)
        table.clear()
        for row in rows:
            output = row["output"] if row["output"] is not None else row["call_error"] or ""
            table.add_row(row["qid"], row["docid"] + (f" / {row['docid_b']}" if row["docid_b"] else ""),
                          row["reason"] or "", " ".join(str(output).split())[:100])
