"""Grades outside the reference's scale (a published submission's 5s and 10s on a 0–3 scale):
`agree` and `compare` warn and, with --clip, compare them clipped into the reference's range —
the same figures as a label set written with those grades clipped."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import cli

REPO = Path(__file__).resolve().parents[2]


def write_sets(sample: Path, folder: Path) -> None:
    lines = (REPO / "sample_data" / "qrels" / "human.txt").read_text().splitlines()
    odd, clipped = [], []
    for i, line in enumerate(lines):
        qid, _, docid, grade = line.split()
        value = {0: 5.0, 1: 10.0, 2: -1.0}.get(i % 7, (float(grade) + 1) % 4)  # some off the 0–3 scale
        odd.append(f"{qid} 0 {docid} {value:g}\n")
        clipped.append(f"{qid} 0 {docid} {min(max(value, 0.0), 3.0):g}\n")
    (folder / "odd.txt").write_text("".join(odd))
    (folder / "clipped.txt").write_text("".join(clipped))
    for file, name in (("odd.txt", "odd"), ("clipped.txt", "by-hand")):
        assert cli(sample, "import", "qrels", str(folder / file), "--name", name, "--kind", "llm").exit_code == 0


def test_agree_warns_and_clips_into_the_references_scale(sample: Path, tmp_path: Path) -> None:
    write_sets(sample, tmp_path)
    plain = cli(sample, "agree", "--ref", "human", "--qrels", "odd", "--format", "json")
    assert "warning: odd holds" in plain.stderr and "outside human's scale 0–3 (-1, 5, 10)" in plain.stderr
    assert "--clip" in plain.stderr
    clipped = json.loads(cli(sample, "agree", "--ref", "human", "--qrels", "odd", "--clip", "--format", "json").stdout)
    by_hand = json.loads(cli(sample, "agree", "--ref", "human", "--qrels", "by-hand", "--format", "json").stdout)
    unclipped = json.loads(plain.stdout)
    assert clipped["kappa_graded"] == by_hand["kappa_graded"] != unclipped["kappa_graded"]
    assert "warning" not in cli(sample, "agree", "--ref", "human", "--qrels", "by-hand").stderr


def test_compare_clips_each_label_set_and_keeps_the_published_default(sample: Path, tmp_path: Path) -> None:
    write_sets(sample, tmp_path)

    def compare(name: str, *more: str) -> tuple[dict[str, object], str]:
        done = cli(sample, "compare", "--ref", "human", "--qrels", name, "--resamples", "20", "--format", "json", *more)
        [row] = json.loads(done.stdout)
        return row, done.stderr

    unclipped, warned = compare("odd")
    assert "warning: odd holds" in warned
    clipped, _ = compare("odd", "--clip")
    by_hand, _ = compare("by-hand")
    assert clipped["qrels"] == "odd (clipped to 0–3)"
    for key in ("kappa_graded", "kendall_tau", "compat_tau"):
        assert clipped[key] == by_hand[key], key
    assert unclipped["qrels"] == "odd" and unclipped["kappa_graded"] != clipped["kappa_graded"]
