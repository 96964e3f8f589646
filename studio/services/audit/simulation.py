"""`studio audit simulate`: how often estimates from audits of a given budget would cover the
leaderboard of a label set taken as the unseen truth, and how wide they would be. A design that is
not uniform (`topics-neyman`, `pairs-uncertainty`) is set beside the uniform one of the same unit
at the same budget and seed.

Every audit of a simulation is drawn before any is estimated, and all are estimated at once
(`ppi.estimate_totals` over the trials; `ppi_ratio_trials` for nDCG@k from pairs, whose
linearisation point differs from audit to audit): the figures are those of estimating each audit
on its own, to the last digits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from studio.domain.audit_designs import AuditSimulation, RunCoverage
from studio.domain.errors import UsageError
from studio.domain.specs import AuditSimulationSpec
from studio.metrics import ppi, ppi_ratio, ppi_ratio_trials
from studio.metrics.names import Measure
from studio.metrics.sampling import MIN_PER_STRATUM
from studio.services.audit import adaptive
from studio.services.audit.levels import at_level
from studio.services.audit.pairs import UNLABELLED, Pairs, pool_pairs, precision_units
from studio.services.audit.units import Units, estimate_design, labelled_qids, topic_units
from studio.services.evaluation.engine import EvaluationEngine, measure_of
from studio.services.meta.unreachable_levels import side_warnings

DESIGNS = ("topics", "pairs", adaptive.TOPICS_NEYMAN, adaptive.PAIRS_UNCERTAINTY)


@dataclass(frozen=True)
class SimulationRequest:
    """A simulation as asked, its options checked and resolved."""

    ref: str  # the label set taken as the unseen truth
    qrels: str  # the LLM label set whose pool is audited
    design: str  # one of DESIGNS
    budget: int  # units per audit
    trials: int
    measure: Measure
    llm_measure: Measure  # the measure at the LLM set's own relevance level
    seed: int
    level: float
    estimator: str  # one of ppi.ESTIMATORS
    pilot: str | None  # where the designs that are not uniform take their residuals and spreads
    ref_topics_only: bool  # pair designs too over the topics `ref` labels

    @property
    def unit(self) -> str:
        """The estimate's design: topics or pairs."""
        return estimate_design(self.design)


@dataclass(frozen=True)
class Population:
    """The units audits are drawn from: the topics (`topics`) or the pairs (`pairs`) of the truth."""

    count: int
    strata: np.ndarray | None  # (count,) 0: the LLM set labels the unit, 1: it does not
    runs: list[str]
    lacking: int  # units the LLM set has no label for
    truth: str  # what the truth is, in words
    topics: Units | None = None
    pairs: Pairs | None = None


class Draws(NamedTuple):
    """Every audit of a simulation: (trials × units) masks, each unit's π, the estimator's strata."""

    masks: np.ndarray
    pi: np.ndarray
    strata: np.ndarray | None
    note: str | None  # how a design that is not uniform drew its units (None: uniform)


def simulate(
    engine: EvaluationEngine,
    spec: AuditSimulationSpec,
    *,
    ref_topics_only: bool = False,
    beside_uniform: bool = True,
) -> AuditSimulation:
    """Draw `spec.trials` random audits of `spec.budget` units of the reference's pool (stratified:
    the units `spec.qrels` labels, and those it lacks), grade them with the reference, and report
    how often the intervals covered its values and how wide they were beside gold-only intervals of
    the same audits. `spec.pilot`: where `pairs-uncertainty` takes its calibration residuals (when
    `qrels` has no label distributions) and `topics-neyman` its strata's spreads (default: earlier
    audits of `qrels`). `ref_topics_only`: pair designs too are over the topics the reference
    labels, as topic designs are. `beside_uniform`: also simulate the uniform design of the same
    unit (when the design is not it)."""
    if spec.design not in DESIGNS:
        raise UsageError(f"unknown design {spec.design!r} (known: {', '.join(DESIGNS)})")
    if spec.trials < 1:
        raise UsageError("--trials must be at least 1")
    kind = spec.estimator or ppi.DEFAULT_ESTIMATOR
    if kind not in ppi.ESTIMATORS:
        raise UsageError(f"unknown estimator {kind!r} (known: {', '.join(ppi.ESTIMATORS)})")
    m = measure_of(spec.measure)
    request = SimulationRequest(
        spec.ref,
        spec.qrels,
        spec.design,
        spec.budget,
        spec.trials,
        m,
        at_level(m, spec.llm_relevant),
        spec.seed,
        spec.level,
        kind,
        spec.pilot,
        ref_topics_only,
    )
    return simulated(engine, request, beside_uniform=beside_uniform)


def simulated(
    engine: EvaluationEngine,
    request: SimulationRequest,
    *,
    beside_uniform: bool = True,
    population: Population | None = None,
) -> AuditSimulation:
    """The simulation `request` asks for: its population (unless given: the same unit's), draws,
    estimates and figures."""
    population = population or simulated_population(engine, request)
    if not 2 <= request.budget <= population.count:
        raise UsageError(
            f"--budget must lie between 2 and {population.count} ({request.design} of {request.ref}'s pool)"
        )
    draws = simulated_draws(engine, request, population)
    check_draws(request, draws)
    result = simulation_result(engine, request, population, simulated_coverage(request, population, draws))
    if draws.note is not None:  # a design that is not uniform
        result["draws"] = draws.note
        if beside_uniform:
            uniform = simulated(engine, replace(request, design=request.unit, pilot=None), population=population)
            result["uniform_coverage"] = uniform["coverage"]
            result["uniform_width"] = uniform["width"]
            result["width_vs_uniform"] = _ratio(result["width"], uniform["width"])
    return result


def simulated_population(engine: EvaluationEngine, request: SimulationRequest) -> Population:
    """The truth's units: topic designs over the topics `ref` labels; pair designs over every pair
    `ref` or `qrels` labels (a pair `ref` lacks: not relevant)."""
    ref, qrels, m = request.ref, request.qrels, request.measure
    if request.unit == "topics":
        # The truth is ref's mean over the topics it labels; those qrels lacks get no prediction.
        within = labelled_qids(engine.evaluator(ref))
        units = topic_units(engine, qrels, ref, m, within=within, llm_measure=request.llm_measure)
        lacking = int((units.strata == 1).sum()) if units.strata is not None else 0
        truth = f"{ref}'s mean {m} over the {len(units.keys)} topics {ref} labels"
        return Population(len(units.keys), units.strata, units.runs, lacking, truth, topics=units)
    pairs = pool_pairs(engine, qrels, ref, m, gold_is_pool=True, gold_topics_only=request.ref_topics_only)
    count = len(pairs.keys)
    truth = f"{m} under {ref}'s grades of the {count} pairs {ref} or {qrels} labels (a pair {ref} lacks: not relevant)"
    lacking = int((pairs.strata == UNLABELLED).sum())
    return Population(count, pairs.strata, pairs.runs, lacking, truth, pairs=pairs)


def simulated_draws(engine: EvaluationEngine, request: SimulationRequest, population: Population) -> Draws:
    """Every audit's units, drawn as the design draws them (the uniform designs: a simple random
    sample within each stratum, the budget shared in proportion to their sizes)."""
    count, strata = population.count, population.strata
    budget, trials, seed, pilot = request.budget, request.trials, request.seed, request.pilot
    if request.design == adaptive.TOPICS_NEYMAN and population.topics is not None:
        own = np.zeros(count, dtype=np.int64) if strata is None else strata
        keys = [str(key) for key in population.topics.keys]
        rng = np.random.default_rng(seed)
        found = adaptive.simulated_topic_draws(engine.db.cursor(), request.qrels, keys, own, budget, trials, rng, pilot)
        return Draws(found.masks, found.pi, found.strata, found.note)
    if request.design == adaptive.PAIRS_UNCERTAINTY and population.pairs is not None:
        pairs, rng = population.pairs, np.random.default_rng(seed)
        found = adaptive.simulated_pair_draws(
            engine.db.cursor(), request.qrels, pairs.keys, pairs.strata, budget, trials, rng, pilot
        )
        return Draws(found.masks, found.pi, found.strata, found.note)
    masks = ppi.draw_samples(count, budget, trials, seed, strata)
    return Draws(masks, ppi.inclusion(masks, strata), strata, None)


def check_draws(request: SimulationRequest, draws: Draws) -> None:
    """Refuse a budget too small for an interval: one that leaves some audit with a single unit of
    a stratum of several (its variance, and so every interval, would be no number), or fewer units
    than the strata (and the fitted λ) take degrees of freedom."""
    labels = np.zeros(draws.masks.shape[1], dtype=np.int64) if draws.strata is None else draws.strata
    names, sizes = np.unique(labels, return_counts=True)
    unit = "topics" if request.unit == "topics" else "pairs"
    floors = np.minimum(MIN_PER_STRATUM, sizes)
    for h, size, floor in zip(names, sizes, floors, strict=True):
        least = int(draws.masks[:, labels == h].sum(axis=1).min())
        if least < floor:
            raise UsageError(
                f"--budget {request.budget} is too small for {request.design} here: an audit draws {least} of a "
                f"stratum's {size} {unit}, and an interval needs {MIN_PER_STRATUM} of each stratum "
                f"(these {len(names)} strata take {int(floors.sum())})"
            )
    fitted = 1 if request.estimator == "ppi++" else 0
    if int(draws.masks.sum(axis=1).min()) < len(names) + fitted + 1:
        raise UsageError(
            f"--budget {request.budget} leaves the interval no degree of freedom: "
            f"{request.design} with --estimator {request.estimator} needs at least {len(names) + fitted + 1} {unit}"
        )


def simulated_coverage(request: SimulationRequest, population: Population, draws: Draws) -> ppi.Coverage:
    """How often every audit's intervals, and the gold sample's alone, held each run's true value."""
    pairs, topics = population.pairs, population.topics
    if pairs is not None and request.measure.name == "nDCG":
        truth = ppi_ratio.true_ndcg(pairs.pool, pairs.gold)[None, :]
        found = ppi_ratio_trials.estimate_ndcg_trials(
            draws.masks,
            pairs.pool,
            pairs.gold,
            pairs.llm,
            draws.pi,
            level=request.level,
            estimator=request.estimator,
            strata=draws.strata,
        )
        return replace(ppi.coverage(found.ours, found.gold, truth), lam=float(found.ours.lam.mean()))
    if pairs is not None:
        a, b = precision_units(pairs, request.measure.rel, request.llm_measure.rel)
    else:
        assert topics is not None
        a, b = topics.a, topics.b
    pseudo = ppi.PSEUDO_PAIR if pairs is not None else ppi.PSEUDO_TOPIC
    masks, pi, level, strata = draws.masks, draws.pi, request.level, draws.strata
    ours = ppi.estimate_totals(masks, a, b, pi, level=level, estimator=request.estimator, strata=strata, pseudo=pseudo)
    gold = ppi.estimate_totals(masks, a, None, pi, level=level, strata=strata)
    return replace(ppi.coverage(ours, gold, a.sum(axis=0)[None, :]), lam=float(ours.lam.mean()))


def simulation_result(
    engine: EvaluationEngine, request: SimulationRequest, population: Population, found: ppi.Coverage
) -> AuditSimulation:
    """The figures as `studio audit simulate` prints them (a figure that is not a number: None)."""
    m, llm_m = request.measure, request.llm_measure
    summary = found.summary()
    return AuditSimulation(
        ref=request.ref,
        qrels=request.qrels,
        measure=str(m),
        llm_measure=str(llm_m),
        design=request.design,
        budget=request.budget,
        units=population.count,
        units_qrels_lacks=population.lacking,
        trials=request.trials,
        seed=request.seed,
        level=request.level,
        estimator=request.estimator,
        truth=population.truth,
        warnings=side_warnings(engine, request.ref, request.qrels, m, llm_m),
        coverage=_number(summary["coverage"]),
        min_run_coverage=_number(summary["min_run_coverage"]),
        width=_number(summary["width"]),
        gold_coverage=_number(summary["gold_coverage"]),
        gold_width=_number(summary["gold_width"]),
        width_ratio=_number(summary["width_ratio"]),
        mean_lambda=_number(summary["mean_lambda"]),
        per_run=[
            RunCoverage(
                run=run,
                coverage=_number(float(found.coverage[r])),
                width=_number(float(found.width[r])),
                gold_width=_number(float(found.gold_width[r])),
            )
            for r, run in enumerate(population.runs)
        ],
    )


def _number(value: float) -> float | None:
    """A figure as JSON can hold it: NaN (a mean over nothing, a ratio to zero) is None."""
    return value if math.isfinite(value) else None


def _ratio(width: float | None, base: float | None) -> float | None:
    """`width` / `base`; None when either is unknown or `base` is 0."""
    return width / base if width is not None and base else None
