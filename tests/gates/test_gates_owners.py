"""Every write to a label set goes through what owns it: a derived set follows its sources, an
audit's gold set takes the audit's grades, an undo never reaches across an import that replaced the
label, and topics and documents change their text only when asked (with --replace)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from gates.conftest import fingerprint
from helpers import Studio

from studio import Project
from studio.domain.errors import UsageError
from studio.domain.specs import AuditDrawSpec
from studio.domain.views import ReviewFilters

Write = Callable[[str, str | bytes], Path]
LLM = "umbrela-smol"


def ok(result: object) -> Any:
    """The command's JSON output (None for a table), after checking it succeeded."""
    exit_code, stdout, stderr = result.exit_code, result.stdout, result.stderr  # type: ignore[attr-defined]
    assert exit_code == 0, stderr
    return json.loads(stdout) if stdout.lstrip().startswith(("{", "[")) else None


def refused(result: object, *words: str) -> None:
    exit_code, stderr = result.exit_code, result.stderr  # type: ignore[attr-defined]
    assert exit_code == 2, stderr
    assert "Traceback" not in stderr
    for word in words:
        assert word in stderr, stderr


def checked(studio: Studio) -> None:
    result = studio("check")
    assert result.exit_code == 0, result.stdout + result.stderr


def labels_of(project: Path, name: str) -> dict[tuple[str, str], float]:
    with Project.open(project) as opened:
        evaluator = opened.engine.evaluator(name)
        return {(q, d): g for q, topic in evaluator.labels.items() for d, g in topic.judged.items()}


def qrels_file(write: Write, name: str, labels: dict[tuple[str, str], float]) -> Path:
    return write(name, "".join(f"{q} 0 {d} {g:g}\n" for (q, d), g in sorted(labels.items())))


# -- derived sets ----------------------------------------------------------------------------------


@pytest.mark.parametrize("importer", ["qrels", "judgments"])
def test_an_import_never_replaces_a_derived_set(importer: str, studio: Studio, project: Path, write: Write) -> None:
    ok(studio("ensemble", "--qrels", "human", "--qrels", LLM, "--how", "mean", "--name", "E"))
    before = fingerprint(project)
    if importer == "qrels":
        path = qrels_file(write, "e.qrels", {("1001", "x"): 1.0})
    else:
        path = write("e.jsonl", json.dumps({"qid": "1001", "docid": "x", "judgment": 1, "result_status": 1}) + "\n")
    refused(studio("import", importer, path, "--name", "E", "--replace"), "E is derived", "ensemble")
    assert fingerprint(project) == before
    checked(studio)


def test_label_still_refuses_a_derived_set(studio: Studio) -> None:
    ok(studio("ensemble", "--qrels", "human", "--qrels", LLM, "--how", "mean", "--name", "E"))
    refused(studio("label", "--qrels", "E", "1001", "x", "2"), "E is derived")


# -- an audit's gold set ---------------------------------------------------------------------------


def planned(studio: Studio) -> list[dict[str, str]]:
    ok(studio("audit", "plan", "--qrels", LLM, "--name", "gate", "--budget", "3", "--design", "pairs", "--seed", "4"))
    pairs = ok(studio("audit", "pairs", "gate", "--format", "json"))
    assert isinstance(pairs, list)
    return pairs


def test_label_and_import_replace_refuse_an_audits_gold_set(studio: Studio, project: Path, write: Write) -> None:
    pairs = planned(studio)
    before = fingerprint(project)
    first = pairs[0]
    refused(
        studio("label", "--qrels", "gate", first["qid"], first["docid"], "2"), "gold set of audit gate", "audit import"
    )
    path = qrels_file(write, "g.qrels", {(p["qid"], p["docid"]): 2.0 for p in pairs} | {("1001", "extra"): 1.0})
    refused(studio("import", "qrels", path, "--name", "gate", "--replace"), "gold set of audit gate")
    assert fingerprint(project) == before
    # the audit's own way in still works, and the audit counts what it took
    ok(studio("audit", "import", "gate", qrels_file(write, "a.qrels", {(p["qid"], p["docid"]): 2.0 for p in pairs})))
    shown = ok(studio("audit", "show", "gate", "--format", "json"))
    assert isinstance(shown, dict) and "3" in json.dumps(shown)
    checked(studio)


def test_an_open_project_refuses_the_gold_set_of_an_audit_it_just_planned(project: Path) -> None:
    with Project.open(project) as opened:
        edit = opened.set_label(LLM, "1001", "gate-doc", 1)  # the owners are known (and kept) from here on
        opened.undo(LLM)
        pairs = opened.plan_audit(AuditDrawSpec(LLM, name="fresh", budget=4, design="pairs"))
        assert pairs["units"] and edit["grade"] == 1
        first = opened.audit_pairs("fresh")[0]
        with pytest.raises(UsageError, match="gold set of audit fresh"):
            opened.set_label("fresh", first["qid"], first["docid"], 2)


def test_an_estimate_says_when_the_audited_set_changed_after_the_draw(studio: Studio, write: Write) -> None:
    pairs = planned(studio)
    ok(studio("audit", "import", "gate", qrels_file(write, "a.qrels", {(p["qid"], p["docid"]): 2.0 for p in pairs})))
    args = ("estimate", "--qrels", LLM, "--gold", "gate", "--design", "pairs", "--format", "json")
    first = ok(studio(*args))
    assert isinstance(first, dict) and not any("after audit" in w for w in first["warnings"])
    ok(studio("label", "--qrels", LLM, pairs[0]["qid"], pairs[0]["docid"], "0"))
    then = ok(studio(*args))
    assert isinstance(then, dict)
    assert any(f"{LLM} took 1 label change(s) after audit gate was drawn" in w for w in then["warnings"])


# -- undo across an import --------------------------------------------------------------------------


def test_undo_never_brings_back_a_label_an_import_removed(studio: Studio, project: Path, write: Write) -> None:
    human = labels_of(project, "human")
    (qid, docid), grade = sorted(human.items())[0]
    ok(studio("label", "--qrels", "human", qid, docid, str((grade + 1) % 4)))
    without = {pair: g for pair, g in human.items() if pair != (qid, docid)}
    ok(studio("import", "qrels", qrels_file(write, "h.qrels", without), "--name", "human", "--replace"))
    studio("undo", "--qrels", "human")
    assert labels_of(project, "human") == without
    checked(studio)


def test_undo_after_an_import_still_undoes_the_edits_made_since(studio: Studio, project: Path, write: Write) -> None:
    human = labels_of(project, "human")
    (qid, docid), grade = sorted(human.items())[1]
    ok(studio("import", "qrels", qrels_file(write, "h.qrels", human), "--name", "human", "--replace"))
    ok(studio("label", "--qrels", "human", qid, docid, str((grade + 1) % 4)))
    ok(studio("label", "--qrels", "human", qid, docid, str((grade + 2) % 4)))
    ok(studio("undo", "--qrels", "human"))
    ok(studio("undo", "--qrels", "human"))
    assert labels_of(project, "human") == human


# -- metadata follows a replace ---------------------------------------------------------------------


def test_a_replaced_set_takes_the_new_source_and_the_kind_asked_for(studio: Studio, write: Write) -> None:
    path = qrels_file(write, "new-llm.qrels", {("1001", "d"): 1.0})
    ok(studio("import", "qrels", path, "--name", "human", "--replace"))
    row = next(r for r in ok(studio("list", "qrels", "--format", "json")) or [] if r["name"] == "human")
    assert row["source"] == str(path) and row["kind"] == "human"
    ok(studio("import", "qrels", path, "--name", "human", "--replace", "--kind", "llm"))
    row = next(r for r in ok(studio("list", "qrels", "--format", "json")) or [] if r["name"] == "human")
    assert row["kind"] == "llm"
    ok(studio("import", "qrels", path, "--name", "human", "--replace"))  # no --kind: the kind stays
    row = next(r for r in ok(studio("list", "qrels", "--format", "json")) or [] if r["name"] == "human")
    assert row["kind"] == "llm"


# -- topics and documents -----------------------------------------------------------------------------


def test_a_known_topic_takes_another_text_only_with_replace(studio: Studio, project: Path, write: Write) -> None:
    ok(studio("import", "topics", write("t0.tsv", "gate-topic\tfirst text\n")))
    before = fingerprint(project)
    path = write("t.tsv", "gate-topic\tanother text\nnew-topic\tnew\n")
    refused(studio("import", "topics", path), "1 topic(s) the project holds would take another text", "gate-topic")
    assert fingerprint(project) == before
    replaced = ok(studio("import", "topics", path, "--replace", "--format", "json"))
    assert isinstance(replaced, dict) and replaced["counts"]["replaced"] == 1
    ok(studio("import", "topics", path))  # the same texts again: nothing to replace


def test_a_known_document_keeps_its_title_unless_replaced(studio: Studio, project: Path, write: Write) -> None:
    line = json.dumps({"docid": "gate-doc", "title": "A title", "text": "the text"})
    ok(studio("import", "docs", write("d1.jsonl", line + "\n")))
    before = fingerprint(project)
    untitled = write("d2.jsonl", json.dumps({"docid": "gate-doc", "text": "the text"}) + "\n")
    refused(studio("import", "docs", untitled), "1 document(s)", "gate-doc", "--replace")
    assert fingerprint(project) == before
    ok(studio("import", "docs", untitled, "--replace"))
    assert fingerprint(project) != before


def test_review_of_an_audits_gold_set_takes_no_grade_but_adjudicates_its_conflicts(
    studio: Studio, project: Path, write: Write
) -> None:
    pairs = planned(studio)
    ok(studio("audit", "import", "gate", qrels_file(write, "a.qrels", {(p["qid"], p["docid"]): 2.0 for p in pairs})))
    with Project.open(project) as opened:
        session = opened.review("human", "gate")
        session.load()
        assert session.read_only is not None and "gold set of audit gate" in session.read_only
        if session.current() is not None:
            with pytest.raises(UsageError, match="gold set of audit gate"):
                session.set_grade(1)
        conflicts = opened.review("human", "gate", filters=ReviewFilters(conflicts="gate"))
        conflicts.load()
        assert conflicts.read_only is None
