"""The report's section on assessment campaigns (`studio assess`): per campaign, what each condition
cost (Table 1), how the campaign's grades met the LLM's (the confusion, drawn), τ of the LLM's
leaderboard against each condition's (Table 2) and the anchoring effect. Present only when the
project has campaigns."""

from __future__ import annotations

from studio.domain.campaign_report import CampaignReport, ConditionReport, CoupleKappa, GradeCount
from studio.domain.report import Cell, Interval, Section, Table
from studio.services.facade.core import ProjectCore
from studio.services.report.campaign_figures import confusion_grids, pool_bars
from studio.services.report.cells import FigureNames, statistic

TEXT = (
    "A campaign puts an LLM label set's pool before people under three conditions, each on its own "
    "topics: fully manual (the whole pool, the LLM's grade never shown), filtering (the pairs the LLM "
    "calls relevant, its grade never shown) and post-editing (the same pairs grouped by the LLM's "
    "grade, which is shown). Reduction is 1 − shown / pool; τ compares the LLM's leaderboard with the "
    "campaign's on each condition's topics (a dropped pair counts as non-relevant), τ vs manual the "
    "condition's leaderboard with the manual one's on disjoint topics. Anchoring: how often people "
    "give the LLM's grade when they see it against when they do not, on the pairs the LLM calls "
    "relevant, with 95% intervals that resample topics."
)


def campaign_section(project: ProjectCore, measure: str, names: FigureNames) -> list[Section]:
    """One section when the project has campaigns, none otherwise."""
    campaigns = project.campaigns()
    if not campaigns:
        return []
    tables: list[Table] = []
    figures = []
    notes: list[str] = []  # an LLM set changed since a campaign was planned: which grades were read
    warnings: list[str] = []  # an unfinished campaign, an interval on few topics: said before the tables
    for row in campaigns:
        found = project.campaign_report(row["campaign"], [measure])
        notes += [f"Note: {found['llm_state']['note']}."] if found["llm_state"]["note"] else []
        warnings += [f"Warning, campaign {found['campaign']}: {w['message']}." for w in found["warnings"]]
        tables.extend(_tables(found, measure))
        if any(c["judged"] for c in found["conditions"]):
            title = f"campaign {found['campaign']}"
            figures.append(pool_bars(names("campaign-pool", found["campaign"]), f"{title}: pool", found["conditions"]))
            figures.append(
                confusion_grids(
                    names("campaign-confusion", found["campaign"]),
                    f"{title}: {found['llm']}'s grade against the campaign's",
                    found["llm"],
                    found["conditions"],
                )
            )
    text = " ".join([TEXT, *notes])
    return [
        Section(
            key="campaigns", title="Assessment campaigns", text=text, tables=tables, figures=figures, notes=warnings
        )
    ]


def _tables(found: CampaignReport, measure: str) -> list[Table]:
    hidden = _hidden_table(found)
    matrices = [_matrix_table(found, c) for c in found["conditions"] if c["judged"]]
    return [
        _cost_table(found),
        _tau_table(found, measure),
        _anchoring_table(found),
        *([hidden] if hidden.rows else []),
        *matrices,
        _agreement_table(found),
    ]


def _cost_table(found: CampaignReport) -> Table:
    """Table 1: per condition its topics, pool, what people saw and graded, and the hours it took;
    overlap pairs whose assessors differ apart from the grades."""
    differ = ["assessors differ"] if any(c["assessors_differ"] for c in found["conditions"]) else []
    return Table(
        title=f"{found['campaign']}: what each condition cost (Table 1)",
        columns=["condition", "topics", "pool", "shown", "judged", "reduction", *GRADES, *differ, "assessor-hours"],
        rows=[
            {
                "condition": c["condition"],
                "topics": c["topics"],
                "pool": c["pool"],
                "shown": c["shown"],
                "judged": c["judged"],
                "reduction": statistic(c["reduction"]),
                **{column: _per_topic(c["grades"], grade) for grade, column in enumerate(GRADES)},
                "assessors differ": c["assessors_differ"],
                "assessor-hours": statistic(c["assessor_hours"]),
            }
            for c in found["conditions"]
        ],
    )


def _tau_table(found: CampaignReport, measure: str) -> Table:
    """Table 2 and Fig. 4: the LLM's leaderboard against each condition's, and each against manual."""
    tau_rows: list[dict[str, Cell]] = []
    for c in found["conditions"]:
        for tau in c["correlations"]:
            thirds = {f"τ on {s['fraction']:.0%} of topics": Interval(s["low"], s["high"]) for s in tau["subsampling"]}
            tau_rows.append(
                {
                    "condition": c["condition"],
                    "upgrades": c["upgrades"],
                    "downgrades": c["downgrades"],
                    "τ": statistic(tau["kendall_tau"]),
                    "per-topic τ": statistic(tau["per_topic_tau"]),
                    **thirds,
                    "τ vs manual": statistic(tau["versus_manual"]),
                }
            )
    columns = list(dict.fromkeys(k for row in tau_rows for k in row))
    title = f"{found['campaign']}: {found['llm']} against each condition ({measure}, Table 2)"
    return Table(title=title, columns=columns, rows=tau_rows)


def _anchoring_table(found: CampaignReport) -> Table:
    """How often people give the LLM's grade when they see it and when they do not."""
    a = found["anchoring"]
    rows: list[dict[str, Cell]] = [
        {
            "side": side,
            "pairs": p["pairs"],
            "share": statistic(p["share"]),
            "95% interval": Interval(p["low"], p["high"]),
        }
        for side, p in (("shown (post-editing)", a["visible"]), ("hidden (manual, filtering)", a["hidden"]))
    ]
    rows.append(
        {"side": "difference", "share": statistic(a["difference"]), "95% interval": Interval(a["low"], a["high"])}
    )
    rows.append(
        {
            "side": "anchoring rate",
            "share": statistic(a["anchoring_rate"]),
            "95% interval": Interval(a["rate_low"], a["rate_high"]),
        }
    )
    return Table(
        title=f"{found['campaign']}: anchoring (grades equal to {found['llm']}'s)",
        columns=["side", "pairs", "share", "95% interval"],
        rows=rows,
    )


def _hidden_table(found: CampaignReport) -> Table:
    """What filtering hides: relevant pairs among the dropped ones, from the recall sample."""
    return Table(
        title=f"{found['campaign']}: what filtering hides (relevant pairs among the dropped ones, "
        "from the recall sample)",
        columns=["condition", "dropped", "graded", "relevant", "hidden relevant", "95% interval", "recall"],
        rows=[
            {
                "condition": r["condition"],
                "dropped": r["dropped"],
                "graded": r["graded"],
                "relevant": r["relevant"],
                "hidden relevant": statistic(r["hidden_relevant"]),
                "95% interval": Interval(r["low"], r["high"]),
                "recall": statistic(r["recall"]),
            }
            for r in found["recall"]
            if r["sampled"]
        ],
    )


GRADES = [f"grade {g}/topic" for g in range(4)]


def _per_topic(grades: list[GradeCount], grade: int) -> float | None:
    return statistic(sum(g["per_topic"] for g in grades if g["grade"] == grade))


def _matrix_table(found: CampaignReport, condition: ConditionReport) -> Table:
    """The campaign's grade (rows, 0–3) against the LLM's (columns); pairs whose assessors differ
    in rows of their own, by the mean of their grades."""
    matrix, llm = condition["matrix"], found["llm"]
    head = f"campaign \\ {llm}"
    columns = [f"{g:g}" for g in matrix["llm_grades"]]
    rows: list[dict[str, Cell]] = [
        {head: str(grade), **dict(zip(columns, counts, strict=True)), "not graded": none}
        for grade, counts, none in zip(matrix["assessor_grades"], matrix["pairs"], matrix["llm_ungraded"], strict=True)
    ]
    for d in matrix["differing"]:
        row: dict[str, Cell] = {
            head: f"assessors differ, mean {d['mean']:g}",
            **dict.fromkeys(columns, 0),
            "not graded": 0,
        }
        row["not graded" if d["llm"] is None else f"{d['llm']:g}"] = d["pairs"]
        rows.append(row)
    ungraded = any(isinstance(row["not graded"], int) and row["not graded"] for row in rows)
    return Table(
        title=f"{found['campaign']}, {condition['condition']}: the campaign's grade (rows) against {llm}'s "
        f"(columns); {condition['upgrades']} upgrades, {condition['downgrades']} downgrades",
        columns=[head, *columns, *(["not graded"] if ungraded else [])],
        rows=rows,
    )


def _agreement_table(found: CampaignReport) -> Table:
    """The assessors' agreement per condition on the pairs two of them graded."""
    rows: list[dict[str, Cell]] = [
        {
            "condition": condition,
            "pairs graded by two": a["overlap_pairs"],
            "Krippendorff α": statistic(a["krippendorff_alpha"]),
            "Cohen κ per couple (pairs)": "; ".join(_couple(c) for c in a["couples"]),
        }
        for condition, a in found["assessors"]["agreement"].items()
    ]
    return Table(
        title=f"{found['campaign']}: agreement of the assessors per condition",
        columns=["condition", "pairs graded by two", "Krippendorff α", "Cohen κ per couple (pairs)"],
        rows=rows,
    )


def _couple(c: CoupleKappa) -> str:
    kappa = "–" if c["kappa"] is None else f"{c['kappa']:.3f}"
    return f"{c['assessor_a']}–{c['assessor_b']} κ {kappa} on {c['pairs']}"
