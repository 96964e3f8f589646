"""Reading a judge run's stored outputs again with the current parser: no model call."""

from __future__ import annotations

from studio.domain.judge_results import ReparseCounts
from studio.judges.methods import get_method
from studio.judges.parsing import Parsed
from studio.services.judging.config import newest_run
from studio.services.judging.label_writers import write_preference_labels
from studio.store import Database, new_batch
from studio.store import judge_outputs as output_store
from studio.store import judging as judge_store
from studio.store import labels as label_store


def reparse(db: Database, label_set: str) -> ReparseCounts:
    """Read the label set's newest judge run again from the stored outputs, with the current
    parser: no model call. Changed labels become new label events, and a finished run's count of
    failures becomes its judgments without a label."""
    con = db.cursor()
    run, method_name, _ = newest_run(con, label_set)
    set_id = label_store.label_set_id(con, label_set)
    assert set_id is not None  # newest_run found its judge run
    method = get_method(method_name)
    rows = output_store.stored_outputs(con, run)
    counts = ReparseCounts(judgments=len(rows), changed=0, failures=0)
    with db.transaction() as tx:
        batch = new_batch(tx, "reparse", f"{label_set} run {run}")
        for rowid, qid, docid, docid_b, old, output, error in rows:
            parsed = method.parse(output) if output is not None else Parsed(None, f"call failed: {error}")
            if parsed.label is None:
                counts["failures"] += 1
            if parsed.label == old:
                continue
            counts["changed"] += 1
            output_store.relabel(tx, rowid, parsed.label, parsed.error)
            if docid_b is None and parsed.label is not None:
                label_store.append_label_event(
                    tx,
                    set_id,
                    qid,
                    docid,
                    parsed.label,
                    origin="judge",
                    source=f"reparse of judge run {run}",
                    batch_id=batch,
                )
        if counts["changed"]:
            judge_store.recount_failures(tx, run)
    if method.pairwise and counts["changed"]:
        pairs = sorted({(q, d) for _, q, d, _, _, _, _ in rows} | {(q, b) for _, q, _, b, _, _, _ in rows if b})
        write_preference_labels(db, run, set_id, pairs, batch, f"reparse of judge run {run}")
    return counts
