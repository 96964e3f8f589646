"""Reading a leaderboard another tool wrote: the layouts of `leaderboard_layouts` and the studio's
own JSON/TSV/CSV exports, told apart by their content unless the caller names the layout.

What each layout's lines hold (blank lines skipped, columns split on spaces and tabs):

* `trec_eval` — `measure topic value`, as `trec_eval [-q]` prints it; several runs' outputs one
  after the other. A block's `runid all NAME` line names its run; a topic line after an `all`
  line, or a `runid` line after one, starts the next block. A block without a `runid` line is
  the run `run` (the caller's default). `num_q` is the topic count, not a measure, and is skipped.
* `ir_measures` — `run topic measure value`, or as ir_measures prints one run: `topic measure
  value` (with `-q`) and `measure value` (the means).
* `tot` — `run measure topic value`.
* `jsonl` — objects with `measure`, `value`, optionally `run` and `topic` (or ir_measures'
  `query_id`); a missing topic is the mean.
* `json`, `tsv`, `csv` — the rows of `studio eval` (`run`, `measure`, `value`, optional `topic`).

trec_eval's measure names are read as the studio's (`ndcg_cut_10` as `nDCG@10`). Values are
numbers as trec_eval reads them (`studio.domain.numbers`); run names are checked as names and
topics as ids; a (run, measure, topic) given twice is refused with both lines.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from studio.domain.choices import LeaderboardLayout
from studio.domain.errors import InputError, quoted
from studio.domain.numbers import finite_json_number, read_decimal, why_not_decimal
from studio.formats.checks import checked_id, checked_name
from studio.formats.jsonl import json_objects, json_value
from studio.formats.leaderboard_layouts import MEAN_TOPIC, ScoreRow, studio_name
from studio.formats.trec import trec_lines

_MEASURE_LIKE = re.compile(
    r"(nDCG|P|R|AP|RR|Rprec|Judged|Compat)(\([^)]*\))?(@\d+)?"
    r"|ndcg(_cut_\d+)?|P_\d+|recall_\d+|map(_cut_\d+)?|recip_rank|bpref|num_\w+|gm_map|iprec_at_recall_[\d.]+"
)
_TABLE_COLUMNS = ("run", "measure", "value")
_TREC_EVAL_META = frozenset({"runid", "num_q"})


@dataclass
class ParsedLeaderboard:
    """The values a file holds, and the layout it was read as."""

    layout: LeaderboardLayout
    rows: list[ScoreRow] = field(default_factory=list)


class _Collector:
    """Rows as they are read, each (run, measure, topic) once."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.rows: list[ScoreRow] = []
        self.first: dict[tuple[str, str, str], int] = {}

    def add(self, line: int, run: str, measure: str, topic: str, value: float) -> None:
        checked_name(run, "run", self.source, line)
        checked_id(topic, "topic", self.source, line)
        if not measure or checked_id(measure, "measure", self.source, line) != measure:
            raise InputError(self.source, line, "empty measure name")
        key = (run, studio_name(measure), topic)
        if key in self.first:
            raise InputError(
                self.source,
                line,
                f"run {run!r}, {key[1]} on topic {topic!r} given twice (first on line {self.first[key]})",
            )
        self.first[key] = line
        self.rows.append(ScoreRow(*key, value))


def _number(text: str, source: str, line: int) -> float:
    value = read_decimal(text)
    if value is None:
        raise InputError(source, line, f"value {quoted(text)} {why_not_decimal(text)}")
    return value


def _columns(text: str, source: str) -> Iterator[tuple[int, list[str]]]:
    for number, columns in trec_lines(text):
        if any("\r" in column for column in columns):
            raise InputError(source, number, "a carriage return (CR) inside the line: lines must end in LF or CRLF")
        yield number, columns


def _expect(columns: list[str], counts: tuple[int, ...], what: str, source: str, line: int) -> None:
    if len(columns) not in counts:
        expected = " or ".join(str(n) for n in counts)
        raise InputError(source, line, f"expected {expected} columns ({what}), found {len(columns)}")


def _read_trec_eval(text: str, source: str, run: str, into: _Collector) -> None:
    pending: list[tuple[int, str, str, float]] = []
    name: str | None = None
    in_means = False

    def close_block() -> None:
        for number, measure, topic, value in pending:
            into.add(number, name or run, measure, topic, value)
        pending.clear()

    for number, columns in _columns(text, source):
        _expect(columns, (3,), "measure topic value", source, number)
        measure, topic, value_text = columns
        # The next run's output begins with a topic's line, or (means only) with its runid line,
        # the first of the means trec_eval prints.
        if in_means and (topic != MEAN_TOPIC or measure == "runid"):
            close_block()
            name, in_means = None, False
        in_means = in_means or topic == MEAN_TOPIC
        if measure == "runid":
            name = checked_name(value_text, "run", source, number)
        elif measure not in _TREC_EVAL_META:
            pending.append((number, measure, topic, _number(value_text, source, number)))
    close_block()


def _read_ir_measures(text: str, source: str, run: str, into: _Collector) -> None:
    for number, columns in _columns(text, source):
        _expect(columns, (2, 3, 4), "[run] [topic] measure value", source, number)
        value = _number(columns[-1], source, number)
        if len(columns) == 4:
            into.add(number, columns[0], columns[2], columns[1], value)
        elif len(columns) == 3:
            into.add(number, run, columns[1], columns[0], value)
        else:
            into.add(number, run, columns[0], MEAN_TOPIC, value)


def _read_tot(text: str, source: str, run: str, into: _Collector) -> None:
    for number, columns in _columns(text, source):
        _expect(columns, (4,), "run measure topic value", source, number)
        into.add(number, columns[0], columns[1], columns[2], _number(columns[3], source, number))


def _text_field(record: dict[str, Any], key: str, source: str, line: int) -> str | None:
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InputError(source, line, f"field {key!r} must be text")
    return str(value)


def _add_record(record: dict[str, Any], run: str, source: str, line: int, into: _Collector) -> None:
    measure = _text_field(record, "measure", source, line)
    if measure is None:
        raise InputError(source, line, "missing field: measure")
    if "value" not in record:
        raise InputError(source, line, "missing field: value")
    value = finite_json_number(record["value"])
    if value is None:
        raise InputError(source, line, f"value {record['value']!r} is not a finite number")
    topic = _text_field(record, "topic", source, line) or _text_field(record, "query_id", source, line)
    into.add(line, _text_field(record, "run", source, line) or run, measure, topic or MEAN_TOPIC, value)


def _read_jsonl(text: str, source: str, run: str, into: _Collector) -> None:
    for number, record in json_objects(text, source):
        _add_record(record, run, source, number, into)


def _read_json(text: str, source: str, run: str, into: _Collector) -> None:
    records = json_value(text, source, 1)
    if not isinstance(records, list) or not all(isinstance(record, dict) for record in records):
        raise InputError(source, 1, "expected a JSON array of objects (the rows of studio eval)")
    for record in records:
        _add_record(record, run, source, 1, into)


def _read_table(text: str, source: str, delimiter: str, into: _Collector) -> None:
    lines = [line.rstrip("\r") for line in text.split("\n")]
    reader = csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter)
    header = next(reader, [])
    missing = [column for column in _TABLE_COLUMNS if column not in header]
    if missing:
        raise InputError(source, 1, f"the header lacks the column(s) {', '.join(missing)}")
    at = {column: header.index(column) for column in header}
    for cells in reader:
        number = reader.line_num
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(header):
            raise InputError(source, number, f"expected {len(header)} fields as in the header, found {len(cells)}")
        topic = cells[at["topic"]] if "topic" in at else MEAN_TOPIC
        value = _number(cells[at["value"]], source, number)
        into.add(number, cells[at["run"]], cells[at["measure"]], topic or MEAN_TOPIC, value)


def _measure_like(text: str) -> bool:
    return _MEASURE_LIKE.fullmatch(text) is not None


def detect_layout(text: str, source: str) -> LeaderboardLayout:
    """The layout of a leaderboard file, by its content; an `InputError` when it cannot be told."""
    stripped = text.lstrip()
    bracketed = _bracketed_layout(stripped)
    if bracketed is not None and _is_json_of(stripped, bracketed):
        return bracketed
    found = _text_layout(text, stripped)
    if found is not None:
        return found
    if bracketed is not None:
        return bracketed  # its reader names the line that is no JSON
    raise InputError(source, None, "cannot tell the leaderboard's layout from its lines; give --as")


def _bracketed_layout(stripped: str) -> LeaderboardLayout | None:
    """The JSON layout a file's first character suggests; a run may be named `{` too, so the
    suggestion holds only if the file parses (`_is_json_of`)."""
    if stripped.startswith("["):
        return LeaderboardLayout.json
    if stripped.startswith("{"):
        return LeaderboardLayout.jsonl
    return None


def _is_json_of(stripped: str, layout: LeaderboardLayout) -> bool:
    """Whether the file is a JSON array (json) or starts with a JSON object line (jsonl)."""
    whole = layout is LeaderboardLayout.json
    try:
        value = json.loads(stripped if whole else stripped.split("\n", 1)[0])
    except (ValueError, RecursionError):
        return False
    return isinstance(value, list if whole else dict)


def _text_layout(text: str, stripped: str) -> LeaderboardLayout | None:
    """The layout of a file of columns (a table with a header, or whitespace-split lines)."""
    head = stripped.split("\n", 1)[0].rstrip("\r")
    for layout, delimiter in ((LeaderboardLayout.tsv, "\t"), (LeaderboardLayout.csv, ",")):
        if all(column in head.split(delimiter) for column in _TABLE_COLUMNS):
            return layout
    rows = [columns for _, columns in trec_lines(text)]
    widths = {len(columns) for columns in rows}
    if widths <= {2, 3} and 2 in widths:
        return LeaderboardLayout.ir_measures
    if widths == {3}:
        if any(columns[0] == "runid" or columns[1] == MEAN_TOPIC for columns in rows):
            return LeaderboardLayout.trec_eval
        if any(columns[0] == MEAN_TOPIC for columns in rows) or _measure_like(rows[0][1]):
            return LeaderboardLayout.ir_measures
        if _measure_like(rows[0][0]):
            return LeaderboardLayout.trec_eval
    if widths == {4}:
        # Where the mean's topic `all` stands tells the layouts apart for sure; a measure-like name
        # only when there are no means (a topic may be called `AP` too).
        if any(columns[2] == MEAN_TOPIC for columns in rows):
            return LeaderboardLayout.tot
        if any(columns[1] == MEAN_TOPIC for columns in rows):
            return LeaderboardLayout.ir_measures
        if _measure_like(rows[0][1]):
            return LeaderboardLayout.tot
        if _measure_like(rows[0][2]):
            return LeaderboardLayout.ir_measures
    return None


def parse_leaderboard(
    text: str, source: str, layout: LeaderboardLayout | None = None, *, run: str = "run"
) -> ParsedLeaderboard:
    """Every value of a leaderboard file (`run`: the run of lines that name none)."""
    chosen = detect_layout(text, source) if layout is None else layout
    into = _Collector(source)
    if chosen is LeaderboardLayout.trec_eval:
        _read_trec_eval(text, source, run, into)
    elif chosen is LeaderboardLayout.ir_measures:
        _read_ir_measures(text, source, run, into)
    elif chosen is LeaderboardLayout.tot:
        _read_tot(text, source, run, into)
    elif chosen is LeaderboardLayout.jsonl:
        _read_jsonl(text, source, run, into)
    elif chosen is LeaderboardLayout.json:
        _read_json(text, source, run, into)
    elif chosen in (LeaderboardLayout.tsv, LeaderboardLayout.csv):
        _read_table(text, source, "\t" if chosen is LeaderboardLayout.tsv else ",", into)
    else:
        raise InputError(source, None, f"a {chosen.value} leaderboard is written, not read")
    if not into.rows:
        raise InputError(source, None, "the file holds no values")
    return ParsedLeaderboard(chosen, into.rows)
