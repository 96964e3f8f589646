"""A process that keeps leaderboards in memory catches up with what another process wrote."""

from __future__ import annotations

import subprocess
from pathlib import Path

from terminal_helpers import STUDIO

from studio.services.project import Project

REPO = Path(__file__).resolve().parents[2]


def test_a_label_set_replaced_elsewhere_is_read_again(sample: Path, tmp_path: Path) -> None:
    lines = (REPO / "sample_data" / "qrels" / "human.txt").read_text().splitlines(keepends=True)
    fewer = tmp_path / "fewer.txt"
    fewer.write_text("".join(line for line in lines if line.startswith("1001 ")))  # one topic only
    with Project.open(sample) as project:
        watcher = project.watch_changes()
        before = project.leaderboard("human", "P@5")
        project.release()
        done = subprocess.run(
            [str(STUDIO), "--db", str(sample), "import", "qrels", str(fewer), "--name", "human", "--replace"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        changes = watcher.poll()
        assert changes is not None
        after = project.leaderboard("human", "P@5")
    with Project.open(sample) as fresh:
        assert after == fresh.leaderboard("human", "P@5")  # as the file has it now
    assert after != before
