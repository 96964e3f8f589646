"""Self-consistency (`studio judge --samples K`): several answers per pair, their majority as the
label and their spread kept with it.

With a backend that reads the label distribution (the local llama.cpp backend scores every label
in one pass), the distribution is used instead of sampling: the call is the one of K = 1 (same
call key, same label: the most likely one) and the spread is the distribution's. Otherwise each
pair is asked K times at `temperature` (default 0.7) with the seeds seed, seed+1, … seed+K-1; the
seed and temperature are part of each call's key, so every sample is cached on its own and a
second run reproduces the same answers. The label is the samples' majority
(`metrics.ensembles.majority`: ties go to the grade nearest the samples' median, then the lower).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from studio.domain.errors import UsageError
from studio.domain.judging import JudgeConfig
from studio.judges.backend import Backend
from studio.judges.methods import Method
from studio.metrics import ensembles as combining
from studio.services.judging.units import Unit
from studio.store import Connection
from studio.store import ensembles as ensemble_store
from studio.store import labels as label_store

DEFAULT_TEMPERATURE = 0.7


class SelfConsistency:
    def __init__(self, config: JudgeConfig, method: Method, backend: Backend) -> None:
        self.samples = config.samples
        if self.samples < 1:
            raise UsageError("--samples is at least 1")
        if self.samples > 1 and (method.pairwise or method.item_kind is not None):
            raise UsageError("--samples works with methods that grade a pair (umbrela, binary, graded, …)")
        self.mode = "none" if self.samples == 1 else "label distribution" if backend.name == "llamacpp" else "samples"
        self.seed = config.seed
        self.temperature = config.temperature if config.temperature is not None else DEFAULT_TEMPERATURE
        self.votes: dict[tuple[str, str], list[float]] = {}
        self.answered: dict[tuple[str, str], int] = {}

    @property
    def sampling(self) -> bool:
        """Labels are written here (the samples' majority), not answer by answer."""
        return self.mode == "samples"

    def expand(self, units: list[Unit]) -> list[Unit]:
        """K copies of every unit when sampling, each with its own seed."""
        if not self.sampling:
            return units
        return [
            replace(unit, sample=s, request=replace(unit.request, seed=self.seed + s, temperature=self.temperature))
            for unit in units
            for s in range(self.samples)
        ]

    @staticmethod
    def params(params: dict[str, Any], unit: Unit) -> dict[str, Any]:
        """The call key's parameters of one unit: a sample's seed and temperature replace the backend's."""
        request = unit.request
        if request.seed is None:
            return params
        return params | {"seed": request.seed, "temperature": request.temperature}

    @property
    def reported(self) -> bool:
        """A judge summary names the samples and the mode (one answer per pair says nothing)."""
        return self.mode != "none"

    def record(
        self,
        tx: Connection,
        set_id: int,
        method: Method,
        unit: Unit,
        label: float | None,
        probs: dict[str, float] | None,
        *,
        source: str,
        batch: int,
    ) -> None:
        """One answer of `unit` has been stored: its pair's label and spread once all its samples
        are in (sampling), or the spread of its label distribution."""
        pair = (unit.qid, unit.docid)
        if self.mode == "label distribution" and label is not None and probs:
            known = {method.value_of(k): p for k, p in probs.items() if k in method.labels}
            if known and sum(known.values()) > 0:
                ensemble_store.set_spread(
                    tx, set_id, *pair, ensemble_store.SpreadRow(*combining.distribution_spread(known))
                )
            return
        if not self.sampling:
            return
        self.answered[pair] = self.answered.get(pair, 0) + 1
        if label is not None:
            self.votes.setdefault(pair, []).append(label)
        if self.answered[pair] < self.samples or not self.votes.get(pair):
            return
        votes = self.votes[pair]
        grade = combining.combine(votes, "majority")
        ensemble_store.set_spread(tx, set_id, *pair, ensemble_store.SpreadRow(*combining.spread(votes)))
        if label_store.current_grade(tx, set_id, *pair) != grade:
            label_store.append_label_event(tx, set_id, *pair, grade, origin="judge", source=source, batch_id=batch)
