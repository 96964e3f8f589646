"""The simulated judge: a seeded noisy copy of a reference label set with a chosen Cohen's κ."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from judge_helpers import human_qrels, judge, labels_of, sample_copy
from sklearn.metrics import cohen_kappa_score

from studio import Project
from studio.judges.backend import ChatRequest
from studio.judges.methods import get_method
from studio.judges.simulated import SimulatedBackend

REFERENCE = {"q1": {"a": 3.0, "b": 1.0, "c": 0.0, "d": 2.0, "e": 0.0, "f": 1.0}}


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    with Project.open(sample_copy(tmp_path)) as opened:
        yield opened


def reference_by_topic() -> dict[str, dict[str, float]]:
    grades: dict[str, dict[str, float]] = {}
    for (qid, docid), grade in human_qrels().items():
        grades.setdefault(qid, {})[docid] = grade
    return grades


def umbrela_requests(reference: dict[str, dict[str, float]]) -> list[ChatRequest]:
    method = get_method("umbrela")
    return [method.request((q, d), query=q, passage=d) for q, docs in reference.items() for d in docs]


def answers(backend: SimulatedBackend, requests: list[ChatRequest]) -> list[str | None]:
    return [result.text for _, result in sorted(backend.complete(requests), key=lambda ir: ir[0])]


def test_same_seed_gives_the_same_answers() -> None:
    reference = reference_by_topic()
    requests = umbrela_requests(reference)
    first = answers(SimulatedBackend("human", reference, kappa=0.4, seed=5), requests)
    assert first == answers(SimulatedBackend("human", reference, kappa=0.4, seed=5), requests)


def test_answers_do_not_depend_on_request_order() -> None:
    reference = reference_by_topic()
    requests = umbrela_requests(reference)
    forward = answers(SimulatedBackend("human", reference, kappa=0.4, seed=5), requests)
    backward = answers(SimulatedBackend("human", reference, kappa=0.4, seed=5), requests[::-1])
    assert forward == backward[::-1]


def test_another_seed_gives_other_answers() -> None:
    reference = reference_by_topic()
    requests = umbrela_requests(reference)
    assert answers(SimulatedBackend("human", reference, kappa=0.4, seed=5), requests) != answers(
        SimulatedBackend("human", reference, kappa=0.4, seed=6), requests
    )


def test_answers_are_in_the_method_format() -> None:
    requests = umbrela_requests(REFERENCE)
    for text in answers(SimulatedBackend("ref", REFERENCE, kappa=0.0, seed=1), requests):
        assert text is not None and get_method("umbrela").parse(text).ok, text


def test_kappa_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError):
        SimulatedBackend("ref", REFERENCE, kappa=1.5)


def test_kappa_one_reproduces_the_reference_exactly(project: Project) -> None:
    summary, _ = judge(project.db, name="copy", pool="qrels:human", kappa=1.0)
    assert summary.pairs == 280
    assert labels_of(project, "copy") == human_qrels()


def test_kappa_one_binary_judge_says_yes_for_grades_one_and_up(project: Project) -> None:
    judge(project.db, method="binary", name="copy-binary", pool="qrels:human", kappa=1.0, topics=["1001", "1002"])
    expected = {pair: float(grade >= 1) for pair, grade in human_qrels().items() if pair[0] in ("1001", "1002")}
    assert labels_of(project, "copy-binary") == expected


def test_kappa_half_agrees_with_the_reference_at_kappa_half(project: Project) -> None:
    judge(project.db, name="half", pool="qrels:human", kappa=0.5, seed=11)
    human, noisy = human_qrels(), labels_of(project, "half")
    assert set(noisy) == set(human)
    pairs = sorted(human)
    kappa = cohen_kappa_score([human[p] for p in pairs], [noisy[p] for p in pairs])
    assert abs(kappa - 0.5) <= 0.15, kappa
    assert noisy != human


def test_kappa_zero_agrees_no_better_than_chance(project: Project) -> None:
    judge(project.db, name="chance", pool="qrels:human", kappa=0.0, seed=3)
    human, noisy = human_qrels(), labels_of(project, "chance")
    pairs = sorted(human)
    assert abs(cohen_kappa_score([human[p] for p in pairs], [noisy[p] for p in pairs])) <= 0.15


def test_preferences_follow_the_higher_reference_grade_at_kappa_one() -> None:
    method = get_method("pairwise")
    backend = SimulatedBackend("ref", REFERENCE, kappa=1.0, seed=0)
    grades = REFERENCE["q1"]
    for a in grades:
        for b in grades:
            if grades[a] == grades[b]:
                continue
            request = method.request(("q1", a, b), query="q", passage_a=a, passage_b=b)
            [(_, result)] = list(backend.complete([request]))
            shown_first_wins = grades[a] > grades[b]
            assert result.text == ("1" if shown_first_wins else "2"), (a, b, result.text)


def test_kappa_one_pairwise_judge_ranks_by_the_reference(project: Project) -> None:
    judge(project.db, method="pairwise", name="pref", topics=["1004"], kappa=1.0)
    rows = (
        project.db.cursor().execute("SELECT docid, docid_b, label FROM judgments WHERE docid_b IS NOT NULL").fetchall()
    )
    human = human_qrels()
    assert rows
    for first, second, label in rows:
        g_first, g_second = human[("1004", first)], human[("1004", second)]
        if g_first != g_second:
            assert label == (1.0 if g_first > g_second else 2.0)


def test_the_same_seed_gives_the_same_labels_whatever_order_the_reference_comes_in() -> None:
    from studio.judges.simulated import SimulatedBackend

    reference = {"q1": {f"d{i}": float(i % 4) for i in range(40)}, "q2": {f"e{i}": float(i % 2) for i in range(40)}}
    shuffled = {q: dict(reversed(list(grades.items()))) for q, grades in reversed(list(reference.items()))}
    a = SimulatedBackend("ref", reference, kappa=0.3, seed=5)
    b = SimulatedBackend("ref", shuffled, kappa=0.3, seed=5)
    assert [a.noisy_grade("q1", f"d{i}") for i in range(40)] == [b.noisy_grade("q1", f"d{i}") for i in range(40)]
