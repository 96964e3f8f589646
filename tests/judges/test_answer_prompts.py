"""The prompts of `studio judge --answers` are the studio's binary, UMBRELA and subtopic prompts
adapted to a response: the published words with *passage* read as *response*, the placeholders
unchanged (pinned like the other templates in prompt_pins.py; here: that the pin check catches an
adaptation that missed a word, and that each loads as its method's template)."""

from __future__ import annotations

import pytest
from judges.prompt_pins import ANSWER_SWAPS, BUNDLED, TEMPLATE_PARTS, bundled_text, load_pins, template_problems

from studio.judges.methods import get_method
from studio.services.answers.judging import ANSWER_PROMPTS


@pytest.mark.parametrize("relative", ["binary-answer/v1/user.txt", "umbrela-answer/v1/user.txt"])
def test_an_adaptation_that_missed_a_word_is_caught(relative: str) -> None:
    text = bundled_text(relative)
    assert template_problems(relative, text, load_pins()) == []
    missed = text.replace("Response:", "Passage:", 1)
    assert template_problems(relative, missed, load_pins()) != []
    changed = text.replace("response", "reply", 1)
    assert template_problems(relative, changed, load_pins()) != []


def test_the_subtopic_prompt_for_answers_is_the_studios_own_adapted() -> None:
    original = bundled_text("subtopic/v1/user.txt")
    adapted = original
    for published, bundled in ANSWER_SWAPS:
        adapted = adapted.replace(f"{published}:", f"{bundled}:").replace(f"the {published}", f"the {bundled}")
    assert bundled_text("subtopic-answer/v1/user.txt") == adapted
    assert "{passage}" in adapted and "passage " not in adapted.replace("{passage}", "")
    assert bundled_text("subtopic-answer/v1/system.txt") == bundled_text("subtopic/v1/system.txt")


@pytest.mark.parametrize(("method", "prompt"), [(m, p) for m, p in ANSWER_PROMPTS.items() if p is not None])
def test_each_adapted_prompt_loads_as_its_method(method: str, prompt: str) -> None:
    loaded = get_method(method, prompt)
    assert loaded.prompt.name.startswith(prompt)
    assert (BUNDLED / prompt / "v1" / "meta.json").is_file()
    assert any(key.startswith(f"{prompt}/") for key in TEMPLATE_PARTS) or prompt == "subtopic-answer"
