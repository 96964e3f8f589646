"""The app of the Overview snapshot: the studio on a freshly built sample project.

pytest-textual-snapshot runs this file and takes its `app`. The project file has a fixed name
(the summary and the header show only the name), and the sample data is read through the
relative path `sample_data` from the checkout root, so the `Source` column looks the same in
every checkout and temporary folder.
"""

from __future__ import annotations

import atexit
import contextlib
import shutil
import tempfile
from pathlib import Path

from studio.services.project import Project
from studio.tui.app import StudioApp

REPO = Path(__file__).resolve().parents[2]

folder = Path(tempfile.mkdtemp(prefix="studio-snapshot-"))
atexit.register(shutil.rmtree, folder, ignore_errors=True)
project_file = folder / "sample.duckdb"
with contextlib.chdir(REPO):
    Project.sample(project_file, source=Path("sample_data")).close()

app = StudioApp(Project.open(project_file))
