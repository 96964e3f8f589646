"""How far a campaign has come: per condition and per assessor (`studio assess list|show`), and
the pairs left to grade as a list to hand to people who grade elsewhere (`studio assess pairs`)."""

from __future__ import annotations

from studio.domain.campaigns import (
    CONDITIONS,
    AssessorProgress,
    CampaignPair,
    CampaignProgress,
    CampaignRecord,
    CampaignRow,
    ConditionProgress,
    PairRole,
)
from studio.services.campaigns.grades import campaign_record, given_to, shown_pairs, standing_grades
from studio.store import Connection, Database
from studio.store import campaigns as campaign_store


def _judged(con: Connection, found: CampaignRecord) -> set[tuple[str, str]]:
    return set(standing_grades(con, found["campaign_id"]))


def list_campaigns(db: Database) -> list[CampaignRow]:
    con = db.cursor()
    rows = []
    for found in campaign_store.campaigns(con):
        shown = shown_pairs(con, found)
        judged = _judged(con, found)
        assessors = {a for _, _, a in campaign_store.assignments(con, found["campaign_id"])}
        assessors |= {r["assessor"] for r in campaign_store.standing(con, found["campaign_id"])}
        rows.append(
            CampaignRow(
                campaign=found["name"],
                llm=found["llm"],
                pool=found["pool"],
                llm_relevant=found["llm_relevant"],
                topics=len(campaign_store.topics(con, found["campaign_id"])),
                shown=sum(p.role is PairRole.shown for p in shown),  # as the plan and `show`: without the recall sample
                judged=sum(p.role is PairRole.shown and (p.qid, p.docid) in judged for p in shown),
                assessors=len(assessors),
                created=found["created"],
            )
        )
    return rows


def show_campaign(db: Database, campaign: str) -> CampaignProgress:
    """The campaign with its progress per condition and per assessor (and condition)."""
    con = db.cursor()
    found = campaign_record(con, campaign)
    campaign_id = found["campaign_id"]
    topics = campaign_store.topics(con, campaign_id)
    pool = campaign_store.pairs(con, campaign_id)
    shown = shown_pairs(con, found)
    judged = _judged(con, found)
    conditions = [
        ConditionProgress(
            condition=str(c),
            topics=sum(v == c for v in topics.values()),
            pool=sum(pair.topic_condition is c for pair in pool),
            shown=sum(p.condition is c and p.role is PairRole.shown for p in shown),
            judged=sum(p.condition is c and p.role is PairRole.shown and (p.qid, p.docid) in judged for p in shown),
        )
        for c in CONDITIONS
    ]
    return CampaignProgress(
        campaign=found["name"],
        llm=found["llm"],
        pool=found["pool"],
        llm_relevant=found["llm_relevant"],
        seed=found["seed"],
        created=found["created"],
        # As the plan counts them: the conditions' pairs, the recall sample apart (this count once
        # held the sample and the plan's did not: 964 against 944).
        shown=sum(c["shown"] for c in conditions),
        judged=sum(c["judged"] for c in conditions),
        conditions=conditions,
        recall_sample=sum(p.role is PairRole.recall for p in shown),
        recall_judged=sum(p.role is PairRole.recall and (p.qid, p.docid) in judged for p in shown),
        assessors=_assessor_progress(con, found, topics),
    )


def _assessor_progress(con: Connection, found: CampaignRecord, topics: dict[str, str]) -> list[AssessorProgress]:
    assignments = campaign_store.assignments(con, found["campaign_id"])
    grades = campaign_store.standing(con, found["campaign_id"])
    names = sorted({a for _, _, a in assignments} | {g["assessor"] for g in grades})
    rows = []
    for name in names:
        for condition in CONDITIONS:
            given = sum(a == name and topics[q] == condition for q, _, a in assignments)
            theirs = [g for g in grades if g["assessor"] == name and topics[g["qid"]] == condition]
            if not given and not theirs:
                continue
            rows.append(
                AssessorProgress(
                    assessor=name,
                    condition=str(condition),
                    given=given if assignments else None,
                    graded=len(theirs),
                    seconds=float(sum(g["seconds"] or 0.0 for g in theirs)),
                )
            )
    return rows


def campaign_pairs(
    db: Database, campaign: str, *, assessor: str | None = None, remaining: bool = False
) -> list[CampaignPair]:
    """The shown pairs in walk order, the LLM's grade only where the condition shows it
    (`assessor`: the pairs given to them; `remaining`: those not graded yet, by them or by anyone)."""
    con = db.cursor()
    found = campaign_record(con, campaign)
    given = given_to(con, found, assessor) if assessor is not None else None
    standing = standing_grades(con, found["campaign_id"])
    rows = []
    for pair in shown_pairs(con, found):
        key = (pair.qid, pair.docid)
        if given is not None and key not in given:
            continue
        if remaining and key in standing and (assessor is None or assessor in standing[key].grades):
            continue
        rows.append(pair.listed())
    return rows
