"""A folder of a prompt study's judgment files imported in one process and one transaction
(`studio import study`): each file's name gives its prompt, model, method and test collection by
a pattern the user gives (`studio.formats.study_files`); parts the pattern lacks come from the
options. Files that do not match are named in a warning, never read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from studio.domain.errors import InputError, UsageError
from studio.domain.import_report import ImportReport
from studio.formats.study_files import compile_pattern, parts_of
from studio.services.evaluation.engine import EvaluationEngine
from studio.services.sensitivity.judgment_files import (
    JudgmentFile,
    JudgmentPolicy,
    checked_file,
    import_judgment_files,
)

SHOWN_UNMATCHED = 5


@dataclass(frozen=True)
class StudyFolder:
    """Where the files are and how their names read; `prompts` the collection their prompt ids
    belong to (needed when two collections share an id), `prefix` starts every label set's name."""

    folder: Path
    pattern: str
    prompts: str | None = None
    model: str | None = None
    method: str | None = None
    collection: str | None = None
    prefix: str = ""


def study_files(spec: StudyFolder) -> tuple[list[JudgmentFile], list[str]]:
    """The folder's matching files (by path) as judgment files, and the paths that do not match."""
    if not spec.folder.is_dir():
        raise InputError(str(spec.folder), None, "not a folder (give the folder holding the judgment files)")
    pattern = compile_pattern(spec.pattern)
    files, unmatched = [], []
    for path in sorted(p for p in spec.folder.rglob("*") if p.is_file()):
        relative = path.relative_to(spec.folder).as_posix()
        if any(part.startswith(".") for part in path.relative_to(spec.folder).parts):
            continue
        parts = parts_of(pattern, relative if "/" in spec.pattern else path.name)
        if parts is None:
            unmatched.append(relative)
            continue
        files.append(_judgment_file(spec, path, parts))
    if not files:
        raise UsageError(f"no file in {spec.folder} matches --pattern {spec.pattern!r}")
    return files, unmatched


def _judgment_file(spec: StudyFolder, path: Path, parts: dict[str, str]) -> JudgmentFile:
    given = {"model": spec.model, "method": spec.method, "collection": spec.collection}
    for part, value in given.items():
        if part not in parts:
            if value is None:
                raise UsageError(f"--pattern has no {{{part}}}: give --{part}")
            parts[part] = value
    prompt = f"{spec.prompts}/{parts['prompt']}" if spec.prompts else parts["prompt"]
    name = f"{spec.prefix}{parts['model']}-{parts['method']}-{parts['collection']}-{parts['prompt']}"
    return checked_file(path, name, prompt, parts["model"], parts["collection"], parts["method"])


def import_study_folder(engine: EvaluationEngine, spec: StudyFolder, policy: JudgmentPolicy) -> ImportReport:
    """Every matching file into its own linked label set, `MODEL-METHOD-COLLECTION-PROMPT`."""
    files, unmatched = study_files(spec)
    warnings = []
    if unmatched:
        shown = ", ".join(unmatched[:SHOWN_UNMATCHED]) + (" …" if len(unmatched) > SHOWN_UNMATCHED else "")
        warnings.append(f"{len(unmatched)} file(s) in {spec.folder} do not match the pattern, not read: {shown}")
    report = import_judgment_files(engine, files, policy, warnings)
    report.what = "study judgments"
    return report
