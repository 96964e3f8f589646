"""A write the disk has no room for (DuckDB's log cannot grow): exit 1 in one line, the project file
as it was, and `studio check` passing on it; with room again, the same write succeeds.

The full disk is real: a small tmpfs, filled up, mounted in a private mount namespace (it goes
with the process, nothing to clean up after a crash). That needs root, or the test is skipped.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from studio.domain.errors import ProjectError, ProjectReadOnly
from studio.store.database import Database
from studio.store.opening import write_refused

REPO = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).resolve().parent / "past_versions" / "v17.duckdb.gz"
NO_MOUNTS = 97
ROOM_KB = 256  # beside the project: enough for the lock file, too little for the write

# Mounts a tmpfs on $folder just larger than the project, copies the project in, fills the rest,
# and runs the write, the check, and the write again once there is room; each result in $out.
FULL_DISK = """
folder=$1; source=$2; size_kb=$3; topics=$4; out=$5; shift 5
mount -t tmpfs -o size="${size_kb}k" tmpfs "$folder" || exit 97
cp "$source" "$folder/p.duckdb"
dd if=/dev/zero of="$folder/filler" bs=1k 2>/dev/null
run() { name=$1; shift; "$@" > "$out/$name.out" 2> "$out/$name.err"; echo $? > "$out/$name.rc"; }
sha256sum < "$folder/p.duckdb" > "$out/before"
run write "$@" --db "$folder/p.duckdb" import topics "$topics"
sha256sum < "$folder/p.duckdb" > "$out/after"
run check "$@" --db "$folder/p.duckdb" check
rm "$folder/filler"
run again "$@" --db "$folder/p.duckdb" import topics "$topics"
"""


@pytest.mark.process
def test_a_write_without_room_for_the_log_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("a real full disk needs root and unshare (a tmpfs in a private mount namespace)")
    project = tmp_path / "p.duckdb"
    project.write_bytes(gzip.decompress(FIXTURE.read_bytes()))
    Database(project).close()  # upgraded to the newest version first: the write below is the only one
    topics = tmp_path / "topics.tsv"
    topics.write_text("".join(f"{9000 + i}\ta topic added later, number {i}\n" for i in range(2000)), "utf-8")
    mounted, out = tmp_path / "disk", tmp_path / "out"
    mounted.mkdir()
    out.mkdir()
    size_kb = project.stat().st_size // 1024 + ROOM_KB
    script = ["unshare", "--mount", "--propagation", "private", "sh", "-c", FULL_DISK, "sh"]
    arguments = [str(mounted), str(project), str(size_kb), str(topics), str(out), sys.executable, "-m", "studio"]
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    done = subprocess.run([*script, *arguments], capture_output=True, text=True, env=env, timeout=300, check=False)
    if done.returncode == NO_MOUNTS:
        pytest.skip(f"mounting a tmpfs is not allowed here: {done.stderr}")
    assert done.returncode == 0, done.stderr

    def result(name: str) -> tuple[int, str]:
        return int((out / f"{name}.rc").read_text()), (out / f"{name}.err").read_text()

    assert result("write") == (
        1,
        f"error: cannot write {mounted}/p.duckdb: no space left on device (DuckDB needs room for its log beside "
        "the file); nothing was written\n",
    )
    assert (out / "before").read_text() == (out / "after").read_text()
    assert result("check")[0] == 0, result("check")[1]
    assert result("again") == (0, "")


def test_only_a_refusal_for_permission_or_room_is_reworded() -> None:
    read_only = duckdb.InvalidInputException('Cannot execute statement of type "INSERT" ... in read-only mode!')
    full = duckdb.IOException('Could not write file "p.duckdb.wal": No space left on device')
    other = duckdb.CatalogException("Table with name nowhere does not exist!")
    assert isinstance(write_refused("p.duckdb", "the file is not writable", read_only), ProjectReadOnly)
    assert write_refused("p.duckdb", None, read_only) is None  # opened for writing: not the studio's doing
    refusal = write_refused("p.duckdb", None, full)
    assert isinstance(refusal, ProjectError) and "no space left on device" in str(refusal)
    assert write_refused("p.duckdb", None, other) is None
