"""Prompt collections in the published layout of the prompt-sensitivity study, and verdict files.

`prompts.json` is one JSON object `{id: {"participant_name": NAME, "binary"|"graded"|"pairwise":
{"system": TEXT, "user": TEXT}}}`: each author wrote a system and a user message for some of the
three methods. A prompt's author group comes from its author's name (`human-*`: people, `LLM-*`:
llm, anything else: the name itself) unless a mapping `{participant or id: group}` says otherwise.
Placeholders are checked against the method before anything runs: a pointwise prompt names
`{query}` and `{passage}`, a pairwise one `{query}`, `{passage_a}` and `{passage_b}`, and none
names another method's.

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


def parse_prompts_json(text: str, source: str, groups: Mapping[str, str] | None = None) -> list[StudyPrompt]:
    """Every (prompt, method) of a `prompts.json`, in file order; refused whole on the first problem."""
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
            system, user = _messages(entry[method], prompt_id, method, source, line)
            prompts.append(StudyPrompt(prompt_id, participant, group, method, system, user))
    if not prompts:
        raise InputError(source, 1, "no prompts in the collection")
    return prompts


def _messages(value: Any, prompt_id: str, method: str, source: str, line: int) -> tuple[str, str]:
    """The (system, user) messages of one method, their placeholders checked."""
    where = f"prompt {quoted(prompt_id)} ({method})"
    if not isinstance(value, dict) or not isinstance(value.get("user"), str):
        raise InputError(source, line, f"{where}: expected {{system, user}} with a user message")
    system = value.get("system", "")
    if not isinstance(system, str):
        raise InputError(source, line, f"{where}: the system message must be text")
    problem = placeholder_problem(method, system, value["user"])
    if problem is not None:
        raise InputError(source, line, f"{where}: {problem}")
    return system, value["user"]


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


def parse_preferences(text: Text, source: str) -> tuple[list[PreferenceRow], list[tuple[str, str, str, float]]]:
    """Verdict lines (5 columns) and raw preference lines (4 columns) of a file, kept apart."""
    verdicts: list[PreferenceRow] = []
    raw: list[tuple[str, str, str, float]] = []
    for number, line in numbered_lines(text):
        fields = line.split()
        if len(fields) == 5:
            qid, category, doc_a, doc_b, verdict = fields
            if verdict not in VERDICTS:
                raise InputError(source, number, f"verdict {quoted(verdict)} is not agree, disagree or tie")
            ids = [checked_id(v, w, source, number) for v, w in ((qid, "qid"), (doc_a, "docid"), (doc_b, "docid"))]
            verdicts.append(PreferenceRow(ids[0], category, ids[1], ids[2], verdict))
        elif len(fields) == 4:
            qid, first, second, answer = fields
            if answer not in ("1", "2"):
                raise InputError(source, number, f"preference {quoted(answer)} is not 1 or 2")
            raw.append((checked_id(qid, "qid", source, number), first, second, float(answer)))
        else:
            raise InputError(
                source, number, "expected `qid category docA docB agree|disagree|tie` or `qid docFirst docSecond 1|2`"
            )
    if not verdicts and not raw:
        raise InputError(source, None, "no preferences in the file")
    return verdicts, raw


def write_preferences(rows: Iterable[PreferenceRow]) -> str:
    """The verdict layout, one line per pair."""
    return "".join(f"{r.qid} {r.category} {r.doc_a} {r.doc_b} {r.verdict}\n" for r in rows)
