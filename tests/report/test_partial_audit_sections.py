"""The report's sections on audits (estimated leaderboard, settled run pairs, the audit's design)
and on calibrated label sets (cross-fitted figures, curve): what the services return."""

from __future__ import annotations

from pathlib import Path

from studio.domain.label_set_results import CalibratedSet
from studio.domain.report import Interval, Section
from studio.domain.specs import AuditDrawSpec, CalibrationSpec, EstimateSpec
from studio.services.project import Project
from studio.services.report.build import build_report
from studio.store import audits as audit_store

REPO = Path(__file__).resolve().parents[2]


def section(sections: list[Section], key: str) -> Section:
    [found] = [s for s in sections if s.key == key]
    return found


def test_an_audit_and_a_calibration_have_their_sections(sample: Path, tmp_path: Path) -> None:
    with Project.open(sample) as project:
        project.plan_audit(AuditDrawSpec("umbrela-smol", name="audit-a", budget=4, design="topics", seed=3))
        _, drawn = audit_store.inclusion_probabilities(project.db.cursor(), "audit-a")
        lines = (REPO / "sample_data/qrels/human.txt").read_text().splitlines(keepends=True)
        gold = tmp_path / "gold.txt"
        gold.write_text("".join(line for line in lines if line.split()[0] in drawn))  # people's grades of them
        project.import_audit("audit-a", gold)
        project.calibrate(CalibrationSpec("umbrela-smol", "human", "umbrela-cal"))
        expected = project.estimate(EstimateSpec("umbrela-smol", "audit-a"))
        report = build_report(project, resamples=20)
    audits = section(report.sections, "estimates")
    [audited] = audits.tables[0].rows
    assert audited["design"] == "topics" and audited["graded"] == audited["sample"] and audited["graded"]
    estimates = audits.tables[1]
    assert [row["run"] for row in estimates.rows] == [row["run"] for row in expected["runs"]]
    first, best = estimates.rows[0], expected["runs"][0]
    assert first["estimate"] == best["estimate"] and first["interval"] == Interval(best["low"], best["high"])
    settled = [p for p in expected["pairs"] if p["settled"]]
    assert len(audits.tables[2].rows) == min(len(settled), 20)
    calibration = section(report.sections, "calibration")
    figures = next(c for c in project_calibrations(sample) if c["name"] == "umbrela-cal")["figures"]
    assert calibration.tables[0].rows[0]["calibrated"] == figures["kappa_calibrated"]
    assert calibration.tables[1].rows  # the curve


def project_calibrations(path: Path) -> list[CalibratedSet]:
    with Project.open(path) as project:
        return project.calibrations()


def test_the_report_states_the_conventions_of_what_it_shows(sample: Path) -> None:
    with Project.open(sample) as project:
        facts = dict(build_report(project, resamples=10).facts)
        compat_facts = dict(build_report(project, measure="Compat(p=0.9)", resamples=10).facts)
    assert "ties by docid descending" in facts["tie order"] and "single precision" in facts["tie order"]
    assert "--complete is not used" in facts["topics averaged"]
    assert facts["relevance level"] == "binary measures count grade ≥ 1"
    assert "ties by docid ascending" in facts["compatibility"] and "1–1000" in facts["compatibility"]
    assert "compatibility.py" in compat_facts["conventions"]
