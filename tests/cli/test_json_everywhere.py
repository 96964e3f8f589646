"""Every command that prints JSON prints strict JSON and keeps numpy's warnings off the terminal.

The commands are walked from the typer app: each one with a `--format` that offers json must
have an entry in CASES (the command line to run it with on the sample project, and what must be
done first), so a new command fails here until it is given one. Each case runs in a process of
its own, on its own copy of the sample project, as a person would run it: exit 0, stdout parsed
with no NaN or Infinity allowed, and no Python warning on stderr (the studio's own lines that
begin `Warning: ` are notes for the person, not warnings of the runtime).

Placeholders in the arguments: {data} the sample data folder, {folder} the case's own folder,
{model_url} a fake OpenAI-compatible server, and whatever a step returns.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cli.cli_helpers import FIXED_ENV, REPO, UNSET_ENV
from fake_openai_server import FakeOpenAIServer, completion
from helpers import cli

from studio import Project
from studio.cli.output import OutputFormat
from studio.cli.reference import command_tree, commands
from studio.domain.specs import AuditDrawSpec
from studio.services.rubric.editing import BankEditor

DATA = REPO / "sample_data"
LLM = "umbrela-smol"

# A step before the command under test: a command line run in-process, or a function of the open
# project and the case's folder that may return placeholders for the command line.
Step = list[str] | Callable[[Project, Path], dict[str, str] | None]


@dataclass(frozen=True)
class Case:
    args: list[str]  # after `studio --db PROJECT`, without `--format json`
    before: tuple[Step, ...] = ()
    prelude: str = ""  # Python run in the command's process first (a stand-in model, a local dataset)
    model: bool = False  # needs the fake model server ({model_url})
    env: dict[str, str] = field(default_factory=dict)
    extras: tuple[str, ...] = ()  # the optional extras the command needs (tests/extras.py)


def binary_verdicts(project: Project, folder: Path) -> dict[str, str]:
    """One system's binary verdicts in the Gen-IR release's layout."""
    (folder / "binary.txt").write_text("1001\t0\tYes\n1002\t0\tno")
    return {}


def plan(project: Project, folder: Path) -> dict[str, str]:
    """An audit `a` of 20 pairs, and `a.qrels`: the human grades of its sample."""
    project.plan_audit(AuditDrawSpec(LLM, name="a", budget=20, design="pairs", seed=3))
    human = project.engine.evaluator("human").labels
    rows = [(p["qid"], p["docid"]) for p in project.audit_pairs("a")]
    (folder / "a.qrels").write_text("".join(f"{q} 0 {d} {human[q].judged.get(d, 0.0):g}\n" for q, d in rows))
    return {}


def graded_audit(project: Project, folder: Path) -> dict[str, str]:
    plan(project, folder)
    project.import_audit("a", folder / "a.qrels")
    return {}


def in_conflict(project: Project, folder: Path) -> dict[str, str]:
    """Audit `a` given whole to alice and bob, who grade one pair apart: a conflict to settle."""
    plan(project, folder)
    project.assign_audit("a", ["alice", "bob"], overlap=1.0)
    lines = (folder / "a.qrels").read_text().splitlines()
    qid, _, docid, grade = lines[0].split()
    (folder / "bob.qrels").write_text("\n".join([f"{qid} 0 {docid} {3 - float(grade):g}", *lines[1:]]) + "\n")
    project.import_audit("a", folder / "a.qrels", assessor="alice")
    project.import_audit("a", folder / "bob.qrels", assessor="bob")
    return {"qid": qid, "docid": docid}


def campaign(project: Project, folder: Path) -> dict[str, str]:
    """Campaign `c` of the sample's pool, and `c.qrels`: the human grades of the pairs it shows."""
    project.plan_campaign("c", llm=LLM, pool="qrels:human", manual="3", filtering="3", post_editing="4", seed=1)
    human = project.engine.evaluator("human").labels
    rows = [(p["qid"], p["docid"]) for p in project.campaign_pairs("c")]
    (folder / "c.qrels").write_text("".join(f"{q} 0 {d} {human[q].judged.get(d, 0.0):g}\n" for q, d in rows))
    return {}


def graded_campaign(project: Project, folder: Path) -> dict[str, str]:
    campaign(project, folder)
    project.import_campaign("c", folder / "c.qrels", assessor="nist")
    return {}


def gold_topics(project: Project, folder: Path) -> dict[str, str]:
    """`gold`: the human grades of eight of the ten topics."""
    human = project.engine.evaluator("human").labels
    lines = [f"{q} 0 {d} {g:g}\n" for q in sorted(human)[:8] for d, g in human[q].judged.items()]
    (folder / "gold.txt").write_text("".join(lines))
    project.import_qrels(folder / "gold.txt", name="gold")
    return {}


def items(project: Project, folder: Path) -> dict[str, str]:
    questions = BankEditor(project.db, "questions").items("1001")
    nugget = BankEditor(project.db, "nuggets").items("1001")[0]
    return {"item": questions[0]["item_id"], "other": questions[1]["item_id"], "nugget": nugget["item_id"]}


def answered_batch(project: Project, folder: Path) -> dict[str, str]:
    """The Batch API's answers to `batch.jsonl`, every one a grade of 2."""
    answers = []
    for i, line in enumerate((folder / "batch.jsonl").read_text().splitlines()):
        request = json.loads(line)
        body = completion(request["body"], "It answers it.\n##final score: 2", with_logprobs=False)
        response = {"status_code": 200, "body": body}
        answers.append({"id": f"r{i}", "custom_id": request["custom_id"], "error": None, "response": response})
    (folder / "answers.jsonl").write_text("".join(json.dumps(a) + "\n" for a in answers))
    return {}


def offline_member(project: Project, folder: Path) -> dict[str, str]:
    """The project as alice's copy of a team whose server cannot be reached (port 1)."""
    project.db.cursor().execute(
        "INSERT INTO team_link (member, coordinator, conninfo, base_event)"
        " VALUES ('alice', 'coord', 'host=127.0.0.1 port=1 dbname=team user=alice connect_timeout=2', 0)"
    )
    return {}


def local_dataset(project: Project, folder: Path) -> dict[str, str]:
    """Files of a tiny ir_datasets dataset (registered by IRDS in the command's process)."""
    (folder / "docs").write_text("p1001-01\ta passage\nnew-1\tanother passage\n")
    (folder / "queries").write_text("q1\twhat is one\n")
    (folder / "qrels").write_text("q1 0 new-1 2\n")
    return {}


IRDS = """
import ir_datasets, pathlib
here = pathlib.Path({folder!r})
local = ir_datasets.util.LocalDownload
ir_datasets.registry.register("studio-test/json/judged", ir_datasets.Dataset(
    ir_datasets.formats.TsvDocs(local(str(here / "docs"))),
    ir_datasets.formats.TsvQueries(local(str(here / "queries"))),
    ir_datasets.formats.TrecQrels(local(str(here / "qrels")), {{}}),
))
"""
# The bundled sentence-transformers model takes half a minute of CPU to load: a hashing stand-in.
HASHED = """
import sys
sys.path.insert(0, {tests!r})
from embedding_helpers import HashEmbedder
import studio.services.evaluation.frechet as frechet
frechet.Embedder = lambda *args, **kwargs: HashEmbedder()
"""

# The answers' runs scale embeds through its own module's Embedder.
HASHED_ANSWERS = HASHED + "import studio.services.answers.runs_scale as scale\nscale.Embedder = frechet.Embedder\n"

SIM = ["judge", "--method", "umbrela", "--backend", "simulated", "--name", "sim", "--kappa", "0.4", "--topic", "1001"]
ANSWERS = ["judge", "--answers", "--method", "umbrela", "--backend", "simulated", "--name", "graded"]
PREFERENCES = ["judge", "--answers", "--method", "pairwise", "--backend", "simulated", "--name", "prefs"]
ARENA = [*PREFERENCES[:-1], "arena", "--tournament"]
EXAM = [*("judge", "--method", "exam-question", "--backend", "simulated", "--name", "exam"), "--bank", "questions"]
EXAM += ["--topic", "1009", "--limit", "6"]
PROMPTS = {
    "human-1": {
        "participant_name": "human-1",
        "binary": {"system": "", "user": "Relevant? 1 or 0.\nQuery: {query}\nPassage: {passage}"},
        "pairwise": {"system": "", "user": "{query}\n1: {passage_a}\n2: {passage_b}\nBetter, 1 or 2?"},
    },
    "LLM-1": {"participant_name": "LLM-1", "binary": {"system": "Judge.", "user": "{query}\n{passage}\nYes or no?"}},
}


def prompt_file(project: Project, folder: Path) -> dict[str, str]:
    """`prompts.json` in the case's folder (a collection of three prompts)."""
    (folder / "prompts.json").write_text(json.dumps(PROMPTS), encoding="utf-8")
    return {}


def prompt_collection(project: Project, folder: Path) -> dict[str, str]:
    """The collection `ps` imported, and `v.txt`: pairwise verdicts of its human-1 prompt."""
    prompt_file(project, folder)
    project.import_prompts(folder / "prompts.json", name="ps")
    (folder / "v.txt").write_text("1001 3-vs-01 p1001-01 p1001-02 agree\n", encoding="utf-8")
    return {}


def study_folder(project: Project, folder: Path) -> dict[str, str]:
    """The collection `ps` imported, and `judged/`: a binary and a pairwise file of its human-1
    prompt named as the study's release names them."""
    prompt_collection(project, folder)
    (folder / "judged").mkdir()
    (folder / "judged" / "m_binary_sample_human-1.txt").write_text("1001 0 p1001-01 1\n", encoding="utf-8")
    (folder / "judged" / "m_pairwise_sample_human-1.txt").write_text(
        "1001 top low regular p1001-01 p1001-02 A\n1001 top low swapped p1001-02 p1001-01 B\n", encoding="utf-8"
    )
    return {}


STUDY = ["sensitivity", "run", "--prompts", "ps", "--collection", "sample", "--backend", "simulated", "--topic", "1001"]
RELABEL = ["label", "--qrels", LLM, "1001", "p1001-01", "0"]
BATCH = ["judges", "export-batch", "pending", "--out", "{folder}/batch.jsonl", "--model", "fake", "--topic", "1001"]
MODEL = ["--backend", "openai", "--model", "fake", "--base-url", "{model_url}", "--topic", "1001"]
SIMULATE = ["audit", "simulate", "--ref", "human", "--qrels", LLM, "--trials", "20", "--seed", "1"]
PLAN = ["audit", "plan", "--qrels", LLM]

CASES: dict[str, list[Case]] = {
    "demo": [Case(["demo", "--no-tui"])],
    "init": [Case(["init"])],
    "import topics": [Case(["import", "topics", "{data}/topics.tsv"])],
    "import docs": [Case(["import", "docs", "{data}/documents.jsonl"])],
    "import qrels": [Case(["import", "qrels", "{data}/qrels/human.txt", "--name", "again"])],
    "import run": [Case(["import", "run", "{data}/runs/dense-good.txt", "--name", "again"])],
    "import responses": [Case(["import", "responses", "{data}/responses/answers.jsonl", "--replace"])],
    "import answer-labels": [
        Case(
            [
                "import",
                "answer-labels",
                "{folder}/binary.txt",
                "--system",
                "solid",
                "--method",
                "binary",
                "--name",
                "b",
            ],
            (binary_verdicts,),
        )
    ],
    "import bank": [Case(["import", "bank", "{data}/banks/nuggets.jsonl", "--name", "again"])],
    "import judgments": [Case(["import", "judgments", "{data}/judgments/umbrela-smol.jsonl.gz", "--name", "again"])],
    "import graded": [
        Case(
            ["import", "graded", "{folder}/graded.jsonl.gz", "--name", "again", "--bank", "questions"],
            (EXAM, ["export", "graded", "exam", "--out", "{folder}/graded.jsonl.gz"]),
        )
    ],
    "import irds": [
        Case(
            ["import", "irds", "studio-test/json/judged", "--name", "local"],
            (local_dataset,),
            prelude=IRDS,
            env={"IR_DATASETS_HOME": "{folder}/irds"},
            extras=("irds",),
        )
    ],
    "import leaderboard": [
        Case(
            ["import", "leaderboard", "{folder}/board.tsv", "--name", "published"],
            (["export", "leaderboard", "--qrels", "human", "--out", "{folder}/board.tsv"],),
        )
    ],
    "import probs": [
        Case(
            ["import", "probs", "{folder}/p.csv", "--name", "p"], (["export", "probs", LLM, "--out", "{folder}/p.csv"],)
        )
    ],
    "list": [Case(["list"]), Case(["list", "qrels"]), Case(["list", "judges"])],
    "check": [Case(["check"])],
    "refresh": [Case(["refresh"])],
    "doctor": [Case(["doctor"])],
    "sync": [Case(["sync"], (offline_member,), extras=("team",))],
    "team status": [Case(["team", "status"]), Case(["team", "status"], (offline_member,), extras=("team",))],
    "eval": [Case(["eval", "--qrels", "human", "-m", "nDCG@10", "-m", "P(rel=2)@10", "--per-topic"])],
    "answers": [
        Case(["answers", "--labels", "graded", "--labels", "prefs"], (ANSWERS, PREFERENCES)),
        Case(
            ["answers", "--qrels", "answers"],
            (["judge", "--backend", "simulated", "--name", "answers", "--pool", "responses"],),
        ),
    ],
    "answers compare": [
        Case(["answers", "compare", "--labels", "graded", "--labels", "prefs"], (ANSWERS, PREFERENCES))
    ],
    "answers significance": [Case(["answers", "significance", "--labels", "graded"], (ANSWERS,))],
    "answers tournament": [Case(["answers", "tournament", "--labels", "arena", "--resamples", "50"], (ARENA,))],
    "answers runs": [Case(["answers", "runs", "--ref", "human"], prelude=HASHED_ANSWERS)],
    "validate": [Case(["validate", "--labels", LLM, "--ref", "human"])],
    "correlate": [Case(["correlate", "--ref", "human", "--qrels", LLM, "-m", "nDCG@10", "-m", "RR"])],
    "agree": [Case(["agree", "--ref", "human", "--qrels", LLM])],
    "disagreements": [Case(["disagreements", "--ref", "human", "--qrels", LLM, "--limit", "5"])],
    "label": [Case(["label", "--qrels", LLM, "1001", "p1001-01", "2"])],
    "undo": [Case(["undo"], (RELABEL,))],
    "history": [Case(["history", "--qrels", LLM], (RELABEL,))],
    "fd": [Case(["fd", "--qrels", "human", "-k", "5"], prelude=HASHED)],
    "judge": [Case(SIM)],
    "derive": [
        Case(["derive", "--from", "exam", "--bank", "questions", "--score", "exam-binary", "--name", "eb"], (EXAM,))
    ],
    "ensemble": [Case(["ensemble", "--qrels", "human", "--qrels", LLM, "--how", "mean", "--name", "mixed"])],
    "calibrate": [Case(["calibrate", "--qrels", LLM, "--gold", "human", "--name", "cal", "--folds", "3"])],
    "judges list": [Case(["judges", "list"])],
    "judges failures": [Case(["judges", "failures", LLM])],
    "judges reparse": [Case(["judges", "reparse", "sim"], (SIM,))],
    "judges extract-answers": [Case(["judges", "extract-answers", "exam"], (EXAM,))],
    "judges verify": [Case(["judges", "verify", "exam"], (EXAM,))],
    "judges export-batch": [Case(BATCH)],
    "judges import-batch": [
        Case(
            ["judges", "import-batch", "pending", "{folder}/answers.jsonl", "--model", "fake", "--topic", "1001"],
            (BATCH, answered_batch),
        )
    ],
    "compare": [Case(["compare", "--ref", "human", "--qrels", LLM, "--resamples", "200"])],
    "sensitivity": [
        Case(
            [
                *("sensitivity", "--method", "binary", "--backend", "simulated", "--name", "sens", "--topic", "1001"),
                *("--prompt", "binary", "--prompt", "binary-human"),
            ]
        )
    ],
    "probe": [Case(["probe", "--qrels", "sim", "--limit", "6"], (SIM,))],
    "import prompts": [Case(["import", "prompts", "{folder}/prompts.json", "--name", "ps"], (prompt_file,))],
    "import preferences": [
        Case(
            [
                *("import", "preferences", "{folder}/v.txt", "--name", "pw", "--prompt", "human-1"),
                *("--model", "m", "--collection", "sample"),
            ],
            (prompt_collection,),
        )
    ],
    "import study": [
        Case(
            ["import", "study", "{folder}/judged", "--pattern", "{{model}}_{{method}}_{{collection}}_{{prompt}}.txt"],
            (study_folder,),
        )
    ],
    "sensitivity run": [Case([*STUDY, "--per-grade", "2", "--per-category", "1"], (prompt_collection,))],
    "sensitivity report": [Case(["sensitivity", "report", "--ref", "human"], (prompt_collection, STUDY))],
    "significance": [
        Case(["significance", "--qrels", "human"]),
        Case(["significance", "--ref", "human", "--qrels", LLM, "--test", "randomization", "--resamples", "500"]),
    ],
    "estimate": [
        Case(["estimate", "--qrels", LLM, "--gold", "gold"], (gold_topics,)),
        Case(["estimate", "--qrels", LLM, "--gold", "a", "--design", "pairs", "-m", "nDCG@10"], (graded_audit,)),
    ],
    "bank list": [Case(["bank", "list", "questions", "--topic", "1001"])],
    "bank add": [Case(["bank", "add", "nuggets", "1003", "Jaguars reach 80 km/h", "--importance", "vital"])],
    "bank edit": [Case(["bank", "edit", "questions", "{item}", "new wording"], (items,))],
    "bank weight": [Case(["bank", "weight", "nuggets", "{nugget}", "okay"], (items,))],
    "bank delete": [Case(["bank", "delete", "questions", "{item}"], (items,))],
    "bank merge": [Case(["bank", "merge", "questions", "{item}", "{other}", "--text", "merged"], (items,))],
    "bank split": [Case(["bank", "split", "questions", "{item}", "part one", "part two"], (items,))],
    "bank history": [Case(["bank", "history", "questions"])],
    "bank report": [Case(["bank", "report", "questions", "--from", "exam"], (EXAM,))],
    "bank stale": [Case(["bank", "stale", "--from", "exam"], (EXAM,))],
    "bank generate": [Case(["bank", "generate", "made", *MODEL], model=True)],
    "bank cover": [Case(["bank", "cover", "questions", "--from", "exam"], (EXAM,))],
    "bank nuggetize": [Case(["bank", "nuggetize", "made", *MODEL], model=True)],
    "audit plan": [
        Case(
            [*PLAN, "--name", "a", "--budget", "20", "--design", "stratified", "--strata", "grade", "--pilot", "human"]
        ),
        Case([*PLAN, "--budget", "60", "--pilot", "human", "--trials", "20"]),
        Case([*PLAN, "--pilot", "human", "--target-width", "0.1"]),
    ],
    "audit import": [Case(["audit", "import", "a", "{folder}/a.qrels"], (plan,))],
    "audit list": [Case(["audit", "list"], (plan,))],
    "audit show": [Case(["audit", "show", "a"], (graded_audit,))],
    "audit pairs": [Case(["audit", "pairs", "a"], (plan,))],
    "audit simulate": [
        Case([*SIMULATE, "--budget", "4"]),
        Case([*SIMULATE, "--budget", "80", "--design", "pairs"]),
        Case([*SIMULATE, "--budget", "80", "--design", "pairs-uncertainty", "-m", "P(rel=2)@10"]),
        Case([*SIMULATE, "--budget", "6", "--design", "topics-neyman", "--estimator", "ppi++"]),
    ],
    "audit assign": [Case(["audit", "assign", "a", "--assessors", "alice,bob", "--overlap", "0.5"], (plan,))],
    "audit agreement": [Case(["audit", "agreement", "a"], (in_conflict,))],
    "audit adjudicate": [Case(["audit", "adjudicate", "a", "{qid}", "{docid}", "2"], (in_conflict,))],
    "assess plan": [
        Case(
            ["assess", "plan", "--name", "c", "--llm", LLM, "--pool", "runs:5", "--manual", "2", "--post-editing", "2"]
        ),
    ],
    "assess list": [Case(["assess", "list"], (campaign,))],
    "assess show": [Case(["assess", "show", "c"], (graded_campaign,))],
    "assess pairs": [Case(["assess", "pairs", "c"], (campaign,))],
    "assess import": [Case(["assess", "import", "c", "{folder}/c.qrels", "--assessor", "nist"], (campaign,))],
    "assess report": [Case(["assess", "report", "c", "-m", "nDCG@10", "-m", "P(rel=2)@10"], (graded_campaign,))],
}


def json_commands() -> list[str]:
    """Every command (not group) whose --format offers json, as `studio …` names it, less `studio`."""
    found = []
    for path, command in commands(command_tree()):
        for param in command.params:
            choices = getattr(getattr(param, "type_descriptor", None), "choices", None) or ()
            if "--format" in getattr(param, "opts", ()) and OutputFormat.json in choices:
                found.append(path.removeprefix("studio").strip())
    return found


# Commands whose JSON needs a PostgreSQL server: tests/team runs them against one and parses it.
ON_A_SERVER = {"team publish", "team join", "team quarantine"}


def test_every_json_command_has_a_case() -> None:
    found = json_commands()
    assert {"audit simulate", "estimate", "eval"} <= set(found)
    missing = [name for name in found if name not in CASES and name not in ON_A_SERVER]
    assert not missing, f"add {missing} to CASES in {__file__}: the arguments to run them with on the sample project"
    assert not set(CASES) - set(found), f"CASES names commands with no --format json: {set(CASES) - set(found)}"


@pytest.fixture
def model_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fake OpenAI-compatible server that writes questions and nuggets."""

    def answer(body: dict[str, Any]) -> str:
        user = str(body["messages"][-1]["content"])
        if "Initial Nugget List:" in user:
            return "['the one fact']"
        if "Nugget List:" in user:
            return "['vital']"
        return json.dumps({"questions": ["What is it?", "Why?"]})

    with FakeOpenAIServer(answer=answer) as running:
        yield running.base_url


def run_command(case: Case, project: Path, home: Path, values: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`studio --db PROJECT ARGS --format json` in a fresh process, the case's prelude first."""
    env = {k: v for k, v in os.environ.items() if k not in UNSET_ENV}
    env.update(FIXED_ENV, HOME=str(home), XDG_DATA_HOME=str(home / "data"), OPENAI_API_KEY="not-a-real-key")
    env.update({k: v.format(**values) for k, v in case.env.items()})
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    script = (
        case.prelude.format(**values) + "\nimport sys\nfrom studio.cli.app import run\nsys.argv[0] = 'studio'\nrun()\n"
    )
    args = ["--db", str(project), *(a.format(**values) for a in case.args), "--format", "json"]
    return subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, env=env, cwd=home, timeout=300
    )


def not_a_json_number(name: str) -> float:
    raise AssertionError(f"{name} in the JSON: no JSON reader takes it")


@pytest.mark.process
@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "index"),
    [
        pytest.param(
            name,
            i,
            marks=[
                *([pytest.mark.extra(*case.extras)] if case.extras else []),
                *([pytest.mark.server] if case.model else []),  # the stand-in model answers on a socket
            ],
        )
        for name, cases in CASES.items()
        for i, case in enumerate(cases)
    ],
    ids=str,
)
def test_json_is_strict_and_no_warning_reaches_the_terminal(
    name: str, index: int, sample: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    case = CASES[name][index]
    values = {"data": str(DATA), "folder": str(tmp_path), "tests": str(REPO / "tests")}
    if case.model:
        values["model_url"] = request.getfixturevalue("model_url")
    for step in case.before:
        if callable(step):
            with Project.open(sample) as project:
                values.update(step(project, tmp_path) or {})
        else:
            done = cli(sample, *(a.format(**values) for a in step), env={"OPENAI_API_KEY": "not-a-real-key"})
            assert done.exit_code == 0, (step, done.stderr)
    finished = run_command(case, sample, tmp_path, values)
    assert finished.returncode == 0, finished.stderr
    json.loads(finished.stdout, parse_constant=not_a_json_number)
    runtime = [line for line in finished.stderr.splitlines() if not line.startswith("Warning: ")]
    assert not [line for line in runtime if "Warning" in line], finished.stderr
