"""A project made from tests/published/genir (the Gen-IR comparison's release layouts) through the
command line, and the fixture's verdicts read straight from its files (the expectations)."""

from __future__ import annotations

from pathlib import Path

from helpers import cli

GENIR = Path(__file__).resolve().parents[1] / "published" / "genir"
ANSWERS = GENIR / "generated responses"
EXPERIMENTS = GENIR / "genir experiments"
SYSTEMS = {"gpt-4": "responses_gpt-4", "lier-gpt-4": "4_lier_responses_gpt-4.tsv"}
VERDICT_FILES = {
    "binary": {
        "gpt-4": "binary/8_binary_responses_lj_gpt-4_2019_gpt-4",
        "lier-gpt-4": "binary/4_binary_responses_lier_gpt-4_2019_gpt-4",
    },
    "graded": {
        "gpt-4": "graded/8_quantified_gen_answers_responses_gpt-4_2019_gpt-4",
        "lier-gpt-4": "graded/4_quantified_gen_answers_lier_responses_gpt-4_2019_gpt-4",
    },
    "subtopics": {
        "gpt-4": "subtopics/8_quantified_gen_answers_responses_gpt-4_2019_gpt-4",
        "lier-gpt-4": "subtopics/4_quantified_gen_answers_responses_lier_gpt-4_2019_gpt-4",
    },
    "preferences": {
        "gpt-4": "preferences/gen_preferences_8_responses_gpt-4_2019_gpt-4",
        "lier-gpt-4": "preferences/gen_preferences_4_lier_responses_gpt-4_2019_gpt-4",
    },
}


def build(db: Path, *, verdicts: bool = True) -> Path:
    """Topics, passages, the human grades, both systems' answers and (with `verdicts`) every verdict
    file into label sets named after their layout."""
    steps = [
        ("import", "topics", GENIR / "topics.tsv"),
        ("import", "docs", GENIR / "passages.tsv"),
        ("import", "qrels", GENIR / "qrels.txt", "--name", "human"),
        *(("import", "responses", ANSWERS / file, "--system", system) for system, file in SYSTEMS.items()),
    ]
    if verdicts:
        steps += [
            ("import", "answer-labels", EXPERIMENTS / file, "--system", system, "--method", layout, "--name", layout)
            for layout, files in VERDICT_FILES.items()
            for system, file in files.items()
        ]
    for step in steps:
        done = cli(db, *step)
        assert done.exit_code == 0, (step, done.stdout, done.stderr)
    return db


def file_values(layout: str, system: str) -> dict[str, float]:
    """{qid: value} of one verdict file, read here without the studio's parser."""
    lines = [line.split() for line in (EXPERIMENTS / VERDICT_FILES[layout][system]).read_text().splitlines()]
    lines = [f for f in lines if f and f[0] != "qid"]
    if layout == "binary":
        return {f[0]: 1.0 if f[2].lower() == "yes" else 0.0 for f in lines}
    if layout == "graded":
        return {f[0]: float(f[2]) for f in lines}
    if layout == "subtopics":
        return {f[0]: sum(x.lower() == "yes" for x in f[2::2]) / len(f[2::2]) for f in lines}
    picks: dict[str, list[bool]] = {}
    for qid, _, first, _, _, _, pick in lines:
        picks.setdefault(qid, []).append((first == "gen") == (pick == "a"))  # the answer picked
    return {qid: 1.0 if all(p) else 0.0 for qid, p in picks.items()}
