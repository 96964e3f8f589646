"""`studio assess report` as tables a paper can use (docs/assess.md#report): the warnings
first, Table 1 (what each condition cost), Table 2 (τ per condition and measure) and τ in detail,
one confusion matrix per condition (the people's grades as rows, the LLM's as columns, pairs whose
assessors differ apart), the assessors' agreement per condition, anchoring, the assessors and
what filtering hides. The JSON is the report itself (`emit_object`)."""

from __future__ import annotations

from typing import Any

from studio.cli.output import OutputFormat, emit_object, emit_records
from studio.domain.campaign_report import CampaignReport, ConditionAgreement, ConditionReport


def print_report(found: CampaignReport, fmt: OutputFormat) -> None:
    if found["warnings"]:
        rows = [{"warning": w["message"]} for w in found["warnings"]]
        emit_records(rows, fmt, title="Read first")
    _emit(_cost(found), fmt, f"Campaign {found['campaign']}: what each condition cost (Table 1)")
    _emit(_tau_table(found), fmt, f"τ-b of {found['llm']}'s leaderboard against the campaign's (Table 2)")
    emit_records(_tau_details(found), fmt, title="τ in detail: per topic, on a share of the topics, against manual")
    for condition in found["conditions"]:
        if condition["judged"]:
            _emit(_matrix(condition, found["llm"]), fmt, _matrix_title(condition, found["llm"]))
    emit_records(_agreement(found), fmt, title="Agreement of the assessors per condition (pairs two of them graded)")
    _print_anchoring(found, fmt)
    emit_records(found["assessors"]["per_assessor"], fmt, title="Assessors")
    if any(r["sampled"] for r in found["recall"]):
        emit_records(found["recall"], fmt, title="What filtering hides: relevant pairs among the dropped ones")


Rows = tuple[list[dict[str, Any]], list[str]]  # a table's rows and its columns


def _emit(table: Rows, fmt: OutputFormat, title: str) -> None:
    emit_records(table[0], fmt, title=title, columns=table[1])


def _cost(found: CampaignReport) -> Rows:
    """Table 1: per condition its topics, pool, reduction, hours and passages per grade and topic."""
    differ = any(c["assessors_differ"] for c in found["conditions"])
    rows = [
        {
            "condition": c["condition"],
            "topics": c["topics"],
            "pool": c["pool"],
            "shown": c["shown"],
            "judged": c["judged"],
            "reduction": c["reduction"],
            "hours": c["assessor_hours"],
            **{f"grade {g['grade']:g}/topic": g["per_topic"] for g in c["grades"]},
            "assessors differ": c["assessors_differ"],
        }
        for c in found["conditions"]
    ]
    columns = list(dict.fromkeys(k for row in rows for k in row if k != "assessors differ" or differ))
    return rows, columns


def _tau_table(found: CampaignReport) -> Rows:
    """Table 2: a row per condition, τ-b per measure (run level)."""
    rows = [
        {
            "condition": c["condition"],
            "topics": c["topics"],
            "runs": max((t["runs"] for t in c["correlations"]), default=None),
            **{m: c["kendall_tau"].get(m) for m in found["measures"]},
        }
        for c in found["conditions"]
    ]
    return rows, ["condition", "topics", "runs", *found["measures"]]


def _tau_details(found: CampaignReport) -> list[dict[str, Any]]:
    return [
        {
            "condition": c["condition"],
            "measure": t["measure"],
            "per_topic_tau": t["per_topic_tau"],
            **{
                f"τ on {s['fraction']:.0%} of topics (low–high)": _interval(s["mean"], s["low"], s["high"])
                for s in t["subsampling"]
            },
            "vs_manual": t["versus_manual"],
        }
        for c in found["conditions"]
        for t in c["correlations"]
    ]


def _matrix_title(condition: ConditionReport, llm: str) -> str:
    return f"{condition['condition']}: {condition['upgrades']} upgrades, {condition['downgrades']} downgrades of {llm}"


def _matrix(condition: ConditionReport, llm: str) -> Rows:
    """Rows the people's grades 0–3, then a row per mean of the pairs whose assessors differ; columns
    the LLM's grades, the pairs it did not grade, the total."""
    matrix = condition["matrix"]
    head = f"campaign \\ {llm}"
    columns = [f"{g:g}" for g in matrix["llm_grades"]]
    ungraded = any(matrix["llm_ungraded"]) or any(d["llm"] is None for d in matrix["differing"])
    rows: list[dict[str, Any]] = []
    for grade, counts, none in zip(matrix["assessor_grades"], matrix["pairs"], matrix["llm_ungraded"], strict=True):
        rows.append({head: str(grade), **dict(zip(columns, counts, strict=True)), "not graded": none})
    for mean in sorted({d["mean"] for d in matrix["differing"]}):
        row: dict[str, Any] = {head: f"assessors differ, mean {mean:g}", **dict.fromkeys(columns, 0), "not graded": 0}
        for d in matrix["differing"]:
            if d["mean"] == mean:
                row["not graded" if d["llm"] is None else f"{d['llm']:g}"] += d["pairs"]
        rows.append(row)
    shown = [*columns, *(["not graded"] if ungraded else [])]
    for row in rows:
        row["total"] = sum(row[c] for c in [*columns, "not graded"])
    rows.append({head: "total", **{c: sum(r[c] for r in rows) for c in [*shown, "total"]}})
    return rows, [head, *shown, "total"]


def _agreement(found: CampaignReport) -> list[dict[str, Any]]:
    agreement: dict[str, ConditionAgreement] = found["assessors"]["agreement"]
    return [
        {
            "condition": condition,
            "overlap_pairs": a["overlap_pairs"],
            "krippendorff_alpha": a["krippendorff_alpha"],
            "cohen_kappa per couple (pairs)": "; ".join(
                f"{c['assessor_a']}–{c['assessor_b']} {_number(c['kappa'])} ({c['pairs']})" for c in a["couples"]
            )
            or "no pair graded by two",
        }
        for condition, a in agreement.items()
    ]


def _print_anchoring(found: CampaignReport, fmt: OutputFormat) -> None:
    anchoring = found["anchoring"]
    emit_object(
        {
            "visible: same as LLM": _share(anchoring["visible"]["share"], anchoring["visible"]["pairs"]),
            "hidden: same as LLM": _share(anchoring["hidden"]["share"], anchoring["hidden"]["pairs"]),
            "difference (95%)": _interval(anchoring["difference"], anchoring["low"], anchoring["high"]),
            "anchoring rate (95%)": _interval(
                anchoring["anchoring_rate"], anchoring["rate_low"], anchoring["rate_high"]
            ),
            "topics (shown, hidden)": f"{anchoring['topics_visible']}, {anchoring['topics_hidden']}",
            "basis": anchoring["basis"],
        },
        fmt,
        title="Anchoring",
    )


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _interval(value: float | None, low: float | None, high: float | None) -> str:
    if value is None:
        return ""
    bounds = f" ({low:.3f}–{high:.3f})" if low is not None and high is not None else ""
    return f"{value:.3f}{bounds}"


def _share(value: float | None, pairs: int) -> str:
    return f"{value:.3f} of {pairs}" if value is not None else f"– of {pairs}"
