"""Significance tests over every pair of 63 runs × 53 topics (1,953 pairs), against ranx.

Prints one JSON object (budgets in docs/design.md#6-performance-budgets: paired t ≤ 0.1 s;
randomization with 10,000 resamples ≤ 2 s and faster than ranx's Fisher randomization on the same
data). The collection is synthetic (fixed seed): 53 topics, 100 ranked documents per run and topic,
graded qrels; both the studio and ranx evaluate nDCG@10 on it themselves.

* studio_t_s / studio_randomization_s / studio_bootstrap_s / studio_tukey_s: the test of every
  pair from the (runs × topics) per-topic matrix, Holm correction included — the significance
  part alone (the per-topic values are what the evaluation engine keeps in memory anyway);
* ranx_fisher_per_pair_s: ranx's Fisher randomization test (the numba function `compare` calls)
  on per-topic scores ranx computed beforehand — the significance part alone — timed on
  `--ranx-pairs` random pairs (about 50 ms a pair at 10,000 resamples: all 1,953 would take
  minutes per repetition); ranx_fisher_all_pairs_s is that times 1,953, ranx_significance_s
  times 3,906, as `compare` tests each pair in both orders (control, treatment);
* with --full-ranx, ranx_significance_s is ranx's `compute_statistical_significance` timed in
  full, and ranx_compare_s `ranx.compare(qrels, runs, ["ndcg@10"], stat_test="fisher", ...)`
  whole, whose timing includes computing the metric for every run.
Each figure is the median of `--repeat` runs; numba's compilation is done before timing.
Usage: python -m benchmarks.bench_significance [--resamples 10000] [--repeat 3] [--ranx-pairs 100] [--full-ranx]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable

import numpy as np

from studio.metrics import multiple_testing, significance
from studio.metrics.evaluator import Evaluator
from studio.metrics.names import parse_measure
from studio.metrics.rankings import rankings_from_lists, trec_order

RUNS, TOPICS, DEPTH, JUDGED = 63, 53, 100, 60


def timed(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


Scored = dict[str, dict[str, dict[str, float]]]  # {run: {qid: {docid: score}}}


def collection(seed: int = 24) -> tuple[dict[str, dict[str, int]], Scored]:
    """Graded qrels and runs of varied quality: a better run puts relevant documents higher."""
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    pools: dict[str, list[str]] = {}
    for t in range(TOPICS):
        qid = str(100 + t)
        pools[qid] = [f"d{t}-{k}" for k in range(2 * DEPTH)]
        qrels[qid] = {docid: rng.choice([0, 0, 0, 1, 2, 3]) for docid in rng.sample(pools[qid], JUDGED)}
    runs: Scored = {}
    for r in range(RUNS):
        skill = r / RUNS
        runs[f"run{r:02d}"] = {
            qid: {docid: qrels[qid].get(docid, 0) * skill + rng.random() for docid in rng.sample(pools[qid], DEPTH)}
            for qid in pools
        }
    return qrels, runs


def studio_values(qrels: dict[str, dict[str, int]], runs: Scored) -> np.ndarray:
    """(runs × topics) nDCG@10 as the studio's evaluator computes it (trec_eval-exact)."""
    lists = {name: {qid: trec_order(docs.items()) for qid, docs in run.items()} for name, run in runs.items()}
    labels = {qid: {d: float(g) for d, g in grades.items()} for qid, grades in qrels.items()}
    evaluator = Evaluator(rankings_from_lists(lists), labels)
    return np.ascontiguousarray(evaluator.per_topic(parse_measure("nDCG@10")).T)


def studio_test(values: np.ndarray, test: str, resamples: int) -> np.ndarray:
    found = significance.run_test(test, values, resamples=resamples, seed=0)
    return multiple_testing.adjust(found.p_value, "none" if test == "tukey" else "holm")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ranx-pairs", type=int, default=100, help="Pairs ranx's Fisher test is timed on.")
    parser.add_argument("--full-ranx", action="store_true", help="Also time ranx's whole step and compare (minutes).")
    args = parser.parse_args()

    from ranx import Qrels, Run, compare
    from ranx.meta.evaluate import evaluate
    from ranx.statistical_tests import compute_statistical_significance
    from ranx.statistical_tests.fisher_randomization_test import fisher_randomization_test

    qrels, runs = collection()
    values = studio_values(qrels, runs)
    result: dict[str, object] = {"runs": RUNS, "topics": TOPICS, "pairs": RUNS * (RUNS - 1) // 2}
    result["resamples"] = args.resamples
    for test in ("t", "randomization", "bootstrap", "tukey"):
        result[f"studio_{test}_s"] = timed(lambda t=test: studio_test(values, t, args.resamples), args.repeat)  # type: ignore[misc]

    ranx_qrels = Qrels(qrels)
    ranx_runs = [Run(run, name=name) for name, run in runs.items()]
    scores = {run.name: {"ndcg@10": evaluate(ranx_qrels, run, "ndcg@10", return_mean=False)} for run in ranx_runs}
    names = [str(run.name) for run in ranx_runs]
    first, second = scores[names[0]]["ndcg@10"], scores[names[1]]["ndcg@10"]
    fisher_randomization_test(first, second, 10, 0.05, 42)  # numba compiles here, not in the timing

    i, j = significance.run_pairs(len(names))
    sample = np.random.default_rng(0).choice(len(i), size=min(args.ranx_pairs, len(i)), replace=False)

    def ranx_sampled_pairs() -> None:
        for c in sample.tolist():
            a, b = scores[names[i[c]]]["ndcg@10"], scores[names[j[c]]]["ndcg@10"]
            fisher_randomization_test(a, b, args.resamples, 0.05, 42)

    per_pair = timed(ranx_sampled_pairs, args.repeat) / len(sample)
    result["ranx_pairs_timed"] = len(sample)
    result["ranx_fisher_per_pair_s"] = per_pair
    result["ranx_fisher_all_pairs_s"] = per_pair * len(i)  # each unordered pair once: extrapolated
    result["ranx_significance_s"] = per_pair * 2 * len(i)  # compare tests both orders: extrapolated
    if args.full_ranx:  # minutes: ranx's own significance step and compare, each once, in full
        result["ranx_significance_s"] = timed(
            lambda: compute_statistical_significance(names, scores, "fisher", args.resamples, 0.05, 42), 1
        )
        result["ranx_compare_s"] = timed(
            lambda: compare(ranx_qrels, ranx_runs, ["ndcg@10"], stat_test="fisher", n_permutations=args.resamples), 1
        )
    # The two evaluators agree on the values the tests see (ranx has no tie trap on distinct scores).
    ranx_values = np.array([scores[name]["ndcg@10"] for name in names])
    result["values_max_abs_difference"] = float(np.abs(ranx_values - values).max())
    result["t_within_budget"] = result["studio_t_s"] <= 0.1  # type: ignore[operator]
    result["randomization_within_budget"] = result["studio_randomization_s"] <= 2.0  # type: ignore[operator]
    result["randomization_vs_ranx_once_per_pair"] = (
        result["studio_randomization_s"] / result["ranx_fisher_all_pairs_s"]  # type: ignore[operator]
    )
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
