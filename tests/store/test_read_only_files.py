"""A project the process cannot write is opened read-only: every read works, a write is refused
in one sentence with the file as it was, and the studio's lock files are not needed.

The decision (file or folder not writable, or reading only asked for) is tested with an injected
answer to "may this process write here?" and one real DuckDB read-only open; the whole of it is
tested for real by running `studio` on a folder the file system will not let it write (file modes
for any user; for root, which ignores them, a read-only mount).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from file_state import folder_state

from studio.domain.errors import NoProject, ProjectReadOnly
from studio.services.project import Project
from studio.store.database import Database
from studio.store.file_access import ASKED, FILE_NOT_WRITABLE, FOLDER_NOT_WRITABLE, read_only_reason
from studio.store.file_identity import MARK_TABLE
from studio.store.migrations import LATEST_VERSION

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "past_versions"
MANIFEST = json.loads((FIXTURES / "manifest.json").read_text("utf-8"))


def past_version(version: int, folder: Path, name: str = "p.duckdb") -> Path:
    """The project file a studio of that schema version wrote (tests/store/past_versions/)."""
    path = folder / name
    path.write_bytes(gzip.decompress((FIXTURES / f"v{version:02d}.duckdb.gz").read_bytes()))
    return path


def current_project(folder: Path) -> Path:
    """A project file at the newest version, holding topics, runs and the `human` label set."""
    path = past_version(17, folder)
    Database(path).close()  # upgraded
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- the decision ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("asked", "not_writable", "reason"),
    [
        (False, set(), None),
        (True, set(), ASKED),
        (False, {"file"}, FILE_NOT_WRITABLE),
        (False, {"folder"}, FOLDER_NOT_WRITABLE),
        (False, {"file", "folder"}, FILE_NOT_WRITABLE),
    ],
)
def test_when_a_file_is_opened_read_only(
    tmp_path: Path, asked: bool, not_writable: set[str], reason: str | None
) -> None:
    path = tmp_path / "p.duckdb"
    closed = {path for what in not_writable if what == "file"} | {tmp_path for what in not_writable if what == "folder"}
    assert read_only_reason(path, asked=asked, writable=lambda p: p not in closed) == reason


def test_a_file_it_may_not_write_is_read_and_its_writes_refused(tmp_path: Path) -> None:
    path = current_project(tmp_path)
    with Project.open(path) as writable:
        board = writable.leaderboard("human", "nDCG@10")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1001 0 d1 1\n", encoding="utf-8")
    before = folder_state(tmp_path)
    with Project(Database(path, writable=lambda p: p != path)) as project:
        assert project.read_only == FILE_NOT_WRITABLE
        assert project.leaderboard("human", "nDCG@10") == board
        assert project.check().ok
        with pytest.raises(ProjectReadOnly) as refused:
            project.import_qrels(qrels, name="more")
        assert str(refused.value) == f"{path} is read-only (the file is not writable); nothing was written"
        with pytest.raises(duckdb.Error, match="read-only"):  # DuckDB itself has the file read-only
            project.db.cursor().execute("DELETE FROM topics")
    assert folder_state(tmp_path) == before


def test_reading_only_can_be_asked_for(tmp_path: Path) -> None:
    path = current_project(tmp_path)
    before = digest(path)
    with Project.open(path, read_only=True) as project:
        assert project.read_only == ASKED
        with pytest.raises(ProjectReadOnly, match=r"is read-only \(reading only was asked for\)"):
            project.undo()
    assert digest(path) == before


def test_a_read_only_file_from_before_the_mark_is_read_as_it_is(tmp_path: Path) -> None:
    path = past_version(17, tmp_path)
    before = digest(path)
    with Project.open(path, read_only=True) as project:
        assert project.schema_version() == 17
        assert project.leaderboard("human", "nDCG@10") == pytest.approx(
            MANIFEST["v17"]["leaderboards"]["nDCG@10"]["human"]
        )
    assert digest(path) == before
    with duckdb.connect(str(path), read_only=True) as con:
        assert con.execute(f"SELECT count(*) FROM duckdb_tables() WHERE table_name = '{MARK_TABLE}'").fetchone() == (0,)


def test_a_read_only_file_that_needs_an_upgrade_to_be_read_says_so(tmp_path: Path) -> None:
    path = past_version(16, tmp_path)
    before = digest(path)
    with pytest.raises(ProjectReadOnly) as refused:
        Project.open(path, read_only=True)
    assert f"needs an upgrade from schema 16 to {LATEST_VERSION}" in str(refused.value)
    assert digest(path) == before


def test_a_missing_file_is_never_created_read_only(tmp_path: Path) -> None:
    with pytest.raises(NoProject):
        Project.open(tmp_path / "p.duckdb", read_only=True)
    assert list(tmp_path.iterdir()) == []


# -- for real: a file system that refuses the writes -------------------------------------------

# As root, which ignores file modes, the folder is made read-only by a read-only bind mount in a
# private mount namespace (gone with the process: nothing to clean up after a crash); a file
# given as second argument is mounted writable again on top. Exit 97: no such mounts here.
READ_ONLY_MOUNT = """
folder=$1; writable=$2; shift 2
mount --bind "$folder" "$folder" && mount -o remount,bind,ro "$folder" || exit 97
if [ -n "$writable" ]; then mount --bind "$writable" "$writable" && mount -o remount,bind,rw "$writable" || exit 97; fi
exec "$@"
"""
NO_MOUNTS = 97


@pytest.fixture
def archive(tmp_path: Path) -> Iterator[Path]:
    """A folder holding a project file, to be closed for writing; its modes restored afterwards."""
    folder = tmp_path / "archive"
    folder.mkdir()
    yield folder
    for path in (folder, *folder.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)


def studio_without_write_access(
    folder: Path, *args: str, writable: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m studio ARGS` where `folder` cannot be written (nor its files, but `writable`).

    Any user but root is kept out by the modes `close_for_writing` set; root by a read-only mount."""
    command = [sys.executable, "-m", "studio", *args]
    if os.geteuid() == 0:
        if shutil.which("unshare") is None:
            pytest.skip("root ignores file modes, and unshare is missing for a read-only mount")
        mount = ["unshare", "--mount", "--propagation", "private", "sh", "-c", READ_ONLY_MOUNT, "sh"]
        command = [*mount, str(folder), str(writable or ""), *command]
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "100", "NO_COLOR": "1"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)
    if done.returncode == NO_MOUNTS:
        pytest.skip(f"root ignores file modes, and read-only mounts are not allowed here: {done.stderr}")
    return done


def close_for_writing(folder: Path, *, writable: Path | None = None) -> None:
    for path in folder.iterdir():
        if path != writable:
            path.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    folder.chmod(0o555)


@pytest.mark.process
@pytest.mark.parametrize("lock_files", ["none", "left by an earlier writer"])
def test_a_read_only_file_in_a_read_only_folder_serves_every_read(
    archive: Path, tmp_path: Path, lock_files: str
) -> None:
    path = current_project(archive)
    if lock_files == "none":
        for leftover in archive.glob("p.duckdb.lock*"):
            leftover.unlink()
    else:
        (archive / "p.duckdb.lock.wanted").write_text("1", encoding="utf-8")
    with Project.open(path) as writable:
        expected = writable.leaderboard("human", "nDCG@10")
    topics = tmp_path / "topics.tsv"
    topics.write_text("9001\ta topic added later\n", encoding="utf-8")
    before = folder_state(archive)
    close_for_writing(archive)

    read = studio_without_write_access(
        archive, "--db", str(path), "eval", "--qrels", "human", "-m", "nDCG@10", "-f", "json"
    )
    assert (read.returncode, read.stderr) == (0, "")
    assert {row["run"]: row["value"] for row in json.loads(read.stdout)} == expected
    for reading in (["list"], ["check"]):
        done = studio_without_write_access(archive, "--db", str(path), *reading)
        assert (done.returncode, done.stderr) == (0, "")
    write = studio_without_write_access(archive, "--db", str(path), "import", "topics", str(topics))
    assert write.returncode == 1 and write.stdout == ""
    assert write.stderr == f"error: {path} is read-only ({FILE_NOT_WRITABLE}); nothing was written\n"
    assert folder_state(archive) == before  # not a byte written, no lock file made


@pytest.mark.process
def test_a_writable_file_in_a_read_only_folder_is_read_only_too(archive: Path, tmp_path: Path) -> None:
    path = current_project(archive)
    topics = tmp_path / "topics.tsv"
    topics.write_text("9001\ta topic added later\n", encoding="utf-8")
    before = folder_state(archive)
    close_for_writing(archive, writable=path)

    listed = studio_without_write_access(archive, "--db", str(path), "list", writable=path)
    assert (listed.returncode, listed.stderr) == (0, "")
    write = studio_without_write_access(archive, "--db", str(path), "import", "topics", str(topics), writable=path)
    assert write.returncode == 1
    assert write.stderr == f"error: {path} is read-only ({FOLDER_NOT_WRITABLE}); nothing was written\n"
    assert folder_state(archive) == before  # no log beside it: DuckDB never opened it for writing
