"""AutoNuggetizer: nuggets from relevant documents, windows of 10, vital/okay, top 20."""

from __future__ import annotations

import ast
from pathlib import Path

from fakes import ScriptedBackend, prompt_of
from helpers import scalar

from studio import Project
from studio.domain.bank_results import NuggetizedBank, NuggetizedTopic
from studio.domain.judging import JudgeConfig
from studio.judges.backend import ChatRequest
from studio.judges.parsing import parse_python_list
from studio.services.rubric.editing import BankEditor
from studio.services.rubric.nuggetizer import nuggetize


def test_parse_python_list() -> None:
    assert parse_python_list("Updated Nugget List: ['a b', \"c\"]") == ["a b", "c"]
    assert parse_python_list('["x", "y"] and later [1, 2]') == ["x", "y"]
    assert parse_python_list("no list here") is None
    assert parse_python_list("[1, 2]") is None


def nuggetize_by_script(request: ChatRequest) -> str:
    """Adds one nugget per document window ('fact N' for the window's first [1] line); labels the
    first nugget of each scoring window vital and the others okay; fails on topic 1003."""
    user = prompt_of(request)
    if request.subject[0] == "1003":
        return "I am not sure."
    if "Initial Nugget List:" in user:
        current = ast.literal_eval(user.split("Initial Nugget List: ")[1].split("\n")[0])
        return repr([*current, f"fact {len(current)}"])
    nuggets = ast.literal_eval(user.split("Nugget List: ")[1].split("\n")[0])
    return repr(["vital"] + ["okay"] * (len(nuggets) - 1))


def test_nuggets_from_relevant_documents(sample: Path) -> None:
    with Project.sample(sample) as project:
        backend = ScriptedBackend(nuggetize_by_script, name="nuggetizer", model="scripted")
        config = JudgeConfig(method="nuggetize", backend="nuggetizer", name="auto", topics=["1001", "1003"])
        *topics, summary = nuggetize(project.db, config, relevant=2, backend=backend)
        # A NuggetizedTopic per topic, in order, then the NuggetizedBank: told apart by type.
        assert all(isinstance(event, NuggetizedTopic) for event in topics)
        assert [event.topic for event in topics if isinstance(event, NuggetizedTopic)] == ["1001", "1003"]
        assert isinstance(summary, NuggetizedBank) and not isinstance(summary, NuggetizedTopic)
        assert (summary.bank, summary.topics) == ("auto", 2)
        relevant = scalar(
            project.db.cursor(),
            "SELECT count(*) FROM labels l JOIN label_sets s USING (label_set_id)"
            " WHERE s.name = 'human' AND l.qid = '1001' AND l.grade >= 2",
        )
        windows = -(-relevant // 10)
        items = BankEditor(project.db, "auto").items()
        topic_items = [i for i in items if i["qid"] == "1001"]
        assert [i["text"] for i in topic_items] == [f"fact {n}" for n in range(windows)]  # one per window of 10
        assert topic_items[0]["importance"] == "vital"
        assert all(i["importance"] == "okay" for i in topic_items[1:])
        assert [i for i in items if i["qid"] == "1003"] == []  # unreadable answers: no nuggets
        assert summary.failures >= 1 and summary.calls == backend.calls
        assert summary.items == len(items)
        prompts = [prompt_of(r) for r in backend.requests]
        contexts = [p for p in prompts if "Initial Nugget List: []" in p and "[1] " in p]
        assert contexts  # the first window starts from an empty list and numbers its documents
        *_, again = nuggetize(project.db, config, relevant=2, backend=backend, replace=True)
        assert isinstance(again, NuggetizedBank)
        assert again.calls == 0 and again.cache_hits == summary.calls
