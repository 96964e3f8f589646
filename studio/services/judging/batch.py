"""A judge's pending requests as an OpenAI Batch file, and the Batch output back into the cache.

A 100k-pair job can run on a GPU cluster or through the (cheaper, slower) Batch API while the
audit stays on the laptop (docs/design.md#7-scale-beyond-one-laptop). Both directions compute
the call keys exactly as `run_judge` does — same pool, same units, same backend parameters — and the custom_id of every
line *is* the call key, so after an import a `studio judge` with the same options finds every
answer in the cache and makes no call.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from studio.domain.errors import InputError, UsageError
from studio.domain.judge_results import BatchImportCounts
from studio.domain.judging import JudgeConfig
from studio.judges.backend import ChatRequest, ChatResult, call_key
from studio.judges.methods import get_method
from studio.judges.openai_backend import CallError, OpenAIBackend
from studio.services.exports.delivery import deliver
from studio.services.judging.backends import make_backend
from studio.services.judging.pools import pool_pairs
from studio.services.judging.units import build_units
from studio.store import Database
from studio.store import judging as judge_store

BATCH_URL = "/v1/chat/completions"


def _requests(db: Database, config: JudgeConfig) -> tuple[OpenAIBackend, dict[str, ChatRequest]]:
    """The backend and every distinct request of the judge config, by call key (as run_judge)."""
    if config.backend != "openai":
        raise UsageError(f"Batch files are for the openai backend, not {config.backend!r}")
    method = get_method(config.method, config.prompt)
    pairs = pool_pairs(db, config)
    backend = make_backend(db, config)
    assert isinstance(backend, OpenAIBackend)
    params = backend.params()
    units, _missing = build_units(db, method, pairs, config.seed)
    found: dict[str, ChatRequest] = {}
    for unit in units:
        found.setdefault(call_key(backend.name, backend.model, params, unit.request), unit.request)
    return backend, found


def export_batch(db: Database, config: JudgeConfig, path: Path) -> int:
    """Write one Batch line per request the call cache holds no answer for (recorded failures
    are asked again); the number written. Makes no call.

    The OpenAI Batch API takes at most 50,000 lines per file: split bigger jobs with --limit
    or --topic (the cache makes overlapping exports harmless)."""
    backend, requests = _requests(db, config)
    cached = judge_store.cached_calls(db.cursor(), list(requests))
    pending = [key for key in requests if key not in cached or cached[key]["output"] is None]
    lines = [
        json.dumps(
            {"custom_id": key, "method": "POST", "url": BATCH_URL, "body": backend.body(requests[key])},
            ensure_ascii=False,
        )
        for key in pending
    ]
    # Written as every export is (whole or not at all; a FIFO or a device in place), except that
    # `-` stays a file name: the command prints its count on stdout, which would join the lines.
    try:
        deliver("".join(line + "\n" for line in lines), os.path.abspath(path))
    finally:
        backend.close()
    return len(lines)


def _read_output(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The lines of a Batch output file; a malformed one refuses the file whole."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(str(path), None, f"cannot read the batch output: {error}") from error
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as error:
            raise InputError(str(path), number, f"not JSON: {error}") from error
        if not isinstance(record, dict) or not isinstance(record.get("custom_id"), str):
            raise InputError(str(path), number, "no custom_id: not an OpenAI Batch output line")
        records.append((number, record))
    return records


def _outcome(backend: OpenAIBackend, record: dict[str, Any], request: ChatRequest) -> ChatResult:
    """A Batch output line as a call result: the answer, or the failure with its reason."""
    error = record.get("error")
    if error:
        detail = error.get("message", error) if isinstance(error, dict) else error
        return ChatResult(None, error=backend.redact(f"batch error: {detail}"))
    found = record.get("response")
    response: dict[str, Any] = found if isinstance(found, dict) else {}
    status, body = response.get("status_code"), response.get("body")
    if status != 200:
        detail = body.get("error", body) if isinstance(body, dict) else body
        if isinstance(detail, dict):
            detail = detail.get("message", detail)
        return ChatResult(None, error=backend.redact(f"HTTP {status}: {detail}"))
    try:
        return backend.result_from_body(body, request)
    except CallError as failure:
        return ChatResult(None, error=backend.redact(str(failure)))


def import_batch(db: Database, config: JudgeConfig, path: Path) -> BatchImportCounts:
    """Store every line of a Batch output file in the call cache under its custom_id (one
    transaction). Lines of other jobs are counted as `unknown`; an answer already cached is
    never replaced by a failure."""
    records = _read_output(path)
    backend, requests = _requests(db, config)
    backend.close()
    params = backend.params()
    cached = judge_store.cached_calls(db.cursor(), [r["custom_id"] for _, r in records])
    counts = BatchImportCounts(lines=len(records), answers=0, failures=0, unknown=0, already_cached=0)
    with db.transaction() as tx:
        for _number, record in records:
            key = record["custom_id"]
            request = requests.get(key)
            if request is None:
                counts["unknown"] += 1
                continue
            result = _outcome(backend, record, request)
            if result.text is None and key in cached and cached[key]["output"] is not None:
                counts["already_cached"] += 1
                continue
            judge_store.store_call(
                tx,
                key,
                backend.name,
                backend.model,
                params,
                request.as_json(),
                output=result.text,
                error=result.error,
                label_probs=result.label_probs,
                prompt_tokens=result.prompt_tokens,
                completion_tokens=result.completion_tokens,
                seconds=0.0,
                cost=result.cost,
            )
            if result.text is not None:
                counts["answers"] += 1
            else:
                counts["failures"] += 1
    return counts
