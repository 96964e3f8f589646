"""Runs laid out as NIST distributes the TREC DL 2021 passage runs, generated with a fixed seed.

63 tab-separated files of ~50k rows (53 topics x 900-1000 docs each): qids of 6-7 digits as
DL21's, long MS MARCO v2 docids (`msmarco_passage_NN_NNNNNNNNN`), scores printed with many
decimals as rankers write them, one tag per file. Real files are not all tidy: some lack the
final newline and some end every line in a blank, and both must take the import's fast path.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SEED = 2021
RUNS = 63
TOPICS = 53
CANDIDATES_PER_TOPIC = 3000  # the docs a topic's runs draw from, so that runs overlap as real ones do


def _file_text(rng: np.random.Generator, qids: list[str], pools: list[list[str]], tag: str, style: int) -> str:
    """One run file: every topic's top 900-1000 of its pool, scores descending.

    `style` picks an untidiness shared by a few real files: 1 ends every line in a space,
    2 in a tab, 3 leaves off the file's final newline, anything else is tidy.
    """
    end = {1: " \n", 2: "\t\n"}.get(style, "\n")
    lines: list[str] = []
    for qid, pool in zip(qids, pools, strict=True):
        depth = int(rng.integers(900, 1001))
        chosen = rng.choice(len(pool), size=depth, replace=False)
        scores = np.sort(rng.normal(10.0, 3.0, depth))[::-1]
        lines.extend(
            f"{qid}\tQ0\t{pool[d]}\t{rank}\t{score!r}\t{tag}{end}"
            for rank, (d, score) in enumerate(zip(chosen.tolist(), scores.tolist(), strict=True), start=1)
        )
    text = "".join(lines)
    return text[:-1] if style == 3 else text


def generate_nist_runs(folder: Path, runs: int = RUNS, topics: int = TOPICS, seed: int = SEED) -> list[Path]:
    """Write the run files under `folder` (re-using them when already there); their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    tags = [f"dl21-run{r:02d}" for r in range(runs)]
    paths = [folder / f"{tag}.tsv" for tag in tags]
    if all(p.exists() for p in paths):
        return paths
    rng = np.random.default_rng(seed)
    qids = sorted({str(q) for q in rng.integers(100_000, 3_200_000, size=topics * 2).tolist()})[:topics]
    pools = [
        [f"msmarco_passage_{int(s):02d}_{int(o)}" for s, o in zip(shards, offsets, strict=True)]
        for shards, offsets in (
            (rng.integers(0, 70, CANDIDATES_PER_TOPIC), rng.integers(100_000, 999_999_999, CANDIDATES_PER_TOPIC))
            for _ in qids
        )
    ]
    for r, (path, tag) in enumerate(zip(paths, tags, strict=True)):
        partial = path.with_suffix(".partial")
        partial.write_text(_file_text(rng, qids, pools, tag, style=r % 10), encoding="utf-8")
        partial.replace(path)
    return paths
