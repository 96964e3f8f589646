"""Judgments that come from a file rather than a model call: kept as a judge run of backend
`import`, each raw answer as an imported call, so reviewing, failures, exports and derived
scores treat them like the studio's own."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from studio.formats.judgments import JudgmentRecord
from studio.store import Connection
from studio.store import judging as judge_store


def store_imported_call(
    con: Connection,
    model: str,
    unit: Sequence[str | None],
    output: str,
    messages: list[dict[str, str]] | None = None,
    label_probs: dict[str, float] | None = None,
) -> str:
    """Keep an imported raw answer in the call table; its key (over `import`, the model, the
    judged unit and the answer) cannot collide with the key of a real prompt."""
    key = hashlib.sha256(json.dumps(["import", model, *unit, output]).encode("utf-8")).hexdigest()
    judge_store.store_call(
        con,
        key,
        "import",
        model,
        {},
        messages or [],
        output=output,
        error=None,
        label_probs=label_probs,
        prompt_tokens=0,
        completion_tokens=0,
        seconds=0.0,
        cost=None,
    )
    return key


def rerun_config(method: str, backend: str, model: str) -> dict[str, object]:
    """What it takes to ask the judge that made an imported run again (a probe, a new pool): the
    method with its bundled prompt, the backend, and the model (the bundled GGUF by its file
    name, any other by the name the file gives)."""
    # Imported on use, as in judging.backends: the local backend's module reads package metadata.
    from studio.judges.llamacpp_backend import DEFAULT_MODEL_FILE

    local_default = backend == "llamacpp" and model == DEFAULT_MODEL_FILE
    return {"method": method, "backend": backend, "model": None if local_default else model, "pool": "import"}


def record_imported_judgments(con: Connection, set_id: int, path: Path, records: Sequence[JudgmentRecord]) -> int:
    """A judge run holding the file's judgments (method and model as the file names them)."""
    methods = {r.method for r in records if r.method}
    models = {r.model for r in records if r.model}
    backends = {r.backend for r in records if r.backend}
    method = methods.pop() if len(methods) == 1 else "umbrela"
    model = models.pop() if len(models) == 1 else "imported"
    params: dict[str, object] = {"source": str(path)}
    if len(backends) == 1:
        params["config"] = rerun_config(method, backends.pop(), model)
    run = judge_store.create_judge_run(
        con,
        set_id,
        method=method,
        backend="import",
        model=model,
        prompt_name="imported",
        prompt_hash="",
        params=params,
        pool="import",
    )
    for r in records:
        key = (
            ""
            if r.prediction is None
            else store_imported_call(
                con, r.model or model, (r.qid, r.docid, r.docid_b, r.item_id), r.prediction, r.prompt, r.label_probs
            )
        )
        judge_store.add_judgment(
            con,
            run,
            r.qid,
            r.docid,
            r.docid_b,
            key,
            label=r.label,
            parse_error=r.error,
            expected=r.expected,
            confidence=r.confidence,
            item_id=r.item_id,
        )
    pairs = len({(r.qid, r.docid) for r in records})
    judge_store.finish_judge_run(
        con, run, pairs=pairs, calls=0, cache_hits=0, failures=sum(r.label is None for r in records)
    )
    return run
