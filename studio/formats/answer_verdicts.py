"""Verdict files of generated answers, in the layouts of the public release of Arabzadeh & Clarke's
"A Comparison of Methods for Evaluating Generative IR" (`genir experiments/{binary,graded,subtopics,
preferences}/…`), one file per system, fields separated by whitespace (the release uses tabs):

* binary `qid 0 yes|no` (any case: the release writes `Yes`, `No` and `no`);
* graded `qid 0 G`, G a whole grade within the scale (0–3 by default);
* subtopics `qid 0 yes|no 1 yes|no … k yes|no`: entry 0 is the query itself, 1..k its subtopics
  (k varies by topic);
* preferences, two lines a topic, `qid reg|rev qrel|gen DOC gen|qrel DOC a|b`: the `qrel` side is
  the exemplar passage (its docid), the `gen` side the answer (named by the release's own id of the
  system), `a`/`b` the first/second shown preferred in that order. The release's files start with
  a header (`qid version greater_lev doc1 lesser_lev doc2 prefered`) and end with a line of tabs.

A header is read as the first line of any layout; anywhere else it is refused, as is every line
that does not parse (with its number and why, a hint when two lines look glued together): nothing
of a refused file is kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from studio.domain.answer_verdicts import (
    AnswerVerdict,
    BinaryVerdict,
    GradedVerdict,
    PreferenceVerdict,
    ShownOrder,
    SubtopicVerdict,
)
from studio.domain.choices import DEFAULT_VERDICT_SCALE, AnswerMethod
from studio.domain.errors import InputError, quoted
from studio.domain.numbers import read_integer
from studio.formats.checks import checked_id
from studio.formats.text_input import Text, numbered_lines

HEADER_FIRST = ("qid", "query_id", "topic_id", "topic")
RELEASE_HEADER = ("qid", "version", "greater_lev", "doc1", "lesser_lev", "doc2", "prefered")
YES_NO = {"yes": True, "no": False}
GLUED = " (two lines glued together?)"
_LABEL_THEN_DIGITS = re.compile(r"(?i)(yes|no|[ab]|[0-9]+)[0-9]+")
DEFAULT_SCALE = DEFAULT_VERDICT_SCALE  # graded verdicts: 0..3, the paper's graded prompt


@dataclass(frozen=True)
class _Line:
    number: int
    fields: list[str]


def parse_answer_verdicts(
    text: Text, source: str, layout: AnswerMethod, *, scale: int = DEFAULT_SCALE
) -> list[AnswerVerdict]:
    """One verdict per topic, in the file's order; the whole file refused at its first bad line."""
    lines = _lines(text, source)
    if layout is AnswerMethod.preferences:
        found: list[AnswerVerdict] = list(_preferences(lines, source))
    elif layout in (AnswerMethod.binary, AnswerMethod.graded, AnswerMethod.subtopics):
        found = [_pointwise(line, source, layout, scale) for line in lines]
    else:
        raise ValueError(f"{layout} verdicts are not read from files")
    seen: dict[str, int] = {}
    for verdict in found:
        if verdict.qid in seen:
            raise InputError(
                source, verdict.line, f"topic {verdict.qid!r} has a verdict already (line {seen[verdict.qid]})"
            )
        seen[verdict.qid] = verdict.line
    if not found:
        raise InputError(source, None, "the file holds no verdict")
    return found


def _lines(text: Text, source: str) -> list[_Line]:
    """The non-blank lines split into fields; a header is skipped on the first line, refused elsewhere."""
    lines = []
    for index, (number, line) in enumerate(numbered_lines(text)):
        fields = line.split()
        if fields[0].lower() in HEADER_FIRST:
            if index == 0:
                continue
            header = quoted(line.strip())
            raise InputError(
                source, number, f"a header in the middle of the file ({header}): only the first line may be one"
            )
        lines.append(_Line(number, fields))
    return lines


def _glued(token: str) -> str:
    return GLUED if _LABEL_THEN_DIGITS.fullmatch(token) else ""


def _fields(line: _Line, source: str, count: int, what: str) -> list[str]:
    fields = line.fields
    if len(fields) != count:
        hint = GLUED if len(fields) > count else ""
        raise InputError(source, line.number, f"{len(fields)} fields where {what} has {count}{hint}")
    return fields


def _yes_no(token: str, source: str, number: int) -> bool:
    found = YES_NO.get(token.lower())
    if found is None:
        raise InputError(source, number, f"label {quoted(token)} is neither yes nor no{_glued(token)}")
    return found


def _zero(token: str, source: str, number: int) -> None:
    if token != "0":
        raise InputError(source, number, f"the second field is {quoted(token)} where the layout has 0")


def _pointwise(line: _Line, source: str, layout: AnswerMethod, scale: int) -> AnswerVerdict:
    number = line.number
    if layout is AnswerMethod.subtopics:
        return _subtopics(line, source)
    what = "a binary verdict (qid 0 yes|no)" if layout is AnswerMethod.binary else "a graded verdict (qid 0 G)"
    qid_text, zero, label = _fields(line, source, 3, what)
    qid = checked_id(qid_text, "qid", source, number)
    _zero(zero, source, number)
    if layout is AnswerMethod.binary:
        return BinaryVerdict(qid, number, _yes_no(label, source, number), label)
    grade = read_integer(label)
    if grade is None:
        raise InputError(source, number, f"grade {quoted(label)} is not a whole number{_glued(label)}")
    if not 0 <= grade <= scale:
        raise InputError(source, number, f"grade {grade} is outside the scale 0–{scale}")
    return GradedVerdict(qid, number, grade)


def _subtopics(line: _Line, source: str) -> SubtopicVerdict:
    number, fields = line.number, line.fields
    if len(fields) < 3 or len(fields) % 2 == 0:
        raise InputError(
            source,
            number,
            f"{len(fields)} fields: expected qid then pairs of entry and yes|no (qid 0 yes|no 1 yes|no …)",
        )
    qid = checked_id(fields[0], "qid", source, number)
    entries = []
    for expected, (index, label) in enumerate(zip(fields[1::2], fields[2::2], strict=True)):
        if index != str(expected):
            raise InputError(source, number, f"entry {quoted(index)} where entry {expected} was due{_glued(index)}")
        entries.append(_yes_no(label, source, number))
    return SubtopicVerdict(qid, number, tuple(entries))


def _preferences(lines: list[_Line], source: str) -> Iterator[PreferenceVerdict]:
    """Both orders of each topic, paired; the exemplar and the system the same in both."""
    pending: dict[str, tuple[_Line, str, str, ShownOrder]] = {}
    systems: dict[str, int] = {}
    for line in lines:
        qid, exemplar, system, order = _preference_line(line, source)
        systems.setdefault(system, line.number)
        if len(systems) > 1:
            first = next(iter(systems))
            raise InputError(
                source, line.number, f"answers of {system!r} and {first!r} (line {systems[first]}) in one file"
            )
        if qid not in pending:
            pending[qid] = (line, exemplar, system, order)
            continue
        first_line, first_exemplar, _, first_order = pending.pop(qid)
        _check_pair(source, line, first_line, exemplar, first_exemplar, order, first_order)
        yield PreferenceVerdict(qid, first_line.number, exemplar, system, (first_order, order))
    for qid, (line, *_rest) in pending.items():
        raise InputError(
            source, line.number, f"topic {qid!r} has one order only: a preference needs both (reg and rev)"
        )


def _check_pair(
    source: str,
    line: _Line,
    first: _Line,
    exemplar: str,
    first_exemplar: str,
    order: ShownOrder,
    first_order: ShownOrder,
) -> None:
    if exemplar != first_exemplar:
        raise InputError(
            source, line.number, f"exemplar {exemplar!r} differs from {first_exemplar!r} on line {first.number}"
        )
    if order.version == first_order.version:
        raise InputError(source, line.number, f"a second {order.version!r} line for the topic (line {first.number})")
    if order.answer_first == first_order.answer_first:
        raise InputError(
            source,
            line.number,
            f"shows the answer in the same position as line {first.number}: the two orders must differ",
        )


def _preference_line(line: _Line, source: str) -> tuple[str, str, str, ShownOrder]:
    number = line.number
    what = "a preference (qid reg|rev qrel|gen DOC gen|qrel DOC a|b)"
    qid_text, version, side_1, id_1, side_2, id_2, pick = _fields(line, source, 7, what)
    qid = checked_id(qid_text, "qid", source, number)
    if version.lower() not in ("reg", "rev"):
        raise InputError(source, number, f"version {quoted(version)} is neither reg nor rev")
    sides = (side_1.lower(), side_2.lower())
    if sorted(sides) != ["gen", "qrel"]:
        raise InputError(source, number, f"sides {side_1!r} and {side_2!r}: one must be qrel (the exemplar), one gen")
    if pick.lower() not in ("a", "b"):
        raise InputError(source, number, f"preference {quoted(pick)} is neither a nor b")
    answer_first = sides[0] == "gen"
    exemplar = checked_id(id_2 if answer_first else id_1, "exemplar docid", source, number)
    system = id_1 if answer_first else id_2
    return qid, exemplar, system, ShownOrder(version.lower(), answer_first, pick.lower() == "a", number)


def write_answer_verdicts(layout: AnswerMethod, verdicts: Sequence[AnswerVerdict]) -> str:
    """Verdicts as the release writes them (tab-separated; preferences with its header), read back
    alike by `parse_answer_verdicts`."""
    lines = ["\t".join(RELEASE_HEADER)] if layout is AnswerMethod.preferences else []
    for verdict in verdicts:
        if isinstance(verdict, BinaryVerdict):
            lines.append(f"{verdict.qid}\t0\t{'Yes' if verdict.relevant else 'No'}")
        elif isinstance(verdict, GradedVerdict):
            lines.append(f"{verdict.qid}\t0\t{verdict.grade}")
        elif isinstance(verdict, SubtopicVerdict):
            entries = "\t".join(f"{i}\t{'Yes' if yes else 'No'}" for i, yes in enumerate(verdict.entries))
            lines.append(f"{verdict.qid}\t{entries}")
        else:
            for order in verdict.orders:
                shown = ("gen", verdict.system_id, "qrel", verdict.exemplar)
                first, first_id, second, second_id = shown if order.answer_first else (*shown[2:], *shown[:2])
                pick = "a" if order.first_picked else "b"
                lines.append(f"{verdict.qid}\t{order.version}\t{first}\t{first_id}\t{second}\t{second_id}\t{pick}")
    return "".join(line + "\n" for line in lines)
