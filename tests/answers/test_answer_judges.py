"""`studio judge --answers`: the Gen-IR comparison's methods on generated answers, through the one
cached, resumable run loop, on every backend: the adapted prompts, preferences against an exemplar in
both orders (a simulated judge whose position bias is set), the exemplar drawn per topic, a subtopic
bank generated once with the query first, the mean cosine to every Best passage."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from answers.genir_project import GENIR
from embedding_helpers import HashEmbedder
from fake_openai_server import FakeOpenAIServer, grade_of
from fakes import ScriptedBackend, prompt_of
from helpers import cli, copy_project

from studio import Project
from studio.domain.answer_results import AnswerCard
from studio.domain.judging import JudgeConfig, JudgeSummary
from studio.judges.backend import Backend, ChatRequest
from studio.services.answers.embedding import answer_embedding_judge
from studio.services.answers.judging import answer_config
from studio.services.judging.answer_units import drawn_exemplars

SYSTEMS = ("gpt-4", "lier-gpt-4")
BEST = {"156493": ["6139386"], "1110199": ["3838638"], "130510": ["8612910"], "489204": ["1557550", "852257"]}


@pytest.fixture
def template(genir_answers_template: Path) -> Path:
    return genir_answers_template


@pytest.fixture
def project(template: Path, tmp_path: Path) -> Iterator[Project]:
    copied: Path = copy_project(template, tmp_path)
    with Project.open(copied) as opened:
        yield opened


def judge(project: Project, scripted: Backend | None = None, **options: object) -> JudgeSummary:
    config = JudgeConfig(**{"backend": "simulated", "answers": True, **options})  # type: ignore[arg-type]
    found = [event for event in project.judge(config, backend=scripted) if isinstance(event, JudgeSummary)]
    return found[-1]


def cards(project: Project, name: str) -> list[AnswerCard]:
    return [project.answer_card(name, k["qid"], k["system"]) for k in project.answer_keys(name)]


# -- preferences against an exemplar -------------------------------------------------------------


def test_a_judge_that_always_picks_the_first_shown_wins_no_topic(project: Project) -> None:
    summary = judge(project, method="pairwise", name="first", position_bias=1.0)
    assert summary.calls == 2 * 8  # both orders of each of 8 answers against one exemplar
    for card in cards(project, "first"):
        (shown,) = card["exemplars"]
        assert (shown["exemplar_first"], shown["answer_first"], shown["outcome"]) == ("exemplar", "answer", "tie")
        assert card["verdict"] == 0.0
    assert {r["score"] for r in project.answer_scores(["first"])} == {0.0}


@pytest.mark.parametrize("bias", [0.0, 0.35, 0.7])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ties_appear_exactly_when_the_two_orders_disagree(project: Project, bias: float, seed: int) -> None:
    judge(project, method="pairwise", name="biased", position_bias=bias, seed=seed, kappa=0.3)
    for card in cards(project, "biased"):
        (shown,) = card["exemplars"]
        first, second = shown["exemplar_first"], shown["answer_first"]
        assert (shown["outcome"] == "tie") == (first != second)
        assert (shown["outcome"] == "win") == (first == second == "answer")
        assert card["verdict"] == (1.0 if shown["outcome"] == "win" else 0.0)


def test_every_system_meets_the_same_exemplar_drawn_from_the_best_passages(project: Project) -> None:
    judge(project, method="pairwise", name="pref", seed=3)
    met: dict[str, set[str]] = {}
    for card in cards(project, "pref"):
        met.setdefault(card["qid"], set()).update(e["docid"] for e in card["exemplars"])
    assert all(len(docs) == 1 and docs <= set(BEST[qid]) for qid, docs in met.items())
    drawn = {drawn_exemplars(BEST["489204"], "one", seed, "489204")[0] for seed in range(20)}
    assert drawn == set(BEST["489204"])  # the seed decides which of the two
    assert met["489204"] == set(drawn_exemplars(BEST["489204"], "one", 3, "489204"))


def test_all_exemplars_average_the_wins(project: Project) -> None:
    judge(project, method="pairwise", name="every", exemplars="all", kappa=0.3, seed=5)
    for card in cards(project, "every"):
        shown = card["exemplars"]
        assert {e["docid"] for e in shown} == set(BEST[card["qid"]])
        wins = [e["outcome"] == "win" for e in shown]
        assert card["verdict"] == pytest.approx(sum(wins) / len(wins))


def test_a_topic_without_a_best_passage_is_a_recorded_failure(project: Project, tmp_path: Path) -> None:
    qrels = tmp_path / "weak.txt"
    qrels.write_text("156493 0 6139386 0\n1110199 0 3838638 2\n")
    project.import_qrels(qrels, name="weak")
    summary = judge(project, method="pairwise", name="pw", ref="weak")
    assert summary.failures == 6  # two systems × the three topics with no relevant top grade
    failures = {f["qid"]: f["reason"] for f in project.judge_failures("pw")}
    assert failures["156493"] == "no exemplar: the topic's highest 'weak' grade is below 1"
    assert project.check().problems == 0


# -- the adapted prompts, the cache, every backend -----------------------------------------------


def test_binary_and_umbrela_ask_with_the_prompts_adapted_to_a_response(project: Project) -> None:
    binary = ScriptedBackend("Yes")
    judge(project, binary, method="binary", name="b")
    umbrela = ScriptedBackend("##final score: 2")
    judge(project, umbrela, method="umbrela", name="u")
    answers = {(r["qid"], r["system"]): r["text"] for r in _responses(project)}
    for request in binary.requests:
        qid, docid = request.subject
        text = prompt_of(request)
        assert text.startswith("Instruction: Indicate if the response is relevant for the question.")
        assert f"Response: {answers[(qid, docid.removeprefix('answer/'))]}\nAnswer:" in text
    assert all("Given a query and a response, you must provide a score" in prompt_of(r) for r in umbrela.requests)
    assert {r["score"] for r in project.answer_scores(["u"], gain="linear")} == {2.0}
    assert len(binary.requests) == len(umbrela.requests) == 8


def _responses(project: Project) -> list[dict[str, str]]:
    rows = project.db.cursor().execute("SELECT qid, system, text FROM responses").fetchall()
    return [{"qid": q, "system": s, "text": t} for q, s, t in rows]


def test_a_second_run_costs_no_call(project: Project) -> None:
    judge(project, ScriptedBackend("No"), method="binary", name="b")
    again = ScriptedBackend("No")
    summary = judge(project, again, method="binary", name="b")
    assert (again.calls, summary.cache_hits, summary.calls) == (0, 8, 0)


@pytest.mark.server  # a stand-in OpenAI server on loopback
def test_the_openai_backend_judges_answers(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeOpenAIServer() as server:
        summary = judge(
            project, None, method="umbrela", name="remote", backend="openai", model="fake", base_url=server.base_url
        )
        grades = [grade_of(r.body["messages"]) for r in server.requests if r.path.endswith("/chat/completions")]
    assert (summary.calls, summary.failures) == (8, 0)
    assert sorted(k["verdict"] for k in project.answer_keys("remote")) == sorted(float(g) for g in grades)


# -- subtopics: a bank generated once, the query as entry 0 --------------------------------------


def subtopic_reply(request: ChatRequest) -> str:
    if request.unit == "generate":
        return '```json { "subtopics" : ["how big it grows", "wireless range", "court powers"] }```'
    subtopic = prompt_of(request).split("Subtopic: ", 1)[1].split("\n", 1)[0]
    return "Yes" if "r" in subtopic else "No"


def test_subtopics_are_generated_once_with_the_query_first(project: Project) -> None:
    backend = ScriptedBackend(subtopic_reply)
    judge(project, backend, method="subtopic", name="sub")
    generations = [r for r in backend.requests if r.unit == "generate"]
    assert len(generations) == 4
    bank = project.bank_editor("answer-subtopics").items()
    queries = {
        "156493": "do goldfish grow",
        "1110199": "what is wifi vs bluetooth",
        "130510": "definition declaratory judgment",
        "489204": "right pelvic pain causes",
    }
    for qid, query in queries.items():
        texts = [item["text"] for item in bank if item["qid"] == qid]
        assert texts == [query, "how big it grows", "wireless range", "court powers"]
        yes = sum("r" in t for t in texts)
        for system in SYSTEMS:
            assert project.answer_card("sub", qid, system)["verdict"] == pytest.approx(yes / 4)  # yes / (k + 1)
    again = ScriptedBackend(subtopic_reply)
    judge(project, again, method="subtopic", name="sub")
    assert again.calls == 0  # the bank is not generated again, every grade is cached
    card = project.answer_card("sub", "130510", "gpt-4")
    assert [(s["entry"], s["text"]) for s in card["subtopics"]][:2] == [
        (0, "definition declaratory judgment"),
        (1, "how big it grows"),
    ]


# -- embedding -------------------------------------------------------------------------------------


def test_the_embedding_method_is_the_mean_cosine_to_every_best_passage(project: Project) -> None:
    embedder = HashEmbedder()
    config = answer_config(JudgeConfig(method="embedding", backend="simulated", name="emb", answers=True))
    summary = answer_embedding_judge(project.db, config, embedder)
    assert summary.failures == 0
    passages = dict(line.split("\t", 1) for line in (GENIR / "passages.tsv").read_text().splitlines())
    answers = {(r["qid"], r["system"]): r["text"] for r in _responses(project)}
    for key in project.answer_keys("emb"):
        vector = embedder.encode([answers[(key["qid"], key["system"])]])[0].astype(np.float64)
        best = embedder.encode([passages[d] for d in BEST[key["qid"]]]).astype(np.float64)
        assert key["verdict"] == pytest.approx(float(np.mean(best @ vector)), abs=1e-6)
    assert project.answer_scores(["emb"])[0]["method"] == "embedding"


@pytest.mark.model  # all-MiniLM through torch, where the extra is installed
def test_embedding_needs_its_extra_or_says_how_to_get_it(project: Project) -> None:
    from studio.judges.embedder import missing_embedding_modules

    if missing_embedding_modules():
        with pytest.raises(Exception, match="embeddings extra"):
            judge(project, method="embedding", name="e")
        return
    summary = judge(project, method="embedding", name="e")
    assert summary.model == "all-MiniLM-L6-v2" and summary.pairs == 8
    assert all(-1.0 <= k["verdict"] <= 1.0 and not math.isnan(k["verdict"]) for k in project.answer_keys("e"))


# -- the command line -------------------------------------------------------------------------------


def test_the_command_line_judges_answers(template: Path, tmp_path: Path) -> None:
    db: Path = copy_project(template, tmp_path)
    done = cli(
        db, "judge", "--answers", "--method", "pairwise", "--backend", "simulated", "--position-bias", 1, "-f", "json"
    )
    assert done.exit_code == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["label_set"], summary["calls"]) == ("answers-pairwise-simulated", 16)
    refused = cli(db, "judge", "--method", "pairwise", "--backend", "simulated", "--exemplars", "all")
    assert refused.exit_code == 2 and "go with --answers" in refused.stderr


def test_topics_the_model_gave_no_subtopic_are_said(project: Project) -> None:
    def reply(request: ChatRequest) -> str:
        if request.unit == "generate":
            return "I cannot help with that." if "goldfish" in prompt_of(request) else subtopic_reply(request)
        return subtopic_reply(request)

    summary = judge(project, ScriptedBackend(reply), method="subtopic", name="sub")
    assert summary.topics_without_subtopics == ["156493"]
    assert [i["text"] for i in project.bank_editor("answer-subtopics").items("156493")] == ["do goldfish grow"]
    assert summary.as_dict()["topics_without_subtopics"] == ["156493"]
