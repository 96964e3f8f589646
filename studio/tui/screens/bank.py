"""Bank: a topic's questions or nuggets with their coverage; edit them and re-grade what changed."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, ProgressBar, Select, Static

from studio.domain.errors import UsageError
from studio.services.judging.config import last_config
from studio.services.judging.run import run_judge
from studio.services.rubric.editing import BankEditor
from studio.services.views.bank import bank_view, graders_of
from studio.tui.judge_worker import stream_judge
from studio.tui.messages import BankLoaded, JudgeFinished, JudgeProgressed
from studio.tui.screens.review import NoteScreen

HELP = """The Bank screen lists a test bank's items for one topic with their coverage under a rubric
judge's grades (`graded by`): how many reference-relevant and non-relevant documents each item
covers (grade ≥ 4), whether it is spurious (mostly covered by non-relevant documents, marked ✗),
and how many of its cells are stale since the judge graded them. Below: the relevant documents no
item covers. Edits are audited bank events: `a` add, `e` edit the wording, `d` delete, `v`
vital/okay, `space` mark and `m` merge the marked items. An edit makes only that item's cells
stale; `g` re-grades exactly the stale cells in the background, and the τ of the leaderboards
built from the grades (the judge's own and every derived label set) updates when it finishes."""


def _count(value: Any) -> str:
    return "–" if value is None else str(value)


class BankScreen(Screen[None]):
    DEFAULT_CSS = """
    BankScreen #choices { height: auto; padding: 0 1; }
    BankScreen #choices Select { width: 1fr; margin-right: 1; }
    BankScreen #bank-status { padding: 0 1; margin: 1 0 0 0; }
    BankScreen #items { height: 1fr; }
    BankScreen #lists { height: auto; max-height: 12; padding: 0 1; }
    BankScreen ProgressBar { padding: 0 1; }
    """
    TITLE = "Bank"
    HELP = HELP
    BINDINGS = [
        Binding("a", "add", "Add", id="bank.add", tooltip="Add an item to this topic"),
        Binding("e", "edit", "Edit", id="bank.edit", tooltip="New wording of the item (its cells become stale)"),
        Binding("d", "delete", "Delete", id="bank.delete", tooltip="Delete the item"),
        Binding("v", "weight", "Vital/okay", id="bank.weight", tooltip="Switch the nugget between vital and okay"),
        Binding("space", "mark", "Mark", id="bank.mark", tooltip="Mark the item for merging"),
        Binding("m", "merge", "Merge", id="bank.merge", tooltip="Merge the marked items into one"),
        Binding("g", "regrade", "Re-grade stale", id="bank.regrade",
                tooltip="Grade the stale cells again with the judge that graded the bank"),
        Binding("r", "reload", "Reload", id="bank.reload", tooltip="Read the bank again"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.view: dict[str, Any] | None = None
        self.marked: set[str] = set()
        self.regrading = False
        self.requested: tuple[str | None, ...] | None = None  # (bank, topic, source) last asked for

    def compose(self) -> ComposeResult:
        project = self.app.project  # type: ignore[attr-defined]
        banks = [row["name"] for row in project.banks()]
        topics = [row["qid"] for row in project.topics()]
        yield Header()
        with Horizontal(id="choices"):
            yield Select([(b, b) for b in banks], prompt="bank", id="bank", value=banks[0] if banks else Select.BLANK)
            yield Select([], prompt="graded by", id="source")
            yield Select([(f"{t} {row['text'][:20]}", t) for t, row in zip(topics, project.topics(), strict=True)],
                         prompt="topic", id="topic", value=topics[0] if topics else Select.BLANK)
        yield Static("", id="bank-status")
        yield ProgressBar(id="regrade-progress", show_eta=True)
        with Vertical():
            table: DataTable[Any] = DataTable(id="items", cursor_type="row", zebra_stripes=True)
            table.add_columns("", "Item", "Kind", "Importance", "Rel", "Non-rel", "Stale", "Text")
            yield table
            yield Static("", id="lists")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#regrade-progress", ProgressBar).display = False
        self._choose_sources()

    # -- choices ---------------------------------------------------------------------------------

    def _value(self, name: str) -> str | None:
        value = self.query_one(f"#{name}", Select).value
        return None if value is Select.BLANK else str(value)

    def _choose_sources(self) -> None:
        bank = self._value("bank")
        sources = graders_of(self.app.project, bank) if bank else []  # type: ignore[attr-defined]
        select = self.query_one("#source", Select)
        select.set_options([(s, s) for s in sources])
        if sources:
            select.value = sources[0]
        self.action_reload()

    @on(Select.Changed)
    def chosen(self, event: Select.Changed) -> None:
        # Selects also announce the values they start with: read again only on a real change.
        if self.requested is None:
            return
        if event.select.id == "bank" and event.value != self.requested[0]:
            self.marked.clear()
            self._choose_sources()
        else:
            self.action_reload(force=False)

    # -- loading ---------------------------------------------------------------------------------

    def action_reload(self, force: bool = True) -> None:
        bank = self._value("bank")
        if bank is None:
            self.query_one("#bank-status", Static).update("No test bank in the project: import one or generate one.")
            return
        wanted = (bank, self._value("topic"), self._value("source"))
        if not force and wanted == self.requested:
            return
        self.requested = wanted
        ref = self.app.selection.ref or "human"  # type: ignore[attr-defined]
        self.load(*wanted, ref)

    @work(thread=True, exclusive=True, group="bank", exit_on_error=False)
    def load(self, bank: str, topic: str | None, source: str | None, ref: str) -> None:
        with self.app.engine_lock:  # type: ignore[attr-defined]
            view = bank_view(self.app.project, bank, topic, source, ref=ref)  # type: ignore[attr-defined]
        self.post_message(BankLoaded(view, view["items"], view["stale"], None))

    @on(BankLoaded)
    def show(self, message: BankLoaded) -> None:
        view = self.view = message.report
        assert view is not None
        table = self.query_one("#items", DataTable)
        row = table.cursor_row
        table.clear()
        for item in view["items"]:
            mark = "●" if item["item_id"] in self.marked else ""
            spurious = Text("✗ ", style="red") if item["spurious"] else Text("")
            stale = Text(str(item["stale"]), style="bold yellow") if item["stale"] else Text("0")
            table.add_row(mark, item["item_id"].rsplit("/", 1)[-1][:8], item["kind"], item["importance"] or "",
                          _count(item["covered_relevant"]), _count(item["covered_nonrelevant"]), stale,
                          spurious + Text(item["text"]), key=item["item_id"])
        if view["items"]:
            table.move_cursor(row=min(row, len(view["items"]) - 1))
        taus = " · ".join(f"τ {name} {value:.3f}" if value is not None else f"τ {name} –"
                          for name, value in view["taus"].items())
        stale_total = len([c for c in view["stale"] if c["reason"] != "deleted"])
        self.query_one("#bank-status", Static).update(
            f"[b]{view['bank']}[/b] · topic {view['topic']} · {len(view['items'])} items · "
            f"graded by {view['source'] or '(no rubric judge yet)'} · {stale_total} stale cells"
            f"{' · ' + taus if taus else ''}")
        uncovered = ", ".join(f"{r['docid']} (ref {r['ref_grade']:g}, best item {r['best_item_grade']:g})"
                              for r in view["uncovered"][:8]) or "none"
        misleading = ", ".join(r["item_id"].rsplit("/", 1)[-1][:8] for r in view["spurious"]) or "none"
        self.query_one("#lists", Static).update(
            f"[b]Spurious items:[/b] {misleading}\n[b]Relevant documents no item covers:[/b] {uncovered}")

    # -- edits -----------------------------------------------------------------------------------

    def _editor(self) -> BankEditor | None:
        bank = self._value("bank")
        return BankEditor(self.app.project.db, bank, person=self.app.person) if bank else None  # type: ignore[attr-defined]

    def _selected(self) -> dict[str, Any] | None:
        table = self.query_one("#items", DataTable)
        if self.view is None or not self.view["items"] or table.cursor_row < 0:
            return None
        item: dict[str, Any] = self.view["items"][min(table.cursor_row, len(self.view["items"]) - 1)]
        return item

    def _apply(self, change: Any) -> None:
        editor = self._editor()
        if editor is None:
            return
        try:
            change(editor)
        except (UsageError, ValueError) as error:
            self.notify(str(error), severity="warning")
        self.action_reload()

    def action_add(self) -> None:
        topic = self._value("topic")
        if topic is None:
            return
        kinds = {item["kind"] for item in (self.view or {}).get("items", [])}
        kind = kinds.pop() if len(kinds) == 1 else "nugget"

        def add(text: str | None) -> None:
            if text:
                self._apply(lambda e: e.add(topic, text, kind=kind, importance="okay" if kind == "nugget" else None))

        self.app.push_screen(NoteScreen(f"New {kind} for topic {topic}"), add)

    def action_edit(self) -> None:
        item = self._selected()
        if item is None:
            return

        def edit(text: str | None) -> None:
            if text and text != item["text"]:
                self._apply(lambda e: e.edit(item["item_id"], text=text))

        self.app.push_screen(NoteScreen(f"New wording of {item['item_id']}", item["text"]), edit)

    def action_delete(self) -> None:
        item = self._selected()
        if item is not None:
            self._apply(lambda e: e.delete(item["item_id"]))

    def action_weight(self) -> None:
        item = self._selected()
        if item is not None:
            self._apply(lambda e: e.weight(item["item_id"], "okay" if item["importance"] == "vital" else "vital"))

    def action_mark(self) -> None:
        item = self._selected()
        if item is not None:
            self.marked ^= {item["item_id"]}
            table = self.query_one("#items", DataTable)
            mark = "●" if item["item_id"] in self.marked else ""
            table.update_cell(item["item_id"], table.ordered_columns[0].key, mark)

    def action_merge(self) -> None:
        if len(self.marked) < 2:
            self.notify("mark two or more items with space first", severity="warning")
            return
        marked, self.marked = sorted(self.marked), set()
        self._apply(lambda e: e.merge(marked))

    # -- re-grading ------------------------------------------------------------------------------

    def action_regrade(self) -> None:
        source = self._value("source")
        if source is None or self.regrading:
            return
        self.regrading = True
        bar = self.query_one("#regrade-progress", ProgressBar)
        bar.display = True
        bar.update(total=None, progress=0)
        self.regrade(source)

    @work(thread=True, exclusive=True, group="regrade", exit_on_error=False)
    def regrade(self, source: str) -> None:
        db = self.app.project.db  # type: ignore[attr-defined]
        stream_judge(self.post_message, lambda: run_judge(db, last_config(db, source), stale_only=True), source)

    @on(JudgeProgressed)
    def progressed(self, message: JudgeProgressed) -> None:
        self.query_one("#regrade-progress", ProgressBar).update(total=message.total, progress=message.done)

    @on(JudgeFinished)
    def regraded(self, message: JudgeFinished) -> None:
        self.regrading = False
        self.query_one("#regrade-progress", ProgressBar).display = False
        if message.error is not None:
            self.notify(f"re-grading stopped: {message.error}", severity="error")
        if message.summary is not None:
            with self.app.engine_lock:  # type: ignore[attr-defined]
                for name in [message.label_set, *message.summary.get("derived_updated", [])]:
                    self.app.project.engine.forget_labels(name)  # type: ignore[attr-defined]
            self.notify(f"re-graded {message.summary.get('stale_cells', 0)} stale cells with "
                        f"{message.summary['calls']} calls")
        self.action_reload()
