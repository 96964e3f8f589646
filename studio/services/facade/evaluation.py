"""Leaderboards, their correlation, label agreement and the review queue."""

from __future__ import annotations

from typing import TYPE_CHECKING

from studio.domain.choices import DEFAULT_MEASURES
from studio.domain.errors import UsageError
from studio.domain.frames import EVERY_TOPIC, ComparisonFrame, TopicChoice
from studio.domain.rows import QUEUE_ACTIONS, Disagreement
from studio.services.facade.base import ProjectBase
from studio.services.facade.lazy import lazy_function, lazy_module

if TYPE_CHECKING:
    from collections.abc import Sequence

    from studio.domain.answer_results import AnswerRow
    from studio.domain.comparisons import Agreement, Correlation, EnsembleScores, EvalRow, MethodComparison
    from studio.domain.embedding_results import FdLeaderboard
    from studio.domain.specs import AgreementSpec, ComparisonSpec
    from studio.judges.embedder import TextEmbedder
    from studio.services.ensembles.scores import ensemble_scores
    from studio.services.evaluation.answers import system_leaderboard
    from studio.services.evaluation.engine import measure_of
    from studio.services.evaluation.frechet import fd_leaderboard
    from studio.services.meta import (
        comparison,
        frame,
        label_agreement,
        rank_correlation,
        review_queue,
        scale,
        score_correlation,
        unreachable_levels,
    )
    from studio.services.meta.frame import check_subset
    from studio.store import review as review_store
else:
    ensemble_scores = lazy_function("studio.services.ensembles.scores", "ensemble_scores")
    system_leaderboard = lazy_function("studio.services.evaluation.answers", "system_leaderboard")
    measure_of = lazy_function("studio.services.evaluation.engine", "measure_of")
    comparison = lazy_module("studio.services.meta.comparison")
    frame = lazy_module("studio.services.meta.frame")
    label_agreement = lazy_module("studio.services.meta.label_agreement")
    rank_correlation = lazy_module("studio.services.meta.rank_correlation")
    review_queue = lazy_module("studio.services.meta.review_queue")
    scale = lazy_module("studio.services.meta.scale")
    score_correlation = lazy_module("studio.services.meta.score_correlation")
    unreachable_levels = lazy_module("studio.services.meta.unreachable_levels")
    fd_leaderboard = lazy_function("studio.services.evaluation.frechet", "fd_leaderboard")
    check_subset = lazy_function("studio.services.meta.frame", "check_subset")
    review_store = lazy_module("studio.store.review")


class EvaluationMixin(ProjectBase):
    """What the project computes from runs and label sets."""

    def leaderboard(self, qrels: str, measure: str = "nDCG@10", *, complete: bool = False) -> dict[str, float]:
        """{run: mean value} under a label set, as trec_eval computes it."""
        return self.engine.leaderboard(qrels, measure, complete=complete)

    def evaluate(
        self,
        qrels: str,
        measures: Sequence[str] = DEFAULT_MEASURES,
        *,
        per_topic: bool = False,
        complete: bool = False,
        topics: Sequence[str] | None = None,
    ) -> list[EvalRow]:
        """Rows of `studio eval`: {"run", "measure", "value", "topics"} (and "topic"); `topics`:
        only over these (as trec_eval on the labels cut to them)."""
        if topics is not None:
            check_subset(TopicChoice(subset=tuple(topics)), self.engine.evaluator(qrels).knows(topics))
        return self.engine.eval_rows(qrels, list(measures), per_topic=per_topic, complete=complete, topics=topics)

    def comparison_frame(self, ref: str, qrels: str, topics: TopicChoice = EVERY_TOPIC) -> ComparisonFrame:
        """The topics a comparison of `ref` and `qrels` stands on, as `topics` asks (by default those
        both label): the frame every comparison of the two uses and reports."""
        return frame.comparison_frame(self.engine, ref, qrels, topics)

    def check_topics(self, topics: TopicChoice) -> None:
        """Refuse chosen topics the project does not know (no run retrieves them, no label set labels
        them): a typo, said before a screen opens rather than on the first comparison."""
        check_subset(topics, {row["qid"] for row in self.topics()})

    def level_warnings(self, qrels: str, measures: Sequence[str] = DEFAULT_MEASURES) -> list[str]:
        """A warning per binary measure whose relevance level `qrels`' grades never reach."""
        return unreachable_levels.measure_warnings(self.engine, qrels, [measure_of(m) for m in measures])

    def correlation(
        self,
        ref: str,
        qrels: str,
        measure: str = "nDCG@10",
        *,
        topics: TopicChoice = EVERY_TOPIC,
        complete: bool = False,
        details: bool = True,
        seed: int = 0,
        llm_relevant: float | None = None,
    ) -> Correlation:
        """Kendall τ (τ-b), τ-a, Spearman ρ, τ_AP, RBO, swaps and topic intervals of two leaderboards,
        both on the topics both label sets label (`topics`: each side's own, or a subset; `frame`
        in the result says which topics were used and which left out).
        A side named `leaderboard:NAME` is the imported leaderboard NAME (`import_leaderboard`).
        `llm_relevant`: `qrels`' own relevance level for a binary measure (the measure's `rel=` is
        `ref`'s); `levels` in the result says which each side used, `warnings` which never counts a pair."""
        if score_correlation.names_score_table(ref) or score_correlation.names_score_table(qrels):
            if llm_relevant is not None:
                raise UsageError(
                    "--llm-relevant sets a label set's own level; an imported leaderboard's values are as its "
                    "tool computed them: correlate two label sets"
                )
            if topics != EVERY_TOPIC:
                raise UsageError(
                    "an imported leaderboard's means are over the topics its tool chose: --topics, --topic and "
                    "--topics-file choose a label set's topics; correlate two label sets"
                )
            return score_correlation.correlation(
                self.engine, ref, qrels, measure, complete=complete, details=details, seed=seed
            )
        return rank_correlation.correlation(
            self.engine,
            ref,
            qrels,
            measure,
            topics=topics,
            complete=complete,
            details=details,
            seed=seed,
            llm_relevant=llm_relevant,
        )

    def correlations(
        self,
        ref: str,
        qrels: str,
        measures: Sequence[str],
        *,
        topics: TopicChoice = EVERY_TOPIC,
        complete: bool = False,
        seed: int = 0,
        llm_relevant: float | None = None,
    ) -> list[Correlation]:
        """`correlation` under each measure: UMBRELA's Table 2 (run-level, per-topic and pooled τ,
        topic subsampling at 1/3 and 2/3 with 95% intervals), a row per measure."""
        return [
            self.correlation(ref, qrels, m, topics=topics, complete=complete, seed=seed, llm_relevant=llm_relevant)
            for m in measures
        ]

    def agreement(self, spec: AgreementSpec) -> Agreement:
        """κ, Krippendorff's α, confusion matrix and alignment of the pairs two label sets both label
        (`spec.clip`: the audited grades clipped into the reference's range; `spec.topics`: a subset)."""
        ref, qrels = spec.ref, spec.qrels
        return label_agreement.agreement(
            self.engine,
            ref,
            scale.clipped(self.engine, ref, qrels) if spec.clip else qrels,
            topics=spec.topics,
            ref_threshold=spec.ref_threshold,
            threshold=spec.threshold,
            relevant=spec.relevant,
        )

    def compare(self, spec: ComparisonSpec) -> list[MethodComparison]:
        """One row per label set: κ, α, alignment, leniency, τ and τ_AP with bootstrap intervals,
        and the τ of its compatibility leaderboard against the reference's nDCG@10 leaderboard."""
        ref = spec.ref
        names = [scale.clipped(self.engine, ref, name) if spec.clip else name for name in spec.qrels]
        return comparison.compare(
            self.engine, ref, names, spec.measure, topics=spec.topics, resamples=spec.resamples, seed=spec.seed
        )

    def scale_warnings(self, ref: str, qrels: list[str]) -> list[str]:
        """A warning per label set holding grades outside the reference's range."""
        return scale.outside_scale(self.engine, ref, qrels)

    def disagreements(
        self,
        ref: str,
        qrels: str,
        measure: str = "nDCG@10",
        *,
        topics: TopicChoice = EVERY_TOPIC,
        limit: int | None = None,
        order: str = "delta-tau",
    ) -> list[Disagreement]:
        """The review queue: differently graded pairs, the most τ-changing first (`order="spread"`:
        those whose judges disagree most first). Each says what a review of the two label sets
        already decided of it (`decided`: accept, grade, reference or skip; None: nothing yet)."""
        queue = review_queue.disagreements(self.engine, ref, qrels, measure, topics=topics, limit=limit, order=order)
        decided: dict[tuple[str, str], str] = {}
        for decision in reversed(review_store.decisions(self.db.cursor(), ref, qrels)):  # the newest wins
            if decision["action"] in QUEUE_ACTIONS:
                decided[(decision["qid"], decision["docid"])] = decision["action"]
        for pair in queue:
            pair["decided"] = decided.get((pair["qid"], pair["docid"]))
        return queue

    def ensemble_scores(self, name: str, ref: str = "human", measure: str = "nDCG@10") -> EnsembleScores:
        """κ and Kendall τ against `ref` of each member of an ensemble and of the ensemble."""
        return ensemble_scores(self.engine, name, ref, measure)

    def answer_leaderboard(self, qrels: str, *, resamples: int = 1000, seed: int = 0) -> list[AnswerRow]:
        """Generative systems ranked by the mean grade a label set gives their answers (judged with
        `--pool responses`), with a 95% bootstrap interval over topics."""
        return system_leaderboard(self.engine, qrels, resamples=resamples, seed=seed)

    def fd_leaderboard(
        self,
        qrels: str,
        *,
        k: int = 10,
        unjudged_only: bool = False,
        relevant: float | None = None,
        embedder: TextEmbedder | None = None,
        model: str | None = None,
        ref_measure: str = "nDCG@10",
    ) -> FdLeaderboard:
        """FD@k of every run: Fréchet distance between its top-k embeddings and the relevant ones
        (lower is better), with Kendall τ against the label set's leaderboard (see `studio fd`);
        texts are encoded by `embedder` (the report shares one) or else by the sentence-transformers
        `model` (None: the bundled one)."""
        return fd_leaderboard(
            self.engine,
            qrels,
            k=k,
            unjudged_only=unjudged_only,
            relevant=relevant,
            embedder=embedder,
            model=model,
            ref_measure=ref_measure,
        )
