"""Prompt collections as data: import and export (`prompts.json`, or a folder of the studio's own
template folders), links of label sets to the prompt, model and test collection they were made
with, and published pairwise verdicts.

A folder export writes `ID/METHOD/{system.txt,user.txt,meta.json}` per prompt: each is a studio
template (`studio judge --prompt DIR/ID/binary`), its meta.json naming the method, the author,
the author group and the prompt's position in the collection; a folder import reads every
template folder below it the same way (folders without a position after the others, by path).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from studio.domain.errors import InputError, UsageError, quoted
from studio.domain.export_report import ExportReport
from studio.domain.import_report import ImportReport
from studio.domain.names import check_name
from studio.domain.prompt_study import PAIR_CATEGORIES, STUDY_METHODS, PreferenceRow, StudyPrompt
from studio.formats.checks import checked_name
from studio.formats.json_input import loads
from studio.formats.prompt_collections import (
    group_of,
    parse_groups_json,
    parse_prompts_json,
    placeholder_problem,
    write_prompts_json,
)
from studio.formats.text_input import read_text
from studio.services.exports.delivery import deliver, inside, output_folder
from studio.store import Database, new_batch
from studio.store import labels as label_store
from studio.store import prompt_collections as prompt_store


def read_collection(path: Path, groups_file: Path | None = None, skipped: list[str] | None = None) -> list[StudyPrompt]:
    """The prompts of a `prompts.json` file or of a folder of template folders; with `skipped`, a
    `prompts.json` prompt without its passage placeholder is named there instead of refused."""
    groups = parse_groups_json(read_text(groups_file), str(groups_file)) if groups_file else None
    if path.is_dir():
        return _read_folder(path, groups)
    return parse_prompts_json(read_text(path), str(path), groups, skipped)


def _read_folder(root: Path, groups: dict[str, str] | None) -> list[StudyPrompt]:
    """Every folder below `root` holding a user.txt; its meta.json names the method (and author)."""
    prompts: list[tuple[int, StudyPrompt]] = []
    for user_file in sorted(root.rglob("user.txt")):
        folder = user_file.parent
        meta_file = folder / "meta.json"
        meta = loads(read_text(meta_file), str(meta_file)) if meta_file.is_file() else {}
        method = meta.get("method") if isinstance(meta, dict) else None
        if method not in STUDY_METHODS:
            raise InputError(str(meta_file), None, "meta.json must name the method: binary, graded or pairwise")
        prompt_id = checked_name(
            str(meta.get("prompt_id") or folder.relative_to(root).parts[0]), "prompt id", str(meta_file), None
        )
        participant = str(meta.get("participant_name") or prompt_id)
        system_file = folder / "system.txt"
        system = system_file.read_text(encoding="utf-8") if system_file.is_file() else ""
        user = user_file.read_text(encoding="utf-8")
        problem = placeholder_problem(method, system, user)
        if problem is not None:
            raise InputError(str(folder), None, f"prompt {quoted(prompt_id)} ({method}): {problem}")
        group = checked_name(
            str(meta.get("group") or group_of(participant, prompt_id, groups)), "group", str(meta_file), None
        )
        position = meta.get("position")
        order = position if isinstance(position, int) else len(prompts) + 1_000_000
        prompts.append((order, StudyPrompt(prompt_id, participant, group, method, system, user)))
    if not prompts:
        raise InputError(str(root), None, "no prompt folders (with user.txt and meta.json) inside")
    return [prompt for _, prompt in sorted(prompts, key=lambda found: found[0])]


def import_prompts(
    db: Database, path: Path, *, name: str | None = None, groups_file: Path | None = None, replace: bool = False
) -> ImportReport:
    """A prompt collection, named after the file (or folder) unless `name` says otherwise; a prompt
    without its passage placeholder is left out with a warning naming it (the rest imports)."""
    collection = check_name(name or path.name.removesuffix(".json"), "prompt collection")
    skipped: list[str] = []
    prompts = read_collection(path, groups_file, skipped)
    seen: set[tuple[str, str]] = set()
    for prompt in prompts:
        if (prompt.prompt_id, prompt.method) in seen:
            raise InputError(str(path), None, f"prompt {quoted(prompt.prompt_id)} has two {prompt.method} prompts")
        seen.add((prompt.prompt_id, prompt.method))
    con = db.cursor()
    if collection in prompt_store.collection_names(con) and not replace:
        raise UsageError(f"prompt collection {collection!r} already exists (use --replace)")
    with db.transaction() as tx:
        batch = new_batch(tx, "import prompts", str(path))
        prompt_store.replace_collection(tx, collection, prompts, batch)
    counts: dict[str, int] = defaultdict(int)
    for prompt in prompts:
        counts[f"{prompt.method} prompts"] += 1
    warnings = [f"{path}: skipped {where}" for where in skipped]
    if skipped:
        counts["skipped prompts"] = len(skipped)
    return ImportReport(
        "prompts", [str(path)], [collection], {"prompts": len({p.prompt_id for p in prompts}), **counts}, warnings
    )


def collection_prompts(db: Database, collection: str) -> list[StudyPrompt]:
    prompts = prompt_store.collection_prompts(db.cursor(), collection)
    if not prompts:
        known = ", ".join(prompt_store.collection_names(db.cursor())) or "none"
        raise UsageError(f"no prompt collection named {collection!r} (known: {known})")
    return prompts


def export_prompts(db: Database, collection: str, out: str | Path, *, folder: bool = False) -> ExportReport:
    """Write a collection as `prompts.json` (or a folder of template folders)."""
    prompts = collection_prompts(db, collection)
    counts = {"prompts": len({p.prompt_id for p in prompts}), "messages": len(prompts)}
    if not folder:
        target = deliver(write_prompts_json(prompts), out)
        return ExportReport("prompts", collection, target, counts)
    root = output_folder(Path(out))
    for position, prompt in enumerate(prompts):
        target_dir = inside(root, prompt.prompt_id, prompt.method)
        target_dir.mkdir(parents=True, exist_ok=True)
        meta: dict[str, object] = {"method": prompt.method, "prompt_id": prompt.prompt_id}
        meta |= {"participant_name": prompt.participant, "group": prompt.group, "position": position}
        meta["placeholders"] = ["query", "passage", "passage_a", "passage_b"]
        deliver(prompt.system, target_dir / "system.txt")
        deliver(prompt.user, target_dir / "user.txt")
        deliver(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", target_dir / "meta.json")
    return ExportReport("prompts", collection, str(root), counts)


def resolve_prompt(db: Database, prompt: str) -> tuple[str, str]:
    """(collection, prompt id) of `ID` or `COLLECTION/ID`; refused when unknown or ambiguous."""
    con = db.cursor()
    collection, slash, prompt_id = prompt.rpartition("/")
    prompt_id = check_name(prompt_id, "prompt id")
    holders = prompt_store.prompt_collections_of(con, prompt_id)
    if slash:
        if collection not in holders:
            raise UsageError(f"prompt collection {collection!r} has no prompt {prompt_id!r}")
        return collection, prompt_id
    if not holders:
        raise UsageError(f"no prompt {prompt_id!r} in any prompt collection (import one: studio import prompts)")
    if len(holders) > 1:
        raise UsageError(f"prompt {prompt_id!r} is in {', '.join(holders)}: name it as COLLECTION/{prompt_id}")
    return holders[0], prompt_id


def prompt_methods(db: Database, collection: str, prompt_id: str) -> list[str]:
    return [p.method for p in prompt_store.collection_prompts(db.cursor(), collection) if p.prompt_id == prompt_id]


def link_label_set(db: Database, label_set: str, prompt: str, model: str, test_collection: str, method: str) -> None:
    """Record that `label_set` was made with `prompt` (its `method`), `model` and `test_collection`."""
    model, test_collection = check_name(model, "model"), check_name(test_collection, "test collection")
    collection, prompt_id = resolve_prompt(db, prompt)
    set_id = label_store.label_set_id(db.cursor(), label_set)
    if set_id is None:
        raise UsageError(f"no label set named {label_set!r}")
    with db.transaction() as tx:
        prompt_store.link_label_set(tx, set_id, collection, prompt_id, method, model, test_collection)


def pointwise_method(db: Database, prompt: str, grades: list[float]) -> str:
    """The method a qrels file of `prompt` answers: the prompt's only pointwise one, else told by the
    grades (0/1 only: binary)."""
    collection, prompt_id = resolve_prompt(db, prompt)
    methods = [m for m in prompt_methods(db, collection, prompt_id) if m != "pairwise"]
    if not methods:
        raise UsageError(f"prompt {prompt!r} has no binary or graded prompt: its judgments are preferences")
    if len(methods) == 1:
        return methods[0]
    return "binary" if all(g in (0.0, 1.0) for g in grades) else "graded"


def verdict_of(a_first: float | None, b_first: float | None) -> str | None:
    """agree: `a` (the reference's better passage) wins in both orders; disagree: `b` does; tie:
    the orders disagree; None when an order has no answer."""
    if a_first is None or b_first is None:
        return None
    if a_first == 1.0 and b_first == 2.0:
        return "agree"
    if a_first == 2.0 and b_first == 1.0:
        return "disagree"
    return "tie"


def category_of(grade_a: float, grade_b: float) -> str:
    """The stratum of a pair by its reference grades (`other` outside the three studied)."""
    for name, (high, lows) in PAIR_CATEGORIES.items():
        if grade_a == high and grade_b in lows:
            return name
    return "other"


def orient_raw(
    raw: list[tuple[str, str, str, float]], reference: dict[str, dict[str, float]], source: str
) -> tuple[list[PreferenceRow], list[str]]:
    """Raw answers per order paired into verdicts, `a` the passage the reference grades higher;
    pairs the reference does not order, or answered in one order only, are left out (warned)."""
    answers: dict[tuple[str, str, str], float] = {}
    for qid, first, second, answer in raw:
        answers[(qid, first, second)] = answer
    rows, left_out = [], 0
    for qid, a, b in sorted({(q, *sorted((f, s))) for q, f, s in answers}):
        grades = reference.get(qid, {})
        if a not in grades or b not in grades or grades[a] == grades[b]:
            left_out += 1
            continue
        if grades[b] > grades[a]:
            a, b = b, a
        a_first, b_first = answers.get((qid, a, b)), answers.get((qid, b, a))
        verdict = verdict_of(a_first, b_first)
        if verdict is None:
            left_out += 1
            continue
        rows.append(PreferenceRow(qid, category_of(grades[a], grades[b]), a, b, verdict, a_first, b_first))
    warnings = [f"{source}: {left_out} pair(s) the reference does not order or answered in one order only"]
    return rows, warnings if left_out else []
