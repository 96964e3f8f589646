"""Running a judge over a pool, in-process and through `studio judge`, with the simulated judge
(fast) or a scripted backend: summaries, the call cache, progress, pools, failures, provenance."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes import ScriptedBackend
from helpers import cli, scalar
from judge_helpers import SUMMARY_KEYS, human_qrels, judge, labels_of, response_pairs, sample_copy, top_ranked

from studio import Project
from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig
from studio.judges.backend import ChatRequest, ChatResult
from studio.judges.prompts import load_prompt
from studio.services.judging.pools import pool_pairs

LIST_JUDGES_KEYS = {
    "label_set",
    "method",
    "backend",
    "model",
    "prompt_hash",
    "pairs",
    "calls",
    "cache_hits",
    "failures",
}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return sample_copy(tmp_path)


@pytest.fixture
def project(db: Path) -> Iterator[Project]:
    with Project.open(db) as opened:
        yield opened


def pool(project: Project, name: str, **options: Any) -> list[tuple[str, str]]:
    return pool_pairs(project.db, JudgeConfig(method="umbrela", backend="simulated", name="x", pool=name, **options))


def judgments(project: Project, run: int) -> list[tuple[Any, ...]]:
    return (
        project.db.cursor()
        .execute(
            "SELECT qid, docid, docid_b, call_key, label, parse_error, expected, confidence FROM judgments"
            " WHERE judge_run_id = ? ORDER BY qid, docid, docid_b",
            [run],
        )
        .fetchall()
    )


def topic_pairs(*qids: str) -> dict[tuple[str, str], float]:
    return {pair: grade for pair, grade in human_qrels().items() if pair[0] in qids}


# -- summary, cache, progress ------------------------------------------------------------------


def test_summary_has_the_documented_keys(project: Project) -> None:
    summary, _ = judge(project.db, name="sim", topics=["1001"])
    assert set(summary.as_dict()) >= SUMMARY_KEYS
    assert (summary.label_set, summary.method, summary.backend) == ("sim", "umbrela", "simulated")
    assert (summary.pairs, summary.calls, summary.cache_hits, summary.failures) == (28, 28, 0, 0)


def test_second_identical_run_makes_no_call(project: Project) -> None:
    first, _ = judge(project.db, name="sim", topics=["1002", "1003"], kappa=0.7)
    labels = labels_of(project, "sim")
    second, _ = judge(project.db, name="sim", topics=["1002", "1003"], kappa=0.7)
    assert first.calls == first.pairs == 56
    assert (second.calls, second.cache_hits, second.pairs) == (0, 56, 56)
    assert labels_of(project, "sim") == labels


def test_cached_run_reaches_no_backend(project: Project) -> None:
    backend = ScriptedBackend("##final score: 2")
    judge(project.db, name="scripted", topics=["1005"], backend_object=backend)
    assert len(backend.requests) == 28
    again = ScriptedBackend("##final score: 2")
    summary, _ = judge(project.db, name="scripted", topics=["1005"], backend_object=again)
    assert again.requests == []
    assert (summary.calls, summary.cache_hits) == (0, 28)


def test_changed_decoding_parameters_are_new_calls(project: Project) -> None:
    judge(project.db, name="a", topics=["1001"], kappa=0.7)
    summary, _ = judge(project.db, name="b", topics=["1001"], kappa=0.8)
    assert (summary.calls, summary.cache_hits) == (28, 0)


def test_progress_is_monotonic_and_ends_at_total(project: Project) -> None:
    summary, progress = judge(project.db, name="sim", topics=["1004"])
    done = [event.done for event in progress]
    assert done == sorted(done)
    assert [e.calls for e in progress] == sorted(e.calls for e in progress)
    assert {event.total for event in progress} == {28}
    assert progress[-1].done == progress[-1].total == summary.pairs
    assert progress[-1].calls == summary.calls


def test_a_larger_run_reuses_the_calls_of_a_smaller_one(project: Project) -> None:
    judge(project.db, name="sim", topics=["1006"], limit=5)
    summary, progress = judge(project.db, name="sim", topics=["1006"])
    assert (summary.calls, summary.cache_hits) == (23, 5)
    assert progress[0].done == progress[0].cache_hits == 5
    assert progress[-1].done == 28


# -- pools -------------------------------------------------------------------------------------


def test_qrels_pool_is_every_labelled_pair(project: Project) -> None:
    assert set(pool(project, "qrels:human")) == set(human_qrels())
    assert len(pool(project, "qrels:human")) == 280


def test_runs_pool_is_the_top_k_of_every_run(project: Project) -> None:
    assert set(pool(project, "runs:5")) == top_ranked(5)
    assert len(pool(project, "runs:5")) == len(top_ranked(5))


def test_holes_pool_is_the_top_k_the_reference_did_not_label(project: Project) -> None:
    expected = top_ranked(5) - set(human_qrels())
    assert expected, "the sample runs should rank unlabelled documents in their top 5"
    assert set(pool(project, "holes:5")) == expected


def test_judging_the_holes_labels_exactly_the_holes(project: Project) -> None:
    summary, _ = judge(project.db, name="holes", pool="holes:5")
    expected = top_ranked(5) - set(human_qrels())
    assert summary.pairs == len(expected)
    assert set(labels_of(project, "holes")) == expected


def test_responses_pool_is_every_generated_answer(project: Project) -> None:
    pairs = pool(project, "responses")
    assert set(pairs) == response_pairs()
    assert len(pairs) == 30
    assert len({qid for qid, _ in pairs}) == 10


def test_judging_responses_labels_the_answers(project: Project) -> None:
    summary, _ = judge(project.db, name="answers", pool="responses", topics=["1001", "1002"])
    assert (summary.pairs, summary.failures) == (6, 0)
    assert set(labels_of(project, "answers")) == {p for p in response_pairs() if p[0] in ("1001", "1002")}


def test_topic_and_limit_narrow_the_pool(project: Project) -> None:
    assert len(pool(project, "qrels:human", topics=["1007", "1008"])) == 56
    assert {q for q, _ in pool(project, "qrels:human", topics=["1007", "1008"])} == {"1007", "1008"}
    assert len(pool(project, "qrels:human", topics=["1007"], limit=4)) == 4


@pytest.mark.parametrize("bad", ["everything", "runs:ten", "qrels:nobody"])
def test_unknown_pool_is_a_usage_error(project: Project, bad: str) -> None:
    with pytest.raises(UsageError):
        pool(project, bad)


# -- the command line --------------------------------------------------------------------------


def test_cli_prints_the_summary_as_json(db: Path) -> None:
    result = cli(
        db,
        "judge",
        "--method",
        "umbrela",
        "--backend",
        "simulated",
        "--kappa",
        "1",
        "--name",
        "sim",
        "--topic",
        "1001",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert set(summary) >= SUMMARY_KEYS
    assert (summary["label_set"], summary["method"], summary["backend"]) == ("sim", "umbrela", "simulated")
    assert (summary["pairs"], summary["calls"], summary["cache_hits"], summary["failures"]) == (28, 28, 0, 0)
    assert "judged 28 pairs" in result.stderr
    with Project.open(db) as project:
        assert labels_of(project, "sim") == topic_pairs("1001")


def test_cli_second_run_reports_cache_hits(db: Path) -> None:
    args = ("judge", "--backend", "simulated", "--name", "sim", "--topic", "1002", "--format", "json")
    assert cli(db, *args).exit_code == 0
    second = json.loads(cli(db, *args).stdout)
    assert (second["calls"], second["cache_hits"], second["pairs"]) == (0, 28, 28)


def test_cli_topic_and_limit(db: Path) -> None:
    result = cli(
        db,
        "judge",
        "--backend",
        "simulated",
        "--name",
        "few",
        "--topic",
        "1003",
        "--topic",
        "1009",
        "--limit",
        "5",
        "--format",
        "json",
    )
    assert json.loads(result.stdout)["pairs"] == 5
    with Project.open(db) as project:
        judged = labels_of(project, "few")
    assert len(judged) == 5
    assert set(judged) <= set(topic_pairs("1003", "1009"))


def test_cli_refuses_to_write_into_the_human_labels(db: Path) -> None:
    with Project.open(db) as project:
        before = labels_of(project, "human")
    result = cli(db, "judge", "--backend", "simulated", "--name", "human", "--topic", "1001")
    assert result.exit_code == 2
    assert "human" in result.stderr
    with Project.open(db) as project:
        assert labels_of(project, "human") == before
        assert [run["label_set"] for run in project.judge_runs()] == ["umbrela-smol"]  # the sample's own


def test_run_judge_refuses_to_write_into_the_human_labels(project: Project) -> None:
    with pytest.raises(UsageError, match="human"):
        judge(project.db, name="human", topics=["1001"])
    assert scalar(project.db.cursor(), "SELECT count(*) FROM label_events WHERE origin <> 'import'") == 0


def test_cli_lists_judge_runs_as_json(db: Path) -> None:
    first = json.loads(
        cli(db, "judge", "--backend", "simulated", "--name", "sim", "--topic", "1001", "--format", "json").stdout
    )
    second = json.loads(
        cli(
            db,
            "judge",
            "--backend",
            "simulated",
            "--method",
            "binary",
            "--name",
            "bin",
            "--topic",
            "1001",
            "--limit",
            "3",
            "--format",
            "json",
        ).stdout
    )
    listed = [
        row for row in json.loads(cli(db, "list", "judges", "--format", "json").stdout) if row["backend"] != "import"
    ]  # the sample's imported umbrela-smol run is listed too
    assert len(listed) == 2
    for row in listed:
        assert set(row) >= LIST_JUDGES_KEYS
    by_set = {row["label_set"]: row for row in listed}
    for summary, prompt in ((first, "umbrela"), (second, "binary")):
        row = by_set[summary["label_set"]]
        assert {k: row[k] for k in ("method", "backend", "model", "pairs", "calls", "cache_hits", "failures")} == {
            k: summary[k] for k in ("method", "backend", "model", "pairs", "calls", "cache_hits", "failures")
        }
        assert len(row["prompt_hash"]) >= 12
        assert load_prompt(prompt).sha256.startswith(row["prompt_hash"])


# -- failures and provenance -------------------------------------------------------------------


def test_missing_document_text_is_a_recorded_failure(project: Project, tmp_path: Path) -> None:
    run = tmp_path / "ghost.txt"
    run.write_text("1001 Q0 ghost-doc 1 9.5 ghostrun\n1001 Q0 p1001-03 2 8.0 ghostrun\n", encoding="utf-8")
    project.import_runs(run)
    summary, _ = judge(project.db, name="sim", pool="runs:1", topics=["1001"])
    assert summary.failures == 1
    rows = [r for r in judgments(project, summary.judge_run) if r[1] == "ghost-doc"]
    assert len(rows) == 1
    _, _, _, _, label, reason, _, _ = rows[0]
    assert label is None
    assert reason and "text" in reason
    assert ("1001", "ghost-doc") not in labels_of(project, "sim")
    assert [f["docid"] for f in project.judge_failures("sim")] == ["ghost-doc"]


def test_unparseable_output_is_a_failure_with_its_raw_text(project: Project) -> None:
    text = "This passage seems quite relevant to the query about altitude."
    summary, _ = judge(project.db, name="wordy", topics=["1001"], limit=4, backend_object=ScriptedBackend(text))
    assert (summary.pairs, summary.calls, summary.failures) == (4, 4, 4)
    assert labels_of(project, "wordy") == {}
    rows = judgments(project, summary.judge_run)
    assert [(r[4], bool(r[5])) for r in rows] == [(None, True)] * 4
    stored = project.db.cursor().execute("SELECT DISTINCT output FROM calls WHERE backend <> 'import'").fetchall()
    assert stored == [(text,)]
    failures = project.judge_failures("wordy")
    assert len(failures) == 4
    assert all(f["output"] == text and f["reason"] for f in failures)


def test_only_parsed_outputs_become_labels(project: Project) -> None:
    def reply(request: ChatRequest) -> str:
        return "##final score: 3" if request.subject[1].endswith(("1", "3", "5", "7", "9")) else "no idea"

    summary, _ = judge(project.db, name="mixed", topics=["1002"], backend_object=ScriptedBackend(reply))
    parsed = {p for p in topic_pairs("1002") if p[1].endswith(("1", "3", "5", "7", "9"))}
    assert labels_of(project, "mixed") == dict.fromkeys(parsed, 3.0)
    assert summary.failures == 28 - len(parsed)
    assert {(f["qid"], f["docid"]) for f in project.judge_failures("mixed")} == set(topic_pairs("1002")) - parsed


def test_failed_call_is_a_failure_not_a_zero(project: Project) -> None:
    backend = ScriptedBackend(ChatResult(None, error="HTTP 500 after 5 retries"))
    summary, _ = judge(project.db, name="down", topics=["1003"], limit=3, backend_object=backend)
    assert summary.failures == 3
    assert labels_of(project, "down") == {}
    assert all("HTTP 500" in (f["reason"] or "") for f in project.judge_failures("down"))


def test_failed_call_is_asked_again_on_the_next_run(project: Project) -> None:
    judge(
        project.db,
        name="flaky",
        topics=["1003"],
        limit=3,
        backend_object=ScriptedBackend(ChatResult(None, error="timeout")),
    )
    healthy = ScriptedBackend("##final score: 1")
    summary, _ = judge(project.db, name="flaky", topics=["1003"], limit=3, backend_object=healthy)
    assert len(healthy.requests) == 3
    assert (summary.calls, summary.cache_hits, summary.failures) == (3, 0, 0)
    assert set(labels_of(project, "flaky").values()) == {1.0}


def test_unparseable_answer_is_not_asked_again(project: Project) -> None:
    judge(project.db, name="wordy", topics=["1003"], limit=3, backend_object=ScriptedBackend("Hmm."))
    again = ScriptedBackend("##final score: 1")
    summary, _ = judge(project.db, name="wordy", topics=["1003"], limit=3, backend_object=again)
    assert again.requests == []
    assert (summary.cache_hits, summary.failures) == (3, 3)


def test_cli_lists_failures(db: Path) -> None:
    with Project.open(db) as project:
        judge(project.db, name="wordy", topics=["1001"], limit=2, backend_object=ScriptedBackend("I think so."))
    result = cli(db, "judge", "--name", "wordy", "--failures", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert [row["output"] for row in json.loads(result.stdout)] == ["I think so.", "I think so."]


def test_label_events_of_a_judge_have_origin_judge(project: Project) -> None:
    summary, _ = judge(project.db, name="sim", topics=["1001"], kappa=1.0)
    events = (
        project.db.cursor()
        .execute(
            "SELECT e.origin, e.source, count(*) FROM label_events e JOIN label_sets s USING (label_set_id)"
            " WHERE s.name = 'sim' GROUP BY ALL"
        )
        .fetchall()
    )
    assert events == [("judge", f"judge run {summary.judge_run}", 28)]
    assert scalar(project.db.cursor(), "SELECT kind FROM label_sets WHERE name = 'sim'") == "simulated"


def test_rerun_with_the_same_answers_appends_no_label_event(project: Project) -> None:
    judge(project.db, name="sim", topics=["1001"])
    count = "SELECT count(*) FROM label_events JOIN label_sets s USING (label_set_id) WHERE s.name = 'sim'"
    before = scalar(project.db.cursor(), count)
    judge(project.db, name="sim", topics=["1001"])
    assert scalar(project.db.cursor(), count) == before


def test_judgments_point_at_their_stored_calls(project: Project) -> None:
    summary, _ = judge(project.db, name="sim", topics=["1008"])
    keys = {r[3] for r in judgments(project, summary.judge_run)}
    stored = {k for (k,) in project.db.cursor().execute("SELECT key FROM calls WHERE backend <> 'import'").fetchall()}
    assert len(keys) == 28
    assert keys == stored


# -- pairwise ----------------------------------------------------------------------------------


def wins_from_judgments(project: Project, run: int) -> dict[tuple[str, str], float]:
    answers = {(r[0], r[1], r[2]): r[4] for r in judgments(project, run) if r[2] is not None}
    wins: dict[tuple[str, str], float] = {}
    for (qid, a, b), label in answers.items():
        wins.setdefault((qid, a), 0.0)
        wins.setdefault((qid, b), 0.0)
        if a < b:
            reverse = answers.get((qid, b, a))
            if label == 1.0 and reverse == 2.0:
                wins[(qid, a)] += 1
            elif label == 2.0 and reverse == 1.0:
                wins[(qid, b)] += 1
    return wins


def test_pairwise_labels_are_win_counts(project: Project) -> None:
    summary, _ = judge(project.db, method="pairwise", name="pref", topics=["1001", "1002"], kappa=0.8)
    labels = labels_of(project, "pref")
    assert set(labels) == set(topic_pairs("1001", "1002"))
    assert labels == wins_from_judgments(project, summary.judge_run)
    assert all(isinstance(v, float) and v >= 0 for v in labels.values())
    assert any(not v.is_integer() or v > 1 for v in labels.values())


def test_pairwise_asks_every_sampled_pair_in_both_orders(project: Project) -> None:
    summary, _ = judge(project.db, method="pairwise", name="pref", topics=["1003"])
    asked = {(r[1], r[2]) for r in judgments(project, summary.judge_run)}
    assert asked and all((b, a) in asked for a, b in asked)
    assert len(asked) // 2 <= 7 * 28
    assert summary.calls == len(asked)


def test_leaderboards_work_on_pairwise_wins(project: Project) -> None:
    judge(project.db, method="pairwise", name="pref", topics=["1001", "1002"], kappa=1.0)
    compat = project.leaderboard("pref", "Compat(p=0.9)")
    assert set(compat) == {r["name"] for r in project.runs()}
    assert all(0.0 <= v <= 1.0 for v in compat.values())
    assert any(v > 0 for v in compat.values())
    assert set(project.leaderboard("pref", "nDCG@10")) == set(compat)
