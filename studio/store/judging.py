"""The call cache, judge runs and their judgments."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

from studio.domain.rows import FailureRow, JudgeRunRow
from studio.store.database import Connection, records, typed_records
from studio.store.processes import run_state, this_process

CALL_COLUMNS = ("key", "output", "error", "label_probs", "prompt_tokens", "completion_tokens", "seconds", "cost")


def cached_calls(con: Connection, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The stored calls among `keys` (one query, however many keys)."""
    if not keys:
        return {}
    rows = con.execute(
        f"SELECT {', '.join(CALL_COLUMNS)} FROM calls WHERE list_contains(?, key)", [list(set(keys))]
    ).fetchall()
    found = {}
    for row in rows:
        record = dict(zip(CALL_COLUMNS, row, strict=True))
        record["label_probs"] = json.loads(record["label_probs"]) if record["label_probs"] else None
        found[record["key"]] = record
    return found


def store_call(
    con: Connection,
    key: str,
    backend: str,
    model: str,
    params: dict[str, Any],
    messages: list[dict[str, str]],
    *,
    output: str | None,
    error: str | None,
    label_probs: dict[str, float] | None,
    prompt_tokens: int,
    completion_tokens: int,
    seconds: float,
    cost: float | None,
) -> None:
    con.execute(
        """
        INSERT OR REPLACE INTO calls (key, backend, model, params, messages, output, error, label_probs,
                                      prompt_tokens, completion_tokens, seconds, cost)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        [
            key,
            backend,
            model,
            json.dumps(params, sort_keys=True),
            json.dumps(messages, ensure_ascii=False),
            output,
            error,
            json.dumps(label_probs) if label_probs is not None else None,
            prompt_tokens,
            completion_tokens,
            seconds,
            cost,
        ],
    )


def create_judge_run(
    con: Connection,
    label_set: int,
    *,
    method: str,
    backend: str,
    model: str,
    prompt_name: str,
    prompt_hash: str,
    params: dict[str, Any],
    pool: str,
) -> int:
    """A new, unfinished judge run owned by this process (see `studio.store.processes`)."""
    owner = this_process()
    row = con.execute(
        """
        INSERT INTO judge_runs (judge_run_id, label_set_id, method, backend, model, prompt_name,
                                prompt_hash, params, pool, owner_pid, owner_host, owner_started)
        VALUES (nextval('judge_run_ids'), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING judge_run_id
        """,
        [
            label_set,
            method,
            backend,
            model,
            prompt_name,
            prompt_hash,
            json.dumps(params, sort_keys=True),
            pool,
            owner.pid,
            owner.host,
            owner.started,
        ],
    ).fetchone()
    assert row is not None
    run = int(row[0])
    _created_here().append(run)
    return run


# The judge runs each thread of this process created, in order: a judge given up before its end
# (cancelled, or stopped by an error) lets go of exactly the runs it created (`stop_judge_runs`).
_threads = threading.local()


def _created_here() -> list[int]:
    runs: list[int] | None = getattr(_threads, "runs", None)
    if runs is None:
        runs = _threads.runs = []
    return runs


def runs_created_here() -> list[int]:
    """The judge runs the calling thread created so far, oldest first."""
    return list(_created_here())


def stop_judge_runs(con: Connection, runs: Sequence[int]) -> None:
    """Mark the unfinished runs among `runs` as given up: they read as interrupted from now on,
    although their process lives on (a cancel in the studio's window)."""
    if runs:
        con.execute(
            "UPDATE judge_runs SET stopped_at = current_timestamp"
            " WHERE list_contains(?, judge_run_id) AND finished_at IS NULL AND stopped_at IS NULL",
            [list(runs)],
        )


def newest_judge_run(con: Connection, label_set: int) -> tuple[int, str, str] | None:
    """(run id, method, params JSON) of the label set's newest judge run, or None."""
    row = con.execute(
        "SELECT judge_run_id, method, params FROM judge_runs WHERE label_set_id = ? ORDER BY judge_run_id DESC LIMIT 1",
        [label_set],
    ).fetchone()
    return None if row is None else (int(row[0]), str(row[1]), str(row[2]))


def finish_judge_run(con: Connection, run: int, *, pairs: int, calls: int, cache_hits: int, failures: int) -> None:
    con.execute(
        "UPDATE judge_runs SET finished_at = current_timestamp, pairs = ?, calls = ?, cache_hits = ?,"
        " failures = ? WHERE judge_run_id = ?",
        [pairs, calls, cache_hits, failures, run],
    )


def recount_failures(con: Connection, run: int) -> None:
    """A finished run's failures counted again from its judgments (after they were parsed anew)."""
    con.execute(
        "UPDATE judge_runs SET failures = (SELECT count(*) FROM judgments WHERE judge_run_id = ? AND label IS NULL)"
        " WHERE judge_run_id = ? AND finished_at IS NOT NULL",
        [run, run],
    )


def add_judgment(
    con: Connection,
    run: int,
    qid: str,
    docid: str,
    docid_b: str | None,
    call_key: str,
    *,
    label: float | None,
    parse_error: str | None,
    expected: float | None,
    confidence: float | None,
    item_id: str | None = None,
    item_hash: str | None = None,
    sample: int | None = None,
) -> None:
    con.execute(
        "INSERT INTO judgments (judge_run_id, qid, docid, docid_b, call_key, label, parse_error, expected,"
        " confidence, item_id, item_hash, sample) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [run, qid, docid, docid_b, call_key, label, parse_error, expected, confidence, item_id, item_hash, sample],
    )


def graded_cells(con: Connection, run: int) -> dict[tuple[str, str, str], str | None]:
    """{(qid, docid, item_id): md5 of the item text graded} of a rubric judge run, failures included."""
    return {
        (q, d, i): h
        for q, d, i, h in con.execute(
            "SELECT qid, docid, item_id, item_hash FROM judgments WHERE judge_run_id = ? AND item_id IS NOT NULL", [run]
        ).fetchall()
    }


def copy_judgments(con: Connection, from_run: int, to_run: int, cells: Sequence[tuple[str, str, str]]) -> int:
    """Carry the item judgments of `cells` from one run into another (their grades still hold)."""
    if not cells:
        return 0
    con.execute(
        """
        INSERT INTO judgments (judge_run_id, qid, docid, docid_b, call_key, label, parse_error, expected,
                               confidence, item_id, answer_key, item_hash)
        SELECT ?, g.qid, g.docid, g.docid_b, g.call_key, g.label, g.parse_error, g.expected, g.confidence,
               g.item_id, g.answer_key, g.item_hash
        FROM judgments g
        JOIN (SELECT unnest(?::VARCHAR[]) AS qid, unnest(?::VARCHAR[]) AS docid, unnest(?::VARCHAR[]) AS item_id) k
          ON g.qid = k.qid AND g.docid = k.docid AND g.item_id = k.item_id
        WHERE g.judge_run_id = ?
        """,
        [to_run, [c[0] for c in cells], [c[1] for c in cells], [c[2] for c in cells], from_run],
    )
    return len(cells)


def item_grades(con: Connection, run: int) -> dict[str, dict[str, dict[str, float]]]:
    """{qid: {docid: {item_id: grade}}} of a rubric judge run (failures left out)."""
    grades: dict[str, dict[str, dict[str, float]]] = {}
    for qid, docid, item_id, label in con.execute(
        "SELECT qid, docid, item_id, label FROM judgments"
        " WHERE judge_run_id = ? AND item_id IS NOT NULL AND label IS NOT NULL",
        [run],
    ).fetchall():
        grades.setdefault(qid, {}).setdefault(docid, {})[item_id] = label
    return grades


def list_judge_runs(con: Connection) -> list[JudgeRunRow]:
    """Every judge run with its state (finished, running, interrupted, running? elsewhere) and
    the process that ran it as pid@host."""
    rows = con.execute(
        """
        SELECT j.judge_run_id, s.name, j.method, j.backend, j.model, j.prompt_name,
               substr(j.prompt_hash, 1, 12), j.pool, j.pairs, j.calls, j.cache_hits, j.failures,
               strftime(j.started_at, '%Y-%m-%d %H:%M:%S'), strftime(j.finished_at, '%Y-%m-%d %H:%M:%S'),
               j.finished_at IS NOT NULL, j.stopped_at IS NOT NULL, j.owner_pid, j.owner_host, j.owner_started
        FROM judge_runs j JOIN label_sets s USING (label_set_id)
        ORDER BY j.judge_run_id
        """
    ).fetchall()
    found: list[JudgeRunRow] = []
    for (
        run,
        label_set,
        method,
        backend,
        model,
        prompt,
        prompt_hash,
        pool,
        pairs,
        calls,
        hits,
        failures,
        started,
        finished,
        is_finished,
        is_stopped,
        pid,
        host,
        since,
    ) in rows:
        found.append(
            JudgeRunRow(
                run=run,
                label_set=label_set,
                method=method,
                backend=backend,
                model=model,
                prompt=prompt,
                prompt_hash=prompt_hash,
                pool=pool,
                pairs=pairs,
                calls=calls,
                cache_hits=hits,
                failures=failures,
                started=started,
                finished=finished,
                state=run_state(is_finished, is_stopped, pid, host, since).value,
                owner=None if pid is None else f"{pid}@{host}",
            )
        )
    return found


def failures(con: Connection, label_set: int, limit: int = 50) -> list[FailureRow]:
    """Recorded failures of a label set's newest judge run, with the raw output (none when
    no call was made, e.g. the document's text is missing)."""
    cursor = con.execute(
        """
        SELECT g.qid, g.docid, g.docid_b, g.parse_error AS reason, c.output, c.error AS call_error
        FROM judgments g LEFT JOIN calls c ON c.key = g.call_key
        WHERE g.judge_run_id = (SELECT max(judge_run_id) FROM judge_runs WHERE label_set_id = ?)
          AND g.label IS NULL
        ORDER BY g.qid, g.docid LIMIT ?
        """,
        [label_set, limit],
    )
    return typed_records(cursor, FailureRow)


def judge_run(con: Connection, run: int) -> dict[str, Any]:
    """One judge run's method, backend, model, prompt and parameters (JSON decoded)."""
    cursor = con.execute(
        "SELECT judge_run_id AS run, method, backend, model, prompt_name, prompt_hash, params, pool"
        " FROM judge_runs WHERE judge_run_id = ?",
        [run],
    )
    found = records(cursor)[0]
    found["params"] = json.loads(found["params"])
    return found


def item_judgments(con: Connection, run: int) -> list[tuple[str, str, str, float | None, str | None, str | None]]:
    """(qid, docid, item_id, label, parse_error, raw output) of every item judgment of a run."""
    return [
        tuple(row)
        for row in con.execute(
            "SELECT g.qid, g.docid, g.item_id, g.label, g.parse_error, c.output FROM judgments g"
            " LEFT JOIN calls c ON c.key = g.call_key WHERE g.judge_run_id = ? AND g.item_id IS NOT NULL"
            " ORDER BY g.qid, g.docid, g.item_id",
            [run],
        ).fetchall()
    ]


def label_sets_graded_with(con: Connection, bank: str) -> list[str]:
    """Label sets whose newest judge run graded with test bank `bank`."""
    rows = con.execute(
        """
        SELECT s.name, r.params FROM judge_runs r JOIN label_sets s USING (label_set_id)
        WHERE r.judge_run_id IN (SELECT max(judge_run_id) FROM judge_runs GROUP BY label_set_id)
        ORDER BY s.name
        """
    ).fetchall()
    return [str(name) for name, params in rows if (json.loads(params).get("config") or {}).get("bank") == bank]
