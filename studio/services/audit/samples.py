"""Drawing an audit sample from an LLM label set's pool, with each unit's inclusion probability.

Designs: whole `topics` (every pair of a drawn topic is graded; π = n/N topics), `pairs`
drawn uniformly (π = n/N pairs), and `stratified` pairs (by the LLM's grade, its judge's
confidence, or the topic), n_h per stratum by Neyman allocation (n_h ∝ N_h·S_h, S_h the standard
deviation of gold − LLM in a pilot: the pairs earlier audits of the label set graded, or a human
label set named as pilot) or, without a pilot, proportional to N_h; π = n_h/N_h. Two more set π
from an LLM-only signal (`adaptive.py`): `pairs-uncertainty` (π following the label's predicted
error) and `topics-neyman` (topics stratified by their LLM-relevant count). The sample is
walked in a random order drawn with it, stored as each unit's position, so that an auditor who
stops early still leaves a random subsample behind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from studio.domain.audit_results import AuditPlan, PilotUsed, StrataRow, StratumDraw
from studio.domain.errors import UsageError
from studio.domain.specs import AuditDrawSpec
from studio.metrics.sampling import allocate, neyman_weights
from studio.services.audit import adaptive
from studio.services.audit.pool import PoolPair as PoolPair
from studio.services.audit.pool import pilot_differences as pilot_differences
from studio.services.audit.pool import pool_pairs as pool_pairs
from studio.services.audit.pool import stratum_of as stratum_of
from studio.services.audit.timing import time_summary
from studio.services.evaluation.engine import EvaluationEngine
from studio.store import Connection, Database, catalog
from studio.store import audits as audit_store
from studio.store import labels as label_store

DESIGNS = ("topics", "pairs", "stratified", "pairs-uncertainty", "topics-neyman")
STRATA = ("grade", "confidence", "topic")
GOLD_KIND = "human"

Probabilities = dict[tuple[str, str] | str, float]


def stratum_spreads(
    pairs: Sequence[PoolPair], differences: dict[tuple[str, str], float], names: Sequence[str]
) -> list[float | None]:
    """S_h per stratum from the pilot; a stratum with fewer than two pilot pairs takes the pilot's
    overall S (None when the pilot has fewer than two pairs in all)."""
    by_stratum: dict[str, list[float]] = {}
    for pair in pairs:
        found = differences.get((pair.qid, pair.docid))
        if found is not None and pair.stratum is not None:
            by_stratum.setdefault(pair.stratum, []).append(found)
    values = [v for found in by_stratum.values() for v in found]
    overall = float(np.std(values, ddof=1)) if len(values) >= 2 else None
    return [float(np.std(by_stratum[h], ddof=1)) if len(by_stratum.get(h, [])) >= 2 else overall for h in names]


def plan_audit(db: Database, spec: AuditDrawSpec) -> AuditPlan:
    """Draw the sample, store it with the empty gold label set `spec.name`, and say what was drawn
    (its pairs in assessor-hours too)."""
    label_set, name, design, strata = spec.qrels, spec.name, spec.design, spec.strata
    check_plan(db.cursor(), name, budget=spec.budget, design=design, strata=strata)
    con = db.cursor()
    pairs = pool_pairs(con, label_set, strata)
    rng = np.random.default_rng(spec.seed)
    draw = draw_sample(con, label_set, pairs, design=design, budget=spec.budget, rng=rng, pilot=spec.pilot)
    # The walking order is drawn after the sample, from the same generator: one seed fixes both.
    order = rng.permutation(len(draw.units))
    placed = [(q, d, h, p, int(order[i])) for i, (q, d, h, p) in enumerate(draw.units)]
    with db.transaction() as tx:
        label_store.create_label_set(tx, name, GOLD_KIND, f"audit of {label_set}")
        audit_id = audit_store.create_audit(
            tx,
            name,
            label_set,
            design,
            strata=strata,
            allocation=draw.allocation,
            pilot=draw.pilot.get("pilot"),
            budget=len(draw.units),
            population=draw.population,
            seed=spec.seed,
        )
        audit_store.add_units(tx, audit_id, placed)
    walked = len(audit_pairs(db.cursor(), name))
    return {
        "audit": name,
        "qrels": label_set,
        "design": design,
        "strata": strata,
        "seed": spec.seed,
        **draw.pilot,
        "allocation": draw.allocation,
        "units": len(draw.units),
        "population": draw.population,
        "pairs": walked,
        "strata_rows": draw.rows,
        **time_summary(db.cursor(), walked),
    }


def check_plan(con: Connection, name: str, *, budget: int, design: str, strata: str | None) -> None:
    """A usage error for a design, strata, budget or name an audit cannot take."""
    if design not in DESIGNS:
        raise UsageError(f"design {design!r}: choose one of {', '.join(DESIGNS)}")
    if design == "stratified" and strata not in STRATA:
        raise UsageError(f"a stratified audit needs --strata {'|'.join(STRATA)}")
    if design != "stratified" and strata is not None:
        raise UsageError("--strata goes with --design stratified")
    if budget < 1:
        raise UsageError("--budget must be at least 1")
    if label_store.label_set_id(con, name) is not None or audit_store.audit(con, name) is not None:
        raise UsageError(f"the name {name!r} is taken: the audit's gold labels become a label set of that name")


@dataclass(frozen=True)
class Draw:
    """A drawn sample before it is stored."""

    units: list[adaptive.DrawnUnit]  # (qid, docid or None for a whole topic, stratum, π) in drawing order
    population: int  # topics or pairs the sample was drawn from
    allocation: str | None = None  # how the budget was spread over strata or π set (None: uniform)
    rows: list[StrataRow] = field(default_factory=list)  # per stratum: its size, spread and draw
    pilot: PilotUsed = field(default_factory=lambda: PilotUsed())  # a stratified draw's pilot


def draw_sample(
    con: Connection,
    label_set: str,
    pairs: list[PoolPair],
    *,
    design: str,
    budget: int,
    rng: np.random.Generator,
    pilot: str | None,
) -> Draw:
    """The design's sample of the pool: at most `budget` topics or pairs."""
    if design == "topics":
        return _uniform_topics(pairs, budget, rng)
    if design == "pairs":
        return _uniform_pairs(pairs, budget, rng)
    if design == "stratified":
        return _stratified(con, label_set, pairs, budget, rng, pilot)
    return _adaptive(con, label_set, pairs, design, budget, rng, pilot)


def _uniform_topics(pairs: list[PoolPair], budget: int, rng: np.random.Generator) -> Draw:
    topics = sorted({p.qid for p in pairs})
    drawn = min(budget, len(topics))
    chosen = [topics[i] for i in sorted(rng.choice(len(topics), drawn, replace=False))]
    return Draw([(q, None, None, drawn / len(topics)) for q in chosen], len(topics))


def _uniform_pairs(pairs: list[PoolPair], budget: int, rng: np.random.Generator) -> Draw:
    drawn = min(budget, len(pairs))
    units: list[adaptive.DrawnUnit] = [
        (pairs[i].qid, pairs[i].docid, None, drawn / len(pairs))
        for i in sorted(rng.choice(len(pairs), drawn, replace=False))
    ]
    return Draw(units, len(pairs))


def _adaptive(
    con: Connection,
    label_set: str,
    pairs: list[PoolPair],
    design: str,
    budget: int,
    rng: np.random.Generator,
    pilot: str | None,
) -> Draw:
    if design == adaptive.TOPICS_NEYMAN:
        strata = adaptive.topic_strata(con, label_set, pilot, budget)
        units, topic_rows = adaptive.draw_topics_neyman(strata, budget, rng)
        return Draw(units, len(strata.topics), f"neyman from the {strata.spread_source}", list(topic_rows))
    scores = adaptive.pair_error_scores(con, label_set, pairs, pilot)
    units, summary = adaptive.draw_pairs_uncertainty(pairs, scores, budget, rng)
    return Draw(units, len(pairs), f"π from the {scores.source}", [summary])


def _stratified(
    con: Connection, label_set: str, pairs: list[PoolPair], budget: int, rng: np.random.Generator, pilot: str | None
) -> Draw:
    names = sorted({p.stratum for p in pairs if p.stratum is not None})
    members = {h: [p for p in pairs if p.stratum == h] for h in names}
    sizes = [len(members[h]) for h in names]
    pilot_name, differences = pilot_differences(con, label_set, pilot)
    spreads = stratum_spreads(pairs, differences, names) if differences else [None] * len(names)
    if any(s is None for s in spreads) or not any(spreads):
        allocation, weights = "proportional", [float(n) for n in sizes]
    else:
        allocation, weights = "neyman", neyman_weights(sizes, [float(s or 0.0) for s in spreads])
    counts = allocate(sizes, weights, budget)
    units: list[adaptive.DrawnUnit] = []
    rows: list[StrataRow] = []
    for h, size, count, spread in zip(names, sizes, counts, spreads, strict=True):
        chosen = sorted(rng.choice(size, count, replace=False)) if count else []
        units += [(members[h][i].qid, members[h][i].docid, h, count / size) for i in chosen]
        rows.append(StratumDraw(stratum=h, pairs=size, sd=spread, drawn=count, inclusion=count / size))
    return Draw(units, len(pairs), allocation, rows, PilotUsed(pilot=pilot_name, pilot_pairs=len(differences)))


def audit_pairs(con: Connection, audit: str) -> list[tuple[str, str, str | None]]:
    """The audit's pairs (qid, docid, stratum) in the order it is walked in: its units by position,
    a whole topic's pairs in an order drawn from the audit's seed and the unit's position."""
    found = audit_store.audit(con, audit)
    if found is None:
        raise UsageError(f"no audit named {audit!r} (see `studio audit list`)")
    units = audit_store.units(con, found["audit_id"])
    by_topic: dict[str, list[str]] = {}
    if any(u["docid"] is None for u in units):
        for qid, docid, _ in audit_store.pool(con, found["label_set"]):
            by_topic.setdefault(qid, []).append(docid)
    walked: list[tuple[str, str, str | None]] = []
    for unit in units:
        if unit["docid"] is not None:
            walked.append((unit["qid"], unit["docid"], unit["stratum"]))
            continue
        docids = by_topic.get(unit["qid"], [])
        order = np.random.default_rng([found["seed"], unit["position"]]).permutation(len(docids))
        walked += [(unit["qid"], docids[i], unit["stratum"]) for i in order]
    return walked


def audit_design(db_or_engine: Database | EvaluationEngine, gold_name: str) -> tuple[str, Probabilities]:
    """The sampling design behind a gold label set and each unit's inclusion probability (keyed by
    (qid, docid) for pairs, by qid for whole topics). A gold label set that is not an audit's (an
    imported human qrels file) holds whole topics: π = its topics / the project's topics."""
    db = db_or_engine.db if isinstance(db_or_engine, EvaluationEngine) else db_or_engine
    con = db.cursor()
    if audit_store.audit(con, gold_name) is not None:
        return audit_store.inclusion_probabilities(con, gold_name)
    if label_store.label_set_id(con, gold_name) is None:
        raise UsageError(f"no label set named {gold_name!r} (see `studio list qrels`)")
    topics = sorted({q for q, _, _ in audit_store.pool(con, gold_name)})
    population = max(catalog.topic_count(con), len(topics))
    return "topics", {q: len(topics) / population for q in topics} if population else {}
