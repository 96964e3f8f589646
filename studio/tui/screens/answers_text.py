"""What the Answers screen writes: the status line, the answer and what stands beside it (the
exemplars it met, or the topic's subtopics), every method's verdict on it, and the leaderboard with
τ between methods. Pure rendering from the session's memory and the cards read for it."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from studio.domain.answer_results import AnswerCard, AnswerFigures
from studio.domain.highlight import highlight_spans
from studio.services.project import AnswerSession

Key = tuple[str, str]  # (qid, system)


def verdict_text(value: float | None) -> str:
    return "–" if value is None else f"{value:.3g}"


def status_line(session: AnswerSession, saving: int = 0) -> str:
    done, total = session.progress()
    where = "every verdict checked" if session.finished else f"answer {session.position + 1} of {total}"
    pending = f", {saving} saving…" if saving else ""
    return (
        f"[b]answers {escape(session.label_set)}[/b] · {session.method} · {where} · "
        f"{done}/{total} checked ({session.checked_now} now{pending})"
    )


def keys_hint(session: AnswerSession) -> str:
    grades = session.grade_keys()
    if not grades:
        return "`k` keeps it"
    shown = f"{grades[0]}–{grades[-1]}" if len(grades) > 2 else "/".join(map(str, grades))
    return f"`k` keeps it, `{shown}` overrides it"


def head_text(session: AnswerSession, key: Key, card: AnswerCard | None) -> str:
    """The topic, the system, the verdict as this sitting has it and what the judge said."""
    qid, system = key
    query = escape(card["query"] or "") if card is not None else "[dim]reading…[/dim]"
    verdict = session.verdicts.get(key)
    checked = " · [green]checked[/green]" if key in session.checked else ""
    judged = card["judged"] if card is not None else None
    said = "" if judged is None or verdict is None or judged == verdict else f" (the judge said {verdict_text(judged)})"
    return (
        f"[b]{escape(qid)}[/b] {query}\n"
        f"system [b]{escape(system)}[/b] · verdict [b]{verdict_text(verdict)}[/b]{said}{checked} · {keys_hint(session)}"
    )


def verdicts_line(session: AnswerSession, key: Key) -> str:
    """Every answers label set's verdict on the answer, this set's first."""
    said = []
    for name, method, value in session.method_verdicts(key):
        entry = f"{escape(name)} ({method}) {verdict_text(value)}"
        said.append(f"[b]{entry}[/b]" if name == session.label_set else entry)
    return "verdicts: " + " · ".join(said)


def answer_text(card: AnswerCard | None) -> Text:
    """The answer, the query's terms in bold."""
    if card is None:
        return Text("reading the answer…", style="dim")
    if card["answer"] is None:
        return Text("the system's answers are not loaded (studio import responses)", style="dim")
    text = Text(card["answer"])
    for start, end, _ in highlight_spans(card["answer"], card["query"] or "", []):
        text.stylize("bold yellow", start, end)
    return text


def beside_text(card: AnswerCard | None) -> Text:
    """What the verdict was made of: each exemplar (both orders' picks), or each subtopic satisfied or
    not, or the judge's raw answer."""
    if card is None:
        return Text("")
    out = Text()
    for shown in card["exemplars"]:
        out.append(f"exemplar {shown['docid']}", style="bold")
        if shown["outcome"] is not None:
            picks = f"exemplar first: {shown['exemplar_first']}, answer first: {shown['answer_first']}"
            out.append(f" · {shown['outcome']} ({picks})")
        out.append("\n")
        out.append((shown["text"] or "(no text)") + "\n\n")
    if card["subtopics"]:
        out.append("subtopics (entry 0 is the query)\n", style="bold")
    for entry in card["subtopics"]:
        mark = "–" if entry["satisfied"] is None else "✓" if entry["satisfied"] else "✗"
        out.append(f"{mark} {entry['entry']} {entry['text'] or entry['item_id']}\n")
    if not card["exemplars"] and not card["subtopics"]:
        out.append("the judge said\n", style="bold")
        out.append("\n".join(card["raw"]) if card["raw"] else "(no raw answer kept)")
    return out


def figures_table(figures: AnswerFigures | None) -> Table | str:
    """The answers' leaderboard, one column per answers label set (this one first), and τ between
    this set's order of the systems and each other set's."""
    if figures is None:
        return "[dim]computing the leaderboard…[/dim]"
    sets = list(dict.fromkeys(row["label_set"] for row in figures.rows))
    systems = list(dict.fromkeys(row["system"] for row in figures.rows))  # the audited set's order first
    score = {(row["label_set"], row["system"]): row for row in figures.rows}
    table = Table(
        box=None, padding=(0, 1), title="the answers' leaderboard: score [95% interval]", title_justify="left"
    )
    table.add_column("system")
    for name in sets:
        table.add_column(f"[b]{escape(name)}[/b]" if name == figures.label_set else escape(name), justify="right")
    for system in systems:
        cells = []
        for name in sets:
            row = score.get((name, system))
            cells.append("–" if row is None else f"{row['score']:.3f} [{row['low']:.2f}, {row['high']:.2f}]")
        table.add_row(escape(system), *cells)
    taus = [
        f"τ {escape(a['a'])}–{escape(a['b'])} "
        f"{'–' if a['kendall_tau'] is None else format(a['kendall_tau'], '.2f')} ({a['systems']} systems)"
        for a in figures.agreements
    ]
    table.caption = " · ".join(taus) if taus else "no other answers label set to compare with (τ)"
    table.caption_justify = "left"
    return table
