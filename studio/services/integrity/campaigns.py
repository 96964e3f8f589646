"""`studio check` on assessment campaigns and audits: each label of a campaign's label sets (its
own and its recall sample's) is the mean of the grades its assessors gave that stand, and no pair
has a label without one; each label event of an audit's gold set is one the audit recorded (a gold
grade or an assessor's). A label written around either, or a grade row lost, shows here."""

from __future__ import annotations

from studio.domain.campaigns import RECALL_SUFFIX, PairRole
from studio.domain.check_report import CheckResult
from studio.services.campaigns.grades import standing_grades
from studio.store import Connection
from studio.store import audits as audit_store
from studio.store import campaigns as campaign_store


def check_campaigns(con: Connection, result: CheckResult) -> None:
    if not campaign_store.holds_campaigns(con):
        return
    for found in campaign_store.campaigns(con):
        name = found["name"]
        roles = {(r.qid, r.docid): r.role for r in campaign_store.pairs(con, found["campaign_id"])}
        expected = {
            (name + RECALL_SUFFIX if roles.get(pair) == PairRole.recall else name, *pair): grades.gold
            for pair, grades in standing_grades(con, found["campaign_id"]).items()
        }
        current = {(name, q, d): g for q, d, g in audit_store.pool(con, name)}
        if name + RECALL_SUFFIX in campaign_store.campaign_names(con):
            current.update({(name + RECALL_SUFFIX, q, d): g for q, d, g in audit_store.pool(con, name + RECALL_SUFFIX)})
        result.checked += len(expected.keys() | current.keys())
        wrong = sorted(key for key in expected.keys() | current.keys() if expected.get(key) != current.get(key))
        result.found(
            len(wrong),
            [
                f"{s} {q} {d}: label {current.get((s, q, d))}, but its assessors' grades make {expected.get((s, q, d))}"
                for s, q, d in wrong
            ],
        )


def check_audits(con: Connection, result: CheckResult) -> None:
    for found in audit_store.audits(con):
        name = found["name"]
        around = audit_store.unrecorded_gold_events(con, found["audit_id"], name)
        result.checked += 1
        result.found(
            len(around),
            [
                f"{name} {qid} {docid}: label event {event} (grade {grade}) was written around audit {name}:"
                " no gold or assessor's grade of the audit records it"
                for event, qid, docid, grade in around
            ],
        )
