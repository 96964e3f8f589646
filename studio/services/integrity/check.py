"""`studio check`: is the project file whole?

Current labels and bank items must be the replay of their events, every reference between
tables must lead to a row, keys must be held once (one call-cache entry per key), stored rankings
must be well formed, judge runs must have a state and counts that agree with their judgments,
every derived label set must equal what its sources make of it now, and every campaign label the
mean of its assessors' grades.
"""

from __future__ import annotations

from studio.domain.check_report import CheckReport, CheckResult
from studio.services.derived.freshness import freshness
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.integrity.campaigns import check_audits, check_campaigns
from studio.services.integrity.judge_runs import check_judge_runs
from studio.services.integrity.replay import compare_bank, compare_labels, replay_bank, replay_labels
from studio.store import Connection
from studio.store import integrity as facts
from studio.store.team import local as team_local


def _review_log(con: Connection) -> CheckResult:
    review = CheckResult("review-log", "each review decision's label event is of its label set, pair and grade")
    review.checked = facts.count_rows(con, "review_decisions")
    count, wrong = facts.review_mismatches(con)
    review.found(
        count,
        [
            f"review decision {row['decision']} ({row['qrels']} {row['qid']} {row['docid']}, grade "
            f"{row['grade']}) points at label event {row['event']} ({row['event_qrels']} "
            f"{row['event_qid']} {row['event_docid']}, grade {row['event_grade']})"
            for row in wrong
        ],
    )
    return review


def check_project(engine: EvaluationEngine) -> CheckReport:
    """Every check on the project file; nothing is written."""
    db = engine.db
    con = db.cursor()
    sets, banks = facts.names(con, "label_sets"), facts.names(con, "banks")

    label_history = CheckResult("label-events", "each label event names the grade it replaced; undos restore it")
    labels = CheckResult("labels", "the current labels are the replay of the label events")
    compare_labels(facts.current_labels(con), replay_labels(facts.label_events(con), sets, label_history), sets, labels)

    bank_history = CheckResult("bank-events", "bank items are edited, re-weighted or deleted only while in the bank")
    items = CheckResult("bank-items", "the current bank items are the replay of the bank events")
    compare_bank(facts.current_bank_items(con), replay_bank(facts.bank_events(con), banks, bank_history), banks, items)

    references = CheckResult("references", "every row names rows that exist: no orphans")
    for reference in facts.REFERENCES:
        count, missing = facts.broken_references(con, reference)
        references.checked += facts.count_rows(con, reference.child)
        where = f"{reference.child}.{', '.join(reference.columns)} → {reference.parent}.{', '.join(reference.keys)}"
        references.found(count, [f"{where}: {_rows(rows)} {value}, which does not exist" for value, rows in missing])

    review = _review_log(con)

    keys = CheckResult("keys", "each key is held by one row: one call-cache entry per key")
    for table, columns in facts.UNIQUE_KEYS:
        count, repeated = facts.repeated_keys(con, table, columns)
        keys.checked += facts.count_rows(con, table)
        keys.found(count, [f"{table} ({', '.join(columns)}) = {key} is held by more than one row" for key in repeated])

    rankings = CheckResult("rankings", "stored rankings are aligned lists naming each document once")
    rankings.checked, count, wrong_rankings = facts.ranking_problems(con)
    rankings.found(count, wrong_rankings)

    runs = CheckResult("judge-runs", "judge runs have a state; a finished run's counts agree with its judgments")
    states, notes = check_judge_runs(facts.judge_run_facts(con), runs)

    derived = CheckResult("derived", "each derived label set equals a fresh derivation from its sources")
    fresh = freshness(engine)
    derived.checked = fresh.checked
    for stale in fresh.stale:
        said = f"{stale.name} ({stale.made_of}) differs from its sources on {stale.differing:,} labels"
        derived.found(stale.differing, [f"{said} (`studio refresh` derives it afresh)", *stale.examples])
    for name, why in fresh.blocked.items():
        derived.problem(f"{name} cannot be derived from its sources now and keeps its last labels: {why}")

    campaigns = CheckResult("campaigns", "each campaign label is the mean of its assessors' standing grades")
    check_campaigns(con, campaigns)
    audits = CheckResult("audits", "each label of an audit's gold set is a grade the audit recorded")
    check_audits(con, audits)

    checks = [labels, label_history, items, bank_history, references, review, keys, rankings, runs, derived]
    checks += [campaigns, audits]
    return CheckReport(db.path, checks, states, [*notes, *_quarantine_notes(con)])


def _quarantine_notes(con: Connection) -> list[str]:
    """The team's pulled events this copy refused: not a fault of the file (they were never
    applied), but what its labels do not hold."""
    held = team_local.quarantined(con)
    if not held:
        return []
    shown = "; ".join(f"{q.member} #{q.seq} ({q.kind}): {q.reason}" for q in held[:5])
    more = f" and {len(held) - 5} more" if len(held) > 5 else ""
    return [
        f"team: {len(held)} pulled event{'s' if len(held) != 1 else ''} quarantined, never applied"
        f" (`studio team status` lists them): {shown}{more}"
    ]


def _rows(count: int) -> str:
    return "1 row names" if count == 1 else f"{count:,} rows name"
