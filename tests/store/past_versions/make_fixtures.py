"""Remake the project files of past schema versions that tests/store/test_past_versions.py opens.

Each file is written by the studio's own code as it was when its schema version was the newest:
the last commit at which that version was LATEST_VERSION is checked out in a temporary git
worktree under the system's temporary folder, and that commit's `studio` command line, run by this
repository's virtualenv with PYTHONPATH set to the worktree, builds a small project from the
worktree's own sample_data (two topics, three runs cut at depth 10, the human grades of their
pool, passages cut short) with what that studio could do: topics, documents, responses, the
`human` qrels, runs, two banks, audited label edits and an undo, then (as each arrived) a bank
edit, a simulated UMBRELA judge, a rubric judge with extracted answers, a derived label set, review
decisions, an embedding judge, robustness probes, an audit with gold labels, a calibrated set, an
ensemble and a sampled judge. What the file then holds
(holdings.py: counts and digests, read with DuckDB alone), its recorded schema versions and the
nDCG@10 leaderboards that studio computed go to manifest.json; the file itself to vNN.duckdb.gz.

Versions 7 and 15 were never the newest of any commit (7 arrived together with 8, and 16 was
numbered before 15 arrived); their files are written by the commit that introduced them with its
migration list cut after that version (`made_with: "cut"` in the manifest). Version 14 was never
used, so no file was ever at it.

Run from the repository root (a few minutes; needs git and the full history):

    .venv/bin/python tests/store/past_versions/make_fixtures.py          # every version
    .venv/bin/python tests/store/past_versions/make_fixtures.py 9 10     # only these
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[2]
sys.path.insert(0, str(REPOSITORY / "tests"))  # for store.past_versions.holdings when run as a script

from store.past_versions.holdings import holdings, schema_versions  # noqa: E402

PYTHON = REPOSITORY / ".venv" / "bin" / "python"
MANIFEST = HERE / "manifest.json"

TOPICS = ("1001", "1003")
RUNS = ("rerank-strong.txt", "lexical-bm25.txt", "weak-baseline.txt")
DEPTH = 10  # ranks kept per topic and run: enough for nDCG@10, small on disk
TEXT_CHARS = 240  # of each passage: the documents and the prompts that quote them are most of a file
PERSON = "fixture-maker"

# Runs one `studio` command (or the review step, which has no command) with the worktree's code,
# its migration list first cut after `newest` (a no-op unless the version was never the newest).
RUNNER = r"""
import sys

newest = int(sys.argv.pop(1))
import studio.cli.app
import studio.store.migrations as migrations

migrations.MIGRATIONS[:] = [m for m in migrations.MIGRATIONS if m[0] <= newest]
for module in list(sys.modules.values()):
    if getattr(module, "__name__", "").startswith("studio") and hasattr(module, "LATEST_VERSION"):
        module.LATEST_VERSION = newest

if sys.argv[1] == "review":
    db, ref, qrels, person = sys.argv[2:6]
    from studio.services.project import Project
    try:
        from studio.services.review.session import ReviewSession
    except ImportError:
        from studio.services.review import ReviewSession
    project = Project.open(db)
    session = ReviewSession(project, ref, qrels, person=person)
    session.load()
    session.set_grade(1)
    session.flag()
    session.note("near miss: the passage names the topic but does not answer it")
    session.skip()
    project.close()
else:
    sys.argv[0] = "studio"
    studio.cli.app.run()
"""


@dataclass(frozen=True)
class PastVersion:
    """A schema version and the commit whose studio writes its fixture."""

    version: int
    commit: str
    made_with: str = "newest"  # "newest": the commit's newest version; "cut": its migrations cut after it
    note: str = ""

    @property
    def name(self) -> str:
        return f"v{self.version:02d}"


PAST_VERSIONS = (
    PastVersion(1, "426a6c62699e0471d2033ad33ddd092d72577055"),
    PastVersion(2, "ad8e5b8f66c45efae92e6dcb60cccf3c9e2b9627"),
    PastVersion(3, "9dc562e2a2c42ed22ec883e86d4ca8e85afd1691"),
    PastVersion(4, "98ebaa853a6eb6af9a0d6557437df8ee7edc1ba8"),
    PastVersion(5, "519bd5edbf050abc2d90ae2c837309c8fd5b2afa"),
    PastVersion(6, "5704d0cc94de4c4f6bdcb20162e67a76429d1838"),
    PastVersion(
        7,
        "4239070f17c1ba0446bcc3c7c1fe7dae2b663381",
        "cut",
        "no commit had 7 as its newest version (7 and 8 arrived together): the commit that introduced both,"
        " its migrations cut after 7",
    ),
    PastVersion(8, "4e2a43540ed953cb83f9c26ab79b9581c51c1b7e"),
    PastVersion(9, "699946e299da746c59397e7d239a1f9c4578b7bc"),
    PastVersion(10, "ed698bb22ca91903b4c66891b63575c5ec2adffb"),
    PastVersion(11, "9693ae8123b9a3849816f8ad538930a5cf780007"),
    PastVersion(12, "0f8673bb8708cc189324320c502ad4b1fa973533"),
    PastVersion(13, "3dabf692ebffbd1de08961dca9e6c51d1e407fc7"),
    PastVersion(
        15,
        "4eb04f38a6a7e024480e13752a9f19904935d5a8",
        "cut",
        "no commit had 15 as its newest version (16 was numbered first): the commit that introduced 15,"
        " its migrations cut after 15",
    ),
    PastVersion(
        16,
        "d10946767d4eeae2e5b01dbc5be052b250bc27d0",
        note="the newest version, as written before the migrations became one module per version",
    ),
    PastVersion(
        17,
        "0f77048a14f803a3e09c4f491f96212d1a9a3aa1",
        note="the last version without the studio's mark (version 18 adds it as the file is upgraded)",
    ),
    PastVersion(
        18,
        "b46dab53cc5ac2f12da0bb5f40619b9fd15d8a3d",
        note="the last version without imported leaderboards (19 adds them)",
    ),
    PastVersion(
        19,
        "ff9b984761a48649c01dafdc9d9c31d1d53bebef",
        note="the last version with one assessor per audit (20 adds assignments and each assessor's grades)",
    ),
    PastVersion(
        20,
        "504bb08fb3cf2e9a0745c179472ca6cbce58656d",
        note="the last version without a vocabulary row per topic (21 adds them)",
    ),
    PastVersion(
        21,
        "474b9e9bc362c7d6cd592b46a4ffcc2861ddde28",
        note="the last version without assessment campaigns (22 adds them)",
    ),
    PastVersion(
        22,
        "05cdd4fe4d910e4e4d9483865a173d9f9a241164",
        note="the last version without prompt collections (23 adds them)",
    ),
    PastVersion(
        23,
        "612732dbae21bce6fb9d1402b47de5dd6561ee8f",
        "cut",
        "no commit had 23 as its newest version on the main line (23 and 24 arrived together): the merge"
        " that brought both, its migrations cut after 23; the last version before a project could belong"
        " to a team (24 adds the team's tables)",
    ),
    PastVersion(
        24,
        "37030b4228624dce2aa092988b1fa1113acdd4ee",
        note="the last version whose label events are one wide table (25 narrows the row: sources and notes apart)",
    ),
    PastVersion(
        25,
        "a67deb12a2cacbdab2ac52a2069f3f577057d734",
        note="the last version without the team's quarantine and a campaign's mark of its LLM set (26 adds them)",
    ),
    PastVersion(
        26,
        "e1c20aade6be3a015bacd7c4f3387a5db5780c0e",
        note="the last version without the outcome of a team copy's last sync (27 adds it)",
    ),
)


@dataclass
class Inputs:
    """The small import files cut from a worktree's sample_data."""

    folder: Path
    runs: list[Path] = field(default_factory=list)
    human: dict[tuple[str, str], int] = field(default_factory=dict)
    question_id: str = ""

    def path(self, name: str) -> Path:
        return self.folder / name


def cut_inputs(sample: Path, folder: Path) -> Inputs:
    """Import files holding only TOPICS (runs cut at DEPTH) and the documents they name."""
    inputs = Inputs(folder)
    lines = (sample / "topics.tsv").read_text("utf-8").splitlines()
    inputs.path("topics.tsv").write_text("".join(f"{line}\n" for line in lines if line.split("\t")[0] in TOPICS))
    pool: set[tuple[str, str]] = set()
    for run in RUNS:
        rows = [line.split() for line in (sample / "runs" / run).read_text().splitlines()]
        kept = [row for row in rows if row[0] in TOPICS and int(row[3]) <= DEPTH]
        pool |= {(row[0], row[2]) for row in kept}
        inputs.runs.append(inputs.path(run))
        inputs.runs[-1].write_text("".join(" ".join(row) + "\n" for row in kept))
    # Judged as TREC judges: the pool of the runs' documents (those of other topics stay unjudged).
    judged = (sample / "qrels" / "human.txt").read_text().splitlines()
    qrels = [line for line in judged if tuple(line.split()[::2]) in pool]  # (qid, docid) of qid 0 docid grade
    inputs.path("human.txt").write_text("".join(f"{line}\n" for line in qrels))
    inputs.human = {(line.split()[0], line.split()[2]): int(line.split()[3]) for line in qrels}
    named = {docid for _, docid in pool}
    documents = [json.loads(line) for line in (sample / "documents.jsonl").read_text("utf-8").splitlines()]
    shortened = [{**d, "text": d["text"][:TEXT_CHARS]} for d in documents if d["docid"] in named]
    write_jsonl(inputs.path("documents.jsonl"), shortened)
    answers = [json.loads(line) for line in (sample / "responses" / "answers.jsonl").read_text("utf-8").splitlines()]
    write_jsonl(inputs.path("answers.jsonl"), [a for a in answers if a["qid"] in TOPICS])
    bank = gzip.decompress((sample / "banks" / "questions.jsonl.gz").read_bytes()).decode("utf-8")
    questions = [q for q in map(json.loads, bank.splitlines()) if q["query_id"] in TOPICS]
    write_jsonl(inputs.path("questions.jsonl"), questions)
    inputs.question_id = questions[0]["items"][0]["question_id"]
    nuggets = [json.loads(line) for line in (sample / "banks" / "nuggets.jsonl").read_text("utf-8").splitlines()]
    write_jsonl(inputs.path("nuggets.jsonl"), [n for n in nuggets if n["qid"] in TOPICS])
    return inputs


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records), encoding="utf-8")


@dataclass
class OldStudio:
    """The `studio` of a worktree, on one project file."""

    worktree: Path
    project: Path
    newest: int

    def run(self, *args: str) -> str:
        """Run one command (or the review step); its stdout. A failure stops the fixture."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("STUDIO_")}
        env.update(PYTHONPATH=str(self.worktree), COLUMNS="200", NO_COLOR="1")
        command = [str(PYTHON), "-c", RUNNER, str(self.newest)]
        command += (
            ["review", str(self.project), *args[1:]] if args[0] == "review" else ["--db", str(self.project), *args]
        )
        done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=self.worktree, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"studio {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
        return done.stdout

    def leaderboard(self, qrels: str) -> dict[str, float]:
        rows = json.loads(self.run("eval", "--qrels", qrels, "--measure", "nDCG@10", "--format", "json"))
        return {row["run"]: row["value"] for row in rows}


Step = Callable[[OldStudio, Inputs], object]


def imports(studio: OldStudio, inputs: Inputs) -> None:
    studio.run("import", "topics", str(inputs.path("topics.tsv")))
    studio.run("import", "docs", str(inputs.path("documents.jsonl")))
    studio.run("import", "qrels", str(inputs.path("human.txt")), "--name", "human")
    studio.run("import", "run", *(str(run) for run in inputs.runs))
    studio.run("import", "responses", str(inputs.path("answers.jsonl")))
    studio.run("import", "bank", str(inputs.path("questions.jsonl")), "--name", "questions")
    studio.run("import", "bank", str(inputs.path("nuggets.jsonl")), "--name", "nuggets")


def label_edits(studio: OldStudio, inputs: Inputs) -> None:
    (first, graded), (second, _) = sorted(inputs.human.items())[1], sorted(inputs.human.items())[-1]
    note = ["--person", PERSON, "--note"]
    studio.run("label", "--qrels", "human", *first, str((graded + 1) % 4), *note, "regraded on a second reading")
    studio.run("label", "--qrels", "human", *second, "none", *note, "not a passage of this topic")
    studio.run("undo", "--qrels", "human")


def bank_edit(studio: OldStudio, inputs: Inputs) -> None:
    reworded = "At what temperature does pure water boil at sea level?"
    studio.run("bank", "edit", "questions", inputs.question_id, reworded, "--person", PERSON, "--note", "clearer")


def simulated_judge(studio: OldStudio, inputs: Inputs) -> None:
    top = ["--pool", "runs:2"]  # every topic's top documents: few calls, all topics
    studio.run("judge", "--method", "umbrela", "--backend", "simulated", "--name", "sim", "--kappa", "0.5", *top)


def rubric_judge(studio: OldStudio, inputs: Inputs) -> None:
    rubric = ["--method", "exam-question", "--bank", "questions", "--name", "exam", "--limit", "1"]
    studio.run("judge", "--backend", "simulated", *rubric)
    if studio.newest >= 4:  # grading verification: each graded document's answer to each item
        studio.run("judge", "--name", "exam", "--extract-answers")


def derived_set(studio: OldStudio, inputs: Inputs) -> None:
    studio.run("derive", "--from", "exam", "--bank", "questions", "--score", "exam-binary", "--name", "exam-binary")


def review(studio: OldStudio, inputs: Inputs) -> None:
    studio.run("review", "human", "sim", PERSON)


def embedding_judge(studio: OldStudio, inputs: Inputs) -> None:
    studio.run("judge", "--method", "embedding", "--name", "embedded", "--limit", "3")


def probes(studio: OldStudio, inputs: Inputs) -> None:
    studio.run("probe", "--qrels", "sim", "--limit", "3")


def audit(studio: OldStudio, inputs: Inputs) -> None:
    studio.run("audit", "plan", "--qrels", "sim", "--name", "gold", "--budget", "4", "--design", "pairs")
    pairs = json.loads(studio.run("audit", "pairs", "gold", "--format", "json"))
    graded = inputs.path("gold.txt")
    graded.write_text("".join(f"{p['qid']} 0 {p['docid']} {inputs.human[(p['qid'], p['docid'])]}\n" for p in pairs[:3]))
    studio.run("audit", "import", "gold", str(graded))


def calibration(studio: OldStudio, inputs: Inputs) -> None:
    studio.run("calibrate", "--qrels", "sim", "--gold", "human", "--name", "sim-calibrated", "--folds", "2")


def ensemble(studio: OldStudio, inputs: Inputs) -> None:
    studio.run("ensemble", "--qrels", "sim", "--qrels", "exam-binary", "--name", "sim-and-exam", "--how", "mean")


def sampled_judge(studio: OldStudio, inputs: Inputs) -> None:
    sampled = ["--name", "sim-sampled", "--samples", "3", "--limit", "4", "--seed", "2"]
    studio.run("judge", "--method", "umbrela", "--backend", "simulated", *sampled)


def campaign(studio: OldStudio, inputs: Inputs) -> None:
    """A campaign with one topic under manual and one under post-editing, two pairs graded."""
    studio.run(
        "assess", "plan", "--name", "campaign", "--llm", "sim", "--pool", "qrels:human",
        "--manual", "1", "--post-editing", "1", "--assessors", "ann", "--seed", "3",
    )  # fmt: skip
    pairs = json.loads(studio.run("assess", "pairs", "campaign", "--assessor", "ann", "--format", "json"))
    graded = inputs.path("campaign.txt")
    graded.write_text("".join(f"{p['qid']} 0 {p['docid']} {inputs.human[(p['qid'], p['docid'])]}\n" for p in pairs[:2]))
    studio.run("assess", "import", "campaign", str(graded), "--assessor", "ann")


def prompt_collection(studio: OldStudio, inputs: Inputs) -> None:
    """A collection of two prompts, one of each author group."""
    prompts = {
        f"{author}-1": {
            "participant_name": author,
            "binary": {"system": "You judge relevance.", "user": f"Query: {{query}}\nPassage: {{passage}}\n({author})"},
        }
        for author in ("human-a", "LLM-b")
    }
    collection = inputs.path("prompts.json")
    collection.write_text(json.dumps(prompts))
    studio.run("import", "prompts", str(collection), "--name", "prompts")


# Each step with the first schema version whose studio could take it.
STEPS: tuple[tuple[int, Step], ...] = (
    (1, imports),
    (1, label_edits),
    (2, bank_edit),
    (2, simulated_judge),
    (3, rubric_judge),
    (5, derived_set),
    (6, review),
    (7, embedding_judge),
    (8, probes),
    (16, audit),
    (16, calibration),
    (16, ensemble),
    (16, sampled_judge),
    (22, campaign),
    (23, prompt_collection),
)


@contextmanager
def worktree(commit: str, name: str) -> Iterator[Path]:
    """The commit checked out in a temporary worktree outside the repository, removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix=f"wt-{name}-"))
    path.rmdir()
    subprocess.run(["git", "-C", str(REPOSITORY), "worktree", "add", "--detach", str(path), commit], check=True)
    try:
        yield path
    finally:
        subprocess.run(["git", "-C", str(REPOSITORY), "worktree", "remove", "--force", str(path)], check=True)


def make(past: PastVersion) -> dict[str, Any]:
    """Write the fixture of one version; its manifest entry."""
    with worktree(past.commit, past.name) as tree, tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        inputs = cut_inputs(tree / "sample_data", folder)
        studio = OldStudio(tree, folder / f"{past.name}.duckdb", past.version)
        for since, step in STEPS:
            if past.version >= since:
                step(studio, inputs)
        boards = {name: studio.leaderboard(name) for name in ("human", "sim") if past.version >= 2 or name == "human"}
        commit = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True)
        with duckdb.connect(str(studio.project), read_only=True) as con:
            versions = schema_versions(con)
            held = holdings(con)
        if max(versions) != past.version:
            raise RuntimeError(f"{past.name}: the file records {versions}")
        data = studio.project.read_bytes()
        (HERE / f"{past.name}.duckdb.gz").write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    return {
        "file": f"{past.name}.duckdb.gz",
        "version": past.version,
        "commit": commit.stdout.strip(),
        "made_with": past.made_with,
        "note": past.note,
        "schema_versions": versions,
        "leaderboards": {"nDCG@10": boards},
        **held,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("versions", nargs="*", type=int, help="only these versions (default: all)")
    wanted = set(parser.parse_args().versions) or {past.version for past in PAST_VERSIONS}
    manifest: dict[str, Any] = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {}
    for past in PAST_VERSIONS:
        if past.version in wanted:
            print(f"{past.name} from {past.commit} …", file=sys.stderr, flush=True)
            manifest[past.name] = make(past)
            MANIFEST.write_text(json.dumps(dict(sorted(manifest.items())), indent=1, ensure_ascii=False) + "\n")
    shutil.rmtree(HERE / "__pycache__", ignore_errors=True)


if __name__ == "__main__":
    main()
