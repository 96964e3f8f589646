"""Prompt collections in the published layout of the prompt-sensitivity study, and verdict files.

`prompts.json` is one JSON object `{id: {"participant_name": NAME, "binary"|"graded"|"pairwise":
{"system": TEXT, "user": TEXT}}}`: each author wrote a system and a user message for some of the
three methods. A prompt's author group comes from its author's name (`human-*`: people, `LLM-*`:
llm, anything else: the name itself) unless a mapping `{participant or id: group}` says otherwise.
Placeholders are checked against the method before anything runs: a pointwise prompt names
`{query}` and `{passage}`, a pairwise one `{query}`, `{passage_a}` and `{passage_b}`, and none
names another method's. The study's release writes `{document}`, `{documentA}` and `{documentB}`:
they are read as `{passage}`, `{passage_a}` and `{passage_b}` (docs/sensitivity.md). A prompt
without its passage placeholder (the release has two) cannot judge anything: it is skipped and
named, when the caller collects the skipped ones, else refused.

A verdict file holds one line per pair of passages judged in both orders,
`qid category docA docB agree|disagree|tie` (docA the passage the reference grades higher); a
raw preference file one line per call, `qid docFirst docSecond 1|2` (which passage, as shown,
the judge preferred).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from studio.domain.choices import OnDuplicate
from studio.domain.errors import InputError, quoted
from studio.domain.prompt_study import STUDY_METHODS, VERDICTS, PreferenceRow, StudyPrompt
from studio.formats.checks import checked_id, checked_name
from studio.formats.json_input import loads
from studio.formats.text_input import Text, numbered_lines

PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
NEEDED = {
    "binary": frozenset({"query", "passage"}),
    "graded": frozenset({"query", "passage"}),
    "pairwise": frozenset({"query", "passage_a", "passage_b"}),
}
FILLED = frozenset().union(*NEEDED.values())  # what some study method fills in
PASSAGES = {"binary": ("passage",), "graded": ("passage",), "pairwise": ("passage_a", "passage_b")}
# The published study's names for the passages (its prompts.json), and ours.
RELEASE_NAMES = {"document": "passage", "documentA": "passage_a", "documentB": "passage_b"}
_RELEASE_PLACEHOLDER = re.compile(r"\{(document|documentA|documentB)\}")
PEOPLE, LLM = "people", "llm"


def group_of(participant: str, prompt_id: str, groups: Mapping[str, str] | None = None) -> str:
    """The author group: the mapping's (by prompt id, then participant), else by name prefix."""
    if groups:
        for key in (prompt_id, participant):
            if key in groups:
                return groups[key]
    lowered = participant.lower()
    if lowered.startswith("human-"):
        return PEOPLE
    if lowered.startswith("llm-"):
        return LLM
    return participant


def with_our_placeholders(text: str) -> str:
    """The release's `{document}`, `{documentA}`, `{documentB}` as `{passage}`, `{passage_a}`, `{passage_b}`."""
    return _RELEASE_PLACEHOLDER.sub(lambda found: "{" + RELEASE_NAMES[found.group(1)] + "}", text)


def lacks_passage(method: str, system: str, user: str) -> str | None:
    """Why a prompt cannot show the judge its passage(s), or None when it can."""
    used = set(PLACEHOLDER.findall(system)) | set(PLACEHOLDER.findall(user))
    missing = [name for name in PASSAGES[method] if name not in used]
    if not missing:
        return None
    near = sorted(
        "{" + word + "}"
        for word in re.findall(r"\{(\w+)\}", system + user)
        if word not in used and (word.lower() in FILLED or word.lower() in {n.lower() for n in RELEASE_NAMES})
    )
    hint = f" ({', '.join(near)} is not a placeholder: they are lower case)" if near else ""
    return f"no {', '.join('{' + n + '}' for n in missing)}{hint}"


def placeholder_problem(method: str, system: str, user: str) -> str | None:
    """Why the messages do not fit `method` (None when they do)."""
    used = set(PLACEHOLDER.findall(system)) | set(PLACEHOLDER.findall(user))
    missing = NEEDED[method] - used
    foreign = (used & FILLED) - NEEDED[method]
    if missing:
        return f"{method} prompt lacks {', '.join('{' + n + '}' for n in sorted(missing))}"
    if foreign:
        return (
            f"{method} prompt names {', '.join('{' + n + '}' for n in sorted(foreign))}, which {method} does not fill"
        )
    return None


def parse_prompts_json(
    text: str, source: str, groups: Mapping[str, str] | None = None, skipped: list[str] | None = None
) -> list[StudyPrompt]:
    """Every (prompt, method) of a `prompts.json`, in file order; refused whole on the first problem.
    With `skipped`, a prompt without its passage placeholder is left out and named there instead."""
    data = loads(text, source)
    if not isinstance(data, dict):
        raise InputError(source, 1, "expected an object {id: {participant_name, binary|graded|pairwise}}")
    prompts: list[StudyPrompt] = []
    for prompt_id, entry in data.items():
        line = _line_of(text, prompt_id)
        if not isinstance(entry, dict):
            raise InputError(source, line, f"prompt {quoted(prompt_id)}: expected an object")
        checked_id(prompt_id, "prompt id", source, line)
        checked_name(prompt_id, "prompt id", source, line)
        participant = entry.get("participant_name", prompt_id)
        if not isinstance(participant, str) or not participant.strip():
            raise InputError(source, line, f"prompt {quoted(prompt_id)}: participant_name must be text")
        methods = [m for m in STUDY_METHODS if m in entry]
        unknown = sorted(set(entry) - {"participant_name", *STUDY_METHODS})
        if unknown:
            raise InputError(source, line, f"prompt {quoted(prompt_id)}: unknown key {quoted(unknown[0])}")
        if not methods:
            raise InputError(source, line, f"prompt {quoted(prompt_id)}: no binary, graded or pairwise prompt")
        group = checked_name(group_of(participant, prompt_id, groups), "group", source, line)
        for method in methods:
            messages = _messages(entry[method], prompt_id, method, source, line, skipped)
            if messages is not None:
                prompts.append(StudyPrompt(prompt_id, participant, group, method, *messages))
    if not prompts:
        raise InputError(source, 1, "no prompts in the collection")
    return prompts


def _messages(
    value: Any, prompt_id: str, method: str, source: str, line: int, skipped: list[str] | None
) -> tuple[str, str] | None:
    """The (system, user) messages of one method in our placeholders, checked; None when skipped."""
    where = f"prompt {quoted(prompt_id)} ({method})"
    if not isinstance(value, dict) or not isinstance(value.get("user"), str):
        raise InputError(source, line, f"{where}: expected {{system, user}} with a user message")
    system = value.get("system", "")
    if not isinstance(system, str):
        raise InputError(source, line, f"{where}: the system message must be text")
    system, user = with_our_placeholders(system), with_our_placeholders(value["user"])
    no_passage = lacks_passage(method, system, user)
    if no_passage is not None and skipped is not None:
        skipped.append(f"{where} at line {line}: {no_passage}")
        return None
    problem = placeholder_problem(method, system, user)
    if problem is not None:
        raise InputError(source, line, f"{where}: {problem}")
    return system, user


def _line_of(text: str, key: str) -> int:
    """The line on which `"key":` first appears (1 when it cannot be found)."""
    found = re.search(re.escape(json.dumps(key)) + r"\s*:", text)
    return text.count("\n", 0, found.start()) + 1 if found else 1


def write_prompts_json(prompts: Iterable[StudyPrompt]) -> str:
    """The published layout (ids in first-seen order, methods in the study's order)."""
    data: dict[str, dict[str, Any]] = {}
    for prompt in prompts:
        entry = data.setdefault(prompt.prompt_id, {"participant_name": prompt.participant})
        entry[prompt.method] = {"system": prompt.system, "user": prompt.user}
    for entry in data.values():
        for method in STUDY_METHODS:  # a stable method order whatever the input's
            if method in entry:
                entry[method] = entry.pop(method)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def parse_groups_json(text: str, source: str) -> dict[str, str]:
    """A group mapping `{participant or prompt id: group}`."""
    data = loads(text, source)
    if not isinstance(data, dict) or not all(isinstance(v, str) and v.strip() for v in data.values()):
        raise InputError(source, 1, "expected an object {participant or prompt id: group name}")
    return {str(k): checked_name(v.strip(), "group", source, _line_of(text, str(k))) for k, v in data.items()}


RawAnswer = tuple[str, str, str, float]  # qid, passage shown first, shown second, 1|2 (which won)
RELEASE_ORDERS = ("regular", "swapped")
RELEASE_ANSWERS = {"A": 1.0, "B": 2.0}


def parse_preferences(
    text: Text, source: str, on_duplicate: OnDuplicate = OnDuplicate.ERROR
) -> tuple[list[PreferenceRow], list[RawAnswer]]:
    """Verdict lines (5 columns) and raw answers, kept apart: ours (4 columns, `qid first second
    1|2`) and the study's release (7, `qid high low regular|swapped first second A|B`). A pair (an
    order of a pair, for raw answers) listed again with the same answer is kept once; with another,
    refused naming both lines unless `on_duplicate` keeps the first or the last."""
    verdicts: dict[tuple[str, str, str], tuple[PreferenceRow, int]] = {}
    raw: dict[tuple[str, str, str], tuple[float, int]] = {}
    for number, line in numbered_lines(text):
        fields = line.split()
        if len(fields) == 5:
            row = _verdict_row(fields, source, number)
            _keep(verdicts, (row.qid, row.doc_a, row.doc_b), row, number, source, on_duplicate)
        elif len(fields) in (4, 7):
            qid, first, second, answer = _raw_answer(fields, source, number)
            _keep(raw, (qid, first, second), answer, number, source, on_duplicate)
        else:
            raise InputError(
                source,
                number,
                "expected `qid category docA docB agree|disagree|tie`, `qid docFirst docSecond 1|2`"
                " or `qid high low regular|swapped docFirst docSecond A|B`",
            )
    if not verdicts and not raw:
        raise InputError(source, None, "no preferences in the file")
    return [row for row, _ in verdicts.values()], [(*key, answer) for key, (answer, _) in raw.items()]


def _verdict_row(fields: list[str], source: str, number: int) -> PreferenceRow:
    qid, category, doc_a, doc_b, verdict = fields
    if verdict not in VERDICTS:
        raise InputError(source, number, f"verdict {quoted(verdict)} is not agree, disagree or tie")
    ids = [checked_id(v, w, source, number) for v, w in ((qid, "qid"), (doc_a, "docid"), (doc_b, "docid"))]
    return PreferenceRow(ids[0], category, ids[1], ids[2], verdict)


def _raw_answer(fields: list[str], source: str, number: int) -> RawAnswer:
    """One call: ours `qid first second 1|2`, or the release's `qid high low order first second A|B`."""
    if len(fields) == 4:
        qid, first, second, answer = fields
        if answer not in ("1", "2"):
            raise InputError(source, number, f"preference {quoted(answer)} is not 1 or 2")
        value = float(answer)
    else:
        qid, _, _, order, first, second, answer = fields
        if order not in RELEASE_ORDERS:
            raise InputError(source, number, f"order {quoted(order)} is not regular or swapped")
        if answer not in RELEASE_ANSWERS:
            raise InputError(source, number, f"preference {quoted(answer)} is not A or B")
        value = RELEASE_ANSWERS[answer]
    checked_id(first, "docid", source, number)
    checked_id(second, "docid", source, number)
    return checked_id(qid, "qid", source, number), first, second, value


def _keep(
    kept: dict[Any, tuple[Any, int]], key: Any, value: Any, number: int, source: str, on_duplicate: OnDuplicate
) -> None:
    """Record `value` under `key`, a repeat resolved by `on_duplicate` (a differing one refused by default)."""
    if key not in kept:
        kept[key] = (value, number)
        return
    earlier, line = kept[key]
    if earlier == value or on_duplicate is OnDuplicate.FIRST:
        return
    if on_duplicate is OnDuplicate.ERROR:
        raise InputError(
            source,
            number,
            f"({', '.join(key)}) is answered differently here and on line {line};"
            " choose with --on-duplicate first|last",
        )
    kept[key] = (value, line)


def write_preferences(rows: Iterable[PreferenceRow]) -> str:
    """The verdict layout, one line per pair."""
    return "".join(f"{r.qid} {r.category} {r.doc_a} {r.doc_b} {r.verdict}\n" for r in rows)
