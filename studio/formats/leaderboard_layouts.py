"""Leaderboards in the layouts the evaluation tools write, beside the studio's own JSON/TSV/CSV.

* `trec_eval`: what `trec_eval -q` prints (`measure<TAB>topic<TAB>value`, the measure padded to
  22 characters, values `%6.4f`), one block per run as a loop running trec_eval once per run
  would write them one after the other: the per-topic lines, then `runid all NAME`, `num_q all N`
  and the means under the topic `all`. Measures trec_eval has are written by trec_eval's names
  (`nDCG@10` as `ndcg_cut_10`, `AP` as `map`), the others by the studio's.
* `tot`: `run<TAB>measure<TAB>topic<TAB>value`.
* `ir_measures`: what `ir_measures -q --places -1` prints (`topic<TAB>measure<TAB>value`) with the
  run in front: `run<TAB>topic<TAB>measure<TAB>value`.
* `jsonl`: one `{"run", "measure", "topic", "value"}` object a line.
* `latex`: a booktabs table of the means, runs by measures, the best value of each measure in bold.

`tot`, `ir_measures` and `jsonl` write every digit of a value (Python's shortest repr, which reads
back to the same float); `trec_eval` writes four decimals, as trec_eval does, and LaTeX too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from studio.domain.json_text import json_text

MEAN_TOPIC = "all"  # the topic column of a mean, as trec_eval and ir_measures write it

# The studio's (ir_measures') name of a measure and trec_eval's, for the measures both have at the
# default relevance level; a measure with `rel=` keeps the studio's name (trec_eval sets the level
# with -l, which its output does not show).
_SAME_MEASURES: tuple[tuple[str, str], ...] = (
    ("nDCG@{k}", "ndcg_cut_{k}"),
    ("nDCG", "ndcg"),
    ("P@{k}", "P_{k}"),
    ("R@{k}", "recall_{k}"),
    ("AP@{k}", "map_cut_{k}"),
    ("AP", "map"),
    ("RR", "recip_rank"),
    ("Rprec", "Rprec"),
)


def _rewrites(pairs: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """(pattern, replacement) for re.sub from (source, target) templates whose `{k}` is a cutoff."""
    return tuple(
        (re.escape(source).replace(re.escape("{k}"), r"(\d+)"), target.replace("{k}", r"\1"))
        for source, target in pairs
    )


_TO_TREC_EVAL = _rewrites(_SAME_MEASURES)
_FROM_TREC_EVAL = _rewrites(tuple((trec, studio) for studio, trec in _SAME_MEASURES))


@dataclass(frozen=True, slots=True)
class ScoreRow:
    """One value of a leaderboard: a run's `measure` on a topic, or its mean (topic `all`)."""

    run: str
    measure: str
    topic: str
    value: float


def _renamed(name: str, table: tuple[tuple[str, str], ...]) -> str:
    for pattern, replacement in table:
        if re.fullmatch(pattern, name):
            return re.sub(pattern, replacement, name)
    return name


def trec_eval_name(measure: str) -> str:
    """trec_eval's name of a studio measure (`nDCG@10` -> `ndcg_cut_10`); others unchanged."""
    return _renamed(measure, _TO_TREC_EVAL)


def studio_name(measure: str) -> str:
    """The studio's name of a trec_eval measure (`ndcg_cut_10` -> `nDCG@10`); others unchanged."""
    return _renamed(measure, _FROM_TREC_EVAL)


def _full(value: float) -> str:
    # repr is the shortest text that reads back to the same float.
    return repr(float(value))


def _runs_in_order(rows: Iterable[ScoreRow]) -> list[str]:
    return list(dict.fromkeys(row.run for row in rows))


def write_trec_eval(rows: Sequence[ScoreRow], topics: dict[str, int]) -> str:
    """trec_eval -q output, one block per run (`topics`: each run's num_q)."""
    lines: list[str] = []

    def line(measure: str, topic: str, value: str) -> None:
        lines.append(f"{measure:<22}\t{topic}\t{value}")

    for run in _runs_in_order(rows):
        own = [row for row in rows if row.run == run]
        per_topic = [row for row in own if row.topic != MEAN_TOPIC]
        for topic in dict.fromkeys(row.topic for row in per_topic):  # trec_eval -q: a topic's measures together
            for row in per_topic:
                if row.topic == topic:
                    line(trec_eval_name(row.measure), topic, f"{row.value:6.4f}")
        line("runid", MEAN_TOPIC, run)
        line("num_q", MEAN_TOPIC, str(topics.get(run, 0)))
        for row in own:
            if row.topic == MEAN_TOPIC:
                line(trec_eval_name(row.measure), MEAN_TOPIC, f"{row.value:6.4f}")
    return "".join(f"{text}\n" for text in lines)


def write_tot(rows: Sequence[ScoreRow]) -> str:
    """`run measure topic value`, tab-separated."""
    return "".join(f"{r.run}\t{r.measure}\t{r.topic}\t{_full(r.value)}\n" for r in rows)


def write_ir_measures(rows: Sequence[ScoreRow]) -> str:
    """`run topic measure value`, tab-separated: ir_measures -q with the run in front."""
    return "".join(f"{r.run}\t{r.topic}\t{r.measure}\t{_full(r.value)}\n" for r in rows)


def write_jsonl(rows: Sequence[ScoreRow]) -> str:
    """One JSON object per value."""
    return "".join(
        json_text({"run": r.run, "measure": r.measure, "topic": r.topic, "value": r.value}) + "\n" for r in rows
    )


_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escaped(text: str) -> str:
    """`text` as LaTeX typesets it literally (`run_a` -> `run\\_a`)."""
    return "".join(_LATEX_SPECIALS.get(char, char) for char in text)


@dataclass(frozen=True, slots=True)
class SignificanceMarks:
    """Which runs each run is significantly better than, per measure, and how that was decided
    (the note under the table says it: `how`, e.g. "paired t-test, Holm's correction", and α)."""

    beaten: dict[str, dict[str, set[str]]]  # measure -> run -> the runs it significantly beats
    how: str
    alpha: float


def run_labels(runs: Sequence[str]) -> dict[str, str]:
    """ranx's names for the rows: a, b, c… in row order; numbers when there are more than 26 runs."""
    if len(runs) <= 26:
        return {run: chr(ord("a") + n) for n, run in enumerate(runs)}
    return {run: str(n + 1) for n, run in enumerate(runs)}


def _marks(run: str, beaten: set[str], labels: dict[str, str]) -> str:
    """`$^{bd}$\\hphantom{$^{ce}$}` as ranx writes it: the letters of the runs `run` beats, then
    the others' letters invisible, so that every value of a column takes the same width."""
    separator = "" if all(len(label) == 1 for label in labels.values()) else ","
    won = separator.join(labels[other] for other in labels if other in beaten)
    rest = separator.join(labels[other] for other in labels if other != run and other not in beaten)
    return (f"$^{{{won}}}$" if won else "") + (rf"\hphantom{{$^{{{rest}}}$}}" if rest else "")


def write_latex(rows: Sequence[ScoreRow], significance: SignificanceMarks | None = None) -> str:
    """A booktabs table of the means: a row per run (best first by the first measure), a column per
    measure, values to four decimals, the best value of each measure in bold (every run that has
    it, when runs tie). Every measure the studio computes is better when higher.

    With `significance`, as ranx's `Report.to_latex()`: a `#` column letters the runs, each value
    carries as a superscript the letters of the runs it is significantly better than under its
    measure, and a note under the table says so."""
    means = [row for row in rows if row.topic == MEAN_TOPIC]
    measures = list(dict.fromkeys(row.measure for row in means))
    value = {(row.run, row.measure): row.value for row in means}
    best = {m: max((v for (_, measure), v in value.items() if measure == m), default=0.0) for m in measures}
    first: Callable[[str], float] = (lambda run: value.get((run, measures[0]), 0.0)) if measures else (lambda _: 0.0)
    runs = sorted(_runs_in_order(means), key=lambda run: (-first(run), run))
    labels = run_labels(runs) if significance is not None else {}

    def cell(run: str, measure: str) -> str:
        if (run, measure) not in value:
            return "--"
        number = f"{value[(run, measure)]:.4f}"
        shown = rf"\textbf{{{number}}}" if value[(run, measure)] == best[measure] else number
        if significance is None:
            return shown
        return shown + _marks(run, significance.beaten.get(measure, {}).get(run, set()), labels)

    def row(run: str) -> str:
        named = [labels[run], latex_escaped(run)] if significance is not None else [latex_escaped(run)]
        return " & ".join([*named, *(cell(run, m) for m in measures)]) + r" \\"

    lead = ["\\#", "Run"] if significance is not None else ["Run"]
    lines = [
        "% \\usepackage{booktabs}",
        r"\begin{tabular}{" + "l" * len(lead) + "r" * len(measures) + "}",
        r"\toprule",
        " & ".join([*lead, *(latex_escaped(m) for m in measures)]) + r" \\",
        r"\midrule",
        *(row(run) for run in runs),
        r"\bottomrule",
    ]
    if significance is not None:
        note = (
            "Superscripts: the runs (\\#) a value is significantly better than ("
            + latex_escaped(significance.how)
            + f", $\\alpha = {significance.alpha:g}$)."
        )
        lines.append(rf"\multicolumn{{{len(lead) + len(measures)}}}{{l}}{{\footnotesize {note}}} \\")
    lines.append(r"\end{tabular}")
    return "".join(f"{text}\n" for text in lines)
