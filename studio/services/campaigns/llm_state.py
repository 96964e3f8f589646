"""Which state of its LLM label set a campaign's report reads.

A campaign keeps its pool's LLM grades as they were when it was planned, and (from schema 26) the
newest event of the LLM set then. When the set changed since — a re-import, an edit, a judge run
again — a report that took its confusion and anchoring from the kept grades and its τ from today's
set would mix two states (τ once moved from 0.47 to −0.60 that way, unannounced). So the report
reads one state: by default the grades the campaign kept (τ from a leaderboard of them, kept in the
engine under its own name), or with `live` the set as it is today for τ and the confusion; either
way it says what changed. The anchoring effect always reads the grades the assessors were shown.
"""

from __future__ import annotations

from studio.domain.campaign_report import LlmState
from studio.domain.campaigns import CampaignRecord, PoolPair
from studio.domain.errors import UsageError
from studio.metrics.evaluator import Evaluator
from studio.services.evaluation.engine import EvaluationEngine
from studio.store import audits as audit_store
from studio.store import campaigns as campaign_store
from studio.store import labels as label_store

Kept = dict[tuple[str, str], float | None]


def llm_state(engine: EvaluationEngine, record: CampaignRecord, kept: Kept, *, live: bool) -> tuple[LlmState, str]:
    """What changed in the campaign's LLM set since planning, and the name of the evaluator the
    report's τ reads: the set itself, or (changed, not `live`) a leaderboard of the kept grades."""
    con = engine.db.cursor()
    llm, name = record["llm"], record["name"]
    exists = label_store.label_set_id(con, llm) is not None
    if live and not exists:
        raise UsageError(f"no label set named {llm!r} today: without --live the report reads the grades {name} kept")
    today = {(q, d): g for q, d, g in audit_store.pool(con, llm)} if exists else {}
    differing = sum(today.get(pair) != grade for pair, grade in kept.items())
    mark = campaign_store.llm_event(con, record["campaign_id"])
    written = campaign_store.llm_pairs_changed_since(con, llm, mark) if mark is not None and exists else None
    changed = not exists or differing > 0 or bool(written)
    state = LlmState(
        grades="today" if live else "planned",
        changed=changed,
        pairs_written=written,
        pool_pairs_differing=differing,
        note=None,
    )
    if not changed:
        return state, llm
    since = f"{written:,} of its pairs written since, " if written else ""
    what = (
        f"{llm} changed since campaign {name} was planned"
        f" ({since}{differing:,} of the {len(kept):,} pool pairs grade differently now)"
        if exists
        else f"{llm} is gone since campaign {name} was planned"
    )
    if live:
        state["note"] = (
            f"{what}: τ and the confusion read {llm} as it is today (--live); the anchoring effect reads the"
            " grades the assessors were shown"
        )
        return state, llm
    state["note"] = f"{what}: every figure reads the grades the campaign kept; --live reads today's {llm}"
    planned = f"{llm} (as planned for {name})"
    engine.remember(planned, Evaluator(engine.rankings(), _labels(kept)))
    return state, planned


def _labels(kept: Kept) -> dict[str, dict[str, float]]:
    labels: dict[str, dict[str, float]] = {}
    for (qid, docid), grade in kept.items():
        if grade is not None:
            labels.setdefault(qid, {})[docid] = grade
    return labels


def today_grades(engine: EvaluationEngine, record: CampaignRecord, pool: list[PoolPair]) -> Kept:
    """The LLM set's grade today of each pool pair (None: it grades the pair no more)."""
    today = {(q, d): g for q, d, g in audit_store.pool(engine.db.cursor(), record["llm"])}
    return {(r.qid, r.docid): today.get((r.qid, r.docid)) for r in pool}
