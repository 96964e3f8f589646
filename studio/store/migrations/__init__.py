"""The project file's schema, as an ordered list of migrations: one module per version.

A migration is applied once, inside the transaction that opens an older file, and recorded in
`schema_version`. Never edit a released migration (project files in the wild were migrated by its
SQL as it was): add the next version, in a module `vNN_what_it_does.py` holding `VERSION` and
`SQL`, and list it below. The versions run from 1 to `LATEST_VERSION` without a gap. A version
whose additions a reader of the file does without says so with `READERS_NEED = False`: a file
that cannot be upgraded (a read-only one) is read as it is when only such versions are missing.

Labels and bank items are append-only event tables; the current state is a view over them,
so every edit keeps its provenance and can be undone by appending its inverse.
"""

from __future__ import annotations

from types import ModuleType

import duckdb

from studio.store.migrations import (
    v01_base,
    v02_judge_calls,
    v03_rubric_item_ids,
    v04_answer_keys,
    v05_item_hashes_and_derivations,
    v06_review_decisions,
    v07_embeddings,
    v08_robustness_probes,
    v09_bank_layouts,
    v10_stored_rankings,
    v11_judge_run_owners,
    v12_change_counter,
    v13_audits,
    v14_skipped,
    v15_calibrations,
    v16_ensembles_and_spreads,
    v17_repair_early_ensemble_files,
    v18_project_mark,
    v19_score_tables,
    v20_audit_assessors,
    v21_topic_vocabularies,
    v22_campaigns,
    v23_prompt_collections,
    v24_team_sync,
    v25_narrow_label_events,
    v26_team_gates,
    v27_team_outcome,
)

MIGRATION_MODULES: tuple[ModuleType, ...] = (
    v01_base,
    v02_judge_calls,
    v03_rubric_item_ids,
    v04_answer_keys,
    v05_item_hashes_and_derivations,
    v06_review_decisions,
    v07_embeddings,
    v08_robustness_probes,
    v09_bank_layouts,
    v10_stored_rankings,
    v11_judge_run_owners,
    v12_change_counter,
    v13_audits,
    v14_skipped,
    v15_calibrations,
    v16_ensembles_and_spreads,
    v17_repair_early_ensemble_files,
    v18_project_mark,
    v19_score_tables,
    v20_audit_assessors,
    v21_topic_vocabularies,
    v22_campaigns,
    v23_prompt_collections,
    v24_team_sync,
    v25_narrow_label_events,
    v26_team_gates,
    v27_team_outcome,
)

MIGRATIONS: list[tuple[int, str]] = [(module.VERSION, module.SQL) for module in MIGRATION_MODULES]

LATEST_VERSION = MIGRATIONS[-1][0]


def schema_holds(con: duckdb.DuckDBPyConnection, version: int) -> bool:
    """Whether the open file's schema is at `version` or later: what a reader asks before it reads
    a table or a column that version added (a read-only file of an older schema is read as it is).
    One row of `schema_version`: DuckDB's catalog functions read every table's figures the first
    time they are asked (about 4 ms)."""
    row = con.execute("SELECT max(version) FROM schema_version").fetchone()
    return bool(row and row[0] is not None and int(row[0]) >= version)


def readable_as_it_is(version: int) -> bool:
    """Can this studio read a file at schema `version` without upgrading it (a read-only file)?"""
    return all(not getattr(module, "READERS_NEED", True) for module in MIGRATION_MODULES if version < module.VERSION)
