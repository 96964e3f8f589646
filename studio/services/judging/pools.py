"""The pairs a judge labels: the pool a configuration names."""

from __future__ import annotations

from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig
from studio.store import Database, pools
from studio.store import labels as label_store


def pool_pairs(db: Database, config: JudgeConfig) -> list[tuple[str, str]]:
    """The pairs a pool names: qrels:NAME, runs:K, holes:K (top-K no reference label covers), responses."""
    if config.limit is not None and config.limit < 1:
        raise UsageError(f"limit {config.limit}: give at least 1 pair (or no limit)")
    con = db.cursor()
    kind, _, argument = config.pool.partition(":")
    if kind == "qrels":
        set_id = label_store.label_set_id(con, argument or config.ref)
        if set_id is None:
            raise UsageError(f"no label set named {argument or config.ref!r} for the pool")
        pairs = pools.labelled_pairs(con, set_id)
    elif kind in ("runs", "holes"):
        try:
            depth = int(argument)
        except ValueError:
            raise UsageError(f"pool {config.pool!r}: give a depth, e.g. {kind}:10") from None
        if depth < 1:
            raise UsageError(f"pool {config.pool!r}: the depth is how many of each run's top documents, at least 1")
        pairs = pools.top_ranked_pairs(con, depth)
        if kind == "holes":
            ref_id = label_store.label_set_id(con, config.ref)
            if ref_id is None:
                raise UsageError(f"no reference label set {config.ref!r} to find holes in")
            covered = set(pools.labelled_pairs(con, ref_id))
            pairs = [p for p in pairs if p not in covered]
    elif kind == "responses":
        pairs = pools.response_pairs(con)
    else:
        raise UsageError(f"unknown pool {config.pool!r} (qrels:NAME, runs:K, holes:K, responses)")
    if config.topics:
        wanted = set(config.topics)
        pairs = [p for p in pairs if p[0] in wanted]
    return pairs[: config.limit] if config.limit is not None else pairs
