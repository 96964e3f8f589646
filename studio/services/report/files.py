"""Writing a report folder (report.html, report.md, figures/*.png) whole or not at all.

Every file is first written into a temporary folder beside the target and only then renamed into
place, so no reader ever sees a half-written file and a failure leaves the earlier report as it
was. A new folder appears in one rename; in an existing one, figures/ is swapped as a whole
(figures of an earlier, larger report do not linger), then report.md and report.html, and a
failure half-way moves the earlier report back. Other files in the folder are left alone.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from studio.domain.errors import UsageError
from studio.domain.report import Report
from studio.formats.report_writers import FIGURE_DIR, figure_path, render_html, render_markdown
from studio.services.exports.delivery import refuse_a_database

HTML_NAME = "report.html"
MARKDOWN_NAME = "report.md"


@dataclass(frozen=True)
class WrittenReport:
    folder: Path
    files: list[str]  # relative to `folder`
    figures: int
    sections: int

    def summary(self) -> str:
        return (
            f"wrote a report of {self.sections} sections to {self.folder}: {HTML_NAME}, {MARKDOWN_NAME} and "
            f"{self.figures} figures in {FIGURE_DIR}/"
        )


def report_files(report: Report) -> dict[str, bytes]:
    """The report's files by relative path, figures first."""
    files = {figure_path(figure): figure.png for figure in report.figures()}
    files[MARKDOWN_NAME] = render_markdown(report).encode("utf-8")
    files[HTML_NAME] = render_html(report).encode("utf-8")
    return files


def write_report(report: Report, folder: str | Path) -> WrittenReport:
    """Write the report's files into `folder` (created when missing) atomically, as above."""
    target = Path(folder)
    if target.exists() and not target.is_dir():
        raise UsageError(f"cannot write the report to {target}: it is a file, not a folder")
    if (target / FIGURE_DIR).exists() and not (target / FIGURE_DIR).is_dir():
        raise UsageError(f"cannot write the report's figures to {target / FIGURE_DIR}: it is a file")
    for name in (HTML_NAME, MARKDOWN_NAME, FIGURE_DIR):
        refuse_a_database(target / name)
    files = report_files(report)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial"))
    except OSError as error:
        raise UsageError(f"cannot write the report to {target}: {error.strerror or error}") from error
    try:
        _write_files(staging, files)
        if target.exists():
            _replace_into(staging, target)
        else:
            os.chmod(staging, 0o777 & ~_umask())  # mkdtemp makes the folder private
            os.rename(staging, target)
    except OSError as error:
        raise UsageError(f"cannot write the report to {target}: {error.strerror or error}") from error
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return WrittenReport(target, sorted(files), len(report.figures()), len(report.sections))


def _write_files(staging: Path, files: dict[str, bytes]) -> None:
    (staging / FIGURE_DIR).mkdir()
    mode = 0o666 & ~_umask()
    for relative, data in files.items():
        path = staging / relative
        with open(path, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(path, mode)
    os.chmod(staging / FIGURE_DIR, 0o777 & ~_umask())


def _replace_into(staging: Path, target: Path) -> None:
    """Move figures/, report.md and report.html into `target`, parking what they replace in
    staging (deleted with it); on a failure everything moved is moved back."""
    previous = staging / ".previous"
    previous.mkdir()
    moved: list[str] = []
    try:
        for name in (FIGURE_DIR, MARKDOWN_NAME, HTML_NAME):
            if (target / name).exists():
                os.rename(target / name, previous / name)
            moved.append(name)
            os.rename(staging / name, target / name)
    except OSError:
        for name in reversed(moved):
            if not (staging / name).exists():  # the new one made it in: take it out again
                os.rename(target / name, staging / name)
            if (previous / name).exists():
                os.rename(previous / name, target / name)
        raise


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask
