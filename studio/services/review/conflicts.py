"""Review over an audit's conflicts: the pairs its assessors grade differently, not adjudicated
yet, shown against the audit's LLM label set, with each assessor's grade."""

from __future__ import annotations

from studio.domain.rows import Disagreement
from studio.services.audit import assessments
from studio.services.audit.assignment import audit_record
from studio.services.facade.core import ProjectCore


def conflict_queue(project: ProjectCore, llm: str, audit: str) -> list[Disagreement]:
    """The audit's open conflicts in its order: the LLM's grade as the reference grade, the gold
    grade (the assessors' mean until adjudicated) as the audited one."""
    labels = project.engine.evaluator(llm).labels
    queue = []
    for found in assessments.conflicts(project.db.cursor(), audit):
        topic = labels.get(found["qid"])
        ref_grade = topic.judged.get(found["docid"]) if topic is not None else None
        queue.append(
            Disagreement(
                qid=found["qid"],
                docid=found["docid"],
                ref_grade=ref_grade,
                grade=found["gold"],
                delta_tau=0.0,
                distance=None if ref_grade is None else abs(ref_grade - found["gold"]),
            )
        )
    return queue


def assessor_grades(project: ProjectCore, audit: str, qid: str, docid: str) -> dict[str, float]:
    """Each assessor's standing grade of the pair, by name."""
    con = project.db.cursor()
    found = assessments.standing_grades(con, int(audit_record(con, audit)["audit_id"])).get((qid, docid))
    return dict(sorted(found.grades.items())) if found is not None else {}
