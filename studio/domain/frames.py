"""The topics a comparison of two label sets stands on: its frame.

Two label sets often label different topics (people a few, an LLM all of them). Their leaderboards
then answer different questions unless both are averaged over the same topics: the literature's
run-level τ is "performed on common topics" (UMBRELA at TREC RAG 2024). Every comparison of two
label sets is made on one `ComparisonFrame`: by default the topics both label, or with
`TopicScope.own` each side's own topics (conditions judged on disjoint topics); a `TopicChoice`
may narrow either to a subset of topics. The frame says what it used and what it left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NotRequired, TypedDict


class TopicScope(StrEnum):
    """Which topics each side of a comparison averages over."""

    common = "common"  # the topics both label sets label (the default)
    own = "own"  # each label set its own labelled topics


@dataclass(frozen=True)
class TopicChoice:
    """What the user asked for: the scope and, optionally, a subset of topics (`--topic`, `--topics-file`)."""

    scope: TopicScope = TopicScope.common
    subset: tuple[str, ...] | None = None  # None: every topic

    def describe_subset(self) -> str | None:
        """`topics 1108651, 1109707` (a few) or `12 chosen topics`; None without a subset."""
        if self.subset is None:
            return None
        if len(self.subset) <= 3:
            return "topic" + ("s" if len(self.subset) > 1 else "") + " " + ", ".join(self.subset)
        return f"{len(self.subset)} chosen topics"


EVERY_TOPIC = TopicChoice()


class LeftOut(TypedDict):
    """The labelled topics each side had that the comparison did not use."""

    ref: list[str]
    qrels: list[str]


class FrameJson(TypedDict):
    """A frame as the commands print it in JSON (`frame`)."""

    ref: str
    qrels: str
    scope: str  # common or own
    topics: int  # topics both sides label, in the subset: what per-topic statistics use
    ref_topics: int  # topics the reference's leaderboard averages over
    qrels_topics: int  # topics the other side's leaderboard averages over
    left_out: LeftOut
    subset: list[str] | None  # the topics asked for (None: every topic)
    unlabelled: list[str]  # topics asked for that neither side labels
    runs_left_out: NotRequired[list[str]]  # runs with no topic evaluated on a side: no place to rank them


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


@dataclass(frozen=True)
class ComparisonFrame:
    """The topics two label sets are compared on, made in one place (`services/meta/frame.py`)."""

    ref: str
    qrels: str
    scope: TopicScope
    common: tuple[str, ...]  # topics both label (within the subset), in trec_eval's order
    ref_only: tuple[str, ...]  # topics only the reference labels (within the subset)
    qrels_only: tuple[str, ...]  # topics only the other side labels (within the subset)
    runs: tuple[str, ...] = ()
    subset: tuple[str, ...] | None = None  # the topics asked for (None: every topic)
    unlabelled: tuple[str, ...] = field(default=())  # asked-for topics neither side labels
    measure: str | None = None  # the leaderboards' measure (None: a comparison of labels alone)
    levels: tuple[float, float] | None = None  # each side's relevance level for a binary measure
    runs_left_out: tuple[str, ...] = ()  # runs no topic of the frame evaluates on a side (not 0.0)

    @classmethod
    def of(
        cls,
        ref: str,
        qrels: str,
        ref_labelled: frozenset[str],
        qrels_labelled: frozenset[str],
        choice: TopicChoice = EVERY_TOPIC,
        runs: tuple[str, ...] = (),
        measure: str | None = None,
        levels: tuple[float, float] | None = None,
    ) -> ComparisonFrame:
        """The frame of two label sets labelling `ref_labelled` and `qrels_labelled`, as `choice` asks."""
        if choice.subset is not None:
            ref_labelled = ref_labelled & set(choice.subset)
            qrels_labelled = qrels_labelled & set(choice.subset)
        return cls(
            ref=ref,
            qrels=qrels,
            scope=choice.scope,
            common=tuple(sorted_topics(ref_labelled & qrels_labelled)),
            ref_only=tuple(sorted_topics(ref_labelled - qrels_labelled)),
            qrels_only=tuple(sorted_topics(qrels_labelled - ref_labelled)),
            runs=runs,
            subset=choice.subset,
            unlabelled=tuple(q for q in choice.subset or () if q not in ref_labelled | qrels_labelled),
            measure=measure,
            levels=levels,
        )

    @property
    def topics(self) -> int:
        """How many topics both sides share: the count per-topic statistics use."""
        return len(self.common)

    def ref_topics(self) -> tuple[str, ...]:
        """The topics the reference's leaderboard averages over."""
        return self.common if self.scope is TopicScope.common else tuple(sorted_topics(self.common + self.ref_only))

    def qrels_topics(self) -> tuple[str, ...]:
        """The topics the other side's leaderboard averages over."""
        return self.common if self.scope is TopicScope.common else tuple(sorted_topics(self.common + self.qrels_only))

    def left_out(self) -> LeftOut:
        """Labelled topics a side had that its leaderboard does not average over."""
        if self.scope is TopicScope.own:
            return LeftOut(ref=[], qrels=[])
        return LeftOut(ref=list(self.ref_only), qrels=list(self.qrels_only))

    @property
    def whole(self) -> bool:
        """Both sides average over all their labelled topics (nothing left out, no subset)."""
        return self.subset is None and (self.scope is TopicScope.own or not (self.ref_only or self.qrels_only))

    def as_json(self) -> FrameJson:
        found = FrameJson(
            ref=self.ref,
            qrels=self.qrels,
            scope=self.scope.value,
            topics=self.topics,
            ref_topics=len(self.ref_topics()),
            qrels_topics=len(self.qrels_topics()),
            left_out=self.left_out(),
            subset=None if self.subset is None else list(self.subset),
            unlabelled=list(self.unlabelled),
        )
        if self.runs_left_out:
            found["runs_left_out"] = list(self.runs_left_out)
        return found

    def line(self) -> str:
        """The one line a table prints under its title (see `frame_line`)."""
        return frame_line(self.as_json())

    def warnings(self) -> list[str]:
        """What stderr says of the frame (see `frame_warnings`)."""
        return frame_warnings(self.as_json())


def frame_line(frame: FrameJson) -> str:
    """The one line a table prints under its title: which topics, and what was left out."""
    ref, qrels, subset = frame["ref"], frame["qrels"], frame["subset"]
    within = f" of {_count(len(subset), 'chosen topic')}" if subset is not None else ""
    if frame["scope"] == TopicScope.own:
        return (
            f"each side on its own topics{within}: {ref} {frame['ref_topics']}, {qrels} {frame['qrels_topics']} "
            f"({frame['topics']} both label)"
        )
    text = f"on the {_count(frame['topics'], 'topic')}{within} both {ref} and {qrels} label"
    left = [
        f"{_count(len(topics), 'topic')} only {name} labels"
        for name, topics in ((ref, frame["left_out"]["ref"]), (qrels, frame["left_out"]["qrels"]))
        if topics
    ]
    return text + ("; left out: " + ", ".join(left) if left else "")


def frame_warnings(frame: FrameJson) -> list[str]:
    """What stderr says: topics left out of the common frame, asked-for topics nobody labels."""
    said = []
    for name, topics in ((frame["ref"], frame["left_out"]["ref"]), (frame["qrels"], frame["left_out"]["qrels"])):
        if topics:
            said.append(
                f"{_count(len(topics), 'topic')} only {name!r} labels left out ({_some(topics)}): "
                "the comparison uses the topics both label; --topics own keeps each side's own"
            )
    if frame.get("runs_left_out"):
        runs = frame.get("runs_left_out", [])
        said.append(
            f"{_count(len(runs), 'run')} with no topic evaluated on a side left out ({_some(runs)}): "
            "a mean of no topic is no value, not 0"
        )
    if frame["unlabelled"]:
        said.append(
            f"{_count(len(frame['unlabelled']), 'chosen topic')} neither side labels: {_some(frame['unlabelled'])}"
        )
    return said


def _some(topics: Sequence[str], shown: int = 5) -> str:
    """The first few topic ids and how many more."""
    head = ", ".join(topics[:shown])
    return head + (f" and {len(topics) - shown} more" if len(topics) > shown else "")


def sorted_topics(qids: Iterable[str]) -> list[str]:
    """Topics in trec_eval's order (strcmp on the bytes)."""
    return sorted(qids, key=lambda q: q.encode("utf-8"))
