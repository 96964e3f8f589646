"""Review narrowed to the labels a run pair's significance decision hangs on (`ReviewFilters(
decision_pair=(a, b))`): the queue's pairs that `Project.decision_labels` lists, the largest
change in the pair's difference first, pairs skipped earlier still last."""

from __future__ import annotations

from studio.services.review.session import ReviewSession
from studio.services.significance.labels import decision_labels


class DecisionReviewSession(ReviewSession):
    def load(self) -> None:
        super().load()
        pair = self.filters.decision_pair
        if pair is None:
            return
        found = decision_labels(self.project.engine, self.ref, self.qrels, pair[0], pair[1], self.measure)
        rank = {(row["qid"], row["docid"]): n for n, row in enumerate(found["labels"])}
        skipped = {(d["qid"], d["docid"]) for d in self.history(limit=10**9) if d["action"] == "skip"}
        kept = [p for p in self.queue if (p["qid"], p["docid"]) in rank]
        self.queue = sorted(kept, key=lambda p: ((p["qid"], p["docid"]) in skipped, rank[(p["qid"], p["docid"])]))
        self.position = 0
