"""`studio import leaderboard`: a leaderboard another tool computed, kept as a named score table
to correlate the studio's leaderboards against (`studio correlate --ref leaderboard:NAME`)."""

from __future__ import annotations

from pathlib import Path

from studio.domain.choices import LeaderboardLayout
from studio.domain.errors import UsageError
from studio.domain.import_report import ImportReport
from studio.domain.names import check_name
from studio.formats.leaderboard_reader import parse_leaderboard
from studio.formats.text_input import read_text
from studio.services.imports.trec import default_name, named_after_file, require_files
from studio.store import Database
from studio.store import score_tables as score_store


def import_leaderboard(
    db: Database,
    path: Path,
    *,
    name: str | None = None,
    layout: LeaderboardLayout | None = None,
    run: str | None = None,
    replace: bool = False,
) -> ImportReport:
    """Read a leaderboard file whole (the layout told by its content unless given) and store it as
    the score table `name` (default: the file's name). `run` names the run of files that name
    none (one ir_measures or trec_eval output); default: the file's name."""
    require_files([path])
    if layout is LeaderboardLayout.latex:
        raise UsageError("a LaTeX table is written, not read: import the leaderboard in another layout")
    chosen = check_name(name, "leaderboard") if name is not None else named_after_file("leaderboard")(path)
    lone_run = check_name(run, "run") if run is not None else default_name(path)
    con = db.cursor()
    if score_store.score_table_id(con, chosen) is not None and not replace:
        raise UsageError(f"leaderboard {chosen!r} already exists (use --replace)")
    parsed = parse_leaderboard(read_text(path), str(path), layout, run=lone_run)
    with db.transaction() as tx:
        score_store.replace_score_table(
            tx, chosen, str(path), parsed.layout.value, [(r.run, r.measure, r.topic, r.value) for r in parsed.rows]
        )
    report = ImportReport(f"leaderboard ({parsed.layout.value})", [str(path)], [chosen])
    report.counts = {
        "runs": len({r.run for r in parsed.rows}),
        "measures": len({r.measure for r in parsed.rows}),
        "values": len(parsed.rows),
    }
    return report
