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
