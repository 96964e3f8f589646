"""A campaign on TREC DL 2019 and 2020: GPT-4's published UMBRELA grades as the LLM, NIST's grades
imported as a simulated assessor (`assess import`), synthetic runs of graded quality. The pool
reductions, the confusion and τ of the report equal a computation by hand from the files, the
measures by pytrec_eval (trec_eval's C code) and τ-b by scipy."""

from __future__ import annotations

import gzip
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import pytrec_eval
from scipy.stats import kendalltau

from benchmarks.ppi_coverage import COLLECTIONS, DATA, read_qrels, write_runs
from studio.domain.campaign_report import CampaignReport
from studio.services.project import Project

LABELS = DATA.parent / "llm-labels"
if not DATA.is_dir() or not LABELS.is_dir():
    pytest.skip(f"TREC DL data or published LLM labels not found under {DATA.parent}", allow_module_level=True)

CONDITIONS = ("manual", "filtering", "post-editing")
MEASURES = {"nDCG@10": ("ndcg_cut_10", 1), "P(rel=2)@10": ("P_10", 2)}
Qrels = dict[str, dict[str, int]]


def gpt4_labels(collection: str) -> Qrels:
    labels: Qrels = {}
    with gzip.open(LABELS / f"umbrela-gpt4-{collection}.txt.gz", "rt") as lines:
        for line in lines:
            qid, _, docid, grade = line.split()
            labels.setdefault(qid, {})[docid] = int(grade)
    return labels


class Campaign:
    """The project, the files it was made from and the campaign's report."""

    def __init__(self, collection: str, folder: Path) -> None:
        self.nist = read_qrels(COLLECTIONS[collection])
        self.llm = gpt4_labels(collection)
        qids = sorted(self.nist)
        # Topics dealt round the conditions in qid order: the split is known without the studio.
        self.topics = {c: qids[i::3] for i, c in enumerate(CONDITIONS)}
        self.runs = self._runs(write_runs(self.nist, folder, runs=8))
        self.project = Project.open(folder / f"{collection}.duckdb")
        self.project.import_runs(sorted(folder.glob("run*.txt")))
        self.project.import_qrels(COLLECTIONS[collection], name="human")
        gz = folder / "gpt4.txt"
        gz.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in self.llm.items() for d, g in docs.items()))
        self.project.import_qrels(gz, name="umbrela-gpt4", kind="llm")
        files = {}
        for condition, topics in self.topics.items():
            files[condition] = folder / f"{condition}.qids"
            files[condition].write_text("".join(f"{q}\n" for q in topics))
        self.plan = self.project.plan_campaign(
            "rag",
            llm="umbrela-gpt4",
            pool="qrels:human",
            manual=str(files["manual"]),
            filtering=str(files["filtering"]),
            post_editing=str(files["post-editing"]),
        )
        shown = self.project.campaign_pairs("rag")
        graded = folder / "nist-graded.qrels"
        graded.write_text("".join(f"{p['qid']} 0 {p['docid']} {self.nist[p['qid']][p['docid']]}\n" for p in shown))
        self.imported = self.project.import_campaign("rag", graded, assessor="nist")
        self.report: CampaignReport = self.project.campaign_report("rag", list(MEASURES))

    @staticmethod
    def _runs(paths: list[Path]) -> dict[str, dict[str, dict[str, float]]]:
        runs: dict[str, dict[str, dict[str, float]]] = {}
        for path in paths:
            for line in path.read_text().splitlines():
                qid, _, docid, _, score, tag = line.split()
                runs.setdefault(tag, {}).setdefault(qid, {})[docid] = float(score)
        return runs

    def shown(self, condition: str) -> Qrels:
        """The pairs the condition puts before people, with NIST's grade (what was imported)."""
        kept: Qrels = {}
        for qid in self.topics[condition]:
            for docid, grade in self.nist[qid].items():
                if condition == "manual" or self.llm[qid].get(docid, 0) >= 1:
                    kept.setdefault(qid, {})[docid] = grade
        return kept

    def row(self, condition: str) -> dict[str, Any]:
        return dict(next(r for r in self.report["conditions"] if r["condition"] == condition))


@pytest.fixture(scope="module", params=["dl19", "dl20"])
def campaign(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Campaign]:
    found = Campaign(request.param, tmp_path_factory.mktemp(request.param))
    yield found
    found.project.close()


def test_the_pool_reduction_of_each_condition_is_the_share_the_llm_calls_non_relevant(campaign: Campaign) -> None:
    for condition in CONDITIONS:
        pool = sum(len(campaign.nist[q]) for q in campaign.topics[condition])
        shown = sum(len(docs) for docs in campaign.shown(condition).values())
        row = campaign.row(condition)
        assert (row["topics"], row["pool"], row["shown"], row["judged"]) == (
            len(campaign.topics[condition]),
            pool,
            shown,
            shown,
        )
        assert row["reduction"] == pytest.approx(1 - shown / pool, abs=1e-15)
    assert campaign.row("manual")["reduction"] == 0.0
    assert campaign.imported["judged"] == campaign.imported["shown"] == campaign.plan["shown"]


def test_the_confusion_counts_the_llm_grade_against_the_imported_grade(campaign: Campaign) -> None:
    for condition in CONDITIONS:
        shown = campaign.shown(condition)
        expected = Counter((campaign.llm[q][d], g) for q, docs in shown.items() for d, g in docs.items())
        row = campaign.row(condition)
        found = {(c["llm"], c["assessor"]): c["pairs"] for c in row["confusion"]}
        assert found == {(float(a), float(b)): n for (a, b), n in expected.items()}
        assert row["upgrades"] == sum(n for (a, b), n in expected.items() if b > a)
        assert row["downgrades"] == sum(n for (a, b), n in expected.items() if b < a)
        per_grade = Counter(g for docs in shown.values() for g in docs.values())
        assert {c["grade"]: c["pairs"] for c in row["grades"]} == {float(g): n for g, n in per_grade.items()}


def _means(qrels: Qrels, runs: dict[str, dict[str, dict[str, float]]], measure: str, level: int) -> np.ndarray:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {measure.replace("_10", ".10")}, relevance_level=level)
    values = []
    for name in sorted(runs):
        per_topic = evaluator.evaluate({q: docs for q, docs in runs[name].items() if q in qrels})
        values.append(sum(per_topic[q][measure] for q in sorted(per_topic)) / len(per_topic))  # as trec_eval adds
    return np.array(values)


def test_tau_of_the_llm_leaderboard_on_each_conditions_topics_equals_pytrec_eval_and_scipy(
    campaign: Campaign,
) -> None:
    for condition in CONDITIONS:
        llm = {q: campaign.llm[q] for q in campaign.topics[condition]}
        people = campaign.shown(condition)  # a dropped pair has no grade: non-relevant
        for name, (measure, level) in MEASURES.items():
            x = _means(people, campaign.runs, measure, level)
            y = _means(llm, campaign.runs, measure, level)
            expected = kendalltau(x, y).statistic
            assert campaign.row(condition)["kendall_tau"][name] == pytest.approx(expected, abs=1e-12)


def test_each_condition_against_manual_compares_leaderboards_on_disjoint_topics(campaign: Campaign) -> None:
    manual = _means(campaign.shown("manual"), campaign.runs, "ndcg_cut_10", 1)
    for condition in ("filtering", "post-editing"):
        own = _means(campaign.shown(condition), campaign.runs, "ndcg_cut_10", 1)
        tau = campaign.row(condition)["correlations"][0]
        assert tau["measure"] == "nDCG@10"
        assert tau["versus_manual"] == pytest.approx(kendalltau(manual, own).statistic, abs=1e-12)
        assert [s["fraction"] for s in tau["subsampling"]] == pytest.approx([1 / 3, 2 / 3])


def test_nist_grades_show_no_anchoring_within_the_interval(campaign: Campaign) -> None:
    """NIST's assessors never saw GPT-4's grades: the interval of the rate holds 0."""
    found = campaign.report["anchoring"]
    low, high = found["rate_low"], found["rate_high"]
    assert low is not None and high is not None and low < 0 < high
    assert found["visible"]["pairs"] == campaign.row("post-editing")["shown"]
    assert found["hidden"]["pairs"] == sum(
        1
        for c in ("manual", "filtering")
        for q, docs in campaign.shown(c).items()
        for d in docs
        if campaign.llm[q][d] >= 1
    )


def test_a_simulated_assessor_who_keeps_the_shown_grade_at_a_known_rate_is_recovered(
    campaign: Campaign, tmp_path: Path
) -> None:
    """NIST's grade, except that under post-editing the shown GPT-4 grade is kept 40% of the time."""
    rate, rng = 0.4, np.random.default_rng(5)
    files = {c: tmp_path / f"{c}.qids" for c in CONDITIONS}
    for condition, path in files.items():
        path.write_text("".join(f"{q}\n" for q in campaign.topics[condition]))
    name = f"anchored-{tmp_path.name}"
    campaign.project.plan_campaign(
        name,
        llm="umbrela-gpt4",
        pool="qrels:human",
        manual=str(files["manual"]),
        filtering=str(files["filtering"]),
        post_editing=str(files["post-editing"]),
    )
    lines = []
    for pair in campaign.project.campaign_pairs(name):
        grade = campaign.nist[pair["qid"]][pair["docid"]]
        if pair["llm_grade"] is not None and rng.random() < rate:
            grade = int(pair["llm_grade"])
        lines.append(f"{pair['qid']} 0 {pair['docid']} {grade}\n")
    (tmp_path / "sim.qrels").write_text("".join(lines))
    campaign.project.import_campaign(name, tmp_path / "sim.qrels", assessor="sim")
    found = campaign.project.campaign_report(name)["anchoring"]
    low, high = found["rate_low"], found["rate_high"]
    assert low is not None and high is not None and 0 < low <= rate <= high


def test_a_recall_sample_estimates_what_filtering_hides_and_leaves_tau_alone(
    campaign: Campaign, tmp_path: Path
) -> None:
    """400 of the dropped pairs graded blind (NIST's grades): per condition, the relevant pairs
    among the dropped ones estimated as dropped × relevant / graded, the truth (NIST's grades of
    every dropped pair) within the interval; the campaign's own label set, and so τ, unchanged."""
    files = {c: tmp_path / f"{c}.qids" for c in CONDITIONS}
    for condition, path in files.items():
        path.write_text("".join(f"{q}\n" for q in campaign.topics[condition]))
    name = f"recall-{tmp_path.name}"
    planned = campaign.project.plan_campaign(
        name,
        llm="umbrela-gpt4",
        pool="qrels:human",
        manual=str(files["manual"]),
        filtering=str(files["filtering"]),
        post_editing=str(files["post-editing"]),
        recall_sample=400,
    )
    assert planned["recall_sample"] == 400 and planned["shown"] == campaign.plan["shown"]
    pairs = campaign.project.campaign_pairs(name)
    # Shown as manual pairs, without the LLM's grade, interleaved with the blind pairs (never last).
    manual = set(campaign.topics["manual"])
    recall = [p for p in pairs if p["condition"] == "manual" and p["qid"] not in manual]
    assert len(recall) == 400 and all(p["llm_grade"] is None for p in recall)
    assert pairs[-1] not in recall and pairs[-400:] != recall
    graded = tmp_path / "all.qrels"
    graded.write_text("".join(f"{p['qid']} 0 {p['docid']} {campaign.nist[p['qid']][p['docid']]}\n" for p in pairs))
    campaign.project.import_campaign(name, graded, assessor="nist")
    found = campaign.project.campaign_report(name, list(MEASURES))
    sampled = {(p["qid"], p["docid"]) for p in recall}
    for row in found["recall"]:
        topics = campaign.topics[row["condition"]]
        dropped = [(q, d) for q in topics for d in campaign.nist[q] if campaign.llm[q].get(d, 0) < 1]
        mine = [pair for pair in dropped if pair in sampled]
        relevant = sum(campaign.nist[q][d] >= 1 for q, d in mine)
        assert (row["dropped"], row["sampled"], row["graded"], row["relevant"]) == (
            len(dropped),
            len(mine),
            len(mine),
            relevant,
        )
        assert row["hidden_relevant"] == pytest.approx(len(dropped) * relevant / len(mine))
        truth = sum(campaign.nist[q][d] >= 1 for q, d in dropped)
        low, high = row["low"], row["high"]
        assert low is not None and high is not None and low <= truth <= high
        shown = sum(g >= 1 for docs in campaign.shown(row["condition"]).values() for g in docs.values())
        assert row["relevant_shown"] == shown
    for ours, theirs in zip(found["conditions"], campaign.report["conditions"], strict=True):
        assert ours["kendall_tau"] == theirs["kendall_tau"] and ours["judged"] == theirs["judged"]
