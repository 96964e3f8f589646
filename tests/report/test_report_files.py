"""Writing the report folder: replacing an earlier report whole, and never leaving half of one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import cli

from studio import Project
from studio.domain.errors import UsageError
from studio.domain.report import Report
from studio.services.report import files as report_files
from studio.services.report.build import build_report
from studio.services.report.files import write_report


@pytest.fixture(scope="module")
def report(report_project_template: Path) -> Report:
    with Project.open(report_project_template) as project:
        return build_report(project, resamples=50)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_an_earlier_report_is_replaced_and_other_files_are_kept(report: Report, tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "figures").mkdir(parents=True)
    (out / "figures" / "from-an-earlier-report.png").write_bytes(b"old")
    (out / "report.md").write_text("old", encoding="utf-8")
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    written = write_report(report, out)
    fresh = write_report(report, tmp_path / "fresh").folder
    assert snapshot(out) == {**snapshot(fresh), "notes.txt": b"mine"}
    assert written.figures == len(report.figures()) == 13  # 3 label sets × (alignment, 2 τ, significance) + 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh", "out"]  # no staging folder left


def test_a_failure_half_way_leaves_the_earlier_report_whole(
    report: Report, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    (out / "figures").mkdir(parents=True)
    (out / "figures" / "old.png").write_bytes(b"old figure")
    (out / "report.md").write_text("old markdown", encoding="utf-8")
    (out / "report.html").write_text("old html", encoding="utf-8")
    before = snapshot(out)
    rename = os.rename

    def failing(source: str | Path, target: str | Path) -> None:
        # The new report.html, moving from the staging folder into place, cannot be written.
        if Path(source).name == "report.html" and Path(source).parent.name.endswith(".partial"):
            raise OSError(28, "No space left on device")
        rename(source, target)

    monkeypatch.setattr(f"{report_files.__name__}.os.rename", failing)
    with pytest.raises(UsageError, match="No space left"):
        write_report(report, out)
    assert snapshot(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_out_naming_a_file_exits_2(report_project_template: Path, tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    target.write_text("not a folder", encoding="utf-8")
    result = cli(report_project_template, "report", "--out", target, "--resamples", 10)
    assert result.exit_code == 2 and "not a folder" in result.output
    assert target.read_text(encoding="utf-8") == "not a folder"
