"""Constrained answers through the openai backend, without a model: the request body of each
constraint mode, `none` leaving the body and the call key as they were, `auto` asking the server
once, JSON answers read by the methods' own parsers, and the label distribution found at the
label token of a constrained answer."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer, Fault
from helpers import cli

from studio import Project
from studio.domain.choices import ConstrainMode
from studio.domain.judging import JudgeConfig
from studio.judges.backend import ChatRequest, call_key
from studio.judges.constraints import CONSTRAIN_MODES, constraint_fields, gbnf_grammar, guided_regex, mode_for_server
from studio.judges.methods import get_method
from studio.judges.openai_backend import OpenAIBackend, label_probs
from studio.services.judging.config import last_config

LABELS = ("0", "1", "2", "3")
PREFIX = "##final score: "
ITEM_LABELS = ("support", "partial_support", "not_support")
PAIR = ChatRequest(
    (("system", "You judge."), ("user", "query: passage")), max_tokens=128, labels=LABELS, answer_prefix=PREFIX
)
WINDOW = ChatRequest(
    (("user", "assign the nuggets"),),
    max_tokens=200,
    item_labels=ITEM_LABELS,
    unit="window",
    subject=("1001", "d1", "n1", "n2", "n3"),
)
FREE = ChatRequest((("user", "write questions"),), max_tokens=300)
# The body every pair request had before answers could be constrained.
OLD_BODY = {
    "model": "m",
    "messages": [{"role": "system", "content": "You judge."}, {"role": "user", "content": "query: passage"}],
    "max_tokens": 128,
    "temperature": 0.0,
    "seed": 0,
    "logprobs": True,
    "top_logprobs": 20,
}


def backend(constrain: str, base_url: str = "http://127.0.0.1:9/v1") -> OpenAIBackend:
    return OpenAIBackend("m", base_url=base_url, constrain=constrain, max_retries=0)


def test_none_leaves_the_body_and_the_call_key_as_they_were() -> None:
    plain = backend("none")
    assert plain.body(PAIR) == OLD_BODY
    assert plain.params() == {"temperature": 0.0, "seed": 0}
    assert call_key("openai", "m", plain.params(), PAIR) == call_key(
        "openai", "m", {"temperature": 0.0, "seed": 0}, PAIR
    )
    assert plain.body(WINDOW) == {
        "model": "m",
        "messages": [{"role": "user", "content": "assign the nuggets"}],
        "max_tokens": 200,
        "temperature": 0.0,
        "seed": 0,
    }


@pytest.mark.parametrize("mode", ["grammar", "json-schema", "guided"])
def test_each_mode_is_part_of_the_call_key(mode: str) -> None:
    constrained = backend(mode)
    assert constrained.params() == {"temperature": 0.0, "seed": 0, "constrain": mode}
    keys = {call_key("openai", "m", b.params(), PAIR) for b in (constrained, backend("none"))}
    assert len(keys) == 2
    assert not {"grammar", "response_format", "guided_choice"} & set(constrained.body(FREE))  # free text stays free


def test_grammar_body_forces_the_prefix_and_one_label() -> None:
    body = backend("grammar").body(PAIR)
    assert body == OLD_BODY | {"grammar": 'root ::= "##final score: " ("0" | "1" | "2" | "3")', "repeat_penalty": 1.0}
    window = backend("grammar").body(WINDOW)
    assert window["grammar"] == (
        'root ::= "[" item ", " item ", " item "]"\n'
        'item ::= "\\"support\\"" | "\\"partial_support\\"" | "\\"not_support\\""'
    )


def test_grammars_are_valid_gbnf_whatever_the_prefix() -> None:
    """llama.cpp's own grammar parser accepts them (quotes, backslashes and newlines escaped)."""
    import studio.judges.llamacpp_backend  # noqa: F401  # OpenMP waits passively once llama.cpp loads

    llama_cpp = pytest.importorskip("llama_cpp")
    odd = ChatRequest((("user", "q"),), labels=('"yes"', "no\\"), answer_prefix='Answer "now":\n\t')
    for request in (PAIR, WINDOW, odd):
        grammar = gbnf_grammar(request)
        assert llama_cpp.LlamaGrammar.from_string(grammar, verbose=False) is not None, grammar


def test_json_schema_body_asks_for_one_label_or_one_per_item() -> None:
    body = backend("json-schema").body(PAIR)
    assert body == OLD_BODY | {
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "judgment",
                "strict": True,
                "schema": {
                    "type": "object",
                    "properties": {"label": {"type": "string", "enum": list(LABELS)}},
                    "required": ["label"],
                    "additionalProperties": False,
                },
            },
        }
    }
    schema = backend("json-schema").body(WINDOW)["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["labels"] == {
        "type": "array",
        "items": {"type": "string", "enum": list(ITEM_LABELS)},
        "minItems": 3,
        "maxItems": 3,
    }
    assert schema["required"] == ["labels"]


def test_guided_body_names_the_choices_for_old_and_new_vllm() -> None:
    body = backend("guided").body(PAIR)
    choices = [PREFIX + label for label in LABELS]
    assert body == OLD_BODY | {"structured_outputs": {"choice": choices}, "guided_choice": choices}
    window = backend("guided").body(WINDOW)
    assert window["guided_regex"] == window["structured_outputs"]["regex"] == guided_regex(WINDOW)
    pattern = re.compile(guided_regex(WINDOW))
    assert pattern.fullmatch('["support", "not_support", "partial_support"]')
    assert not pattern.fullmatch('["support", "not_support"]')
    assert not pattern.fullmatch('["support", "maybe", "support"]')
    prefixed = ChatRequest(
        (("user", "q"),), item_labels=("a.b",), unit="window", subject=("q", "d", "i"), answer_prefix="List (final): "
    )
    assert re.fullmatch(guided_regex(prefixed), 'List (final): ["a.b"]')
    assert not re.fullmatch(guided_regex(prefixed), 'List (final): ["axb"]')


def test_free_text_requests_are_never_constrained() -> None:
    for mode in ("grammar", "json-schema", "guided", "none"):
        assert constraint_fields(mode, FREE) == {}


def test_servers_are_recognised_by_their_model_list() -> None:
    def models(owner: str) -> dict[str, Any]:
        return {"object": "list", "data": [{"id": "x", "object": "model", "owned_by": owner}]}

    assert mode_for_server("127.0.0.1", models("me")) == "grammar"  # llama-cpp-python's server
    assert mode_for_server("127.0.0.1", models("llamacpp")) == "grammar"  # llama.cpp's llama-server
    assert mode_for_server("127.0.0.1", models("vllm")) == "guided"
    assert mode_for_server("127.0.0.1", models("library")) == "json-schema"  # Ollama
    assert mode_for_server("api.openai.com", None) == "json-schema"
    assert mode_for_server("127.0.0.1", models("someone")) == "none"
    assert mode_for_server("127.0.0.1", None) == "none"


@pytest.mark.server
@pytest.mark.parametrize(
    ("owner", "mode"), [("me", "grammar"), ("vllm", "guided"), ("library", "json-schema"), (None, "none")]
)
def test_auto_asks_the_server_once(owner: str | None, mode: str) -> None:
    with FakeOpenAIServer(owned_by=owner) as server:
        auto = backend("auto", server.base_url)
        params = auto.params()
        results = dict(auto.complete([PAIR, PAIR, WINDOW]))
        auto.close()
        assert server.model_lists == 1
        assert params == {"temperature": 0.0, "seed": 0} | ({} if mode == "none" else {"constrain": mode})
        assert all(r.error is None for r in results.values())
        # The requests go out concurrently: the pair's is the one carrying its messages.
        [sent, *_] = [r.body for r in server.requests if r.body["messages"] == OLD_BODY["messages"]]
        assert {k: v for k, v in sent.items() if k not in OLD_BODY} == constraint_fields(mode, PAIR)


def test_auto_knows_openai_by_its_host_without_asking() -> None:
    # Port 9 (discard) on loopback is never asked: the host alone decides.
    hosted = OpenAIBackend("gpt", base_url="https://api.openai.com/v1", constrain="auto")
    assert hosted.constraint() == "json-schema"


def test_the_command_line_offers_every_mode() -> None:
    assert tuple(ConstrainMode) == CONSTRAIN_MODES


def test_an_unknown_mode_is_refused() -> None:
    from studio.domain.errors import UsageError

    with pytest.raises(UsageError, match="unknown constraint"):
        backend("regex")


# -- reading constrained answers -------------------------------------------------------------------


def test_json_answers_are_read_by_the_methods_own_parsers() -> None:
    umbrela = get_method("umbrela")
    assert umbrela.parse('{"label": "2"}').label == 2.0
    assert umbrela.parse('{"label": "7"}').label is None  # never a silent 0
    assert umbrela.parse("##final score: 1").label == 1.0  # unconstrained text as before
    assert umbrela.parse('{"label": 2, "why": "x"}').label is None
    binary = get_method("binary")
    assert binary.parse('{"label": "No"}').label == 0.0
    assign = get_method("nugget-assign")
    assert assign.parse_window is not None
    parsed = assign.parse_window('{"labels": ["support", "not_support", "partial_support"]}', 3)
    assert [p.label for p in parsed] == [1.0, 0.0, 0.5]
    assert all(p.label is None for p in assign.parse_window('{"labels": ["support"]}', 3))


def _token(text: str, alternatives: dict[str, float]) -> dict[str, Any]:
    return {
        "token": text,
        "logprob": alternatives.get(text, 0.0),
        "top_logprobs": [{"token": t, "logprob": lp} for t, lp in alternatives.items()],
    }


def test_label_probs_of_a_json_answer() -> None:
    label = {"2": math.log(0.5), "3": math.log(0.3), "0": math.log(0.1), "x": math.log(0.1)}
    logprobs = {
        "content": [
            _token('{"', {}),
            _token("label", {}),
            _token('":', {}),
            _token(' "', {}),
            _token("2", label),
            _token('"}', {}),
        ]
    }
    probs = label_probs('{"label": "2"}', logprobs, PAIR)
    assert probs == pytest.approx({"0": 0.1 / 0.9, "1": 0.0, "2": 0.5 / 0.9, "3": 0.3 / 0.9})


def test_label_probs_before_or_after_the_constraint_are_the_same() -> None:
    """llama-cpp-python reports the model's own distribution (non-labels included), a server may
    report the constrained one (labels only); renormalised over the labels both agree. The label
    token may also carry the space before it."""
    raw = {" 2": math.log(0.4), " ": math.log(0.3), " 1": math.log(0.2), " 0": math.log(0.1)}
    constrained = {" 2": math.log(0.4 / 0.7), " 1": math.log(0.2 / 0.7), " 0": math.log(0.1 / 0.7)}
    text = "##final score: 2"
    for alternatives in (raw, constrained):
        logprobs = {
            "content": [
                _token("##", {}),
                _token("final", {}),
                _token(" score", {}),
                _token(":", {}),
                _token(" 2", alternatives),
            ]
        }
        assert label_probs(text, logprobs, PAIR) == pytest.approx({"0": 1 / 7, "1": 2 / 7, "2": 4 / 7, "3": 0.0})


# -- through `studio judge` and the judge runs ----------------------------------------------------


def json_answer(body: dict[str, Any]) -> Fault | None:
    """A schema-constrained answer with its log-probabilities, as an OpenAI-style server gives it."""
    if "response_format" not in body:
        return None
    label = {"2": math.log(0.6), "1": math.log(0.3), "3": math.log(0.1)}
    content = [_token('{"label": "', {}), _token("2", label), _token('"}', {})]
    choice = {
        "index": 0,
        "message": {"role": "assistant", "content": '{"label": "2"}'},
        "finish_reason": "stop",
        "logprobs": {"content": content},
    }
    return Fault(
        body={
            "id": "x",
            "object": "chat.completion",
            "choices": [choice],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3},
        }
    )


@pytest.mark.server
def test_studio_judge_with_a_json_schema_server(sample: Path) -> None:
    with FakeOpenAIServer(owned_by="library") as server:
        server.rule = json_answer
        outcome = cli(
            sample,
            "judge",
            "--backend",
            "openai",
            "--base-url",
            server.base_url,
            "--model",
            "fake",
            "--name",
            "schema",
            "--topic",
            "1001",
            "--limit",
            "3",
            "--format",
            "json",
        )
        assert outcome.exit_code == 0, outcome.stderr
        assert json.loads(outcome.stdout)["failures"] == 0
        assert all("response_format" in r.body for r in server.requests)
    with Project.open(sample) as project:
        rows = (
            project.db.cursor()
            .execute(
                "SELECT c.output, c.label_probs, j.label, j.expected, j.confidence, r.params FROM judgments j"
                " JOIN calls c ON c.key = j.call_key JOIN judge_runs r USING (judge_run_id)"
                " WHERE c.backend = 'openai'"
            )
            .fetchall()
        )
    assert len(rows) == 3
    for output, probs, label, expected, confidence, params in rows:
        assert output == '{"label": "2"}'  # the raw answer is what is stored
        assert json.loads(probs) == pytest.approx({"0": 0.0, "1": 0.3, "2": 0.6, "3": 0.1})
        assert (label, expected, confidence) == (2.0, pytest.approx(0.3 + 1.2 + 0.3), pytest.approx(0.6))
        assert json.loads(params)["constrain"] == "json-schema"
        assert json.loads(params)["config"]["constrain"] == "auto"


@pytest.mark.server
def test_studio_judge_constrain_none_sends_the_old_body(sample: Path) -> None:
    with FakeOpenAIServer(owned_by="me") as server:  # a grammar server, told not to constrain
        outcome = cli(
            sample,
            "judge",
            "--backend",
            "openai",
            "--base-url",
            server.base_url,
            "--model",
            "m",
            "--name",
            "plain",
            "--topic",
            "1001",
            "--limit",
            "2",
            "--constrain",
            "none",
        )
        assert outcome.exit_code == 0, outcome.stderr
        assert server.model_lists == 0
        bodies = [r.body for r in server.requests]
    assert len(bodies) == 2 and all(set(body) == set(OLD_BODY) for body in bodies)
    with Project.open(sample) as project:
        keys = [
            row[0] for row in project.db.cursor().execute("SELECT key FROM calls WHERE backend = 'openai'").fetchall()
        ]
        config = last_config(project.db, "plain")
    plain = backend("none")
    old_keys = {
        call_key(
            "openai",
            "m",
            {"temperature": 0.0, "seed": 0},
            ChatRequest(
                tuple((m["role"], m["content"]) for m in body["messages"]),
                max_tokens=128,
                labels=LABELS,
                answer_prefix=PREFIX,
            ),
        )
        for body in bodies
    }
    assert set(keys) == old_keys and plain.params() == {"temperature": 0.0, "seed": 0}
    assert config.constrain == "none"


def test_runs_saved_before_constraints_are_run_again_unconstrained(sample: Path) -> None:
    with Project.open(sample) as project:
        con = project.db.cursor()
        run = con.execute("SELECT max(judge_run_id) FROM judge_runs").fetchone()
        assert run is not None
        saved = {"method": "umbrela", "backend": "openai", "model": "m", "pool": "qrels:human"}
        con.execute("UPDATE judge_runs SET params = ? WHERE judge_run_id = ?", [json.dumps({"config": saved}), run[0]])
        name = con.execute(
            "SELECT s.name FROM judge_runs r JOIN label_sets s USING (label_set_id) WHERE judge_run_id = ?", [run[0]]
        ).fetchone()
        assert name is not None
        assert last_config(project.db, name[0]).constrain == "none"
    assert JudgeConfig(method="umbrela", backend="openai", name="new").constrain == "auto"
