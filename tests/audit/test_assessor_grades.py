"""An assessor's undo in a blind audit split among assessors takes back their own newest grade
only: the pair's gold grade follows from the grades still standing, the other's grade stays."""

from __future__ import annotations

from pathlib import Path

from studio.domain.specs import AuditDrawSpec
from studio.services.project import Project

LLM = "umbrela-smol"


def test_undo_takes_back_only_the_assessors_own_grade(sample: Path) -> None:
    with Project.open(sample) as project:
        project.plan_audit(AuditDrawSpec(LLM, name="g", budget=6, design="pairs", seed=2))
        project.assign_audit("g", ["alice", "bob"], overlap=1.0, seed=0)  # every pair graded by both
        alice, bob = project.blind_audit("g", person="alice"), project.blind_audit("g", person="bob")
        alice.load()
        bob.load()
        qid, docid, _ = alice.current() or ("", "", None)
        alice.grade(3)
        assert bob.current() == alice.pairs[0]
        bob.grade(1)
        gold = project.engine.evaluator("g").labels[qid].judged
        assert gold[docid] == 2.0  # the mean of 3 and 1
        assert alice.undo() == (qid, docid)
        assert project.engine.evaluator("g").labels[qid].judged[docid] == 1.0  # bob's grade alone
        assert project.audit_conflicts("g") == []
        assert alice.current() == alice.pairs[0] and alice.progress() == (0, 6)
        bob.load()
        assert bob.progress() == (1, 6)


def test_undo_never_takes_back_a_grade_a_concurrent_import_wrote(sample: Path, tmp_path: Path) -> None:
    """The blind audit's `u` after an `audit import --assessor` of the same person, made while the
    session was open: the session's own grade is taken back, never the imported ones."""
    with Project.open(sample) as project:
        project.plan_audit(AuditDrawSpec(LLM, name="g", budget=6, design="pairs", seed=2))
        project.assign_audit("g", ["alice", "bob"], overlap=1.0, seed=0)
        alice = project.blind_audit("g", person="alice")
        alice.load()
        qid, docid, _ = alice.current() or ("", "", None)
        alice.grade(2)
        others = [(q, d) for q, d, _ in alice.pairs if (q, d) != (qid, docid)][:2]
        qrels = tmp_path / "alice.qrels"
        qrels.write_text("".join(f"{q} 0 {d} 3\n" for q, d in others))
        project.import_audit("g", qrels, assessor="alice")
        assert alice.undo() == (qid, docid)
        gold = project.engine.evaluator("g").labels
        assert docid not in gold.get(qid, Labels()).judged
        assert all(gold[q].judged[d] == 3.0 for q, d in others)
        assert alice.undo() is None


def test_an_unassigned_audit_undo_never_takes_back_an_imported_gold_grade(sample: Path, tmp_path: Path) -> None:
    with Project.open(sample) as project:
        project.plan_audit(AuditDrawSpec(LLM, name="g", budget=6, design="pairs", seed=2))
        session = project.blind_audit("g")
        session.load()
        qid, docid, _ = session.current() or ("", "", None)
        session.grade(1)
        others = [(q, d) for q, d, _ in session.pairs if (q, d) != (qid, docid)][:2]
        qrels = tmp_path / "gold.qrels"
        qrels.write_text("".join(f"{q} 0 {d} 3\n" for q, d in others))
        project.import_audit("g", qrels)
        assert session.undo() == (qid, docid)
        gold = project.engine.evaluator("g").labels
        assert all(gold[q].judged[d] == 3.0 for q, d in others)


class Labels:
    judged: dict[str, float] = {}
