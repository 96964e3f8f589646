"""The answers' leaderboard (`studio answers --labels`): each system's score under a label set's
verdicts, with a 95% percentile bootstrap interval over topics; paired significance between systems
(the tests of `studio significance`); Kendall τ between two sets' orders of the systems.

A system's score is the mean over the topics it was judged on of its per-topic value: binary, the
verdict (1 relevant, 0 not: the share of topics judged relevant); graded, the gain of the grade,
2^g − 1 (`exp`, the paper's) or g (`linear`); subtopics, yes / (k + 1); preferences, 1 for a topic
won against the exemplar (the share of topics won, or of exemplars with `--exemplars all`);
embedding, the mean cosine to the topic's Best passages.
"""

from __future__ import annotations

import math

import numpy as np

from studio.domain.answer_results import AnswerScoreRow, MethodAgreement
from studio.domain.choices import AnswerGain, AnswerMethod
from studio.domain.errors import UsageError
from studio.domain.significance import DEFAULT_PLAN, Significance, SignificancePlan
from studio.metrics.answers import bootstrap_interval
from studio.metrics.correlation import kendall_tau_a, kendall_tau_b
from studio.services.answers.sets import AnswerSet, SystemVerdicts, answer_set
from studio.store import Connection

RESAMPLES = 1000


def gained(answers: AnswerSet, gain: AnswerGain) -> SystemVerdicts:
    """Each system's per-topic value: the verdict, or the gain of a grade."""
    if answers.method is AnswerMethod.tournament:
        raise UsageError(
            f"{answers.name} is a tournament between answers: "
            f"rate it with `studio answers tournament --labels {answers.name}`"
        )
    if answers.method is not AnswerMethod.graded or gain is AnswerGain.linear:
        return answers.verdicts
    return {s: {q: 2.0**g - 1.0 for q, g in by_topic.items()} for s, by_topic in answers.verdicts.items()}


def _byte_order(qids: set[str] | list[str]) -> list[str]:
    return sorted(qids, key=lambda q: q.encode("utf-8"))


def score_rows(
    answers: AnswerSet, gain: AnswerGain = AnswerGain.exp, *, resamples: int = RESAMPLES, seed: int = 0
) -> list[AnswerScoreRow]:
    """One row per system, best first (then by name)."""
    if resamples < 1:
        raise UsageError("--resamples must be at least 1")
    rows: list[AnswerScoreRow] = []
    for system, by_topic in gained(answers, gain).items():
        values = np.array([by_topic[q] for q in _byte_order(list(by_topic))])
        low, high = bootstrap_interval(values, resamples=resamples, seed=seed)
        rows.append(
            AnswerScoreRow(
                system=system,
                method=answers.method.value,
                score=float(values.mean()),
                low=low,
                high=high,
                topics=len(values),
                label_set=answers.name,
            )
        )
    rows.sort(key=lambda r: (-r["score"], r["system"]))
    return rows


def answer_leaderboard(
    con: Connection,
    label_sets: list[str],
    gain: AnswerGain = AnswerGain.exp,
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> list[AnswerScoreRow]:
    """The rows of every label set named, set by set in the order given."""
    if not label_sets:
        raise UsageError("name the answers label set(s) to rank the systems by (--labels)")
    return [
        row for name in label_sets for row in score_rows(answer_set(con, name), gain, resamples=resamples, seed=seed)
    ]


def value_matrix(values: SystemVerdicts) -> tuple[list[str], list[str], np.ndarray]:
    """(systems, topics in byte order, systems × topics values with NaN where a system was not judged)."""
    systems = sorted(values)
    qids = _byte_order({q for by_topic in values.values() for q in by_topic})
    matrix = np.full((len(systems), len(qids)), np.nan)
    column = {q: c for c, q in enumerate(qids)}
    for r, system in enumerate(systems):
        for qid, value in values[system].items():
            matrix[r, column[qid]] = value
    return systems, qids, matrix


def answer_significance(
    con: Connection, label_set: str, gain: AnswerGain = AnswerGain.exp, plan: SignificancePlan = DEFAULT_PLAN
) -> Significance:
    """Every pair of systems tested on the topics both were judged on (t, randomization, bootstrap or
    Tukey's HSD), p-values corrected over the pairs, as `studio significance` tests runs; a pair's
    `run_a`/`run_b` are its systems."""
    # Imported when asked: the tests' module loads scipy, which the studio does not pay for at start.
    from studio.services.significance.pairs import decided_pairs

    answers = answer_set(con, label_set)
    systems, _, matrix = value_matrix(gained(answers, gain))
    return decided_pairs(label_set, answers.method.value, systems, matrix, plan)


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value


def method_agreement(con: Connection, a: str, b: str, gain: AnswerGain = AnswerGain.exp) -> MethodAgreement:
    """Kendall τ between two sets' orders of the systems both judge, each system scored by its mean
    over the topics both sets judge it on."""
    if a == b:
        raise UsageError("compare two different label sets")
    first, second = answer_set(con, a), answer_set(con, b)
    values_a, values_b = gained(first, gain), gained(second, gain)
    systems = sorted(set(values_a) & set(values_b))
    means_a, means_b, topics = [], [], set()
    for system in systems:
        shared = set(values_a[system]) & set(values_b[system])
        if not shared:
            continue
        topics |= shared
        means_a.append((system, float(np.mean([values_a[system][q] for q in _byte_order(shared)]))))
        means_b.append((system, float(np.mean([values_b[system][q] for q in _byte_order(shared)]))))
    x, y = np.array([m for _, m in means_a]), np.array([m for _, m in means_b])
    return MethodAgreement(
        a=a,
        b=b,
        method_a=first.method.value,
        method_b=second.method.value,
        systems=len(means_a),
        topics=len(topics),
        kendall_tau=_finite(kendall_tau_b(x, y)),
        kendall_tau_a=_finite(kendall_tau_a(x, y)),
        order_a=[s for s, _ in sorted(means_a, key=lambda m: (-m[1], m[0]))],
        order_b=[s for s, _ in sorted(means_b, key=lambda m: (-m[1], m[0]))],
    )
