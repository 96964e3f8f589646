"""Methods: their label spaces and prompts, the pair sampler of preference judging (P = 7) and
turning answers in both orders into wins."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pytest

from studio.domain.errors import UsageError
from studio.judges.methods import get_method, pairwise_scores, sample_pairs
from studio.judges.prompts import load_prompt

# -- get_method --------------------------------------------------------------------------------


def test_umbrela_method_grades_zero_to_three_after_the_final_score_prefix() -> None:
    method = get_method("umbrela")
    assert method.labels == ("0", "1", "2", "3")
    assert method.values == (0.0, 1.0, 2.0, 3.0)
    assert method.answer_prefix == "##final score: "
    assert not method.pairwise
    assert method.prompt.user == load_prompt("umbrela").user


def test_binary_method_maps_yes_to_one_and_no_to_zero() -> None:
    method = get_method("binary")
    assert method.labels == ("Yes", "No")
    assert (method.value_of("Yes"), method.value_of("No")) == (1.0, 0.0)
    assert method.answer_prefix == ""


def test_pairwise_method_answers_with_a_passage_number() -> None:
    method = get_method("pairwise")
    assert method.labels == ("1", "2")
    assert method.values == (1.0, 2.0)
    assert method.answer_prefix == ""
    assert method.pairwise
    assert method.prompt.system == "You are a highly experienced and accurate assessor for TREC."


def test_each_answer_prefix_plus_label_parses_to_its_value() -> None:
    for name in ("umbrela", "binary", "pairwise"):
        method = get_method(name)
        for label, value in zip(method.labels, method.values, strict=True):
            assert method.parse(method.answer_prefix + label).label == value, (name, label)


def test_request_carries_rendered_prompt_labels_and_subject() -> None:
    method = get_method("umbrela")
    request = method.request(("1001", "p1"), query="boiling water", passage="It boils at 100 C.")
    assert request.messages[0] == ("system", "")
    assert "Query: boiling water\nPassage: It boils at 100 C.\n" in request.messages[1][1]
    assert (request.labels, request.label_values, request.subject) == (method.labels, method.values, ("1001", "p1"))
    assert request.answer_prefix == "##final score: "


def test_custom_prompt_without_passage_is_refused(tmp_path: Path) -> None:
    prompt = tmp_path / "no-passage.txt"
    prompt.write_text("Is this relevant to {query}? Answer:", encoding="utf-8")
    with pytest.raises(UsageError, match="passage"):
        get_method("umbrela", str(prompt))


def test_custom_pairwise_prompt_needs_both_passages(tmp_path: Path) -> None:
    prompt = tmp_path / "one-passage.txt"
    prompt.write_text("Which is better for {query}? {passage_a}", encoding="utf-8")
    with pytest.raises(UsageError, match="passage_b"):
        get_method("pairwise", str(prompt))


def test_custom_prompt_with_the_placeholders_is_used(tmp_path: Path) -> None:
    prompt = tmp_path / "mine.txt"
    prompt.write_text("Query: {query}\nPassage: {passage}\nRelevant? Reply as {json}.", encoding="utf-8")
    method = get_method("binary", str(prompt))
    assert method.request(("q", "d"), query="Q", passage="P").messages == (
        ("user", "Query: Q\nPassage: P\nRelevant? Reply as {json}."),
    )


def test_unknown_method_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="nuggets-magic"):
        get_method("nuggets-magic")


# -- sample_pairs --------------------------------------------------------------------------------


def docs(n: int) -> list[str]:
    return [f"d{i:02d}" for i in range(n)]


@pytest.mark.parametrize("n", [0, 1, 2, 5, 10, 15])
def test_all_pairs_when_there_are_at_most_seven_per_document(n: int) -> None:
    # n(n-1)/2 <= 7n  <=>  n <= 15
    pairs = sample_pairs(docs(n))
    assert sorted(frozenset(p) for p in pairs) == sorted(frozenset(p) for p in combinations(docs(n), 2))


@pytest.mark.parametrize("n", [16, 28, 60])
def test_at_most_seven_n_pairs_when_sampling(n: int) -> None:
    pairs = sample_pairs(docs(n), seed=3, qid="1001")
    assert n * (n - 1) // 2 > 7 * n
    assert 0 < len(pairs) <= 7 * n


@pytest.mark.parametrize("n", [16, 28, 60])
def test_every_document_is_compared_at_least_once(n: int) -> None:
    pairs = sample_pairs(docs(n), seed=1, qid="q")
    assert {d for pair in pairs for d in pair} == set(docs(n))


@pytest.mark.parametrize("n", [16, 28, 60])
def test_no_pair_is_sampled_twice_in_either_order(n: int) -> None:
    pairs = sample_pairs(docs(n), seed=2, qid="q")
    assert all(a != b for a, b in pairs)
    assert len({frozenset(p) for p in pairs}) == len(pairs)


def test_sampled_pairs_are_real_documents() -> None:
    pairs = sample_pairs(docs(28), seed=0, qid="q")
    assert {d for pair in pairs for d in pair} <= set(docs(28))


def test_sampling_is_deterministic_for_a_seed() -> None:
    assert sample_pairs(docs(28), seed=7, qid="1003") == sample_pairs(docs(28), seed=7, qid="1003")


def test_sampling_differs_between_seeds_and_topics() -> None:
    base = sample_pairs(docs(28), seed=7, qid="1003")
    assert sample_pairs(docs(28), seed=8, qid="1003") != base
    assert sample_pairs(docs(28), seed=7, qid="1004") != base


# -- pairwise_scores --------------------------------------------------------------------------


def test_hand_worked_wins() -> None:
    # (a, b, answer with a shown first, answer with b shown first); 1/2 = passage shown first/second
    outcomes = [
        ("a", "b", 1.0, 2.0),  # a both times -> a wins
        ("a", "c", 2.0, 1.0),  # c both times -> c wins
        ("b", "c", 1.0, 1.0),  # each order prefers the first shown: disagreement -> tie
        ("a", "d", 1.0, None),  # one order failed -> ignored
        ("c", "d", None, None),  # both failed -> ignored
        ("b", "d", 2.0, 1.0),  # d both times -> d wins
        ("d", "c", 1.0, 2.0),  # d both times -> d wins
        ("b", "a", 2.0, 2.0),  # each order prefers the second shown: tie
    ]
    assert pairwise_scores(["a", "b", "c", "d", "e"], outcomes) == {"a": 1.0, "b": 0.0, "c": 1.0, "d": 2.0, "e": 0.0}


def test_agreement_in_both_orders_is_one_win() -> None:
    assert pairwise_scores(["x", "y"], [("x", "y", 2.0, 1.0)]) == {"x": 0.0, "y": 1.0}


def test_disagreement_between_orders_is_a_tie() -> None:
    assert pairwise_scores(["x", "y"], [("x", "y", 1.0, 1.0), ("x", "y", 2.0, 2.0)]) == {"x": 0.0, "y": 0.0}


def test_failed_answers_are_ignored() -> None:
    assert pairwise_scores(["x", "y"], [("x", "y", None, 2.0), ("x", "y", 1.0, None)]) == {"x": 0.0, "y": 0.0}


def test_wins_are_floats() -> None:
    scores = pairwise_scores(["x", "y"], [("x", "y", 1.0, 2.0)])
    assert all(isinstance(v, float) for v in scores.values())
