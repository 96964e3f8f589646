"""Constrained answers on OpenAI-compatible servers: the request fields that make a server answer
in a method's format, and which of them a server understands.

A label-space request is answered with `answer_prefix` + one of `labels`; a window request with a
list of one item label per item. Servers spell the constraint differently:

* `json-schema`: OpenAI's `response_format` {"type": "json_schema"} (OpenAI, Ollama, SGLang,
  vLLM, llama.cpp's llama-server). The answer is {"label": L} or {"labels": [L, …]};
  parsing.structured_answer turns it back into the method's text before the method parses it.
* `grammar`: a GBNF `grammar` (llama.cpp's llama-server, llama-cpp-python's server). The answer is
  the method's own text.
* `guided`: vLLM's `structured_outputs` (choice / regex), sent together with `guided_choice` /
  `guided_regex`, which vLLM read before 0.12; each version ignores the other's field.
* `none`: no constraint: the request body, and so the call key, of before.

`auto` is resolved once per backend from the server's model list (`mode_for_server`).
"""

from __future__ import annotations

import re
from typing import Any

from studio.judges.backend import ChatRequest

CONSTRAIN_MODES = ("auto", "json-schema", "grammar", "guided", "none")
# owned_by of /v1/models: llama-cpp-python's server says "me", llama.cpp's llama-server "llamacpp".
_GRAMMAR_OWNERS = {"me", "llamacpp"}
_GUIDED_OWNERS = {"vllm"}
# Ollama lists its library's models as owned by "library"; SGLang says "sglang".
_SCHEMA_OWNERS = {"library", "sglang"}
_SCHEMA_HOSTS = {"api.openai.com"}
_REGEX_SPECIAL = re.compile(r"([\\^$.|?*+()\[\]{}])")
_JSON_LABEL = re.compile(r'"label"\s*:\s*"')


def window_size(request: ChatRequest) -> int:
    """How many item labels a window request's answer lists (its subject is qid, docid, *items)."""
    return max(0, len(request.subject) - 2) if request.item_labels and request.unit == "window" else 0


def constraint_fields(mode: str, request: ChatRequest) -> dict[str, Any]:
    """The body fields that constrain `request`'s answer under `mode` (none for free-text requests)."""
    if mode == "none" or not (request.labels or window_size(request)):
        return {}
    if mode == "grammar":
        # llama-cpp-python's server penalises repeated tokens by default (1.1): the greedy label
        # would then not be the most probable one its log-probabilities report, and a window's
        # list would be pushed away from repeating a label. llama.cpp's own default is 1.0.
        return {"grammar": gbnf_grammar(request), "repeat_penalty": 1.0}
    if mode == "json-schema":
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "judgment", "strict": True, "schema": json_schema(request)},
            }
        }
    if mode == "guided":
        if request.labels:
            choices = [request.answer_prefix + label for label in request.labels]
            return {"structured_outputs": {"choice": choices}, "guided_choice": choices}
        pattern = guided_regex(request)
        return {"structured_outputs": {"regex": pattern}, "guided_regex": pattern}
    raise ValueError(f"unknown constraint mode {mode!r}")


def _gbnf_literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return '"' + escaped.replace("\t", "\\t") + '"'


def gbnf_grammar(request: ChatRequest) -> str:
    """`answer_prefix` + one label, or `answer_prefix` + ["l1", "l2", …] with one label per item."""
    prefix = _gbnf_literal(request.answer_prefix) + " " if request.answer_prefix else ""
    if request.labels:
        return f"root ::= {prefix}({' | '.join(_gbnf_literal(label) for label in request.labels)})"
    items = ' ", " '.join(["item"] * window_size(request))
    alternatives = " | ".join(_gbnf_literal(f'"{label}"') for label in request.item_labels)
    return f'root ::= {prefix}"[" {items} "]"\nitem ::= {alternatives}'


def json_schema(request: ChatRequest) -> dict[str, Any]:
    """{"label": one of the labels}, or {"labels": one item label per item}."""
    if request.labels:
        properties: dict[str, Any] = {"label": {"type": "string", "enum": list(request.labels)}}
    else:
        count = window_size(request)
        properties = {
            "labels": {
                "type": "array",
                "items": {"type": "string", "enum": list(request.item_labels)},
                "minItems": count,
                "maxItems": count,
            }
        }
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def guided_regex(request: ChatRequest) -> str:
    """A window's answer as a regular expression: the prefix, then ["l1", "l2", …]."""
    item = '"(' + "|".join(_REGEX_SPECIAL.sub(r"\\\1", label) for label in request.item_labels) + ')"'
    return _REGEX_SPECIAL.sub(r"\\\1", request.answer_prefix) + r"\[" + ", ".join([item] * window_size(request)) + r"\]"


def mode_for_server(host: str, models: Any) -> str:
    """The constraint a server understands, from its host and its /v1/models answer; `none` when
    the server is not recognised (its answers and call keys then stay as they were)."""
    if host in _SCHEMA_HOSTS:
        return "json-schema"
    data = models.get("data") if isinstance(models, dict) else None
    owners = {str(entry.get("owned_by", "")).lower() for entry in data or [] if isinstance(entry, dict)}
    if owners & _GRAMMAR_OWNERS:
        return "grammar"
    if owners & _GUIDED_OWNERS:
        return "guided"
    if owners & _SCHEMA_OWNERS:
        return "json-schema"
    return "none"


def label_position(text: str, request: ChatRequest) -> int | None:
    """Where the label starts in an answer: the value of a JSON answer's "label", else the first
    non-space character after the (last) answer prefix; None when neither is found."""
    found = _JSON_LABEL.search(text) if text.lstrip().startswith("{") else None
    if found:
        return found.end()
    at = text.lower().rfind(request.answer_prefix.lower()) if request.answer_prefix else 0
    if at < 0:
        return None
    at += len(request.answer_prefix)
    while at < len(text) and text[at].isspace():
        at += 1
    return at
