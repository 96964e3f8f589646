"""Reading a label out of what a model wrote. A text with no readable label is a failure with a
reason — never a silent 0."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

_FINAL_SCORE = re.compile(r"#+\s*final\s+score\s*[:=-]?\s*\**\s*([0-3])(?![0-9])", re.IGNORECASE)
# Fallbacks for models that ignore the format: "Score: 2/3", "score of 2", "O: 3".
_LOOSE_SCORE = re.compile(
    r"\b(?:final\s+score|score|grade|relevance|O)\b\s*(?:is|of|=|:|-)?\s*\**\s*([0-3])(?:\s*/\s*3)?(?![0-9.])",
    re.IGNORECASE,
)
_YES_NO = re.compile(r"\b(yes|no)\b", re.IGNORECASE)
_ONE_TWO = re.compile(r"(?<![0-9.])([12])(?!\.?[0-9])")


@dataclass(frozen=True)
class Parsed:
    label: float | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.label is not None


def structured_answer(text: str, answer_prefix: str) -> str:
    """A JSON answer of a schema-constrained call ({"label": L} or {"labels": [L, …]}) as the text
    the method asks for (`answer_prefix` + L, or `answer_prefix` + the list), so the method's own
    parser reads it; any other text unchanged."""
    import json

    if not text or not text.lstrip().startswith("{"):
        return text
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if not isinstance(value, dict) or len(value) != 1:
        return text
    label, labels = value.get("label"), value.get("labels")
    if isinstance(label, str):
        return answer_prefix + label
    if isinstance(labels, list) and all(isinstance(v, str) for v in labels):
        return answer_prefix + json.dumps(labels, ensure_ascii=False)
    return text


def parse_umbrela(text: str) -> Parsed:
    """The *last* `##final score: N` (0–3); else the last loose `score: N`; else a failure."""
    if not text or not text.strip():
        return Parsed(None, "empty output")
    found = _FINAL_SCORE.findall(text)
    if found:
        return Parsed(float(found[-1]))
    loose = _LOOSE_SCORE.findall(text)
    if loose:
        return Parsed(float(loose[-1]))
    return Parsed(None, "no '##final score: N' (0-3) in the output")


def parse_binary(text: str) -> Parsed:
    """Yes -> 1, No -> 0 from the first yes/no word (the answer comes first in this prompt)."""
    if not text or not text.strip():
        return Parsed(None, "empty output")
    found = _YES_NO.search(text)
    if found is None:
        stripped = text.strip()
        if stripped[:1] in ("0", "1") and not stripped[1:2].isdigit():
            return Parsed(float(stripped[0]))
        return Parsed(None, "no Yes or No in the output")
    return Parsed(1.0 if found.group(1).lower() == "yes" else 0.0)


def parse_preference(text: str) -> Parsed:
    """Which passage (1 or 2) the model prefers: the first standalone 1 or 2."""
    if not text or not text.strip():
        return Parsed(None, "empty output")
    found = _ONE_TWO.search(text)
    if found is None:
        return Parsed(None, "no passage number (1 or 2) in the output")
    return Parsed(float(found.group(1)))


_GRADE = re.compile(r"(?<![0-9.])([0-3])(?![0-9.])")


def parse_grade(text: str) -> Parsed:
    """A bare TREC grade 0–3: the first standalone digit 0–3 ('2', 'Grade: 2', '2 (partial)')."""
    if not text or not text.strip():
        return Parsed(None, "empty output")
    found = _GRADE.search(text)
    if found is None:
        return Parsed(None, "no grade 0-3 in the output")
    return Parsed(float(found.group(1)))


_RATING = re.compile(r"(?<![0-9.])([0-5])(?![0-9])")


def parse_rating(text: str) -> Parsed:
    """A self-rating 0–5 (Rubric/EXAM): the first standalone digit 0–5, as in '4', '- 4: …', '4/5'."""
    if not text or not text.strip():
        return Parsed(None, "empty output")
    found = _RATING.search(text)
    if found is None:
        return Parsed(None, "no rating 0-5 in the output")
    return Parsed(float(found.group(1)))


ASSIGNMENT_VALUES = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0}
_ASSIGNMENT_NAMES = {value: name for name, value in ASSIGNMENT_VALUES.items()}


def assignments_from_grades(
    grades: Mapping[str, Mapping[str, Mapping[str, float]]],
) -> dict[str, dict[str, dict[str, str]]]:
    """Stored nugget-assign grades (1 / 0.5 / 0) back to their labels; ValueError for any other
    value (grades of another method)."""
    try:
        return {
            q: {d: {i: _ASSIGNMENT_NAMES[v] for i, v in per.items()} for d, per in docs.items()}
            for q, docs in grades.items()
        }
    except KeyError as error:
        raise ValueError(f"{error.args[0]!r} is not a nugget assignment grade") from None


def parse_assignments(text: str, count: int) -> list[Parsed]:
    """A Python list of `count` labels (support / partial_support / not_support), as the
    AutoNuggetizer assigner answers; the whole window fails when the list is not readable or
    not as long as the nugget list (a failure per nugget, never a silent not_support)."""
    import ast

    if not text or not text.strip():
        return [Parsed(None, "empty output")] * count
    start, end = text.find("["), text.find("]", text.find("[") + 1)
    if start < 0 or end < 0:
        return [Parsed(None, "no list of labels in the output")] * count
    try:
        values = ast.literal_eval(text[start : end + 1])
    except (ValueError, SyntaxError):
        return [Parsed(None, "the list of labels is not a Python list")] * count
    if not isinstance(values, list) or len(values) != count:
        got = len(values) if isinstance(values, list) else 0
        return [Parsed(None, f"expected {count} labels, got {got}")] * count
    parsed = []
    for value in values:
        key = str(value).strip().lower().replace(" ", "_").replace("-", "_")
        parsed.append(
            Parsed(ASSIGNMENT_VALUES[key]) if key in ASSIGNMENT_VALUES else Parsed(None, f"unknown label {value!r}")
        )
    return parsed


_LIST_LINE = re.compile(
    r"^\s*(?:[-*•]|\d+[.)]|(?:question|nugget|subtopic|q)\s*\d*\s*[:.)])\s*(.+?)\s*$", re.IGNORECASE
)


def parse_generated_items(text: str, key: str) -> list[str]:
    """Generated questions or nuggets: the JSON object's `key` list when there is one (also inside
    a ```json fence), else numbered fields such as `"nuggets_1": "…"` (small models write those),
    else numbered or bulleted lines. Empty when nothing readable is there."""
    import json

    for start in [m.start() for m in re.finditer(r"\{", text or "")]:
        end = text.find("}", start)
        while end != -1:
            try:
                value = json.loads(text[start : end + 1])
            except ValueError:
                end = text.find("}", end + 1)
                continue
            if isinstance(value, dict) and isinstance(value.get(key), list):
                return [str(v).strip() for v in value[key] if str(v).strip()]
            break
    singular = key.removesuffix("s")
    fields = re.findall(rf'"(?:{re.escape(key)}|{re.escape(singular)})_?\d+"\s*:\s*"([^"]+)"', text or "")
    if fields:
        return [value.strip() for value in fields if value.strip()]
    lines = [m.group(1).strip().strip('"') for m in map(_LIST_LINE.match, (text or "").splitlines()) if m]
    return [line for line in lines if line]


def parse_python_list(text: str) -> list[str] | None:
    """The first Python/JSON list of strings in the text (AutoNuggetizer answers), or None."""
    import ast

    start = (text or "").find("[")
    while start != -1:
        end = text.find("]", start)
        while end != -1:
            try:
                value = ast.literal_eval(text[start : end + 1])
            except (ValueError, SyntaxError):
                end = text.find("]", end + 1)
                continue
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                return [v.strip() for v in value if v.strip()]
            break
        start = text.find("[", start + 1)
    return None
