"""Every `studio …` command line the docs show still parses as written: the lines of the code blocks
of README.md and of docs/*.md (docs/cli.md's examples among them). Each is resolved against the
command line's click command and its arguments parsed (choices, required options, types), without
running it. An unknown command or option, a bad choice or a missing argument fails here. The
notation the docs use is read as tests/cli/command_lines.py says.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
import typer
from cli.command_lines import expand, parse, written_commands

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
DOCS = REPO / "docs"

# Command lines that abbreviate (`…`) and why they are not parsed; none today.
ABBREVIATED: dict[str, str] = {}

SOURCES = [README, *sorted(DOCS.glob("*.md"))]
COMMANDS = sorted(
    {
        (path.relative_to(REPO).as_posix(), c)
        for path in SOURCES
        for c in written_commands(path.read_text(encoding="utf-8"))
    }
)


def test_the_docs_show_command_lines() -> None:
    """The extraction finds them (a change of the docs' layout must not empty this test)."""
    by_file = {name: [c for n, c in COMMANDS if n == name] for name, _ in COMMANDS}
    assert len(by_file.get("README.md", [])) >= 8
    assert any(c.startswith("studio disagreements") for c in by_file["README.md"])
    assert len(by_file.get("docs/cli.md", [])) > 60
    assert any(c.startswith("studio judges export-batch") for c in by_file["docs/cli.md"])
    assert {"docs/statistics.md", "docs/tui.md"} <= set(by_file)


@pytest.mark.parametrize(("source", "command"), COMMANDS)
def test_a_documented_command_line_parses(source: str, command: str) -> None:
    if command in ABBREVIATED:
        pytest.skip(ABBREVIATED[command])
    for args in expand(command):
        try:
            context = parse(args)
        except typer.TyperException as error:  # click's usage errors: no such option, bad choice, …
            pytest.fail(f"{source}: {command!r} as {shlex.join(args)!r}: {error}")
        runs_bare = getattr(context.command, "invoke_without_command", False)  # a group that is a command too
        assert runs_bare or not hasattr(context.command, "resolve_command"), (
            f"{source}: {command!r} names a group, not a command"
        )


# -- the test's own machinery ---------------------------------------------------------------------


def test_notation_expands_to_every_combination() -> None:
    assert expand("OPENAI_API_KEY=… studio list topics|docs -f json") == [
        ["list", "topics", "-f", "json"],
        ["list", "docs", "-f", "json"],
    ]
    assert expand("studio derive --score exam-max|nugget-all[-strict] [--topic Q]") == [
        ["derive", "--score", "exam-max", "--topic", "Q"],
        ["derive", "--score", "nugget-all", "--topic", "Q"],
        ["derive", "--score", "nugget-all-strict", "--topic", "Q"],
    ]


def test_command_lines_come_from_code_blocks() -> None:
    text = "\n".join(
        [
            "Prose naming `studio judges export-batch` is not a command line.",
            "| what | example |",
            "|---|---|",
            "| a report | `studio report` (needs `--out`) |",
            "```sh",
            "$ studio --db p.duckdb check   # a prompt and a comment",
            "studio estimate --qrels a --gold g \\",
            "    --power-tuning",
            "echo studio is not at the start",
            "STUDIO_DB=p.duckdb studio undo",
            "```",
        ]
    )
    assert written_commands(text) == [
        "studio --db p.duckdb check",
        "studio estimate --qrels a --gold g      --power-tuning",
        "STUDIO_DB=p.duckdb studio undo",
    ]


@pytest.mark.parametrize(
    "args",
    [
        ["list", "topicz"],  # a bad choice
        ["judges", "failures"],  # a missing argument
        ["eval", "--qrels", "human", "--measures", "AP"],  # an unknown option
        ["judge", "--method", "umbrella"],  # a bad choice of an option
        ["evaluate", "--qrels", "human"],  # an unknown command
        ["fd"],  # a missing required option
    ],
)
def test_the_parser_refuses_what_the_command_line_refuses(args: list[str]) -> None:
    with pytest.raises(typer.TyperException):
        parse(args)


def test_an_abbreviated_command_line_is_not_guessed() -> None:
    with pytest.raises(AssertionError, match="abbreviated"):
        expand("studio judge … --export-batch pending.jsonl")
