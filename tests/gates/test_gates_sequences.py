"""A fuzz campaign of command sequences: edits, undos, imports that replace, derived sets, exports
aimed at the project's own files, topic texts changed with and without --replace, refreshes.

After every command: no traceback; a refusal (exit 2) left the project as it was; `studio check`
passes; and every label set's leaderboard, as the studio computes it, is trec_eval's (pytrec_eval)
on the labels the set holds then (exported and read back), for two measures.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from evaluation_builders import Qrels, make_collection, trec_eval_means, write_qrels, write_run
from gates.conftest import fingerprint
from helpers import cli
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from hypothesis_profiles import examples

from studio import Project

SETS = ["human", "llm"]
PAIRS = [(q, d) for q in ("1", "2", "10", "1000") for d in ("999", "a", "B", "d1", "d20", "new")]
MEASURES = ["nDCG@10", "AP"]
COMPANIONS = ["", ".wal", ".lock", ".lock.wanted"]


def read_qrels(path: Path) -> Qrels:
    qrels: Qrels = {}
    for line in path.read_text().splitlines():
        qid, _, docid, grade = line.split()
        qrels.setdefault(qid, {})[docid] = int(float(grade))
    return qrels


class ProjectCommands(RuleBasedStateMachine):
    """One project, driven by the command line as a person or a script would drive it."""

    @initialize()
    def build(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="sequences-"))
        self.runs, human, llm = make_collection(7)
        self.db = self.folder / "p.duckdb"
        with Project.open(self.db) as project:
            project.import_runs([write_run(self.folder / f"{n}.run", n, run) for n, run in self.runs.items()])
            project.import_qrels(write_qrels(self.folder / "human.txt", human), name="human")
            project.import_qrels(write_qrels(self.folder / "llm.txt", llm), name="llm", kind="llm")
        self.derived = False
        self.files = 0

    def run(self, *args: object) -> Any:
        before = fingerprint(self.db)
        result = cli(self.db, *args, catch_exceptions=True)
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
        assert "Traceback" not in result.output + result.stderr
        assert result.exit_code in (0, 1, 2), (args, result.exit_code, result.stderr)
        if result.exit_code == 2:
            assert fingerprint(self.db) == before, f"{args} was refused but changed the project"
        return result

    def file(self, text: str) -> Path:
        self.files += 1
        path = self.folder / f"in-{self.files}.txt"
        path.write_text(text)
        return path

    @rule(name=st.sampled_from([*SETS, "E"]), pair=st.sampled_from(PAIRS), grade=st.integers(0, 3))
    def edit(self, name: str, pair: tuple[str, str], grade: int) -> None:
        result = self.run("label", "--qrels", name, *pair, grade)
        if name == "E" and self.derived:
            assert result.exit_code == 2 and "derived" in result.stderr

    @rule(name=st.sampled_from(SETS))
    def undo(self, name: str) -> None:
        self.run("undo", "--qrels", name)

    @rule(name=st.sampled_from([*SETS, "E"]), keep=st.sets(st.sampled_from(PAIRS)), grade=st.integers(0, 3))
    def replace(self, name: str, keep: set[tuple[str, str]], grade: int) -> None:
        text = "".join(f"{q} 0 {d} {grade}\n" for q, d in sorted(keep)) or "1 0 a 1\n"
        result = self.run("import", "qrels", self.file(text), "--name", name, "--replace")
        if name == "E" and self.derived:
            assert result.exit_code == 2 and "derived" in result.stderr

    @rule()
    def ensemble(self) -> None:
        if not self.derived:
            assert (
                self.run("ensemble", "--qrels", "human", "--qrels", "llm", "--how", "majority", "--name", "E").exit_code
                == 0
            )
            self.derived = True

    @rule(companion=st.sampled_from(COMPANIONS), linked=st.booleans())
    def export_onto_the_project(self, companion: str, linked: bool) -> None:
        target = Path(str(self.db) + companion)
        if linked:
            link = self.folder / f"link-{self.files}{companion}"
            self.files += 1
            link.symlink_to(target)
            target = link
        assert self.run("export", "qrels", "human", "--out", target).exit_code == 2

    @rule(qid=st.sampled_from(["1", "2", "t-new"]), replace=st.booleans())
    def topic_text(self, qid: str, replace: bool) -> None:
        path = self.file(f"{qid}\ttext {self.files}\n")
        result = self.run("import", "topics", path, *(["--replace"] if replace else []))
        assert result.exit_code == 0 or (not replace and "--replace" in result.stderr)

    @rule()
    def refresh(self) -> None:
        self.run("refresh")

    @invariant()
    def checked_and_recomputed(self) -> None:
        if not hasattr(self, "db"):
            return
        result = cli(self.db, "check")
        assert result.exit_code == 0, result.stdout + result.stderr
        names = SETS + (["E"] if self.derived else [])
        with Project.open(self.db) as project:
            for name in names:
                exported = self.folder / f"out-{name}.qrels"
                project.export_qrels(name, exported)
                qrels = read_qrels(exported)
                for measure in MEASURES:
                    ours = project.leaderboard(name, measure)
                    theirs = trec_eval_means(self.runs, qrels, measure) if qrels else {}
                    for run in ours:
                        assert ours[run] == pytest.approx(theirs.get(run, 0.0), abs=1e-12), (name, measure, run)

    def teardown(self) -> None:
        if hasattr(self, "folder"):
            for path in sorted(self.folder.rglob("*"), reverse=True):
                path.unlink() if not path.is_dir() or path.is_symlink() else os.rmdir(path)
            os.rmdir(self.folder)


ProjectCommands.TestCase.settings = settings(
    max_examples=examples(4),
    stateful_step_count=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_command_sequences = ProjectCommands.TestCase
