"""What the code cites, a clone can open: every `docs/NAME.md#anchor` named in studio/, tests/ or
benchmarks/ is a file of docs/ with a heading of that anchor, and no citation names a design file
outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Another project's docs are cited with its name first ("Ragnarök's docs/rag25.md").
# The design file outside the repository that the code once cited ("DESIGN" + ".md", "§N").
OUTSIDE = re.compile(r"(?<![/\w])DESIGN\.md")
CITED = re.compile(r"(?<!'s )docs/([\w-]+\.md)(?:#([\w-]+))?")
SOURCES = ("studio", "tests", "benchmarks")


def anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as dashes."""
    text = re.sub(r"[^\w\- ]", "", heading.lstrip("#").strip().lower())
    return text.replace(" ", "-")


def anchors_of(markdown: str) -> set[str]:
    return {anchor(line) for line in markdown.splitlines() if line.startswith("#")}


def citations() -> list[tuple[Path, str, str | None]]:
    found = []
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == Path(__file__).resolve():
                continue
            for match in CITED.finditer(path.read_text("utf-8")):
                found.append((path.relative_to(ROOT), match.group(1), match.group(2)))
    return found


def test_every_cited_doc_and_section_exists() -> None:
    broken = []
    for source, name, section in citations():
        doc = ROOT / "docs" / name
        if not doc.exists():
            broken.append(f"{source}: docs/{name} does not exist")
        elif section is not None and section not in anchors_of(doc.read_text("utf-8")):
            broken.append(f"{source}: docs/{name} has no section #{section}")
    assert not broken, "\n".join(broken)


def test_the_design_is_cited_from_the_repository_only() -> None:
    outside = [
        f"{path.relative_to(ROOT)}:{n}"
        for folder in SOURCES
        for path in sorted((ROOT / folder).rglob("*.py"))
        for n, line in enumerate(path.read_text("utf-8").splitlines(), start=1)
        if OUTSIDE.search(line)
    ]
    assert outside == [], "cite docs/design.md#section instead"


def test_the_checks_see_citations_and_anchors() -> None:
    assert any(name == "design.md" and section for _, name, section in citations())
    assert anchor("## 6. Performance budgets") == "6-performance-budgets"
    assert OUTSIDE.search("budgets (DESIGN" + ".md §6)") and not OUTSIDE.search("docs/design.md#6-performance-budgets")
    assert "3-architecture" in anchors_of((ROOT / "docs" / "design.md").read_text("utf-8"))
