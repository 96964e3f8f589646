"""An answer of a judge run, from the call cache or from the model, stored as judgments and label events."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from studio.judges.backend import Backend, ChatResult
from studio.judges.methods import Method
from studio.judges.parsing import Parsed
from studio.services.judging.samples import SelfConsistency
from studio.services.judging.tally import Tally
from studio.services.judging.units import Unit
from studio.store import Connection
from studio.store import judging as judge_store
from studio.store import labels as label_store


@dataclass
class OpenRun:
    """A judge run as created: what it asks, and where and how its answers are written."""

    method: Method
    backend: Backend
    params: dict[str, Any]  # the backend's decoding parameters, as stored with each call
    consistency: SelfConsistency
    set_id: int  # the label set the run writes into
    run: int  # its judge_runs row
    batch: int  # the batch its label events belong to
    by_key: dict[str, list[Unit]]  # the units by call key: units asking the same thing share one call
    total: int  # units to record, with the pairs that could not be judged

    @property
    def source(self) -> str:
        """The provenance of the run's label events."""
        return f"judge run {self.run}"


class Outcome(NamedTuple):
    """What one answer says of one graded cell (a pair, or one bank item of a pair)."""

    item_id: str | None
    parsed: Parsed
    expected: float | None  # the label's expected value under the label distribution
    confidence: float | None  # the most likely label's probability


def answer_outcome(
    method: Method, output: str | None, error: str | None, probs: dict[str, float] | None
) -> tuple[Parsed, float | None, float | None]:
    """The parsed label of one answer, with its expectation and confidence when the backend gave
    the label distribution; a failed call is a recorded failure."""
    if output is None:
        return Parsed(None, f"call failed: {error}"), None, None
    parsed = method.parse(output)
    if not probs:
        return parsed, None, None
    known = {label: p for label, p in probs.items() if label in method.labels}
    expected = sum(method.value_of(label) * p for label, p in known.items()) if known else None
    confidence = max(known.values()) if known else None
    return parsed, expected, confidence


def unit_outcomes(method: Method, unit: Unit, answer: ChatResult) -> list[Outcome]:
    """One outcome per item of a window unit (window units come from window methods), else one."""
    if unit.window and method.parse_window is not None:
        if answer.text is None:
            window_parsed = [Parsed(None, f"call failed: {answer.error}")] * len(unit.window)
        else:
            window_parsed = method.parse_window(answer.text, len(unit.window))
        return [Outcome(item, parsed, None, None) for item, parsed in zip(unit.window, window_parsed, strict=True)]
    return [Outcome(unit.item_id, *answer_outcome(method, answer.text, answer.error, answer.label_probs))]


def record_answer(tx: Connection, opened: OpenRun, key: str, answer: ChatResult, tally: Tally) -> None:
    """Every unit asking `key` gets its judgments; a pair's grade, when the method gives one per
    call, becomes a label event when it changes the label set."""
    for unit in opened.by_key[key]:
        tally.done += 1
        outcomes = unit_outcomes(opened.method, unit, answer)
        hashes = unit.item_hashes or (None,) * len(outcomes)
        for outcome, item_hash in zip(outcomes, hashes, strict=True):
            _record_outcome(tx, opened, key, unit, outcome, item_hash, answer.label_probs, tally)


def _record_outcome(
    tx: Connection,
    opened: OpenRun,
    key: str,
    unit: Unit,
    outcome: Outcome,
    item_hash: str | None,
    probs: dict[str, float] | None,
    tally: Tally,
) -> None:
    label = outcome.parsed.label
    judge_store.add_judgment(
        tx,
        opened.run,
        unit.qid,
        unit.docid,
        unit.docid_b,
        key,
        label=label,
        parse_error=outcome.parsed.error,
        expected=outcome.expected,
        confidence=outcome.confidence,
        item_id=outcome.item_id,
        item_hash=item_hash,
        sample=unit.sample,
    )
    method, set_id = opened.method, opened.set_id
    if label is None:
        tally.failures += 1
    elif (
        # Preferences, item grades and samples make a pair's label later, from all its answers.
        not method.pairwise
        and method.item_kind is None
        and not opened.consistency.sampling
        and label_store.current_grade(tx, set_id, unit.qid, unit.docid) != label
    ):
        label_store.append_label_event(
            tx, set_id, unit.qid, unit.docid, label, origin="judge", source=opened.source, batch_id=opened.batch
        )
    opened.consistency.record(tx, set_id, method, unit, label, probs, source=opened.source, batch=opened.batch)
