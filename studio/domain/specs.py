"""What a command with many options asks for, as one frozen value: the command line builds it from
its options, the `Project` facade passes it on, and the service reads it. A new option is one field
here, not a keyword written out again in every layer.

Each spec holds the request as given (names and plain values); the service checks and resolves it
(a measure's name parsed, an estimator's default chosen) and refuses what cannot be done with a
usage error naming the option.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from studio.domain.frames import EVERY_TOPIC, TopicChoice


@dataclass(frozen=True)
class AuditSimulationSpec:
    """`studio audit simulate`: `trials` random audits of `budget` units of `qrels`'s pool, `ref`
    taken as the unseen truth."""

    ref: str  # the label set taken as the unseen truth
    qrels: str  # the LLM label set whose pool is audited
    budget: int  # units per audit: topics or pairs
    design: str = "topics"  # topics | pairs | topics-neyman | pairs-uncertainty
    trials: int = 1000
    measure: str = "nDCG@10"
    seed: int = 0
    level: float = 0.95  # the intervals' nominal coverage
    estimator: str | None = None  # cross-fit | ppi | ppi++ | gold (None: the default, cross-fit)
    llm_relevant: float | None = None  # qrels' own lowest relevant grade for binary measures (None: the measure's)
    pilot: str | None = None  # where the designs that are not uniform take their residuals and spreads


@dataclass(frozen=True)
class AuditDrawSpec:
    """`studio audit plan --name N --budget B`: a sample of `qrels`'s pool, its gold label set `name`."""

    qrels: str  # the LLM label set whose pool is sampled
    name: str  # the audit's name, and its gold label set's
    budget: int  # units to draw: topics (topic designs) or pairs
    design: str = "pairs"  # topics | pairs | stratified | pairs-uncertainty | topics-neyman
    strata: str | None = None  # grade | confidence | topic (stratified)
    seed: int = 0  # of the draw and of the order it is walked in
    pilot: str | None = None  # a human label set to take S_h from (default: earlier audits of qrels)


@dataclass(frozen=True)
class EstimateSpec:
    """`studio estimate`: each run's measure under full human labels, from the LLM label set `qrels`
    (every unit) and the gold sample `gold`."""

    qrels: str
    gold: str
    measure: str = "nDCG@10"
    design: str = "topics"  # topics (any measure) | pairs (P@k and nDCG@k over judged pairs)
    level: float = 0.95  # the intervals' coverage
    estimator: str | None = None  # cross-fit | ppi | ppi++ | gold (None: the default, cross-fit)
    llm_relevant: float | None = None  # qrels' own lowest relevant grade for binary measures (None: the measure's)


@dataclass(frozen=True)
class DecisionTest:
    """`studio estimate --decisions`: how the run pairs' differences are tested, and (with `ref`) the
    full reference label set whose own decisions check them."""

    correction: str = "holm"  # holm | bh | bonferroni | none
    alpha: float = 0.05
    ref: str | None = None


@dataclass(frozen=True)
class AgreementSpec:
    """`studio agree`: label agreement of `qrels` with the reference `ref` on the pairs both label."""

    ref: str
    qrels: str
    topics: TopicChoice = EVERY_TOPIC
    ref_threshold: float | None = None  # the reference relevant at grade ≥ this (None: 2 on 0–3, 1 on 0/1)
    threshold: float | None = None  # qrels relevant at grade ≥ this, its own level (None: as ref_threshold)
    relevant: float = 1.0  # the lowest reference grade that is Acceptable (alignment)
    clip: bool = False  # qrels' grades outside the reference's scale clipped into it


@dataclass(frozen=True)
class ComparisonSpec:
    """`studio compare`: every label set of `qrels` against the reference `ref`, with bootstrap
    intervals over topics."""

    ref: str
    qrels: Sequence[str]  # kept as a tuple
    measure: str = "nDCG@10"
    topics: TopicChoice = EVERY_TOPIC
    resamples: int = 1000
    seed: int = 0
    clip: bool = False  # grades outside the reference's scale clipped into it

    def __post_init__(self) -> None:
        object.__setattr__(self, "qrels", tuple(self.qrels))  # frozen all the way down


@dataclass(frozen=True)
class CalibrationSpec:
    """`studio calibrate`: the LLM label set `qrels` mapped to `gold`'s grades, as label set `name`."""

    qrels: str
    gold: str
    name: str
    method: str = "isotonic"  # isotonic | ordinal
    folds: int = 5  # cross-fitting folds, by topic
    seed: int = 0  # of the topics' split into folds
    measure: str = "nDCG@10"  # of the τ beside κ
    replace: bool = False  # calibrate an existing calibrated set again
