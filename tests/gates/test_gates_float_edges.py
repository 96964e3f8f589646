"""Floating point's edges: one numeric policy for values that are finite but whose sums, squares
or products overflow, and run scores in single precision exactly as trec_eval's C holds them.

* A grade lies within ±2**63, the range of trec_eval's grades (a C long): beyond it every door
  refuses it (exit 2, file:line or the option, project unchanged). Within it, nothing the studio
  computes from grades overflows (the largest grades are tried below).
* A project file written before the bound (grades injected here as such a file holds them) still
  gives nDCG for every topic, a clear refusal where an audit would overflow, JSON without
  `Infinity` or `NaN`, and no numpy warning on the terminal.
* A score is `(float) atof(text)`: a double just above the largest float rounds down to it (and
  ties with it); only from 2**128 - 2**103 on is it infinity. pytrec_eval is the oracle.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import pytrec_eval
from gates.conftest import fingerprint
from gates.conftest import refused_saying as refused
from gates.test_gates_grade_options import OPTIONS
from helpers import Studio

from studio import Project
from studio.domain.errors import UsageError
from studio.domain.json_text import json_text

Write = Callable[[str, str | bytes], Path]
HUGE = "1.7976931348623157e308"  # the largest double: finite, but a sum of two overflows
REPO = Path(__file__).resolve().parents[2]


def strict_json(text: str) -> Any:
    """JSON as a strict reader takes it: `NaN` and `Infinity` are errors."""

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def inject_grades(project: Path, label_set: str, qid: str, grade: float, count: int = 3) -> None:
    """Give `count` labels of the topic `grade`, as a project file imported before grades were
    bounded holds them."""
    with Project.open(project) as opened:
        opened.db.cursor().execute(
            """
            UPDATE label_event_rows SET grade = ? WHERE event_id IN (
                SELECT e.event_id FROM label_events e JOIN label_sets s USING (label_set_id)
                WHERE s.name = ? AND e.qid = ? ORDER BY e.docid LIMIT ?)
            """,
            [grade, label_set, qid, count],
        )


# -- the bound, at every door ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("grade", "line"), [(HUGE, 1), ("1e200", 2), ("-1e200", 2), ("9.3e18", 3), ("-922337203685477581e2", 3)]
)
def test_a_qrels_grade_beyond_trec_eval_s_range_is_refused(
    studio: Studio, write: Write, project: Path, grade: str, line: int
) -> None:
    rows = ["1001 0 p1001-01 1", "1001 0 p1001-02 2", "1001 0 p1001-03 0"]
    rows[line - 1] = rows[line - 1].rsplit(" ", 1)[0] + f" {grade}"
    path = write("q.txt", "\n".join(rows) + "\n")
    before = fingerprint(project)
    refused(studio("import", "qrels", path), f"{path}:{line}: grade {grade!r} is too large in magnitude", "2**63")
    assert fingerprint(project) == before


def test_the_largest_grades_trec_eval_holds_are_read_and_every_figure_stays_finite(
    studio: Studio, write: Write
) -> None:
    """The human set with its first grades at ±(2**63 - 1): evaluated, compared, calibrated and
    planned without an overflow, a NaN or a traceback."""
    exported = studio("export", "qrels", "human", "-o", "-").stdout.splitlines()
    exported[0] = exported[0].rsplit(" ", 1)[0] + " 9223372036854775807"
    exported[1] = exported[1].rsplit(" ", 1)[0] + " -9223372036854775808"
    exported[2] = exported[2].rsplit(" ", 1)[0] + " 9223372036854775807"
    assert studio("import", "qrels", write("q.txt", "\n".join(exported) + "\n"), "--name", "edge").exit_code == 0
    assert studio("export", "qrels", "edge", "-o", "-").stdout.splitlines()[0].endswith(" 9223372036854775808")
    for command in (
        ["eval", "--qrels", "edge", "-m", "nDCG@10", "-m", "AP", "--per-topic"],
        ["agree", "--ref", "human", "--qrels", "edge"],
        ["calibrate", "--qrels", "edge", "--gold", "human", "--name", "cal"],
        ["audit", "plan", "--qrels", "edge", "--pilot", "human", "--target-width", "0.1"],
        ["audit", "plan", "--qrels", "human", "--pilot", "edge", "--target-width", "0.1"],
    ):
        result = studio(*command, "-f", "json")
        assert result.exit_code == 0, (command, result.output)
        strict_json(result.stdout)
    rows = strict_json(studio("eval", "--qrels", "edge", "-m", "nDCG@10", "--per-topic", "-f", "json").stdout)
    assert all(row["value"] is not None and 0 <= row["value"] <= 1 for row in rows)
    assert {row["topics"] for row in rows if row["topic"] == "all"} == {10}


def test_label_refuses_a_grade_beyond_the_range(studio: Studio, project: Path) -> None:
    before = fingerprint(project)
    refused(studio("label", "--qrels", "human", "1001", "p1001-01", "1e300"), "grade '1e300' is too large")
    assert fingerprint(project) == before


def test_the_python_api_refuses_a_grade_beyond_the_range(project: Path) -> None:
    with Project.open(project) as opened, pytest.raises(UsageError, match="too large in magnitude"):
        opened.set_label("human", "1001", "p1001-01", 1e300)


@pytest.mark.parametrize(("path", "option"), OPTIONS, ids=[f"{' '.join(p)} {o}" for p, o in OPTIONS])
def test_every_grade_option_refuses_a_grade_beyond_the_range(studio: Studio, path: list[str], option: str) -> None:
    refused(studio(*path, option, HUGE), f"Invalid value for '{option}'", "too large in magnitude")


def test_audit_adjudicate_reads_its_grade_as_a_grade(studio: Studio, project: Path) -> None:
    """It took any float (`nan`, `1e300`) before anything was checked."""
    before = fingerprint(project)
    for grade in ("nan", "1e300", "1_0"):
        refused(studio("audit", "adjudicate", "gold", "1001", "p1001-01", grade), "Invalid value", repr(grade))
    assert fingerprint(project) == before


def jsonl(*records: str) -> str:
    return "".join(record + "\n" for record in records)


@pytest.mark.parametrize(
    ("field", "reason"),
    [
        ('"judgment": 1e300', "judgment 1e+300 is too large in magnitude"),
        ('"judgment": 1, "expected": -1e300', "expected -1e+300 is too large in magnitude"),
        ('"judgment": 1, "confidence": 1e300', "confidence 1e+300 is not a probability"),
        ('"judgment": 1, "confidence": -0.5', "confidence -0.5 is not a probability"),
        ('"judgment": 1, "label_probs": {"0": 0.5, "1": 1e300}', "label_probs['1'] 1e+300 is not a probability"),
    ],
)
def test_a_judgment_file_s_grades_and_probabilities_stay_in_range(
    studio: Studio, write: Write, project: Path, field: str, reason: str
) -> None:
    good = '{"qid": "1001", "docid": "p1001-01", "judgment": 1}'
    path = write("j.jsonl", jsonl(good, '{"qid": "1001", "docid": "p1001-02", ' + field + "}"))
    before = fingerprint(project)
    refused(studio("import", "judgments", path), f"{path}:2: ", reason)
    assert fingerprint(project) == before


# -- a project file from before the bound ---------------------------------------------------------


def test_ndcg_keeps_a_topic_whose_gains_overflow(studio: Studio, project: Path) -> None:
    """nDCG was NaN for such a topic, which then dropped out of the mean silently. Gains scaled by
    a power of two give the same nDCG to the last bit, so the huge set's values equal the small's."""
    inject_grades(project, "umbrela-smol", "1001", float(HUGE))
    rows = strict_json(studio("eval", "--qrels", "umbrela-smol", "-m", "nDCG@10", "--per-topic", "-f", "json").stdout)
    assert {row["topics"] for row in rows if row["topic"] == "all"} == {10}
    assert len([row for row in rows if row["topic"] == "1001"]) == 6
    assert all(row["value"] is not None and 0 <= row["value"] <= 1 for row in rows)


def test_scaled_gains_give_nDCG_to_the_last_bit(studio: Studio, write: Write, project: Path) -> None:
    qrels = "1001 0 p1001-01 3\n1001 0 p1001-02 1\n1001 0 p1001-03 2\n1001 0 p1001-04 3\n1001 0 p1001-05 1\n"
    for name in ("small", "huge"):
        assert studio("import", "qrels", write(f"{name}.txt", qrels), "--name", name).exit_code == 0
    with Project.open(project) as opened:
        opened.db.cursor().execute(
            "UPDATE label_event_rows SET grade = grade * 2.0 ** 1020"
            " WHERE label_set_id = (SELECT label_set_id FROM label_sets WHERE name = 'huge')"
        )

    def values(name: str) -> list[float]:
        result = studio("eval", "--qrels", name, "-m", "nDCG@10", "-m", "nDCG", "-f", "json")
        return [row["value"] for row in strict_json(result.stdout)]

    assert values("huge") == values("small")


def test_calibrate_prints_json_without_infinity(studio: Studio, project: Path) -> None:
    inject_grades(project, "umbrela-smol", "1001", float(HUGE))
    result = studio("calibrate", "--qrels", "umbrela-smol", "--gold", "human", "--name", "cal", "-f", "json")
    assert result.exit_code == 0, result.output
    found = strict_json(result.stdout)
    assert found[0]["mean_raw"] is None


def test_audit_plan_over_an_overflowing_grade_is_refused_clearly(studio: Studio, project: Path) -> None:
    inject_grades(project, "umbrela-smol", "1002", 1e200, count=1)
    refused(
        studio("audit", "plan", "--qrels", "umbrela-smol", "--pilot", "human", "--target-width", "0.1"),
        "label set 'umbrela-smol' grades (1002, ",
        "1e+200, which is too large in magnitude",
        "studio label",
    )


@pytest.mark.process
def test_no_numpy_warning_reaches_the_terminal(project: Path) -> None:
    """numpy prints its warnings itself (pytest would catch them in process): a real process."""
    inject_grades(project, "umbrela-smol", "1001", float(HUGE))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("PYTHONWARNINGS", None)
    for command in (
        ["calibrate", "--qrels", "umbrela-smol", "--gold", "human", "--name", "cal", "-f", "json"],
        ["agree", "--ref", "human", "--qrels", "umbrela-smol", "-f", "json"],
    ):
        done = subprocess.run(
            [sys.executable, "-c", "from studio.cli.app import run; run()", "--db", str(project), *command],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        assert "Warning" not in done.stderr, done.stderr
        strict_json(done.stdout)


# -- JSON ---------------------------------------------------------------------------------------------


def test_json_text_writes_null_for_every_number_json_lacks() -> None:
    value = {"a": float("inf"), "b": [float("nan"), 1.5, (-float("inf"),)], "c": {"d": 2}}
    assert json.loads(json_text(value)) == {"a": None, "b": [None, 1.5, [None]], "c": {"d": 2}}


# -- run scores in single precision -----------------------------------------------------------------

FLT_MAX = "3.4028234663852886e38"
# (score of a, not relevant; score of b, relevant): tied in C, b comes first (docids descending);
# the studio took every score beyond the largest float for an infinity.
SCORES = {
    "just above the largest float": ("3.4028235e38", FLT_MAX),  # rounds down to FLT_MAX
    "the last double below the overflow": ("3.4028235677973362e38", FLT_MAX),  # rounds down too
    "the overflow itself": ("3.4028235677973366e38", FLT_MAX),  # 2**128 - 2**103: infinity
    "beyond": ("3.4028236e38", FLT_MAX),
    "negative, just beyond": ("-" + FLT_MAX, "-3.4028235e38"),  # ties at -FLT_MAX
}


@pytest.mark.parametrize(("a", "b"), SCORES.values(), ids=SCORES)
def test_a_score_at_single_precision_s_edge_ranks_as_trec_eval_ranks_it(
    studio: Studio, write: Write, a: str, b: str
) -> None:
    qrels = {"1": {"a": 0, "b": 1, "c": 1, "d": 2}}
    run = {"a": a, "b": b, "c": "1", "d": "-1"}
    qrels_file = write("q.txt", "1 0 a 0\n1 0 b 1\n1 0 c 1\n1 0 d 2\n")
    assert studio("import", "qrels", qrels_file, "--name", "q").exit_code == 0
    lines = "".join(f"1 Q0 {doc} {rank} {value} edge\n" for rank, (doc, value) in enumerate(run.items(), 1))
    assert studio("import", "run", write("edge.run", lines)).exit_code == 0
    result = studio("eval", "--qrels", "q", "-m", "AP", "-m", "nDCG", "-f", "json")
    found = {row["measure"]: row["value"] for row in strict_json(result.stdout) if row["run"] == "edge"}
    oracle = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg"}).evaluate(
        {"1": {doc: float(value) for doc, value in run.items()}}
    )["1"]
    assert found == {"AP": oracle["map"], "nDCG": oracle["ndcg"]}
