"""One system's generated answers as `qid<TAB>text`, one line a topic.

The public release of Arabzadeh & Clarke's "A Comparison of Methods for Evaluating Generative IR"
keeps each system's answers so, one file per system (`generated responses/2019/responses_gpt-4`,
…), without a header and with the system named only by the file. A text may hold any character
but a tab and a line end: a second tab on a line is two lines glued together or a column too
many, and is refused with its line rather than kept as part of an answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from studio.domain.errors import InputError, quoted
from studio.domain.models import Response
from studio.formats.checks import checked_id, checked_name
from studio.formats.text_input import Text, numbered_lines


def parse_answer_texts(text: Text, source: str, system: str | None) -> list[Response]:
    """The answers of `system` (required: the layout does not name it), one per topic."""
    if system is None:
        raise InputError(
            source, None, "a qid<TAB>text file holds one system's answers without naming it: give --system"
        )
    name = checked_name(system, "system", source, None)
    answers: list[Response] = []
    first_line: dict[str, int] = {}
    for number, line in numbered_lines(text):
        qid, tab, body = line.partition("\t")
        if not tab:
            raise InputError(source, number, "expected qid<TAB>text: the line has no tab")
        qid = checked_id(qid.strip(), "qid", source, number)
        if "\t" in body:
            raise InputError(
                source,
                number,
                f"a second tab after {quoted(body.split(chr(9))[0])}: an answer holds no tab "
                "(two lines glued together, or a column too many?)",
            )
        if not body.strip():
            raise InputError(source, number, f"topic {qid!r} has an empty answer")
        if qid in first_line:
            raise InputError(source, number, f"topic {qid!r} is answered twice (first on line {first_line[qid]})")
        first_line[qid] = number
        answers.append(Response(qid, name, body.strip()))
    if not answers:
        raise InputError(source, None, "the file is empty")
    return answers


def write_answer_texts(answers: Sequence[Response]) -> str:
    """The answers as `parse_answer_texts` reads them back (one system's; texts without tab or line end)."""
    for answer in answers:
        if "\t" in answer.text or "\n" in answer.text or "\r" in answer.text:
            raise ValueError(f"the answer to {answer.qid!r} holds a tab or a line end: not writable as qid<TAB>text")
    return "".join(f"{answer.qid}\t{answer.text}\n" for answer in answers)
