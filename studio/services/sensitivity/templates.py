"""Prompt sensitivity: one judging method run with several prompt templates, each into its own
label set, and how much the labels depend on the wording (the thesis study of 24 human- and
LLM-written prompts, §4.3).

Per prompt: Cohen's κ against the reference (binary and graded); across prompts: the mean and
sample variance of κ, and Krippendorff's α between the prompts (each prompt a coder, each
judged pair a unit). Every call goes through the call cache, so adding a prompt to a study costs
only that prompt's calls.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np

from studio.domain.errors import UsageError
from studio.domain.judge_results import KappaSpread, SensitivityPrompt, SensitivityReport
from studio.domain.judging import JudgeConfig, JudgeProgress, JudgeSummary
from studio.judges.backend import Backend
from studio.judges.methods import get_method
from studio.judges.prompts import load_prompt
from studio.metrics.reliability import Level, krippendorff_alpha, spread
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.judging.backends import make_backend
from studio.services.judging.run import run_judge
from studio.services.meta.label_agreement import agreement


def expand_prompts(prompts: list[str]) -> list[str]:
    """Template names or paths; a folder that is not itself a template stands for the templates
    (sub-folders with user.txt, or .txt files) inside it, in name order."""
    found: list[str] = []
    for prompt in prompts:
        path = Path(prompt)
        if path.is_dir() and not (path / "user.txt").is_file():
            inside = sorted(p for p in path.iterdir() if (p / "user.txt").is_file() or p.suffix == ".txt")
            if not inside:
                raise UsageError(f"{prompt}: no prompt templates inside (folders with user.txt, or .txt files)")
            found.extend(str(p) for p in inside)
        else:
            found.append(prompt)
    if len(found) < 2:
        raise UsageError("prompt sensitivity needs at least two prompts")
    return found


def label_set_name(prefix: str, prompt: str) -> str:
    """`prefix-<prompt>`: the template's name, or the file's stem, made safe for a label set name."""
    path = Path(prompt)
    stem = path.stem if path.exists() else prompt.split("/")[0]
    return f"{prefix}-{re.sub(r'[^A-Za-z0-9_.-]+', '-', stem).strip('-')}"


def alpha_level(method: str) -> Level:
    """Binary answers are nominal; grades are ordered."""
    return "nominal" if method == "binary" else "ordinal"


def prompt_sensitivity(
    engine: EvaluationEngine,
    config: JudgeConfig,
    prompts: list[str],
    *,
    backend: Backend | None = None,
) -> Iterator[JudgeProgress | SensitivityReport]:
    """Judge the pool once per prompt (into `config.name`-<prompt>), then report the spread."""
    db = engine.db
    chosen = expand_prompts(prompts)
    names = [label_set_name(config.name, p) for p in chosen]
    if len(set(names)) != len(names):
        raise UsageError("two prompts would write the same label set; give them different names")
    for prompt in chosen:  # refuse a bad template before any call is made
        get_method(config.method, prompt)
    backend = backend or make_backend(db, config)
    summaries: list[JudgeSummary] = []
    for prompt, name in zip(chosen, names, strict=True):
        for event in run_judge(db, replace(config, prompt=prompt, name=name), backend=backend):
            if isinstance(event, JudgeSummary):
                summaries.append(event)
            else:
                yield event
        engine.forget_labels(name)
    backend.close()
    yield sensitivity_report(engine, config.method, config.ref, chosen, names, summaries)


def sensitivity_report(
    engine: EvaluationEngine, method: str, ref: str, prompts: list[str], names: list[str], summaries: list[JudgeSummary]
) -> SensitivityReport:
    """Each prompt's κ against `ref`, κ's spread over the prompts and α between them."""
    rows: list[SensitivityPrompt] = []
    for prompt, name, summary in zip(prompts, names, summaries, strict=True):
        labels = agreement(engine, ref, name)
        rows.append(
            {
                "prompt": load_prompt(prompt).name,
                "label_set": name,
                "prompt_hash": load_prompt(prompt).sha256[:12],
                "pairs": summary.pairs,
                "failures": summary.failures,
                "calls": summary.calls,
                "kappa_binary": labels["kappa_binary"],
                "kappa_graded": labels["kappa_graded"],
                "topics": labels["topics"],
            }
        )
    level = alpha_level(method)
    return {
        "method": method,
        "ref": ref,
        "prompts": rows,
        "kappa_binary": _spread([r["kappa_binary"] for r in rows]),
        "kappa_graded": _spread([r["kappa_graded"] for r in rows]),
        "krippendorff_alpha": _alpha_between(engine, names, level),
        "alpha_level": level,
    }


def _spread(values: list[float | None]) -> KappaSpread:
    """`spread` of the κ values, typed (the metric returns a plain dict)."""
    found = spread(values)
    return {"mean": found["mean"], "variance": found["variance"], "min": found["min"], "max": found["max"]}


def _alpha_between(engine: EvaluationEngine, names: list[str], level: Level) -> float | None:
    """α with each prompt's label set a coder and each (topic, document) a unit."""
    labels = [
        {(q, d): g for q, topic in engine.evaluator(n).labels.items() for d, g in topic.judged.items()} for n in names
    ]
    units = sorted(set().union(*labels))
    data = np.array([[coded.get(u, np.nan) for u in units] for coded in labels], dtype=np.float64)
    alpha = krippendorff_alpha(data, level) if units else float("nan")
    return None if np.isnan(alpha) else alpha
