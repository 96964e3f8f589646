"""What a campaign's report must say before its figures are read (docs/assess.md#report): a
condition whose shown pairs are not all judged yet (its τ and confusion rest on the judged ones; a
pair not judged counts as non-relevant), a recall sample not all graded, and an interval that
resamples fewer than FEW_TOPICS topics (a percentile over draws of two or three topics says little).
Printed in the report itself, terminal and HTML alike, and kept in its JSON."""

from __future__ import annotations

from collections.abc import Sequence

from studio.domain.campaign_report import Anchoring, CampaignWarning, ConditionReport, RecallLoss

FEW_TOPICS = 5


def campaign_warnings(
    conditions: Sequence[ConditionReport], anchoring: Anchoring, recall: Sequence[RecallLoss]
) -> list[CampaignWarning]:
    found = [w for c in conditions for w in _condition_warnings(c)]
    found += [w for r in recall if (w := _recall_warning(r)) is not None]
    few = _anchoring_warning(anchoring)
    return [*found, *([few] if few is not None else [])]


def _condition_warnings(row: ConditionReport) -> list[CampaignWarning]:
    condition, judged, shown = row["condition"], row["judged"], row["shown"]
    found = []
    if shown and judged < shown:
        message = (
            f"{condition}: no pair judged yet, so no τ and no confusion"
            if judged == 0
            else f"{condition}: τ and confusion from {judged} of {shown} pairs (the campaign is unfinished; "
            "a pair not judged counts as non-relevant)"
        )
        found.append(CampaignWarning(kind="unfinished", condition=condition, message=message))
    has_interval = any(s["low"] is not None for t in row["correlations"] for s in t["subsampling"])
    if has_interval and row["topics"] < FEW_TOPICS:
        message = (
            f"{condition}: its τ intervals rest on {_topics(row['topics'])} (fewer than {FEW_TOPICS}): "
            "read them as a sketch"
        )
        found.append(CampaignWarning(kind="few_topics", condition=condition, message=message))
    return found


def _recall_warning(row: RecallLoss) -> CampaignWarning | None:
    if not row["sampled"] or row["graded"] >= row["sampled"]:
        return None
    message = (
        f"{row['condition']}: {row['graded']} of the {row['sampled']} recall-sample pairs graded; "
        "what filtering hides rests on those"
    )
    return CampaignWarning(kind="unfinished", condition=row["condition"], message=message)


def _anchoring_warning(anchoring: Anchoring) -> CampaignWarning | None:
    if anchoring["low"] is None:
        return None
    shown, hidden = anchoring["topics_visible"], anchoring["topics_hidden"]
    if min(shown, hidden) >= FEW_TOPICS:
        return None
    message = (
        f"anchoring: its intervals resample {_topics(shown)} with the LLM's grade shown and {_topics(hidden)} "
        f"without (fewer than {FEW_TOPICS}): read them as a sketch"
    )
    return CampaignWarning(kind="few_topics", condition=None, message=message)


def _topics(n: int) -> str:
    return f"{n} topic{'' if n == 1 else 's'}"
