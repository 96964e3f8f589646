"""Making a campaign: a pool per topic, topics assigned to the three conditions, each condition's
pairs put in the order people walk them, and the pairs split among assessors.

* The pool is a label set's pairs (`qrels:NAME`) or every run's top K (`runs:K`); each pair keeps
  the LLM's grade as it is now (None when the LLM label set does not grade it).
* Topics go to conditions from a file of qids, or by a count drawn with the seed from the pool's
  topics no file named (manual first, then filtering, then post-editing), so the conditions are
  disjoint and random.
* Filtering and post-editing drop the pairs whose LLM grade is below `llm_relevant` (default 1):
  the LLM's "non-relevant". A pair the LLM does not grade is kept: nobody called it non-relevant.
* The walk goes topic by topic (topics in a random order); within a topic the pairs come in a random
  order, except under post-editing, where they come in groups of the LLM's grade from the highest
  (each group announced on screen), random within a group.
* With a recall sample, that many of the dropped pairs, drawn uniformly, are shown as manual pairs
  are (no LLM grade) and interleaved, by a seeded shuffle, with the pairs shown blind: a pair of a
  filtering topic among its own topic's pairs, any other among the manual and filtering pairs, never
  last (the sample once came last, where it was easy to spot). Their grades go to the label set
  NAME-recall, so that the campaign's own label set keeps a dropped pair unjudged (non-relevant).
* With assessors, each condition's shown pairs are split among them as an audit's sample is
  (`studio.services.audit.assignment.split_pairs`), a share `overlap` given to two.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from studio.domain.campaigns import (
    CONDITIONS,
    RECALL_SUFFIX,
    AssessorLoad,
    CampaignPlan,
    Condition,
    ConditionPlan,
    PairRole,
)
from studio.domain.errors import UsageError
from studio.domain.pools import PoolKind, parse_pool
from studio.formats.topic_lists import read_topic_list
from studio.services.audit.assignment import check_assessors, split_pairs
from studio.services.audit.timing import assessor_hours, seconds_per_decision
from studio.store import Connection, Database
from studio.store import audits as audit_store
from studio.store import campaigns as campaign_store
from studio.store import labels as label_store
from studio.store import pools as pool_store
from studio.store.campaigns import PoolRow

CAMPAIGN_KIND = "human"  # the campaign's label set holds people's grades
_COUNT = re.compile(r"[0-9]+")
_SIGNED = re.compile(r"[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?")  # a number, though not a count


@dataclass(frozen=True)
class CampaignSpec:
    """What `studio assess plan` asks for."""

    name: str
    llm: str
    pool: str
    topics: dict[Condition, str | None]  # a file of qids or a count, per condition (None: no topic)
    llm_relevant: float = 1.0
    assessors: tuple[str, ...] = ()
    overlap: float = 0.0
    seed: int = 0
    recall_sample: int = 0  # dropped pairs drawn to be graded blind


def pool_pairs(con: Connection, pool: str) -> list[tuple[str, str]]:
    """The pairs `pool` names (`qrels:NAME` or `runs:K`), by qid and docid."""
    found = parse_pool(pool)
    if found.kind is PoolKind.qrels:
        assert found.label_set is not None
        set_id = label_store.label_set_id(con, found.label_set)
        if set_id is None:
            raise UsageError(f"pool {pool!r}: no label set named {found.label_set!r} (see `studio list qrels`)")
        return pool_store.labelled_pairs(con, set_id)
    if found.kind is PoolKind.runs:
        assert found.depth is not None
        return pool_store.top_ranked_pairs(con, found.depth)
    raise UsageError(f"pool {pool!r}: a campaign's pool is qrels:NAME or runs:K")


def assign_topics(
    topics: list[str], asked: dict[Condition, str | None], rng: np.random.Generator
) -> dict[str, Condition]:
    """qid → condition: the topics files name, then counts drawn from the rest in condition order."""
    chosen: dict[str, Condition] = {}
    counts: dict[Condition, int] = {}
    known = set(topics)
    for condition in CONDITIONS:
        text = asked.get(condition)
        if text is None:
            continue
        if _COUNT.fullmatch(text) and not Path(text).is_file():
            counts[condition] = int(text)
            continue
        if _SIGNED.fullmatch(text.strip()) and not Path(text).is_file():
            raise UsageError(
                f"--{condition} {text}: a count of topics is a whole number of 0 or more (or give a file of qids)"
            )
        for qid in read_topic_list(Path(text)):
            if qid not in known:
                raise UsageError(f"--{condition} {text}: topic {qid!r} has no pair in the pool")
            if qid in chosen:
                raise UsageError(f"topic {qid!r} is given to {chosen[qid]} and to {condition}: conditions are disjoint")
            chosen[qid] = condition
    rest = [q for q in topics if q not in chosen]
    wanted = sum(counts.values())
    if wanted > len(rest):
        raise UsageError(f"the conditions ask for {wanted} drawn topics; the pool has {len(rest)} topics left")
    drawn = [rest[int(i)] for i in rng.permutation(len(rest))[:wanted]]
    for condition, count in counts.items():
        chosen.update(dict.fromkeys(drawn[:count], condition))
        drawn = drawn[count:]
    if not chosen:
        raise UsageError("a campaign needs topics: give --manual, --filtering or --post-editing a count or a file")
    return chosen


def walk_order(
    pairs: list[tuple[str, str]],
    llm: dict[tuple[str, str], float],
    conditions: dict[str, Condition],
    level: float,
    rng: np.random.Generator,
) -> list[PoolRow]:
    """Every pool pair of the campaign's topics with its LLM grade and role, in walk order."""
    by_topic: dict[str, list[str]] = {}
    for qid, docid in pairs:
        if qid in conditions:
            by_topic.setdefault(qid, []).append(docid)
    qids = sorted(by_topic)
    rows: list[PoolRow] = []
    for t in rng.permutation(len(qids)):
        qid = qids[int(t)]
        condition = conditions[qid]
        docids = [by_topic[qid][int(i)] for i in rng.permutation(len(by_topic[qid]))]
        if condition is Condition.post_editing:  # stable: random within a group, groups from the highest
            docids.sort(key=lambda d: -llm.get((qid, d), -np.inf))
        for docid in docids:
            grade = llm.get((qid, docid))
            dropped = condition.filters and grade is not None and grade < level
            role = PairRole.dropped if dropped else PairRole.shown
            rows.append((qid, docid, grade, str(role), len(rows), None))
    return rows


def draw_recall_sample(
    rows: list[PoolRow], conditions: dict[str, Condition], size: int, rng: np.random.Generator
) -> list[PoolRow]:
    """`size` of the dropped pairs drawn uniformly (π = size / dropped), graded blind as manual pairs
    are, each placed by `interleave_recall`: an assessor cannot tell them from the blind pairs around
    them, nor by where they come that the LLM had dropped them."""
    dropped = [i for i, row in enumerate(rows) if row[3] == PairRole.dropped]
    if size > len(dropped):
        raise UsageError(f"--recall-sample {size}: the conditions drop {len(dropped)} pairs")
    if not size:
        return rows
    chosen = [dropped[int(i)] for i in rng.choice(len(dropped), size, replace=False)]
    inclusion = size / len(dropped)
    taken = set(chosen)
    kept = [row for i, row in enumerate(rows) if i not in taken]
    drawn: list[PoolRow] = [
        (q, d, g, str(PairRole.recall), 0, inclusion) for q, d, g, _, _, _ in (rows[i] for i in chosen)
    ]
    walk = interleave_recall(kept, drawn, conditions, rng)
    return [(q, d, g, role, n, p) for n, (q, d, g, role, _, p) in enumerate(walk)]


def interleave_recall(
    kept: list[PoolRow], drawn: list[PoolRow], conditions: dict[str, Condition], rng: np.random.Generator
) -> list[PoolRow]:
    """The walk with each recall pair placed just before a shown pair drawn with `rng`: one of its own
    topic's when that topic is filtered blind (filtering), else one shown without the LLM's grade
    (manual or filtering), else any shown pair. Never at the end, and pairs of the same place keep
    the sample's random order."""
    shown = [i for i, row in enumerate(kept) if row[3] != PairRole.dropped]
    blind = [i for i in shown if not conditions[kept[i][0]].shows_llm] or shown or [len(kept)]
    by_topic: dict[str, list[int]] = {}
    for i in shown:
        if conditions[kept[i][0]] is Condition.filtering:
            by_topic.setdefault(kept[i][0], []).append(i)
    before: dict[int, list[PoolRow]] = {}
    for row in drawn:
        slots = by_topic.get(row[0]) or blind
        before.setdefault(slots[int(rng.integers(len(slots)))], []).append(row)
    walk: list[PoolRow] = []
    for i, row in enumerate(kept):
        walk.extend(before.get(i, ()))
        walk.append(row)
    walk.extend(before.get(len(kept), ()))  # only when nothing is shown at all
    return walk


def plan_campaign(db: Database, spec: CampaignSpec) -> CampaignPlan:
    """Draw the campaign, store it with its empty label set (named like it), and say what it holds."""
    con = db.cursor()
    if label_store.label_set_id(con, spec.llm) is None:
        raise UsageError(f"no label set named {spec.llm!r} (see `studio list qrels`)")
    if spec.assessors:
        check_assessors(list(spec.assessors), spec.overlap)
    elif spec.overlap:
        raise UsageError("--overlap shares pairs between assessors: name them with --assessors")
    pairs = pool_pairs(con, spec.pool)
    if not pairs:
        raise UsageError(f"pool {spec.pool!r} has no pair")
    rng = np.random.default_rng(spec.seed)
    conditions = assign_topics(sorted({q for q, _ in pairs}), spec.topics, rng)
    llm = {(q, d): g for q, d, g in audit_store.pool(con, spec.llm)}
    walk = walk_order(pairs, llm, conditions, spec.llm_relevant, rng)
    rows = draw_recall_sample(walk, conditions, spec.recall_sample, rng)
    assignments = _assignments(rows, conditions, spec, rng)
    with db.transaction() as tx:
        label_store.create_label_set(tx, spec.name, CAMPAIGN_KIND, f"campaign of {spec.llm}")
        if spec.recall_sample:
            label_store.create_label_set(
                tx, f"{spec.name}{RECALL_SUFFIX}", CAMPAIGN_KIND, f"recall sample of campaign {spec.name}"
            )
        campaign_id = campaign_store.create_campaign(
            tx,
            spec.name,
            spec.llm,
            spec.pool,
            llm_relevant=spec.llm_relevant,
            overlap=spec.overlap,
            seed=spec.seed,
        )
        campaign_store.add_topics(tx, campaign_id, {q: str(c) for q, c in sorted(conditions.items())})
        campaign_store.add_pairs(tx, campaign_id, rows)
        campaign_store.add_assignments(tx, campaign_id, assignments)
    return _planned(db, spec, conditions, rows, assignments)


def _assignments(
    rows: list[PoolRow], conditions: dict[str, Condition], spec: CampaignSpec, rng: np.random.Generator
) -> list[tuple[str, str, str]]:
    """Each condition's shown pairs split among the assessors (none: nobody is given pairs)."""
    if not spec.assessors:
        return []
    found: list[tuple[str, str, str]] = []
    for condition in CONDITIONS:
        shown = [(r[0], r[1]) for r in rows if r[3] == PairRole.shown and conditions[r[0]] is condition]
        if shown:
            given, _ = split_pairs(shown, list(spec.assessors), round(spec.overlap * len(shown)), rng)
            found.extend(given)
    recall = [(r[0], r[1]) for r in rows if r[3] == PairRole.recall]
    if recall:  # split apart: each assessor grades a random share of them, none twice
        given, _ = split_pairs(recall, list(spec.assessors), 0, rng)
        found.extend(given)
    return found


def _planned(
    db: Database,
    spec: CampaignSpec,
    conditions: dict[str, Condition],
    rows: list[PoolRow],
    assignments: list[tuple[str, str, str]],
) -> CampaignPlan:
    per_condition = []
    for condition in CONDITIONS:
        pool = [r for r in rows if conditions[r[0]] is condition]
        shown = sum(r[3] == PairRole.shown for r in pool)  # a recall pair is not the condition's
        per_condition.append(
            ConditionPlan(
                condition=str(condition),
                topics=sum(c is condition for c in conditions.values()),
                pool=len(pool),
                shown=shown,
                reduction=1 - shown / len(pool) if pool else None,
            )
        )
    shown_pairs = sum(c["shown"] for c in per_condition)
    seconds, _ = seconds_per_decision(db.cursor())
    decisions = len(assignments) if assignments else shown_pairs + spec.recall_sample
    counted = {(q, d): 0 for q, d, _ in assignments}
    for q, d, _ in assignments:
        counted[(q, d)] += 1
    loads = [
        AssessorLoad(
            assessor=name,
            condition=str(condition),
            pairs=sum(a == name and conditions[q] is condition for q, _, a in assignments),
            shared=sum(a == name and conditions[q] is condition and counted[(q, d)] > 1 for q, d, a in assignments),
        )
        for name in spec.assessors
        for condition in CONDITIONS
    ]
    return CampaignPlan(
        campaign=spec.name,
        llm=spec.llm,
        pool=spec.pool,
        llm_relevant=spec.llm_relevant,
        seed=spec.seed,
        overlap=spec.overlap,
        topics=len(conditions),
        pairs=len(rows),
        shown=shown_pairs,
        without_llm_grade=sum(r[2] is None for r in rows),
        recall_sample=spec.recall_sample,
        assessor_hours=assessor_hours(decisions, seconds),
        seconds_per_decision=seconds,
        conditions=per_condition,
        assessors=loads,
    )
