"""Where to highlight a passage: the query's terms, and the spans that answer test-bank items.

Pure text work, so that the Review screen only turns spans into styles.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "does",
        "do",
        "for",
        "from",
        "how",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "the",
        "this",
        "that",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
    ]
)
_WORD = re.compile(r"\w+", re.UNICODE)

Span = tuple[int, int, str]  # (start, end, kind): kind "term" or "answer"


def query_terms(query: str) -> set[str]:
    """The query's content words, lower-cased (stopwords and one-letter words left out)."""
    return {w.lower() for w in _WORD.findall(query) if len(w) > 1 and w.lower() not in STOPWORDS}


def highlight_spans(text: str, query: str, answers: Iterable[str] = ()) -> list[Span]:
    """Non-overlapping spans, in text order: each occurrence of an answer phrase found verbatim
    (case-insensitive) in the text, and each word whose lower-cased form (or its stem before a
    plural 's') is a query term. Answer spans win over term spans they overlap."""
    spans: list[Span] = []
    lowered = text.lower()
    for answer in sorted({a.strip() for a in answers if len(a.strip()) >= 3}, key=len, reverse=True):
        start = lowered.find(answer.lower())
        while start != -1:
            end = start + len(answer)
            if not any(s < end and start < e for s, e, _ in spans):
                spans.append((start, end, "answer"))
            start = lowered.find(answer.lower(), end)
    terms = query_terms(query)
    for match in _WORD.finditer(text):
        word = match.group(0).lower()
        if word in terms or (word.endswith("s") and word[:-1] in terms):
            start, end = match.span()
            if not any(s < end and start < e for s, e, _ in spans):
                spans.append((start, end, "term"))
    return sorted(spans)
