"""What Review says: its help, its keys, the hint of its filter prompt and its status line."""

from __future__ import annotations

from rich.markup import escape

from studio.domain.views import Stats
from studio.services.project import ReviewSession
from studio.tui.widgets.pair_panel import number

HELP = """Review steps through the pairs the audited label set (an LLM's) and the reference (the
human one) grade differently, the pairs that move the leaderboard most first. A key decides and
moves on at once; every decision is saved behind it as an audited label edit of the audited set,
so the Kendall τ between the two leaderboards and Cohen's κ in the header follow every key (their
change since the review opened is in brackets). A decision that could not be saved (the project
file kept by another program, a pair the reference has no grade for) is shown and taken back.

The passage shows the query's terms in bold and the answers extracted for test-bank items
underlined. Below it: every judge's grade of the pair with its confidence and raw output, the
item grades, and why the pair matters: the runs that retrieved the passage (with its rank in
each) and the runs whose place in the audited leaderboard would change if the pair took the
reference grade (place now → then). The sidebar lists the last decisions: select one and press `enter` to decide it
again. Choose the label sets and the measure on the Leaderboard screen (`F3`); `/` narrows the
queue to a topic, a run or a grade pair (e.g. `topic 1003`, `run lexical-bm25`, `3 0`), or to the
labels two runs' significance decision hangs on (`pair lexical-bm25 dense-good`). `b` opens a
blind audit: an audit sample's pairs in their random order, the LLM's grade hidden until graded.
A derived label set (an ensemble, a calibration) follows its sources: its grades are not edited
here, the status line says so, and only skip, flag and note apply."""

FILTER_HINT = (
    "Filter the queue, e.g. topic 1003 · run lexical-bm25 · 3 0 (the reference's grade, then the audited "
    "set's) · pair A B (the labels runs A and B's significance decision hangs on) · spread (the judges' "
    "spread first) · conflicts AUDIT (its assessors' conflicts, a grade adjudicates) · empty: every disagreement"
)
READ_AHEAD = 3  # pairs whose view is read before they are current


def _signed(value: float | None) -> str:
    return "" if value is None else f" ({value:+.3f})"


def status_line(session: ReviewSession, stats: Stats, saving: int = 0) -> str:
    total = len(session.queue)
    where = "queue done" if session.done else f"pair {session.position + 1} of {total}"
    pending = f"{saving} saving… · " if saving else ""  # apart from "N decided · ", the count of saved ones
    line = (
        f"[b]{session.qrels}[/b] against [b]{session.ref}[/b] · {session.filters.describe()} · {where} · "
        f"{session.decisions_made} decided · {pending}τ {number(stats.tau)}{_signed(stats.tau_change)} · "
        f"κ {number(stats.kappa)}{_signed(stats.kappa_change)}"
    )
    frame = stats.frame
    if frame is not None and not frame.whole:  # τ and κ on fewer topics than the label sets have: say which
        line += f"\n[dim]{escape(frame.line())}[/dim]"
    if session.read_only is not None:
        line += f"\n[yellow]{escape(session.read_only)}: only skip, flag and note apply.[/yellow]"
    return line
