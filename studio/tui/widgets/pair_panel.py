"""The pair under review: the query and passage (query terms and extracted answers marked), every
judge's grade, the item grades, and why the pair matters — the runs that retrieved the passage
and the leaderboard places its grade decides.

Repainted on every key, it is a few texts, not a widget per part: the judges' and the items'
grades are aligned columns of one text (as the runs under "why"), not tables, which measured,
styled and drew themselves each time; so are the grades under each prompt of a study, shown only
when a study linked prompts to the pair: one list per method, so that 0/1 and 0–3 grades never mix,
a line per prompt, model and test collection, the collection named."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.markup import escape
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from studio.domain.highlight import highlight_spans
from studio.domain.prompt_grades import SCALES, by_method
from studio.domain.rows import PromptGrade
from studio.domain.views import PairView

STYLES = {"term": "bold yellow", "answer": "underline green"}


def number(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def grade_text(value: float | None) -> str:
    return "–" if value is None else f"{value:g}"


def passage_text(view: PairView) -> Text:
    text = Text(view.passage)
    answers = [item["answer"] for item in view.items if item["answer"]]
    for start, end, kind in highlight_spans(view.passage, view.query, answers):
        text.stylize(STYLES[kind], start, end)
    return text


def prompt_spread(prompts: Sequence[PromptGrade]) -> str:
    """How far the prompts' grades of a pair spread: "grades 0–3 from 4 prompts", or that they agree."""
    grades = sorted({row["grade"] for row in prompts if row["grade"] is not None})
    graded = sum(1 for row in prompts if row["grade"] is not None)
    if not grades:
        return f"no grade from {len(prompts)} prompt{'' if len(prompts) == 1 else 's'}"
    low, high = grade_text(grades[0]), grade_text(grades[-1])
    said = f"all {low}" if low == high else f"grades {low}–{high}"
    return f"{said} from {graded} prompt{'' if graded == 1 else 's'}"


def one_line(text: object, width: int) -> str:
    return " ".join(str(text).split())[:width]


def prompts_text(prompts: Sequence[PromptGrade]) -> Text:
    """Per method (one scale), the pair's grade under each prompt, model and test collection."""
    text = Text()
    several = len({row["collection"] for row in prompts}) > 1  # prompt ids named with their prompt collection
    for method, rows in by_method(prompts):
        scale = SCALES.get(method, "its own scale")
        lines = [
            (
                one_line(f"{row['collection']}/{row['prompt_id']}" if several else row["prompt_id"], 32),
                row["author_group"],
                one_line(row["model"], 24),
                row["test_collection"],
                grade_text(row["grade"]),
            )
            for row in rows
        ]
        title = f"Under each {method} prompt ({scale}) · {prompt_spread(rows)}"
        if text.plain:
            text.append("\n\n")
        text.append_text(columns(title, ("Prompt", "Group", "Model", "Collection", "Grade"), lines, limit=None))
    text.no_wrap, text.overflow = True, "ellipsis"
    return text


class PairPanel(VerticalScroll):
    """Shows one `PairView` (or that the queue is done)."""

    def compose(self) -> ComposeResult:
        yield Static("", id="pair-head")
        yield Static("", id="passage")
        yield Static("", id="grades")
        prompts = Static("", id="prompts")
        prompts.display = False  # only once a study linked prompts to this pair
        yield prompts
        with Horizontal(id="why"):
            yield Static(id="retrieved")
            yield Static(id="moves")

    shown: object = None  # what the panel shows now: drawn again only when it changes

    def show(self, view: PairView | None, ref: str, qrels: str) -> None:
        if self.shown == (view, ref, qrels):  # a view read again (labels changed elsewhere) that did not change
            return
        self.shown = (view, ref, qrels)
        self._show_prompts(view)
        head = self.query_one("#pair-head", Static)
        if view is None:
            head.update("[b]The queue is done.[/b] `u` undoes the last decision; `/` chooses another slice.")
            self._show_body(Text(), Text(), None)
            return
        decided = f" · decided: {view.decision['action']}" if view.decision else ""
        flag = " · [red]⚑ flagged[/red]" if view.flagged else ""
        notes = "".join(f"\n[i]note:[/i] {note}" for note in view.notes)
        if view.assessors:  # an audit's conflict: a grade key adjudicates it
            graded = " · ".join(f"{name} [b]{grade_text(grade)}[/b]" for name, grade in view.assessors.items())
            notes += f"\n[i]assessors:[/i] {graded} · a grade key adjudicates"
        head.update(
            f"[b]{view.qid}[/b] {view.query}\n[b]{view.docid}[/b] · {ref} [b]{grade_text(view.ref_grade)}[/b] · "
            f"{qrels} [b]{grade_text(view.grade)}[/b] · Δτ if it took the {ref} grade "
            f"{view.delta_tau:+.3f}{decided}{flag}{notes}"
        )
        self._show_body(passage_text(view), grades_text(view), why_texts(view, ref, qrels))

    def _show_body(self, passage: Text, grades: Text, why: tuple[Text, Text] | None) -> None:
        """The passage, the grades and why the pair matters; a part with nothing to say is hidden."""
        for part, text in (("#passage", passage), ("#grades", grades)):
            widget = self.query_one(part, Static)
            widget.display = bool(text.plain)
            widget.update(text)
        self.query_one("#why").display = why is not None
        if why is not None:
            self.query_one("#retrieved", Static).update(why[0])
            self.query_one("#moves", Static).update(why[1])

    def _show_prompts(self, view: PairView | None) -> None:
        """The pair's grade under each prompt of a study, when one linked label sets to prompts: the
        prompts' disagreement on a pair is a reason to look at it."""
        prompts = view.prompts if view is not None else []
        widget = self.query_one("#prompts", Static)
        widget.display = bool(prompts)
        widget.update(prompts_text(prompts) if prompts else "")

    def show_reading(self, pair: Mapping[str, Any], ref: str, qrels: str, error: str | None = None) -> None:
        """The pair's head from the queue while its view is read (or why it could not be)."""
        if self.shown == (dict(pair), ref, qrels, error):
            return
        self.shown = (dict(pair), ref, qrels, error)
        self._show_prompts(None)
        reading = f"[red]not read yet:[/red] {escape(error)}" if error else "[dim]reading the pair…[/dim]"
        self.query_one("#pair-head", Static).update(
            f"[b]{pair['qid']}[/b]\n[b]{pair['docid']}[/b] · {ref} [b]{grade_text(pair['ref_grade'])}[/b] · "
            f"{qrels} [b]{grade_text(pair['grade'])}[/b] · {reading}"
        )
        self._show_body(Text(), Text(), None)


def grades_text(view: PairView) -> Text:
    """Every judge's grade of the pair (with its confidence and raw output), then the item grades of
    rubric judges, in aligned columns."""
    judges = []
    for row in view.judges:
        output = row["output"] if row["output"] is not None else f"failed: {row['parse_error']}"
        if row["label"] is None and row["parse_error"]:
            output = f"{row['parse_error']}: {row['output'] or ''}"
        judges.append((row["label_set"], grade_text(row["label"]), number(row["confidence"], 2), one_line(output, 90)))
    text = columns("Judges", ("Label set", "Grade", "Confidence", "Raw output or failure"), judges, limit=None)
    if view.items:  # rubric judges only
        items = [
            (
                item["label_set"],
                one_line(item.get("text") or item["item_id"], 48),
                grade_text(item["grade"]),
                one_line(item["answer"] or "", 40),
            )
            for item in view.items
        ]
        text.append("\n\n")
        text.append_text(columns("Items", ("Label set", "Item", "Grade", "Answer"), items, limit=None))
    text.no_wrap, text.overflow = True, "ellipsis"  # a row is one line: a long raw output is cut at the edge
    return text


def why_texts(view: PairView, ref: str, qrels: str) -> tuple[Text, Text]:
    """The runs that retrieved the passage; the places its grade decides."""
    runs = len(view.retrieved)
    retrieved = (
        f"Retrieved by {runs} run{'' if runs == 1 else 's'}" if runs else "Retrieved by no run (judged, never ranked)"
    )
    moving = f"{len(view.moves)} run{'' if len(view.moves) == 1 else 's'} move" if view.moves else "no run moves"
    moves = [
        (move.run, f"{move.rank_now} → {move.rank_then}", f"{number(move.score_now, 4)} → {number(move.score_then, 4)}")
        for move in view.moves
    ]
    title = f"If {qrels} took {ref}'s grade {grade_text(view.ref_grade)}: {moving}"
    return (
        columns(retrieved, ("Run", "Rank"), [(hit.run, str(hit.rank)) for hit in view.retrieved]),
        columns(title, ("Run", "Place", "Score"), moves),
    )


LIST_ROWS = 10  # rows a why-list shows; a project of a hundred runs gets the first ten and a count


def columns(
    title: str, headers: tuple[str, ...], rows: Sequence[tuple[str, ...]], limit: int | None = LIST_ROWS
) -> Text:
    """A titled list in aligned columns, at most `limit` rows of it, as plain text: repainted on
    every key, it must cost little (a Rich Table measures and lays itself out each time)."""
    shown = rows if limit is None else rows[:limit]
    more = len(rows) - len(shown)
    widths = [max(len(cell) for cell in column) for column in zip(headers, *shown, strict=True)]
    lines = Text()
    lines.append(title + "\n", style="bold")
    lines.append("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip() + "\n", style="bold")
    for row in shown:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() + "\n")
    if more > 0:
        lines.append(f"… and {more} more", style="italic")
    lines.rstrip()
    return lines
