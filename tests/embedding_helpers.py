"""Helpers of the embedding tests: embedders that count what they encode, and the sample data
read straight from its files (the expectations, independent of the studio)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from studio.judges.embedder import TextEmbedder

REPO = Path(__file__).resolve().parents[1]
SAMPLE_DATA = REPO / "sample_data"


class CountingEmbedder:
    """Wraps an embedder and keeps every text it was asked to encode."""

    def __init__(self, inner: TextEmbedder) -> None:
        self.inner = inner
        self.encoded: list[str] = []
        self.calls = 0

    @property
    def name(self) -> str:
        return self.inner.name

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.encoded.extend(texts)
        return self.inner.encode(texts)


class HashEmbedder:
    """A fast stand-in model: a unit vector drawn from a seed derived from the text."""

    def __init__(self, name: str = "hash-8", dims: int = 8) -> None:
        self.name = name
        self.dims = dims

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(f"{self.name}:{text}".encode()).digest()[:8], "little")
            row = np.random.default_rng(seed).normal(size=self.dims)
            rows.append(row / np.linalg.norm(row))
        return np.array(rows, dtype=np.float32).reshape(len(texts), self.dims)


class LookupEmbedder:
    """Vectors computed beforehand, looked up by text: fills a project's cache without the model."""

    def __init__(self, name: str, vectors: dict[str, np.ndarray]) -> None:
        self.name = name
        self.vectors = vectors

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.vectors[text] for text in texts])


def document_texts() -> dict[str, str]:
    """docid -> the text the studio embeds (title, newline, text), from sample_data/documents.jsonl."""
    texts = {}
    for line in (SAMPLE_DATA / "documents.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        texts[record["docid"]] = f"{record['title']}\n{record['text']}" if record.get("title") else record["text"]
    return texts


def human_qrels() -> dict[str, dict[str, float]]:
    """{qid: {docid: grade}} of sample_data/qrels/human.txt."""
    grades: dict[str, dict[str, float]] = {}
    for line in (SAMPLE_DATA / "qrels" / "human.txt").read_text().splitlines():
        if line.strip():
            qid, _, docid, grade = line.split()
            grades.setdefault(qid, {})[docid] = float(grade)
    return grades


def run_top(run: str, k: int) -> dict[str, list[str]]:
    """{qid: the run's top k docids} from sample_data/runs/RUN.txt in trec_eval's order: score
    (as a C float) descending, ties by docid in descending byte order."""
    by_topic: dict[str, list[tuple[str, float]]] = {}
    for line in (SAMPLE_DATA / "runs" / f"{run}.txt").read_text().splitlines():
        if line.strip():
            qid, _, docid, _, score, _ = line.split()
            by_topic.setdefault(qid, []).append((docid, float(np.float32(score))))
    top = {}
    for qid, ranked in by_topic.items():
        ranked.sort(key=lambda ds: (ds[1], ds[0].encode()), reverse=True)
        top[qid] = [docid for docid, _ in ranked[:k]]
    return top


def run_names() -> list[str]:
    return sorted(path.stem for path in (SAMPLE_DATA / "runs").glob("*.txt"))


def write_qrels(path: Path, grades: dict[str, dict[str, float]]) -> Path:
    path.write_text("".join(f"{q} 0 {d} {g:g}\n" for q, docs in grades.items() for d, g in docs.items()))
    return path
