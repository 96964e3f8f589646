"""Bank writers: each is the inverse of `parse_bank` for what its format can carry.

The expected result of a lossy format is computed here independently (ids re-derived as
qid/md5(text), gold answers gone, nuggetizer turning questions into nuggets), so the writers'
own `losses` report is checked against it rather than trusted.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import json
import string
from pathlib import Path

import pytest
from helpers import copy_project
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from studio import Project
from studio.domain.choices import BankFormat
from studio.domain.errors import UsageError
from studio.domain.models import BankItem
from studio.formats.bank_writers import (
    encode,
    format_for_name,
    losses,
    nuggetizer_jsonl,
    render_bank,
    rubric_jsonl,
    rubric_questions_jsonl,
    tsv,
)
from studio.formats.banks import parse_bank
from studio.store import banks as bank_store
from studio.store.pools import topic_texts

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def md5_id(qid: str, text: str) -> str:
    return qid + "/" + hashlib.md5(text.encode("utf-8")).hexdigest()


def expected_after(items: list[BankItem], fmt: BankFormat) -> list[BankItem]:
    """What a re-import gives back, by the formats' definitions (docs/design.md#5-input-formats)."""
    if fmt is BankFormat.rubric:
        return items
    if fmt is BankFormat.rubric_questions:  # ids and importance kept; questions only, no gold answers
        return [dataclasses.replace(item, kind="question", gold_answers=()) for item in items]
    kind = "nugget" if fmt is BankFormat.nuggetizer else None
    return [
        dataclasses.replace(item, item_id=md5_id(item.qid, item.text), gold_answers=(), kind=kind or item.kind)
        for item in items
    ]


def round_trip(items: list[BankItem], fmt: BankFormat, texts: dict[str, str] | None = None) -> list[BankItem]:
    kinds = {item.kind for item in items}
    kind = kinds.pop() if fmt is BankFormat.tsv and len(kinds) == 1 else None
    return parse_bank(render_bank(items, fmt, texts), f"bank.{fmt}", kind)


SampleBanks = dict[str, tuple[list[BankItem], dict[str, str]]]


@pytest.fixture(scope="module")
def sample_banks(sample_template: Path, tmp_path_factory: pytest.TempPathFactory) -> SampleBanks:
    """{bank: (current items, topic texts)} of the sample project."""
    path = copy_project(sample_template, tmp_path_factory.mktemp("sample"), "sample.duckdb")
    with Project.sample(path) as project:
        con = project.db.cursor()
        found: SampleBanks = {}
        for name in ("questions", "nuggets"):
            bank = bank_store.bank_id(con, name)
            assert bank is not None
            items = bank_store.current_items(con, bank)
            found[name] = (items, topic_texts(con, [item.qid for item in items]))
    return found


@pytest.mark.parametrize("fmt", list(BankFormat))
@pytest.mark.parametrize("bank", ["questions", "nuggets"])
def test_sample_banks_round_trip(sample_banks: SampleBanks, bank: str, fmt: BankFormat) -> None:
    items, texts = sample_banks[bank]
    assert len(items) >= 100
    assert round_trip(items, fmt, texts) == expected_after(items, fmt)


@pytest.mark.parametrize("fmt", [fmt for fmt in BankFormat if fmt is not BankFormat.rubric_questions])
def test_the_sample_nugget_bank_loses_nothing_in_any_format(sample_banks: SampleBanks, fmt: BankFormat) -> None:
    items, texts = sample_banks["nuggets"]
    assert any(item.importance for item in items)
    assert round_trip(items, fmt, texts) == items
    assert losses(items, fmt) == []


def test_sample_question_bank_losses_are_reported(sample_banks: SampleBanks) -> None:
    items, _ = sample_banks["questions"]
    assert losses(items, BankFormat.rubric) == []
    assert losses(items, BankFormat.tsv) == ["TSV does not say the kind: re-import with --kind question"]
    assert losses(items, BankFormat.nuggetizer) == ["questions are written as nuggets (nuggetizer holds nuggets only)"]
    assert losses(items, BankFormat.rubric_questions) == []
    nuggets, _ = sample_banks["nuggets"]
    assert losses(nuggets, BankFormat.rubric_questions) == [
        "nuggets are written as questions (rubric-questions holds questions only)"
    ]


def test_the_writers_reproduce_the_sample_files(sample_banks: SampleBanks) -> None:
    questions, texts = sample_banks["questions"]
    published = gzip.decompress((SAMPLE / "banks" / "questions.jsonl.gz").read_bytes()).decode("utf-8")
    assert rubric_jsonl(questions, texts, test_collection="studio-sample") == published
    nuggets, texts = sample_banks["nuggets"]
    assert nuggetizer_jsonl(nuggets, texts) == (SAMPLE / "banks" / "nuggets.jsonl").read_text(encoding="utf-8")


# -- generated banks ------------------------------------------------------------------------------

QIDS = st.text(alphabet=string.ascii_letters + string.digits + "_-.:/é", min_size=1, max_size=8)
# Unicode (no surrogates), quotes, braces, backslashes; texts are stripped by the reader.
ANY_TEXT = (
    st.text(
        alphabet=st.one_of(st.characters(exclude_categories=["Cs"]), st.sampled_from("\"'{}[]\\,:\t\n ")),
        min_size=1,
        max_size=30,
    )
    .map(str.strip)
    .filter(bool)
)
TSV_TEXT = ANY_TEXT.filter(lambda text: not any(c in text for c in "\t\n\r"))
IMPORTANCE = st.sampled_from([None, "vital", "okay"])


@st.composite
def banks(draw: st.DrawFn, texts: st.SearchStrategy[str], *, rich: bool) -> list[BankItem]:
    """Items grouped by topic, unique texts per topic; `rich` adds own ids, gold answers, kinds."""
    qids = draw(st.lists(QIDS, min_size=1, max_size=4, unique=True))
    items = []
    for qid in qids:
        for n, text in enumerate(draw(st.lists(texts, min_size=1, max_size=5, unique=True))):
            kind = draw(st.sampled_from(["question", "nugget"])) if rich else "nugget"
            item_id = draw(st.one_of(st.just(md5_id(qid, text)), st.just(f"{qid}#{n}"))) if rich else md5_id(qid, text)
            gold = tuple(draw(st.lists(ANY_TEXT, max_size=3))) if rich else ()
            items.append(BankItem(qid, item_id, kind, text, draw(IMPORTANCE), gold))
    return items


@settings(max_examples=examples(150), deadline=None)
@given(banks(ANY_TEXT, rich=True), st.dictionaries(QIDS, ANY_TEXT))
def test_rubric_round_trips_everything(items: list[BankItem], texts: dict[str, str]) -> None:
    assert parse_bank(rubric_jsonl(items, texts), "b.jsonl") == items
    assert losses(items, BankFormat.rubric) == []


@settings(max_examples=examples(150), deadline=None)
@given(banks(ANY_TEXT, rich=False), st.dictionaries(QIDS, ANY_TEXT))
def test_nuggetizer_round_trips_nuggets(items: list[BankItem], texts: dict[str, str]) -> None:
    assert parse_bank(nuggetizer_jsonl(items, texts), "b.jsonl") == items
    assert losses(items, BankFormat.nuggetizer) == []


@settings(max_examples=examples(150), deadline=None)
@given(banks(TSV_TEXT, rich=False), st.sampled_from(["question", "nugget"]))
def test_tsv_round_trips_items_of_one_kind(items: list[BankItem], kind: str) -> None:
    items = [dataclasses.replace(item, kind=kind) for item in items]
    assert parse_bank(tsv(items), "b.tsv", kind) == items


@settings(max_examples=examples(150), deadline=None)
@given(banks(ANY_TEXT, rich=True), st.dictionaries(QIDS, ANY_TEXT))
def test_rubric_questions_round_trip_questions_with_their_ids(items: list[BankItem], texts: dict[str, str]) -> None:
    items = [dataclasses.replace(item, kind="question", gold_answers=()) for item in items]
    assert parse_bank(rubric_questions_jsonl(items, texts), "b.jsonl") == items
    assert losses(items, BankFormat.rubric_questions) == []


@settings(max_examples=examples(100), deadline=None)
@given(
    banks(ANY_TEXT, rich=True), st.sampled_from([BankFormat.nuggetizer, BankFormat.rubric, BankFormat.rubric_questions])
)
def test_lossy_formats_lose_exactly_what_they_report(items: list[BankItem], fmt: BankFormat) -> None:
    expected = expected_after(items, fmt)
    assert round_trip(items, fmt) == expected
    assert (losses(items, fmt) == []) == (expected == items)


# -- details -------------------------------------------------------------------------------------


def test_tsv_numbers_items_per_topic_and_keeps_importance() -> None:
    items = [
        BankItem("q_1", md5_id("q_1", "a"), "nugget", "a", "vital"),
        BankItem("q_1", md5_id("q_1", "b"), "nugget", "b"),
        BankItem("q2", md5_id("q2", "c"), "nugget", "c", "okay"),
    ]
    assert tsv(items) == "q_1_1\ta\tvital\nq_1_2\tb\nq2_1\tc\tokay\n"


def test_rubric_line_has_the_workbench_shape() -> None:
    item = BankItem("q1", "q1/x", "question", 'say "{hi}"', "okay", ("hi",))
    (line,) = rubric_jsonl([item], {"q1": "greeting"}, "coll").splitlines()
    assert json.loads(line) == {
        "query_id": "q1",
        "facet_id": None,
        "test_collection": "coll",
        "query_text": "greeting",
        "info": None,
        "items": [
            {
                "query_id": "q1",
                "facet_id": None,
                "info": {"importance": "okay"},
                "question_id": "q1/x",
                "question_text": 'say "{hi}"',
                "gold_answers": ["hi"],
            }
        ],
    }


@pytest.mark.parametrize("text", ["a\tb", "a\nb", "a\rb"])
def test_tsv_refuses_a_text_it_cannot_carry(text: str) -> None:
    with pytest.raises(UsageError, match="TSV cannot carry"):
        tsv([BankItem("q1", "q1/x", "nugget", text)])


@pytest.mark.parametrize(
    ("name", "fmt"),
    [("b.tsv", "tsv"), ("B.TSV.gz", "tsv"), ("b.jsonl", "rubric"), ("b.jsonl.gz", "rubric"), ("-", "rubric")],
)
def test_format_follows_the_file_name(name: str, fmt: str) -> None:
    assert format_for_name(name) == fmt


@pytest.mark.parametrize(
    ("name", "layout", "fmt"),
    [
        ("b.jsonl.gz", "rubric-questions", "rubric-questions"),
        ("-", "nuggetizer", "nuggetizer"),
        ("b.json", "rubric", "rubric"),
        ("b.tsv", "rubric-questions", "tsv"),
        ("b.jsonl", "tsv", "rubric"),
        ("b.jsonl", None, "rubric"),
    ],
)
def test_format_follows_the_layout_the_bank_came_in(name: str, layout: str | None, fmt: str) -> None:
    """A `.tsv` name still means TSV; a bank that came in TSV or in no layout writes Rubric JSONL."""
    assert format_for_name(name, layout) == fmt


def test_rubric_questions_line_has_the_older_workbench_shape() -> None:
    """Keys in the order of the workbench's QueryQuestionBank and ExamQuestion, json.dumps defaults."""
    items = [BankItem("q1", "q1/x", "question", "Où?", "vital", ("lost",)), BankItem("q1", "q1/y", "nugget", "b")]
    (line,) = rubric_questions_jsonl(items, {"q1": "café"}, "dl20").splitlines()
    assert line == (
        '{"query_id": "q1", "facet_id": null, "test_collection": "dl20", "query_text": "caf\\u00e9", "info": null,'
        ' "questions": [{"question_id": "q1/x", "question_text": "O\\u00f9?", "query_id": "q1", "facet_id": null,'
        ' "info": {"importance": "vital"}}, {"question_id": "q1/y", "question_text": "b", "query_id": "q1",'
        ' "facet_id": null, "info": null}]}'
    )
    assert losses(items, BankFormat.rubric_questions) == [
        "1 items lose their gold answers (rubric-questions has no field for them)",
        "nuggets are written as questions (rubric-questions holds questions only)",
    ]


def test_gzip_bytes_are_reproducible() -> None:
    first, second = encode("x\n", True), encode("x\n", True)
    assert first == second and first[4:8] == b"\0\0\0\0"
    assert gzip.decompress(first) == b"x\n" and encode("x\n", False) == b"x\n"
