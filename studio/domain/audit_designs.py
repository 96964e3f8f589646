"""What the audit commands answer about designs before any sample is drawn: the sample each design
needs for an interval of a given width (`studio audit plan --target-width`), simulated audits of a
budget (`studio audit simulate`) and the design a budget calls for (`studio audit plan --budget`).

TypedDicts, as in `rows.py`: plain dicts at run time, so the JSON the commands print is them as they
are (key order included: the order the services build them in, which is the order declared here).
A figure that is not a number (a mean over nothing, a ratio to zero) is None: JSON has no NaN.
"""

# No `from __future__ import annotations`: TypedDict must see NotRequired[...] itself.
from typing import NotRequired, TypedDict

# -- sample sizes for a target width -----------------------------------------------------------------


class DesignSize(TypedDict):
    """The sample one design needs for the target width."""

    design: str  # topics, pairs, stratified (by what), topics-neyman or pairs-uncertainty
    unit: str  # topic or pair
    population: int  # units of the pool
    pilot_units: int  # units the pilot grades
    sd: float | None  # the spread the size follows from (None: several, one per stratum)
    needed: int | None  # units (None: the pilot grades fewer than two topics)
    needed_pairs: int | None  # pairs to grade (a topic's: its share of the pool's pairs, on average)
    quantity: str  # what the interval is of
    assessor_hours: float | None  # needed_pairs at the project's seconds per decision


class StratumAllocation(TypedDict):
    """A stratum of the stratified design: Neyman's allocation beside the proportional one."""

    stratum: str
    pairs: int  # the stratum's pairs in the pool (N_h)
    pilot_pairs: int  # of them, pairs the pilot grades
    sd: float  # S_h (the pilot's overall S for a stratum it grades fewer than two pairs of)
    neyman: int
    proportional: int
    sample: str  # more, fewer or same: what Neyman's allocation draws beside the proportional one


class TopicStratumSize(TypedDict):
    """A stratum of the `topics-neyman` design: topics by their count of LLM-relevant pairs."""

    stratum: str
    topics: int
    pilot_topics: int  # of them, topics the pilot grades
    sd: float  # S_h: the largest over runs


class BudgetPlan(TypedDict):
    """The sample each design needs for a 95% interval `target_width` wide, from a pilot."""

    qrels: str
    pilot: str
    target_width: float
    measure: str
    confidence: float
    designs: list[DesignSize]
    strata_by: str  # grade, confidence or topic
    strata: list[StratumAllocation]
    topic_strata: list[TopicStratumSize]  # empty when the pilot grades fewer than two topics
    uncertainty_from: str  # where `pairs-uncertainty`'s predicted errors come from
    seconds_per_decision: float  # behind assessor_hours
    seconds_from: str  # where the seconds come from: the project's timed grades, or a stated default


# -- simulated audits --------------------------------------------------------------------------------


class RunCoverage(TypedDict):
    run: str
    # None: not a number (the audits gave the run no interval)
    coverage: float | None  # share of the trials whose interval held the run's true value
    width: float | None  # mean interval width
    gold_width: float | None  # mean width of the gold-only interval of the same audits


class AuditSimulation(TypedDict):
    """How often `studio estimate`'s intervals from random audits of a budget cover the truth."""

    ref: str  # the label set taken as the unseen truth
    qrels: str
    measure: str
    llm_measure: str  # the measure at the LLM set's own relevance level
    design: str
    budget: int  # units per audit
    units: int  # units of the population
    units_qrels_lacks: int  # of them, units the LLM set has no label for
    trials: int
    seed: int
    level: float  # nominal coverage
    estimator: str
    truth: str  # what the truth is, in words
    warnings: list[str]  # a label set whose grades never reach the measure's level
    # Over runs (None: not a number):
    coverage: float | None  # mean share of covering intervals
    min_run_coverage: float | None
    width: float | None  # mean interval width
    gold_coverage: float | None  # of the gold-only intervals of the same audits
    gold_width: float | None
    width_ratio: float | None  # width / gold_width
    mean_lambda: float | None  # the LLM term's mean weight
    per_run: list[RunCoverage]
    # A design that is not uniform (topics-neyman, pairs-uncertainty):
    draws: NotRequired[str]  # how its units were drawn
    # ... beside the uniform design of the same unit, budget, trials and seed (not when recommending):
    uniform_coverage: NotRequired[float | None]
    uniform_width: NotRequired[float | None]
    width_vs_uniform: NotRequired[float | None]  # width / uniform_width


# -- the design a budget calls for -------------------------------------------------------------------


class SimulatedDesign(TypedDict):
    """One design simulated at the budget (coverage and width None: it could not be)."""

    design: str
    units: int  # topics or pairs per audit
    pairs: int  # pairs to grade (topics: on average)
    coverage: float | None
    width: float | None
    note: str | None  # how its units were drawn, or why it could not be simulated


class DesignRecommendation(TypedDict):
    """Every design simulated at a budget and the one to draw (`studio audit plan --budget`)."""

    qrels: str
    budget: int  # pairs
    measure: str
    trials: int
    seed: int
    pilot: str | None
    basis: str  # what the simulation took as the truth, in words
    target_coverage: float
    recommended: str | None  # the design (None: none could be simulated)
    reason: str
    warnings: list[str]  # a pilot too sparse to be a truth worth simulating
    designs: list[SimulatedDesign]
