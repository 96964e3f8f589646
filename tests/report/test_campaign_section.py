"""The report's section on assessment campaigns: Table 1, τ and anchoring as `studio assess report`
gives them, the pool and confusion figures, and no section without a campaign."""

from __future__ import annotations

from pathlib import Path

from studio.domain.report import Interval, Section
from studio.services.project import Project
from studio.services.report.build import build_report

REPO = Path(__file__).resolve().parents[2]


def campaigns(sections: list[Section]) -> list[Section]:
    return [s for s in sections if s.key == "campaigns"]


def test_a_graded_campaign_has_its_tables_and_figures(sample: Path, tmp_path: Path) -> None:
    with Project.open(sample) as project:
        assert campaigns(build_report(project, resamples=5).sections) == []
        project.plan_campaign("c1", llm="umbrela-smol", pool="qrels:human", manual="3", filtering="3", post_editing="4")
        shown = {(p["qid"], p["docid"]) for p in project.campaign_pairs("c1")}
        lines = (REPO / "sample_data/qrels/human.txt").read_text().splitlines(keepends=True)
        graded = tmp_path / "graded.qrels"
        graded.write_text("".join(line for line in lines if tuple(line.split()[0:3:2]) in shown))
        project.import_campaign("c1", graded, assessor="nist")
        expected = project.campaign_report("c1", ["nDCG@10"])
        [section] = campaigns(build_report(project, resamples=5).sections)
    cost, taus, anchoring, *matrices, agreement = section.tables
    for row, condition in zip(cost.rows, expected["conditions"], strict=True):
        assert (row["condition"], row["pool"], row["shown"], row["judged"]) == (
            condition["condition"],
            condition["pool"],
            condition["shown"],
            condition["judged"],
        )
        assert row["reduction"] == condition["reduction"]
        assert row["grade 3/topic"] == sum(g["per_topic"] for g in condition["grades"] if g["grade"] == 3)
    assert [row["τ"] for row in taus.rows] == [c["kendall_tau"]["nDCG@10"] for c in expected["conditions"]]
    a = expected["anchoring"]
    assert anchoring.rows[-1]["95% interval"] == Interval(a["rate_low"], a["rate_high"])
    assert [f.name for f in section.figures] == ["campaign-pool-c1", "campaign-confusion-c1"]
    assert all(f.png.startswith(b"\x89PNG") for f in section.figures)
    assert len(matrices) == 3 and [t.columns[1:] for t in matrices] == [["0", "1", "2", "3"]] * 3
    for table, condition in zip(matrices, expected["conditions"], strict=True):
        counts = [[row[c] for c in ["0", "1", "2", "3"]] for row in table.rows[:4]]
        assert counts == condition["matrix"]["pairs"]
        assert [row[table.columns[0]] for row in table.rows] == ["0", "1", "2", "3"]
    assert [row["condition"] for row in agreement.rows] == ["manual", "filtering", "post-editing"]
    assert section.notes == [f"Warning, campaign c1: {w['message']}." for w in expected["warnings"]]
    assert any("rest on 3 topics" in note for note in section.notes)
