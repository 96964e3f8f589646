"""The LaTeX leaderboard's significance marks, as ranx's `Report.to_latex()` writes them."""

from __future__ import annotations

from studio.formats.leaderboard_layouts import MEAN_TOPIC, ScoreRow, SignificanceMarks, run_labels, write_latex


def means(values: dict[str, float]) -> list[ScoreRow]:
    return [ScoreRow(run, "AP", MEAN_TOPIC, value) for run, value in values.items()]


def test_each_value_names_the_runs_it_beats_and_hides_the_others_letters() -> None:
    marks = SignificanceMarks({"AP": {"x": {"y", "z"}, "y": {"z"}}}, "paired t-test, Holm's correction", 0.05)
    lines = write_latex(means({"z": 0.1, "x": 0.5, "y": 0.3}), marks).splitlines()
    assert lines[1] == r"\begin{tabular}{llr}"
    assert lines[3] == r"\# & Run & AP \\"
    assert lines[5:8] == [
        r"a & x & \textbf{0.5000}$^{bc}$ \\",
        r"b & y & 0.3000$^{c}$\hphantom{$^{a}$} \\",
        r"c & z & 0.1000\hphantom{$^{ab}$} \\",
    ]
    assert r"paired t-test, Holm's correction, $\alpha = 0.05$" in lines[9]


def test_without_marks_the_table_has_no_letters() -> None:
    assert "#" not in write_latex(means({"x": 0.5, "y": 0.3})).replace("% \\usepackage", "")


def test_more_runs_than_letters_are_numbered_and_the_superscripts_take_commas() -> None:
    runs = [f"run{n:02d}" for n in range(30)]
    assert list(run_labels(runs).values())[:3] == ["1", "2", "3"]
    marks = SignificanceMarks({"AP": {"run00": {"run01", "run29"}}}, "paired t-test, no correction", 0.01)
    table = write_latex(means({run: 1 - n / 100 for n, run in enumerate(runs)}), marks)
    assert r"1 & run00 & \textbf{1.0000}$^{2,30}$\hphantom{$^{3,4," in table
