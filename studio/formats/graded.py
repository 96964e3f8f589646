"""Item-level grades in the two interchange formats the rubric tools use.

* Rubric-workbench graded files (`exam_pp` `QueryWithFullParagraphList`): one JSON array per
  line, `[query_id, [paragraph, …]]`; each paragraph carries `paragraph_id`, `text`,
  `paragraph_data.judgments` (reference labels) and `exam_grades`, whose entries hold the model
  (`llm`), the prompt (`prompt_info`, `prompt_type`), the self-ratings per item, the raw answers
  per item, and the studio's failures in `llm_response_errors`.
* Nuggetizer assignment JSONL (`assign_nuggets.py` output): one record per judged document or
  answer with `qid`, `query`, `answer_text`, `run_id` and `nuggets: [{text, importance,
  assignment}]`; the studio adds `docid` and, for a nugget whose window failed, `error`.

Writers are the inverse of the readers for what the formats hold, so an export read back and
exported again gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from studio.domain.errors import InputError
from studio.domain.json_text import json_text
from studio.domain.models import ANSWER_PREFIX, BankItem, rubric_item_id
from studio.domain.numbers import json_grade, why_not_json_grade
from studio.formats.checks import checked_id
from studio.formats.jsonl import id_field, json_objects, json_value
from studio.formats.text_input import Text, numbered_lines

ASSIGNMENT_LABELS = {1.0: "support", 0.5: "partial_support", 0.0: "not_support"}
# The workbench's prompt classes for the studio's self-rating methods (prompt_info.prompt_class).
PROMPT_CLASSES = {
    "exam-question": ("QuestionSelfRatedUnanswerablePromptWithChoices", "question"),
    "exam-nugget": ("NuggetSelfRatedPrompt", "nugget"),
    "subtopic": ("SubtopicBinaryPrompt", "subtopic"),
}
METHOD_OF_PROMPT_TYPE = {prompt_type: method for method, (_, prompt_type) in PROMPT_CLASSES.items()}
# Grades given to workbench answers that were checked, not self-rated (no self_ratings).
UNRATED_CORRECT, UNRATED_WRONG = 5.0, 0.0


@dataclass(frozen=True, slots=True)
class ItemJudgment:
    """One (topic, document, item) cell: its grade, or None with the reason it failed."""

    qid: str
    docid: str
    item_id: str
    grade: float | None
    output: str | None = None  # the model's raw answer, where the format keeps it
    error: str | None = None


@dataclass
class Grader:
    """Who graded: the method, model and prompt of a judge run."""

    method: str
    model: str
    backend: str = ""
    prompt_name: str = ""
    prompt_hash: str = ""
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class GradedFile:
    grader: Grader
    judgments: list[ItemJudgment]
    items: list[BankItem] = field(default_factory=list)  # nuggetizer files name their nuggets


def _json_line(value: Any) -> str:
    return json_text(value) + "\n"


def _number(grade: float) -> int | float:
    return int(grade) if float(grade).is_integer() else grade


# --- Rubric-workbench graded files ---------------------------------------------------------------


def write_rubric_graded(
    grader: Grader,
    judgments: Sequence[ItemJudgment],
    texts: Mapping[tuple[str, str], str],
    reference: Mapping[tuple[str, str], float] | None = None,
    min_grade: float = 4.0,
) -> str:
    """One `[qid, [paragraph…]]` line per topic, topics and documents in the order of `judgments`.

    `correctAnswered` lists the items graded ≥ `min_grade` (the workbench's threshold), the
    other graded items are `wrongAnswered`; failures go to `llm_response_errors` only.
    """
    by_doc: dict[str, dict[str, list[ItemJudgment]]] = {}
    for judgment in judgments:
        by_doc.setdefault(judgment.qid, {}).setdefault(judgment.docid, []).append(judgment)
    lines = []
    for qid, docs in by_doc.items():
        paragraphs = [
            _paragraph(
                qid,
                docid,
                texts.get((qid, docid), ""),
                (reference or {}).get((qid, docid)),
                _exam_grade(grader, cells, min_grade),
            )
            for docid, cells in docs.items()
        ]
        lines.append(_json_line([qid, paragraphs]))
    return "".join(lines)


def _exam_grade(grader: Grader, cells: list[ItemJudgment], min_grade: float) -> dict[str, Any]:
    """The `exam_grades` entry of one document's cells."""
    prompt_class, prompt_type = PROMPT_CLASSES.get(grader.method, (grader.method, grader.method))
    id_key = "question_id" if prompt_type == "question" else "nugget_id"
    graded = [c for c in cells if c.grade is not None]
    failed = [c for c in cells if c.grade is None]
    correct = [c.item_id for c in graded if c.grade is not None and c.grade >= min_grade]
    return {
        "correctAnswered": correct,
        "wrongAnswered": [c.item_id for c in graded if c.item_id not in set(correct)],
        "answers": [[c.item_id, c.output or ""] for c in cells],
        "llm_response_errors": {
            c.item_id: {"failure_reason": c.error or "no grade", "caught_exception": None, "response": c.output}
            for c in failed
        }
        or None,
        "llm": grader.model,
        "llm_options": {"backend": grader.backend, **grader.options},
        "exam_ratio": len(correct) / len(graded) if graded else 0.0,
        "prompt_info": {
            "prompt_class": prompt_class,
            "prompt_name": grader.prompt_name,
            "prompt_hash": grader.prompt_hash,
            "is_self_rated": True,
        },
        "self_ratings": [{id_key: c.item_id, "self_rating": _number(c.grade)} for c in graded if c.grade is not None],
        "prompt_type": prompt_type,
    }


def _paragraph(qid: str, docid: str, text: str, relevance: float | None, grade: dict[str, Any]) -> dict[str, Any]:
    """A graded document: its text, its reference judgment (when there is one) and its exam grade."""
    return {
        "paragraph_id": docid,
        "text": text,
        "paragraph": None,
        "paragraph_data": {
            "judgments": []
            if relevance is None
            else [{"paragraphId": docid, "query": qid, "relevance": _number(relevance), "titleQuery": qid}],
            "rankings": [],
        },
        "exam_grades": [grade],
        "grades": None,
    }


def _rubric_lines(text: Text, source: str) -> Iterable[tuple[int, str, list[Any]]]:
    for number, line in numbered_lines(text):
        value = json_value(line, source, number)
        if not (
            isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], list)
        ):
            raise InputError(source, number, "expected a graded line [query_id, [paragraph, …]]")
        yield number, checked_id(value[0], "query_id", source, number), value[1]


def _grader_key(entry: Mapping[str, Any]) -> tuple[str, str]:
    info = entry.get("prompt_info") or {}
    return str(entry.get("llm")), str(info.get("prompt_class") if isinstance(info, dict) else None)


def _ratings(entry: Mapping[str, Any], source: str, line: int) -> dict[str, float]:
    """Item grades of one exam_grades entry: self-ratings, or correct/wrong when not self-rated."""
    ratings = entry.get("self_ratings")
    if ratings is None:
        return {
            **{str(i): UNRATED_WRONG for i in entry.get("wrongAnswered") or []},
            **{str(i): UNRATED_CORRECT for i in entry.get("correctAnswered") or []},
        }
    grades = {}
    for rating in ratings:
        item_id = rating.get("question_id") or rating.get("nugget_id") if isinstance(rating, dict) else None
        value = rating.get("self_rating") if isinstance(rating, dict) else None
        if not item_id or isinstance(value, bool) or not isinstance(value, int | float):
            raise InputError(source, line, f"self rating {rating!r} needs an item id and a number")
        grade = json_grade(value)
        if grade is None:
            raise InputError(source, line, f"self rating {value!r} of item {item_id!r} {why_not_json_grade(value)}")
        grades[str(item_id)] = grade
    return grades


def parse_rubric_graded(text: Text, source: str, llm: str | None = None) -> GradedFile:
    """The item grades of one grader (one `llm` and prompt class) in a workbench graded file.

    A file holding several graders must be narrowed with `llm`; an error names the choices.
    """
    chosen: tuple[str, str] | None = None
    grader: Grader | None = None
    judgments: list[ItemJudgment] = []
    seen: set[tuple[str, str]] = set()
    for number, qid, paragraphs in _rubric_lines(text, source):
        for paragraph in paragraphs:
            docid = _paragraph_id(paragraph, qid, source, number, seen)
            for entry in _entries(paragraph, llm):
                key = _grader_key(entry)
                if chosen is None:
                    chosen, grader = key, _grader_of(entry, key)
                elif key != chosen:
                    raise InputError(
                        source,
                        number,
                        f"the file holds grades of several graders ({chosen[0]} with "
                        f"{chosen[1]}, {key[0]} with {key[1]}): choose one with --llm",
                    )
                judgments += _entry_judgments(entry, qid, docid, source, number)
    if grader is None:
        raise InputError(source, None, "no exam grades in the file" + (f" by {llm!r}" if llm else ""))
    return GradedFile(grader, judgments)


def _paragraph_id(paragraph: Any, qid: str, source: str, line: int, seen: set[tuple[str, str]]) -> str:
    """The paragraph's document id, checked and marked `seen`: a document graded twice is refused."""
    if not isinstance(paragraph, dict) or not isinstance(paragraph.get("paragraph_id"), str):
        raise InputError(source, line, "each paragraph needs a paragraph_id")
    docid = checked_id(paragraph["paragraph_id"], "paragraph_id", source, line)
    if (qid, docid) in seen:
        raise InputError(source, line, f"paragraph {docid!r} of topic {qid!r} appears twice")
    seen.add((qid, docid))
    return docid


def _entries(paragraph: Mapping[str, Any], llm: str | None) -> list[dict[str, Any]]:
    """The paragraph's exam_grades entries (those by `llm` when given)."""
    return [
        e for e in paragraph.get("exam_grades") or [] if isinstance(e, dict) and (llm is None or e.get("llm") == llm)
    ]


def _grader_of(entry: Mapping[str, Any], key: tuple[str, str]) -> Grader:
    """The grader an entry names; its method from the prompt type, else guessed from the prompt class."""
    info = entry.get("prompt_info") or {}
    prompt_type = entry.get("prompt_type") or ""
    method = METHOD_OF_PROMPT_TYPE.get(prompt_type) or (
        "exam-nugget" if "nugget" in key[1].lower() else "exam-question"
    )
    options = dict(entry.get("llm_options") or {})
    return Grader(
        method,
        key[0],
        str(options.pop("backend", "")),
        str(info.get("prompt_name") or key[1]),
        str(info.get("prompt_hash") or ""),
        options,
    )


def _entry_judgments(entry: Mapping[str, Any], qid: str, docid: str, source: str, line: int) -> list[ItemJudgment]:
    """One entry's cells: a grade per rated item, a failure per item with only an error."""
    grades = _ratings(entry, source, line)
    answers = {str(i): a for i, a in entry.get("answers") or [] if isinstance(a, str)}
    errors = entry.get("llm_response_errors") or {}
    judgments = []
    # Cells in the order the answers list them (the order they were graded in).
    for item_id in dict.fromkeys([*answers, *grades, *errors]):
        if item_id in grades:
            judgments.append(ItemJudgment(qid, docid, item_id, grades[item_id], answers.get(item_id)))
        elif item_id in errors:
            failure = errors[item_id] if isinstance(errors[item_id], dict) else {}
            judgments.append(
                ItemJudgment(
                    qid, docid, item_id, None, failure.get("response"), str(failure.get("failure_reason") or "no grade")
                )
            )
    return judgments


# --- nuggetizer assignment JSONL -----------------------------------------------------------------


def write_nugget_assignments(
    judgments: Sequence[ItemJudgment],
    items: Sequence[BankItem],
    texts: Mapping[tuple[str, str], str],
    queries: Mapping[str, str],
) -> str:
    """One record per judged document in the order of `judgments`, nuggets in bank order."""
    by_id = {(item.qid, item.item_id): item for item in items}
    by_doc: dict[tuple[str, str], dict[str, ItemJudgment]] = {}
    for judgment in judgments:
        by_doc.setdefault((judgment.qid, judgment.docid), {})[judgment.item_id] = judgment
    lines = []
    for (qid, docid), cells in by_doc.items():
        answer = texts.get((qid, docid), "")
        record: dict[str, Any] = {"query": queries.get(qid, ""), "qid": qid, "docid": docid}
        if docid.startswith(ANSWER_PREFIX):
            record["run_id"] = docid.removeprefix(ANSWER_PREFIX)
        record |= {"answer_text": answer, "response_length": len(answer.split()), "nuggets": []}
        for item_id, cell in cells.items():
            item = by_id.get((qid, item_id))
            nugget: dict[str, Any] = {"text": item.text if item else item_id, "nugget_id": item_id}
            if item is not None and item.importance:
                nugget["importance"] = item.importance
            nugget["assignment"] = None if cell.grade is None else ASSIGNMENT_LABELS[cell.grade]
            if cell.error:
                nugget["error"] = cell.error
            record["nuggets"].append(nugget)
        lines.append(_json_line(record))
    return "".join(lines)


def parse_nugget_assignments(text: Text, source: str) -> GradedFile:
    """Nugget assignments per document; the nuggets (with importance) become the file's items."""
    grades = {label: value for value, label in ASSIGNMENT_LABELS.items()}
    judgments: list[ItemJudgment] = []
    items: dict[tuple[str, str], BankItem] = {}
    seen: set[tuple[str, str]] = set()
    for number, record in json_objects(text, source):
        qid = id_field(record, ("qid", "query_id", "topic_id"), source, number)
        assert qid is not None
        docid = record.get("docid") or (ANSWER_PREFIX + str(record["run_id"]) if record.get("run_id") else None)
        if not isinstance(docid, str) or not docid:
            raise InputError(source, number, "a record needs a docid or a run_id")
        checked_id(docid, "docid", source, number)
        if (qid, docid) in seen:
            raise InputError(source, number, f"({qid}, {docid}) is assigned twice")
        seen.add((qid, docid))
        nuggets = record.get("nuggets")
        if not isinstance(nuggets, list):
            raise InputError(source, number, "field 'nuggets' must be a list")
        for nugget in nuggets:
            if not isinstance(nugget, dict) or not isinstance(nugget.get("text"), str):
                raise InputError(source, number, "each nugget needs a 'text'")
            body = nugget["text"].strip()
            if not body:
                raise InputError(source, number, "a nugget's text is empty")
            item_id = str(nugget.get("nugget_id") or rubric_item_id(qid, body))
            importance = nugget.get("importance")
            if importance not in (None, "vital", "okay"):
                raise InputError(source, number, f"importance must be vital or okay, not {importance!r}")
            items.setdefault((qid, item_id), BankItem(qid, item_id, "nugget", body, importance))
            label = nugget.get("assignment")
            if label is not None and label not in grades:
                raise InputError(source, number, f"assignment must be one of {', '.join(grades)}, not {label!r}")
            error = nugget.get("error")
            judgments.append(
                ItemJudgment(
                    qid,
                    docid,
                    item_id,
                    None if label is None else grades[label],
                    None,
                    (str(error) if error else "no assignment") if label is None else None,
                )
            )
    if not judgments:
        raise InputError(source, None, "the file holds no nugget assignments")
    return GradedFile(Grader("nugget-assign", "imported"), judgments, list(items.values()))
