"""`studio report --out DIR`: three outputs, self-contained HTML, the services' values in its
tables, figures that open, byte-identical re-runs, and nothing written on bad input."""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from helpers import cli
from matplotlib.image import imread

from studio import Project
from studio.formats.report_writers import format_cell, format_number
from studio.services.meta.comparison import compare
from studio.services.report import figures as report_figures
from studio.services.rubric.diagnostics import bank_report
from studio.services.sensitivity.probes import probe_summary

AUDITED = ["exam-sim", "sim", "umbrela-smol"]
SAMPLE_RUNS = 3
RESAMPLES = 200  # fewer than the default: the same code path, a quicker bootstrap


def write(db: Path, out: Path, *args: object) -> Path:
    result = cli(db, "report", "--out", out, "--resamples", RESAMPLES, *args)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def written(report_project_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(report_project_template, tmp_path_factory.mktemp("written") / "report")


class Tables(HTMLParser):
    """The HTML's tables by caption: a list of rows, each {header: cell text}."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[dict[str, str]]] = {}
        self._caption: str | None = None
        self._headers: list[str] = []
        self._row: list[str] = []
        self._text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("caption", "th", "td"):
            self._text = []
        elif tag == "tr":
            self._row = []

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("caption", "th", "td") and self._text is not None:
            text, self._text = "".join(self._text), None
            if tag == "caption":
                self._caption, self._headers = text, []
                self.tables[text] = []
            elif tag == "th":
                self._headers.append(text)
            else:
                self._row.append(text)
        elif tag == "tr" and self._row and self._caption is not None:
            self.tables[self._caption].append(dict(zip(self._headers, self._row, strict=True)))


def tables_of(out: Path) -> dict[str, list[dict[str, str]]]:
    parser = Tables()
    parser.feed((out / "report.html").read_text(encoding="utf-8"))
    return parser.tables


def by(rows: list[dict[str, str]], column: str) -> dict[str, dict[str, str]]:
    return {row[column]: row for row in rows}


EXPECTED_FIGURES = {
    **{f"alignment-{name}.png": report_figures.ALIGNMENT_SIZE for name in AUDITED},
    **{f"tau-{name}.png": report_figures.SCATTER_SIZE for name in AUDITED},
    **{f"tau-topic-run-{name}.png": report_figures.SCATTER_SIZE for name in AUDITED},
    "subsampling.png": report_figures.SUBSAMPLING_SIZE,
    **{f"significance-{name}.png": report_figures.matrix_size(SAMPLE_RUNS) for name in AUDITED},
}


def test_the_report_is_an_html_file_a_markdown_file_and_figures(written: Path) -> None:
    assert sorted(p.name for p in written.iterdir()) == ["figures", "report.html", "report.md"]
    assert {p.name for p in (written / "figures").iterdir()} == set(EXPECTED_FIGURES)
    headings = re.findall(r"^## \d+\. (.+)$", (written / "report.md").read_text(encoding="utf-8"), re.M)
    assert headings == [
        "Data summary",
        "Leaderboards",
        "Comparison with the reference",
        "Alignment with the reference order",
        "Run scores against the reference",
        "Significance decisions",
        "Topic subsampling",
        "Test-bank diagnostics",
        "Robustness probes",
        "Audit history",
    ]


def test_every_figure_opens_with_its_pixel_size(written: Path) -> None:
    for name, (width, height) in EXPECTED_FIGURES.items():
        pixels = imread(written / "figures" / name)
        assert pixels.shape == (height, width, 4), name
        assert np.ptp(pixels[..., :3]) > 0.5, f"{name} is blank"


def test_the_html_is_self_contained_and_inlines_the_figures(written: Path) -> None:
    page = (written / "report.html").read_text(encoding="utf-8")
    assert "http://" not in page and "https://" not in page
    assert "<script" not in page and "<link" not in page and "url(" not in page
    sources = re.findall(r'src="([^"]*)"', page)
    assert len(sources) == len(EXPECTED_FIGURES)
    assert all(s.startswith("data:image/png;base64,") for s in sources)
    assert all(h.startswith("#") for h in re.findall(r'href="([^"]*)"', page))
    inlined = {base64.b64decode(s.removeprefix("data:image/png;base64,")) for s in sources}
    assert inlined == {p.read_bytes() for p in (written / "figures").iterdir()}


def test_the_markdown_references_existing_figures(written: Path) -> None:
    text = (written / "report.md").read_text(encoding="utf-8")
    referenced = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert sorted(referenced) == sorted(f"figures/{name}" for name in EXPECTED_FIGURES)
    assert all((written / path).is_file() for path in referenced)


def test_the_tables_show_what_the_services_return(written: Path, report_project_template: Path) -> None:
    tables = tables_of(written)
    with Project.open(report_project_template) as project:
        counts = project.counts()
        label_sets = project.label_sets()
        boards = {name: project.leaderboard(name, "nDCG@10") for name in ["human", *AUDITED]}
        rows = compare(project.engine, "human", AUDITED, "nDCG@10", resamples=RESAMPLES, seed=0)
        banks = bank_report(project.engine, "questions", "exam-sim", ref="human")

    assert by(tables["Counts"], "what") == {
        k.replace("_", " "): {"what": k.replace("_", " "), "count": f"{v:,}"} for k, v in counts.items()
    }
    listed = by(tables["Label sets"], "label set")
    assert {name: (row["pairs"], row["events"]) for name, row in listed.items()} == {
        r["name"]: (f"{r['pairs']:,}", f"{r['events']:,}") for r in label_sets
    }

    board = tables["nDCG@10 per run and label set"]
    assert [row["run"] for row in board] == sorted(boards["human"], key=lambda run: -boards["human"][run])
    for row in board:
        assert row["human (reference)"] == format_number(boards["human"][row["run"]])
        assert all(row[name] == format_number(boards[name][row["run"]]) for name in AUDITED)

    shown = by(tables["Agreement and rank correlation"], "label set")
    assert sorted(shown) == AUDITED
    for compared in rows:
        line = shown[compared["qrels"]]
        assert line["Kendall τ"] == format_number(compared["kendall_tau"])
        assert (
            line["τ 95% interval"] == f"[{format_number(compared['kendall_tau_low'])}, "
            f"{format_number(compared['kendall_tau_high'])}]"
        )
        assert line["τ_AP"] == format_number(compared["tau_ap"])
        assert line["κ graded"] == format_number(compared["kappa_graded"])
        assert line["pairs"] == format_cell(compared["pairs"])
        alignment = {
            r["category pair"]: r
            for r in tables["Agree / tie / disagree shares"]
            if r["label set"] == compared["qrels"]
        }
        for pair, bucket in compared["alignment"].items():
            assert alignment[pair.replace("_vs_", " vs ")]["agree"] == format_number(bucket["agree"])

    bank_rows = by(tables["Banks and their rubric judges"], "rubric label set")
    assert bank_rows["exam-sim"]["spurious items"] == str(len(banks["spurious"]))
    assert bank_rows["exam-sim"]["uncovered relevant"] == str(len(banks["uncovered_relevant"]))
    assert bank_rows["no rubric judge yet"]["bank"] == "nuggets"


def test_the_audit_history_counts_edits_and_review_decisions(written: Path) -> None:
    tables = tables_of(written)
    (edits,) = tables["Edits per person"]
    # three grades (set, accepted, set) and the undo of the last one
    assert (edits["person"], edits["label set"], edits["edits"], edits["undos"]) == ("ana", "sim", "3", "1")
    latest = tables["Latest edits (newest first, up to 20)"]
    assert [row["origin"] for row in latest] == ["undo", "person", "person", "person"]
    (review,) = tables["Review log: decisions per review and person"]
    assert review == {
        "reference set": "human",
        "audited set": "sim",
        "person": "ana",
        "graded": "2",
        "accepted": "1",
        "kept reference": "0",
        "skipped": "1",
        "flagged": "1",
        "noted": "0",
        "undone": "1",
        "total": "6",
    }


def test_the_probe_table_shows_the_probe_summary(written: Path, report_project_template: Path) -> None:
    with Project.open(report_project_template) as project:
        (summary,) = probe_summary(project.db)
    (row,) = tables_of(written)["Probe results"]
    assert row["label set"] == "sim" and row["documents"] == format_cell(summary["documents"]) == "10"
    assert (row["mean shift"], row["share became relevant"]) == (
        format_number(summary["mean_shift"]),
        format_number(summary["became_relevant"]),
    )


def test_the_same_project_gives_the_same_report(written: Path, report_project_template: Path, tmp_path: Path) -> None:
    again = write(report_project_template, tmp_path / "again")
    for path in sorted(p.relative_to(written) for p in written.rglob("*") if p.is_file()):
        assert (again / path).read_bytes() == (written / path).read_bytes(), path


def test_a_bad_ref_exits_2_and_writes_nothing(report_project_template: Path, tmp_path: Path) -> None:
    result = cli(report_project_template, "report", "--out", tmp_path / "out", "--ref", "nobody")
    assert result.exit_code == 2
    assert "nobody" in result.output
    assert list(tmp_path.iterdir()) == []


def test_a_bad_measure_exits_2_and_writes_nothing(report_project_template: Path, tmp_path: Path) -> None:
    result = cli(report_project_template, "report", "--out", tmp_path / "out", "--measure", "nDCG@")
    assert result.exit_code == 2
    assert list(tmp_path.iterdir()) == []
