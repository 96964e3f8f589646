"""Judging throughput and overhead on the sample project, and API concurrency against a local server.

Prints one JSON object:
* `local`: judged pairs per second with the default GGUF (UMBRELA on the sample project's human
  pool, fresh project, no cache), the time llama.cpp itself spent in prompt evaluation and
  decoding (its own counters) and the overhead of everything else around it;
* `prefix_reuse`: the same prompts evaluated with and without re-using the KV cache over the
  shared prompt prefix;
* `cached`: the same judge run again (every pair a cache hit), pairs per second;
* `api`: requests per second against the local fake OpenAI-compatible server with 50 ms of
  latency per request, at concurrency 1 and 16;
* `answers`: the same as `local` for generated answers (`studio judge --answers`: UMBRELA adapted to
  a response on the sample's 30 answers, and preferences against a drawn Best passage in both
  orders), answers per second and the overhead over llama.cpp's own time per answer.
Usage: python -m benchmarks.bench_judge [--pairs 40]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from studio import Project
from studio.domain.judging import JudgeConfig, JudgeSummary
from studio.judges.backend import ChatRequest
from studio.judges.llamacpp_backend import LlamaCppBackend
from studio.judges.methods import get_method
from studio.judges.openai_backend import OpenAIBackend
from studio.services.judging.pools import pool_pairs
from studio.services.judging.run import run_judge
from studio.services.judging.units import build_units

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fake_openai_server import FakeOpenAIServer


def judge_once(project, config: JudgeConfig, backend) -> JudgeSummary:  # type: ignore[no-untyped-def]
    summary = None
    for event in run_judge(project.db, config, backend=backend):
        summary = event
    assert isinstance(summary, JudgeSummary)
    return summary


def local(folder: Path, pairs: int) -> dict[str, object]:
    project = Project.sample(folder / "bench.duckdb", rebuild=True)
    config = JudgeConfig(method="umbrela", backend="llamacpp", name="bench", limit=pairs)
    backend = LlamaCppBackend()
    engine_before = backend.engine_seconds()
    start = time.perf_counter()
    first = judge_once(project, config, backend)
    wall = time.perf_counter() - start
    engine = backend.engine_seconds() - engine_before
    start = time.perf_counter()
    again = judge_once(project, config, backend)
    cached_wall = time.perf_counter() - start

    requests: list[ChatRequest] = [
        u.request for u in build_units(project.db, get_method("umbrela"), pool_pairs(project.db, config), 0)[0]
    ]
    timings = {}
    for reuse in (True, False):
        fresh = LlamaCppBackend(reuse_prefix=reuse)
        start = time.perf_counter()
        for _ in fresh.complete(requests):
            pass
        timings[reuse] = time.perf_counter() - start
        fresh.close()
    backend.close()
    project.close()
    return {
        "local": {
            "model": backend.model,
            "pairs": first.pairs,
            "calls": first.calls,
            "seconds": round(wall, 3),
            "pairs_per_second": round(first.pairs / wall, 2),
            "llama_cpp_seconds": round(engine, 3),
            "overhead_ratio": round(wall / engine - 1, 3),
            "prompt_tokens": first.prompt_tokens,
            "failures": first.failures,
        },
        "prefix_reuse": {
            "with_reuse_seconds": round(timings[True], 3),
            "without_reuse_seconds": round(timings[False], 3),
            "speedup": round(timings[False] / timings[True], 2),
        },
        "cached": {
            "calls": again.calls,
            "cache_hits": again.cache_hits,
            "pairs_per_second": round(again.pairs / cached_wall, 1),
        },
    }


def judge_answers(project: Project, config: JudgeConfig, backend: LlamaCppBackend) -> JudgeSummary:
    found = [e for e in project.judge(config, backend=backend) if isinstance(e, JudgeSummary)]
    return found[-1]


def answers(folder: Path) -> dict[str, object]:
    """Judging overhead per answer, as `local` measures it per passage, for two answer methods."""
    project = Project.sample(folder / "answers.duckdb", rebuild=True)
    backend = LlamaCppBackend()
    figures: dict[str, object] = {"model": backend.model}
    for method in ("umbrela", "pairwise"):
        config = JudgeConfig(method=method, backend="llamacpp", name=f"bench-answers-{method}", answers=True)
        engine_before = backend.engine_seconds()
        start = time.perf_counter()
        summary = judge_answers(project, config, backend)
        wall = time.perf_counter() - start
        engine = backend.engine_seconds() - engine_before
        start = time.perf_counter()
        again = judge_answers(project, config, backend)
        cached_wall = time.perf_counter() - start
        figures[method] = {
            "answers": summary.pairs,
            "calls": summary.calls,
            "seconds": round(wall, 3),
            "answers_per_second": round(summary.pairs / wall, 2),
            "llama_cpp_seconds": round(engine, 3),
            "overhead_ratio": round(wall / engine - 1, 3),
            "overhead_seconds_per_answer": round((wall - engine) / summary.pairs, 4),
            "cached_calls": again.calls,
            "cached_answers_per_second": round(again.pairs / cached_wall, 1),
            "failures": summary.failures,
        }
    backend.close()
    project.close()
    return figures


def api(requests_count: int = 64, latency: float = 0.05) -> dict[str, object]:
    results = {}
    with FakeOpenAIServer(latency=latency) as server:
        for concurrency in (1, 16):
            backend = OpenAIBackend(
                "fake", base_url=server.base_url, concurrency=concurrency, api_key_env="STUDIO_BENCH_KEY"
            )
            requests = [
                ChatRequest(
                    (("user", f"question {concurrency}-{i}"),),
                    labels=("0", "1", "2", "3"),
                    answer_prefix="##final score: ",
                )
                for i in range(requests_count)
            ]
            start = time.perf_counter()
            done = sum(1 for _, result in backend.complete(requests) if result.text is not None)
            seconds = time.perf_counter() - start
            backend.close()
            results[f"concurrency_{concurrency}"] = {
                "requests": done,
                "seconds": round(seconds, 3),
                "requests_per_second": round(done / seconds, 1),
            }
    results["speedup"] = round(
        results["concurrency_16"]["requests_per_second"]  # type: ignore[index]
        / results["concurrency_1"]["requests_per_second"],
        1,
    )  # type: ignore[index]
    results["latency_per_request_seconds"] = latency
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        figures = local(Path(scratch), args.pairs)
        figures["answers"] = answers(Path(scratch))
    figures["api"] = api()
    print(json.dumps({"benchmark": "judging", **figures}, indent=2))


if __name__ == "__main__":
    main()
