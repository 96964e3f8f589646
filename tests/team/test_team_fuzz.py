"""The team's sequence fuzzer (team_fuzz.py) in the suite: a few seeds, a bounded number of steps
each. A longer run on demand: STUDIO_TEAM_FUZZ=FIRST-LAST:STEPS (e.g. `1-50:200`) runs those seeds
with that many steps each instead."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import copy_project
from team.team_fuzz import CAMPAIGN, Fuzz
from team.team_helpers import COORDINATOR, MEMBERS, Team

from studio import Project

SEEDS, STEPS = (11, 12, 13), 45


def chosen() -> tuple[list[int], int]:
    asked = os.environ.get("STUDIO_TEAM_FUZZ")
    if not asked:
        return list(SEEDS), STEPS
    seeds, steps = asked.split(":")
    first, _, last = seeds.partition("-")
    return list(range(int(first), int(last or first) + 1)), int(steps)


@pytest.fixture()
def fuzz_team(team_db: Team, audit_template: Path) -> Team:
    """The audit project with a campaign (graded locally, never shared), published and joined."""
    copy_project(audit_template, team_db.folder, "coordinator.duckdb")
    with Project.open(team_db.path(COORDINATOR)) as project:
        project.plan_campaign(CAMPAIGN, llm="umbrela-smol", pool="qrels:human", manual="2", post_editing="2", seed=4)
        project.publish_team(team_db.conninfo(COORDINATOR), list(MEMBERS))
    for member in MEMBERS:
        Project.join_team(team_db.path(member), team_db.conninfo(member))
    return team_db


@pytest.mark.parametrize("seed", chosen()[0])
def test_random_interleavings_end_in_the_same_checked_copies(fuzz_team: Team, seed: int) -> None:
    fuzz = Fuzz(fuzz_team, seed, chosen()[1])
    final = fuzz.run()
    print(f"seed {seed}: {dict(fuzz.counts)}; {len(final['identities'])} shared events")
    assert fuzz.counts["label"] + fuzz.counts["grade"] > 0
