"""A derived set its sources can no longer make never refuses the change that reached it: the change
is the user's, the derived set keeps its last labels, and every door says why it lags."""

from __future__ import annotations

from pathlib import Path

from helpers import cli, copy_project

from studio import Project
from studio.domain.specs import CalibrationSpec
from studio.store import labels as label_store


def held(project: Project, name: str) -> dict[tuple[str, str], float]:
    con = project.db.cursor()
    set_id = label_store.label_set_id(con, name)
    assert set_id is not None
    return {(r.qid, r.docid): r.grade for r in label_store.current_labels(con, set_id)}


def test_a_calibration_left_with_one_topic_keeps_its_labels_and_says_why(sample_template: Path, tmp_path: Path) -> None:
    path = copy_project(sample_template, tmp_path)
    with Project.open(path) as project:
        project.calibrate(CalibrationSpec("umbrela-smol", "human", "cal", folds=3))
        before = held(project, "cal")
        one_topic = sorted(p for p in held(project, "umbrela-smol") if p[0] == "1001")
        qrels = tmp_path / "one-topic.qrels"
        qrels.write_text("".join(f"{q} 0 {d} 1\n" for q, d in one_topic))
        report = project.import_qrels(qrels, name="umbrela-smol", kind="llm", replace=True)
        assert any(w.startswith("cal cannot follow its sources now") for w in report.warnings), report.warnings
        assert held(project, "umbrela-smol") == dict.fromkeys(one_topic, 1.0)  # the import stands
        assert held(project, "cal") == before
        derived = next(c for c in project.check().checks if c.name == "derived")
        assert not derived.ok and "cal cannot be derived from its sources now" in derived.examples[0]
        event = project.set_label("umbrela-smol", *one_topic[0], 2.0)
        assert "cal" in event["derived_blocked"] and held(project, "umbrela-smol")[one_topic[0]] == 2.0
    edited = cli(path, "label", "--qrels", "umbrela-smol", *one_topic[1], "3")
    assert edited.exit_code == 0 and "warning: cal cannot follow this edit" in edited.stderr
    refreshed = cli(path, "refresh")
    assert refreshed.exit_code == 1 and "cal" in refreshed.stdout


def test_a_derived_set_is_not_edited_by_hand(sample_template: Path, tmp_path: Path) -> None:
    path = copy_project(sample_template, tmp_path)
    with Project.open(path) as project:
        project.ensemble(["human", "umbrela-smol"], "mean", "both")
        pair = next(iter(held(project, "both")))
    refused = cli(path, "label", "--qrels", "both", *pair, "3")
    assert refused.exit_code == 2
    assert "both is derived (ensemble: mean of human, umbrela-smol)" in refused.stderr
