"""Bank: a topic's questions or nuggets with their coverage; edit them and re-grade what changed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Header, ProgressBar, Select, Static

from studio.domain.choices import Importance, ItemKind
from studio.domain.errors import StudioError
from studio.domain.models import BankItem
from studio.domain.views import BankRow, BankView
from studio.services.project import BankEditor
from studio.tui.bindings import bindings_of
from studio.tui.in_order import InOrder
from studio.tui.judge_worker import stream_judge
from studio.tui.messages import BankEdited, BankLoaded, GradersLoaded, JudgeFinished, JudgeProgressed, NamesLoaded
from studio.tui.screens.base import StudioScreen
from studio.tui.widgets.dialog import ConfirmDialog
from studio.tui.widgets.footer import StudioFooter
from studio.tui.widgets.table import Table
from studio.tui.widgets.text_prompt import TextPrompt

HELP = """The Bank screen lists a test bank's items for one topic, always. Once a rubric judge that
graded the bank is chosen (`graded by`), it adds their coverage under that judge's grades: how many
reference-relevant and non-relevant documents each item covers (grade ≥ 4), whether it is spurious
(mostly covered by non-relevant documents, marked ✗), and how many of its cells are stale since the
judge graded them. Below: the relevant documents no item covers. Edits are audited bank events: `a`
add, `e` edit the wording, `d` delete, `v` vital/okay, `space` mark and `m` merge the marked items.
An edit makes only that item's cells stale; `g` re-grades exactly the stale cells in the background,
and the τ of the leaderboards built from the grades (the judge's own and every derived label set)
updates when it finishes."""

Choice = tuple[str | None, str | None, str | None]  # (bank, topic, grader)


def _count(value: int | None) -> str:
    return "" if value is None else str(value)


def status_line(view: BankView) -> str:
    head = f"[b]{view.bank}[/b] · topic {view.topic} · {len(view.items)} items"
    if view.source is None:
        method = "exam-question" if view.items and view.items[0].kind == "question" else "exam-nugget"
        hint = (
            "choose a grader above to see coverage"
            if view.graders
            else f"no rubric judge has graded it yet (studio judge --method {method} --bank {view.bank})"
        )
        return f"{head} · {hint}"
    taus = " · ".join(
        f"τ {name} {value:.3f}" if value is not None else f"τ {name} –" for name, value in view.taus.items()
    )
    problem = f" · [yellow]{view.problem}[/yellow]" if view.problem else ""
    return f"{head} · graded by {view.source} · {view.stale_cells} stale cells{' · ' + taus if taus else ''}{problem}"


class BankScreen(StudioScreen):
    TITLE = "Bank"
    HELP = HELP
    BINDINGS = bindings_of("bank")
    DEFAULT_CSS = """
    BankScreen #choices { height: auto; padding: 0 1; }
    BankScreen #choices Select { width: 1fr; margin-right: 1; }
    /* The topic's whole query must show: the bank and grader names are short. */
    BankScreen #choices #bank { width: 20; }
    BankScreen #choices #topic { width: 3fr; }
    BankScreen #bank-status { padding: 0 1; margin: 1 0 0 0; }
    BankScreen #items { height: 1fr; }
    BankScreen #lists { height: auto; max-height: 12; padding: 0 1; }
    BankScreen ProgressBar { padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.view: BankView | None = None
        self.marked: set[str] = set()
        self.regrading = False
        self.requested: Choice | None = None  # the (bank, topic, grader) last asked for
        self.edits: InOrder[tuple[str, str, Callable[[BankEditor], object]]] = InOrder()
        self.deleted: list[tuple[BankItem, int]] = []  # this sitting's deletions, the last one last

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="choices"):
            yield Select([], prompt="bank", id="bank")
            yield Select([], prompt="graded by", id="source")
            yield Select([], prompt="topic", id="topic")
        yield Static("Reading the banks…", id="bank-status")
        yield ProgressBar(id="regrade-progress", show_eta=True)
        with Vertical():
            table: DataTable[Any] = Table(id="items", cursor_type="row", zebra_stripes=True)
            table.add_columns("", "Item", "Kind", "Importance", "Rel", "Non-rel", "Stale", "Text")
            yield table
            yield Static("", id="lists")
        yield StudioFooter()

    def on_mount(self) -> None:
        self.query_one("#regrade-progress", ProgressBar).display = False
        self.load_names()

    # -- choices ---------------------------------------------------------------------------------

    def _value(self, name: str) -> str | None:
        select = self.query_one(f"#{name}", Select)
        return None if select.is_blank() else str(select.value)

    def _choice(self) -> Choice:
        return self._value("bank"), self._value("topic"), self._value("source")

    @on(NamesLoaded)
    def offer_names(self, message: NamesLoaded) -> None:
        names = message.names
        if not names.banks:
            self.query_one("#bank-status", Static).update(
                "No test bank in the project: import one (studio import bank) or generate one (studio bank generate)."
            )
            return
        bank, topic = self.query_one("#bank", Select), self.query_one("#topic", Select)
        with bank.prevent(Select.Changed), topic.prevent(Select.Changed):
            bank.set_options([(b, b) for b in names.banks])
            bank.value = names.banks[0]
            topic.set_options([(f"{qid} {text}", qid) for qid, text in names.topics])
            if names.topics:
                topic.value = names.topics[0][0]
        self.load_graders(names.banks[0])

    @work(thread=True, exclusive=True, group="graders", exit_on_error=False)
    def load_graders(self, bank: str) -> None:
        with self.locked() as project:
            graders = project.graders_of(bank)
        self.post_message(GradersLoaded(bank, graders))

    @on(GradersLoaded)
    def offer_graders(self, message: GradersLoaded) -> None:
        if message.bank != self._value("bank"):
            return  # graders of a bank no longer chosen
        select = self.query_one("#source", Select)
        with select.prevent(Select.Changed):
            select.set_options([(s, s) for s in message.graders])
            if message.graders:
                select.value = message.graders[0]
        self.action_reload()

    @on(Select.Changed)
    def chosen(self, event: Select.Changed) -> None:
        if self.requested is None:
            return  # the selectors are still being filled
        if event.select.id == "bank" and self._value("bank") != self.requested[0]:
            self.marked.clear()
            bank = self._value("bank")
            if bank is not None:
                self.load_graders(bank)
        else:
            self.action_reload(force=False)

    # -- loading ---------------------------------------------------------------------------------

    def action_reload(self, force: bool = True) -> None:
        wanted = self._choice()
        if wanted[0] is None or (not force and wanted == self.requested):
            return
        self.requested = wanted
        self.load(wanted, self.selection.ref or "human")

    @work(thread=True, exclusive=True, group="bank", exit_on_error=False)
    def load(self, choice: Choice, ref: str) -> None:
        bank, topic, source = choice
        assert bank is not None
        with self.locked() as project:
            view = project.bank_view(bank, topic, source, ref=ref)
        self.post_message(BankLoaded(view))

    @on(BankLoaded)
    def show(self, message: BankLoaded) -> None:
        view = self.view = message.view
        table = self.query_one("#items", DataTable)
        row = table.cursor_row
        table.clear()
        for item in view.items:
            spurious = Text("✗ ", style="red") if item.spurious else Text("")
            stale = Text(str(item.stale), style="bold yellow") if item.stale else Text("0" if view.source else "")
            table.add_row(
                "●" if item.item_id in self.marked else "",
                item.item_id.rsplit("/", 1)[-1][:8],
                item.kind,
                item.importance or "",
                _count(item.covered_relevant),
                _count(item.covered_nonrelevant),
                stale,
                spurious + Text(item.text),
                key=item.item_id,
            )
        if view.items:
            table.move_cursor(row=min(row, len(view.items) - 1))
        self.query_one("#bank-status", Static).update(status_line(view))
        if view.source is None:
            self.query_one("#lists", Static).update("")
            return
        uncovered = (
            ", ".join(
                f"{r['docid']} (ref {r['ref_grade']:g}, best item {r['best_item_grade']:g})" for r in view.uncovered[:8]
            )
            or "none"
        )
        misleading = ", ".join(r["item_id"].rsplit("/", 1)[-1][:8] for r in view.spurious) or "none"
        self.query_one("#lists", Static).update(
            f"[b]Spurious items:[/b] {misleading}\n[b]Relevant documents no item covers:[/b] {uncovered}"
        )

    # -- edits -----------------------------------------------------------------------------------

    def _selected(self) -> BankRow | None:
        table = self.query_one("#items", DataTable)
        if self.view is None or not self.view.items or table.cursor_row < 0:
            return None
        return self.view.items[min(table.cursor_row, len(self.view.items) - 1)]

    def _apply(self, what: str, change: Callable[[BankEditor], object]) -> None:
        """Save an edit in a worker, after the ones before it; the items are read again after it."""
        bank = self._value("bank")
        if bank is None:
            return
        if self.edits.add((bank, what, change)):
            self.write_edits()

    @work(thread=True, group="bank-edits", exit_on_error=False)
    def write_edits(self) -> None:
        try:
            while (item := self.edits.take()) is not None:
                bank, what, change = item
                try:
                    with self.locked() as project:
                        change(project.bank_editor(bank, person=self.state.person))
                except (StudioError, ValueError) as error:  # the edits queued after it are not tried
                    self.edits.drop()
                    self.post_message(BankEdited(bank, what, str(error)))
                    continue
                self.post_message(BankEdited(bank, what))
        except BaseException:
            self.edits.abandon()
            raise

    @on(BankEdited)
    def edited(self, message: BankEdited) -> None:
        if message.error is not None:
            self.studio.show_message("Not saved", f"the {message.what} was not saved: {message.error}")
        self.action_reload()

    def action_add(self) -> None:
        topic = self._value("topic")
        if topic is None:
            return
        kinds = {item.kind for item in (self.view.items if self.view else [])}
        kind = kinds.pop() if len(kinds) == 1 else ItemKind.nugget.value
        importance = Importance.okay.value if kind == ItemKind.nugget else None

        def add(text: str | None) -> None:
            if text:
                self._apply("add", lambda e: e.add(topic, text, kind=kind, importance=importance))

        self.app.push_screen(TextPrompt(f"New {kind} for topic {topic}"), add)

    def action_edit(self) -> None:
        item = self._selected()
        if item is None:
            return

        def edit(text: str | None) -> None:
            if text and text != item.text:
                self._apply("edit", lambda e: e.edit(item.item_id, text=text))

        self.app.push_screen(TextPrompt(f"New wording of {item.item_id}", item.text), edit)

    def action_delete(self) -> None:
        item = self._selected()
        if item is None:
            return

        def delete(yes: bool | None) -> None:
            if yes:
                self._apply("delete", lambda editor: self._delete(editor, item.item_id))

        self.app.push_screen(ConfirmDialog(f"Delete {item.item_id}: {item.text[:60]}? (u brings it back)"), delete)

    def _delete(self, editor: BankEditor, item_id: str) -> None:
        """Delete in the edits' worker, remembering the item as stored and its place for `u`."""
        position = editor.position_of(item_id)
        self.deleted.append((editor.delete(item_id), position))

    def action_restore(self) -> None:
        if not self.deleted:
            self.notify("no item deleted here to bring back", severity="warning")
            return
        item, position = self.deleted.pop()
        self._apply("restore", lambda e: e.restore(item, position))

    def action_weight(self) -> None:
        item = self._selected()
        if item is not None:  # toggled as stored when written: a second v before the first is saved undoes it
            self._apply("weight", lambda e: e.toggle_weight(item.item_id))

    def action_mark(self) -> None:
        item = self._selected()
        if item is not None:
            self.marked ^= {item.item_id}
            table = self.query_one("#items", DataTable)
            table.update_cell(item.item_id, table.ordered_columns[0].key, "●" if item.item_id in self.marked else "")

    def action_merge(self) -> None:
        if len(self.marked) < 2:
            self.notify("mark two or more items with space first", severity="warning")
            return
        marked, self.marked = sorted(self.marked), set()
        self._apply("merge", lambda e: e.merge(marked))

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
        with self.locked() as project:
            config = project.judge_config(source)
        stream_judge(self.post_message, lambda: project.judge(config, stale_only=True), source)

    def work_failed(self, group: str, error: BaseException) -> None:
        if group == "regrade":  # before the judge started (its own failures end in JudgeFinished)
            self.regrading = False
            self.query_one("#regrade-progress", ProgressBar).display = False

    @on(JudgeProgressed)
    def progressed(self, message: JudgeProgressed) -> None:
        self.query_one("#regrade-progress", ProgressBar).update(
            total=message.progress.total, progress=message.progress.done
        )

    @on(JudgeFinished)
    def regraded(self, message: JudgeFinished) -> None:
        self.regrading = False
        self.query_one("#regrade-progress", ProgressBar).display = False
        summary = message.summary  # an error is shown by the app's dialog
        if summary is not None:
            self.notify(f"re-graded {summary.stale_cells or 0} stale cells with {summary.calls} calls")
        self.action_reload()
