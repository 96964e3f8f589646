"""The published prompt-sensitivity study imports as it is (tests/published/prompt-sensitivity/, a
small copy of its release's layout): its placeholders, prompts without a passage placeholder
skipped and named, a folder of judgment files in one command and one transaction, the stray grade
of a binary file refused with its line, repeated pairs resolved as asked, DL20 and DL21 references
in one label set, and Table 4.5's recipe equal to a computation by hand (scikit-learn, numpy)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from helpers import cli
from sklearn.metrics import cohen_kappa_score

from studio import Project
from studio.domain.errors import UsageError
from studio.formats.prompt_collections import lacks_passage, with_our_placeholders
from studio.formats.study_files import compile_pattern, parts_of

RELEASE = Path(__file__).parents[1] / "published" / "prompt-sensitivity"
PATTERN = "{model}_{method}_{collection}_{prompt}.txt"
RECIPE = ("--ref-relevant", "2", "--binarise-ref", "2", "--pool-collections")
GROUP = {"0": "people", "1": "people", "16": "llm", "17": "llm"}
SCALE = {"binary": {0, 1}, "graded": {0, 1, 2, 3}}


def references(db: Path) -> None:
    qrels = RELEASE / "data" / "qrels"
    found = cli(
        db, "import", "qrels", qrels / "qrels.dl20-passage.txt", qrels / "qrels.dl21-passage.txt", "--name", "human"
    )
    assert found.exit_code == 0, found.output


def prompts(db: Path) -> str:
    found = cli(db, "import", "prompts", RELEASE / "prompts.json", "--name", "ps")
    assert found.exit_code == 0, found.output
    return found.stderr


def study(db: Path, *args: str) -> object:
    return cli(db, "import", "study", RELEASE / "Judgements", "--pattern", PATTERN, "--prompts", "ps", *args)


@pytest.fixture()
def imported(tmp_path: Path) -> Path:
    db = tmp_path / "release.duckdb"
    references(db)
    prompts(db)
    found = study(db, "--on-duplicate", "first", "--out-of-scale", "skip")
    assert found.exit_code == 0, found.output  # type: ignore[attr-defined]
    return db


def test_the_release_placeholders_map_to_ours_and_prompts_without_a_passage_are_skipped(tmp_path: Path) -> None:
    db = tmp_path / "p.duckdb"
    warned = prompts(db)
    assert "skipped prompt '23' (graded)" in warned and "skipped prompt '23' (pairwise)" in warned
    assert "skipped prompt '27' (graded)" in warned and "no {passage_a}, {passage_b}" in warned
    with Project.open(db) as project:
        kept = {(p.prompt_id, p.method): p for p in project.collection_prompts("ps")}
    assert ("23", "graded") not in kept and ("27", "graded") not in kept and ("27", "binary") in kept
    assert "{document}" not in kept[("0", "binary")].user and "Passage:{passage}" in kept[("0", "binary")].user
    assert "Passage 1:\n{passage_a}\nPassage 2:\n{passage_b}" in kept[("0", "pairwise")].user
    assert 'format {query:"", doc: ""}' in kept[("17", "binary")].system  # other braces stay text


def test_a_placeholder_in_other_case_is_named_in_the_warning() -> None:
    user = with_our_placeholders("Query: {query} Passage: {Document}")
    assert lacks_passage("graded", "", user) == "no {passage} ({Document} is not a placeholder: they are lower case)"


def test_the_folder_refuses_a_differing_repeat_then_the_stray_grade_and_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "p.duckdb"
    references(db)
    prompts(db)
    repeat = study(db)
    assert repeat.exit_code == 2  # type: ignore[attr-defined]
    assert "gpt-4o_graded_dl20_1.txt:26: (1030303, 3030006) is graded 0 here and 3 on line 7" in repeat.stderr  # type: ignore[attr-defined]
    stray = study(db, "--on-duplicate", "first")
    assert stray.exit_code == 2  # type: ignore[attr-defined]
    assert "mistral_binary_dl21_17.txt:14: grade '4' is off the binary scale 0–1" in stray.stderr  # type: ignore[attr-defined]
    with Project.open(db) as project:
        assert [row["name"] for row in project.label_sets()] == ["human"]


def test_the_folder_imports_in_one_command_with_the_repeats_and_the_stray_grade_named(imported: Path) -> None:
    with Project.open(imported) as project:
        names = {row["name"] for row in project.label_sets()}
        assert len(names) == 1 + 2 * 3 * 2 * 4 and "mistral-pairwise-dl21-17" in names
        stray = project.engine.evaluator("mistral-binary-dl21-17").labels["1129560"].judged
        assert "msmarco_passage_05_18282" not in stray  # the line with the 4 is left out
        first = project.engine.evaluator("gpt-4o-graded-dl20-1").labels["1030303"].judged
        assert first["3030006"] == 3  # --on-duplicate first


def test_linked_qrels_take_the_method_and_refuse_the_stray_grade(tmp_path: Path) -> None:
    db = tmp_path / "p.duckdb"
    references(db)
    prompts(db)
    stray = RELEASE / "Judgements" / "mistral" / "binary" / "mistral_binary_dl21_17.txt"
    link = ("--prompt", "ps/17", "--model", "mistral", "--collection", "dl21")
    ambiguous = cli(db, "import", "qrels", stray, "--name", "m17", *link)
    assert ambiguous.exit_code == 2 and "name the file's with --method" in ambiguous.stderr
    refused = cli(db, "import", "qrels", stray, "--name", "m17", *link, "--method", "binary")
    assert refused.exit_code == 2 and f"{stray}:14: grade '4' is off the binary scale" in refused.stderr
    graded = RELEASE / "Judgements" / "gpt-4o" / "graded" / "gpt-4o_graded_dl20_1.txt"
    last = ("--prompt", "ps/1", "--model", "gpt-4o", "--collection", "dl20", "--method", "graded")
    assert cli(db, "import", "qrels", graded, "--name", "g1", *last).exit_code == 2
    assert cli(db, "import", "qrels", graded, "--name", "g1", *last, "--on-duplicate", "last").exit_code == 0
    with Project.open(db) as project:
        assert "m17" not in {row["name"] for row in project.label_sets()}
        assert project.engine.evaluator("g1").labels["1030303"].judged["3030006"] == 0  # the last


def test_preferences_honour_on_duplicate(tmp_path: Path) -> None:
    db = tmp_path / "p.duckdb"
    references(db)
    prompts(db)
    repeated = RELEASE / "Judgements" / "gpt-4o" / "pairwise" / "gpt-4o_pairwise_dl20_0.txt"
    link = ("--name", "pw", "--prompt", "ps/0", "--model", "gpt-4o", "--collection", "dl20")
    refused = cli(db, "import", "preferences", repeated, *link)
    assert (
        refused.exit_code == 2
        and f"{repeated}:60: (1030303, 3030002, 3030006) is answered differently here and on line 6" in refused.stderr
    )
    verdicts = {}
    for policy in ("first", "last"):
        assert cli(db, "import", "preferences", repeated, *link, "--on-duplicate", policy, "--replace").exit_code == 0
        with Project.open(db) as project:
            verdicts[policy] = (
                project.engine.db.cursor().execute("SELECT verdict FROM preference_verdicts ORDER BY ALL").fetchall()
            )
    assert verdicts["first"] != verdicts["last"]


def test_two_reference_files_make_one_set_and_a_disagreeing_overlap_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "p.duckdb"
    references(db)
    with Project.open(db) as project:
        assert sorted(project.engine.evaluator("human").labels) == [
            "1030303",
            "1037496",
            "1043135",
            "1129560",
            "1133485",
            "2082",
        ]
    other = tmp_path / "other.txt"
    other.write_text("2082 0 x1 1\n1030303 0 3030000 9\n", encoding="utf-8")
    dl20 = RELEASE / "data" / "qrels" / "qrels.dl20-passage.txt"
    found = cli(db, "import", "qrels", dl20, other, "--name", "merged")
    assert found.exit_code == 2 and f"{other}:2: (1030303, 3030000) is graded 9 here" in found.stderr
    assert f"in {dl20} line 1" in found.stderr


def test_a_pattern_names_its_parts() -> None:
    pattern = compile_pattern(PATTERN)
    assert parts_of(pattern, "gpt-4o_binary_dl20_10.txt") == {
        "model": "gpt-4o",
        "method": "binary",
        "collection": "dl20",
        "prompt": "10",
    }
    assert parts_of(pattern, "readme.md") is None
    assert parts_of(compile_pattern("{model}/*/{collection}-{prompt}.txt"), "m/x/dl21-3.txt") == {
        "model": "m",
        "collection": "dl21",
        "prompt": "3",
    }
    for bad in ("{model}_{run}.txt", "{model}.txt", "{prompt}{prompt}"):
        with pytest.raises(UsageError):
            compile_pattern(bad)


def by_hand() -> dict[tuple[str, str, str], tuple[float, float]]:
    """Table 4.5 of the fixture computed from its files alone: κ by scikit-learn (the reference
    binarised at 2; the binary judge at 1, the graded judge's 0–3 as they are), pairwise the share
    of pairs whose higher passage wins in both orders; mean and sample variance over every prompt ×
    collection of a model × group × method (numpy)."""
    ref = {}
    for year in ("20", "21"):
        for line in (RELEASE / "data" / "qrels" / f"qrels.dl{year}-passage.txt").read_text().split("\n"):
            if line.strip():
                q, _, d, g = line.split()
                ref[(q, d)] = int(g)
    values: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for path in sorted((RELEASE / "Judgements").rglob("*.txt")):
        model, method, _, prompt = path.stem.split("_")
        lines = [line.split() for line in path.read_text().split("\n") if line.strip()]
        if method == "pairwise":
            answers: dict[tuple[str, ...], str] = {}
            for q, _, _, order, first, second, answer in lines:
                answers.setdefault((q, order, first, second), answer)  # the first of a repeat
            agree = [
                answers[(q, "regular", a, b)] == "A" and answers[(q, "swapped", b, a)] == "B"
                for (q, order, a, b) in answers
                if order == "regular"
            ]
            values[(model, GROUP[prompt], method)].append(float(np.mean(agree)))
            continue
        judged: dict[tuple[str, str], int] = {}
        for q, _, d, g in lines:
            if int(g) in SCALE[method]:
                judged.setdefault((q, d), int(g))
        keys = sorted(judged)
        x = [int(ref[k] >= 2) for k in keys]
        y = [int(judged[k] >= 1) if method == "binary" else judged[k] for k in keys]
        values[(model, GROUP[prompt], method)].append(float(cohen_kappa_score(x, y)))
    return {key: (float(np.mean(v)), float(np.var(v, ddof=1))) for key, v in values.items()}


def test_table_4_5_recipe_equals_the_hand_computation(imported: Path) -> None:
    result = cli(imported, "sensitivity", "report", "--ref", "human", *RECIPE, "-f", "json")
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout)["table"]
    expected = by_hand()
    assert len(table) == 4 and {row["collection"] for row in table} == {"dl20+dl21"}
    for row in table:
        for method in ("binary", "graded", "pairwise"):
            mean, variance = expected[(row["model"], row["group"], method)]
            assert row[f"{method}_mean"] == pytest.approx(mean, abs=1e-12)
            assert row[f"{method}_variance"] == pytest.approx(variance, abs=1e-12)
            assert row[f"{method}_cells"] == 4
    default = json.loads(cli(imported, "sensitivity", "report", "--ref", "human", "-f", "json").stdout)["table"]
    assert {row["collection"] for row in default} == {"dl20", "dl21"}  # the default keeps them apart


def test_the_terminal_prints_table_4_5_as_model_group_rows_by_method_columns(imported: Path) -> None:
    result = cli(imported, "sensitivity", "report", "--ref", "human", *RECIPE)
    assert result.exit_code == 0, result.output
    lines = result.stdout.split("\n")
    header = next(line for line in lines if "collection" in line and "pairwise" in line and "binary" in line)
    assert header.split("┃")[0].strip() == "model"
    rows = [line for line in lines if "dl20+dl21" in line and "×" in line]
    assert len(rows) == 4 and all(line.count("×4") == 3 for line in rows)


def test_studio_report_takes_the_recipe(imported: Path, tmp_path: Path) -> None:
    default = cli(imported, "report", "--out", tmp_path / "default", "--ref", "human")
    recipe = cli(imported, "report", "--out", tmp_path / "recipe", "--ref", "human", *RECIPE)
    assert default.exit_code == 0 and recipe.exit_code == 0, recipe.output
    plain = (tmp_path / "default" / "report.md").read_text(encoding="utf-8")
    chosen = (tmp_path / "recipe" / "report.md").read_text(encoding="utf-8")
    assert "dl20+dl21" not in plain and "binarised at" not in plain
    assert "Graded κ: the judge's grades against the reference binarised at 2." in chosen
    assert "Means and variances pool the test collections." in chosen
    mean = f"{by_hand()[('mistral', 'people', 'graded')][0]:.3f}"  # the report's three decimals
    row = next(line for line in chosen.split("\n") if line.startswith("| mistral | people | dl20+dl21"))
    assert mean in row
