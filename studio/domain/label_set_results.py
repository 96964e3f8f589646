"""What making a derived label set reports: an ensemble (`studio ensemble`), a calibrated set
(`studio calibrate`, and every calibrated set as the project keeps it) and a bank score
(`studio derive`).

TypedDicts, as in `rows.py`: plain dicts at run time (JSON as they are, key order included) whose
keys strict mypy checks wherever they are read.
"""

from typing import TypedDict

# -- ensembles ---------------------------------------------------------------------------------------


class EnsembleFigures(TypedDict):
    """What an ensemble's members make of it now."""

    how: str  # majority, mean or median
    members: list[str]
    topics: int
    labels: int
    pairs_members_disagree: int  # pairs the members grade differently


class EnsembleMade(EnsembleFigures):
    """`studio ensemble`: an ensemble label set made (or made again)."""

    label_set: str
    events: int  # label events written (0: made again as it was)


# -- calibrated sets ---------------------------------------------------------------------------------


class CalibrationFigures(TypedDict):
    """A calibration's figures on the gold pairs, the map judged cross-fitted by topic (None: undefined)."""

    pairs: int  # gold pairs the LLM set also labels
    topics: int
    folds: int
    expected_values: int  # values fitted on that are the judge's expected grades, not its labels
    labels: int  # labels of the calibrated set
    fitted_on_all: int  # of them, pairs without gold: mapped with the map fitted on every gold pair
    kappa_raw: float | None  # Cohen's κ (graded) of the raw LLM grades against gold
    kappa_calibrated: float | None  # … of the held-out calibrated grades
    kappa_linear_raw: float | None  # linearly weighted κ
    kappa_linear_calibrated: float | None
    tau_raw: float | None  # Kendall τ against the gold leaderboard (None: no runs)
    tau_calibrated: float | None
    mean_gold: float  # mean grades on the gold pairs
    mean_raw: float
    mean_calibrated: float


class CurveBin(TypedDict):
    """One bin of the calibration curve: a range of the LLM's values."""

    low: float
    high: float
    pairs: int
    mean_llm: float  # the bin's mean LLM value
    mean_gold: float  # the people's mean grade there
    fitted: float  # the map's (fractional) value at mean_llm


class CalibrationMapDict(TypedDict):
    """The fitted map as stored: isotonic points (xs → ys) or proportional-odds parameters."""

    method: str  # isotonic or ordinal
    levels: list[float]  # the gold grades seen in fitting, ascending
    xs: list[float]
    ys: list[float]
    params: list[float]


class CalibrationMade(CalibrationFigures):
    """`studio calibrate`: the calibrated set made, with its figures (flat, after `measure`), curve and map."""

    label_set: str
    qrels: str  # the LLM label set calibrated
    gold: str
    method: str
    seed: int
    measure: str  # of the leaderboards τ compares
    curve: list[CurveBin]
    map: CalibrationMapDict


class CalibratedSet(TypedDict):
    """A calibrated label set as the project keeps it (for the report and the screens)."""

    name: str
    source: str  # the LLM label set calibrated
    gold: str
    method: str
    folds: int  # asked for (the figures say how many were used)
    seed: int
    measure: str
    fitted: CalibrationMapDict
    figures: CalibrationFigures
    curve: list[CurveBin]
    updated: str  # when it was last made, YYYY-MM-DD HH:MM:SS


# -- bank scores -------------------------------------------------------------------------------------


class BankScoreFigures(TypedDict):
    """What a rubric judge's item grades make of a bank-score label set now."""

    score: str  # exam-binary, nugget-all, … (DerivedScore)
    source: str  # the rubric judge's label set
    bank: str
    min_grade: float  # an item counts at item grade ≥ this
    topics: int
    labels: int


class BankScoreMade(BankScoreFigures):
    """`studio derive`: a label set made from a rubric judge's item grades."""

    label_set: str
    events: int  # label events written (0: made again as it was)
