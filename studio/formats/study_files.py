"""A prompt study's judgment files: their names, read by a pattern the user gives, and their grades,
checked against the method's scale.

The published study names its files `MODEL_METHOD_COLLECTION_PROMPT.txt` in folders
`Judgements/MODEL/METHOD/` (e.g. `gpt-4o_binary_dl20_0.txt`); a pattern such as
`{model}_{method}_{collection}_{prompt}.txt` names the parts. A part matches any text without a
`/` (as little as it can), `{method}` only `binary`, `graded` or `pairwise`, and `*` any text
without a `/`; a pattern holding a `/` is matched against the path below the folder, else against
the file's name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from studio.domain.errors import UsageError
from studio.domain.prompt_study import STUDY_METHODS
from studio.formats.text_input import Text
from studio.formats.trec import trec_lines

PARTS = ("prompt", "model", "method", "collection")
# The grades each pointwise method's prompts ask for (the study's: 0/1, and 0–3 as TREC DL).
SCALES = {"binary": frozenset({0.0, 1.0}), "graded": frozenset({0.0, 1.0, 2.0, 3.0})}
_PART = re.compile(r"\{([A-Za-z_]+)\}")


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """A file-name pattern as a regular expression with one named group per part it names."""
    regex, named, at = "", set(), 0
    for found in _PART.finditer(pattern):
        name = found.group(1)
        if name not in PARTS:
            raise UsageError(
                f"--pattern names {{{name}}}; the parts are {{prompt}}, {{model}}, {{method}}, {{collection}}"
            )
        if name in named:
            raise UsageError(f"--pattern names {{{name}}} twice")
        named.add(name)
        regex += _literal(pattern[at : found.start()])
        regex += f"(?P<{name}>{'|'.join(STUDY_METHODS)})" if name == "method" else f"(?P<{name}>[^/]+?)"
        at = found.end()
    regex += _literal(pattern[at:])
    if "prompt" not in named:
        raise UsageError("--pattern must name {prompt}, e.g. '{model}_{method}_{collection}_{prompt}.txt'")
    return re.compile(regex)


def _literal(text: str) -> str:
    return re.escape(text).replace(r"\*", "[^/]*")


def parts_of(pattern: re.Pattern[str], subject: str) -> dict[str, str] | None:
    """The parts a file's name (or path) gives, or None when it does not match."""
    found = pattern.fullmatch(subject)
    return None if found is None else {k: v for k, v in found.groupdict().items() if v is not None}


def off_scale_lines(text: Text, method: str) -> Iterator[tuple[int, str]]:
    """(line, grade) of every qrels line whose grade is outside `method`'s scale."""
    scale = SCALES[method]
    for number, fields in trec_lines(text):
        if len(fields) >= 4:
            try:
                grade = float(fields[3])
            except ValueError:
                yield number, fields[3]
                continue
            if grade not in scale:
                yield number, fields[3]


def scale_text(method: str) -> str:
    grades = sorted(SCALES[method])
    return f"{grades[0]:g}–{grades[-1]:g}"
