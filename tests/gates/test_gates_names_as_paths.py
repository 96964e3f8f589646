"""Names are names, not paths: a prompt id, a study, a campaign, an assessor and a group keep to
one rule (`studio.domain.names`) on import and on the command line; `export prompts --folder`
writes only inside its folder; a key given twice in a JSON file is refused with its line; and the
smaller refusals the third adversarial round asked for. Each refusal exits 2, says why, leaves the
project as it was and shows no traceback."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from gates.conftest import Fingerprint, fingerprint, refused_saying
from helpers import Studio

PromptFile = Callable[..., Path]
USER = "Query: {query}\nPassage: {passage}\nRelevant? 1 or 0."


@pytest.fixture
def prompts_file(write: Callable[[str, str | bytes], Path]) -> PromptFile:
    def make(*ids: str, participant: str | None = None, text: str | None = None) -> Path:
        entries = {i: {"participant_name": participant or i, "binary": {"system": "", "user": USER}} for i in ids}
        return write("prompts.json", text if text is not None else json.dumps(entries, indent=2))

    return make


def unchanged(project: Path, before: Fingerprint) -> None:
    assert fingerprint(project) == before


@pytest.mark.parametrize(
    ("prompt_id", "said"),
    [
        ("../escape", "path separator"),
        ("/tmp/absolute", "path separator"),
        ("..", "folder's own name"),
        ("a\\b", "path separator"),
    ],
)
def test_a_prompt_id_that_is_a_path_is_refused_on_import(
    studio: Studio, project: Path, prompts_file: PromptFile, prompt_id: str, said: str
) -> None:
    before = fingerprint(project)
    refused_saying(studio("import", "prompts", prompts_file("fine", prompt_id), "--name", "ps"), "prompts.json:", said)
    unchanged(project, before)


def test_a_prompt_id_given_twice_in_one_file_is_refused_with_its_line(
    studio: Studio, project: Path, prompts_file: PromptFile
) -> None:
    entry = {"participant_name": "a", "binary": {"system": "", "user": USER}}
    text = "{\n" + f'  "p1": {json.dumps(entry)},\n  "p2": {json.dumps(entry)},\n  "p1": {json.dumps(entry)}\n' + "}\n"
    before = fingerprint(project)
    refused_saying(
        studio("import", "prompts", prompts_file(text=text), "--name", "ps"), "prompts.json:4", '"p1"', "twice"
    )
    unchanged(project, before)


def test_a_key_twice_in_a_jsonl_line_is_refused_with_its_line(
    studio: Studio, project: Path, write: Callable[[str, str | bytes], Path]
) -> None:
    topics = write("topics.jsonl", '{"qid": "t1", "text": "one"}\n{"qid": "t2", "text": "two", "qid": "t3"}\n')
    refused_saying(studio("import", "topics", topics), "topics.jsonl:2", '"qid"', "twice")


@pytest.mark.parametrize("group", ["reference", "Reference", "a/b"])
def test_a_group_the_report_keeps_or_a_path_is_refused(
    studio: Studio, project: Path, prompts_file: PromptFile, write: Callable[[str, str | bytes], Path], group: str
) -> None:
    groups = write("groups.json", json.dumps({"p1": group}))
    refused_saying(studio("import", "prompts", prompts_file("p1"), "--groups", groups), "group name")
    refused_saying(studio("import", "prompts", prompts_file("p2", participant=group)), "group name")


def test_a_folder_export_writes_inside_its_folder_only(studio: Studio, project: Path, tmp_path: Path) -> None:
    """A prompt id stored before ids were checked (a file of an earlier studio) still never writes
    outside the folder asked for."""
    with duckdb.connect(str(project)) as con:
        con.execute(
            "INSERT INTO study_prompts VALUES ('old', '../../outside', 'a', 'a', 'binary', '', ?, 0, 1)", [USER]
        )
    out = tmp_path / "deep" / "out"
    refused_saying(studio("export", "prompts", "old", "--out", out, "--folder"), "outside")
    assert not (tmp_path / "outside").exists() and not (tmp_path / "deep" / "outside").exists()


def test_a_folder_export_onto_a_file_is_refused(
    studio: Studio, project: Path, prompts_file: PromptFile, tmp_path: Path
) -> None:
    assert studio("import", "prompts", prompts_file("p1"), "--name", "ps").exit_code == 0
    target = tmp_path / "taken"
    target.write_text("keep me\n")
    refused_saying(studio("export", "prompts", "ps", "--out", target, "--folder"), "it is a file")
    assert target.read_text() == "keep me\n"
    made = tmp_path / "new" / "folder"
    done = studio("export", "prompts", "ps", "--out", made, "--folder")
    assert done.exit_code == 0, done.output
    assert str(made) in done.stderr + done.stdout and (made / "p1" / "binary" / "user.txt").is_file()


PLAN = ("assess", "plan", "--llm", "umbrela-smol", "--pool", "qrels:human")
STUDY = ("sensitivity", "run", "--prompts", "ps", "--backend", "simulated")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ((*PLAN, "--name", "a/b", "--manual", "2"), "path"),
        ((*PLAN, "--name", "c-recall", "--manual", "2"), "recall"),
        ((*PLAN, "--name", "c1", "--manual", "-2"), "count"),
        ((*PLAN, "--name", "c1", "--manual", "2", "--assessors", "ann,../bob"), "path"),
        ((*STUDY, "--collection", "dl", "--name", "x/y"), "study name"),
        ((*STUDY, "--collection", "dl", "--model", ""), "model name"),
        ((*STUDY, "--collection", "a\nb"), "line break"),
    ],
)
def test_names_on_the_command_line_are_names(
    studio: Studio, project: Path, prompts_file: PromptFile, args: tuple[str, ...], said: str
) -> None:
    assert studio("import", "prompts", prompts_file("p1"), "--name", "ps").exit_code == 0
    before = fingerprint(project)
    refused_saying(studio(*args), said)
    unchanged(project, before)


def test_a_team_of_no_one_is_refused(studio: Studio, project: Path) -> None:
    refused_saying(studio("team", "publish", "--to", "host=127.0.0.1 port=1", "--members", ""), "needs members")
    refused_saying(studio("team", "publish", "--to", "host=127.0.0.1 port=1", "--members", " , "), "needs members")


@pytest.mark.parametrize("grade", ["7", "-1", "1.5"])
def test_campaign_and_audit_imports_keep_to_the_assessors_scale(
    studio: Studio, project: Path, write: Callable[[str, str | bytes], Path], grade: str
) -> None:
    plan = ("assess", "plan", "--name", "c1", "--llm", "umbrela-smol", "--pool", "qrels:human", "--manual", "2")
    assert studio(*plan).exit_code == 0
    pairs = json.loads(studio("assess", "pairs", "c1", "--format", "json").stdout)
    graded = write(
        "c1.qrels", f"{pairs[0]['qid']} 0 {pairs[0]['docid']} 1\n{pairs[1]['qid']} 0 {pairs[1]['docid']} {grade}\n"
    )
    before = fingerprint(project)
    refused_saying(studio("assess", "import", "c1", graded, "--assessor", "ann"), "c1.qrels:2", "scale 0–3")
    unchanged(project, before)
    assert (
        studio(
            "audit", "plan", "--qrels", "umbrela-smol", "--name", "g", "--budget", "4", "--design", "pairs"
        ).exit_code
        == 0
    )
    sample = json.loads(studio("audit", "pairs", "g", "--format", "json").stdout)
    gold = write("g.qrels", f"{sample[0]['qid']} 0 {sample[0]['docid']} {grade}\n")
    before = fingerprint(project)
    refused_saying(studio("audit", "import", "g", gold), "g.qrels:1", "scale 0–3")
    unchanged(project, before)
