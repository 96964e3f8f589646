"""The pairs a judge labels: the pool a configuration names."""

from __future__ import annotations

from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig
from studio.domain.pools import PoolKind, parse_pool
from studio.store import Database, pools
from studio.store import labels as label_store


def pool_pairs(db: Database, config: JudgeConfig) -> list[tuple[str, str]]:
    """The pairs a pool names: qrels:NAME, runs:K, holes:K (top-K no reference label covers), responses."""
    if config.limit is not None and config.limit < 1:
        raise UsageError(f"limit {config.limit}: give at least 1 pair (or no limit)")
    con = db.cursor()
    pool = parse_pool(config.pool)
    if pool.kind is PoolKind.qrels:
        assert pool.label_set is not None
        set_id = label_store.label_set_id(con, pool.label_set)
        if set_id is None:
            raise UsageError(f"no label set named {pool.label_set!r} for the pool")
        pairs = pools.labelled_pairs(con, set_id)
    elif pool.kind is PoolKind.responses:
        pairs = pools.response_pairs(con)
    else:
        assert pool.depth is not None
        pairs = pools.top_ranked_pairs(con, pool.depth)
        if pool.kind is PoolKind.holes:
            ref_id = label_store.label_set_id(con, config.ref)
            if ref_id is None:
                raise UsageError(f"no reference label set {config.ref!r} to find holes in")
            covered = set(pools.labelled_pairs(con, ref_id))
            pairs = [p for p in pairs if p not in covered]
    if config.topics:
        wanted = set(config.topics)
        pairs = [p for p in pairs if p[0] in wanted]
    return pairs[: config.limit] if config.limit is not None else pairs
