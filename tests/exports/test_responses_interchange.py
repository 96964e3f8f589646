"""Generated answers out and back in: `studio export responses` writes what `studio import
responses` reads, as the studio's JSONL or as TREC RAG 2024 records, to a file, gzipped or to
stdout; a system without answers is refused."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from helpers import cli
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from studio import Project
from studio.domain.choices import AnswerLayout
from studio.domain.models import Response
from studio.formats.responses import parse_responses, write_responses
from studio.store import catalog


def answers(path: Path) -> list[Response]:
    with Project.open(path) as project:
        return catalog.responses_of(project.db.cursor())


@pytest.mark.parametrize(("layout", "name"), [("jsonl", "answers.jsonl"), ("rag24", "answers.rag24.jsonl.gz")])
def test_answers_go_out_and_come_back_the_same(sample: Path, tmp_path: Path, layout: str, name: str) -> None:
    out = tmp_path / name
    result = cli(sample, "export", "responses", "--as", layout, "--out", out)
    assert result.exit_code == 0, result.output
    assert "3 systems, 30 answers" in result.stderr
    text = gzip.decompress(out.read_bytes()).decode() if name.endswith(".gz") else out.read_text()
    first = json.loads(text.splitlines()[0])
    assert set(first) == (
        {"qid", "system", "text", "citations"} if layout == "jsonl" else {"run_id", "topic_id", "references", "answer"}
    )
    fresh = tmp_path / "fresh.duckdb"
    result = cli(fresh, "import", "responses", out)
    assert result.exit_code == 0, result.output
    assert answers(fresh) == answers(sample)


def test_one_system_to_stdout_and_an_unknown_one_refused(sample: Path) -> None:
    result = cli(sample, "export", "responses", "--system", "terse", "--out", "-")
    assert result.exit_code == 0, result.output
    systems = {json.loads(line)["system"] for line in result.stdout.splitlines()}
    assert systems == {"terse"}
    refused = cli(sample, "export", "responses", "--system", "nonesuch", "--out", "-")
    assert refused.exit_code == 2 and "no answers of system nonesuch" in refused.stderr


ids = st.text(alphabet="abcxyz0123456789-_.", min_size=1, max_size=8)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.builds(
            Response,
            ids,
            st.sampled_from(["sys-a", "sys_b"]),
            st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=40).map(str.strip),
            st.lists(ids, max_size=4, unique=True).map(tuple),
        ),
        min_size=1,
        max_size=6,
        unique_by=lambda r: (r.qid, r.system),
    ),
    st.sampled_from(list(AnswerLayout)),
)
def test_written_answers_parse_back(found: list[Response], layout: AnswerLayout) -> None:
    assert parse_responses(write_responses(found, layout), "answers") == found
