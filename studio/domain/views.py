"""What the screens show, as plain data: the project's overview and names, the two leaderboards,
a review pair with its statistics, a blind-audit pair, a bank's items, an estimate, a calibration."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from studio.domain.bank_results import ItemCoverage, StaleCellRow, UncoveredDocument
from studio.domain.errors import UsageError
from studio.domain.frames import ComparisonFrame
from studio.domain.label_set_results import CalibrationFigures, CurveBin
from studio.domain.rows import (
    BankInfo,
    Decision,
    Disagreement,
    EstimateRun,
    ItemGrade,
    JudgeOutput,
    JudgeRunRow,
    LabelSetRow,
    PromptGrade,
    ResponseRow,
    RunInfo,
    RunPairEstimate,
    ScoreTableRow,
    TopicRow,
)


@dataclass(frozen=True)
class Overview:
    path: str
    counts: dict[str, int]
    topics: list[TopicRow] | None  # None: not asked for (reading them counts every pooled document)
    runs: list[RunInfo]
    label_sets: list[LabelSetRow]
    banks: list[BankInfo]
    responses: list[ResponseRow]
    judges: list[JudgeRunRow]
    leaderboards: list[ScoreTableRow]  # imported from other tools (`studio import leaderboard`)

    def as_dict(self) -> dict[str, Any]:
        topics = {} if self.topics is None else {"topics": self.topics}
        return {
            "project": self.path,
            "counts": self.counts,
            **topics,
            "runs": self.runs,
            "label_sets": self.label_sets,
            "banks": self.banks,
            "responses": self.responses,
            "judges": self.judges,
            "leaderboards": self.leaderboards,
        }


@dataclass(frozen=True)
class ProjectNames:
    """The names the screens' selectors offer."""

    label_sets: list[str]
    banks: list[str]
    topics: list[tuple[str, str]]  # (qid, query text)


@dataclass(frozen=True)
class RankedRun:
    run: str
    ref_score: float
    ref_rank: int
    score: float
    rank: int
    swapped: bool  # in a pair of runs the two leaderboards order oppositely

    @property
    def moved(self) -> int:
        """Places gained under the audited label set (negative: lost)."""
        return self.ref_rank - self.rank


@dataclass(frozen=True)
class LeaderboardView:
    ref: str
    qrels: str
    measure: str
    runs: list[RankedRun]  # best reference score first
    kendall_tau: float | None
    spearman_rho: float | None
    tau_ap: float | None
    rbo: float | None
    swaps: int
    kappa: float | None  # graded Cohen's κ of the shared labels
    shared_labels: int | None
    frame: ComparisonFrame | None = None  # the topics both leaderboards stand on


@dataclass(frozen=True)
class EstimateView:
    """The leaderboard full human judging would give, estimated from `qrels` and the gold set."""

    qrels: str
    gold: str
    measure: str
    covers: str = ""
    design: str = "topics"
    gold_units: int = 0
    units: int = 0
    runs: list[EstimateRun] = field(default_factory=list)
    run_pairs: list[RunPairEstimate] = field(default_factory=list)
    settled: int = 0
    pairs: int = 0
    kendall_tau_vs_llm: float | None = None
    error: str | None = None  # why there is no estimate (too few gold units, a measure the design refuses)

    def headline(self) -> str:
        if self.error is not None:
            return f"No estimate: {self.error}"
        tau = "–" if self.kendall_tau_vs_llm is None else f"{self.kendall_tau_vs_llm:.3f}"
        return (
            f"{self.gold_units} of {self.units} {self.design} audited · {self.settled} of {self.pairs} run "
            f"orderings settled · τ vs {self.qrels} alone {tau}. {self.covers}"
        )


@dataclass(frozen=True)
class CalibrationView:
    """A calibrated label set: how the LLM's values map to people's grades, and what it gained."""

    name: str
    source: str
    gold: str
    method: str
    figures: CalibrationFigures
    curve: list[CurveBin]


@dataclass
class BankRow:
    """One item with what its grader says of it (None until a grader is chosen)."""

    qid: str
    item_id: str
    kind: str
    importance: str | None
    text: str
    covered_relevant: int | None = None
    covered_nonrelevant: int | None = None
    stale: int = 0
    spurious: bool = False


@dataclass
class BankView:
    bank: str
    topic: str | None
    source: str | None  # the rubric label set whose grades give the coverage
    items: list[BankRow]
    spurious: list[ItemCoverage] = field(default_factory=list)
    uncovered: list[UncoveredDocument] = field(default_factory=list)
    stale: list[StaleCellRow] = field(default_factory=list)
    taus: dict[str, float | None] = field(default_factory=dict)
    problem: str | None = None  # why the grader's columns are blank although one was chosen
    graders: list[str] = field(default_factory=list)  # the rubric label sets graded with the bank

    @property
    def stale_cells(self) -> int:
        """Cells to grade again (deleted items' cells are only dropped)."""
        return sum(1 for cell in self.stale if cell["reason"] != "deleted")


@dataclass(frozen=True)
class Retrieval:
    run: str
    rank: int  # 1-based, in trec_eval's order of the run's ranking of the topic


@dataclass(frozen=True)
class RankMove:
    run: str
    rank_now: int
    rank_then: int
    score_now: float
    score_then: float


@dataclass(frozen=True)
class ReviewFilters:
    """A slice of the queue: one topic, pairs one run retrieved, one (reference, audited) grade pair;
    or an audit's conflicts (pairs its assessors grade differently), where a grade adjudicates."""

    topic: str | None = None
    run: str | None = None
    ref_grade: float | None = None
    grade: float | None = None
    order: str = "delta-tau"  # or "spread": where the judges disagree most first
    # Two runs: only the labels their significance decision hangs on, the most deciding first.
    decision_pair: tuple[str, str] | None = None
    conflicts: str | None = None  # an audit: the queue is its conflicts not adjudicated yet

    @classmethod
    def parse(cls, text: str | None) -> ReviewFilters:
        """`topic Q`, `run R`, two grades `REF AUDITED` (e.g. `3 0`), `conflicts AUDIT` or `pair A B`
        (the labels runs A and B's significance decision hangs on); empty means everything.
        A leading `spread` orders the slice by the judges' spread (`spread`, `spread topic Q`)."""
        words = (text or "").split()
        if words and words[0] == "spread":
            return replace(cls.parse(" ".join(words[1:])), order="spread")
        if not words:
            return cls()
        if words[0] == "pair":
            if len(words) != 3 or words[1] == words[2]:
                raise UsageError("a decision pair is two different runs, e.g. pair lexical-bm25 dense-good")
            return cls(decision_pair=(words[1], words[2]))
        if len(words) == 2 and words[0] == "topic":
            return cls(topic=words[1])
        if len(words) == 2 and words[0] == "run":
            return cls(run=words[1])
        if len(words) == 2 and words[0] == "conflicts":
            return cls(conflicts=words[1])
        if len(words) == 2:
            try:
                return cls(ref_grade=float(words[0]), grade=float(words[1]))
            except ValueError:
                raise UsageError("a grade pair is two numbers, e.g. 3 0") from None
        raise UsageError("filter: topic Q, run R, conflicts AUDIT, pair A B, or two grades (reference, audited)")

    def wants(self, pair: Disagreement) -> bool:
        """Whether `pair` is in the slice's topic and grade pair (a run's slice asks the project)."""
        return (
            (self.topic is None or pair["qid"] == self.topic)
            and (self.ref_grade is None or pair["ref_grade"] == self.ref_grade)
            and (self.grade is None or pair["grade"] == self.grade)
        )

    def as_text(self) -> str:
        """The filter text `parse` reads back as these filters (one slice, as the prompt takes)."""
        if self.conflicts is not None:
            words = ["conflicts", self.conflicts]
        elif self.decision_pair is not None:
            words = ["pair", *self.decision_pair]
        elif self.topic is not None:
            words = ["topic", self.topic]
        elif self.run is not None:
            words = ["run", self.run]
        elif self.ref_grade is not None and self.grade is not None:
            words = [repr(self.ref_grade), repr(self.grade)]
        else:
            words = []
        return " ".join((["spread"] if self.order == "spread" else []) + words)

    def describe(self) -> str:
        if self.conflicts is not None:
            return f"conflicts of audit {self.conflicts}"
        parts = [
            f"topic {self.topic}" if self.topic else "",
            f"run {self.run}" if self.run else "",
            f"{_g(self.ref_grade)} vs {_g(self.grade)}" if self.ref_grade is not None or self.grade is not None else "",
            f"the labels behind {self.decision_pair[0]} vs {self.decision_pair[1]}" if self.decision_pair else "",
        ]
        described = ", ".join(p for p in parts if p) or "all disagreements"
        return described + (", by spread" if self.order == "spread" else "")


def _g(value: float | None) -> str:
    return "any" if value is None else f"{value:g}"


@dataclass
class Stats:
    tau: float | None
    kappa: float | None
    tau_change: float | None = None
    kappa_change: float | None = None
    frame: ComparisonFrame | None = None  # the topics τ and κ stand on (None: not computed yet)


@dataclass
class PairView:
    """Everything the Review screen shows about one pair."""

    qid: str
    docid: str
    query: str
    passage: str
    ref_grade: float | None
    grade: float | None
    delta_tau: float
    judges: list[JudgeOutput] = field(default_factory=list)
    items: list[ItemGrade] = field(default_factory=list)
    decision: Decision | None = None
    flagged: bool = False
    notes: list[str] = field(default_factory=list)
    retrieved: list[Retrieval] = field(default_factory=list)  # the runs that retrieved the document
    moves: list[RankMove] = field(default_factory=list)  # audited leaderboard places the reference grade moves
    assessors: dict[str, float] = field(default_factory=dict)  # an audit conflict: each assessor's grade
    prompts: list[PromptGrade] = field(default_factory=list)  # its grade under each prompt of a study


@dataclass(frozen=True)
class AuditPairView:
    """What the auditor sees before grading: the query and the passage, nothing of the LLM's."""

    qid: str
    docid: str
    query: str
    passage: str
    stratum: str | None
    index: int  # place in the audit's order, from 0
    total: int


@dataclass(frozen=True)
class Reveal:
    """A pair just graded, with what the LLM had said of it."""

    qid: str
    docid: str
    gold: float
    llm: float | None
