"""What the LLM's help cost and changed (`studio assess report`), per condition:

* Table 1: topics, pool, pairs shown and judged, the pool reduction (1 − shown / pool), the
  campaign's grades per grade and per topic, assessor-hours from the timed grades;
* Fig. 5: the confusion of the LLM's grade with the campaign's label on the judged pairs, with the
  upgrades and downgrades of the LLM's grade;
* Table 2: Kendall τ of the LLM's leaderboard against the campaign's on the condition's topics,
  run level, per topic and on 1/3 and 2/3 of the topics (through the comparison frame: a pair the
  condition dropped has no campaign label, so it counts as non-relevant);
* Fig. 4: τ of each condition's leaderboard under the campaign against the manual condition's,
  on their disjoint topics;

and over the campaign the anchoring effect (`anchoring.py`) and the assessors' agreement within each
condition (κ per couple, α over all, as an audit's assessors').

Every figure comes from one state of the LLM label set. A campaign keeps its pool's LLM grades as
they were when it was planned (and, from schema 26, the newest event of the set then). When the set
changed since (a re-import, an edit, a judge run again), the report still reads the grades the
campaign kept — τ from a leaderboard of the kept grades — and says what changed; `live` reads the
set as it is today for τ and the confusion instead (the anchoring effect always reads the grades
the assessors were shown), and says so.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from studio.domain.campaign_report import (
    CampaignAssessor,
    CampaignAssessors,
    CampaignReport,
    ConditionAgreement,
    ConditionReport,
    ConfusionCell,
    CoupleKappa,
    MeasureTau,
    RecallLoss,
    TauBySubsample,
)
from studio.domain.campaigns import CONDITIONS, CampaignRecord, Condition, PairRole, StoredGrade
from studio.domain.frames import TopicChoice
from studio.metrics import correlation as corr
from studio.metrics.proportions import wilson
from studio.services.audit.assessments import PairGrades
from studio.services.audit.assessor_agreement import agreement_of
from studio.services.campaigns.anchoring import SeenGrade, anchoring, counted
from studio.services.campaigns.confusion import confusion_matrix, grade_counts
from studio.services.campaigns.grades import campaign_record, standing_grades
from studio.services.campaigns.llm_state import llm_state, today_grades
from studio.services.campaigns.report_warnings import campaign_warnings
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.meta.frame import framed_means
from studio.services.meta.rank_correlation import correlation
from studio.store import campaigns as campaign_store

RESAMPLES = 200  # the correlation's bootstrap, which the report does not print: kept small


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


class _Campaign:
    """A campaign's stored pieces, read once for the report."""

    def __init__(self, engine: EvaluationEngine, name: str, *, live: bool = False) -> None:
        con = engine.db.cursor()
        self.record: CampaignRecord = campaign_record(con, name)
        campaign_id = self.record["campaign_id"]
        self.topics = campaign_store.topics(con, campaign_id)
        self.pool = campaign_store.pairs(con, campaign_id)
        self.shown_llm = {(r.qid, r.docid): r.llm_grade for r in self.pool}  # what assessors saw
        self.state, self.llm_set = llm_state(engine, self.record, self.shown_llm, live=live)
        self.llm = self.shown_llm if self.state["grades"] == "planned" else today_grades(engine, self.record, self.pool)
        self.grades: list[StoredGrade] = campaign_store.standing(con, campaign_id)
        self.labels: dict[tuple[str, str], PairGrades] = standing_grades(con, campaign_id)
        self.recall = {(r.qid, r.docid) for r in self.pool if r.role is PairRole.recall}
        # The conditions' own grades: the recall sample's are shown as manual pairs, and counted apart.
        self.condition_grades = [g for g in self.grades if (g["qid"], g["docid"]) not in self.recall]

    def topics_of(self, condition: Condition) -> tuple[str, ...]:
        return tuple(q for q, c in self.topics.items() if c == condition)


def report(
    engine: EvaluationEngine, name: str, measures: list[str], *, seed: int = 0, live: bool = False
) -> CampaignReport:
    with engine.db.busy():
        found = _Campaign(engine, name, live=live)
        conditions = [_condition(engine, found, c, measures, seed) for c in CONDITIONS]
        _versus_manual(engine, found, conditions, measures)
    level = found.record["llm_relevant"]
    seen = [
        SeenGrade(g["qid"], g["grade"], llm, g["llm_visible"])
        for g in found.grades
        if counted(Condition(g["condition"]), llm := found.shown_llm.get((g["qid"], g["docid"])), level)
        and llm is not None
    ]
    effect = anchoring(seen, seed=seed)
    recall = [recall_loss(found, c) for c in (Condition.filtering, Condition.post_editing) if found.topics_of(c)]
    return CampaignReport(
        campaign=name,
        llm=found.record["llm"],
        llm_relevant=level,
        llm_state=found.state,
        measures=[str(measure_of(m)) for m in measures],
        conditions=conditions,
        anchoring=effect,
        assessors=_assessors(found),
        recall=recall,
        warnings=campaign_warnings(conditions, effect, recall),
    )


def recall_loss(found: _Campaign, condition: Condition) -> RecallLoss:
    """Relevant pairs among those the condition dropped, from its graded recall sample pairs: the
    sample is uniform over all dropped pairs, so the graded ones of this condition are a uniform
    sample of its dropped pairs (π = graded / dropped, a Horvitz–Thompson total)."""
    level = found.record["llm_relevant"]
    pool = [r for r in found.pool if r.topic_condition is condition]
    dropped = [r for r in pool if r.role is not PairRole.shown]
    sampled = [(r.qid, r.docid) for r in dropped if r.role is PairRole.recall]
    graded = [found.labels[pair].gold for pair in sampled if pair in found.labels]
    relevant = sum(g is not None and g >= level for g in graded)
    shown = [(r.qid, r.docid) for r in pool if r.role is PairRole.shown]
    gold = [found.labels[pair].gold for pair in shown if pair in found.labels]
    relevant_shown = sum(g is not None and g >= level for g in gold)
    hidden = low = high = math.nan
    if graded:
        share_low, share_high = wilson(relevant, len(graded))
        hidden, low, high = (len(dropped) * x for x in (relevant / len(graded), share_low, share_high))
    return RecallLoss(
        condition=str(condition),
        dropped=len(dropped),
        sampled=len(sampled),
        graded=len(graded),
        relevant=relevant,
        hidden_relevant=_finite(hidden),
        low=_finite(low),
        high=_finite(high),
        relevant_shown=relevant_shown,
        recall=_finite(_share(relevant_shown, hidden)),
        recall_low=_finite(_share(relevant_shown, high)),
        recall_high=_finite(_share(relevant_shown, low)),
    )


def _share(found: int, hidden: float) -> float:
    return found / (found + hidden) if found + hidden > 0 else math.nan


def _condition(
    engine: EvaluationEngine, found: _Campaign, condition: Condition, measures: list[str], seed: int
) -> ConditionReport:
    topics = found.topics_of(condition)
    pool = [r for r in found.pool if r.topic_condition is condition]
    shown = [r for r in pool if r.role is PairRole.shown]
    judged = [(r.qid, r.docid) for r in shown if (r.qid, r.docid) in found.labels]
    labels = {pair: found.labels[pair].gold for pair in judged}
    grades, differing = grade_counts({pair: found.labels[pair] for pair in judged}, len(topics))
    timed = [g["seconds"] for g in found.condition_grades if g["condition"] == condition and g["seconds"] is not None]
    confusion = Counter((found.llm[pair], label) for pair, label in labels.items() if label is not None)
    correlations = [_tau(engine, found, topics, m, seed) for m in measures] if judged else []
    return ConditionReport(
        condition=str(condition),
        topics=len(topics),
        pool=len(pool),
        shown=len(shown),
        judged=len(judged),
        reduction=1 - len(shown) / len(pool) if pool else None,
        grades=grades,
        assessors_differ=differing,
        assessor_hours=sum(timed) / 3600,
        timed_grades=len(timed),
        confusion=[
            ConfusionCell(llm=llm, assessor=label, pairs=n)
            for (llm, label), n in sorted(confusion.items(), key=lambda c: (_order(c[0][0]), c[0][1]))
        ],
        matrix=confusion_matrix({pair: found.labels[pair] for pair in judged}, found.llm),
        upgrades=sum(n for (llm, label), n in confusion.items() if llm is not None and label > llm),
        downgrades=sum(n for (llm, label), n in confusion.items() if llm is not None and label < llm),
        kendall_tau={c["measure"]: c["kendall_tau"] for c in correlations},
        correlations=correlations,
        agreement=_agreement(found, condition),
    )


def _order(grade: float | None) -> float:
    return -math.inf if grade is None else grade


def _tau(engine: EvaluationEngine, found: _Campaign, topics: tuple[str, ...], measure: str, seed: int) -> MeasureTau:
    """The LLM's leaderboard (the campaign's as reference) on the condition's topics."""
    got = correlation(
        engine,
        found.record["name"],
        found.llm_set,
        measure,
        topics=TopicChoice(subset=topics),
        resamples=RESAMPLES,
        seed=seed,
    )
    return MeasureTau(
        measure=got["measure"],
        runs=got["runs"],
        kendall_tau=got["kendall_tau"],
        per_topic_tau=got.get("per_topic_tau"),
        subsampling=[
            TauBySubsample(
                fraction=s["fraction"], topics=s["topics"], mean=s["mean"], low=s.get("low"), high=s.get("high")
            )
            for s in got.get("subsampling", [])
        ],
        versus_manual=None,
    )


def _versus_manual(
    engine: EvaluationEngine, found: _Campaign, conditions: list[ConditionReport], measures: list[str]
) -> None:
    """Fig. 4: each condition's leaderboard under the campaign against the manual one, run level."""
    evaluator = engine.evaluator(found.record["name"])
    labelled = evaluator.labelled_topics()
    manual = tuple(q for q in found.topics_of(Condition.manual) if q in labelled)
    for row in conditions:
        if row["condition"] == Condition.manual or not manual:
            continue
        own = tuple(q for q in found.topics_of(Condition(row["condition"])) if q in labelled)
        for tau in row["correlations"]:
            if not own:
                continue
            m = measure_of(tau["measure"])
            x, y = framed_means(evaluator, m, manual), framed_means(evaluator, m, own)
            tau["versus_manual"] = _finite(corr.kendall_tau_b(x, y))


def _agreement(found: _Campaign, condition: Condition) -> ConditionAgreement:
    pairs = [p for (q, d), p in found.labels.items() if found.topics[q] == condition and (q, d) not in found.recall]
    names = sorted({a for p in pairs for a in p.grades})
    couples, shared, alpha = agreement_of(pairs, names)
    return ConditionAgreement(
        overlap_pairs=shared,
        krippendorff_alpha=alpha,
        couples=[
            CoupleKappa(
                assessor_a=c["assessor_a"],
                assessor_b=c["assessor_b"],
                pairs=c["pairs"],
                agreeing=c["agreeing"],
                kappa=c["kappa"],
            )
            for c in couples
            if c["pairs"]
        ],
    )


def _assessors(found: _Campaign) -> CampaignAssessors:
    names = sorted({g["assessor"] for g in found.grades})
    rows = []
    for name in names:
        theirs = [g for g in found.grades if g["assessor"] == name]
        seconds = [g["seconds"] for g in theirs if g["seconds"] is not None]
        rows.append(
            CampaignAssessor(
                assessor=name,
                conditions=[str(c) for c in CONDITIONS if any(g["condition"] == c for g in theirs)],
                graded=len(theirs),
                timed=len(seconds),
                hours=float(np.sum(seconds)) / 3600,
            )
        )
    return CampaignAssessors(
        per_assessor=rows,
        agreement={str(c): _agreement(found, c) for c in CONDITIONS},
    )
